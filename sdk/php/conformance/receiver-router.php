<?php

declare(strict_types=1);

// The router of one webhook-receive receiver (`php -S 127.0.0.1:<port> receiver-router.php`), in
// plain PHP: the SDK's Handler, reading php://input and $_SERVER, with a PdoDeduplicator on the
// receiver's SQLite file, shared by the server's workers.

use Botix\Webhook\Event;
use Botix\Webhook\Handler;
use Botix\Webhook\PdoDeduplicator;
use Botix\Webhook\Verifier;

require dirname(__DIR__) . '/autoload.php';
require __DIR__ . '/receivers.php';

$cfg = json_decode((string) file_get_contents((string) getenv('BOTIX_RECEIVER_CONFIG')), true, 512, JSON_THROW_ON_ERROR);
$pdo = receiver_pdo($cfg['db']);

$process = static function (Event $ev) use ($pdo, $cfg): void {
    if (in_array($ev->id, $cfg['fail_once'], true)) {
        $ins = $pdo->prepare('INSERT OR IGNORE INTO failed_once (event_id) VALUES (?)');
        $ins->execute([$ev->id]);
        if ($ins->rowCount() === 1) {
            throw new RuntimeException("failing $ev->id once, as asked");
        }
    }
    $slow = (int) ($cfg['slow'][$ev->id] ?? 0);
    if ($slow > 0) {
        usleep($slow * 1000);
    }
    $pdo->prepare('INSERT INTO processed (event_id) VALUES (?)')->execute([$ev->id]);
};

$handler = new Handler(
    new Verifier($cfg['secrets'], toleranceS: (int) $cfg['tolerance_s'], allowLegacy: (bool) $cfg['allow_legacy']),
    new PdoDeduplicator($pdo),
    $process,
    static function (string $msg, array $ctx): void {
        file_put_contents('php://stderr', $msg . ' ' . json_encode($ctx) . "\n");
    },
);
$handler->serve();
