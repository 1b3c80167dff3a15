<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** A contact of the project. (schema Contact) */
final class Contact extends Model
{
    public const SCHEMA = 'Contact';
    public const FIELDS = [
        'id' => 'id',
        'phone' => 'phone',
        'name' => 'name',
        'tags' => 'tags',
        'created_at' => 'createdAt',
        'email' => 'email',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $phone,
        public readonly string $name,
        public readonly array $tags,
        public readonly string $createdAt,
        public readonly ?string $email = null,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
