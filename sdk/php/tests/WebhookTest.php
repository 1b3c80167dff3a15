<?php

declare(strict_types=1);

namespace Botix\Tests;

use Botix\Webhook\Deduplicator;
use Botix\Webhook\Event;
use Botix\Webhook\Handler;
use Botix\Webhook\MemoryDeduplicator;
use Botix\Webhook\PdoDeduplicator;
use Botix\Webhook\State;
use Botix\Webhook\VerificationException;
use Botix\Webhook\Verifier;
use PHPUnit\Framework\TestCase;

/** Signature verification (the Go kit's vectors), the process-once stores and the handler's answers. */
final class WebhookTest extends TestCase
{
    /** The Go kit's test vectors, read in place: sdk/go/webhook/testdata/vectors.json. */
    private const VECTORS = __DIR__ . '/../../go/webhook/testdata/vectors.json';

    /** @return list<array<string,mixed>> */
    private static function vectors(): array
    {
        return json_decode((string) file_get_contents(self::VECTORS), true, 512, JSON_THROW_ON_ERROR)['vectors'];
    }

    /** @return array<string,string> */
    private static function headers(array $v, bool $std = true, bool $legacy = true): array
    {
        $h = [];
        if ($legacy) {
            $h['X-Botix-Signature'] = $v['x_botix_signature'];
        }
        if ($std) {
            $h['Webhook-Id'] = $v['webhook_id'];
            $h['Webhook-Timestamp'] = (string) $v['webhook_timestamp'];
            $h['Webhook-Signature'] = $v['webhook_signature'];
        }
        return $h;
    }

    public function testEveryVector(): void
    {
        $vectors = self::vectors();
        self::assertGreaterThanOrEqual(3, count($vectors));
        foreach ($vectors as $v) {
            $now = $v['webhook_timestamp'] + 30;
            $all = new Verifier($v['secrets']);
            $all->verify(self::headers($v), $v['body'], $now);
            // Each secret alone verifies (a receiver holding either side of a rotation).
            foreach ($v['secrets'] as $s) {
                (new Verifier([$s]))->verify(self::headers($v), $v['body'], $now);
                (new Verifier([$s]))->verify(self::headers($v, legacy: false), $v['body'], $now);
                (new Verifier([$s], allowLegacy: true))->verify(self::headers($v, std: false), $v['body'], $now);
            }
        }
    }

    public function testLegacyOnlyNeedsTheOptIn(): void
    {
        foreach (self::vectors() as $v) {
            $h = self::headers($v, std: false);
            (new Verifier($v['secrets'], allowLegacy: true))->verify($h, $v['body'], 0);
            self::assertSame(VerificationException::UNTIMED_SIGNATURE, self::reason(new Verifier($v['secrets']), $h, $v['body'], $v['webhook_timestamp']));
            self::assertSame(VerificationException::BAD_SIGNATURE, self::reason(new Verifier($v['secrets'], allowLegacy: true), $h, $v['body'] . ' ', 0));
        }
    }

    private static function reason(Verifier $ver, array $h, string $body, int $now): string
    {
        try {
            $ver->verify($h, $body, $now);
            return 'ok';
        } catch (VerificationException $e) {
            return $e->reason();
        }
    }

