<?php

declare(strict_types=1);

namespace Botix;

/**
 * Walks one list, newest first, item by item (foreach), fetching a page at a time, and knows where it
 * stands (position()) after every item it yields. Leaving the loop (break, or an exception of a page
 * fetch) keeps the position; iterating again, on this walker or on a new one started at the saved
 * position (string form), continues with the next item: none lost, none repeated.
 *
 * @template T
 * @implements \IteratorAggregate<int,T>
 */
final class Walker implements \IteratorAggregate
{
    /** @var \Closure(string):Page<T> */
    private \Closure $fetch;
    private Position $pos;

    /** @param callable(string):Page<T> $fetch fetches the page with this cursor ('' for the first) */
    public function __construct(callable $fetch, Position $from = new Position())
    {
        $this->fetch = \Closure::fromCallable($fetch);
        $this->pos = $from;
    }

    /** Past the last item yielded: read in the loop body, it already counts the item being handled. */
    public function position(): Position
    {
        return $this->pos;
    }

    /** @return \Generator<int,T> */
    public function getIterator(): \Generator
    {
        $cursor = $this->pos->cursor;
        $after = $this->pos->after;
        while (true) {
            $page = ($this->fetch)($cursor);
            $more = $page->hasMore && $page->nextCursor !== '';
            $n = count($page->data);
            foreach ($page->data as $i => $item) {
                $id = (string) $item->id;
                if ($after !== '' && strcmp($id, $after) >= 0) {
                    continue; // handled before the walk stopped (newer or the same)
                }
                $after = '';
                $this->pos = ($more && $i === $n - 1)
                    ? new Position($page->nextCursor) // the page is done: resume at the next one
                    : new Position($cursor, $id);
                yield $item;
            }
            if (!$more) {
                return;
            }
            $cursor = $page->nextCursor;
            $after = '';
            $this->pos = new Position($cursor);
        }
    }
}
