<?php

declare(strict_types=1);

namespace Botix\Tests;

use Botix\Client;
use Botix\ErrorCode;
use Botix\Exception\ApiException;
use Botix\Exception\BotixException;
use Botix\Exception\DecodeException;
use Botix\Exception\EncodeException;
use Botix\Exception\GaveUpException;
use Botix\Exception\InvalidIdempotencyKeyException;
use Botix\Exception\QuotaExhaustedException;
use Botix\Exception\TimeoutException;
use Botix\Exception\TransportException;
use Botix\Model\ContactCreate;
use Botix\RetryPolicy;
use PHPUnit\Framework\TestCase;

/** The client's own behaviour against a scripted local HTTP server (tests/fake/router.php). */
final class ClientTest extends TestCase
{
    private const KEY = 'bx_test_secretsecretsecretsecretsecretsecret0000';

    private static FakeServer $server;
    /** @var list<int> */
    private array $sleeps = [];
    /** @var list<string> */
    private array $logs = [];

    public static function setUpBeforeClass(): void
    {
        self::$server = new FakeServer(workers: 4);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server->stop();
    }

    private function client(?RetryPolicy $policy = null, int $attemptTimeoutMs = 5000, ?callable $random = null, ?string $baseUrl = null): Client
    {
        return new Client(
            self::KEY,
            baseUrl: $baseUrl ?? self::$server->url,
            retryPolicy: $policy,
            attemptTimeoutMs: $attemptTimeoutMs,
            logger: function (string $msg, array $ctx): void {
                $this->logs[] = $msg . ' ' . json_encode($ctx);
            },
            sleeper: function (int $ms): void {
                $this->sleeps[] = $ms;
            },
            random: $random ?? static fn (int $n): int => $n,
        );
    }

    private static function contact(string $id = 'ct_01M8RWC4A2E5YK1MYN78YDRJ2F'): array
    {
        return ['status' => 201, 'headers' => ['X-Request-Id' => 'req_ok', 'Content-Type' => 'application/json'], 'body' => ['id' => $id, 'phone' => '+79990000001', 'name' => 'A', 'tags' => [], 'created_at' => '2026-12-01T00:00:00Z']];
    }

    private static function err(int $status, string $code = '', array $headers = [], string $field = '', array $details = []): array
    {
        $e = ['code' => $code, 'message' => "m-$code", 'request_id' => "req_$status"];
        if ($field !== '') {
            $e['field'] = $field;
            $e['details'] = $details;
        }
        return ['status' => $status, 'headers' => $headers + ['X-Request-Id' => "req_h$status"], 'body' => $code === '' ? 'plain' : ['error' => $e]];
    }

    private static function create(Client $c, ?string $key = null): \Botix\Model\Contact
    {
        return $c->contacts->create(new ContactCreate(phone: '+79990000001', name: 'A'), idempotencyKey: $key);
    }

    /** @return iterable<string,array{0:list<array>,1:int,2:?string,3:int}> answers, maxAttempts, expected exception (null: success), expected attempts */
    public static function retryCases(): iterable
    {
        yield '503 then success is retried' => [[self::err(503, 'SERVICE_UNAVAILABLE'), self::contact()], 5, null, 2];
        yield 'a 429 without an envelope is retried' => [[['status' => 429, 'body' => 'Too Many Requests'], self::contact()], 5, null, 2];
        yield '409 IN_PROGRESS is waited out' => [[self::err(409, 'IDEMPOTENCY_KEY_IN_PROGRESS'), self::err(409, 'IDEMPOTENCY_KEY_IN_PROGRESS'), self::contact()], 5, null, 3];
        yield 'a 500 every time gives up after maxAttempts' => [[self::err(500, 'INTERNAL')], 5, GaveUpException::class, 5];
        yield 'maxAttempts 1 never retries' => [[self::err(503, 'SERVICE_UNAVAILABLE')], 1, GaveUpException::class, 1];
        yield '422 is not retried' => [[self::err(422, 'VALIDATION_FAILED', [], 'phone', ['phone' => 'bad'])], 5, ApiException::class, 1];
        yield '409 REUSE_CONFLICT is not retried' => [[self::err(409, 'IDEMPOTENCY_KEY_REUSE_CONFLICT')], 5, ApiException::class, 1];
        yield '409 CONTACT_ALREADY_EXISTS is not retried' => [[self::err(409, 'CONTACT_ALREADY_EXISTS')], 5, ApiException::class, 1];
        yield '401 is not retried' => [[self::err(401, 'UNAUTHORIZED')], 5, ApiException::class, 1];
    }

