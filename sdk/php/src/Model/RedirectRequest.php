<?php

declare(strict_types=1);

namespace Botix\Model;

/** The body of deliveries->redirect(). (schema RedirectRequest) */
final class RedirectRequest extends Model
{
    public const SCHEMA = 'RedirectRequest';
    public const FIELDS = [
        'inspector_id' => 'inspectorId',
    ];

    public function __construct(
        public readonly string $inspectorId,
    ) {
    }
}
