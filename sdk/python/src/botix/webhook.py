"""The receiver kit for BOTIX webhooks: verify, de-duplicate, serve.

What BOTIX sends::

    POST <your URL>
    X-Botix-Signature: <hex HMAC-SHA256 of the body>[,<hex> per further active secret]
    webhook-id: evt_...            (the event id; the same on every retry)
    webhook-timestamp: <unix seconds>
    webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> [v1,... per further secret]

Both headers carry one signature per active secret (two or more for 24 hours
after a rotation). :class:`Verifier` judges a request by webhook-signature,
which is timestamped; X-Botix-Signature alone is accepted only with
``allow_legacy``. The HMAC key is the base64 part of the secret
(``whsec_<base64>``). Delivery is at-least-once: :class:`Handler` processes
each event id once with a :class:`Deduplicator` (in memory, or SQL on any
DB-API 2.0 connection).
"""

from __future__ import annotations

import abc
import base64
import binascii
import enum
import hashlib
import hmac
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Type, Union

from .types import Event, ThinEvent

__all__ = [
    "DEFAULT_TOLERANCE", "MAX_BODY", "DEFAULT_LEASE", "DEFAULT_RETENTION",
    "VerificationError", "NoSignatureError", "UntimedSignatureError", "BadSignatureError", "BadTimestampError",
    "StaleError", "BadSecretError", "Verifier", "verify", "State", "Deduplicator", "MemoryDeduplicator",
    "SQLDeduplicator", "Handler", "WebhookResponse", "parse_event",
]

#: How far webhook-timestamp may be from now, in seconds.
DEFAULT_TOLERANCE = 300.0
#: The largest body the handler reads (BOTIX sends at most 64 KB).
MAX_BODY = 1 << 20
#: How long a processing claim holds before a redelivery may take it over (seconds).
DEFAULT_LEASE = 300.0
#: How long processed event ids are remembered (seconds): longer than BOTIX's retry window.
DEFAULT_RETENTION = 72 * 3600.0

log = logging.getLogger("botix.webhook")


class VerificationError(Exception):
    """A request that does not verify."""


class NoSignatureError(VerificationError):
    """Neither X-Botix-Signature nor webhook-signature."""


class UntimedSignatureError(VerificationError):
    """Only X-Botix-Signature, which carries no timestamp (see ``allow_legacy``)."""


class BadSignatureError(VerificationError):
    """No signature matches any of the secrets."""


class BadTimestampError(VerificationError):
    """webhook-timestamp is missing or not a number."""


class StaleError(VerificationError):
    """webhook-timestamp is outside the tolerance (a replay?)."""


class BadSecretError(VerificationError):
    """A secret is not whsec_ followed by base64."""


def _key(secret: str) -> bytes:
    if not secret.startswith("whsec_"):
        raise BadSecretError("webhook: secret must be whsec_ followed by base64")
    try:
        k = base64.b64decode(secret[len("whsec_"):], validate=True)
    except (binascii.Error, ValueError):
        raise BadSecretError("webhook: secret must be whsec_ followed by base64") from None
    if not k:
        raise BadSecretError("webhook: secret must be whsec_ followed by base64")
    return k


def _headers(headers: Union[Mapping[str, str], Iterable[Tuple[str, str]], Any]) -> Dict[str, str]:
    """Case-insensitive view of request headers (a dict, an email.message.Message, pairs)."""
    items = headers.items() if hasattr(headers, "items") else headers
    out: Dict[str, str] = {}
    for k, v in items:
        out.setdefault(str(k).lower(), str(v))
    return out


def _any_match(keys: Sequence[bytes], expected: Callable[[bytes], bytes], candidates: Sequence[str]) -> bool:
    ok = False
    for k in keys:
        want = expected(k)
        for c in candidates:
            if hmac.compare_digest(want, c.encode("utf-8", "replace")):
                ok = True
    return ok


