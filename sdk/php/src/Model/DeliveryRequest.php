<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The answer of deliveries->retry() and redirect(). (schema DeliveryRequest) */
final class DeliveryRequest extends Model
{
    public const SCHEMA = 'DeliveryRequest';
    public const FIELDS = [
        'delivery_id' => 'deliveryId',
        'kind' => 'kind',
        'status' => 'status',
        'target_url' => 'targetUrl',
    ];

    public function __construct(
        public readonly string $deliveryId,
        public readonly string $kind,
        public readonly string $status,
        public readonly ?string $targetUrl = null,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
