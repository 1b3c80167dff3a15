<?php

declare(strict_types=1);

namespace Botix;

use Botix\Exception\ApiException;
use Botix\Exception\BotixException;
use Botix\Exception\DecodeException;
use Botix\Exception\EncodeException;
use Botix\Exception\GaveUpException;
use Botix\Exception\InvalidIdempotencyKeyException;
use Botix\Exception\QuotaExhaustedException;
use Botix\Exception\TimeoutException;
use Botix\Exception\TransportException;
use Botix\Service\Catalog;
use Botix\Service\Contacts;
use Botix\Service\DashboardSessions;
use Botix\Service\Deliveries;
use Botix\Service\Events;
use Botix\Service\Inspectors;
use Botix\Service\Messages;
use Botix\Service\Scenarios;
use Botix\Service\WebhookEndpoints;

/**
 * Calls the BOTIX public API.
 *
 * Every mutating call (POST, PATCH, DELETE) sends one Idempotency-Key, a fresh UUIDv4 unless the
 * caller gives its own, and the same key on every retry. Transport errors, attempt timeouts, 429,
 * 5xx and 409 IDEMPOTENCY_KEY_IN_PROGRESS are retried with full-jitter backoff (or the server's
 * Retry-After, capped), bounded by the RetryPolicy and a client-wide retry quota. Redirects are
 * never followed. Every failure is a Botix\Exception\BotixException.
 */
final class Client
{
    public const VERSION = '1.0.0';
    public const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
    /** The most of an error answer the client reads (the rest is cut). */
    public const MAX_ERROR_BYTES = 64 << 10;
    /** The most of a success answer the client reads; a longer one is a DecodeException. */
    public const MAX_ANSWER_BYTES = 8 << 20;

    private const RETRY_COST = 5;
    private const TIMEOUT_COST = 10;
    private const SUCCESS_GAIN = 1;

    public readonly Contacts $contacts;
    public readonly Messages $messages;
    public readonly Catalog $catalog;
    public readonly Scenarios $scenarios;
    public readonly WebhookEndpoints $webhookEndpoints;
    public readonly Deliveries $deliveries;
    public readonly Inspectors $inspectors;
    public readonly Events $events;
    public readonly DashboardSessions $dashboardSessions;

    public readonly string $baseUrl;
    public readonly RetryPolicy $retryPolicy;
    public readonly int $attemptTimeoutMs;
    public readonly string $userAgent;

    private int $quotaTokens;
    /** @var callable(int):void */
    private $sleeper;
    /** @var callable(int):int */
    private $random;
    /** @var (callable(string,array<string,mixed>):void)|null */
    private $logger;

    /**
     * @param string $apiKey the project's API key (sent as a Bearer token, never logged)
     * @param string|null $baseUrl scheme and host; null: env BOTIX_API_URL, else http://127.0.0.1:8080
     * @param int $attemptTimeoutMs bounds each HTTP attempt, reading the answer included; 0: none
     * @param string $userAgentSuffix a product token appended to the User-Agent, e.g. "my-crm/2.3"
     * @param (callable(string,array<string,mixed>):void)|null $logger receives one line per retry and per failed call
     * @param (callable(int):void)|null $sleeper waits the given milliseconds (tests replace it)
     * @param (callable(int):int)|null $random a uniform random integer in [0, n] (tests replace it)
     */
    public function __construct(
        private readonly string $apiKey,
        ?string $baseUrl = null,
        ?RetryPolicy $retryPolicy = null,
        int $attemptTimeoutMs = 30000,
        string $userAgentSuffix = '',
        ?callable $logger = null,
        ?callable $sleeper = null,
        ?callable $random = null,
    ) {
        if ($baseUrl === null || $baseUrl === '') {
            $env = getenv('BOTIX_API_URL');
            $baseUrl = is_string($env) && $env !== '' ? $env : self::DEFAULT_BASE_URL;
        }
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->retryPolicy = $retryPolicy ?? new RetryPolicy();
        $this->attemptTimeoutMs = max(0, $attemptTimeoutMs);
        $this->userAgent = trim('botix-php/' . self::VERSION . ' ' . trim($userAgentSuffix));
        $this->quotaTokens = $this->retryPolicy->quotaCapacity;
        $this->logger = $logger;
        $this->sleeper = $sleeper ?? static function (int $ms): void {
            if ($ms > 0) {
                usleep($ms * 1000);
            }
        };
        $this->random = $random ?? static fn (int $n): int => $n <= 0 ? 0 : random_int(0, $n);

        $this->contacts = new Contacts($this);
        $this->messages = new Messages($this);
        $this->catalog = new Catalog($this);
        $this->scenarios = new Scenarios($this);
        $this->webhookEndpoints = new WebhookEndpoints($this);
        $this->deliveries = new Deliveries($this);
        $this->inspectors = new Inspectors($this);
        $this->events = new Events($this);
        $this->dashboardSessions = new DashboardSessions($this);
    }