    /** @dataProvider retryCases */
    public function testRetries(array $answers, int $maxAttempts, ?string $exception, int $attempts): void
    {
        self::$server->script($answers);
        $c = $this->client(new RetryPolicy(maxAttempts: $maxAttempts));
        try {
            $ct = self::create($c);
            self::assertNull($exception, 'the call succeeded');
            self::assertSame($attempts, $ct->response->attempts);
            self::assertSame('req_ok', $ct->response->requestId);
        } catch (BotixException $e) {
            self::assertNotNull($exception, 'unexpected ' . $e->getMessage());
            self::assertInstanceOf($exception, $e);
            self::assertSame($attempts, $e->attempts);
            self::assertSame($answers[0]['status'], $e->status);
        }
        $reqs = self::$server->requests();
        self::assertCount($attempts, $reqs, 'one HTTP request per attempt');
        $keys = array_unique(array_map(static fn (array $r) => $r['headers']['idempotency-key'] ?? '', $reqs));
        self::assertCount(1, $keys, 'the same Idempotency-Key on every attempt');
        self::assertTrue(Client::validIdempotencyKey($keys[0]));
        self::assertSame($attempts - 1, count($this->sleeps), 'one wait per retry');
    }

    public function testEachCallHasItsOwnKeyAndGetsSendNone(): void
    {
        self::$server->script([self::contact()]);
        $c = $this->client();
        $a = self::create($c);
        $b = self::create($c);
        self::assertNotSame($a->response->idempotencyKey, $b->response->idempotencyKey);
        self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', $a->response->idempotencyKey);
        self::$server->script([['status' => 200, 'body' => ['data' => [], 'next_cursor' => null, 'has_more' => false]]]);
        $c->contacts->list();
        self::assertArrayNotHasKey('idempotency-key', self::$server->requests()[0]['headers']);
    }

    public function testDeliveryListFilters(): void
    {
        self::$server->script([['status' => 200, 'body' => ['data' => [], 'next_cursor' => null, 'has_more' => false]]]);
        $this->client()->deliveries->list(eventId: 'evt_1', deliveryId: 'dlv_1', requestId: 'req_1');
        $uri = self::$server->requests()[0]['uri'];
        self::assertStringContainsString('event_id=evt_1', $uri);
        self::assertStringContainsString('delivery_id=dlv_1', $uri);
        self::assertStringContainsString('request_id=req_1', $uri);
    }

    /** @return iterable<string,array{0:string,1:bool}> */
    public static function keyCases(): iterable
    {
        yield 'UUIDv4' => ['9b2f5c1e-3a4d-4e6f-8a7b-1c2d3e4f5a6b', true];
        yield 'ULID' => ['01JDQ7X3ZV8N5W2K4R6T9Y1B3H', true];
        yield 'UUIDv1 refused' => ['9b2f5c1e-3a4d-1e6f-8a7b-1c2d3e4f5a6b', false];
        yield 'not a key' => ['not-a-key', false];
        yield 'ULID past 128 bits' => ['81JDQ7X3ZV8N5W2K4R6T9Y1B3H', false];
        yield 'trailing newline' => ["01JDQ7X3ZV8N5W2K4R6T9Y1B3H\n", false];
        yield 'empty' => ['', false];
    }

