<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of contacts->create(). Phone is E.164 (+79990000000). (schema ContactCreate) */
final class ContactCreate extends Model
{
    public const SCHEMA = 'ContactCreate';
    public const FIELDS = [
        'phone' => 'phone',
        'name' => 'name',
        'email' => 'email',
        'tags' => 'tags',
    ];

    public function __construct(
        public readonly string $phone,
        public readonly string $name,
        public readonly ?string $email = null,
        public readonly ?array $tags = null,
    ) {
    }
}
