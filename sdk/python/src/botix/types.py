"""Request and response types of the BOTIX public API.

Written by hand after ``sdk/openapi.yaml``: each class stands for the component
schema named in its ``__schema__`` (``None`` for an inline object of the
document), and its dataclass fields are that schema's JSON properties, with
the same names. ``tests/test_schemas.py`` fails when a field is missing or
extra, and the conformance ``schemas`` scenario reports them for the harness.

Answers are decoded leniently: unknown fields are ignored (a newer API does
not break an older SDK) and missing optional fields are ``None``. Every
result carries ``response`` (a :class:`Response`): the request id, the
Idempotency-Key the call sent, whether the answer was a replay, and the
number of attempts. ``response`` is not a JSON field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, Generic, List, Optional, Tuple, Type, TypeVar, Union

__all__ = [
    "Response", "Model", "Contact", "ContactCreate", "ContactCount", "Message", "MessageCreate",
    "CatalogItem", "CatalogImportCreate", "CatalogImport", "ScenarioRunCreate", "ScenarioRun",
    "WebhookEndpoint", "WebhookEndpointWithSecret", "WebhookEndpointCreate", "WebhookEndpointUpdate",
    "Deleted", "DashboardSessionRequest", "DashboardSession", "DashboardSessionDeleted", "CurrentDashboardSession", "ListedDashboardSession", "TestEvent", "RecoverRequest", "Recovery", "RecoveryProgress", "Delivery", "DeliveryDetail", "Attempt",
    "RedirectRequest", "DeliveryRequest", "Latency", "Counts", "StatsBucket", "DeliveryStats", "Inspector",
    "InspectorRequest", "Event", "ThinEvent", "WebhookTestData", "ErrorCodeInfo",
    "ErrorCodeReference", "ErrorBody", "ErrorEnvelope", "Page", "PAGE_SCHEMAS", "schema_models",
    "EndpointThrottle", "EndpointHealth", "NO_LIMIT", "NoLimit", "WebhookEndpointHealth",
]


@dataclass
class Response:
    """The HTTP answer a result came from."""

    status: int = 0
    request_id: str = ""
    #: The key a mutating call sent on every attempt ("" for a GET).
    idempotency_key: str = ""
    #: True when the API answered with the stored result of an earlier
    #: request with the same key (``Idempotent-Replayed: true``), e.g.
    #: because an earlier attempt's answer was lost on the way.
    replayed: bool = False
    #: How many HTTP attempts the call took.
    attempts: int = 0


class NoLimit:
    """The type of :data:`NO_LIMIT`."""

    _instance: ClassVar[Optional["NoLimit"]] = None

    def __new__(cls) -> "NoLimit":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_LIMIT"


#: Removes an endpoint's limit in ``webhook_endpoints.update`` (sent as
#: null; None leaves the limit as it is).
NO_LIMIT = NoLimit()

M = TypeVar("M", bound="Model")


class Model:
    """Base of the API's types: JSON decoding and encoding by field name."""

    #: The OpenAPI component schema this class stands for (None: inline).
    __schema__: ClassVar[Optional[str]] = None
    #: Fields holding other models: name -> (model class, is a list).
    __nested__: ClassVar[Dict[str, Tuple[Type["Model"], bool]]] = {}

    @classmethod
    def json_fields(cls) -> List[str]:
        """The JSON property names of this type (``response`` excluded)."""
        return [f.name for f in dataclasses.fields(cls) if f.name != "response"]

    @classmethod
    def from_json(cls: Type[M], raw: Any) -> M:
        """Builds the type from a decoded JSON object (unknown keys ignored)."""
        if not isinstance(raw, dict):
            raise TypeError("%s: expected a JSON object, got %s" % (cls.__name__, type(raw).__name__))
        kwargs: Dict[str, Any] = {}
        for name in cls.json_fields():
            if name not in raw:
                continue
            value = raw[name]
            nested = cls.__nested__.get(name)
            if nested is not None and value is not None:
                model, is_list = nested
                value = [model.from_json(v) for v in value] if is_list else model.from_json(value)
            kwargs[name] = value
        return cls(**kwargs)

    def to_json(self) -> Dict[str, Any]:
        """The JSON object of this value; fields that are None are left out, NO_LIMIT is null."""
        out: Dict[str, Any] = {}
        for name in self.json_fields():
            value = getattr(self, name)
            if value is None:
                continue
            if value is NO_LIMIT:
                out[name] = None
                continue
            if isinstance(value, Model):
                value = value.to_json()
            elif isinstance(value, list):
                value = [v.to_json() if isinstance(v, Model) else v for v in value]
            out[name] = value
        return out


