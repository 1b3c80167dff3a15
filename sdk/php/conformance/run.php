<?php

declare(strict_types=1);

// The PHP SDK's conformance runner: see sdk/conformance/README.md for the protocol and the reports.

use Botix\Client;
use Botix\ErrorCode;
use Botix\Exception\BotixException;
use Botix\Model\ContactCreate;
use Botix\Model\Model;
use Botix\Response;
use Botix\RetryPolicy;
use Botix\Routes;

require dirname(__DIR__) . '/autoload.php';

function out(array $report): void
{
    echo json_encode($report, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
}

function result(Model $m): array
{
    /** @var Response $r */
    $r = $m->response;
    return ['id' => (string) ($m->id ?? ''), 'replayed' => $r->replayed, 'attempts' => $r->attempts, 'idempotency_key' => $r->idempotencyKey, 'request_id' => $r->requestId];
}

function error_report(BotixException $e): array
{
    return [
        'type' => (new ReflectionClass($e))->getShortName(),
        'kind' => $e->kind(),
        'status' => $e->status,
        'code' => $e->apiCode,
        'message' => $e->getMessage(),
        'field' => $e->field,
        'details' => (object) $e->details,
        'request_id' => $e->requestId,
        'retry_after_s' => $e->retryAfter,
        'idempotency_key' => $e->idempotencyKey,
        'attempts' => $e->attempts,
        'reissuable' => $e->isReissuable(),
    ];
}

function key_from_env(): string
{
    $k = getenv('BOTIX_API_KEY');
    return is_string($k) ? $k : '';
}

$id = $argv[1] ?? '';
$line = fgets(STDIN);
$params = [];
if (is_string($line) && trim($line) !== '') {
    $params = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
}

switch ($id) {
    case 'routes':
        $routes = [];
        foreach (Routes::TABLE as [$method, $path]) {
            $routes[] = [$method, Routes::PREFIX . $path];
        }
        out(['routes' => $routes]);
        break;

    case 'codes':
        out(['codes' => ErrorCode::all()]);
        break;

    case 'schemas':
        $schemas = [];
        foreach (glob(dirname(__DIR__) . '/src/Model/*.php') as $file) {
            $class = 'Botix\\Model\\' . basename($file, '.php');
            if ($class === Model::class) {
                continue;
            }
            $fields = array_keys($class::FIELDS);
            sort($fields);
            $schemas[$class::SCHEMA] = $fields;
        }
        // The pages (Botix\Page) and the error envelope (Botix\Exception\ApiException's fields).
        foreach (['ContactPage', 'MessagePage', 'WebhookEndpointPage', 'DeliveryPage', 'InspectorRequestPage', 'EventPage', 'DashboardSessionPage'] as $p) {
            $schemas[$p] = ['data', 'has_more', 'next_cursor'];
        }
        $schemas['Error'] = ['error'];
        ksort($schemas);
        out(['schemas' => $schemas]);
        break;

    case 'list-params':
        // Each list method once with every parameter it takes set (found by reflection, so a parameter
        // added to a method is sent too); the harness compares the query sent with the document.
        $c = new Client(key_from_env(), retryPolicy: new RetryPolicy(maxAttempts: 1));
        $methods = [
            ['/public/v1/contacts', $c->contacts, 'list', []],
            ['/public/v1/messages', $c->messages, 'list', []],
            ['/public/v1/webhook-endpoints', $c->webhookEndpoints, 'list', []],
            ['/public/v1/webhook-deliveries', $c->deliveries, 'list', []],
            ['/public/v1/webhook-deliveries/stats', $c->deliveries, 'stats', []],
            ['/public/v1/inspectors/{id}/requests', $c->inspectors, 'requests', ['id' => (string) $params['inspector_id']]],
            ['/public/v1/events', $c->events, 'list', []],
            ['/public/v1/dashboard-sessions', $c->dashboardSessions, 'list', []],
        ];
        $calls = [];
        foreach ($methods as [$path, $service, $name, $args]) {
            $set = 0;
            foreach ((new ReflectionMethod($service, $name))->getParameters() as $param) {
                if (array_key_exists($param->getName(), $args)) {
                    continue;
                }
                $type = (string) $param->getType();
                $args[$param->getName()] = match (true) {
                    str_contains($type, 'int') => 1,
                    str_contains($type, 'DateTime') => new DateTimeImmutable('2026-11-29T08:00:00Z'),
                    default => 'x',
                };
                $set++;
            }
            try {
                $service->$name(...$args);
            } catch (BotixException) {
                // the API's answer does not matter: the query sent does
            }
            $calls[] = ['path' => $path, 'set' => $set];
        }
        out(['calls' => $calls]);
        break;

    case 'lossy-creates':
        $c = new Client(key_from_env(), retryPolicy: new RetryPolicy(maxAttempts: (int) $params['max_attempts'], baseDelayMs: (int) $params['base_delay_ms'], maxDelayMs: (int) $params['max_delay_ms']), attemptTimeoutMs: (int) $params['attempt_timeout_ms']);
        $calls = $completed = $reissues = $replayed = 0;
        $ids = [];
        $errors = [];
        for ($i = 0; $i < (int) $params['count']; $i++) {
            $in = new ContactCreate(phone: $params['phone_prefix'] . sprintf('%08d', $i), name: 'c' . $i, tags: [$params['tag']]);
            $calls++;
            $key = null;
            for ($n = 0; ; $n++) {
                try {
                    $ct = $c->contacts->create($in, idempotencyKey: $key);
                    $completed++;
                    $ids[] = $ct->id;
                    if ($ct->response->replayed) {
                        $replayed++;
                    }
                    break;
                } catch (BotixException $e) {
                    $errors[] = error_report($e);
                    if (!$e->isReissuable() || $n >= (int) $params['max_reissues']) {
                        break;
                    }
                    $key = $e->idempotencyKey; // the same operation: re-issue with its key
                    $reissues++;
                }
            }
        }
        out(['calls' => $calls, 'completed' => $completed, 'reissues' => $reissues, 'replayed' => $replayed, 'contact_ids' => $ids, 'errors' => $errors]);
        break;

    case 'in-progress':
    case 'retry-after':
    case 'retry-after-capped':
        $policy = $id === 'retry-after-capped' ? new RetryPolicy(maxRetryAfterMs: (int) $params['max_retry_after_ms']) : null;
        $c = new Client(key_from_env(), retryPolicy: $policy);
        try {
            out(['result' => result($c->contacts->create(new ContactCreate(phone: $params['phone'], name: $id)))]);
        } catch (BotixException $e) {
            out(['result' => null, 'error' => error_report($e)]);
        }
        break;

    case 'reuse-conflict':
        $c = new Client(key_from_env());
        $k = (string) $params['idempotency_key'];
        $report = [];
        $steps = [
            'first' => [$params['phone_a'], $k],
            'replay' => [$params['phone_a'], $k],
            'conflict' => [$params['phone_b'], $k],
            'invalid_key' => [$params['phone_b'], (string) $params['invalid_key']],
        ];
        foreach ($steps as $name => [$phone, $key]) {
            try {
                $report[$name] = result($c->contacts->create(new ContactCreate(phone: $phone, name: 'reuse'), idempotencyKey: $key));
            } catch (BotixException $e) {
                $report[$name] = error_report($e);
            }
        }
        out($report);
        break;

    case 'validation':
        $c = new Client(key_from_env());
        try {
            $c->contacts->create(new ContactCreate(phone: $params['phone'], name: 'validation'));
            out(['error' => null]);
        } catch (BotixException $e) {
            out(['error' => error_report($e)]);
        }
        break;

    case 'bad-key':
        $c = new Client((string) $params['api_key']);
        try {
            $c->contacts->list();
            out(['error' => null]);
        } catch (BotixException $e) {
            out(['error' => error_report($e)]);
        }
        break;

    case 'retry-quota':
        $c = new Client(key_from_env(), retryPolicy: new RetryPolicy(maxAttempts: (int) $params['max_attempts'], baseDelayMs: (int) $params['base_delay_ms'], maxDelayMs: (int) $params['max_delay_ms'], quotaCapacity: (int) $params['quota_capacity']));
        $report = [];
        foreach (['outage', 'refill', 'after'] as $phase) {
            $report[$phase] = [];
            for ($i = 0; $i < (int) $params[$phase . '_calls']; $i++) {
                try {
                    $page = $c->contacts->list(limit: (int) $params[$phase . '_limit']);
                    $report[$phase][] = ['ok' => true, 'attempts' => $page->response->attempts, 'error' => null];
                } catch (BotixException $e) {
                    $report[$phase][] = ['ok' => false, 'attempts' => $e->attempts, 'error' => error_report($e)];
                }
            }
        }
        out($report);
        break;

    case 'iterate-resume':
        $limit = (int) $params['limit'];
        $stopAfter = (int) $params['stop_after'];
        $ids = [];
        $walker = (new Client(key_from_env()))->contacts->walk(limit: $limit);
        $position = '';
        foreach ($walker as $contact) {
            $ids[] = $contact->id;
            if (count($ids) === $stopAfter) {
                $position = $walker->position()->toString();
                break;
            }
        }
        // A new client, as after a restart: only the position string survives.
        foreach ((new Client(key_from_env()))->contacts->walk(limit: $limit, from: $position) as $contact) {
            $ids[] = $contact->id;
        }
        out(['ids' => $ids, 'position' => $position]);
        break;

    case 'webhook-receive':
        require __DIR__ . '/receivers.php';
        run_receivers($params);
        break;

    default:
        fwrite(STDERR, "unknown scenario: $id\n");
        exit(2);
}
