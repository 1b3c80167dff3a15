<?php

declare(strict_types=1);

namespace Botix\Model;

/** An endpoint's latest recovery, as webhookEndpoints->get() shows it: while status is running it continues by itself and queued grows until it is completed. (schema RecoveryProgress) */
final class RecoveryProgress extends Model
{
    public const SCHEMA = 'RecoveryProgress';
    public const FIELDS = [
        'id' => 'id',
        'status' => 'status',
        'since' => 'since',
        'until' => 'until',
        'queued' => 'queued',
        'skipped' => 'skipped',
        'created_at' => 'createdAt',
        'updated_at' => 'updatedAt',
        'next_step_at' => 'nextStepAt',
        'delivered' => 'delivered',
        'failed' => 'failed',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $status,
        public readonly string $since,
        public readonly string $until,
        public readonly int $queued,
        public readonly int $skipped,
        public readonly string $createdAt,
        public readonly string $updatedAt,
        /** Queued deliveries whose fresh round ended delivered. */
        public readonly int $delivered,
        /** Queued deliveries whose fresh round ended dead again (the rest are on their way). */
        public readonly int $failed,
        /** When the next step is due (while running). */
        public readonly ?string $nextStepAt = null,
    ) {
    }
}
