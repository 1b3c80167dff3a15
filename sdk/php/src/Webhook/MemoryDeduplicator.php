<?php

declare(strict_types=1);

namespace Botix\Webhook;

/** Remembers ids in process memory: for one long-running process, and for tests. */
final class MemoryDeduplicator implements Deduplicator
{
    /** @var array<string,array{done:bool,until:float}> */
    private array $seen = [];
    /** @var \Closure():float */
    private \Closure $now;

    /** @param (callable():float)|null $now the clock in unix seconds; null: microtime(true) */
    public function __construct(
        private readonly float $leaseS = self::DEFAULT_LEASE_S,
        private readonly float $retentionS = self::DEFAULT_RETENTION_S,
        ?callable $now = null,
    ) {
        $this->now = $now !== null ? \Closure::fromCallable($now) : static fn (): float => microtime(true);
    }

    public function begin(string $eventId): State
    {
        $now = ($this->now)();
        $e = $this->seen[$eventId] ?? null;
        if ($e !== null && $now < $e['until']) {
            return $e['done'] ? State::Done : State::Processing;
        }
        if (count($this->seen) > 100000) {
            $this->seen = array_filter($this->seen, static fn (array $x): bool => $now < $x['until']);
        }
        $this->seen[$eventId] = ['done' => false, 'until' => $now + $this->leaseS];
        return State::Unseen;
    }

    public function complete(string $eventId): void
    {
        $this->seen[$eventId] = ['done' => true, 'until' => ($this->now)() + $this->retentionS];
    }

    public function forget(string $eventId): void
    {
        if (isset($this->seen[$eventId]) && !$this->seen[$eventId]['done']) {
            unset($this->seen[$eventId]);
        }
    }
}
