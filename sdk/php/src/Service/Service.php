<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Client;
use Botix\Exception\DecodeException;
use Botix\Model\Model;
use Botix\Page;
use Botix\Position;
use Botix\Response;
use Botix\Walker;

/** @internal the shared plumbing of the services */
abstract class Service
{
    public function __construct(protected readonly Client $client)
    {
    }

    /**
     * @template T of Model
     * @param class-string<T> $class
     * @return T
     */
    protected function one(string $class, string $op, array $params = [], array $query = [], ?array $body = null, ?string $key = null): Model
    {
        [$data, $resp] = $this->client->call($op, $params, $query, $body, $key);
        return self::decode($class, $data, $resp, $op);
    }

    /**
     * @template T of Model
     * @param class-string<T> $class
     * @return Page<T>
     */
    protected function page(string $class, string $op, array $params, array $query): Page
    {
        [$data, $resp] = $this->client->call($op, $params, $query);
        if (!is_array($data) || !isset($data['data']) || !is_array($data['data'])) {
            throw self::decodeError($op, $resp, 'not a page');
        }
        $items = [];
        foreach ($data['data'] as $item) {
            $items[] = self::decode($class, $item, null, $op, $resp);
        }
        $next = $data['next_cursor'] ?? null;
        return new Page($items, is_string($next) ? $next : '', (bool) ($data['has_more'] ?? false), $resp);
    }

    /**
     * A walker over the list with the filters of $query, from $from (a Position or its string),
     * or from $query['cursor'] when $from is the start.
     *
     * @template T of Model
     * @param class-string<T> $class
     * @return Walker<T>
     */
    protected function walker(string $class, string $op, array $params, array $query, Position|string|null $from): Walker
    {
        $pos = is_string($from) ? Position::parse($from) : ($from ?? new Position());
        if ($pos->isStart() && isset($query['cursor'])) {
            $pos = new Position((string) $query['cursor']);
        }
        unset($query['cursor']);
        return new Walker(function (string $cursor) use ($class, $op, $params, $query): Page {
            $q = $query;
            if ($cursor !== '') {
                $q['cursor'] = $cursor;
            }
            return $this->page($class, $op, $params, $q);
        }, $pos);
    }

    /**
     * The query of a list: cursor, cursor_limit and the filters that are set.
     *
     * @param array<string,mixed> $filters
     * @return array<string,string|int>
     */
    protected static function query(?string $cursor, ?int $limit, array $filters = []): array
    {
        $q = [];
        if ($cursor !== null && $cursor !== '') {
            $q['cursor'] = $cursor;
        }
        if ($limit !== null && $limit > 0) {
            $q['cursor_limit'] = $limit;
        }
        foreach ($filters as $k => $v) {
            if ($v instanceof \DateTimeInterface) {
                $v = \DateTimeImmutable::createFromInterface($v)->setTimezone(new \DateTimeZone('UTC'))->format('Y-m-d\TH:i:s.v\Z');
            }
            if ($v !== null && $v !== '') {
                $q[$k] = $v;
            }
        }
        return $q;
    }

    /**
     * @template T of Model
     * @param class-string<T> $class
     * @return T
     */
    private static function decode(string $class, mixed $data, ?Response $resp, string $op, ?Response $pageResp = null): Model
    {
        if (!is_array($data)) {
            throw self::decodeError($op, $resp ?? $pageResp, 'not a JSON object');
        }
        try {
            return $class::fromArray($data, $resp);
        } catch (\TypeError | \ArgumentCountError $e) {
            throw self::decodeError($op, $resp ?? $pageResp, 'does not match ' . $class::SCHEMA . ': ' . $e->getMessage(), $e);
        }
    }

    private static function decodeError(string $op, ?Response $resp, string $why, ?\Throwable $prev = null): DecodeException
    {
        [$method, $path] = \Botix\Routes::TABLE[$op];
        return new DecodeException(
            sprintf('botix: %s %s: decode the answer (request_id %s): %s', $method, $path, $resp?->requestId ?? '', $why),
            $method, $path, $resp?->idempotencyKey ?? '', $resp?->attempts ?? 0, $resp?->statusCode ?? 0, requestId: $resp?->requestId ?? '', previous: $prev,
        );
    }
}
