<?php

declare(strict_types=1);

namespace Botix\Model;

/** The answer of dashboardSessions->delete(): a Deleted whose id is a dashboard session's. (schema DashboardSessionDeleted) */
final class DashboardSessionDeleted extends Deleted
{
    public const SCHEMA = 'DashboardSessionDeleted';
}