    /** @return iterable<string,array{0:callable,1:string}> a change to the first vector's request, and the expected outcome */
    public static function refusalCases(): iterable
    {
        yield 'untouched' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b, $now, $s, false, 0], 'ok'];
        yield 'tampered body' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b . 'x', $now, $s, false, 0], VerificationException::BAD_SIGNATURE];
        yield 'stale: 6 minutes later' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b, $now + 330, $s, false, 0], VerificationException::STALE];
        yield 'from the future' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b, $now - 400, $s, false, 0], VerificationException::STALE];
        yield 'a wider tolerance' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b, $now + 330, $s, false, 600], 'ok'];
        yield 'another timestamp' => [static fn (array $h, string $b, int $now, array $s) => [['Webhook-Timestamp' => (string) ($now - 29)] + $h, $b, $now, $s, false, 0], VerificationException::BAD_SIGNATURE];
        yield 'no timestamp' => [static fn (array $h, string $b, int $now, array $s) => [array_diff_key($h, ['Webhook-Timestamp' => 1]), $b, $now, $s, false, 0], VerificationException::BAD_TIMESTAMP];
        yield 'another id' => [static fn (array $h, string $b, int $now, array $s) => [['Webhook-Id' => 'evt_other'] + $h, $b, $now, $s, false, 0], VerificationException::BAD_SIGNATURE];
        yield 'wrong secret' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b, $now, ['whsec_' . base64_encode('another key')], false, 0], VerificationException::BAD_SIGNATURE];
        yield 'bad webhook-signature is not excused by a good legacy one' => [static fn (array $h, string $b, int $now, array $s) => [['Webhook-Signature' => 'v1,AAAA'] + $h, $b, $now, $s, true, 0], VerificationException::BAD_SIGNATURE];
        yield 'unknown scheme version' => [static fn (array $h, string $b, int $now, array $s) => [['Webhook-Signature' => str_replace('v1,', 'v2,', $h['Webhook-Signature'])] + $h, $b, $now, $s, false, 0], VerificationException::BAD_SIGNATURE];
        yield 'no signature at all' => [static fn (array $h, string $b, int $now, array $s) => [[], $b, $now, $s, true, 0], VerificationException::NO_SIGNATURE];
        yield 'lower-case header names' => [static fn (array $h, string $b, int $now, array $s) => [array_change_key_case($h), $b, $now, $s, false, 0], 'ok'];
        yield 'a secret without whsec_' => [static fn (array $h, string $b, int $now, array $s) => [$h, $b, $now, ['abc'], false, 0], VerificationException::BAD_SECRET];
    }

    /** @dataProvider refusalCases */
    public function testRefusals(callable $change, string $want): void
    {
        $v = self::vectors()[0];
        [$h, $b, $now, $secrets, $legacy, $tol] = $change(self::headers($v), $v['body'], $v['webhook_timestamp'] + 30, $v['secrets']);
        try {
            $ver = new Verifier($secrets, toleranceS: $tol, allowLegacy: $legacy);
        } catch (VerificationException $e) {
            self::assertSame($want, $e->reason());
            return;
        }
        self::assertSame($want, self::reason($ver, $h, $b, $now));
    }

    public function testRotationOverlap(): void
    {
        $v = self::vectors()[1]; // signed with the new and the previous secret
        self::assertCount(2, $v['secrets']);
        [$newer, $older] = $v['secrets'];
        $now = $v['webhook_timestamp'];
        self::assertSame('ok', self::reason(new Verifier([$older]), self::headers($v), $v['body'], $now));
        self::assertSame('ok', self::reason(new Verifier([$newer]), self::headers($v), $v['body'], $now));
        // After the overlap only the new secret signs: drop the previous one's signature.
        $h = self::headers($v);
        $h['Webhook-Signature'] = explode(' ', $h['Webhook-Signature'])[0];
        self::assertSame(VerificationException::BAD_SIGNATURE, self::reason(new Verifier([$older]), $h, $v['body'], $now));
        self::assertSame('ok', self::reason(new Verifier([$newer]), $h, $v['body'], $now));
    }

    // ---- the process-once stores

    /** @return iterable<string,array{0:callable(callable):Deduplicator}> */
    public static function stores(): iterable
    {
        yield 'memory' => [static fn (callable $now) => new MemoryDeduplicator(leaseS: 10, retentionS: 100, now: $now)];
        yield 'pdo sqlite' => [static function (callable $now) {
            $d = new PdoDeduplicator(new \PDO('sqlite::memory:'), leaseS: 10, retentionS: 100, now: $now);
            $d->createTable();
            return $d;
        }];
    }

    /** @dataProvider stores */
    public function testStoreStates(callable $make): void
    {
        $t = 1000.0;
        $d = $make(static function () use (&$t): float {
            return $t;
        });
        self::assertSame(State::Unseen, $d->begin('evt_1'));
        self::assertSame(State::Processing, $d->begin('evt_1'), 'a live claim');
        $t += 11;
        self::assertSame(State::Unseen, $d->begin('evt_1'), 'the lease ran out: a crashed processor does not block the event');
        $d->forget('evt_1');
        self::assertSame(State::Unseen, $d->begin('evt_1'), 'forgotten after a failure');
        $d->complete('evt_1');
        self::assertSame(State::Done, $d->begin('evt_1'));
        $d->forget('evt_1');
        self::assertSame(State::Done, $d->begin('evt_1'), 'forget leaves a done id done');
        $t += 101;
        self::assertSame(State::Unseen, $d->begin('evt_1'), 'past the retention');
        self::assertSame(State::Unseen, $d->begin('evt_2'), 'ids are independent');
    }

    public function testPdoStoreConcurrentBeginsClaimOnce(): void
    {
        if (!function_exists('pcntl_fork')) {
            self::markTestSkipped('needs pcntl');
        }
        $file = tempnam(sys_get_temp_dir(), 'botix-dedup');
        $pdo = new \PDO('sqlite:' . $file);
        $pdo->exec('PRAGMA journal_mode = WAL');
        (new PdoDeduplicator($pdo))->createTable();
        $pdo = null;
        $procs = 6;
        $ids = 20;
        $pids = [];
        for ($p = 0; $p < $procs; $p++) {
            $pid = pcntl_fork();
            if ($pid === 0) {
                $db = new \PDO('sqlite:' . $file, null, null, [\PDO::ATTR_TIMEOUT => 30]);
                $db->exec('PRAGMA busy_timeout = 30000');
                $d = new PdoDeduplicator($db);
                $won = '';
                for ($i = 0; $i < $ids; $i++) {
                    $won .= $d->begin("evt_$i") === State::Unseen ? '1' : '0';
                }
                file_put_contents("$file.$p", $won);
                exit(0);
            }
            $pids[] = $pid;
        }
        foreach ($pids as $pid) {
            pcntl_waitpid($pid, $status);
        }
        $claims = array_fill(0, $ids, 0);
        for ($p = 0; $p < $procs; $p++) {
            $won = (string) file_get_contents("$file.$p");
            self::assertSame($ids, strlen($won), "process $p finished");
            for ($i = 0; $i < $ids; $i++) {
                $claims[$i] += (int) $won[$i];
            }
            unlink("$file.$p");
        }
        self::assertSame(array_fill(0, $ids, 1), $claims, 'exactly one claim per id');
        @unlink($file);
        @unlink("$file-wal");
        @unlink("$file-shm");
    }

    /** @return iterable<string,array{0:string,1:bool}> the statement the other copy races, whether the lease is expired first */
    public static function raceCases(): iterable
    {
        yield 'both find the id unseen: one INSERT wins' => ['INSERT', false];
        yield 'both find the lease expired: one UPDATE wins' => ['UPDATE', true];
    }

    /** @dataProvider raceCases */
    public function testPdoStoreRaceBetweenReadAndWrite(string $verb, bool $expired): void
    {
        $file = tempnam(sys_get_temp_dir(), 'botix-race');
        $t = 1000.0;
        $clock = static function () use (&$t): float {
            return $t;
        };
        $mine = new RacingPdo('sqlite:' . $file);
        $theirs = new PdoDeduplicator(new \PDO('sqlite:' . $file), leaseS: 10, now: $clock);
        $theirs->createTable();
        if ($expired) {
            self::assertSame(State::Unseen, $theirs->begin('evt_1'));
            $t += 11; // that claim's processor crashed
        }
        $d = new PdoDeduplicator($mine, leaseS: 10, now: $clock);
        $won = null;
        $mine->verb = $verb;
        $mine->race = static function () use ($theirs, &$won): void {
            $won = $theirs->begin('evt_1');
        };
        $state = $d->begin('evt_1');
        self::assertSame(State::Unseen, $won, 'the other copy claimed it between our read and our write');
        self::assertSame(State::Processing, $state, 'so ours did not');
        @unlink($file);
    }

    // ---- the handler

    private static function signed(string $id, int $ts, string $secret, string $body): array
    {
        $k = base64_decode(substr($secret, 6));
        return [
            'webhook-id' => $id,
            'webhook-timestamp' => (string) $ts,
            'webhook-signature' => 'v1,' . base64_encode(hash_hmac('sha256', "$id.$ts.$body", $k, true)),
        ];
    }

    public function testHandlerAnswers(): void
    {
        $secret = 'whsec_' . base64_encode(str_repeat('k', 32));
        $now = 1795939200;
        $processed = [];
        $failNext = false;
        $dedup = new MemoryDeduplicator(now: static function () use (&$now): float {
            return (float) $now;
        });
        $h = new Handler(new Verifier([$secret]), $dedup, static function (Event $ev) use (&$processed, &$failNext): void {
            if ($failNext) {
                $failNext = false;
                throw new \RuntimeException('boom');
            }
            $processed[] = $ev->id;
        }, logger: static function (): void {
        }, now: static function () use (&$now): int {
            return $now;
        });
        $body = static fn (string $id): string => json_encode(['id' => $id, 'type' => 'contact.created', 'created_at' => '2026-12-01T00:00:00Z', 'project_id' => 'prj_1', 'data' => ['id' => 'ct_1']]);
        $send = static fn (string $id, ?string $b = null, string $method = 'POST') => $h->handle($method, self::signed($id, $now, $secret, $b ?? $body($id)), $b ?? $body($id));

        self::assertSame(200, $send('evt_A')->status);
        self::assertSame(200, $send('evt_A')->status, 'a duplicate is acknowledged');
        self::assertSame(['evt_A'], $processed, '... and not processed again');

        $failNext = true;
        self::assertSame(500, $send('evt_B')->status, 'processing failed');
        self::assertSame(200, $send('evt_B')->status, 'the retry is processed: the id was forgotten');
        self::assertSame(['evt_A', 'evt_B'], $processed);

        self::assertSame(State::Unseen, $dedup->begin('evt_C')); // another copy is processing
        self::assertSame(503, $send('evt_C')->status, 'a copy while another is processing');

        $bad = self::signed('evt_D', $now, $secret, $body('evt_D'));
        self::assertSame(401, $h->handle('POST', $bad, $body('evt_D') . ' ')->status);
        self::assertSame(405, $send('evt_E', null, 'GET')->status);
        self::assertSame(400, $send('evt_F', '{"type":"x"}')->status, 'not an event (no id)');
        $big = str_repeat(' ', Handler::MAX_BODY + 1);
        self::assertSame(413, $h->handle('POST', self::signed('evt_G', $now, $secret, $big), $big)->status);
        self::assertSame(['evt_A', 'evt_B'], $processed);
    }

    public function testCopyWhileProcessingIs503WithoutRetryAfterWhichWouldPauseTheWholeEndpoint(): void
    {
        $secret = 'whsec_' . base64_encode('k');
        $dedup = new MemoryDeduplicator();
        $h = new Handler(new Verifier([$secret]), $dedup, static function (): void {
        }, logger: static function (): void {
        });
        self::assertSame(State::Unseen, $dedup->begin('evt_1')); // another copy holds the claim
        $b = '{"id":"evt_1","type":"t","data":{}}';
        $r = $h->handle('POST', self::signed('evt_1', time(), $secret, $b), $b);
        self::assertSame(503, $r->status);
        self::assertSame([], array_filter(array_keys($r->headers), static fn (string $k): bool => strcasecmp($k, 'Retry-After') === 0));
    }

    public function testHandlerStoreDown(): void
    {
        $secret = 'whsec_' . base64_encode('k');
        $down = new class () implements Deduplicator {
            public function begin(string $eventId): State
            {
                throw new \RuntimeException('database is down');
            }

            public function complete(string $eventId): void
            {
            }

            public function forget(string $eventId): void
            {
            }
        };
        $called = 0;
        $h = new Handler(new Verifier([$secret]), $down, static function () use (&$called): void {
            $called++;
        }, logger: static function (): void {
        });
        $b = '{"id":"evt_1"}';
        self::assertSame(503, $h->handle('POST', self::signed('evt_1', time(), $secret, $b), $b)->status);
        self::assertSame(0, $called);
    }

    public function testServerHeaders(): void
    {
        self::assertSame(
            ['webhook-id' => 'evt_1', 'x-botix-signature' => 'ab', 'content-type' => 'application/json'],
            Handler::serverHeaders(['HTTP_WEBHOOK_ID' => 'evt_1', 'HTTP_X_BOTIX_SIGNATURE' => 'ab', 'CONTENT_TYPE' => 'application/json', 'REQUEST_METHOD' => 'POST']),
        );
    }
}
