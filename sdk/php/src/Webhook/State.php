<?php

declare(strict_types=1);

namespace Botix\Webhook;

/** What a Deduplicator knows about an event id when begin() is called. */
enum State: string
{
    /** Not seen, forgotten (its processing failed) or its lease ran out: begin() claimed it for the caller. */
    case Unseen = 'unseen';
    /** Another copy is being processed under a live lease: neither process nor acknowledge this one. */
    case Processing = 'processing';
    /** Processed: acknowledge the copy, do not process it. */
    case Done = 'done';
}
