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
        /** Deliveries started per second, in the API's range (null: no limit). */
        public readonly ?int $rateLimit = null,
        /** Requests in flight, in the API's range (null: no limit). */
        public readonly ?int $maxConcurrency = null,
    ) {
    }
}
