<?php

declare(strict_types=1);

namespace Botix\Model;

/** Attempts by the status they left their delivery in (their sum is the attempts), the deliveries first tried in the bucket, and the answers' response times. (schema Counts) */
final class Counts extends Model
{
    public const SCHEMA = 'Counts';
    public const FIELDS = [
        'delivered' => 'delivered',
        'retrying' => 'retrying',
        'dead' => 'dead',
        'deliveries' => 'deliveries',
        'latency' => 'latency',
    ];

    public const NESTED = [
        'latency' => Latency::class,
    ];

    public function __construct(
        public readonly int $delivered,
        public readonly int $retrying,
        public readonly int $dead,
        /** Deliveries whose first attempt started in the bucket (a delivery tried five times is five attempts and one delivery). */
        public readonly int $deliveries,
        /** The response times of the answered attempts. */
        public readonly Latency $latency,
    ) {
    }
}
