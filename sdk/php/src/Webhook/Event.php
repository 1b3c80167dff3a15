<?php

declare(strict_types=1);

namespace Botix\Webhook;

/** A BOTIX event as a webhook carries it. A thin event (over 64 KB) carries only {object, id} in data. */
final class Event
{
    /** @param array<string,mixed>|null $data */
    public function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly string $createdAt,
        public readonly string $projectId,
        public readonly mixed $data,
        public readonly bool $thin = false,
    ) {
    }

    /** @param array<string,mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self(
            is_string($a['id'] ?? null) ? $a['id'] : '',
            is_string($a['type'] ?? null) ? $a['type'] : '',
            is_string($a['created_at'] ?? null) ? $a['created_at'] : '',
            is_string($a['project_id'] ?? null) ? $a['project_id'] : '',
            $a['data'] ?? null,
            ($a['thin'] ?? false) === true,
        );
    }
}
