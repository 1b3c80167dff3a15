<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\Delivery;
use Botix\Model\DeliveryDetail;
use Botix\Model\DeliveryRequest;
use Botix\Model\DeliveryStats;
use Botix\Model\RedirectRequest;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

/** /public/v1/webhook-deliveries: the delivery log (14 days). */
final class Deliveries extends Service
{
    /** @return Page<Delivery> */
    public function list(?int $limit = null, ?string $cursor = null, ?string $status = null, ?string $endpointId = null, ?string $eventType = null, ?string $eventId = null, ?\DateTimeInterface $since = null, ?\DateTimeInterface $until = null, ?string $deliveryId = null, ?string $requestId = null): Page
    {
        return $this->page(Delivery::class, 'deliveries.list', [], self::query($cursor, $limit, self::filters($status, $endpointId, $eventType, $eventId, $since, $until, $deliveryId, $requestId)));
    }

    /** @return Walker<Delivery> */
    public function walk(?int $limit = null, Position|string|null $from = null, ?string $cursor = null, ?string $status = null, ?string $endpointId = null, ?string $eventType = null, ?string $eventId = null, ?\DateTimeInterface $since = null, ?\DateTimeInterface $until = null, ?string $deliveryId = null, ?string $requestId = null): Walker
    {
        return $this->walker(Delivery::class, 'deliveries.list', [], self::query($cursor, $limit, self::filters($status, $endpointId, $eventType, $eventId, $since, $until, $deliveryId, $requestId)), $from);
    }

    /** A delivery with its payload and attempts. */
    public function get(string $id): DeliveryDetail
    {
        return $this->one(DeliveryDetail::class, 'deliveries.get', ['id' => $id]);
    }

    /** Attempts per hour (granularity "hour", the last 24 h) or day ("day", 14 days), by outcome. */
    public function stats(?string $granularity = null, ?string $endpointId = null, ?\DateTimeInterface $since = null, ?\DateTimeInterface $until = null): DeliveryStats
    {
        return $this->one(DeliveryStats::class, 'deliveries.stats', [], self::query(null, null, ['granularity' => $granularity, 'endpoint_id' => $endpointId, 'since' => $since, 'until' => $until]));
    }

    /** Sends the delivery again now, as a manual attempt. */
    public function retry(string $id, ?string $idempotencyKey = null): DeliveryRequest
    {
        return $this->one(DeliveryRequest::class, 'deliveries.retry', ['id' => $id], [], null, $idempotencyKey);
    }

    /** Sends the delivery's webhook to an inspector instead. */
    public function redirect(string $id, string $inspectorId, ?string $idempotencyKey = null): DeliveryRequest
    {
        return $this->one(DeliveryRequest::class, 'deliveries.redirect', ['id' => $id], [], (new RedirectRequest($inspectorId))->toArray(), $idempotencyKey);
    }

    /** @return array<string,mixed> */
    private static function filters(?string $status, ?string $endpointId, ?string $eventType, ?string $eventId, ?\DateTimeInterface $since, ?\DateTimeInterface $until, ?string $deliveryId, ?string $requestId): array
    {
        return ['status' => $status, 'endpoint_id' => $endpointId, 'event_type' => $eventType, 'event_id' => $eventId, 'delivery_id' => $deliveryId, 'request_id' => $requestId, 'since' => $since, 'until' => $until];
    }
}
