<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of contacts->count(). (schema Count) */
final class Count extends Model
{
    public const SCHEMA = 'Count';
    public const FIELDS = [
        'total' => 'total',
    ];

    public function __construct(
        public readonly int $total,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
