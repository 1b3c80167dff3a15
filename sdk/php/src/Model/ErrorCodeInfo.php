<?php

declare(strict_types=1);

namespace Botix\Model;

/** One entry of the API's error-code reference. (schema ErrorCodeInfo) */
final class ErrorCodeInfo extends Model
{
    public const SCHEMA = 'ErrorCodeInfo';
    public const FIELDS = [
        'code' => 'code',
        'status' => 'status',
        'when' => 'when',
        'action' => 'action',
        'retry' => 'retry',
        'docs_url' => 'docsUrl',
    ];

    public function __construct(
        public readonly string $code,
        public readonly int $status,
        public readonly string $when,
        public readonly string $action,
        public readonly string $retry,
        public readonly string $docsUrl,
    ) {
    }
}