class Verifier:
    """Verifies requests with the endpoint's secrets (several during a rotation).

    ``tolerance`` bounds |now - webhook-timestamp| in seconds (default 300).
    ``allow_legacy`` also accepts a request signed with X-Botix-Signature
    alone (no timestamp: a captured one can be replayed at any time; leave it
    off unless you must). A request that carries webhook-signature is judged
    by it alone, with or without ``allow_legacy``. Comparisons are constant-time.
    """

    def __init__(self, secrets: Sequence[str], *, tolerance: float = 0, allow_legacy: bool = False) -> None:
        self.secrets = list(secrets)
        self.tolerance = tolerance if tolerance and tolerance > 0 else DEFAULT_TOLERANCE
        self.allow_legacy = allow_legacy

    def verify(self, headers: Any, body: bytes, now: Optional[float] = None) -> None:
        """Raises a VerificationError subclass unless the request verifies."""
        keys = [_key(s) for s in self.secrets]
        h = _headers(headers)
        std = h.get("webhook-signature", "")
        legacy = h.get("x-botix-signature", "")
        if std:
            # A bad webhook-signature is not excused by X-Botix-Signature.
            self._verify_standard(keys, h, body, std, time.time() if now is None else now)
            return
        if not legacy:
            raise NoSignatureError("webhook: no X-Botix-Signature or webhook-signature header")
        if not self.allow_legacy:
            raise UntimedSignatureError("webhook: only X-Botix-Signature, which carries no timestamp; webhook-signature is required")
        candidates = [c.strip().lower() for c in legacy.split(",")]
        if not _any_match(keys, lambda k: hmac.new(k, body, hashlib.sha256).hexdigest().encode(), candidates):
            raise BadSignatureError("webhook: signature does not match")

    def _verify_standard(self, keys: Sequence[bytes], h: Dict[str, str], body: bytes, sigs: str, now: float) -> None:
        raw_ts = h.get("webhook-timestamp", "").strip()
        if not raw_ts or not (raw_ts.isdigit() or (raw_ts[0] == "-" and raw_ts[1:].isdigit())):
            raise BadTimestampError("webhook: invalid webhook-timestamp")
        ts = int(raw_ts)
        if abs(now - ts) > self.tolerance:
            raise StaleError("webhook: timestamp outside the tolerance")
        msg_id = h.get("webhook-id", "")
        candidates = []
        for part in sigs.split():
            version, sep, sig = part.partition(",")
            if sep and version == "v1":
                candidates.append(sig)
        prefix = ("%s.%d." % (msg_id, ts)).encode("utf-8")

        def signed(k: bytes) -> bytes:
            return base64.b64encode(hmac.new(k, prefix + body, hashlib.sha256).digest())

        if not _any_match(keys, signed, candidates):
            raise BadSignatureError("webhook: signature does not match")


def verify(secrets: Sequence[str], headers: Any, body: bytes, now: Optional[float] = None) -> None:
    """``Verifier(secrets).verify(headers, body, now)``: the default tolerance, no legacy."""
    Verifier(secrets).verify(headers, body, now)


def parse_event(body: bytes) -> Event:
    """The event a webhook body carries (a ThinEvent when ``thin`` is true)."""
    raw = json.loads(body.decode("utf-8"))
    if not isinstance(raw, dict):
        raise ValueError("not a BOTIX event")
    cls: Type[Event] = ThinEvent if raw.get("thin") is True else Event
    return cls.from_json(raw)


# --- de-duplication ---------------------------------------------------------


class State(enum.Enum):
    """What a deduplicator knew about an event id when ``begin`` was called."""

    #: Not seen, forgotten (its processing failed) or its lease ran out: the caller now holds the claim.
    UNSEEN = "unseen"
    #: Another copy is being processed under a live lease: neither process nor acknowledge.
    PROCESSING = "processing"
    #: Processed: acknowledge, do not process again.
    DONE = "done"


class Deduplicator(abc.ABC):
    """The store interface: event ids in three states, unseen, processing (under a lease), done.

    Of concurrent ``begin`` calls with one unseen id, exactly one returns
    UNSEEN. An exception from any method means the store could not be asked.
    Implement it for another store (Redis, DynamoDB...), or use
    :class:`MemoryDeduplicator` or :class:`SQLDeduplicator`.
    """

    @abc.abstractmethod
    def begin(self, event_id: str) -> State:
        """Claims the id for processing and reports the state found; an expired lease is UNSEEN again."""

    @abc.abstractmethod
    def complete(self, event_id: str) -> None:
        """Records the id as done (for the retention) after processing succeeded."""

    @abc.abstractmethod
    def forget(self, event_id: str) -> None:
        """Releases a processing id after its processing failed; leaves a done id done."""


class MemoryDeduplicator(Deduplicator):
    """Event ids in process memory (thread-safe): for one process, and for tests."""

    def __init__(self, *, lease: float = 0, retention: float = 0, clock: Optional[Callable[[], float]] = None) -> None:
        self.lease = lease if lease > 0 else DEFAULT_LEASE
        self.retention = retention if retention > 0 else DEFAULT_RETENTION
        self._clock = clock or time.time
        self._lock = threading.Lock()
        self._seen: Dict[str, Tuple[bool, float]] = {}  # id -> (done, until)

    def begin(self, event_id: str) -> State:
        with self._lock:
            now = self._clock()
            entry = self._seen.get(event_id)
            if entry is not None and now < entry[1]:
                return State.DONE if entry[0] else State.PROCESSING
            if len(self._seen) > 100000:
                for k in [k for k, e in self._seen.items() if now >= e[1]]:
                    del self._seen[k]
            self._seen[event_id] = (False, now + self.lease)
            return State.UNSEEN

    def complete(self, event_id: str) -> None:
        with self._lock:
            self._seen[event_id] = (True, self._clock() + self.retention)

    def forget(self, event_id: str) -> None:
        with self._lock:
            entry = self._seen.get(event_id)
            if entry is not None and not entry[0]:
                del self._seen[event_id]


