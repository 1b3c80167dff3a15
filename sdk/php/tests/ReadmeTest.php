<?php

declare(strict_types=1);

namespace Botix\Tests;

use PHPUnit\Framework\TestCase;

/** The README's examples are the example files, and they run. */
final class ReadmeTest extends TestCase
{
    private const SDK = __DIR__ . '/..';

    public function testReadmeBlocksAreTheExampleFiles(): void
    {
        $readme = (string) file_get_contents(self::SDK . '/README.md');
        preg_match_all('/<!-- include (\S+) -->\n```php\n(.*?)```/s', $readme, $m, PREG_SET_ORDER);
        self::assertCount(2, $m, 'the README includes both examples');
        foreach ($m as [, $file, $block]) {
            self::assertSame(file_get_contents(self::SDK . '/' . $file), $block, "the README's block is $file, verbatim");
        }
    }

    /** A directory whose vendor/autoload.php loads this SDK, as Composer's would in a project. */
    private static function project(string $example): string
    {
        $dir = sys_get_temp_dir() . '/botix-php-example-' . bin2hex(random_bytes(6));
        mkdir("$dir/vendor", 0700, true);
        file_put_contents("$dir/vendor/autoload.php", '<?php require ' . var_export(realpath(self::SDK . '/autoload.php'), true) . ";\n");
        copy(self::SDK . "/examples/$example", "$dir/$example");
        return $dir;
    }

    private static function rmrf(string $dir): void
    {
        foreach (new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($dir, \FilesystemIterator::SKIP_DOTS), \RecursiveIteratorIterator::CHILD_FIRST) as $f) {
            $f->isDir() ? rmdir((string) $f) : unlink((string) $f);
        }
        rmdir($dir);
    }

    public function testQuickstartRuns(): void
    {
        $server = new FakeServer();
        try {
            $server->script([
                ['status' => 201, 'headers' => ['X-Request-Id' => 'req_1'], 'body' => ['id' => 'ct_01M8RWC4A2E5YK1MYN78YDRJ2F', 'phone' => '+79990000001', 'name' => 'Ivan', 'tags' => ['vip'], 'created_at' => '2026-12-01T00:00:00Z']],
                ['status' => 409, 'headers' => ['X-Request-Id' => 'req_2'], 'body' => ['error' => ['code' => 'CONTACT_ALREADY_EXISTS', 'message' => 'taken', 'request_id' => 'req_2']]],
                ['list' => 8],
            ]);
            $dir = self::project('quickstart.php');
            $cmd = sprintf('BOTIX_API_URL=%s BOTIX_API_KEY=bx_test_example %s %s 2>&1', escapeshellarg($server->url), escapeshellarg(PHP_BINARY), escapeshellarg("$dir/quickstart.php"));
            exec($cmd, $out, $rc);
            self::rmrf($dir);
            self::assertSame(0, $rc, implode("\n", $out));
            self::assertSame([
                'created ct_01M8RWC4A2E5YK1MYN78YDRJ2F (attempts 1, replayed no)',
                'already exists (HTTP 409, request req_2)',
                'walked 8 vip contacts',
            ], $out);
            $reqs = $server->requests();
            self::assertSame(['POST', 'POST'], [$reqs[0]['method'], $reqs[1]['method']]);
            self::assertStringContainsString('tag=vip', $reqs[2]['uri']);
        } finally {
            $server->stop();
        }
    }

    public function testWebhookReceiverRuns(): void
    {
        $dir = self::project('webhook-receiver.php');
        $secret = 'whsec_' . base64_encode(random_bytes(32));
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = (string) stream_socket_get_name($s, false);
        fclose($s);
        $env = getenv();
        $env['RECEIVER_DSN'] = "sqlite:$dir/webhooks.sqlite";
        $env['BOTIX_WEBHOOK_SECRETS'] = $secret . ',whsec_' . base64_encode('an older secret');
        $proc = proc_open([PHP_BINARY, '-S', $name, "$dir/webhook-receiver.php"], [0 => ['file', '/dev/null', 'r'], 1 => ['file', "$dir/log", 'a'], 2 => ['file', "$dir/log", 'a']], $pipes, $dir, $env);
        try {
            for ($i = 0; $i < 200 && ($c = @stream_socket_client("tcp://$name", $e1, $e2, 0.1)) === false; $i++) {
                usleep(25000);
            }
            $body = json_encode(['id' => 'evt_1', 'type' => 'contact.created', 'created_at' => '2026-12-01T00:00:00Z', 'project_id' => 'prj_1', 'data' => []]);
            $ts = time();
            $sig = 'v1,' . base64_encode(hash_hmac('sha256', "evt_1.$ts.$body", base64_decode(substr($secret, 6)), true));
            $post = static function (array $headers, string $body) use ($name): int {
                $ch = curl_init("http://$name/");
                curl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_POSTFIELDS => $body, CURLOPT_HTTPHEADER => $headers, CURLOPT_RETURNTRANSFER => true]);
                curl_exec($ch);
                return (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
            };
            $good = ['webhook-id: evt_1', "webhook-timestamp: $ts", "webhook-signature: $sig", 'Content-Type: application/json'];
            self::assertSame(200, $post($good, $body));
            self::assertSame(200, $post($good, $body), 'a duplicate');
            self::assertSame(401, $post($good, $body . ' '), 'a tampered body');
            $log = (string) file_get_contents("$dir/log");
            self::assertSame(1, substr_count($log, 'processing contact.created evt_1'), "processed once:\n$log");
        } finally {
            proc_terminate($proc);
            proc_close($proc);
            self::rmrf($dir);
        }
    }
}