# --- contacts -------------------------------------------------------------


@dataclass
class Contact(Model):
    __schema__ = "Contact"
    id: str = ""
    phone: str = ""
    name: str = ""
    email: Optional[str] = None
    tags: List[str] = field(default_factory=list)
    created_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class ContactCreate(Model):
    """The body of ``contacts.create``. ``phone`` is E.164 (+79990000000)."""

    __schema__ = "ContactCreate"
    phone: str = ""
    name: str = ""
    email: Optional[str] = None
    tags: Optional[List[str]] = None


@dataclass
class ContactCount(Model):
    __schema__ = "Count"
    total: int = 0
    response: Response = field(default_factory=Response, repr=False, compare=False)


# --- messages -------------------------------------------------------------


@dataclass
class Message(Model):
    __schema__ = "Message"
    id: str = ""
    contact_id: str = ""
    channel: str = ""
    text: str = ""
    status: str = ""
    created_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class MessageCreate(Model):
    """The body of ``messages.send``; channel: sms (default), whatsapp, telegram, viber, vk."""

    __schema__ = "MessageCreate"
    contact_id: str = ""
    text: str = ""
    channel: Optional[str] = None


# --- catalog and scenarios ------------------------------------------------


@dataclass
class CatalogItem(Model):
    """One item of a catalog import (an inline object of CatalogImportCreate)."""

    sku: str = ""
    name: str = ""
    #: A JSON number with at most 4 decimals (int, float or decimal.Decimal).
    price: Any = 0
    currency: Optional[str] = None


@dataclass
class CatalogImportCreate(Model):
    __schema__ = "CatalogImportCreate"
    __nested__ = {"items": (CatalogItem, True)}
    items: List[CatalogItem] = field(default_factory=list)


@dataclass
class CatalogImport(Model):
    __schema__ = "CatalogImport"
    id: str = ""
    status: str = ""
    items_count: int = 0
    created_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class ScenarioRunCreate(Model):
    __schema__ = "ScenarioRunCreate"
    contact_id: str = ""
    variables: Optional[Dict[str, Any]] = None


@dataclass
class ScenarioRun(Model):
    __schema__ = "ScenarioRun"
    id: str = ""
    scenario_id: str = ""
    contact_id: str = ""
    variables: Any = None
    status: str = ""
    created_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


# --- webhook endpoints ----------------------------------------------------


@dataclass
class RecoveryProgress(Model):
    """An endpoint's latest recovery, as ``webhook_endpoints.get`` shows it:
    while ``status`` is ``running`` it continues by itself, a step at a
    time, and ``queued`` grows until it is ``completed``."""

    __schema__ = "RecoveryProgress"
    id: str = ""
    status: str = ""
    since: str = ""
    until: str = ""
    queued: int = 0
    skipped: int = 0
    #: Queued deliveries whose fresh round ended delivered.
    delivered: int = 0
    #: Queued deliveries whose fresh round ended dead again (the rest are on their way).
    failed: int = 0
    #: When the next step is due (while running).
    next_step_at: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""


@dataclass
class EndpointThrottle(Model):
    """The slow-down a receiver asked for with a 429, or a 503 with Retry-After, while it lasts."""

    __schema__ = "EndpointThrottle"
    #: "http_429" or "http_503": the answer that asked.
    throttled_by: str = ""
    #: Deliveries per second the endpoint was lowered to; it grows back to rate_limit.
    effective_rate: Optional[float] = None
    #: The end of the receiver's Retry-After: nothing is sent before.
    paused_until: Optional[str] = None


