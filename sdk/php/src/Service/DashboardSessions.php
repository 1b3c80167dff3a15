<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\CurrentDashboardSession;
use Botix\Model\DashboardSession;
use Botix\Model\DashboardSessionDeleted;
use Botix\Model\DashboardSessionRequest;

/**
 * /public/v1/dashboard-sessions: short-lived, scoped tokens for the dashboard instead of the API key.
 * Only a client made with the key may call it; a client made with a session's token calls what the
 * scope grants and gets INSUFFICIENT_SCOPE for the rest.
 */
final class DashboardSessions extends Service
{
    /** Makes a session (idempotent); the answer's token is shown only here. */
    public function create(DashboardSessionRequest $in, ?string $idempotencyKey = null): DashboardSession
    {
        return $this->one(DashboardSession::class, 'dashboardSessions.create', [], [], $in->toArray(), $idempotencyKey);
    }

    /** The session of this client's token: its scope and expiry (a client made with the API key gets NOT_FOUND). */
    public function current(): CurrentDashboardSession
    {
        return $this->one(CurrentDashboardSession::class, 'dashboardSessions.current');
    }

    /** Revokes a session: its token stops working at once (idempotent). */
    public function delete(string $id, ?string $idempotencyKey = null): DashboardSessionDeleted
    {
        return $this->one(DashboardSessionDeleted::class, 'dashboardSessions.delete', ['id' => $id], [], null, $idempotencyKey);
    }
}
