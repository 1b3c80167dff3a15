<?php

declare(strict_types=1);

namespace Botix;

/** The HTTP answer a result came from. */
final class Response
{
    public function __construct(
        public readonly int $statusCode,
        public readonly string $requestId,
        /** The key a mutating call sent, the same on every attempt ('' for a GET). */
        public readonly string $idempotencyKey,
        /** True when the API answered with the stored result of an earlier request with the same key. */
        public readonly bool $replayed,
        /** How many HTTP attempts the call took. */
        public readonly int $attempts,
    ) {
    }
}