    /** @dataProvider keyCases */
    public function testCallerKeys(string $key, bool $valid): void
    {
        self::assertSame($valid, Client::validIdempotencyKey($key));
        self::$server->script([self::contact()]);
        $c = $this->client();
        if ($valid) {
            $ct = self::create($c, $key);
            self::assertSame($key, $ct->response->idempotencyKey);
            self::assertSame($key, self::$server->requests()[0]['headers']['idempotency-key']);
            return;
        }
        try {
            self::create($c, $key);
            self::fail('an invalid key was accepted');
        } catch (InvalidIdempotencyKeyException $e) {
            self::assertSame(0, $e->attempts);
            self::assertSame('invalid_key', $e->kind());
            self::assertFalse($e->isReissuable());
            self::assertSame([], self::$server->requests(), 'nothing was sent');
        }
    }

    /** @return iterable<string,array{0:BotixException,1:string,2:bool}> */
    public static function kindCases(): iterable
    {
        $e = static fn (string $class, int $status = 0, string $code = '') => new $class('m', 'POST', '/contacts', 'k', 1, $status, $code);
        yield 'api 400' => [$e(ApiException::class, 400, 'VALIDATION_FAILED'), 'api', false];
        yield 'api 503' => [$e(ApiException::class, 503), 'api', true];
        yield 'api 409 in progress' => [$e(ApiException::class, 409, ErrorCode::IDEMPOTENCY_KEY_IN_PROGRESS), 'api', true];
        yield 'transport' => [$e(TransportException::class), 'transport', true];
        yield 'timeout' => [$e(TimeoutException::class), 'timeout', true];
        yield 'gave up' => [$e(GaveUpException::class), 'gave_up', true];
        yield 'quota' => [$e(QuotaExhaustedException::class), 'quota', true];
        yield 'invalid key' => [$e(InvalidIdempotencyKeyException::class), 'invalid_key', false];
        yield 'encode' => [$e(EncodeException::class), 'encode', false];
        yield 'decode' => [$e(DecodeException::class), 'decode', false];
    }

    /** @dataProvider kindCases */
    public function testEachKindSaysWhetherCallingAgainCanEndDifferently(BotixException $e, string $kind, bool $reissuable): void
    {
        self::assertSame($kind, $e->kind());
        self::assertSame($reissuable, $e->isReissuable());
    }

    public function testBackoffIsFullJitterWithinBounds(): void
    {
        self::$server->script([self::err(503, 'SERVICE_UNAVAILABLE')]);
        $ceilings = [];
        $c = $this->client(new RetryPolicy(maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 500), random: function (int $n) use (&$ceilings): int {
            $ceilings[] = $n;
            return $n; // the top of the range: the sleeps are the ceilings
        });
        try {
            self::create($c);
            self::fail('no failure');
        } catch (GaveUpException) {
        }
        self::assertSame([100, 200, 400, 500, 500], $ceilings, 'min(max, base * 2^(n-1))');
        self::assertSame([100, 200, 400, 500, 500], $this->sleeps);

        $this->sleeps = [];
        $c = $this->client(new RetryPolicy(maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 500), random: static fn (int $n): int => 0);
        try {
            self::create($c);
        } catch (GaveUpException) {
        }
        self::assertSame([0, 0], $this->sleeps, 'the jitter reaches 0');
    }

    public function testDefaultRandomStaysInRange(): void
    {
        self::$server->script([self::err(503, 'SERVICE_UNAVAILABLE')]);
        $sleeps = [];
        $c = new Client(self::KEY, self::$server->url, new RetryPolicy(maxAttempts: 40, baseDelayMs: 8, maxDelayMs: 64, quotaCapacity: -1), sleeper: function (int $ms) use (&$sleeps): void {
            $sleeps[] = $ms;
        });
        try {
            self::create($c);
        } catch (GaveUpException) {
        }
        self::assertCount(39, $sleeps);
        foreach ($sleeps as $i => $ms) {
            self::assertGreaterThanOrEqual(0, $ms);
            self::assertLessThanOrEqual(min(64, 8 << $i), $ms);
        }
        self::assertGreaterThan(1, count(array_unique($sleeps)), 'random, not constant');
    }

