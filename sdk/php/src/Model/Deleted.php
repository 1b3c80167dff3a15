<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of a deletion. (schema Deleted) */
class Deleted extends Model
{
    public const SCHEMA = 'Deleted';
    public const FIELDS = [
        'id' => 'id',
        'deleted' => 'deleted',
    ];

    public function __construct(
        public readonly string $id,
        public readonly bool $deleted,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
