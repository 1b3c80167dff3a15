<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of webhookEndpoints->update(): null fields are left as they are. (schema WebhookEndpointUpdate) */
final class WebhookEndpointUpdate extends Model
{
    public const SCHEMA = 'WebhookEndpointUpdate';
    public const FIELDS = [
        'url' => 'url',
        'events' => 'events',
        'description' => 'description',
        'enabled' => 'enabled',
    ];

    public function __construct(
        public readonly ?string $url = null,
        public readonly ?array $events = null,
        public readonly ?string $description = null,
        public readonly ?bool $enabled = null,
    ) {
    }
}
