"""The SDK against the repository's contract: template.yaml's routes, the server's codes, openapi.yaml's schemas."""

from __future__ import annotations

import os
import re
import unittest
from typing import Any, Dict, List, Set, Tuple

from tests.fake import ROOT, Answer, FakeServer, Req

import botix
from botix import types as T

REPO = os.path.abspath(os.path.join(ROOT, "..", ".."))
KEY = "bx_test_contract"


def read(*parts: str) -> str:
    with open(os.path.join(REPO, *parts), encoding="utf-8") as f:
        return f.read()


def template_routes() -> Set[Tuple[str, str]]:
    found = re.findall(r'Method:\s*(\w+),\s*Path:\s*(?:"(/public/v1[^"]*)"|(/public/v1[^\s}]*))', read("template.yaml"))
    return {(m, re.sub(r"\{[^}]+\}", "{}", q or p)) for m, q, p in found}


class RoutesTest(unittest.TestCase):
    def test_route_table_is_template_yaml(self) -> None:
        ours = {(r.method, re.sub(r"\{[^}]+\}", "{}", r.full())) for r in botix.ROUTES}
        want = template_routes()
        self.assertGreaterEqual(len(want), 28)
        self.assertEqual(ours, want)

    def test_every_method_calls_its_route(self) -> None:
        """Calls every public method against a fake server and compares the routes seen with ROUTES."""
        def respond(req: Req) -> Answer:
            if req.path.endswith("/changelog.atom"):
                return Answer(200, raw=b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id><title>t</title></entry></feed>')
            if req.method == "GET" and not re.search(r"/(ct|we|dlv|evt)_x$|/count$|/stats$|/current$|/openapi.json$|/error-codes$", req.path.split("?")[0]):
                return Answer(200, {"data": [], "next_cursor": None, "has_more": False})
            return Answer(200, {})

        srv = FakeServer(respond)
        self.addCleanup(srv.close)
        c = botix.Client(KEY, base_url=srv.url)
        c.contacts.create(phone="+79990000000", name="n")
        c.contacts.get("ct_x")
        c.contacts.count()
        list(c.contacts.list())
        c.messages.send(contact_id="ct_x", text="hi")
        list(c.messages.list())
        c.catalog.create_import([{"sku": "a", "name": "A", "price": 1}])
        c.scenarios.run("welcome", contact_id="ct_x")
        c.webhook_endpoints.create(url="https://example.invalid/h", events=["*"])
        list(c.webhook_endpoints.list())
        c.webhook_endpoints.get("we_x")
        c.webhook_endpoints.update("we_x", enabled=True)
        c.webhook_endpoints.delete("we_x")
        c.webhook_endpoints.rotate_secret("we_x")
        c.webhook_endpoints.test("we_x")
        c.webhook_endpoints.recover("we_x", since="2026-11-29T00:00:00Z")
        list(c.deliveries.list(delivery_id="dlv_x", request_id="req_x"))
        c.deliveries.stats()
        c.deliveries.get("dlv_x")
        c.deliveries.retry("dlv_x")
        c.deliveries.redirect("dlv_x", inspector_id="insp_x")
        c.inspectors.create()
        list(c.inspectors.requests("insp_x"))
        list(c.events.list())
        c.events.get("evt_x")
        c.dashboard_sessions.create("read", ttl_seconds=600)
        c.dashboard_sessions.current()
        list(c.dashboard_sessions.list())
        c.dashboard_sessions.delete("dss_x")
        c.openapi()
        c.error_codes()
        self.assertEqual(c.changelog()[0].id, "x")
        seen = {(r.method, re.sub(r"/(ct|we|dlv|evt|insp|dss)_x|/welcome/", lambda m: "/{}" + ("/" if m.group(0).endswith("/") else ""),
                                  r.path.split("?")[0])) for r in srv.requests}
        want = {(r.method, re.sub(r"\{[^}]+\}", "{}", r.full())) for r in botix.ROUTES}
        self.assertEqual(seen, want)
        deliveries = next(r for r in srv.requests if r.method == "GET" and r.path.split("?")[0].endswith("/webhook-deliveries"))
        self.assertIn("delivery_id=dlv_x", deliveries.path)
        self.assertIn("request_id=req_x", deliveries.path)
        for r in srv.requests:
            if r.method != "GET":
                self.assertTrue(botix.valid_idempotency_key(r.headers.get("idempotency-key", "")), r.path)
            else:
                self.assertNotIn("idempotency-key", r.headers)


class CodesTest(unittest.TestCase):
    def test_codes_are_the_servers(self) -> None:
        server = re.findall(r'^\s+\w+\s+Code = "([A-Z_]+)"', read("internal", "apierr", "apierr.go"), re.M)
        self.assertGreaterEqual(len(server), 18)
        self.assertEqual(sorted(botix.ERROR_CODES), sorted(server))


class SchemasTest(unittest.TestCase):
    """Each type's fields are its component schema's properties (openapi.yaml, read with PyYAML)."""

    @classmethod
    def setUpClass(cls) -> None:
        import yaml  # Debian python3-yaml: a test dependency, never a runtime one

        cls.doc = yaml.safe_load(read("sdk", "openapi.yaml"))

    def properties(self, name: str) -> List[str]:
        s = self.doc["components"]["schemas"][name]
        return sorted(s.get("properties", {}))

    def test_types_have_the_documents_fields(self) -> None:
        ours = T.schema_models()
        for name, fields in ours.items():
            with self.subTest(name):
                self.assertEqual(fields, self.properties(name))

    def test_inline_types(self) -> None:
        s = self.doc["components"]["schemas"]
        self.assertEqual(sorted(T.CatalogItem.json_fields()), sorted(s["CatalogImportCreate"]["properties"]["items"]["items"]["properties"]))
        self.assertEqual(sorted(T.StatsBucket.json_fields()), sorted(s["DeliveryStats"]["properties"]["buckets"]["items"]["properties"]))
        self.assertEqual(sorted(T.ErrorBody.json_fields()), sorted(s["Error"]["properties"]["error"]["properties"]))

    def test_every_schema_of_a_public_operation_has_a_type(self) -> None:
        comps = self.doc["components"]
        needed: Set[str] = set()

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str):
                    kind, name = ref.split("/")[-2:]
                    if kind == "schemas" and name not in needed:
                        needed.add(name)
                        walk(comps["schemas"][name])
                    elif kind == "responses":
                        walk(comps["responses"][name])
                    elif kind == "requestBodies":
                        walk(comps["requestBodies"][name])
                for k, v in node.items():
                    if k != "$ref":
                        walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        for path, ops in self.doc["paths"].items():
            if not path.startswith("/public/v1"):
                continue
            for method, op in ops.items():
                if isinstance(op, dict) and method in ("get", "post", "patch", "delete", "put"):
                    walk(op.get("requestBody"))
                    walk(op.get("responses"))
        objects = {n for n in needed if "properties" in comps["schemas"][n] and "OffsetPage" not in n}
        missing = objects - set(T.schema_models())
        self.assertEqual(missing, set())

    def test_round_trip(self) -> None:
        raw = {"id": "we_1", "url": "https://x", "events": ["*"], "enabled": True, "secret": "whsec_x",
               "created_at": "t", "updated_at": "t", "consecutive_failures": 0, "unknown": 1}
        e = T.WebhookEndpointWithSecret.from_json(raw)
        self.assertEqual(e.secret, "whsec_x")
        self.assertNotIn("whsec_x", repr(e), "the secret stays out of repr (logs)")
        d = T.DeliveryDetail.from_json({"id": "dlv_1", "attempts": [{"attempt": 1, "kind": "scheduled"}], "payload": {"a": 1}})
        self.assertIsInstance(d.attempts[0], T.Attempt)
        self.assertEqual(T.ContactCreate(phone="+7", name="n").to_json(), {"phone": "+7", "name": "n"})