    /** @return iterable<string,array{0:string,1:int,2:int}> Retry-After, maxRetryAfterMs, expected wait */
    public static function retryAfterCases(): iterable
    {
        yield 'seconds honoured' => ['2', 0, 2000];
        yield 'capped by the default 60 s' => ['3600', 0, 60000];
        yield 'capped by the policy' => ['3600', 1000, 1000];
        yield 'malformed ignored (backoff)' => ['soon', 0, 200];
        yield 'zero ignored (backoff)' => ['0', 0, 200];
    }

    /** @dataProvider retryAfterCases */
    public function testRetryAfter(string $header, int $cap, int $wait): void
    {
        self::$server->script([self::err(429, '', ['Retry-After' => $header]), self::contact()]);
        $ct = self::create($this->client(new RetryPolicy(maxRetryAfterMs: $cap)));
        self::assertSame(2, $ct->response->attempts);
        self::assertSame([$wait], $this->sleeps);
    }

    public function testRetryAfterHttpDate(): void
    {
        $now = 1795939200;
        self::assertSame(30.0, Client::retryAfter(gmdate('D, d M Y H:i:s', $now + 30) . ' GMT', $now));
        self::assertSame(0.0, Client::retryAfter(gmdate('D, d M Y H:i:s', $now - 30) . ' GMT', $now), 'a past date');
        self::assertSame(5.0, Client::retryAfter('5', $now));
        self::assertSame(0.0, Client::retryAfter('-5', $now));
        $date = gmdate('D, d M Y H:i:s', time() + 3600) . ' GMT';
        self::$server->script([self::err(503, '', ['Retry-After' => $date]), self::contact()]);
        self::create($this->client(new RetryPolicy(maxRetryAfterMs: 1500)));
        self::assertSame([1500], $this->sleeps, 'an HTTP date an hour away, capped');
    }

    public function testQuotaTripsAndRecovers(): void
    {
        self::$server->script([self::err(503, 'SERVICE_UNAVAILABLE')]);
        $c = $this->client(new RetryPolicy(maxAttempts: 5, quotaCapacity: 12));
        try {
            self::create($c);
            self::fail('no failure');
        } catch (QuotaExhaustedException $e) {
            self::assertSame(3, $e->attempts, 'two retries of 5 tokens, then the bucket (2) is too low');
            self::assertSame('quota', $e->kind());
            self::assertTrue($e->isReissuable());
            self::assertSame(503, $e->status);
            self::assertInstanceOf(ApiException::class, $e->getPrevious());
        }
        self::assertSame(2, $c->quotaTokens());
        try {
            self::create($c);
        } catch (QuotaExhaustedException $e) {
            self::assertSame(1, $e->attempts, 'an empty bucket: no retry at all');
        }
        self::$server->script([self::contact()]);
        self::create($c);
        self::assertSame(3, $c->quotaTokens(), 'a success without retries returns 1');
        self::create($c);
        self::create($c);
        self::assertSame(5, $c->quotaTokens());
        self::$server->script([self::err(500, 'INTERNAL'), self::contact()]);
        self::assertSame(2, self::create($c)->response->attempts, 'the quota allows one retry again');
        self::assertSame(5, $c->quotaTokens(), 'a success after a retry returns what the retry took');
    }

    public function testInProgressCostsNoQuota(): void
    {
        self::$server->script([self::err(409, 'IDEMPOTENCY_KEY_IN_PROGRESS', ['Retry-After' => '1']), self::err(409, 'IDEMPOTENCY_KEY_IN_PROGRESS', ['Retry-After' => '1']), self::contact()]);
        $c = $this->client(new RetryPolicy(quotaCapacity: 4));
        $ct = self::create($c);
        self::assertSame(3, $ct->response->attempts);
        self::assertSame([1000, 1000], $this->sleeps);
    }

