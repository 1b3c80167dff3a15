<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\Deleted;
use Botix\Model\RecoverRequest;
use Botix\Model\Recovery;
use Botix\Model\TestEvent;
use Botix\Model\WebhookEndpoint;
use Botix\Model\WebhookEndpointCreate;
use Botix\Model\WebhookEndpointUpdate;
use Botix\Model\WebhookEndpointWithSecret;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

/** /public/v1/webhook-endpoints */
final class WebhookEndpoints extends Service
{
    /** Registers an endpoint; the answer's secret is shown only here. */
    public function create(WebhookEndpointCreate $in, ?string $idempotencyKey = null): WebhookEndpointWithSecret
    {
        return $this->one(WebhookEndpointWithSecret::class, 'webhookEndpoints.create', [], [], $in->toArray(), $idempotencyKey);
    }

    /** An endpoint, without its secret. */
    public function get(string $id): WebhookEndpoint
    {
        return $this->one(WebhookEndpoint::class, 'webhookEndpoints.get', ['id' => $id]);
    }

    /** @return Page<WebhookEndpoint> */
    public function list(?int $limit = null, ?string $cursor = null): Page
    {
        return $this->page(WebhookEndpoint::class, 'webhookEndpoints.list', [], self::query($cursor, $limit));
    }

    /** @return Walker<WebhookEndpoint> */
    public function walk(?int $limit = null, Position|string|null $from = null, ?string $cursor = null): Walker
    {
        return $this->walker(WebhookEndpoint::class, 'webhookEndpoints.list', [], self::query($cursor, $limit), $from);
    }

    /** Changes the fields that are set (idempotent); enabled true re-enables a disabled endpoint. */
    public function update(string $id, WebhookEndpointUpdate $in, ?string $idempotencyKey = null): WebhookEndpoint
    {
        return $this->one(WebhookEndpoint::class, 'webhookEndpoints.update', ['id' => $id], [], $in->toArray(), $idempotencyKey);
    }

    /** Removes an endpoint (idempotent). */
    public function delete(string $id, ?string $idempotencyKey = null): Deleted
    {
        return $this->one(Deleted::class, 'webhookEndpoints.delete', ['id' => $id], [], null, $idempotencyKey);
    }

    /** Makes a new signing secret (shown only in the answer); the previous one keeps signing until previousSecretExpiresAt. */
    public function rotateSecret(string $id, ?string $idempotencyKey = null): WebhookEndpointWithSecret
    {
        return $this->one(WebhookEndpointWithSecret::class, 'webhookEndpoints.rotateSecret', ['id' => $id], [], null, $idempotencyKey);
    }

    /** Sends a webhook.test event to this endpoint through the normal pipeline. */
    public function test(string $id, ?string $idempotencyKey = null): TestEvent
    {
        return $this->one(TestEvent::class, 'webhookEndpoints.test', ['id' => $id], [], null, $idempotencyKey);
    }

    /**
     * Re-sends the failed or dead deliveries created since then (at most 14 days back), at most 100
     * per step: while the answer's hasMore is true the recovery continues by itself, paced (get()
     * shows its progress in recovery). 409 ENDPOINT_DISABLED while disabled.
     */
    public function recover(string $id, \DateTimeInterface $since, ?string $idempotencyKey = null): Recovery
    {
        $body = new RecoverRequest(\DateTimeImmutable::createFromInterface($since)->setTimezone(new \DateTimeZone('UTC'))->format('Y-m-d\TH:i:s.v\Z'));
        return $this->one(Recovery::class, 'webhookEndpoints.recover', ['id' => $id], [], $body->toArray(), $idempotencyKey);
    }
}
