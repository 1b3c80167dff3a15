<?php

declare(strict_types=1);

namespace Botix\Model;

/** The slow-down a receiver asked for with a 429, or a 503 with Retry-After, while it lasts. (schema EndpointThrottle) */
final class EndpointThrottle extends Model
{
    public const SCHEMA = 'EndpointThrottle';
    public const FIELDS = [
        'throttled_by' => 'throttledBy',
        'effective_rate' => 'effectiveRate',
        'paused_until' => 'pausedUntil',
    ];

    public function __construct(
        /** The answer that asked: "http_429" or "http_503". */
        public readonly string $throttledBy,
        /** Deliveries per second the endpoint was lowered to; it grows back to the rate limit. */
        public readonly int|float|null $effectiveRate = null,
        /** The end of the receiver's Retry-After: nothing is sent before. */
        public readonly ?string $pausedUntil = null,
    ) {
    }
}
