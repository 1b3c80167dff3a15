<?php

declare(strict_types=1);

namespace Botix\Exception;

/** An attempt outlived the client's attempt timeout. */
final class TimeoutException extends BotixException
{
    protected const KIND = 'timeout';
}
