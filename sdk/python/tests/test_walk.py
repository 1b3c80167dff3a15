from __future__ import annotations

import threading
import unittest
from typing import Any, Dict, List, Optional
from urllib.parse import parse_qs, urlsplit

from tests.fake import Answer, FakeServer, Req, Sleeps, envelope

import botix
from botix.walk import Position

KEY = "bx_test_walk"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(n: int) -> str:
    out = ""
    for _ in range(26):
        out = CROCKFORD[n % 32] + out
        n //= 32
    return "01" + out[2:]


class ListServer:
    """Serves GET /public/v1/contacts newest first by id, with opaque cursors (the offset, disguised)."""

    def __init__(self, n: int) -> None:
        self.items = [{"id": "ct_" + ulid(i + 1000), "phone": "+7999%08d" % i, "name": "c%d" % i, "tags": [],
                       "created_at": "2026-11-29T20:38:39.821Z"} for i in range(n)]
        self.items.sort(key=lambda c: c["id"], reverse=True)
        self.fail_next = 0
        self.lock = threading.Lock()
        self.srv = FakeServer(self.respond)

    def respond(self, req: Req) -> Answer:
        with self.lock:
            if self.fail_next:
                self.fail_next -= 1
                return Answer(400, envelope("INVALID_CURSOR"))
            items = list(self.items)
        q = parse_qs(urlsplit(req.path).query)
        limit = int(q.get("cursor_limit", ["20"])[0])
        start = 0
        if "cursor" in q:
            # The cursor names an id boundary: items deleted since it was issued shift nothing.
            boundary = q["cursor"][0][len("id_"):]
            start = next((i for i, c in enumerate(items) if c["id"] < boundary), len(items))
        page = items[start:start + limit]
        more = start + limit < len(items)
        cursor = ("id_" + page[-1]["id"]) if more else None
        return Answer(200, {"data": page, "next_cursor": cursor, "has_more": more})

    def limits(self) -> List[str]:
        return [parse_qs(urlsplit(r.path).query).get("cursor_limit", [""])[0] for r in self.srv.requests]


class PositionTest(unittest.TestCase):
    def test_text_form(self) -> None:
        cases = [
            ("start", "", Position()),
            ("cursor only", "p1..abc", Position(cursor="abc")),
            ("item and cursor", "p1.ct_01M8MGFZYD68EJ46SD446DT3ZV.abc.def", Position(cursor="abc.def", after="ct_01M8MGFZYD68EJ46SD446DT3ZV")),
            ("item on the first page", "p1.ct_01M8MGFZYD68EJ46SD446DT3ZV.", Position(after="ct_01M8MGFZYD68EJ46SD446DT3ZV")),
        ]
        for name, text, pos in cases:
            with self.subTest(name):
                self.assertEqual(Position.parse(text), pos)
                if text:
                    self.assertEqual(str(pos), text)

    def test_invalid(self) -> None:
        for text in ("p2..abc", "abc", "p1.", "p1.not an id.x", "p1.ct_short.x", "p1..a b"):
            with self.subTest(text):
                with self.assertRaises(botix.InvalidPositionError):
                    Position.parse(text)


class WalkTest(unittest.TestCase):
    def setUp(self) -> None:
        self.ls = ListServer(100)
        self.addCleanup(self.ls.srv.close)

    def client(self) -> botix.Client:
        return botix.Client(KEY, base_url=self.ls.srv.url, sleep=Sleeps())

    def test_generator_walks_everything_once(self) -> None:
        ids = [c.id for c in self.client().contacts.list(limit=7)]
        self.assertEqual(ids, [c["id"] for c in self.ls.items])
        self.assertEqual(set(self.ls.limits()), {"7"})
        self.assertEqual(len(self.ls.srv.requests), 15)

    def test_generator_fetches_lazily(self) -> None:
        it = self.client().contacts.list(limit=7)
        self.assertEqual(self.ls.srv.requests, [])
        for i, _ in enumerate(it):
            if i == 9:
                break
        self.assertEqual(len(self.ls.srv.requests), 2)

    def test_stop_and_resume_at_every_item(self) -> None:
        want = [c["id"] for c in self.ls.items]
        for stop in (1, 6, 7, 8, 14, 50, 99, 100):
            with self.subTest(stop=stop):
                walker = self.client().contacts.walk(limit=7)
                seen: List[str] = []
                saved = ""
                for c in walker:
                    seen.append(c.id)
                    if len(seen) == stop:
                        saved = str(walker.position)
                        break
                self.assertTrue(saved.startswith("p1."))
                rest = [c.id for c in self.client().contacts.walk(limit=7, position=saved)]
                self.assertEqual(seen + rest, want, "none lost, none repeated")

    def test_position_names_the_item(self) -> None:
        walker = self.client().contacts.walk(limit=7)
        for i, c in enumerate(walker):
            if i == 9:
                self.assertEqual(walker.position.after, c.id)
                self.assertTrue(walker.position.cursor)
                break

    def test_resume_after_the_saved_item_was_deleted(self) -> None:
        walker = self.client().contacts.walk(limit=7)
        seen = []
        for c in walker:
            seen.append(c.id)
            if len(seen) == 10:
                break
        saved = str(walker.position)
        with self.ls.lock:
            self.ls.items = [c for c in self.ls.items if c["id"] != seen[-1]]
        rest = [c.id for c in self.client().contacts.walk(limit=7, position=saved)]
        self.assertEqual(seen + rest, [c["id"] for c in ListServer(100).items])

    def test_error_keeps_the_position(self) -> None:
        walker = self.client().contacts.walk(limit=7)
        seen = []
        with self.assertRaises(botix.APIError):
            for c in walker:
                seen.append(c.id)
                if len(seen) == 7:
                    self.ls.fail_next = 1
        self.assertEqual(len(seen), 7)
        seen += [c.id for c in walker]  # the same walker continues
        self.assertEqual(seen, [c["id"] for c in self.ls.items])

    def test_page(self) -> None:
        page = self.client().contacts.page(limit=30)
        self.assertEqual(len(page.data), 30)
        self.assertTrue(page.has_more)
        nxt = self.client().contacts.page(limit=30, cursor=page.next_cursor)
        self.assertEqual(nxt.data[0].id, self.ls.items[30]["id"])
        self.assertEqual(page.response.attempts, 1)


if __name__ == "__main__":
    unittest.main()
