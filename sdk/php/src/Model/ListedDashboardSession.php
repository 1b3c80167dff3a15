<?php

declare(strict_types=1);

namespace Botix\Model;

/**
 * A live session as dashboardSessions->list() shows it: without its token, with the API key that made it.
 * (schema ListedDashboardSession)
 */
final class ListedDashboardSession extends Model
{
    public const SCHEMA = 'ListedDashboardSession';
    public const FIELDS = [
        'id' => 'id',
        'scope' => 'scope',
        'key_id' => 'keyId',
        'created_at' => 'createdAt',
        'expires_at' => 'expiresAt',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $scope,
        /** The id of the API key that made the session (revoking the key revokes the session); null for a session made before sessions recorded their key. */
        public readonly ?string $keyId,
        public readonly string $createdAt,
        public readonly string $expiresAt,
    ) {
    }
}
