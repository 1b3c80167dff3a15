<?php

declare(strict_types=1);

namespace Botix\Exception;

/** The request body does not encode to JSON; nothing was sent. */
final class EncodeException extends BotixException
{
    protected const KIND = 'encode';
}
