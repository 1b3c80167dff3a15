<?php

declare(strict_types=1);

namespace Botix\Model;

/** An endpoint's state as its owner reads it: what is wrong, why, and since when. (schema EndpointHealth) */
final class EndpointHealth extends Model
{
    public const SCHEMA = 'EndpointHealth';
    public const FIELDS = [
        'state' => 'state',
        'cause' => 'cause',
        'since' => 'since',
        'until' => 'until',
        'reason' => 'reason',
        'failed_attempts' => 'failedAttempts',
    ];

    public function __construct(
        /** "disabled", "failing" (the last attempt failed), "paused" (the receiver's Retry-After runs) or "healthy". */
        public readonly string $state,
        /** The class of the last failed attempt (http_403, http_503, connect_timeout, ...), or the receiver's answer while paused. */
        public readonly ?string $cause = null,
        /** When the state began (null while healthy). */
        public readonly ?string $since = null,
        /** The end of the receiver's pause (paused only). */
        public readonly ?string $until = null,
        /** Why a disabled endpoint was disabled. */
        public readonly ?string $reason = null,
        /** Failed attempts in a row (attempts, not deliveries). */
        public readonly ?int $failedAttempts = null,
    ) {
    }
}
