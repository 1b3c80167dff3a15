<?php

declare(strict_types=1);

namespace Botix\Webhook;

/** The answer the handler gives a webhook request. */
final class HandlerResponse
{
    /** @param array<string,string> $headers */
    public function __construct(
        public readonly int $status,
        public readonly string $body = '',
        public readonly array $headers = [],
    ) {
    }

    /** Sends it with PHP's header()/echo (plain PHP, php-fpm, php -S). */
    public function emit(): void
    {
        http_response_code($this->status);
        foreach ($this->headers as $k => $v) {
            header($k . ': ' . $v);
        }
        if ($this->body !== '') {
            header('Content-Type: text/plain; charset=utf-8');
            echo $this->body;
        }
    }
}
