<?php

declare(strict_types=1);

namespace Botix\Tests;

/** Starts tests/fake/router.php under `php -S` on a free port and scripts its answers. */
final class FakeServer
{
    public readonly string $url;
    public readonly string $dir;
    /** @var resource */
    private $proc;

    public function __construct(int $workers = 1)
    {
        $this->dir = sys_get_temp_dir() . '/botix-php-fake-' . bin2hex(random_bytes(6));
        mkdir($this->dir, 0700, true);
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = (string) stream_socket_get_name($s, false);
        fclose($s);
        $port = (int) substr($name, strrpos($name, ':') + 1);
        $env = getenv();
        $env['FAKE_DIR'] = $this->dir;
        if ($workers > 1) {
            $env['PHP_CLI_SERVER_WORKERS'] = (string) $workers;
        }
        $this->script([['status' => 200]]);
        // setsid: the server and its workers are a process group of their own
        // (its id the server's pid), so stop() ends the workers too; killing
        // only the server left them listening after the tests.
        $this->proc = proc_open(['setsid', PHP_BINARY, '-S', "127.0.0.1:$port", __DIR__ . '/fake/router.php'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->dir . '/server.log', 'a'], 2 => ['file', $this->dir . '/server.log', 'a']], $pipes, null, $env);
        $this->url = "http://127.0.0.1:$port";
        for ($i = 0; $i < 200; $i++) {
            $c = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 0.1);
            if ($c !== false) {
                fclose($c);
                return;
            }
            usleep(25000);
        }
        throw new \RuntimeException('the fake server did not start');
    }

    /** Sets the answers of the next requests and clears the request log. */
    public function script(array $answers): void
    {
        file_put_contents($this->dir . '/script.json', json_encode($answers));
        @unlink($this->dir . '/log.jsonl');
    }

    /** @return list<array{method:string,uri:string,headers:array<string,string>,body:string}> */
    public function requests(): array
    {
        $f = $this->dir . '/log.jsonl';
        if (!is_file($f)) {
            return [];
        }
        return array_map(static fn (string $l) => json_decode($l, true), file($f, FILE_IGNORE_NEW_LINES));
    }

    public function stop(): void
    {
        $pid = (int) (proc_get_status($this->proc)['pid'] ?? 0);
        if ($pid > 1) {
            posix_kill(-$pid, 15);
        }
        proc_terminate($this->proc);
        proc_close($this->proc);
        array_map('unlink', glob($this->dir . '/*') ?: []);
        @rmdir($this->dir);
    }
}
