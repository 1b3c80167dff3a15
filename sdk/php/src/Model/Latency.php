<?php

declare(strict_types=1);

namespace Botix\Model;

/** Response times of the attempts the receiver answered (with any HTTP status; a timeout has none): how many, and the histogram bounds in milliseconds that half and 95 % of them came in under (null when nothing was answered). (schema Latency) */
final class Latency extends Model
{
    public const SCHEMA = 'Latency';
    public const FIELDS = [
        'answered' => 'answered',
        'p50_ms' => 'p50Ms',
        'p95_ms' => 'p95Ms',
    ];

    public function __construct(
        public readonly int $answered,
        public readonly ?int $p50Ms,
        public readonly ?int $p95Ms,
    ) {
    }
}
