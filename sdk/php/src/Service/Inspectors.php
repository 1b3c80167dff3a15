<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\Inspector;
use Botix\Model\InspectorRequest;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

/** /public/v1/inspectors: built-in capture URLs. */
final class Inspectors extends Service
{
    /** Makes an inspector: a URL that keeps what it is sent. */
    public function create(?string $idempotencyKey = null): Inspector
    {
        return $this->one(Inspector::class, 'inspectors.create', [], [], null, $idempotencyKey);
    }

    /** @return Page<InspectorRequest> */
    public function requests(string $id, ?int $limit = null, ?string $cursor = null): Page
    {
        return $this->page(InspectorRequest::class, 'inspectors.requests', ['id' => $id], self::query($cursor, $limit));
    }

    /** @return Walker<InspectorRequest> */
    public function walkRequests(string $id, ?int $limit = null, Position|string|null $from = null, ?string $cursor = null): Walker
    {
        return $this->walker(InspectorRequest::class, 'inspectors.requests', ['id' => $id], self::query($cursor, $limit), $from);
    }
}
