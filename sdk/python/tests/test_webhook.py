from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import importlib.util
import json
import os
import sqlite3
import sys
import tempfile
import threading
import unittest
import unittest.mock
from http.server import ThreadingHTTPServer
from typing import Any, Dict, List, Optional

from tests.fake import ROOT

from botix import webhook
from botix.webhook import State

VECTORS = os.path.join(ROOT, "..", "go", "webhook", "testdata", "vectors.json")
NOW = 1795939200


def load_vectors() -> List[Dict[str, Any]]:
    with open(VECTORS, encoding="utf-8") as f:
        return json.load(f)["vectors"]  # type: ignore[no-any-return]


def sign(secret: str, msg_id: str, ts: int, body: bytes) -> Dict[str, str]:
    k = base64.b64decode(secret[len("whsec_"):])
    std = base64.b64encode(hmac.new(k, ("%s.%d." % (msg_id, ts)).encode() + body, hashlib.sha256).digest()).decode()
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": "v1," + std,
            "X-Botix-Signature": hmac.new(k, body, hashlib.sha256).hexdigest()}


SECRET = "whsec_mGobcTX0mGFQql+gAo/uqmbNrz7WoAo1XdhuBC9/tJQ="
OTHER = "whsec_EVB6Di9eadXfpApiob17buV+a82FxnybhDGzb/8hxDc="


def event_body(eid: str) -> bytes:
    return json.dumps({"id": eid, "type": "contact.created", "created_at": "2026-11-29T08:00:00.000Z",
                       "project_id": "prj_01JDQ7X3ZV8N5W2K4R6T9Y1B3E", "data": {"id": "ct_x"}}).encode()


class VectorsTest(unittest.TestCase):
    def test_every_vector(self) -> None:
        vectors = load_vectors()
        self.assertGreaterEqual(len(vectors), 3)
        for v in vectors:
            body = v["body"].encode("utf-8")
            std = {"webhook-id": v["webhook_id"], "webhook-timestamp": str(v["webhook_timestamp"]),
                   "webhook-signature": v["webhook_signature"]}
            legacy = {"X-Botix-Signature": v["x_botix_signature"]}
            with self.subTest(v["name"]):
                webhook.Verifier(v["secrets"]).verify(std, body, now=v["webhook_timestamp"])
                webhook.Verifier(v["secrets"], allow_legacy=True).verify(legacy, body)
                for s in v["secrets"]:  # each secret of a rotation verifies alone
                    webhook.Verifier([s]).verify(std, body, now=v["webhook_timestamp"] + 10)
                    webhook.Verifier([s], allow_legacy=True).verify(legacy, body)
                with self.assertRaises(webhook.BadSignatureError):
                    webhook.Verifier(v["secrets"]).verify(std, body + b" ", now=v["webhook_timestamp"])
                with self.assertRaises(webhook.BadSignatureError):
                    webhook.Verifier(v["secrets"], allow_legacy=True).verify(legacy, body[:-1])
                with self.assertRaises(webhook.UntimedSignatureError):
                    webhook.Verifier(v["secrets"]).verify(legacy, body)


