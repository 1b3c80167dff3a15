<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of webhookEndpoints->recover(): while hasMore, the recovery continues by itself (get() shows its progress). (schema Recovery) */
final class Recovery extends Model
{
    public const SCHEMA = 'Recovery';
    public const FIELDS = [
        'recovery_id' => 'recoveryId',
        'endpoint_id' => 'endpointId',
        'since' => 'since',
        'until' => 'until',
        'deliveries' => 'deliveries',
        'queued' => 'queued',
        'skipped' => 'skipped',
        'has_more' => 'hasMore',
        'status' => 'status',
        'next_step_at' => 'nextStepAt',
    ];

    public function __construct(
        public readonly string $recoveryId,
        public readonly string $endpointId,
        public readonly string $since,
        public readonly string $until,
        public readonly int $deliveries,
        public readonly int $queued,
        public readonly int $skipped,
        public readonly bool $hasMore,
        public readonly string $status,
        /** When the recovery's next step is due (while it runs). */
        public readonly ?string $nextStepAt = null,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
