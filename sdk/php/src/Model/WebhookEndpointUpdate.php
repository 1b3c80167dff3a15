<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Limit;

/**
 * The body of webhookEndpoints->update(): null fields are left as they are; a limit takes a number
 * to set it or Limit::None to remove it. (schema WebhookEndpointUpdate)
 */
final class WebhookEndpointUpdate extends Model
{
    public const SCHEMA = 'WebhookEndpointUpdate';
    public const FIELDS = [
        'url' => 'url',
        'events' => 'events',
        'description' => 'description',
        'enabled' => 'enabled',
        'rate_limit' => 'rateLimit',
        'max_concurrency' => 'maxConcurrency',
    ];

    public function __construct(
        public readonly ?string $url = null,
        public readonly ?array $events = null,
        public readonly ?string $description = null,
        public readonly ?bool $enabled = null,
        public readonly int|Limit|null $rateLimit = null,
        public readonly int|Limit|null $maxConcurrency = null,
    ) {
    }
}
