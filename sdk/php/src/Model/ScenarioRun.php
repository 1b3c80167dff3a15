<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** A started scenario run. (schema ScenarioRun) */
final class ScenarioRun extends Model
{
    public const SCHEMA = 'ScenarioRun';
    public const FIELDS = [
        'id' => 'id',
        'scenario_id' => 'scenarioId',
        'contact_id' => 'contactId',
        'variables' => 'variables',
        'status' => 'status',
        'created_at' => 'createdAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $scenarioId,
        public readonly string $contactId,
        public readonly mixed $variables,
        public readonly string $status,
        public readonly string $createdAt,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
