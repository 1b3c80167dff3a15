"""The BOTIX API client: retries with one Idempotency-Key per operation."""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import os
import random as _random
import re
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import timezone
from typing import Any, Callable, Dict, List, Optional, Tuple, Type, TypeVar
from urllib.parse import quote, urlencode, urlsplit

from ._version import __version__
from .errors import (
    APIError, AttemptTimeoutError, DeadlineExceededError, DecodeError, EncodeError, ErrorCode,
    GaveUpError, InvalidIdempotencyKeyError, OperationError, RetryQuotaExhaustedError,
    TransportError, retryable_status,
)
from .route import Route
from .services import (
    ROUTE_CHANGELOG, ROUTE_ERROR_CODES, ROUTE_OPENAPI, CatalogService, ContactsService, DashboardSessionsService,
    DeliveriesService, EventsService, InspectorsService, MessagesService, ScenariosService, WebhookEndpointsService,
)
from .types import Model, Page, Response

__all__ = ["Client", "RetryPolicy", "DEFAULT_BASE_URL", "valid_idempotency_key", "Route"]

#: The API's address when neither base_url nor BOTIX_API_URL says otherwise.
DEFAULT_BASE_URL = "http://127.0.0.1:8080"

#: What the client reads of an answer: a success up to 8 MiB, an error up to 64 KiB.
MAX_ANSWER_BYTES = 8 << 20
MAX_ERROR_BYTES = 64 << 10

_RETRY_COST = 5
_TIMEOUT_COST = 10
_SUCCESS_GAIN = 1

_UUID_V4 = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$")
_ULID = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$")

log = logging.getLogger("botix")


