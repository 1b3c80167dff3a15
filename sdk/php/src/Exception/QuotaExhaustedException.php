<?php

declare(strict_types=1);

namespace Botix\Exception;

/** Not retried: the client's retry quota is exhausted because most recent calls failed; getPrevious() is the last failure. */
final class QuotaExhaustedException extends BotixException
{
    protected const KIND = 'quota';
}