class VerifierTest(unittest.TestCase):
    body = event_body("evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H")

    def test_cases(self) -> None:
        good = sign(SECRET, "evt_1", NOW, self.body)
        bad_std = dict(good, **{"webhook-signature": "v1," + base64.b64encode(b"x" * 32).decode()})
        cases: List[Any] = [
            ("ok", [SECRET], good, {}, None),
            ("rotation: any secret", [OTHER, SECRET], good, {}, None),
            ("wrong secret", [OTHER], good, {}, webhook.BadSignatureError),
            ("stale", [SECRET], good, {"now": NOW + 301}, webhook.StaleError),
            ("future", [SECRET], good, {"now": NOW - 301}, webhook.StaleError),
            ("within tolerance", [SECRET], good, {"now": NOW + 299}, None),
            ("custom tolerance", [SECRET], good, {"now": NOW + 20, "tolerance": 10}, webhook.StaleError),
            ("no timestamp", [SECRET], {k: v for k, v in good.items() if k != "webhook-timestamp"}, {}, webhook.BadTimestampError),
            ("bad timestamp", [SECRET], dict(good, **{"webhook-timestamp": "12x"}), {}, webhook.BadTimestampError),
            ("no signature", [SECRET], {}, {}, webhook.NoSignatureError),
            ("legacy only refused", [SECRET], {"X-Botix-Signature": good["X-Botix-Signature"]}, {}, webhook.UntimedSignatureError),
            ("legacy only allowed", [SECRET], {"X-Botix-Signature": good["X-Botix-Signature"]}, {"allow_legacy": True}, None),
            ("legacy list", [SECRET], {"X-Botix-Signature": "00ff," + good["X-Botix-Signature"].upper()}, {"allow_legacy": True}, None),
            ("bad standard is not excused by legacy", [SECRET], bad_std, {"allow_legacy": True}, webhook.BadSignatureError),
            ("other versions ignored", [SECRET], dict(good, **{"webhook-signature": "v2," + good["webhook-signature"][3:]}), {}, webhook.BadSignatureError),
            ("several entries", [SECRET], dict(good, **{"webhook-signature": "v1,AAAA " + good["webhook-signature"]}), {}, None),
            ("id is signed", [SECRET], dict(good, **{"webhook-id": "evt_2"}), {}, webhook.BadSignatureError),
            ("bad secret", ["nope"], good, {}, webhook.BadSecretError),
            ("header case", [SECRET], {k.upper(): v for k, v in good.items()}, {}, None),
        ]
        for name, secrets, headers, opts, want in cases:
            with self.subTest(name):
                now = opts.pop("now", NOW)
                v = webhook.Verifier(secrets, **opts)
                if want is None:
                    v.verify(headers, self.body, now=now)
                else:
                    with self.assertRaises(want):
                        v.verify(headers, self.body, now=now)

    def test_constant_time_comparison(self) -> None:
        calls = []
        real = hmac.compare_digest

        def spy(a: Any, b: Any) -> bool:
            calls.append((a, b))
            return real(a, b)

        orig = webhook.hmac.compare_digest
        webhook.hmac.compare_digest = spy  # type: ignore[assignment]
        try:
            webhook.Verifier([SECRET]).verify(sign(SECRET, "evt_1", NOW, self.body), self.body, now=NOW)
            webhook.Verifier([SECRET], allow_legacy=True).verify({"X-Botix-Signature": sign(SECRET, "e", NOW, self.body)["X-Botix-Signature"]}, self.body)
        finally:
            webhook.hmac.compare_digest = orig  # type: ignore[assignment]
        self.assertEqual(len(calls), 2)


class DedupContract:
    """The Deduplicator contract, run for each store."""

    def make(self, clock: Any) -> webhook.Deduplicator:
        raise NotImplementedError

    def test_states(self) -> None:
        t = [1000.0]
        d = self.make(lambda: t[0])
        self.assertIs(d.begin("a"), State.UNSEEN)  # type: ignore[attr-defined]
        self.assertIs(d.begin("a"), State.PROCESSING)  # type: ignore[attr-defined]
        d.forget("a")
        self.assertIs(d.begin("a"), State.UNSEEN)  # type: ignore[attr-defined]
        d.complete("a")
        self.assertIs(d.begin("a"), State.DONE)  # type: ignore[attr-defined]
        d.forget("a")  # a done id stays done
        self.assertIs(d.begin("a"), State.DONE)  # type: ignore[attr-defined]
        self.assertIs(d.begin("b"), State.UNSEEN)  # type: ignore[attr-defined]
        t[0] += 61  # the lease (60 s here) runs out: a crashed processor does not block its event
        self.assertIs(d.begin("b"), State.UNSEEN)  # type: ignore[attr-defined]
        self.assertIs(d.begin("b"), State.PROCESSING)  # type: ignore[attr-defined]
        t[0] += 3601  # the retention (1 h here) runs out
        self.assertIs(d.begin("a"), State.UNSEEN)  # type: ignore[attr-defined]

    rounds = 5

    def test_concurrent_begin_has_one_winner(self) -> None:
        d = self.make(None)
        # A tiny switch interval makes the threads interleave inside begin, where an unguarded
        # check-then-set would let two of them claim the id.
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        self.addCleanup(sys.setswitchinterval, old)  # type: ignore[attr-defined]
        for round_ in range(self.rounds):
            eid = "evt_c%d" % round_
            barrier = threading.Barrier(12)
            got: List[State] = []
            lock = threading.Lock()

            def worker() -> None:
                barrier.wait()
                s = d.begin(eid)
                with lock:
                    got.append(s)

            ts = [threading.Thread(target=worker) for _ in range(12)]
            for th in ts:
                th.start()
            for th in ts:
                th.join()
            self.assertEqual(got.count(State.UNSEEN), 1, got)  # type: ignore[attr-defined]
            self.assertEqual(got.count(State.PROCESSING), 11)  # type: ignore[attr-defined]


