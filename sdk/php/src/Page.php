<?php

declare(strict_types=1);

namespace Botix;

/**
 * One page of a list, newest first. nextCursor continues the list ('' on the last page).
 *
 * @template T
 * @implements \IteratorAggregate<int,T>
 */
final class Page implements \IteratorAggregate, \Countable
{
    /** @param list<T> $data */
    public function __construct(
        public readonly array $data,
        public readonly string $nextCursor,
        public readonly bool $hasMore,
        public readonly Response $response,
    ) {
    }

    /** @return \ArrayIterator<int,T> */
    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->data);
    }

    public function count(): int
    {
        return count($this->data);
    }
}
