<?php

declare(strict_types=1);

namespace Botix\Tests;

use Botix\Client;
use Botix\Exception\InvalidPositionException;
use Botix\Position;
use PHPUnit\Framework\TestCase;

/** Cursor walks, their position string and resuming it in a new client. */
final class WalkTest extends TestCase
{
    private static FakeServer $server;

    public static function setUpBeforeClass(): void
    {
        self::$server = new FakeServer();
    }

    public static function tearDownAfterClass(): void
    {
        self::$server->stop();
    }

    private static function id(int $n): string
    {
        return 'ct_' . sprintf('%026d', $n);
    }

    /** @return iterable<string,array{0:int,1:int,2:int}> total, limit, stop after */
    public static function resumeCases(): iterable
    {
        yield 'inside a page' => [100, 7, 40];
        yield 'at the end of a page' => [100, 7, 42];
        yield 'after the first item' => [100, 7, 1];
        yield 'at the last item' => [100, 7, 100];
        yield 'one page only' => [5, 20, 3];
    }

    /** @dataProvider resumeCases */
    public function testStopAndResumeInANewClient(int $total, int $limit, int $stopAfter): void
    {
        self::$server->script([['list' => $total]]);
        $ids = [];
        $walker = (new Client('k', self::$server->url))->contacts->walk(limit: $limit);
        $saved = '';
        foreach ($walker as $contact) {
            $ids[] = $contact->id;
            if (count($ids) === $stopAfter) {
                $saved = (string) $walker->position();
                break;
            }
        }
        self::assertMatchesRegularExpression('/^p1\.[^.]*\./', $saved);
        foreach ((new Client('k', self::$server->url))->contacts->walk(limit: $limit, from: $saved) as $contact) {
            $ids[] = $contact->id;
        }
        $want = array_map([self::class, 'id'], range($total, 1));
        self::assertSame($want, $ids, 'every item once, newest first');
        foreach (self::$server->requests() as $r) {
            self::assertStringContainsString('cursor_limit=' . $limit, $r['uri']);
        }
    }

    public function testPositionNamesTheItemAtTheStop(): void
    {
        self::$server->script([['list' => 30]]);
        $walker = (new Client('k', self::$server->url))->contacts->walk(limit: 7);
        $n = 0;
        foreach ($walker as $contact) {
            if (++$n === 10) {
                self::assertSame('p1.' . self::id(21) . '.o7', $walker->position()->toString());
                break;
            }
        }
        // A page's last item: resuming starts at the next page.
        $walker = (new Client('k', self::$server->url))->contacts->walk(limit: 7);
        $n = 0;
        foreach ($walker as $contact) {
            if (++$n === 7) {
                self::assertSame('p1..o7', $walker->position()->toString());
                break;
            }
        }
    }

    public function testIteratingTheSameWalkerAgainContinues(): void
    {
        self::$server->script([['list' => 12]]);
        $walker = (new Client('k', self::$server->url))->contacts->walk(limit: 5);
        $ids = [];
        foreach ($walker as $c) {
            $ids[] = $c->id;
            if (count($ids) === 6) {
                break;
            }
        }
        foreach ($walker as $c) {
            $ids[] = $c->id;
        }
        self::assertSame(array_map([self::class, 'id'], range(12, 1)), $ids);
    }

    public function testAPageIsIterable(): void
    {
        self::$server->script([['list' => 3]]);
        $page = (new Client('k', self::$server->url))->contacts->list(limit: 2);
        self::assertCount(2, $page);
        self::assertTrue($page->hasMore);
        self::assertSame('o2', $page->nextCursor);
        self::assertSame([self::id(3), self::id(2)], array_map(static fn ($c) => $c->id, iterator_to_array($page)));
        self::assertSame(1, $page->response->attempts);
    }

    /** @return iterable<string,array{0:string,1:?array{0:string,1:string}}> */
    public static function positionCases(): iterable
    {
        yield 'start' => ['', ['', '']];
        yield 'item and cursor' => ['p1.ct_01M8RWC4A2E5YK1MYN78YDRJ2F.abc', ['abc', 'ct_01M8RWC4A2E5YK1MYN78YDRJ2F']];
        yield 'cursor only' => ['p1..abc', ['abc', '']];
        yield 'item on the first page' => ['p1.ct_01M8RWC4A2E5YK1MYN78YDRJ2F.', ['', 'ct_01M8RWC4A2E5YK1MYN78YDRJ2F']];
        yield 'cursor with dots' => ['p1..a.b.c', ['a.b.c', '']];
        yield 'other version' => ['p2..abc', null];
        yield 'no dot' => ['p1.abc', null];
        yield 'not an id' => ['p1.nope.abc', null];
        yield 'space in cursor' => ['p1..a b', null];
    }

    /** @dataProvider positionCases */
    public function testParsePosition(string $s, ?array $want): void
    {
        if ($want === null) {
            $this->expectException(InvalidPositionException::class);
        }
        $p = Position::parse($s);
        self::assertSame($want, [$p->cursor, $p->after]);
        if ($s !== '') {
            self::assertSame($s, $p->toString(), 'round trip');
        }
    }
}
