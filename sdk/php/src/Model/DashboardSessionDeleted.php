<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of dashboardSessions->delete(). (schema DashboardSessionDeleted) */
final class DashboardSessionDeleted extends Model
{
    public const SCHEMA = 'DashboardSessionDeleted';
    public const FIELDS = [
        'id' => 'id',
        'deleted' => 'deleted',
    ];

    public function __construct(
        public readonly string $id,
        public readonly bool $deleted,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
