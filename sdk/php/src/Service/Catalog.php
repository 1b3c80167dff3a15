<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\CatalogImport;
use Botix\Model\CatalogImportCreate;

/** /public/v1/catalog */
final class Catalog extends Service
{
    /** Queues a catalog import (idempotent; at most 256 KiB of items). */
    public function import(CatalogImportCreate $in, ?string $idempotencyKey = null): CatalogImport
    {
        return $this->one(CatalogImport::class, 'catalog.import', [], [], $in->toArray(), $idempotencyKey);
    }
}
