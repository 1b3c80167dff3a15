<?php

declare(strict_types=1);

namespace Botix;

use Botix\Exception\InvalidPositionException;

/**
 * Where a walk of a list stands: the cursor of the page that holds the last item handled ('' for the
 * first page) and that item's id ('' when no item of that page is handled yet).
 *
 * Its text form, "p1.<item id>.<page cursor>", is the same in every BOTIX SDK, so a walk saved by one
 * can be resumed by another. Resuming fetches that page again and skips its leading items whose id is
 * >= the saved id: lists are newest first by id and ids sort by creation time, so nothing after the
 * saved item is lost and nothing before it repeated, even if it was deleted meanwhile.
 */
final class Position implements \Stringable
{
    private const PREFIX = 'p1.';

    public function __construct(
        public readonly string $cursor = '',
        public readonly string $after = '',
    ) {
    }

    /** Reads the text form; '' is the start of the list. */
    public static function parse(string $s): self
    {
        if ($s === '') {
            return new self();
        }
        if (!str_starts_with($s, self::PREFIX)) {
            throw new InvalidPositionException('botix: not a list position');
        }
        $rest = substr($s, strlen(self::PREFIX));
        $dot = strpos($rest, '.');
        if ($dot === false) {
            throw new InvalidPositionException('botix: not a list position');
        }
        $after = substr($rest, 0, $dot);
        $cursor = substr($rest, $dot + 1);
        if (($after !== '' && preg_match('/^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/D', $after) !== 1) || strpbrk($cursor, " \t\r\n") !== false) {
            throw new InvalidPositionException('botix: not a list position');
        }
        return new self($cursor, $after);
    }

    public function isStart(): bool
    {
        return $this->cursor === '' && $this->after === '';
    }

    public function toString(): string
    {
        return self::PREFIX . $this->after . '.' . $this->cursor;
    }

    public function __toString(): string
    {
        return $this->toString();
    }
}
