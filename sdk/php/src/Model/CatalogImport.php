<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** An accepted catalog import; the items are applied asynchronously. (schema CatalogImport) */
final class CatalogImport extends Model
{
    public const SCHEMA = 'CatalogImport';
    public const FIELDS = [
        'id' => 'id',
        'status' => 'status',
        'items_count' => 'itemsCount',
        'created_at' => 'createdAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $status,
        public readonly int $itemsCount,
        public readonly string $createdAt,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
