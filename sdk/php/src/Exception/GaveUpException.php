<?php

declare(strict_types=1);

namespace Botix\Exception;

/** Every attempt the retry policy allows failed in a way worth retrying; getPrevious() is the last failure, status/apiCode are the last answer's when there was one. */
final class GaveUpException extends BotixException
{
    protected const KIND = 'gave_up';
}