class SQLDeduplicator(Deduplicator):
    """Event ids in a SQL table, through any DB-API 2.0 connection (sqlite3, psycopg, mysql...).

    ``db`` is a connection (shared, used under a lock, never closed) or a
    callable returning a new connection per operation (closed after it).
    ``paramstyle`` is the driver's: "qmark" (sqlite3) or "format" (%s).
    Call :meth:`create_table` once. The claim is one conditional UPDATE or
    one INSERT on the primary key, so concurrent processes sharing the table
    agree on a single claimer.
    """

    def __init__(self, db: Any, *, table: str = "botix_webhook_events", paramstyle: str = "qmark",
                 lease: float = 0, retention: float = 0, clock: Optional[Callable[[], float]] = None) -> None:
        if not table.replace("_", "").isalnum():
            raise ValueError("table must be an identifier")
        if paramstyle not in ("qmark", "format"):
            raise ValueError("paramstyle must be qmark or format")
        self._db = db
        self._shared = hasattr(db, "cursor")
        self._lock = threading.Lock()
        self.table = table
        self._p = "?" if paramstyle == "qmark" else "%s"
        self.lease = lease if lease > 0 else DEFAULT_LEASE
        self.retention = retention if retention > 0 else DEFAULT_RETENTION
        self._clock = clock or time.time

    def _run(self, fn: Callable[[Any], Any]) -> Any:
        if self._shared:
            with self._lock:
                return self._tx(self._db, fn)
        conn = self._db()
        try:
            return self._tx(conn, fn)
        finally:
            conn.close()

    @staticmethod
    def _tx(conn: Any, fn: Callable[[Any], Any]) -> Any:
        try:
            out = fn(conn)
            conn.commit()
            return out
        except BaseException:
            conn.rollback()
            raise

    def _q(self, sql: str) -> str:
        return sql.replace("?", self._p).replace("{t}", self.table)

    def create_table(self) -> None:
        def fn(conn: Any) -> None:
            cur = conn.cursor()
            cur.execute(self._q("CREATE TABLE IF NOT EXISTS {t} (event_id VARCHAR(255) PRIMARY KEY, "
                                "state VARCHAR(16) NOT NULL, until_ms BIGINT NOT NULL)"))
        self._run(fn)

    def _ms(self, delta: float = 0.0) -> int:
        return int((self._clock() + delta) * 1000)

    def begin(self, event_id: str) -> State:
        now = self._ms()

        def take_over(conn: Any) -> bool:
            cur = conn.cursor()
            cur.execute(self._q("UPDATE {t} SET state = 'processing', until_ms = ? WHERE event_id = ? AND until_ms <= ?"),
                        (self._ms(self.lease), event_id, now))
            return bool(cur.rowcount == 1)

        def read(conn: Any) -> Optional[Tuple[str, int]]:
            cur = conn.cursor()
            cur.execute(self._q("SELECT state, until_ms FROM {t} WHERE event_id = ?"), (event_id,))
            row = cur.fetchone()
            return (str(row[0]), int(row[1])) if row else None

        def insert(conn: Any) -> None:
            cur = conn.cursor()
            cur.execute(self._q("INSERT INTO {t} (event_id, state, until_ms) VALUES (?, 'processing', ?)"),
                        (event_id, self._ms(self.lease)))

        if self._run(take_over):
            return State.UNSEEN  # an expired claim or an expired done id: taken over
        row = self._run(read)
        if row is None:
            try:
                self._run(insert)
                return State.UNSEEN
            except Exception:
                row = self._run(read)  # another process inserted it first
                if row is None:
                    raise
        if row[1] <= now:
            return State.UNSEEN if self._run(take_over) else State.PROCESSING
        return State.DONE if row[0] == "done" else State.PROCESSING

    def complete(self, event_id: str) -> None:
        until = self._ms(self.retention)

        def fn(conn: Any) -> None:
            cur = conn.cursor()
            cur.execute(self._q("UPDATE {t} SET state = 'done', until_ms = ? WHERE event_id = ?"), (until, event_id))
            if cur.rowcount != 1:
                cur.execute(self._q("INSERT INTO {t} (event_id, state, until_ms) VALUES (?, 'done', ?)"), (event_id, until))
        self._run(fn)

    def forget(self, event_id: str) -> None:
        def fn(conn: Any) -> None:
            conn.cursor().execute(self._q("DELETE FROM {t} WHERE event_id = ? AND state = 'processing'"), (event_id,))
        self._run(fn)


# --- the handler -------------------------------------------------------------


