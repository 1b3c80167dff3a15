<?php

declare(strict_types=1);

namespace Botix\Model;

/** One attempt of a delivery. Kind is scheduled, manual, redrive or redirect. (schema Attempt) */
final class Attempt extends Model
{
    public const SCHEMA = 'Attempt';
    public const FIELDS = [
        'delivery_id' => 'deliveryId',
        'attempt' => 'attempt',
        'round' => 'round',
        'kind' => 'kind',
        'url' => 'url',
        'request_id' => 'requestId',
        'started_at' => 'startedAt',
        'duration_ms' => 'durationMs',
        'status_code' => 'statusCode',
        'response_body' => 'responseBody',
        'error_class' => 'errorClass',
        'error' => 'error',
        'next_attempt_at' => 'nextAttemptAt',
    ];

    public function __construct(
        public readonly string $deliveryId,
        public readonly int $attempt,
        public readonly int $round,
        public readonly string $kind,
        public readonly string $url,
        public readonly string $requestId,
        public readonly string $startedAt,
        public readonly int $durationMs,
        public readonly ?int $statusCode = null,
        public readonly ?string $responseBody = null,
        public readonly ?string $errorClass = null,
        public readonly ?string $error = null,
        public readonly ?string $nextAttemptAt = null,
    ) {
    }
}
