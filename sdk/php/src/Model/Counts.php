<?php

declare(strict_types=1);

namespace Botix\Model;

/** Attempts by the status they left their delivery in (their sum is the attempts), and the deliveries first tried in the bucket. (schema Counts) */
final class Counts extends Model
{
    public const SCHEMA = 'Counts';
    public const FIELDS = [
        'delivered' => 'delivered',
        'retrying' => 'retrying',
        'dead' => 'dead',
        'deliveries' => 'deliveries',
    ];

    public function __construct(
        public readonly int $delivered,
        public readonly int $retrying,
        public readonly int $dead,
        /** Deliveries whose first attempt started in the bucket (a delivery tried five times is five attempts and one delivery). */
        public readonly int $deliveries,
    ) {
    }
}