@dataclass
class EndpointHealth(Model):
    """An endpoint's state as its owner reads it: what is wrong, why, and since when."""

    __schema__ = "EndpointHealth"
    #: "disabled", "failing" (the last attempt failed), "paused" (the receiver's Retry-After runs) or "healthy".
    state: str = ""
    #: The class of the last failed attempt (http_403, http_503, connect_timeout, ...), or the receiver's answer while paused.
    cause: Optional[str] = None
    #: When the state began (None while healthy).
    since: Optional[str] = None
    #: The end of the receiver's pause (paused only).
    until: Optional[str] = None
    #: Why a disabled endpoint was disabled.
    reason: Optional[str] = None
    #: Failed attempts in a row (attempts, not deliveries).
    failed_attempts: Optional[int] = None


@dataclass
class WebhookEndpoint(Model):
    __schema__ = "WebhookEndpoint"
    __nested__ = {"recovery": (RecoveryProgress, False), "throttle": (EndpointThrottle, False), "health": (EndpointHealth, False)}
    id: str = ""
    url: str = ""
    events: List[str] = field(default_factory=list)
    description: Optional[str] = None
    enabled: bool = False
    disabled_reason: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""
    last_success_at: Optional[str] = None
    last_failure_at: Optional[str] = None
    failing_since: Optional[str] = None
    consecutive_failures: int = 0
    #: The endpoint's latest recovery (on ``get``, once it had one).
    recovery: Optional[RecoveryProgress] = None
    #: Deliveries started per second at most (None: no limit).
    rate_limit: Optional[int] = None
    #: Requests in flight at once at most (None: no limit).
    max_concurrency: Optional[int] = None
    #: Present while the receiver's slow-down lasts.
    throttle: Optional[EndpointThrottle] = None
    #: The endpoint's state (on ``get`` and ``list``).
    health: Optional[EndpointHealth] = None
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class WebhookEndpointWithSecret(WebhookEndpoint):
    """The answer of a creation or a rotation: the only times the secret is shown."""

    __schema__ = "WebhookEndpointWithSecret"
    secret: str = field(default="", repr=False)
    #: Set by a rotation: until then the previous secret signs too.
    previous_secret_expires_at: Optional[str] = None


@dataclass
class WebhookEndpointCreate(Model):
    __schema__ = "WebhookEndpointCreate"
    url: str = ""
    events: List[str] = field(default_factory=list)
    description: Optional[str] = None
    #: Deliveries started per second, in the API's range (None: no limit).
    rate_limit: Optional[int] = None
    #: Requests in flight, in the API's range (None: no limit).
    max_concurrency: Optional[int] = None


@dataclass
class WebhookEndpointUpdate(Model):
    """The body of ``webhook_endpoints.update``: None fields are left as they are; NO_LIMIT removes a limit."""

    __schema__ = "WebhookEndpointUpdate"
    url: Optional[str] = None
    events: Optional[List[str]] = None
    description: Optional[str] = None
    enabled: Optional[bool] = None
    rate_limit: Union[int, NoLimit, None] = None
    max_concurrency: Union[int, NoLimit, None] = None


@dataclass
class Deleted(Model):
    __schema__ = "Deleted"
    id: str = ""
    deleted: bool = False
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class TestEvent(Model):
    __schema__ = "TestEvent"
    __test__ = False  # not a unittest/pytest test class
    event_id: str = ""
    endpoint_id: str = ""
    status: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class DashboardSessionRequest(Model):
    """The body of ``dashboard_sessions.create``: scope ``read`` or ``read_retry``; ttl_seconds None is the default."""
    __schema__ = "DashboardSessionRequest"
    scope: str = ""
    ttl_seconds: Optional[int] = None


@dataclass
class DashboardSession(Model):
    """A dashboard session; its token is shown only in the answer of ``dashboard_sessions.create``."""
    __schema__ = "DashboardSession"
    id: str = ""
    scope: str = ""
    token: str = ""
    created_at: str = ""
    expires_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class CurrentDashboardSession(Model):
    """The session of a client's token (``dashboard_sessions.current()``), without the token."""
    __schema__ = "CurrentDashboardSession"
    id: str = ""
    scope: str = ""
    created_at: str = ""
    expires_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class ListedDashboardSession(Model):
    """A live session as ``dashboard_sessions.list()`` shows it: without its token, with the API key that made it."""
    __schema__ = "ListedDashboardSession"
    id: str = ""
    scope: str = ""
    #: The id of the API key that made the session (revoking the key revokes the session);
    #: None for a session made before sessions recorded their key.
    key_id: Optional[str] = None
    created_at: str = ""
    expires_at: str = ""


