<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\CurrentDashboardSession;
use Botix\Model\DashboardSession;
use Botix\Model\DashboardSessionDeleted;
use Botix\Model\DashboardSessionRequest;
use Botix\Model\ListedDashboardSession;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

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

    /**
     * One page of the project's live sessions, newest first, each with the API key that made it (never
     * their tokens): to find every token handed out and revoke it. The API key only (a session's token
     * gets INSUFFICIENT_SCOPE).
     *
     * @return Page<ListedDashboardSession>
     */
    public function list(?int $limit = null, ?string $cursor = null): Page
    {
        return $this->page(ListedDashboardSession::class, 'dashboardSessions.list', [], self::query($cursor, $limit));
    }

    /** @return Walker<ListedDashboardSession> */
    public function walk(?int $limit = null, Position|string|null $from = null, ?string $cursor = null): Walker
    {
        return $this->walker(ListedDashboardSession::class, 'dashboardSessions.list', [], self::query($cursor, $limit), $from);
    }

    /** Revokes a session: its token stops working at once (idempotent). */
    public function delete(string $id, ?string $idempotencyKey = null): DashboardSessionDeleted
    {
        return $this->one(DashboardSessionDeleted::class, 'dashboardSessions.delete', ['id' => $id], [], null, $idempotencyKey);
    }
}
