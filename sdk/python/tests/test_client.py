from __future__ import annotations

import email.utils
import os
import time
import unittest
from typing import Any, Dict, List, Optional
from unittest import mock

from tests.fake import Answer, FakeServer, MaxRng, Req, Sleeps, contact, envelope, scripted

import botix
from botix.client import MAX_ANSWER_BYTES, MAX_ERROR_BYTES

KEY = "bx_test_secretsecretsecretsecretsecretsecret0000"


class ClientCase(unittest.TestCase):
    def serve(self, answers: List[Answer]) -> FakeServer:
        srv = FakeServer(scripted(answers))
        self.addCleanup(srv.close)
        return srv

    def client(self, srv: FakeServer, **kw: Any) -> botix.Client:
        kw.setdefault("sleep", Sleeps())
        kw.setdefault("rng", MaxRng())
        return botix.Client(KEY, base_url=srv.url, **kw)


class RetryTest(ClientCase):
    def test_retried_answers(self) -> None:
        ok = Answer(201, contact())
        cases = [
            ("503 then success", [Answer(503, envelope("SERVICE_UNAVAILABLE")), ok], 2),
            ("429 without envelope", [Answer(429, {"message": "Too Many Requests"}), ok], 2),
            ("500 twice", [Answer(500, envelope("INTERNAL")), Answer(502, raw=b"<html>bad gateway</html>"), ok], 3),
            ("409 in progress", [Answer(409, envelope("IDEMPOTENCY_KEY_IN_PROGRESS"), {"Retry-After": "1"}), ok], 2),
            ("connection reset", [Answer(action="reset"), ok], 2),
        ]
        for name, answers, attempts in cases:
            with self.subTest(name):
                srv = self.serve(answers)
                c = self.client(srv).contacts.create(phone="+79990000001", name="a")
                self.assertEqual(c.response.attempts, attempts)
                self.assertEqual(len(srv.requests), attempts)
                keys = {r.headers.get("idempotency-key") for r in srv.requests}
                self.assertEqual(keys, {c.response.idempotency_key}, "the same key on every attempt")
                self.assertTrue(botix.valid_idempotency_key(c.response.idempotency_key))
                bodies = {r.body for r in srv.requests}
                self.assertEqual(len(bodies), 1, "the same body on every attempt")

    def test_not_retried_answers(self) -> None:
        cases = [
            ("400", 400, "INVALID_PARAMETER"),
            ("401", 401, "UNAUTHORIZED"),
            ("404", 404, "NOT_FOUND"),
            ("409 conflict", 409, "IDEMPOTENCY_KEY_REUSE_CONFLICT"),
            ("409 exists", 409, "CONTACT_ALREADY_EXISTS"),
            ("422", 422, "VALIDATION_FAILED"),
        ]
        for name, status, code in cases:
            with self.subTest(name):
                srv = self.serve([Answer(status, envelope(code, "msg", field="phone", details={"phone": "bad"}),
                                         {"X-Request-Id": "req_header"})])
                with self.assertRaises(botix.APIError) as cm:
                    self.client(srv).contacts.create(phone="+79990000001", name="a")
                e = cm.exception
                self.assertEqual(len(srv.requests), 1)
                self.assertEqual((e.kind, e.status, e.code, e.api_message, e.field, e.details, e.attempts),
                                 ("api", status, code, "msg", "phone", {"phone": "bad"}, 1))
                self.assertEqual(e.request_id, "req_01M8MH66BDSA24DKGTQX9AMX6H", "the envelope's request id wins")
                self.assertEqual(e.idempotency_key, srv.requests[0].headers["idempotency-key"])
                self.assertFalse(e.reissuable)

    def test_gave_up_carries_last_answer(self) -> None:
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE", "down"), {"Retry-After": "2"})])
        with self.assertRaises(botix.GaveUpError) as cm:
            self.client(srv, retry=botix.RetryPolicy(max_attempts=3)).contacts.create(phone="+79990000001", name="a")
        e = cm.exception
        self.assertEqual((e.kind, e.attempts, e.status, e.code, e.retry_after), ("gave_up", 3, 503, "SERVICE_UNAVAILABLE", 2.0))
        self.assertTrue(e.reissuable)
        self.assertEqual(e.reissue(), {"idempotency_key": srv.requests[0].headers["idempotency-key"]})
        self.assertEqual(len(srv.requests), 3)

    def test_max_attempts_one_never_retries(self) -> None:
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE"))])
        with self.assertRaises(botix.GaveUpError) as cm:
            self.client(srv, retry=botix.RetryPolicy(max_attempts=1)).contacts.count()
        self.assertEqual(cm.exception.attempts, 1)
        self.assertEqual(len(srv.requests), 1)

    def test_defaults(self) -> None:
        p = botix.RetryPolicy().with_defaults()
        self.assertEqual((p.max_attempts, p.base_delay, p.max_delay, p.max_retry_after, p.quota_capacity), (5, 0.2, 20.0, 60.0, 500))
        p = botix.RetryPolicy(max_delay=1.0, quota_capacity=-1).with_defaults()
        self.assertEqual((p.max_attempts, p.max_delay, p.quota_capacity), (5, 1.0, -1))

    def test_backoff_bounds(self) -> None:
        cases = [
            ("defaults", botix.RetryPolicy(), [0.2, 0.4, 0.8, 1.6]),
            ("capped by max_delay", botix.RetryPolicy(base_delay=1.0, max_delay=3.0), [1.0, 2.0, 3.0, 3.0]),
        ]
        for name, pol, want in cases:
            with self.subTest(name):
                srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE"))])
                sleeps = Sleeps()
                with self.assertRaises(botix.GaveUpError):
                    self.client(srv, retry=pol, sleep=sleeps).contacts.count()
                self.assertEqual(sleeps.waits, want)

    def test_backoff_is_jittered_within_bounds(self) -> None:
        import random
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE"))])
        sleeps = Sleeps()
        with self.assertRaises(botix.GaveUpError):
            self.client(srv, sleep=sleeps, rng=random.Random(7), retry=botix.RetryPolicy(max_attempts=5)).contacts.count()
        for n, w in enumerate(sleeps.waits, start=1):
            self.assertGreaterEqual(w, 0)
            self.assertLessEqual(w, 0.2 * 2 ** (n - 1))
        self.assertEqual(len(set(sleeps.waits)), 4, "full jitter draws a random wait")

    def test_retry_after(self) -> None:
        date = email.utils.formatdate(time.time() + 30, usegmt=True)
        cases = [
            ("seconds", "3", botix.RetryPolicy(), 3.0, 3.0),
            ("capped", "3600", botix.RetryPolicy(max_retry_after=2.0), 2.0, 2.0),
            ("default cap 60 s", "3600", botix.RetryPolicy(), 60.0, 60.0),
            ("http date", date, botix.RetryPolicy(), 25.0, 31.0),
            ("past date", "Tue, 01 Jan 2019 00:00:00 GMT", botix.RetryPolicy(), 0.0, 0.2),
            ("malformed", "soon", botix.RetryPolicy(), 0.0, 0.2),
        ]
        for name, header, pol, low, high in cases:
            with self.subTest(name):
                srv = self.serve([Answer(429, envelope("LIMIT_EXCEEDED"), {"Retry-After": header}), Answer(201, contact())])
                sleeps = Sleeps()
                c = self.client(srv, retry=pol, sleep=sleeps).contacts.create(phone="+79990000001", name="a")
                self.assertEqual(c.response.attempts, 2)
                self.assertEqual(len(sleeps.waits), 1)
                self.assertGreaterEqual(sleeps.waits[0], low)
                self.assertLessEqual(sleeps.waits[0], high)

    def test_call_timeout_does_not_start_a_retry_it_would_cut(self) -> None:
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE"), {"Retry-After": "30"})])
        sleeps = Sleeps()
        with self.assertRaises(botix.DeadlineExceededError) as cm:
            self.client(srv, sleep=sleeps, call_timeout=5).contacts.create(phone="+79990000001", name="a")
        self.assertEqual((cm.exception.kind, cm.exception.attempts, cm.exception.status), ("deadline", 1, 503))
        self.assertTrue(cm.exception.reissuable)
        self.assertEqual(sleeps.waits, [])


