<?php

declare(strict_types=1);

namespace Botix;

/** The API's public error codes (the "code" of the error envelope). A test checks them against the server's table. */
final class ErrorCode
{
    public const UNAUTHORIZED = 'UNAUTHORIZED';
    public const INSUFFICIENT_SCOPE = 'INSUFFICIENT_SCOPE';
    public const NOT_FOUND = 'NOT_FOUND';
    public const INVALID_JSON = 'INVALID_JSON';
    public const UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE';
    public const VALIDATION_FAILED = 'VALIDATION_FAILED';
    public const INVALID_PARAMETER = 'INVALID_PARAMETER';
    public const PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE';
    public const IDEMPOTENCY_KEY_REQUIRED = 'IDEMPOTENCY_KEY_REQUIRED';
    public const IDEMPOTENCY_KEY_INVALID = 'IDEMPOTENCY_KEY_INVALID';
    public const IDEMPOTENCY_KEY_REUSE_CONFLICT = 'IDEMPOTENCY_KEY_REUSE_CONFLICT';
    public const IDEMPOTENCY_KEY_IN_PROGRESS = 'IDEMPOTENCY_KEY_IN_PROGRESS';
    public const CONTACT_ALREADY_EXISTS = 'CONTACT_ALREADY_EXISTS';
    public const ENDPOINT_DISABLED = 'ENDPOINT_DISABLED';
    public const INVALID_CURSOR = 'INVALID_CURSOR';
    public const OFFSET_TOO_LARGE = 'OFFSET_TOO_LARGE';
    public const LIMIT_EXCEEDED = 'LIMIT_EXCEEDED';
    public const RETRY_COOLDOWN = 'RETRY_COOLDOWN';
    public const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';
    public const INTERNAL = 'INTERNAL';

    /** @return list<string> every code above */
    public static function all(): array
    {
        return array_values((new \ReflectionClass(self::class))->getConstants());
    }
}
