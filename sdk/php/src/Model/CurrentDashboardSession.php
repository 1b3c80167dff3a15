<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The session of a client's token (dashboardSessions->current()), without the token. (schema CurrentDashboardSession) */
final class CurrentDashboardSession extends Model
{
    public const SCHEMA = 'CurrentDashboardSession';
    public const FIELDS = [
        'id' => 'id',
        'scope' => 'scope',
        'created_at' => 'createdAt',
        'expires_at' => 'expiresAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $scope,
        public readonly string $createdAt,
        public readonly string $expiresAt,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
