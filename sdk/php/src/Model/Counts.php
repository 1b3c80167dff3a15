<?php

declare(strict_types=1);

namespace Botix\Model;

/** Attempts by the status they left their delivery in. (schema Counts) */
final class Counts extends Model
{
    public const SCHEMA = 'Counts';
    public const FIELDS = [
        'delivered' => 'delivered',
        'retrying' => 'retrying',
        'dead' => 'dead',
    ];

    public function __construct(
        public readonly int $delivered,
        public readonly int $retrying,
        public readonly int $dead,
    ) {
    }
}
