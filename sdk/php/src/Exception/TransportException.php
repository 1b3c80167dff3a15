<?php

declare(strict_types=1);

namespace Botix\Exception;

/** No answer: the connection was refused, reset or closed before the answer. */
final class TransportException extends BotixException
{
    protected const KIND = 'transport';
}
