<?php

declare(strict_types=1);

namespace Botix\Model;

/** One request an inspector captured. (schema InspectorRequest) */
final class InspectorRequest extends Model
{
    public const SCHEMA = 'InspectorRequest';
    public const FIELDS = [
        'id' => 'id',
        'method' => 'method',
        'path' => 'path',
        'headers' => 'headers',
        'body' => 'body',
        'received_at' => 'receivedAt',
        'query' => 'query',
        'truncated' => 'truncated',
        'source_ip' => 'sourceIp',
    ];

    public function __construct(
        public readonly string $id,
        public readonly string $method,
        public readonly string $path,
        public readonly array $headers,
        public readonly string $body,
        public readonly string $receivedAt,
        public readonly ?string $query = null,
        public readonly ?bool $truncated = null,
        public readonly ?string $sourceIp = null,
    ) {
    }
}
