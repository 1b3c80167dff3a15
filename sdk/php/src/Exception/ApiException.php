<?php

declare(strict_types=1);

namespace Botix\Exception;

/** The API answered with an error (or a 3xx, which the client never follows). Retryable answers (429, 5xx, 409 IN_PROGRESS) only end a call this way when retrying was not allowed. */
final class ApiException extends BotixException
{
    protected const KIND = 'api';

    public function isReissuable(): bool
    {
        return self::retryableAnswer($this->status, $this->apiCode);
    }
}
