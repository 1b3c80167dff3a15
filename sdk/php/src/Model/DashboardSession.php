<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** A dashboard session; its token is shown only in the answer of dashboardSessions->create(). (schema DashboardSession) */
final class DashboardSession extends Model
{
    public const SCHEMA = 'DashboardSession';
    public const FIELDS = [
        'id' => 'id',
        'scope' => 'scope',
        'token' => 'token',
        'created_at' => 'createdAt',
        'expires_at' => 'expiresAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $scope,
        public readonly string $token,
        public readonly string $createdAt,
        public readonly string $expiresAt,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
