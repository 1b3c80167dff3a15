<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** A message sent to a contact. (schema Message) */
final class Message extends Model
{
    public const SCHEMA = 'Message';
    public const FIELDS = [
        'id' => 'id',
        'contact_id' => 'contactId',
        'channel' => 'channel',
        'text' => 'text',
        'status' => 'status',
        'created_at' => 'createdAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $contactId,
        public readonly string $channel,
        public readonly string $text,
        public readonly string $status,
        public readonly string $createdAt,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
