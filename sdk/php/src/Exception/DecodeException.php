<?php

declare(strict_types=1);

namespace Botix\Exception;

/** The API succeeded but its answer does not decode (or exceeds 8 MiB); a replay would be the same bytes. */
final class DecodeException extends BotixException
{
    protected const KIND = 'decode';
}
