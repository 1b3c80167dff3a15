<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** A delivery with its payload and every attempt. (schema DeliveryDetail) */
final class DeliveryDetail extends Model
{
    public const SCHEMA = 'DeliveryDetail';
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
        'payload' => 'payload',
        'attempts' => 'attempts',
        'next_attempt_at' => 'nextAttemptAt',
        'last_status_code' => 'lastStatusCode',
        'last_error_class' => 'lastErrorClass',
        'dead_reason' => 'deadReason',
        'delivered_at' => 'deliveredAt',
    ];

    public const NESTED = [
        'attempts' => [Attempt::class],
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
        public readonly mixed $payload,
        public readonly array $attempts,
        public readonly ?string $nextAttemptAt = null,
        public readonly ?int $lastStatusCode = null,
        public readonly ?string $lastErrorClass = null,
        public readonly ?string $deadReason = null,
        public readonly ?string $deliveredAt = null,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