    public function testNegativeQuotaMeansNoQuota(): void
    {
        self::$server->script([self::err(503, 'SERVICE_UNAVAILABLE')]);
        $c = $this->client(new RetryPolicy(maxAttempts: 8, quotaCapacity: -1));
        $this->expectException(GaveUpException::class);
        self::create($c);
    }

    public function testTransportErrorsAreRetriedAndCostTen(): void
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = (string) stream_socket_get_name($s, false);
        fclose($s); // nothing listens there any more: connection refused
        $c = $this->client(new RetryPolicy(maxAttempts: 3, quotaCapacity: 100), baseUrl: 'http://' . $name);
        try {
            self::create($c);
            self::fail('no failure');
        } catch (GaveUpException $e) {
            self::assertSame(3, $e->attempts);
            self::assertSame(0, $e->status);
            self::assertInstanceOf(TransportException::class, $e->getPrevious());
            self::assertTrue($e->isReissuable());
            self::assertNotSame('', $e->idempotencyKey);
        }
        self::assertSame(80, $c->quotaTokens(), 'two retries after a connection error, 10 tokens each');
    }

    public function testAttemptTimeout(): void
    {
        self::$server->script([['status' => 201, 'delay_ms' => 700, 'body' => self::contact()['body']], self::contact()]);
        $c = $this->client(new RetryPolicy(maxAttempts: 2, quotaCapacity: 100), attemptTimeoutMs: 150);
        $ct = self::create($c);
        self::assertSame(2, $ct->response->attempts);
        self::assertSame(100, $c->quotaTokens(), 'the success returned the 10 tokens of the retry');
        $reqs = self::$server->requests();
        self::assertSame($reqs[0]['headers']['idempotency-key'], $reqs[1]['headers']['idempotency-key']);

        self::$server->script([['status' => 201, 'delay_ms' => 700, 'body' => self::contact()['body']]]);
        $c = $this->client(new RetryPolicy(maxAttempts: 1), attemptTimeoutMs: 150);
        try {
            self::create($c);
            self::fail('no timeout');
        } catch (GaveUpException $e) {
            self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
            self::assertSame('timeout', $e->getPrevious()->kind());
        }
    }

    public function testRedirectsAreNotFollowed(): void
    {
        self::$server->script([['status' => 302, 'headers' => ['Location' => self::$server->url . '/elsewhere'], 'body' => '']]);
        try {
            self::create($this->client());
            self::fail('a redirect was followed');
        } catch (ApiException $e) {
            self::assertSame(302, $e->status);
            self::assertStringContainsString('/elsewhere', $e->getMessage());
            self::assertFalse($e->isReissuable());
            self::assertSame(1, $e->attempts);
        }
        $reqs = self::$server->requests();
        self::assertSame(['/public/v1/contacts'], array_column($reqs, 'uri'), 'the Location was not requested, so the Authorization header went nowhere else');
    }

    public function testErrorBodyIsCutAt64KiB(): void
    {
        $long = ['error' => ['code' => 'INTERNAL', 'message' => str_repeat('y', 100 << 10), 'request_id' => 'req_long']];
        self::$server->script([['status' => 400, 'headers' => ['X-Request-Id' => 'req_hdr'], 'body' => $long]]);
        try {
            self::create($this->client());
            self::fail('no error');
        } catch (ApiException $e) {
            self::assertSame(400, $e->status);
            self::assertSame('', $e->apiCode, 'the envelope past 64 KiB was not read, so it does not decode');
            self::assertSame('Bad Request', $e->apiMessage);
            self::assertSame('req_hdr', $e->requestId);
        }
        $short = ['error' => ['code' => 'INVALID_JSON', 'message' => str_repeat('y', 60 << 10), 'request_id' => 'req_short']];
        self::$server->script([['status' => 400, 'body' => $short]]);
        try {
            self::create($this->client());
        } catch (ApiException $e) {
            self::assertSame('INVALID_JSON', $e->apiCode, 'under the limit the envelope is read');
        }
    }

    public function testAnswerOver8MiBIsADecodeError(): void
    {
        self::$server->script([['status' => 200, 'body_size' => (8 << 20) + 10]]);
        try {
            $this->client()->contacts->count();
            self::fail('no error');
        } catch (DecodeException $e) {
            self::assertStringContainsString('exceeds', $e->getMessage());
            self::assertFalse($e->isReissuable());
        }
    }

    public function testErrorFieldsAndReplay(): void
    {
        self::$server->script([self::err(422, 'VALIDATION_FAILED', ['Retry-After' => '7'], 'phone', ['phone' => 'must be E.164'])]);
        try {
            self::create($this->client());
            self::fail('no error');
        } catch (ApiException $e) {
            self::assertSame(['api', 422, ErrorCode::VALIDATION_FAILED, 'm-VALIDATION_FAILED', 'phone', ['phone' => 'must be E.164'], 'req_422', 7.0, 1, false],
                [$e->kind(), $e->status, $e->apiCode, $e->apiMessage, $e->field, $e->details, $e->requestId, $e->retryAfter, $e->attempts, $e->isReissuable()]);
            self::assertTrue(Client::validIdempotencyKey($e->idempotencyKey));
            self::assertStringContainsString($e->idempotencyKey, $e->getMessage());
        }
        self::$server->script([self::contact() + ['headers' => []]]);
        $replay = self::contact();
        $replay['headers']['Idempotent-Replayed'] = 'true';
        self::$server->script([$replay]);
        $ct = self::create($this->client(), '01JDQ7X3ZV8N5W2K4R6T9Y1B3H');
        self::assertTrue($ct->response->replayed);
        self::assertSame('01JDQ7X3ZV8N5W2K4R6T9Y1B3H', $ct->response->idempotencyKey);
    }

    public function testHeadersAndTheKeyStaysSecret(): void
    {
        self::$server->script([self::err(500, 'INTERNAL')]);
        $c = $this->client(new RetryPolicy(maxAttempts: 2));
        try {
            self::create($c);
        } catch (BotixException $e) {
            self::assertStringNotContainsString(self::KEY, $e->getMessage());
            self::assertStringNotContainsString(self::KEY, (string) $e);
        }
        $h = self::$server->requests()[0]['headers'];
        self::assertSame('Bearer ' . self::KEY, $h['authorization']);
        self::assertSame('botix-php/' . Client::VERSION, $h['user-agent']);
        self::assertSame('application/json', $h['content-type']);
        self::assertNotEmpty($this->logs);
        foreach ($this->logs as $line) {
            self::assertStringNotContainsString(self::KEY, $line);
        }
    }

    public function testBaseUrlFromTheEnvironment(): void
    {
        $old = getenv('BOTIX_API_URL');
        putenv('BOTIX_API_URL=' . self::$server->url . '/');
        try {
            self::assertSame(self::$server->url, (new Client('k'))->baseUrl);
            putenv('BOTIX_API_URL');
            self::assertSame(Client::DEFAULT_BASE_URL, (new Client('k'))->baseUrl);
            self::assertSame('http://x.test', (new Client('k', 'http://x.test/'))->baseUrl);
        } finally {
            putenv($old === false ? 'BOTIX_API_URL' : "BOTIX_API_URL=$old");
        }
    }

    public function testPolicyDefaults(): void
    {
        $p = new RetryPolicy();
        self::assertSame([5, 200, 20000, 60000, 500], [$p->maxAttempts, $p->baseDelayMs, $p->maxDelayMs, $p->maxRetryAfterMs, $p->quotaCapacity]);
        $p = new RetryPolicy(maxDelayMs: 1000, quotaCapacity: -1);
        self::assertSame([5, 200, 1000, 60000, -1], [$p->maxAttempts, $p->baseDelayMs, $p->maxDelayMs, $p->maxRetryAfterMs, $p->quotaCapacity]);
    }

    public function testPathParametersAreEncoded(): void
    {
        self::$server->script([self::contact()]);
        $this->client()->contacts->get('a/b?c');
        self::assertSame('/public/v1/contacts/a%2Fb%3Fc', self::$server->requests()[0]['uri']);
    }
}