    /** Whether the API accepts the key: a UUIDv4 or a ULID. */
    public static function validIdempotencyKey(string $key): bool
    {
        return preg_match('/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/D', $key) === 1
            || preg_match('/^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$/D', $key) === 1;
    }

    /** A fresh random UUIDv4. */
    public static function newIdempotencyKey(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        $h = bin2hex($b);
        return substr($h, 0, 8) . '-' . substr($h, 8, 4) . '-' . substr($h, 12, 4) . '-' . substr($h, 16, 4) . '-' . substr($h, 20);
    }

    /** The tokens left in the retry quota (the capacity when there is no quota). */
    public function quotaTokens(): int
    {
        return $this->quotaTokens;
    }

    /** The API's OpenAPI 3.1 document, decoded. @return array<string,mixed> */
    public function openApi(): array
    {
        [$data] = $this->call('meta.openapi');
        return is_array($data) ? $data : [];
    }

    /** The API's error-code reference (GET /public/v1/error-codes). @return list<Model\ErrorCodeInfo> */
    public function errorCodes(): array
    {
        [$data] = $this->call('meta.errorCodes');
        $ref = Model\ErrorCodeReference::fromArray(is_array($data) ? $data : []);
        return $ref->codes;
    }

    /**
     * The API's changelog feed (Atom), newest entry first, as arrays with id, title, published,
     * updated, categories, link, summary. Needs ext-simplexml.
     *
     * @return list<array{id:string,title:string,published:string,updated:string,categories:list<string>,link:string,summary:string}>
     */
    public function changelog(): array
    {
        [$xml] = $this->call('meta.changelog', raw: true);
        $prev = libxml_use_internal_errors(true);
        $feed = simplexml_load_string((string) $xml);
        libxml_use_internal_errors($prev);
        if ($feed === false) {
            throw new DecodeException('botix: GET /changelog.atom: the answer is not an Atom feed', 'GET', '/changelog.atom', '', 1);
        }
        $out = [];
        foreach ($feed->entry as $e) {
            $cats = [];
            foreach ($e->category as $c) {
                $cats[] = (string) $c['term'];
            }
            $out[] = [
                'id' => (string) $e->id, 'title' => (string) $e->title, 'published' => (string) $e->published,
                'updated' => (string) $e->updated, 'categories' => $cats, 'link' => (string) ($e->link['href'] ?? ''),
                'summary' => (string) $e->summary,
            ];
        }
        return $out;
    }

