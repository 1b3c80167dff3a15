<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of deliveries->stats(): buckets are arrays with start, delivered, retrying, dead, deliveries and latency (an array of answered, p50_ms, p95_ms). (schema DeliveryStats) */
final class DeliveryStats extends Model
{
    public const SCHEMA = 'DeliveryStats';
    public const FIELDS = [
        'granularity' => 'granularity',
        'endpoint_id' => 'endpointId',
        'since' => 'since',
        'until' => 'until',
        'buckets' => 'buckets',
        'totals' => 'totals',
    ];

    public const NESTED = [
        'totals' => Counts::class,
    ];

    public function __construct(
        public readonly string $granularity,
        public readonly ?string $endpointId,
        public readonly string $since,
        public readonly string $until,
        public readonly array $buckets,
        public readonly Counts $totals,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