class WebhookResponse:
    """What the handler answers: status, headers, body."""

    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, body: str = "", headers: Optional[Dict[str, str]] = None) -> None:
        self.status = status
        self.body = body.encode("utf-8")
        self.headers = {"Content-Type": "text/plain; charset=utf-8"}
        if headers:
            self.headers.update(headers)

    def __repr__(self) -> str:
        return "WebhookResponse(%d)" % self.status


class Handler:
    """Verifies, de-duplicates and passes each event to ``process``. Its answers tell BOTIX what to do:

    - 200 for a processed event, and for a copy of an event already processed (not processed again);
    - 503 without Retry-After for a copy that arrives while another copy is being processed
      (BOTIX retries that delivery on its schedule, so if that processing fails the event is still
      delivered; a Retry-After would make BOTIX pause the whole endpoint, as on a 429);
    - 500 when ``process`` raises (the id is forgotten, so the retry is processed);
    - 401 for a bad signature; 400 for a body that is not an event; 413 over 1 MiB; 405 not a POST;
    - 503 when the deduplicator cannot be asked.

    Use :meth:`handle` from any framework, :meth:`wsgi` as a WSGI app, or
    :meth:`request_handler_class` with ``http.server``.
    """

    def __init__(self, verifier: Verifier, dedup: Deduplicator, process: Callable[[Event], None],
                 *, clock: Optional[Callable[[], float]] = None, logger: Optional[logging.Logger] = None) -> None:
        self.verifier = verifier
        self.dedup = dedup
        self.process = process
        self._clock = clock or time.time
        self._log = logger or log

    def handle(self, method: str, headers: Any, body: bytes) -> WebhookResponse:
        if method.upper() != "POST":
            return WebhookResponse(405, "POST only")
        if len(body) > MAX_BODY:
            return WebhookResponse(413, "body too large")
        try:
            self.verifier.verify(headers, body, self._clock())
        except VerificationError as exc:
            self._log.warning("webhook rejected: %s (webhook-id %s)", exc, _headers(headers).get("webhook-id", ""))
            return WebhookResponse(401, "invalid signature")
        try:
            event = parse_event(body)
        except (ValueError, TypeError, UnicodeDecodeError):
            return WebhookResponse(400, "not a BOTIX event")
        if not event.id:
            return WebhookResponse(400, "not a BOTIX event")
        try:
            state = self.dedup.begin(event.id)
        except Exception as exc:
            self._log.error("deduplicator unavailable: %s (event %s)", exc, event.id)
            return WebhookResponse(503, "try again")
        if state is State.DONE:
            return WebhookResponse(200, "")
        if state is State.PROCESSING:
            # No Retry-After: BOTIX would pause every delivery of the endpoint, not only this one.
            return WebhookResponse(503, "event is being processed; retry later")
        if state is not State.UNSEEN:
            return WebhookResponse(503, "try again")
        try:
            self.process(event)
        except BaseException as exc:
            try:
                self.dedup.forget(event.id)
            except Exception as ferr:
                self._log.error("forgetting a failed event failed; a retry waits for the lease: %s (event %s)", ferr, event.id)
            if not isinstance(exc, Exception):
                raise
            self._log.error("webhook processing failed; BOTIX will retry: %s (event %s)", exc, event.id)
            return WebhookResponse(500, "processing failed")
        try:
            self.dedup.complete(event.id)
        except Exception as cerr:
            # Processed: acknowledge. A 500 would bring a retry that processes it again after the lease.
            self._log.error("recording a processed event failed: %s (event %s)", cerr, event.id)
        return WebhookResponse(200, "")

    def wsgi(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> List[bytes]:
        """A WSGI application serving the handler."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY:
            resp = WebhookResponse(413, "body too large")
        else:
            body = environ["wsgi.input"].read(length) if length > 0 else b""
            headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
            resp = self.handle(environ.get("REQUEST_METHOD", "GET"), headers, body)
        start_response("%d %s" % (resp.status, _REASONS.get(resp.status, "")), list(resp.headers.items()))
        return [resp.body]

    def request_handler_class(self) -> Type[BaseHTTPRequestHandler]:
        """A ``BaseHTTPRequestHandler`` class for ``http.server.ThreadingHTTPServer``."""
        handler = self

        class _RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    length = -1
                if length < 0 or length > MAX_BODY:
                    resp = WebhookResponse(413, "body too large")
                    self.close_connection = True
                else:
                    body = self.rfile.read(length) if length else b""
                    resp = handler.handle(self.command, self.headers, body)
                self.send_response(resp.status)
                for k, v in resp.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                self.wfile.write(resp.body)

            do_POST = _serve
            do_GET = _serve
            do_PUT = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return

        return _RequestHandler


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 405: "Method Not Allowed",
            413: "Payload Too Large", 500: "Internal Server Error", 503: "Service Unavailable"}