class MemoryDedupTest(DedupContract, unittest.TestCase):
    rounds = 300

    def make(self, clock: Any) -> webhook.Deduplicator:
        return webhook.MemoryDeduplicator(lease=60, retention=3600, clock=clock)


class SQLiteFileDedupTest(DedupContract, unittest.TestCase):
    def make(self, clock: Any) -> webhook.Deduplicator:
        tmp = tempfile.mkdtemp()
        path = os.path.join(tmp, "d.sqlite")
        d = webhook.SQLDeduplicator(lambda: sqlite3.connect(path, timeout=30), lease=60, retention=3600, clock=clock)
        d.create_table()
        return d


class SQLiteSharedConnectionDedupTest(DedupContract, unittest.TestCase):
    def make(self, clock: Any) -> webhook.Deduplicator:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        self.addCleanup(conn.close)  # type: ignore[attr-defined]
        d = webhook.SQLDeduplicator(conn, lease=60, retention=3600, clock=clock)
        d.create_table()
        return d


class BrokenStore(webhook.Deduplicator):
    def begin(self, event_id: str) -> State:
        raise OSError("store down")

    def complete(self, event_id: str) -> None:
        raise OSError("store down")

    def forget(self, event_id: str) -> None:
        raise OSError("store down")


class HandlerTest(unittest.TestCase):
    def handler(self, process: Any, dedup: Optional[webhook.Deduplicator] = None, **kw: Any) -> webhook.Handler:
        return webhook.Handler(webhook.Verifier([SECRET], **kw), dedup or webhook.MemoryDeduplicator(), process, clock=lambda: NOW)

    def post(self, h: webhook.Handler, eid: str, body: Optional[bytes] = None, headers: Optional[Dict[str, str]] = None) -> webhook.WebhookResponse:
        body = event_body(eid) if body is None else body
        return h.handle("POST", headers if headers is not None else sign(SECRET, eid, NOW, body), body)

    def test_answers(self) -> None:
        seen: List[str] = []
        fails = {"evt_f"}

        def process(ev: Any) -> None:
            if ev.id in fails:
                fails.discard(ev.id)
                raise RuntimeError("boom")
            seen.append(ev.id)

        h = self.handler(process)
        self.assertEqual(self.post(h, "evt_1").status, 200)
        self.assertEqual(self.post(h, "evt_1").status, 200, "a duplicate is acknowledged")
        self.assertEqual(self.post(h, "evt_f").status, 500)
        self.assertEqual(self.post(h, "evt_f").status, 200, "the failed id was forgotten: the retry processes it")
        self.assertEqual(seen, ["evt_1", "evt_f"])
        self.assertEqual(self.post(h, "evt_2", headers={}).status, 401)
        self.assertEqual(self.post(h, "evt_2", headers=sign(OTHER, "evt_2", NOW, event_body("evt_2"))).status, 401)
        self.assertEqual(h.handle("GET", {}, b"").status, 405)
        big = b" " * (webhook.MAX_BODY + 1)
        self.assertEqual(h.handle("POST", sign(SECRET, "e", NOW, big), big).status, 413)
        self.assertEqual(self.post(h, "evt_3", body=b"[1]").status, 400)
        self.assertNotIn("evt_2", seen)

    def test_processing_copy_is_503_without_retry_after_which_would_pause_the_endpoint(self) -> None:
        dedup = webhook.MemoryDeduplicator()
        inside = threading.Event()
        release = threading.Event()
        seen: List[str] = []

        def process(ev: Any) -> None:
            inside.set()
            release.wait(10)
            seen.append(ev.id)

        h = self.handler(process, dedup)
        first: List[webhook.WebhookResponse] = []
        t = threading.Thread(target=lambda: first.append(self.post(h, "evt_s")))
        t.start()
        self.assertTrue(inside.wait(10))
        copy = self.post(h, "evt_s")
        self.assertEqual(copy.status, 503)
        self.assertNotIn("retry-after", {k.lower() for k in copy.headers})
        release.set()
        t.join()
        self.assertEqual(first[0].status, 200)
        self.assertEqual(self.post(h, "evt_s").status, 200)
        self.assertEqual(seen, ["evt_s"])

    def test_store_down_is_503(self) -> None:
        seen: List[str] = []
        h = self.handler(seen.append, BrokenStore())
        self.assertEqual(self.post(h, "evt_1").status, 503)
        self.assertEqual(seen, [])

    def test_legacy_receiver(self) -> None:
        seen: List[str] = []
        body = event_body("evt_l")
        legacy = {"X-Botix-Signature": sign(SECRET, "evt_l", NOW, body)["X-Botix-Signature"]}
        self.assertEqual(self.handler(seen.append).handle("POST", legacy, body).status, 401)
        self.assertEqual(self.handler(seen.append, allow_legacy=True).handle("POST", legacy, body).status, 200)
        self.assertEqual([e.id for e in seen], ["evt_l"])

    def test_wsgi(self) -> None:
        import io
        seen: List[Any] = []
        h = self.handler(seen.append)
        body = event_body("evt_w")
        environ = {"REQUEST_METHOD": "POST", "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)}
        for k, v in sign(SECRET, "evt_w", NOW, body).items():
            environ["HTTP_" + k.upper().replace("-", "_")] = v
        status: List[str] = []
        h.wsgi(environ, lambda s, headers: status.append(s))
        self.assertEqual(status, ["200 OK"])
        self.assertEqual(seen[0].type, "contact.created")


class ReceiverExampleTest(unittest.TestCase):
    """examples/receiver.py (the README's) serves over http.server and processes a duplicate once."""

    def test_example(self) -> None:
        tmp = tempfile.mkdtemp()
        cwd = os.getcwd()
        os.chdir(tmp)
        self.addCleanup(os.chdir, cwd)
        old = "whsec_" + base64.b64encode(b"an older secret").decode()
        new = "whsec_mGobcTX0mGFQql+gAo/uqmbNrz7WoAo1XdhuBC9/tJQ="
        with unittest.mock.patch.dict(os.environ, {"BOTIX_WEBHOOK_SECRETS": new + ", " + old}):
            mod = self._load_example()
        self.assertEqual(mod.SECRETS, [new, old])
        self._serve(mod, old)

    def _load_example(self):  # type: ignore[no-untyped-def]
        spec = importlib.util.spec_from_file_location("receiver_example", os.path.join(ROOT, "examples", "receiver.py"))
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
        return mod

    def _serve(self, mod, secret: str) -> None:  # type: ignore[no-untyped-def]
        seen: List[str] = []
        mod.handler.process = lambda ev: seen.append(ev.id)
        srv = ThreadingHTTPServer(("127.0.0.1", 0), mod.handler.request_handler_class())
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        import time
        body = event_body("evt_x")
        statuses = []
        for headers in (sign(secret, "evt_x", int(time.time()), body),) * 2 + ({},):
            conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
            conn.request("POST", "/", body=body, headers=headers)
            r = conn.getresponse()
            r.read()
            statuses.append(r.status)
            conn.close()
        self.assertEqual(statuses, [200, 200, 401])
        self.assertEqual(seen, ["evt_x"])


if __name__ == "__main__":
    unittest.main()
