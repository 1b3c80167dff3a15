<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/** The API's error-code reference. (schema ErrorCodeReference) */
final class ErrorCodeReference extends Model
{
    public const SCHEMA = 'ErrorCodeReference';
    public const FIELDS = [
        'codes' => 'codes',
    ];

    public const NESTED = [
        'codes' => [ErrorCodeInfo::class],
    ];

    public function __construct(
        public readonly array $codes,
        /** The HTTP answer this result came from (null when built by hand or as an item of a page). */
        public readonly ?Response $response = null,
    ) {
    }
}
