<?php

declare(strict_types=1);

namespace Botix;

/**
 * Bounds the retries of one call. A zero (or negative) field means its default, field by field,
 * except quotaCapacity, where a negative value means "no quota".
 *
 * - maxAttempts: HTTP attempts of a call, the first included (1 never retries; default 5).
 * - baseDelayMs / maxDelayMs: full-jitter backoff, before retry n a random wait in
 *   [0, min(maxDelayMs, baseDelayMs * 2^(n-1))] unless the server said Retry-After (200 ms / 20 s).
 * - maxRetryAfterMs: caps the server's Retry-After (default 60 s); a longer one is waited this long.
 * - quotaCapacity: the client's retry token bucket (default 500): a retry takes 5 tokens (10 after a
 *   timeout or a connection error), a success returns what its retries took, or 1 when none.
 */
final class RetryPolicy
{
    public const DEFAULT_MAX_ATTEMPTS = 5;
    public const DEFAULT_BASE_DELAY_MS = 200;
    public const DEFAULT_MAX_DELAY_MS = 20000;
    public const DEFAULT_MAX_RETRY_AFTER_MS = 60000;
    public const DEFAULT_QUOTA_CAPACITY = 500;

    public readonly int $maxAttempts;
    public readonly int $baseDelayMs;
    public readonly int $maxDelayMs;
    public readonly int $maxRetryAfterMs;
    public readonly int $quotaCapacity;

    public function __construct(
        int $maxAttempts = 0,
        int $baseDelayMs = 0,
        int $maxDelayMs = 0,
        int $maxRetryAfterMs = 0,
        int $quotaCapacity = 0,
    ) {
        $this->maxAttempts = $maxAttempts > 0 ? $maxAttempts : self::DEFAULT_MAX_ATTEMPTS;
        $this->baseDelayMs = $baseDelayMs > 0 ? $baseDelayMs : self::DEFAULT_BASE_DELAY_MS;
        $this->maxDelayMs = $maxDelayMs > 0 ? $maxDelayMs : self::DEFAULT_MAX_DELAY_MS;
        $this->maxRetryAfterMs = $maxRetryAfterMs > 0 ? $maxRetryAfterMs : self::DEFAULT_MAX_RETRY_AFTER_MS;
        $this->quotaCapacity = $quotaCapacity === 0 ? self::DEFAULT_QUOTA_CAPACITY : $quotaCapacity;
    }
}
