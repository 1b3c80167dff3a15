<?php

declare(strict_types=1);

namespace Botix\Model;

/** One event's delivery to one endpoint. (schema Delivery) */
final class Delivery extends Model
{
    public const SCHEMA = 'Delivery';
    public const FIELDS = [
        'id' => 'id',
        'event_id' => 'eventId',
        'event_type' => 'eventType',
        'endpoint_id' => 'endpointId',
        'status' => 'status',
        'round' => 'round',
        'attempts_count' => 'attemptsCount',
        'created_at' => 'createdAt',
        'updated_at' => 'updatedAt',
        'next_attempt_at' => 'nextAttemptAt',
        'last_status_code' => 'lastStatusCode',
        'last_error_class' => 'lastErrorClass',
        'dead_reason' => 'deadReason',
        'delivered_at' => 'deliveredAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $eventId,
        public readonly string $eventType,
        public readonly string $endpointId,
        public readonly string $status,
        public readonly int $round,
        public readonly int $attemptsCount,
        public readonly string $createdAt,
        public readonly string $updatedAt,
        public readonly ?string $nextAttemptAt = null,
        public readonly ?int $lastStatusCode = null,
        public readonly ?string $lastErrorClass = null,
        public readonly ?string $deadReason = null,
        public readonly ?string $deliveredAt = null,
    ) {
    }
}
