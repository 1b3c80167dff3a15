<?php

declare(strict_types=1);

// A webhook receiver in plain PHP (php-fpm, Apache, or `php -S`): verify, process once, answer.

require __DIR__ . '/vendor/autoload.php';

use Botix\Webhook\Event;
use Botix\Webhook\Handler;
use Botix\Webhook\PdoDeduplicator;
use Botix\Webhook\Verifier;

$pdo = new PDO((string) getenv('RECEIVER_DSN')); // e.g. sqlite:/var/lib/app/webhooks.sqlite
$dedup = new PdoDeduplicator($pdo);
$dedup->createTable();

// BOTIX_WEBHOOK_SECRETS: the endpoint's secrets, comma-separated, the newest first during a rotation
// (either verifies).
$secrets = array_filter(array_map('trim', explode(',', (string) getenv('BOTIX_WEBHOOK_SECRETS'))));

$handler = new Handler(new Verifier(array_values($secrets)), $dedup, function (Event $event): void {
    // Your processing; throw to have BOTIX retry the delivery.
    error_log("processing {$event->type} {$event->id}");
});
$handler->serve(); // reads php://input and the headers, sends 200/401/500/503
