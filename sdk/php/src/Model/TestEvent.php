<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of webhookEndpoints->test(). (schema TestEvent) */
final class TestEvent extends Model
{
    public const SCHEMA = 'TestEvent';
    public const FIELDS = [
        'event_id' => 'eventId',
        'endpoint_id' => 'endpointId',
        'status' => 'status',
    ];

    public function __construct(
        public readonly string $eventId,
        public readonly string $endpointId,
        public readonly string $status,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
