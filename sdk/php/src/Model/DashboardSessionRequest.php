<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of dashboardSessions->create(): scope 'read' or 'read_retry'; a null ttlSeconds is the default. (schema DashboardSessionRequest) */
final class DashboardSessionRequest extends Model
{
    public const SCHEMA = 'DashboardSessionRequest';
    public const FIELDS = [
        'scope' => 'scope',
        'ttl_seconds' => 'ttlSeconds',
    ];

    public function __construct(
        public readonly string $scope,
        public readonly ?int $ttlSeconds = null,
    ) {
    }
}
