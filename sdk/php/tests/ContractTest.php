<?php

declare(strict_types=1);

namespace Botix\Tests;

use Botix\ErrorCode;
use Botix\Model\Model;
use Botix\Routes;
use PHPUnit\Framework\TestCase;

/**
 * The SDK against the repository's contract: the routes of template.yaml, the server's error codes
 * (internal/apierr) and the component schemas of sdk/openapi.yaml.
 */
final class ContractTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    public function testEveryPublicRouteHasAMethod(): void
    {
        $template = (string) file_get_contents(self::ROOT . '/template.yaml');
        preg_match_all('/Method:\s*([A-Z]+),\s*Path:\s*(?:"(\/public\/v1\/[^"]+)"|(\/public\/v1\/[^\s},]+))/', $template, $m, PREG_SET_ORDER);
        $want = [];
        foreach ($m as $match) {
            $method = $match[1];
            $path = $match[2] !== '' ? $match[2] : $match[3];
            $want[] = $method . ' ' . preg_replace('/\{[^}]+\}/', '{}', $path);
        }
        $have = [];
        foreach (Routes::TABLE as [$method, $path]) {
            $have[] = $method . ' ' . preg_replace('/\{[^}]+\}/', '{}', Routes::PREFIX . $path);
        }
        sort($want);
        sort($have);
        self::assertNotEmpty($want);
        self::assertSame(array_values(array_unique($want)), $have);
    }

    public function testEveryRouteIsCalledByAMethod(): void
    {
        $src = '';
        foreach (array_merge(glob(__DIR__ . '/../src/Service/*.php'), [__DIR__ . '/../src/Client.php']) as $f) {
            $src .= file_get_contents($f);
        }
        foreach (array_keys(Routes::TABLE) as $op) {
            self::assertStringContainsString("'$op'", $src, "no method calls $op");
        }
    }

    public function testCodesAreTheServers(): void
    {
        $go = (string) file_get_contents(self::ROOT . '/internal/apierr/apierr.go');
        preg_match_all('/^\s*[A-Z][A-Za-z]*\s+Code\s*=\s*"([A-Z_]+)"/m', $go, $m);
        $want = $m[1];
        $have = ErrorCode::all();
        sort($want);
        sort($have);
        self::assertNotEmpty($want);
        self::assertSame($want, $have);
    }

    /**
     * The object schemas of sdk/openapi.yaml: name => [properties, required]. A reader for this
     * document's layout (components.schemas at 4 spaces, properties at 8).
     *
     * @return array<string,array{0:list<string>,1:list<string>}>
     */
    private static function schemas(): array
    {
        $lines = file(self::ROOT . '/sdk/openapi.yaml', FILE_IGNORE_NEW_LINES);
        $out = [];
        $in = false;
        $name = null;
        $props = false;
        foreach ($lines as $l) {
            if ($l === '  schemas:') {
                $in = true;
                continue;
            }
            if (!$in) {
                continue;
            }
            if (preg_match('/^  \S/', $l)) {
                break;
            }
            if (preg_match('/^    ([A-Za-z0-9]+):\s*$/', $l, $m)) {
                $name = $m[1];
                $out[$name] = [[], []];
                $props = false;
                continue;
            }
            if ($name === null) {
                continue;
            }
            if (preg_match('/^      required:\s*\[(.*)\]/', $l, $m)) {
                $out[$name][1] = array_map('trim', explode(',', $m[1]));
            }
            if (preg_match('/^      properties:\s*\{(.*)\}\s*$/', $l, $m)) { // inline: { a: {...}, b: {...} }
                $depth = 0;
                $key = '';
                foreach (str_split($m[1]) as $ch) {
                    if ($ch === '{' || $ch === '[') {
                        $depth++;
                    } elseif ($ch === '}' || $ch === ']') {
                        $depth--;
                    } elseif ($depth === 0 && $ch === ':') {
                        $out[$name][0][] = trim($key);
                        $key = '';
                    } elseif ($depth === 0 && $ch === ',') {
                        $key = '';
                    } elseif ($depth === 0) {
                        $key .= $ch;
                    }
                }
                $props = false;
                continue;
            }
            if (preg_match('/^      (\S+):/', $l, $m)) {
                $props = $m[1] === 'properties';
                continue;
            }
            if ($props && preg_match('/^        ([a-z_][a-z0-9_]*):/', $l, $m)) {
                $out[$name][0][] = $m[1];
            }
        }
        return $out;
    }

    /** @return iterable<string,array{0:class-string<Model>}> */
    public static function models(): iterable
    {
        foreach (glob(__DIR__ . '/../src/Model/*.php') as $f) {
            $class = 'Botix\\Model\\' . basename($f, '.php');
            if ($class !== Model::class) {
                yield basename($f, '.php') => [$class];
            }
        }
    }

    /** @dataProvider models */
    public function testModelMatchesItsSchema(string $class): void
    {
        $schemas = self::schemas();
        self::assertArrayHasKey('Contact', $schemas, 'the reader found the schemas');
        $schema = $class::SCHEMA;
        self::assertArrayHasKey($schema, $schemas, "$class stands for a schema of the document");
        [$props, $required] = $schemas[$schema];
        $fields = array_keys($class::FIELDS);
        sort($props);
        sort($fields);
        self::assertSame($props, $fields, "$class has exactly the properties of $schema");

        // FIELDS names the constructor's parameters; a required property is a required parameter.
        $ctor = (new \ReflectionClass($class))->getConstructor();
        $params = [];
        foreach ($ctor->getParameters() as $p) {
            $params[$p->getName()] = $p;
        }
        unset($params['response']);
        self::assertEqualsCanonicalizing(array_values($class::FIELDS), array_keys($params), "$class: FIELDS and the constructor agree");
        foreach ($class::FIELDS as $json => $prop) {
            $p = $params[$prop];
            self::assertSame(in_array($json, $required, true), !$p->isOptional(), "$class::\$$prop is required exactly when $schema requires $json");
        }
    }

    public function testModelsRoundTrip(): void
    {
        $c = \Botix\Model\Contact::fromArray(['id' => 'ct_1', 'phone' => '+7', 'name' => 'n', 'tags' => ['a'], 'created_at' => 't', 'unknown' => 'ignored']);
        self::assertSame(['id' => 'ct_1', 'phone' => '+7', 'name' => 'n', 'tags' => ['a'], 'created_at' => 't'], $c->toArray());
        $d = \Botix\Model\DeliveryDetail::fromArray(['id' => 'dlv_1', 'event_id' => 'e', 'event_type' => 't', 'endpoint_id' => 'we', 'status' => 'dead', 'round' => 1, 'attempts_count' => 1, 'created_at' => 'c', 'updated_at' => 'u', 'payload' => ['a' => 1],
            'attempts' => [['delivery_id' => 'dlv_1', 'attempt' => 1, 'round' => 1, 'kind' => 'scheduled', 'url' => 'u', 'request_id' => 'r', 'started_at' => 's', 'duration_ms' => 3]]]);
        self::assertInstanceOf(\Botix\Model\Attempt::class, $d->attempts[0]);
        self::assertSame(3, $d->attempts[0]->durationMs);
        self::assertSame(['phone' => '+7', 'name' => 'n'], (new \Botix\Model\ContactCreate(phone: '+7', name: 'n'))->toArray(), 'unset optional fields are left out');
    }

    /** @return iterable<string,array{0:\Botix\Model\Model,1:array<string,mixed>}> */
    public static function limitBodies(): iterable
    {
        yield 'create with limits' => [new \Botix\Model\WebhookEndpointCreate(url: 'https://x', events: ['*'], rateLimit: 20, maxConcurrency: 4),
            ['url' => 'https://x', 'events' => ['*'], 'rate_limit' => 20, 'max_concurrency' => 4]];
        yield 'create without' => [new \Botix\Model\WebhookEndpointCreate(url: 'https://x', events: ['*']), ['url' => 'https://x', 'events' => ['*']]];
        yield 'update leaves null out' => [new \Botix\Model\WebhookEndpointUpdate(description: 'd'), ['description' => 'd']];
        yield 'update sets' => [new \Botix\Model\WebhookEndpointUpdate(rateLimit: 50), ['rate_limit' => 50]];
        yield 'Limit::None removes' => [new \Botix\Model\WebhookEndpointUpdate(rateLimit: \Botix\Limit::None, maxConcurrency: 2),
            ['rate_limit' => null, 'max_concurrency' => 2]];
    }

    /**
     * The endpoint limits go out as given, Limit::None as null.
     *
     * @dataProvider limitBodies
     * @param array<string,mixed> $want
     */
    public function testEndpointLimitBodies(\Botix\Model\Model $body, array $want): void
    {
        self::assertSame($want, $body->toArray());
        self::assertSame(json_encode($want), json_encode($body));
    }

    public function testEndpointThrottleRead(): void
    {
        $base = ['id' => 'we_1', 'url' => 'u', 'events' => ['*'], 'enabled' => true, 'created_at' => 'c', 'updated_at' => 'u', 'consecutive_failures' => 0];
        $e = \Botix\Model\WebhookEndpoint::fromArray($base);
        self::assertNull($e->rateLimit);
        self::assertNull($e->maxConcurrency);
        self::assertNull($e->throttle);
        $e = \Botix\Model\WebhookEndpoint::fromArray($base + ['rate_limit' => 20, 'max_concurrency' => 4,
            'throttle' => ['effective_rate' => 5.2, 'paused_until' => '2026-12-01T10:00:30Z', 'throttled_by' => 'http_429']]);
        self::assertSame([20, 4], [$e->rateLimit, $e->maxConcurrency]);
        self::assertInstanceOf(\Botix\Model\EndpointThrottle::class, $e->throttle);
        self::assertSame([5.2, '2026-12-01T10:00:30Z', 'http_429'], [$e->throttle->effectiveRate, $e->throttle->pausedUntil, $e->throttle->throttledBy]);
        $s = \Botix\Model\WebhookEndpointWithSecret::fromArray($base + ['secret' => 'whsec_x', 'throttle' => ['effective_rate' => 3, 'throttled_by' => 'http_503']]);
        self::assertSame(3, $s->throttle->effectiveRate, 'a whole effective rate decodes as a number too');
    }

    public function testEndpointHealthRead(): void
    {
        $base = ['id' => 'we_1', 'url' => 'u', 'events' => ['*'], 'enabled' => false, 'created_at' => 'c', 'updated_at' => 'u', 'consecutive_failures' => 3];
        self::assertNull(\Botix\Model\WebhookEndpoint::fromArray($base)->health);
        $e = \Botix\Model\WebhookEndpoint::fromArray($base + ['health' => ['state' => 'disabled', 'cause' => 'http_410', 'since' => '2026-12-01T10:00:00Z',
            'reason' => 'the endpoint answered 410 Gone', 'failed_attempts' => 3]]);
        self::assertInstanceOf(\Botix\Model\EndpointHealth::class, $e->health);
        self::assertSame(['disabled', 'http_410', '2026-12-01T10:00:00Z', null, 'the endpoint answered 410 Gone', 3],
            [$e->health->state, $e->health->cause, $e->health->since, $e->health->until, $e->health->reason, $e->health->failedAttempts]);
    }
}
