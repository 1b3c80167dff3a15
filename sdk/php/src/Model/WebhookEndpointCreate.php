<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of webhookEndpoints->create(). Events are event types, or ["*"] for all. (schema WebhookEndpointCreate) */
final class WebhookEndpointCreate extends Model
{
    public const SCHEMA = 'WebhookEndpointCreate';
    public const FIELDS = [
        'url' => 'url',
        'events' => 'events',
        'description' => 'description',
        'rate_limit' => 'rateLimit',
        'max_concurrency' => 'maxConcurrency',
    ];

    public function __construct(
        public readonly string $url,
        public readonly array $events,
        public readonly ?string $description = null,
        /** 1 to 1000 deliveries started per second (null: no limit). */
        public readonly ?int $rateLimit = null,
        /** 1 to 100 requests in flight (null: no limit). */
        public readonly ?int $maxConcurrency = null,
    ) {
    }
}
