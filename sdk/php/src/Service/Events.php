<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\Event;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

/** /public/v1/events: polling the events webhooks carry. */
final class Events extends Service
{
    /** @return Page<Event> */
    public function list(?int $limit = null, ?string $cursor = null, ?string $type = null, ?\DateTimeInterface $since = null): Page
    {
        return $this->page(Event::class, 'events.list', [], self::query($cursor, $limit, ['type' => $type, 'since' => $since]));
    }

    /** @return Walker<Event> */
    public function walk(?int $limit = null, Position|string|null $from = null, ?string $cursor = null, ?string $type = null, ?\DateTimeInterface $since = null): Walker
    {
        return $this->walker(Event::class, 'events.list', [], self::query($cursor, $limit, ['type' => $type, 'since' => $since]), $from);
    }

    public function get(string $id): Event
    {
        return $this->one(Event::class, 'events.get', ['id' => $id]);
    }
}
