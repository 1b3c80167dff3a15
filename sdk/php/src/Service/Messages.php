<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\Message;
use Botix\Model\MessageCreate;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

/** /public/v1/messages */
final class Messages extends Service
{
    /** Queues a message to a contact (idempotent). */
    public function send(MessageCreate $in, ?string $idempotencyKey = null): Message
    {
        return $this->one(Message::class, 'messages.send', [], [], $in->toArray(), $idempotencyKey);
    }

    /** @return Page<Message> */
    public function list(?int $limit = null, ?string $cursor = null, ?string $contactId = null, ?string $status = null): Page
    {
        return $this->page(Message::class, 'messages.list', [], self::query($cursor, $limit, ['contact_id' => $contactId, 'status' => $status]));
    }

    /** @return Walker<Message> */
    public function walk(?int $limit = null, Position|string|null $from = null, ?string $cursor = null, ?string $contactId = null, ?string $status = null): Walker
    {
        return $this->walker(Message::class, 'messages.list', [], self::query($cursor, $limit, ['contact_id' => $contactId, 'status' => $status]), $from);
    }
}
