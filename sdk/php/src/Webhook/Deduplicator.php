<?php

declare(strict_types=1);

namespace Botix\Webhook;

/**
 * Remembers event ids in three states (unseen, processing under a lease, done) so that an event is
 * processed once even when copies arrive concurrently. Of concurrent begin() calls with one unseen id
 * exactly one returns State::Unseen. An exception from any method means the store could not be asked.
 */
interface Deduplicator
{
    public const DEFAULT_RETENTION_S = 72 * 3600;
    public const DEFAULT_LEASE_S = 300;

    /** Claims the id for processing and reports the state it found; an expired lease is Unseen again. */
    public function begin(string $eventId): State;

    /** Records the id as done, after processing succeeded. */
    public function complete(string $eventId): void;

    /** Releases a processing id after processing failed; leaves a done id done. */
    public function forget(string $eventId): void;
}
