<?php

declare(strict_types=1);

namespace Botix\Webhook;

/**
 * Remembers ids in a SQL table through PDO (SQLite, MySQL, PostgreSQL), shared by every process of
 * the receiver. It uses only portable SQL: the primary key settles concurrent first claims (one
 * INSERT wins), and a compare-and-swap UPDATE settles the takeover of an expired lease.
 *
 * Table: <table>(event_id VARCHAR(255) PRIMARY KEY, state VARCHAR(16), until_ms BIGINT); createTable()
 * makes it. The PDO connection must throw on errors (PDO::ERRMODE_EXCEPTION, PHP 8's default).
 */
final class PdoDeduplicator implements Deduplicator
{
    /** @var \Closure():float */
    private \Closure $now;

    /** @param (callable():float)|null $now the clock in unix seconds; null: microtime(true) */
    public function __construct(
        private readonly \PDO $pdo,
        private readonly string $table = 'botix_webhook_events',
        private readonly float $leaseS = self::DEFAULT_LEASE_S,
        private readonly float $retentionS = self::DEFAULT_RETENTION_S,
        ?callable $now = null,
    ) {
        if (preg_match('/^[A-Za-z_][A-Za-z0-9_]*$/D', $table) !== 1) {
            throw new \InvalidArgumentException('webhook: table name must be an SQL identifier');
        }
        $this->now = $now !== null ? \Closure::fromCallable($now) : static fn (): float => microtime(true);
        $this->pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
    }

    public function createTable(): void
    {
        $this->pdo->exec("CREATE TABLE IF NOT EXISTS {$this->table} (event_id VARCHAR(255) PRIMARY KEY, state VARCHAR(16) NOT NULL, until_ms BIGINT NOT NULL)");
    }

    public function begin(string $eventId): State
    {
        for ($try = 0; $try < 5; $try++) {
            $now = $this->nowMs();
            $lease = $now + (int) round($this->leaseS * 1000);
            $sel = $this->pdo->prepare("SELECT state, until_ms FROM {$this->table} WHERE event_id = ?");
            $sel->execute([$eventId]);
            $row = $sel->fetch(\PDO::FETCH_ASSOC);
            $sel->closeCursor();
            if ($row === false) {
                try {
                    $this->pdo->prepare("INSERT INTO {$this->table} (event_id, state, until_ms) VALUES (?, 'processing', ?)")->execute([$eventId, $lease]);
                    return State::Unseen;
                } catch (\PDOException $e) {
                    if (!self::isConflict($e)) {
                        throw $e;
                    }
                    continue; // another copy claimed it first: read what it left
                }
            }
            if ((int) $row['until_ms'] > $now) {
                return $row['state'] === 'done' ? State::Done : State::Processing;
            }
            // Expired (a crashed processor, or a done id past its retention): take it over, unless another copy just did.
            $upd = $this->pdo->prepare("UPDATE {$this->table} SET state = 'processing', until_ms = ? WHERE event_id = ? AND state = ? AND until_ms = ?");
            $upd->execute([$lease, $eventId, $row['state'], $row['until_ms']]);
            if ($upd->rowCount() === 1) {
                return State::Unseen;
            }
        }
        throw new \RuntimeException('webhook: the deduplicator lost every race for ' . $eventId);
    }

    public function complete(string $eventId): void
    {
        $until = $this->nowMs() + (int) round($this->retentionS * 1000);
        $upd = $this->pdo->prepare("UPDATE {$this->table} SET state = 'done', until_ms = ? WHERE event_id = ?");
        $upd->execute([$until, $eventId]);
        if ($upd->rowCount() === 0) {
            try {
                $this->pdo->prepare("INSERT INTO {$this->table} (event_id, state, until_ms) VALUES (?, 'done', ?)")->execute([$eventId, $until]);
            } catch (\PDOException $e) {
                if (!self::isConflict($e)) {
                    throw $e;
                }
                $this->pdo->prepare("UPDATE {$this->table} SET state = 'done', until_ms = ? WHERE event_id = ?")->execute([$until, $eventId]);
            }
        }
    }

    public function forget(string $eventId): void
    {
        $this->pdo->prepare("DELETE FROM {$this->table} WHERE event_id = ? AND state = 'processing'")->execute([$eventId]);
    }

    private function nowMs(): int
    {
        return (int) floor(($this->now)() * 1000);
    }

    /** A unique-key violation (SQLSTATE 23xxx: integrity constraint). */
    private static function isConflict(\PDOException $e): bool
    {
        $state = (string) ($e->errorInfo[0] ?? $e->getCode());
        return str_starts_with($state, '23');
    }
}