    /**
     * Runs one logical operation of the route table with retries.
     *
     * @internal used by the services
     * @param array<string,string> $params path parameters
     * @param array<string,string|int> $query
     * @param array<string,mixed>|null $body
     * @return array{0:mixed,1:Response}
     */
    public function call(string $operation, array $params = [], array $query = [], ?array $body = null, ?string $idempotencyKey = null, bool $raw = false): array
    {
        [$method] = Routes::TABLE[$operation] ?? throw new \LogicException("botix: unknown operation $operation");
        $path = Routes::path($operation, $params);
        $mutating = $method !== 'GET';
        $key = '';
        if ($mutating) {
            $key = $idempotencyKey ?? self::newIdempotencyKey();
            if (!self::validIdempotencyKey($key)) {
                $this->logFailure($method, $path, $key, 0, 'invalid idempotency key');
                throw new InvalidIdempotencyKeyException(
                    'botix: ' . $method . ' ' . $path . ': Idempotency-Key must be a UUIDv4 or a ULID; nothing was sent',
                    $method, $path, $key, 0,
                );
            }
        }
        $payload = null;
        if ($body !== null) {
            try {
                $payload = json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION);
            } catch (\JsonException $e) {
                throw new EncodeException('botix: ' . $method . ' ' . $path . ': encode the request: ' . $e->getMessage(), $method, $path, $key, 0, previous: $e);
            }
        }
        $url = $this->baseUrl . Routes::PREFIX . $path;
        if ($query !== []) {
            $url .= '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        }

        $attempts = 0;
        $spent = 0;
        $policy = $this->retryPolicy;
        while (true) {
            $attempts++;
            $a = $this->attempt($method, $url, $payload, $key);
            if ($a['kind'] === 'answer' && $a['status'] >= 200 && $a['status'] < 300) {
                $this->release($spent);
                $resp = new Response($a['status'], $a['headers']['x-request-id'] ?? '', $key, ($a['headers']['idempotent-replayed'] ?? '') === 'true', $attempts);
                if ($a['overflow']) {
                    throw new DecodeException(sprintf('botix: %s %s: the answer exceeds %d bytes (HTTP %d, request_id %s)', $method, $path, self::MAX_ANSWER_BYTES, $a['status'], $resp->requestId), $method, $path, $key, $attempts, $a['status'], requestId: $resp->requestId);
                }
                if ($raw) {
                    return [$a['body'], $resp];
                }
                $data = null;
                if ($a['body'] !== '') {
                    try {
                        $data = json_decode($a['body'], true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
                    } catch (\JsonException $e) {
                        throw new DecodeException(sprintf('botix: %s %s: decode the answer (HTTP %d, request_id %s): %s', $method, $path, $a['status'], $resp->requestId, $e->getMessage()), $method, $path, $key, $attempts, $a['status'], requestId: $resp->requestId, previous: $e);
                    }
                }
                return [$data, $resp];
            }
            $failure = $this->failureOf($a, $method, $path, $key, $attempts);
            $cost = $failure instanceof ApiException ? self::RETRY_COST : self::TIMEOUT_COST;
            if ($failure instanceof ApiException && !$failure->isReissuable()) {
                $this->logFailure($method, $path, $key, $attempts, $failure->getMessage());
                throw $failure;
            }
            if ($attempts >= $policy->maxAttempts) {
                $this->logFailure($method, $path, $key, $attempts, $failure->getMessage());
                throw $this->wrap(GaveUpException::class, sprintf('botix: %s %s (%s%d attempts): gave up: every attempt the retry policy allows failed: %s', $method, $path, $key !== '' ? "Idempotency-Key $key, " : '', $attempts, $failure->getMessage()), $failure);
            }
            $delay = $this->backoff($attempts);
            if ($failure instanceof ApiException && $failure->retryAfter > 0) {
                $delay = (int) min(ceil($failure->retryAfter * 1000), $policy->maxRetryAfterMs);
            }
            // Waiting for a first request with this key to finish is not a failure of the service: no quota.
            if ($failure->apiCode !== ErrorCode::IDEMPOTENCY_KEY_IN_PROGRESS) {
                if (!$this->take($cost)) {
                    $this->logFailure($method, $path, $key, $attempts, 'retry quota exhausted: ' . $failure->getMessage());
                    throw $this->wrap(QuotaExhaustedException::class, sprintf('botix: %s %s (%s%d attempts): not retried: the client\'s retry quota is exhausted because most recent calls failed: %s', $method, $path, $key !== '' ? "Idempotency-Key $key, " : '', $attempts, $failure->getMessage()), $failure);
                }
                $spent += $cost;
            }
            if ($this->logger !== null) {
                ($this->logger)('botix: retrying', ['method' => $method, 'path' => $path, 'idempotency_key' => $key, 'attempt' => $attempts, 'delay_ms' => $delay, 'error' => $failure->getMessage()]);
            }
            ($this->sleeper)($delay);
        }
    }

    /**
     * @template T of BotixException
     * @param class-string<T> $class
     * @return T
     */
    private function wrap(string $class, string $message, BotixException $last): BotixException
    {
        return new $class($message, $last->method, $last->path, $last->idempotencyKey, $last->attempts, $last->status, $last->apiCode, $last->apiMessage, $last->field, $last->details, $last->requestId, $last->retryAfter, $last);
    }

    /** The full-jitter delay in milliseconds before retry number $attempt. */
    private function backoff(int $attempt): int
    {
        $ceiling = $this->retryPolicy->maxDelayMs;
        $shift = $attempt - 1;
        if ($shift < 30) {
            $ceiling = min($ceiling, $this->retryPolicy->baseDelayMs << $shift);
        }
        $d = ($this->random)(max(0, $ceiling));
        return max(0, min($d, $ceiling));
    }

    private function take(int $cost): bool
    {
        if ($this->retryPolicy->quotaCapacity < 0) {
            return true;
        }
        if ($this->quotaTokens < $cost) {
            return false;
        }
        $this->quotaTokens -= $cost;
        return true;
    }

    private function release(int $spent): void
    {
        if ($this->retryPolicy->quotaCapacity < 0) {
            return;
        }
        $this->quotaTokens = min($this->retryPolicy->quotaCapacity, $this->quotaTokens + ($spent === 0 ? self::SUCCESS_GAIN : $spent));
    }

    private function logFailure(string $method, string $path, string $key, int $attempts, string $error): void
    {
        if ($this->logger !== null) {
            ($this->logger)('botix: call failed', ['method' => $method, 'path' => $path, 'idempotency_key' => $key, 'attempts' => $attempts, 'error' => $error]);
        }
    }

    /**
     * The exception one failed attempt stands for.
     *
     * @param array{kind:string,status:int,headers:array<string,string>,body:string,error:string,overflow:bool} $a
     */
    private function failureOf(array $a, string $method, string $path, string $key, int $attempts): BotixException
    {
        $head = sprintf('botix: %s %s (%s%d attempts): ', $method, $path, $key !== '' ? "Idempotency-Key $key, " : '', $attempts);
        if ($a['kind'] === 'timeout') {
            return new TimeoutException($head . sprintf('the attempt timed out (after %d ms)', $this->attemptTimeoutMs), $method, $path, $key, $attempts);
        }
        if ($a['kind'] === 'transport') {
            return new TransportException($head . 'no answer: ' . $a['error'], $method, $path, $key, $attempts);
        }
        $status = $a['status'];
        $h = $a['headers'];
        $requestId = $h['x-request-id'] ?? '';
        $code = $message = $field = '';
        $details = [];
        $env = json_decode($a['body'], true);
        if (is_array($env)) {
            if (isset($env['error']) && is_array($env['error'])) {
                $e = $env['error'];
                $code = is_string($e['code'] ?? null) ? $e['code'] : '';
                $message = is_string($e['message'] ?? null) ? $e['message'] : '';
                $field = is_string($e['field'] ?? null) ? $e['field'] : '';
                if (isset($e['details']) && is_array($e['details'])) {
                    foreach ($e['details'] as $k => $v) {
                        $details[(string) $k] = is_string($v) ? $v : json_encode($v);
                    }
                }
                if (is_string($e['request_id'] ?? null) && $e['request_id'] !== '') {
                    $requestId = $e['request_id'];
                }
            } elseif (is_string($env['message'] ?? null)) {
                $message = $env['message'];
            }
        }
        if ($status >= 300 && $status < 400) {
            $message = sprintf('redirect to %s not followed (the SDK never follows redirects)', $h['location'] ?? '(no Location)');
        }
        if ($message === '') {
            $message = self::statusText($status);
        }
        $text = sprintf('HTTP %d%s: %s%s', $status, $code !== '' ? ' ' . $code : '', $message, $requestId !== '' ? " (request_id $requestId)" : '');
        return new ApiException($head . $text, $method, $path, $key, $attempts, $status, $code, $message, $field, $details, $requestId, self::retryAfter($h['retry-after'] ?? '', time()));
    }

    /** Reads a Retry-After value: seconds, or an HTTP date; 0 when absent, malformed or past. */
    public static function retryAfter(string $v, int $now): float
    {
        $v = trim($v);
        if ($v === '') {
            return 0.0;
        }
        if (preg_match('/^-?[0-9]+$/', $v) === 1) {
            $s = (int) $v;
            return $s <= 0 ? 0.0 : (float) min($s, 2147483647);
        }
        $t = \DateTimeImmutable::createFromFormat('D, d M Y H:i:s \G\M\T', $v, new \DateTimeZone('UTC'));
        if ($t === false) {
            return 0.0;
        }
        $d = $t->getTimestamp() - $now;
        return $d > 0 ? (float) $d : 0.0;
    }

    private static function statusText(int $status): string
    {
        return [
            301 => 'Moved Permanently', 302 => 'Found', 303 => 'See Other', 307 => 'Temporary Redirect', 308 => 'Permanent Redirect',
            400 => 'Bad Request', 401 => 'Unauthorized', 403 => 'Forbidden', 404 => 'Not Found', 409 => 'Conflict',
            413 => 'Payload Too Large', 415 => 'Unsupported Media Type', 422 => 'Unprocessable Entity', 429 => 'Too Many Requests',
            500 => 'Internal Server Error', 502 => 'Bad Gateway', 503 => 'Service Unavailable', 504 => 'Gateway Timeout',
        ][$status] ?? 'HTTP ' . $status;
    }

    /**
     * Sends one HTTP request on a fresh curl handle (no connection reuse, so libcurl never re-sends
     * a request on its own behind the attempt count).
     *
     * @return array{kind:string,status:int,headers:array<string,string>,body:string,error:string,overflow:bool}
     */
    private function attempt(string $method, string $url, ?string $payload, string $key): array
    {
        $headers = [];
        $body = '';
        $overflow = false;
        $ch = curl_init();
        $sendHeaders = [
            'Authorization: Bearer ' . $this->apiKey,
            'Accept: application/json',
            'User-Agent: ' . $this->userAgent,
            'Expect:',
        ];
        if ($key !== '') {
            $sendHeaders[] = 'Idempotency-Key: ' . $key;
        }
        if ($payload !== null) {
            $sendHeaders[] = 'Content-Type: application/json';
        }
        $opts = [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_HTTPHEADER => $sendHeaders,
            CURLOPT_NOSIGNAL => true,
            CURLOPT_FORBID_REUSE => true,
            CURLOPT_FRESH_CONNECT => true,
            CURLOPT_HEADERFUNCTION => static function ($ch, string $line) use (&$headers): int {
                if (str_starts_with($line, 'HTTP/')) {
                    $headers = []; // a new status line (after a 100 Continue): the headers start over
                } elseif (($p = strpos($line, ':')) !== false) {
                    $headers[strtolower(trim(substr($line, 0, $p)))] = trim(substr($line, $p + 1));
                }
                return strlen($line);
            },
            CURLOPT_WRITEFUNCTION => static function ($ch, string $chunk) use (&$body, &$overflow): int {
                $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
                $limit = $status >= 200 && $status < 300 ? self::MAX_ANSWER_BYTES : self::MAX_ERROR_BYTES;
                $room = $limit - strlen($body);
                if (strlen($chunk) > $room) {
                    $body .= substr($chunk, 0, max(0, $room));
                    $overflow = true;
                    return 0; // aborts the transfer: nothing past the limit is read
                }
                $body .= $chunk;
                return strlen($chunk);
            },
        ];
        if (defined('CURLOPT_PROTOCOLS_STR')) {
            $opts[CURLOPT_PROTOCOLS_STR] = 'http,https';
        } else {
            $opts[CURLOPT_PROTOCOLS] = CURLPROTO_HTTP | CURLPROTO_HTTPS;
        }
        if ($this->attemptTimeoutMs > 0) {
            $opts[CURLOPT_TIMEOUT_MS] = $this->attemptTimeoutMs;
        }
        if ($payload !== null) {
            $opts[CURLOPT_POSTFIELDS] = $payload;
        } elseif ($method !== 'GET') {
            $opts[CURLOPT_POSTFIELDS] = '';
        }
        curl_setopt_array($ch, $opts);
        $ok = curl_exec($ch);
        $errno = curl_errno($ch);
        $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        $error = curl_error($ch);
        curl_close($ch);
        if ($overflow && $status > 0) {
            return ['kind' => 'answer', 'status' => $status, 'headers' => $headers, 'body' => $body, 'error' => '', 'overflow' => true];
        }
        if ($errno === CURLE_OPERATION_TIMEDOUT) {
            return ['kind' => 'timeout', 'status' => 0, 'headers' => [], 'body' => '', 'error' => $error, 'overflow' => false];
        }
        if ($ok === false || $errno !== 0 || $status === 0) {
            return ['kind' => 'transport', 'status' => 0, 'headers' => [], 'body' => '', 'error' => $error !== '' ? $error : 'no answer', 'overflow' => false];
        }
        return ['kind' => 'answer', 'status' => $status, 'headers' => $headers, 'body' => $body, 'error' => '', 'overflow' => false];
    }
}