@dataclass
class DashboardSessionDeleted(Model):
    __schema__ = "DashboardSessionDeleted"
    id: str = ""
    deleted: bool = False
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class RecoverRequest(Model):
    __schema__ = "RecoverRequest"
    since: str = ""


@dataclass
class Recovery(Model):
    __schema__ = "Recovery"
    recovery_id: str = ""
    endpoint_id: str = ""
    since: str = ""
    until: str = ""
    deliveries: int = 0
    status: str = ""
    queued: int = 0
    skipped: int = 0
    has_more: bool = False
    #: When the recovery's next step is due (while it runs by itself).
    next_step_at: Optional[str] = None
    response: Response = field(default_factory=Response, repr=False, compare=False)


# --- deliveries -----------------------------------------------------------


@dataclass
class Delivery(Model):
    __schema__ = "Delivery"
    id: str = ""
    event_id: str = ""
    event_type: str = ""
    endpoint_id: str = ""
    status: str = ""
    round: int = 0
    attempts_count: int = 0
    next_attempt_at: Optional[str] = None
    last_status_code: Optional[int] = None
    last_error_class: Optional[str] = None
    dead_reason: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""
    delivered_at: Optional[str] = None


@dataclass
class Attempt(Model):
    __schema__ = "Attempt"
    delivery_id: str = ""
    attempt: int = 0
    round: int = 0
    kind: str = ""
    url: str = ""
    request_id: str = ""
    status_code: Optional[int] = None
    response_body: Optional[str] = None
    started_at: str = ""
    duration_ms: int = 0
    error_class: Optional[str] = None
    error: Optional[str] = None
    next_attempt_at: Optional[str] = None


@dataclass
class DeliveryDetail(Delivery):
    __schema__ = "DeliveryDetail"
    __nested__ = {"attempts": (Attempt, True)}
    payload: Any = None
    attempts: List[Attempt] = field(default_factory=list)
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class RedirectRequest(Model):
    __schema__ = "RedirectRequest"
    inspector_id: str = ""


@dataclass
class DeliveryRequest(Model):
    __schema__ = "DeliveryRequest"
    delivery_id: str = ""
    kind: str = ""
    status: str = ""
    target_url: Optional[str] = None
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class Latency(Model):
    """Response times of the attempts the receiver answered (with any HTTP status; a timeout
    has none): how many, and the histogram bounds in milliseconds that half and 95 % of them
    came in under (None when nothing was answered)."""

    __schema__ = "Latency"
    answered: int = 0
    p50_ms: Optional[int] = None
    p95_ms: Optional[int] = None


@dataclass
class Counts(Model):
    """Attempts by the status they left their delivery in (their sum is the attempts), the
    deliveries whose first attempt started in the bucket, and the answers' response times."""

    __schema__ = "Counts"
    __nested__ = {"latency": (Latency, False)}
    delivered: int = 0
    retrying: int = 0
    dead: int = 0
    deliveries: int = 0
    latency: Latency = field(default_factory=Latency)


@dataclass
class StatsBucket(Model):
    """One hour or day of DeliveryStats (an inline object of the document)."""

    __nested__ = {"latency": (Latency, False)}
    start: str = ""
    delivered: int = 0
    retrying: int = 0
    dead: int = 0
    deliveries: int = 0
    latency: Latency = field(default_factory=Latency)


@dataclass
class DeliveryStats(Model):
    __schema__ = "DeliveryStats"
    __nested__ = {"buckets": (StatsBucket, True), "totals": (Counts, False)}
    granularity: str = ""
    endpoint_id: Optional[str] = None
    since: str = ""
    until: str = ""
    buckets: List[StatsBucket] = field(default_factory=list)
    totals: Counts = field(default_factory=Counts)
    response: Response = field(default_factory=Response, repr=False, compare=False)


# --- inspectors and events ------------------------------------------------


