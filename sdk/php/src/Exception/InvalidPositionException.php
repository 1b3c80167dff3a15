<?php

declare(strict_types=1);

namespace Botix\Exception;

/** A string given to Position::parse() is not the text form of a Position. */
final class InvalidPositionException extends \InvalidArgumentException
{
}
