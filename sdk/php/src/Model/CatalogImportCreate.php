<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of catalog->import(): items are arrays with sku, name, price (a JSON number) and currency. (schema CatalogImportCreate) */
final class CatalogImportCreate extends Model
{
    public const SCHEMA = 'CatalogImportCreate';
    public const FIELDS = [
        'items' => 'items',
    ];

    public function __construct(
        public readonly array $items,
    ) {
    }
}
