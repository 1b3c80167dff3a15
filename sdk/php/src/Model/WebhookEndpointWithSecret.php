<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of a creation or a rotation: the only times the signing secret is shown. (schema WebhookEndpointWithSecret) */
final class WebhookEndpointWithSecret extends Model
{
    public const SCHEMA = 'WebhookEndpointWithSecret';
    public const FIELDS = [
        'id' => 'id',
        'url' => 'url',
        'events' => 'events',
        'enabled' => 'enabled',
        'created_at' => 'createdAt',
        'updated_at' => 'updatedAt',
        'consecutive_failures' => 'consecutiveFailures',
        'secret' => 'secret',
        'description' => 'description',
        'disabled_reason' => 'disabledReason',
        'last_success_at' => 'lastSuccessAt',
        'last_failure_at' => 'lastFailureAt',
        'failing_since' => 'failingSince',
        'recovery' => 'recovery',
        'rate_limit' => 'rateLimit',
        'max_concurrency' => 'maxConcurrency',
        'throttle' => 'throttle',
        'health' => 'health',
        'previous_secret_expires_at' => 'previousSecretExpiresAt',
    ];

    public const NESTED = [
        'recovery' => RecoveryProgress::class,
        'throttle' => EndpointThrottle::class,
        'health' => EndpointHealth::class,
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $url,
        public readonly array $events,
        public readonly bool $enabled,
        public readonly string $createdAt,
        public readonly string $updatedAt,
        public readonly int $consecutiveFailures,
        public readonly string $secret,
        public readonly ?string $description = null,
        public readonly ?string $disabledReason = null,
        public readonly ?string $lastSuccessAt = null,
        public readonly ?string $lastFailureAt = null,
        public readonly ?string $failingSince = null,
        /** The endpoint's latest recovery (on get, once it had one). */
        public readonly ?RecoveryProgress $recovery = null,
        /** Deliveries started per second at most (null: no limit). */
        public readonly ?int $rateLimit = null,
        /** Requests in flight at once at most (null: no limit). */
        public readonly ?int $maxConcurrency = null,
        /** Present while the receiver's slow-down lasts. */
        public readonly ?EndpointThrottle $throttle = null,
        /** The endpoint's state (on get and list). */
        public readonly ?EndpointHealth $health = null,
        public readonly ?string $previousSecretExpiresAt = null,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
