<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of messages->send(). Channel is one of sms, whatsapp, telegram, viber, vk. (schema MessageCreate) */
final class MessageCreate extends Model
{
    public const SCHEMA = 'MessageCreate';
    public const FIELDS = [
        'contact_id' => 'contactId',
        'text' => 'text',
        'channel' => 'channel',
    ];

    public function __construct(
        public readonly string $contactId,
        public readonly string $text,
        public readonly ?string $channel = null,
    ) {
    }
}
