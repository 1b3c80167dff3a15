<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** A built-in capture URL (alive 24 h). (schema Inspector) */
final class Inspector extends Model
{
    public const SCHEMA = 'Inspector';
    public const FIELDS = [
        'id' => 'id',
        'url' => 'url',
        'created_at' => 'createdAt',
        'requests_count' => 'requestsCount',
        'expires_at' => 'expiresAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $url,
        public readonly string $createdAt,
        public readonly int $requestsCount,
        public readonly string $expiresAt,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
