<?php

declare(strict_types=1);

namespace Botix\Exception;

/** The caller's Idempotency-Key is not a UUIDv4 or a ULID; nothing was sent (attempts 0). */
final class InvalidIdempotencyKeyException extends BotixException
{
    protected const KIND = 'invalid_key';
}