class QuotaTest(ClientCase):
    def test_quota_trips_and_recovers(self) -> None:
        answers = {"fail": True}

        def respond(req: Req) -> Answer:
            return Answer(503, envelope("SERVICE_UNAVAILABLE")) if answers["fail"] else Answer(200, {"total": 1})

        srv = FakeServer(respond)
        self.addCleanup(srv.close)
        c = self.client(srv, retry=botix.RetryPolicy(quota_capacity=12, max_attempts=4))
        with self.assertRaises(botix.RetryQuotaExhaustedError) as cm:
            c.contacts.count()
        # 12 tokens: two retries (5 each), the third is refused.
        self.assertEqual((cm.exception.kind, cm.exception.attempts, cm.exception.status), ("quota", 3, 503))
        self.assertTrue(cm.exception.reissuable)
        with self.assertRaises(botix.RetryQuotaExhaustedError) as cm:
            c.contacts.count()
        self.assertEqual(cm.exception.attempts, 1, "an empty bucket stops retries")
        answers["fail"] = False
        for _ in range(3):
            self.assertEqual(c.contacts.count().response.attempts, 1)  # each success gives back 1
        answers["fail"] = True
        with self.assertRaises(botix.RetryQuotaExhaustedError) as cm:
            c.contacts.count()
        self.assertEqual(cm.exception.attempts, 2, "2 + 3 tokens allowed one retry again")

    def test_timeouts_cost_more(self) -> None:
        srv = self.serve([Answer(action="reset")])
        c = self.client(srv, retry=botix.RetryPolicy(quota_capacity=25, max_attempts=10))
        with self.assertRaises(botix.RetryQuotaExhaustedError) as cm:
            c.contacts.count()
        self.assertEqual(cm.exception.attempts, 3, "10 tokens per retry after a connection error")
        self.assertIsInstance(cm.exception.last, botix.TransportError)

    def test_in_progress_costs_nothing(self) -> None:
        srv = self.serve([Answer(409, envelope("IDEMPOTENCY_KEY_IN_PROGRESS"), {"Retry-After": "1"})] * 4 + [Answer(201, contact())])
        c = self.client(srv, retry=botix.RetryPolicy(quota_capacity=5, max_attempts=5))
        self.assertEqual(c.contacts.create(phone="+79990000001", name="a").response.attempts, 5)

    def test_negative_capacity_is_no_quota(self) -> None:
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE"))])
        c = self.client(srv, retry=botix.RetryPolicy(quota_capacity=-1, max_attempts=6))
        for _ in range(3):
            with self.assertRaises(botix.GaveUpError) as cm:
                c.contacts.count()
            self.assertEqual(cm.exception.attempts, 6)


