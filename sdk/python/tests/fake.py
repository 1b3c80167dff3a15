"""A local fake HTTP server for the client's tests: scripted answers, recorded requests."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))


class Req:
    def __init__(self, method: str, path: str, headers: Dict[str, str], body: bytes) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    def json(self) -> Any:
        return json.loads(self.body.decode())


class Answer:
    """status/headers/body, or action "reset" (close without answering) or "delay" (sleep first)."""

    def __init__(self, status: int = 200, body: Any = None, headers: Optional[Dict[str, str]] = None,
                 action: str = "", delay: float = 0.0, raw: Optional[bytes] = None) -> None:
        self.status, self.body, self.headers, self.action, self.delay, self.raw = status, body, headers or {}, action, delay, raw


class FakeServer:
    def __init__(self, respond: Callable[[Req], Answer]) -> None:
        self.requests: List[Req] = []
        self.lock = threading.Lock()
        server = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                req = Req(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with server.lock:
                    server.requests.append(req)
                a = respond(req)
                if a.delay:
                    time.sleep(a.delay)
                if a.action == "reset":
                    self.close_connection = True
                    self.connection.close()
                    return
                payload = a.raw if a.raw is not None else (b"" if a.body is None else json.dumps(a.body).encode())
                self.send_response(a.status)
                for k, v in a.headers.items():
                    self.send_header(k, v)
                if a.body is not None or a.raw is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except OSError:
                    pass

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _any

            def log_message(self, *args: Any) -> None:
                return

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                return  # a client that timed out and closed: expected here

        self.httpd = Quiet(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def scripted(answers: List[Answer]) -> Callable[[Req], Answer]:
    """Answers in order; the last one repeats."""
    lock = threading.Lock()
    state = {"i": 0}

    def respond(req: Req) -> Answer:
        with lock:
            i = min(state["i"], len(answers) - 1)
            state["i"] += 1
        return answers[i]

    return respond


def contact(i: int = 1) -> Dict[str, Any]:
    return {"id": "ct_01M8MGFZYD68EJ46SD446DT3Z%d" % (i % 10), "phone": "+7999000000%d" % (i % 10), "name": "n",
            "tags": [], "created_at": "2026-11-29T20:38:39.821Z"}


def envelope(code: str, message: str = "m", field: str = "", details: Optional[Dict[str, str]] = None,
             request_id: str = "req_01M8MH66BDSA24DKGTQX9AMX6H") -> Dict[str, Any]:
    e: Dict[str, Any] = {"code": code, "message": message, "request_id": request_id}
    if field:
        e["field"] = field
    if details:
        e["details"] = details
    return {"error": e}


class Sleeps:
    """An injectable sleeper that records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: List[float] = []

    def __call__(self, d: float) -> None:
        self.waits.append(d)


class MaxRng:
    """A jitter source that always draws the top of the range: the backoff's upper bound."""

    def uniform(self, a: float, b: float) -> float:
        return b
