<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of webhookEndpoints->recover(): an RFC 3339 time, at most 14 days back. (schema RecoverRequest) */
final class RecoverRequest extends Model
{
    public const SCHEMA = 'RecoverRequest';
    public const FIELDS = [
        'since' => 'since',
    ];

    public function __construct(
        public readonly string $since,
    ) {
    }
}