class TransportTest(ClientCase):
    def test_attempt_timeout_is_retried_with_the_same_key(self) -> None:
        srv = self.serve([Answer(201, contact(), delay=1.5), Answer(201, contact())])
        c = self.client(srv, attempt_timeout=0.3)
        got = c.contacts.create(phone="+79990000001", name="a")
        self.assertEqual(got.response.attempts, 2)
        self.assertEqual(len({r.headers["idempotency-key"] for r in srv.requests}), 1)
        self.assertEqual(c._quota.tokens, 500, "a success gives back what its retry took (10)")

    def test_timeouts_give_up_as_timeout(self) -> None:
        srv = self.serve([Answer(200, {"total": 1}, delay=1.0)])
        with self.assertRaises(botix.GaveUpError) as cm:
            self.client(srv, attempt_timeout=0.2, retry=botix.RetryPolicy(max_attempts=2)).contacts.count()
        self.assertIsInstance(cm.exception.last, botix.AttemptTimeoutError)
        self.assertEqual(cm.exception.last.kind, "timeout")

    def test_connection_refused(self) -> None:
        srv = self.serve([Answer(200)])
        url = srv.url
        srv.close()
        with self.assertRaises(botix.GaveUpError) as cm:
            botix.Client(KEY, base_url=url, sleep=Sleeps(), retry=botix.RetryPolicy(max_attempts=2)).contacts.create(phone="+79990000001", name="a")
        e = cm.exception
        self.assertEqual((e.status, e.attempts), (0, 2))
        self.assertIsInstance(e.last, botix.TransportError)
        self.assertTrue(e.reissuable and e.idempotency_key)

    def test_redirect_is_refused(self) -> None:
        other = self.serve([Answer(201, contact())])
        for status in (301, 302, 303, 307, 308):
            with self.subTest(status):
                srv = self.serve([Answer(status, None, {"Location": other.url + "/public/v1/contacts"})])
                with self.assertRaises(botix.APIError) as cm:
                    self.client(srv).contacts.create(phone="+79990000001", name="a")
                self.assertEqual(cm.exception.status, status)
                self.assertIn("redirect", str(cm.exception))
                self.assertFalse(cm.exception.reissuable)
                self.assertEqual(len(srv.requests), 1)
        self.assertEqual(other.requests, [], "the Authorization header never goes elsewhere")

    def test_error_body_read_up_to_64_kib(self) -> None:
        body = b'{"error":{"code":"VALIDATION_FAILED","message":"m","request_id":"req_x","pad":"' + b"x" * MAX_ERROR_BYTES + b'"}}'
        small = b'{"error":{"code":"VALIDATION_FAILED","message":"m","request_id":"req_x","pad":"' + b"x" * 100 + b'"}}'
        for name, raw, code in (("over the limit: cut, the envelope does not decode", body, ""), ("under", small, "VALIDATION_FAILED")):
            with self.subTest(name):
                srv = self.serve([Answer(422, raw=raw)])
                with self.assertRaises(botix.APIError) as cm:
                    self.client(srv).contacts.create(phone="+79990000001", name="a")
                self.assertEqual((cm.exception.status, cm.exception.code), (422, code))

    def test_answer_read_up_to_8_mib(self) -> None:
        big = b'{"total":1,"pad":"' + b"x" * MAX_ANSWER_BYTES + b'"}'
        srv = self.serve([Answer(200, raw=big)])
        with self.assertRaises(botix.DecodeError) as cm:
            self.client(srv).contacts.count()
        self.assertFalse(cm.exception.reissuable)
        ok = b'{"total":1,"pad":"' + b"x" * (MAX_ANSWER_BYTES - 100) + b'"}'
        srv = self.serve([Answer(200, raw=ok)])
        self.assertEqual(self.client(srv).contacts.count().total, 1)