class EndpointLimitsTest(unittest.TestCase):
    """rate_limit and max_concurrency go out as given (NO_LIMIT as null); the throttle comes back typed."""

    def setUp(self) -> None:
        self.answer: Dict[str, Any] = {"id": "we_1"}
        self.srv = FakeServer(lambda req: Answer(200, self.answer))
        self.addCleanup(self.srv.close)
        self.c = botix.Client(KEY, base_url=self.srv.url)

    def test_bodies_sent(self) -> None:
        ep = self.c.webhook_endpoints
        cases = [
            ("create with limits", lambda: ep.create("https://x.invalid/h", ["*"], rate_limit=20, max_concurrency=4),
             {"url": "https://x.invalid/h", "events": ["*"], "rate_limit": 20, "max_concurrency": 4}),
            ("create without", lambda: ep.create("https://x.invalid/h", ["*"]), {"url": "https://x.invalid/h", "events": ["*"]}),
            ("update leaves None out", lambda: ep.update("we_1", description="d"), {"description": "d"}),
            ("update sets", lambda: ep.update("we_1", rate_limit=50), {"rate_limit": 50}),
            ("NO_LIMIT removes", lambda: ep.update("we_1", rate_limit=botix.NO_LIMIT, max_concurrency=2),
             {"rate_limit": None, "max_concurrency": 2}),
        ]
        for name, call, want in cases:
            with self.subTest(name):
                call()
                self.assertEqual(self.srv.requests[-1].json(), want)

    def test_throttle_read(self) -> None:
        cases = [
            ("none", {"id": "we_1"}, None, None, None),
            ("paused", {"id": "we_1", "rate_limit": 20, "throttle": {"paused_until": "2026-12-01T10:00:30Z", "throttled_by": "http_429"}},
             20, None, T.EndpointThrottle(throttled_by="http_429", paused_until="2026-12-01T10:00:30Z")),
            ("slowed", {"id": "we_1", "max_concurrency": 4, "throttle": {"effective_rate": 5.2, "throttled_by": "http_503"}},
             None, 4, T.EndpointThrottle(throttled_by="http_503", effective_rate=5.2)),
        ]
        for name, answer, rate, in_flight, throttle in cases:
            with self.subTest(name):
                self.answer = answer
                e = self.c.webhook_endpoints.get("we_1")
                self.assertEqual((e.rate_limit, e.max_concurrency, e.throttle), (rate, in_flight, throttle))

    def test_health_read(self) -> None:
        self.answer = {"id": "we_1", "health": {"state": "paused", "cause": "http_429", "since": "2026-12-01T10:00:00Z", "until": "2026-12-01T10:00:30Z", "failed_attempts": 2}}
        e = self.c.webhook_endpoints.get("we_1")
        self.assertEqual(e.health, T.EndpointHealth(state="paused", cause="http_429", since="2026-12-01T10:00:00Z", until="2026-12-01T10:00:30Z", failed_attempts=2))
        self.answer = {"id": "we_1"}
        self.assertIsNone(self.c.webhook_endpoints.get("we_1").health)

    def test_recovery_outcomes_read(self) -> None:
        self.answer = {"id": "we_1", "recovery": {"id": "rcv_1", "status": "running", "since": "s", "until": "u", "queued": 100,
                                                  "skipped": 2, "delivered": 61, "failed": 3, "created_at": "c", "updated_at": "u"}}
        r = self.c.webhook_endpoints.get("we_1").recovery
        self.assertEqual((r.queued, r.delivered, r.failed, r.skipped), (100, 61, 3, 2))

    def test_no_limit_is_one_value(self) -> None:
        self.assertIs(T.NoLimit(), botix.NO_LIMIT)
        self.assertEqual(repr(botix.NO_LIMIT), "NO_LIMIT")


if __name__ == "__main__":
    unittest.main()