def valid_idempotency_key(key: str) -> bool:
    """Whether the API accepts key: a UUIDv4 or a ULID (the server's rule)."""
    return bool(_UUID_V4.match(key) or _ULID.match(key))


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds the retries of one call. A zero field means its default, field by field.

    - ``max_attempts``: HTTP attempts of a call, the first included (1 never retries; default 5).
    - ``base_delay`` / ``max_delay`` (seconds): before retry n the client waits a random time in
      [0, min(max_delay, base_delay * 2**(n-1))] ("full jitter"), unless the server said
      Retry-After (defaults 0.2 s and 20 s).
    - ``max_retry_after`` (seconds): caps the server's Retry-After (default 60 s).
    - ``quota_capacity``: the client's retry token bucket shared by all its calls: a retry takes
      5 tokens (10 after a timeout or a connection error), a success puts back what its retries
      took, or 1 when it needed none; an empty bucket stops retries. Default 500; negative: no quota.
    """

    max_attempts: int = 0
    base_delay: float = 0.0
    max_delay: float = 0.0
    max_retry_after: float = 0.0
    quota_capacity: int = 0

    def with_defaults(self) -> "RetryPolicy":
        return RetryPolicy(
            max_attempts=self.max_attempts if self.max_attempts > 0 else 5,
            base_delay=self.base_delay if self.base_delay > 0 else 0.2,
            max_delay=self.max_delay if self.max_delay > 0 else 20.0,
            max_retry_after=self.max_retry_after if self.max_retry_after > 0 else 60.0,
            quota_capacity=self.quota_capacity if self.quota_capacity != 0 else 500,
        )


class _Quota:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.tokens = capacity
        self._lock = threading.Lock()

    def take(self, cost: int) -> bool:
        if self.capacity < 0:
            return True
        with self._lock:
            if self.tokens < cost:
                return False
            self.tokens -= cost
            return True

    def release(self, spent: int) -> None:
        if self.capacity < 0:
            return
        with self._lock:
            self.tokens = min(self.capacity, self.tokens + (spent or _SUCCESS_GAIN))


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> float:
    """Reads a Retry-After header: seconds or an HTTP date; 0 when absent, malformed or past."""
    if not value:
        return 0.0
    value = value.strip()
    if value.isdigit():
        return float(min(int(value), 2**31 - 1))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return 0.0
    if when is None:
        return 0.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    delta = when.timestamp() - (time.time() if now is None else now)
    return delta if delta > 0 else 0.0


class _Answer:
    __slots__ = ("status", "headers", "body", "reason")

    def __init__(self, status: int, headers: Dict[str, str], body: bytes, reason: str) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.reason = reason


class _AttemptTimeout(Exception):
    pass


M = TypeVar("M", bound=Model)


class Client:
    """Calls the BOTIX public API. Safe for concurrent use from several threads.

    ``api_key`` defaults to the environment's ``BOTIX_API_KEY``; ``base_url`` to
    ``BOTIX_API_URL``, else ``http://127.0.0.1:8080``. ``attempt_timeout``
    (seconds, default 30; None: none) bounds each HTTP attempt, reading the
    answer included; an attempt that times out is retried like a lost
    connection. ``call_timeout`` (seconds, default None) bounds a whole call,
    retries included: a retry it would cut short is not started
    (:class:`~botix.errors.DeadlineExceededError`). ``sleep`` and ``rng`` (a
    ``random.Random``) replace the waits and the jitter (tests). The API key is
    never logged nor put in an error. Redirects are never followed.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        retry: Optional[RetryPolicy] = None,
        attempt_timeout: Optional[float] = 30.0,
        call_timeout: Optional[float] = None,
        user_agent: Optional[str] = None,
        logger: Optional[logging.Logger] = None,
        sleep: Optional[Callable[[float], None]] = None,
        rng: Optional[_random.Random] = None,
        clock: Optional[Callable[[], float]] = None,
    ) -> None:
        if api_key is None:
            api_key = os.environ.get("BOTIX_API_KEY", "")
        if not api_key:
            raise ValueError("botix: an API key is required (argument api_key or BOTIX_API_KEY)")
        self._api_key = api_key
        url = base_url or os.environ.get("BOTIX_API_URL") or DEFAULT_BASE_URL
        self.base_url = url.rstrip("/")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("botix: base URL must be http(s)://host[:port][/path], got %r" % self.base_url)
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self.policy = (retry or RetryPolicy()).with_defaults()
        self.attempt_timeout = attempt_timeout if attempt_timeout and attempt_timeout > 0 else None
        self.call_timeout = call_timeout if call_timeout and call_timeout > 0 else None
        self.user_agent = "botix-python/" + __version__ + ((" " + user_agent.strip()) if user_agent else "")
        self._log = logger or log
        self._sleep = sleep or time.sleep
        self._rng = rng or _random.SystemRandom()
        self._clock = clock or time.monotonic
        self._quota = _Quota(self.policy.quota_capacity)

        self.contacts = ContactsService(self)
        self.messages = MessagesService(self)
        self.catalog = CatalogService(self)
        self.scenarios = ScenariosService(self)
        self.webhook_endpoints = WebhookEndpointsService(self)
        self.deliveries = DeliveriesService(self)
        self.inspectors = InspectorsService(self)
        self.events = EventsService(self)
        self.dashboard_sessions = DashboardSessionsService(self)

    def __repr__(self) -> str:  # never the key
        return "Client(base_url=%r)" % self.base_url

    # -- the retry loop --------------------------------------------------

    def _call(
        self,
        route: Route,
        path_params: Tuple[str, ...] = (),
        *,
        query: Optional[Dict[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
    ) -> Tuple[Any, Response]:
        """Runs one logical operation with retries; returns the decoded JSON and its Response."""
        method = route.method
        path = route.path
        if path_params:
            path = _fill(route.path, path_params)
        mutating = method != "GET"
        meta = Response()
        if mutating:
            meta.idempotency_key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        started = self._clock()

        def fail(cls: Type[OperationError], message: str, last: Optional[OperationError] = None, final: bool = True) -> OperationError:
            src = last
            err = cls(
                message, method=method, path=path, idempotency_key=meta.idempotency_key, attempts=meta.attempts,
                status=src.status if src else 0, code=src.code if src else "",
                api_message=src.api_message if src else "", field=src.field if src else "",
                details=src.details if src else None, request_id=src.request_id if src else "",
                retry_after=src.retry_after if src else 0.0, last=last,
            )
            if final:
                self._log.debug("botix: call failed: %s", err)
            return err

        if mutating and not valid_idempotency_key(meta.idempotency_key):
            raise fail(InvalidIdempotencyKeyError, "Idempotency-Key must be a UUIDv4 or a ULID; got %r" % meta.idempotency_key)
        payload: Optional[bytes] = None
        if body is not None:
            try:
                payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            except (TypeError, ValueError) as exc:
                raise fail(EncodeError, "encode the request: %s" % exc) from None
        target = self._prefix + "/public/v1" + path
        if query:
            q = {k: v for k, v in query.items() if v is not None and v != ""}
            if q:
                target += "?" + urlencode(q)

        spent = 0
        while True:
            meta.attempts += 1
            failure: OperationError
            cost = _TIMEOUT_COST
            try:
                answer = self._attempt(method, target, payload, meta.idempotency_key, started)
            except _AttemptTimeout:
                failure = fail(AttemptTimeoutError, "the attempt timed out (after %ss)" % self.attempt_timeout, final=False)
                answer = None
            except (OSError, http.client.HTTPException) as exc:
                failure = fail(TransportError, "%s: %s" % (type(exc).__name__, exc), final=False)
                answer = None
            if answer is not None:
                if 200 <= answer.status < 300:
                    meta.status = answer.status
                    meta.request_id = answer.headers.get("x-request-id", "")
                    meta.replayed = answer.headers.get("idempotent-replayed", "") == "true"
                    self._quota.release(spent)
                    if not answer.body:
                        return None, meta
                    if len(answer.body) > MAX_ANSWER_BYTES:
                        raise fail(DecodeError, "decode the answer (HTTP %d, request_id %s): over %d bytes"
                                   % (answer.status, meta.request_id, MAX_ANSWER_BYTES))
                    try:
                        return json.loads(answer.body.decode("utf-8")), meta
                    except ValueError as exc:
                        raise fail(DecodeError, "decode the answer (HTTP %d, request_id %s): %s"
                                   % (answer.status, meta.request_id, exc)) from None
                failure = self._api_error(answer, method, path, meta)
                meta.status, meta.request_id = answer.status, failure.request_id
                cost = _RETRY_COST
                if not failure.reissuable:
                    self._log.debug("botix: call failed: %s", failure)
                    raise failure
            if meta.attempts >= self.policy.max_attempts:
                raise fail(GaveUpError, "gave up after %d attempts: %s" % (meta.attempts, failure.args[0]), failure)
            delay = self._backoff(meta.attempts)
            if failure.retry_after > 0:
                delay = min(failure.retry_after, self.policy.max_retry_after)
            if self.call_timeout is not None and self._clock() - started + delay > self.call_timeout:
                raise fail(DeadlineExceededError, "the call_timeout (%ss) comes before the next attempt (in %.3fs); the last failure: %s"
                           % (self.call_timeout, delay, failure.args[0]), failure)
            # Waiting for a first request with this key to finish is not a failure of the service.
            if failure.code != ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS:
                if not self._quota.take(cost):
                    raise fail(RetryQuotaExhaustedError, "not retried: the client's retry quota is exhausted because most "
                               "recent calls failed; the last failure: %s" % failure.args[0], failure)
                spent += cost
            self._log.info("botix: retrying %s %s (Idempotency-Key %s) after attempt %d in %.3fs: %s",
                           method, path, meta.idempotency_key or "-", meta.attempts, delay, failure.args[0])
            self._sleep(delay)

    def _backoff(self, attempt: int) -> float:
        ceiling = self.policy.max_delay
        if attempt - 1 < 60:
            ceiling = min(ceiling, self.policy.base_delay * (2 ** (attempt - 1)))
        if ceiling <= 0:
            return 0.0
        return self._rng.uniform(0, ceiling)

    def _api_error(self, answer: _Answer, method: str, path: str, meta: Response) -> APIError:
        status = answer.status
        request_id = answer.headers.get("x-request-id", "")
        code = message = field = ""
        details: Dict[str, str] = {}
        try:
            env = json.loads(answer.body.decode("utf-8")) if answer.body else None
        except ValueError:
            env = None
        if isinstance(env, dict):
            inner = env.get("error")
            if isinstance(inner, dict):
                code = str(inner.get("code") or "")
                message = str(inner.get("message") or "")
                field = str(inner.get("field") or "")
                if isinstance(inner.get("details"), dict):
                    details = {str(k): str(v) for k, v in inner["details"].items()}
                if inner.get("request_id"):
                    request_id = str(inner["request_id"])
            elif isinstance(env.get("message"), str):
                message = env["message"]
        if 300 <= status < 400:
            message = "redirect (HTTP %d to %s) not followed: the SDK never follows redirects" % (
                status, answer.headers.get("location", "?"))
        if not message:
            message = answer.reason or http.client.responses.get(status, "")
        text = "HTTP %d" % status + ((" " + code) if code else "") + ((": " + message) if message else "")
        if request_id:
            text += " (request_id %s)" % request_id
        return APIError(
            text, method=method, path=path, idempotency_key=meta.idempotency_key, attempts=meta.attempts,
            status=status, code=code, api_message=message, field=field, details=details, request_id=request_id,
            retry_after=retry_after_seconds(answer.headers.get("retry-after")),
        )

    def _attempt(self, method: str, target: str, payload: Optional[bytes], key: str, started: float) -> _Answer:
        """One HTTP attempt on a fresh connection (nothing re-sends it behind the attempt count)."""
        timeout = self.attempt_timeout
        if self.call_timeout is not None:
            left = self.call_timeout - (self._clock() - started)
            timeout = left if timeout is None else min(timeout, left)
            if timeout <= 0:
                raise _AttemptTimeout()
        deadline = None if timeout is None else self._clock() + timeout
        conn: http.client.HTTPConnection
        if self._scheme == "https":
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        headers = {
            "Authorization": "Bearer " + self._api_key,
            "Accept": "application/json",
            "User-Agent": self.user_agent,
        }
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        try:
            try:
                conn.request(method, target, body=payload if payload is not None else (b"" if method != "GET" else None),
                             headers=headers)
                self._settimeout(conn, deadline)
                resp = conn.getresponse()
                limit = MAX_ANSWER_BYTES + 1 if 200 <= resp.status < 300 else MAX_ERROR_BYTES
                chunks: List[bytes] = []
                size = 0
                while size < limit:
                    self._settimeout(conn, deadline)
                    chunk = resp.read(min(65536, limit - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                hdrs = {k.lower(): v for k, v in resp.getheaders()}
                return _Answer(resp.status, hdrs, b"".join(chunks), resp.reason)
            except socket.timeout:
                raise _AttemptTimeout() from None
        finally:
            conn.close()

    def _settimeout(self, conn: http.client.HTTPConnection, deadline: Optional[float]) -> None:
        if deadline is None or conn.sock is None:
            return
        left = deadline - self._clock()
        if left <= 0:
            raise _AttemptTimeout()
        conn.sock.settimeout(left)

    # -- helpers for the services -----------------------------------------

    def _one(self, model: Type[M], route: Route, path_params: Tuple[str, ...] = (), **kw: Any) -> M:
        raw, meta = self._call(route, path_params, **kw)
        try:
            out = model.from_json(raw if raw is not None else {})
        except (TypeError, ValueError) as exc:
            raise DecodeError("decode the answer (HTTP %d, request_id %s): %s" % (meta.status, meta.request_id, exc),
                              method=route.method, path=route.path, idempotency_key=meta.idempotency_key,
                              attempts=meta.attempts, status=meta.status, request_id=meta.request_id) from None
        out.response = meta  # type: ignore[attr-defined]
        return out

    def _page(self, model: Type[M], route: Route, path_params: Tuple[str, ...], query: Dict[str, Any]) -> Page[M]:
        raw, meta = self._call(route, path_params, query=query)
        if not isinstance(raw, dict):
            raise DecodeError("decode the answer (HTTP %d, request_id %s): not a page" % (meta.status, meta.request_id),
                              method=route.method, path=route.path, attempts=meta.attempts, status=meta.status,
                              request_id=meta.request_id)
        data = [model.from_json(item) for item in (raw.get("data") or [])]
        return Page(data=data, next_cursor=raw.get("next_cursor"), has_more=bool(raw.get("has_more")), response=meta)

    # -- the API's documents ------------------------------------------------

    def openapi(self) -> Dict[str, Any]:
        """The API's OpenAPI 3.1 document (GET /public/v1/openapi.json), decoded."""
        raw, _ = self._call(ROUTE_OPENAPI)
        return raw  # type: ignore[no-any-return]

    def error_codes(self) -> List[Any]:
        """The API's error-code reference (GET /public/v1/error-codes): a list of ErrorCodeInfo."""
        from .types import ErrorCodeReference

        return self._one(ErrorCodeReference, ROUTE_ERROR_CODES).codes

    def changelog(self) -> List["ChangelogEntry"]:
        """The API's changelog feed (GET /public/v1/changelog.atom), newest entry first.

        One attempt, sent without the API key (the feed is public); read it again at will.
        """
        from xml.etree import ElementTree

        conn_cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(self._host, self._port, timeout=self.attempt_timeout)
        try:
            conn.request("GET", self._prefix + ROUTE_CHANGELOG.full(),
                         headers={"Accept": "application/atom+xml", "User-Agent": self.user_agent})
            resp = conn.getresponse()
            body = resp.read(MAX_ANSWER_BYTES)
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, http.client.HTTPException) as exc:
            raise TransportError("%s: %s" % (type(exc).__name__, exc), method="GET", path=ROUTE_CHANGELOG.path, attempts=1) from None
        finally:
            conn.close()
        if resp.status >= 300:
            raise self._api_error(_Answer(resp.status, hdrs, body, resp.reason), "GET", ROUTE_CHANGELOG.path, Response(attempts=1))
        ns = {"a": "http://www.w3.org/2005/Atom"}
        try:
            root = ElementTree.fromstring(body)
        except ElementTree.ParseError as exc:
            raise DecodeError("decode the changelog: %s" % exc, method="GET", path=ROUTE_CHANGELOG.path, attempts=1,
                              status=resp.status, request_id=hdrs.get("x-request-id", "")) from None
        out = []
        for e in root.findall("a:entry", ns):
            link = e.find("a:link", ns)
            out.append(ChangelogEntry(
                id=e.findtext("a:id", "", ns), title=e.findtext("a:title", "", ns),
                published=e.findtext("a:published", "", ns), updated=e.findtext("a:updated", "", ns),
                categories=[c.get("term", "") for c in e.findall("a:category", ns)],
                link=link.get("href", "") if link is not None else "", summary=e.findtext("a:summary", "", ns),
            ))
        return out


@dataclass
class ChangelogEntry:
    """One announcement of the API's changelog (times as the feed's RFC 3339 strings)."""

    id: str
    title: str
    published: str
    updated: str
    categories: List[str]
    link: str
    summary: str


def _fill(template: str, params: Tuple[str, ...]) -> str:
    parts = re.split(r"(\{[a-z_]+\})", template)
    values = iter(params)
    out = []
    for p in parts:
        if p.startswith("{") and p.endswith("}"):
            value = next(values)
            if not value:
                raise ValueError("botix: %s must not be empty" % p)
            out.append(quote(str(value), safe=""))
        else:
            out.append(p)
    return "".join(out)