class KeyTest(ClientCase):
    def test_caller_key(self) -> None:
        cases = [
            ("uuid v4", "0b6c1f0e-3f4a-4c1e-9d2a-7f1e2d3c4b5a", True),
            ("ulid", "01M8MH66BDSA24DKGTQX9AMX6H", True),
            ("uuid v1", "0b6c1f0e-3f4a-1c1e-9d2a-7f1e2d3c4b5a", False),
            ("ulid over 128 bits", "81M8MH66BDSA24DKGTQX9AMX6H", False),
            ("ulid with I", "01M8MH66BDSA24DKGTQX9AMXIH", False),
            ("empty", "", False),
            ("junk", "not-a-key", False),
        ]
        for name, key, ok in cases:
            with self.subTest(name):
                srv = self.serve([Answer(201, contact())])
                c = self.client(srv)
                if ok:
                    got = c.contacts.create(phone="+79990000001", name="a", idempotency_key=key)
                    self.assertEqual(got.response.idempotency_key, key)
                    self.assertEqual(srv.requests[0].headers["idempotency-key"], key)
                else:
                    with self.assertRaises(botix.InvalidIdempotencyKeyError) as cm:
                        c.contacts.create(phone="+79990000001", name="a", idempotency_key=key)
                    self.assertEqual((cm.exception.kind, cm.exception.attempts), ("invalid_key", 0))
                    self.assertFalse(cm.exception.reissuable)
                    self.assertEqual(srv.requests, [], "nothing sent")

    def test_one_key_per_call(self) -> None:
        srv = self.serve([Answer(201, contact())])
        c = self.client(srv)
        a = c.contacts.create(phone="+79990000001", name="a")
        b = c.contacts.create(phone="+79990000001", name="a")
        self.assertNotEqual(a.response.idempotency_key, b.response.idempotency_key)
        self.assertEqual(str(__import__("uuid").UUID(a.response.idempotency_key).version), "4")

    def test_get_sends_no_key_and_reissue_reuses_it(self) -> None:
        srv = self.serve([Answer(200, {"total": 3})])
        self.client(srv).contacts.count()
        self.assertNotIn("idempotency-key", srv.requests[0].headers)
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE")), Answer(201, contact(), {"Idempotent-Replayed": "true", "X-Request-Id": "req_2"})])
        c = self.client(srv, retry=botix.RetryPolicy(max_attempts=1))
        with self.assertRaises(botix.GaveUpError) as cm:
            c.contacts.create(phone="+79990000001", name="a")
        again = c.contacts.create(phone="+79990000001", name="a", **cm.exception.reissue())
        self.assertTrue(again.response.replayed)
        self.assertEqual(again.response.request_id, "req_2")
        self.assertEqual(srv.requests[0].headers["idempotency-key"], srv.requests[1].headers["idempotency-key"])


