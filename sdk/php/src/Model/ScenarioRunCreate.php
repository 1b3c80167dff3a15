<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of scenarios->run(). (schema ScenarioRunCreate) */
final class ScenarioRunCreate extends Model
{
    public const SCHEMA = 'ScenarioRunCreate';
    public const FIELDS = [
        'contact_id' => 'contactId',
        'variables' => 'variables',
    ];

    public function __construct(
        public readonly string $contactId,
        public readonly ?array $variables = null,
    ) {
    }
}
