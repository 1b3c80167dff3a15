<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\ScenarioRun;
use Botix\Model\ScenarioRunCreate;

/** /public/v1/scenarios */
final class Scenarios extends Service
{
    /** Starts a scenario for a contact (idempotent). */
    public function run(string $scenarioId, ScenarioRunCreate $in, ?string $idempotencyKey = null): ScenarioRun
    {
        $body = $in->toArray();
        if (isset($body['variables']) && $body['variables'] === []) {
            unset($body['variables']);
        }
        return $this->one(ScenarioRun::class, 'scenarios.run', ['scenario_id' => $scenarioId], [], $body, $idempotencyKey);
    }
}