class HeadersTest(ClientCase):
    def test_headers_and_secrecy(self) -> None:
        srv = self.serve([Answer(401, envelope("UNAUTHORIZED"))])
        with self.assertLogs("botix", level="DEBUG") as logs:
            with self.assertRaises(botix.APIError) as cm:
                self.client(srv, user_agent="my-crm/2.3").contacts.create(phone="+79990000001", name="a")
        h = srv.requests[0].headers
        self.assertEqual(h["authorization"], "Bearer " + KEY)
        self.assertEqual(h["user-agent"], "botix-python/%s my-crm/2.3" % botix.__version__)
        self.assertEqual(h["content-type"], "application/json")
        self.assertEqual(srv.requests[0].json(), {"phone": "+79990000001", "name": "a"})
        self.assertNotIn(KEY, str(cm.exception))
        self.assertNotIn(KEY, repr(cm.exception.__dict__))
        self.assertNotIn(KEY, repr(self.client(srv)))
        self.assertNotIn(KEY, "\n".join(logs.output))

    def test_retry_logs_never_hold_the_key(self) -> None:
        srv = self.serve([Answer(503, envelope("SERVICE_UNAVAILABLE")), Answer(200, {"total": 1})])
        with self.assertLogs("botix", level="INFO") as logs:
            self.client(srv).contacts.count()
        self.assertEqual(len(logs.output), 1)
        self.assertIn("retrying GET /contacts/count", logs.output[0])
        self.assertNotIn(KEY, logs.output[0])

    def test_base_url(self) -> None:
        with mock.patch.dict(os.environ, {"BOTIX_API_URL": "http://example.invalid:9/"}):
            self.assertEqual(botix.Client(KEY).base_url, "http://example.invalid:9")
            self.assertEqual(botix.Client(KEY, base_url="http://h:1").base_url, "http://h:1")
        env = dict(os.environ)
        env.pop("BOTIX_API_URL", None)
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(botix.Client(KEY).base_url, "http://127.0.0.1:8080")
            with self.assertRaises(ValueError):
                botix.Client("")

    def test_base_path_and_escaping(self) -> None:
        srv = self.serve([Answer(200, contact())])
        botix.Client(KEY, base_url=srv.url + "/api/").contacts.get("ct_a/b?c")
        self.assertEqual(srv.requests[0].path, "/api/public/v1/contacts/ct_a%2Fb%3Fc")


if __name__ == "__main__":
    unittest.main()
