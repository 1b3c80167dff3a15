<?php

declare(strict_types=1);

namespace Botix;

/**
 * A change of an endpoint's limit in WebhookEndpointUpdate that a number cannot say: Limit::None
 * removes the limit (sent as null), where null leaves it as it is.
 */
enum Limit
{
    case None;
}