@dataclass
class Inspector(Model):
    __schema__ = "Inspector"
    id: str = ""
    url: str = ""
    created_at: str = ""
    requests_count: int = 0
    expires_at: str = ""
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class InspectorRequest(Model):
    __schema__ = "InspectorRequest"
    id: str = ""
    method: str = ""
    path: str = ""
    query: Optional[str] = None
    headers: Dict[str, str] = field(default_factory=dict)
    body: str = ""
    truncated: Optional[bool] = None
    source_ip: Optional[str] = None
    received_at: str = ""


@dataclass
class Event(Model):
    """An event of the project, as polled and as webhooks carry it; ``data`` is the decoded JSON."""

    __schema__ = "Event"
    id: str = ""
    type: str = ""
    created_at: str = ""
    project_id: str = ""
    data: Any = None
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class ThinEvent(Event):
    """An event over 64 KB, sent thin: ``data`` is only ``{"object", "id"}``."""

    __schema__ = "ThinEvent"
    thin: bool = False


@dataclass
class WebhookTestData(Model):
    __schema__ = "WebhookTestData"
    id: str = ""
    endpoint_id: str = ""
    message: str = ""


@dataclass
class WebhookEndpointHealth(Model):
    """The data of a health event: the endpoint it is about, its streak of failures, and what the type adds."""

    __schema__ = "WebhookEndpointHealth"
    id: str = ""
    endpoint_id: str = ""
    url: str = ""
    failing_since: str = ""
    consecutive_failures: Optional[int] = None
    last_failure_at: Optional[str] = None
    last_error_class: Optional[str] = None
    disable_at: Optional[str] = None
    disabled_at: Optional[str] = None
    #: "gone" or "failing".
    disabled_cause: Optional[str] = None
    disabled_reason: Optional[str] = None
    recovered_at: Optional[str] = None


@dataclass
class ErrorCodeInfo(Model):
    """One entry of the API's error-code reference; retry is never, after_retry_after or backoff."""

    __schema__ = "ErrorCodeInfo"
    code: str = ""
    status: int = 0
    when: str = ""
    action: str = ""
    retry: str = ""
    docs_url: str = ""


@dataclass
class ErrorCodeReference(Model):
    __schema__ = "ErrorCodeReference"
    __nested__ = {"codes": (ErrorCodeInfo, True)}
    codes: List[ErrorCodeInfo] = field(default_factory=list)
    response: Response = field(default_factory=Response, repr=False, compare=False)


@dataclass
class ErrorBody(Model):
    """The inner object of the error envelope (an inline object of the document)."""

    code: str = ""
    message: str = ""
    request_id: str = ""
    field: Optional[str] = None
    details: Optional[Dict[str, str]] = None


@dataclass
class ErrorEnvelope(Model):
    """The body of every error answer: ``{"error": {...}}``. :class:`botix.APIError` carries its fields."""

    __schema__ = "Error"
    __nested__ = {"error": (ErrorBody, False)}
    error: Optional[ErrorBody] = None


T = TypeVar("T")


@dataclass
class Page(Generic[T]):
    """One page of a list. ``next_cursor`` continues the list (None on the last page)."""

    data: List[T] = field(default_factory=list)
    next_cursor: Optional[str] = None
    has_more: bool = False
    response: Response = field(default_factory=Response, repr=False, compare=False)

    @classmethod
    def json_fields(cls) -> List[str]:
        return ["data", "next_cursor", "has_more"]


#: The page schemas of the document, by the item type a Page holds.
PAGE_SCHEMAS: Dict[str, Type[Model]] = {
    "ContactPage": Contact,
    "MessagePage": Message,
    "WebhookEndpointPage": WebhookEndpoint,
    "DeliveryPage": Delivery,
    "InspectorRequestPage": InspectorRequest,
    "EventPage": Event,
    "DashboardSessionPage": ListedDashboardSession,
}


def schema_models() -> Dict[str, List[str]]:
    """Every component schema a type of this module stands for, with its JSON fields (sorted)."""
    out: Dict[str, List[str]] = {}
    for name in __all__:
        obj = globals()[name]
        if isinstance(obj, type) and issubclass(obj, Model) and obj.__schema__:
            out[obj.__schema__] = sorted(obj.json_fields())
    for schema in PAGE_SCHEMAS:
        out[schema] = sorted(Page.json_fields())
    return out
