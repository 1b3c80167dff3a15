<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** An event of the project, as polled (and as webhooks carry it). (schema Event) */
final class Event extends Model
{
    public const SCHEMA = 'Event';
    public const FIELDS = [
        'id' => 'id',
        'type' => 'type',
        'created_at' => 'createdAt',
        'project_id' => 'projectId',
        'data' => 'data',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly string $createdAt,
        public readonly string $projectId,
        public readonly mixed $data,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
