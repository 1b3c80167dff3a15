<?php

declare(strict_types=1);

// webhook-receive: one `php -S` receiver per entry of params.receivers, each with
// PHP_CLI_SERVER_WORKERS=4 (so a copy can arrive while another is processing) and a router
// (receiver-router.php) that uses Botix\Webhook\Handler with a PdoDeduplicator on an SQLite file
// its workers share. What each processed is recorded in that file and reported at stdin EOF.

use Botix\Webhook\PdoDeduplicator;

function receiver_pdo(string $db): PDO
{
    $pdo = new PDO('sqlite:' . $db, null, null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION, PDO::ATTR_TIMEOUT => 30]);
    $pdo->exec('PRAGMA busy_timeout = 30000');
    return $pdo;
}

function free_port(): int
{
    $s = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
    if ($s === false) {
        throw new RuntimeException("no free port: $errstr");
    }
    $name = stream_socket_get_name($s, false);
    fclose($s);
    return (int) substr((string) $name, strrpos((string) $name, ':') + 1);
}

/** Stops a receiver: setsid made its master and workers a process group whose id is the master's pid. */
function stop_group(int $pgid): void
{
    if ($pgid <= 1) {
        return;
    }
    if (function_exists('posix_kill')) {
        posix_kill(-$pgid, 15);
    } else {
        exec('kill -TERM -' . $pgid . ' 2>/dev/null');
    }
}

function run_receivers(array $params): void
{
    if (function_exists('pcntl_async_signals')) { // a runner stopped by a signal still stops its receivers
        pcntl_async_signals(true);
        foreach ([SIGTERM, SIGINT, SIGHUP] as $sig) {
            pcntl_signal($sig, static function (): void {
                exit(1);
            });
        }
    }
    $dir = sys_get_temp_dir() . '/botix-php-receivers-' . bin2hex(random_bytes(6));
    mkdir($dir, 0700, true);
    $procs = [];
    $urls = [];
    $dbs = [];
    foreach ($params['receivers'] as $r) {
        $name = (string) $r['name'];
        $db = "$dir/$name.sqlite";
        $pdo = receiver_pdo($db);
        $pdo->exec('PRAGMA journal_mode = WAL');
        (new PdoDeduplicator($pdo))->createTable();
        $pdo->exec('CREATE TABLE processed (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL)');
        $pdo->exec('CREATE TABLE failed_once (event_id TEXT PRIMARY KEY)');
        $pdo = null;
        $cfg = "$dir/$name.json";
        file_put_contents($cfg, json_encode([
            'db' => $db,
            'secrets' => array_values($r['secrets']),
            'allow_legacy' => (bool) ($r['allow_legacy'] ?? false),
            'tolerance_s' => (int) ($r['tolerance_s'] ?? $params['tolerance_s'] ?? 0),
            'fail_once' => array_values($params['fail_once'] ?? []),
            'slow' => (object) ($params['slow'] ?? []),
        ]));
        $port = free_port();
        $env = getenv();
        $env['PHP_CLI_SERVER_WORKERS'] = '4';
        $env['BOTIX_RECEIVER_CONFIG'] = $cfg;
        $log = "$dir/$name.log";
        $p = proc_open(['setsid', PHP_BINARY, '-S', "127.0.0.1:$port", __DIR__ . '/receiver-router.php'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, null, $env);
        if ($p === false) {
            throw new RuntimeException("cannot start the receiver $name");
        }
        $procs[$name] = $p;
        $pgid = (int) proc_get_status($p)['pid'];
        register_shutdown_function(static fn () => stop_group($pgid)); // also when the runner fails
        $urls[$name] = "http://127.0.0.1:$port/";
        $dbs[$name] = $db;
        for ($i = 0; $i < 200; $i++) { // until it listens
            $s = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 0.1);
            if ($s !== false) {
                fclose($s);
                break;
            }
            usleep(50000);
        }
    }
    echo json_encode(['receivers' => (object) $urls], JSON_UNESCAPED_SLASHES), "\n";
    while (!feof(STDIN)) {
        if (fgets(STDIN) === false) {
            break;
        }
    }
    foreach ($procs as $name => $p) {
        $status = proc_get_status($p);
        // setsid made the server (master and workers) a process group of its own: stop that group.
        stop_group((int) $status['pid']);
        proc_close($p);
    }
    $processed = [];
    foreach ($dbs as $name => $db) {
        $pdo = receiver_pdo($db);
        $processed[$name] = $pdo->query('SELECT event_id FROM processed ORDER BY seq')->fetchAll(PDO::FETCH_COLUMN);
    }
    foreach ($procs as $name => $_) {
        fwrite(STDERR, "receiver $name log:\n" . @file_get_contents("$dir/$name.log"));
    }
    array_map('unlink', glob("$dir/*"));
    @rmdir($dir);
    echo json_encode(['processed' => (object) $processed], JSON_UNESCAPED_SLASHES), "\n";
}
