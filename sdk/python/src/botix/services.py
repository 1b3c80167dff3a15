"""One service per resource of the API, and the route table its methods use.

Every method calls the API through one of the ``ROUTE_*`` constants below;
:data:`ROUTES` lists them all (the conformance ``routes`` scenario prints it
and a test checks every method against a fake server, route by route).
Mutating methods take ``idempotency_key``: None makes a fresh UUIDv4 for the
call (the same on each of its retries); pass your own (a UUIDv4 or a ULID)
for an operation that outlives the process, or ``err.idempotency_key`` to
re-issue a failed call.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from .route import Route, time_param
from .types import (
    CatalogImport, CatalogImportCreate, CatalogItem, Contact, ContactCount, ContactCreate, CurrentDashboardSession, DashboardSession,
    DashboardSessionDeleted, DashboardSessionRequest, Deleted, Delivery, ListedDashboardSession,
    DeliveryDetail, DeliveryRequest, DeliveryStats, Event, Inspector, InspectorRequest, Message, MessageCreate,
    NoLimit, Page, RecoverRequest, Recovery, RedirectRequest, ScenarioRun, ScenarioRunCreate, TestEvent, WebhookEndpoint,
    WebhookEndpointCreate, WebhookEndpointUpdate, WebhookEndpointWithSecret,
)
from .walk import Position, Walker

if TYPE_CHECKING:
    from .client import Client

TimeArg = Union[None, str, datetime]

ROUTE_CONTACTS_CREATE = Route("POST", "/contacts")
ROUTE_CONTACTS_LIST = Route("GET", "/contacts")
ROUTE_CONTACTS_COUNT = Route("GET", "/contacts/count")
ROUTE_CONTACTS_GET = Route("GET", "/contacts/{id}")
ROUTE_MESSAGES_SEND = Route("POST", "/messages")
ROUTE_MESSAGES_LIST = Route("GET", "/messages")
ROUTE_CATALOG_IMPORT = Route("POST", "/catalog/imports")
ROUTE_SCENARIOS_RUN = Route("POST", "/scenarios/{scenario_id}/runs")
ROUTE_ENDPOINTS_CREATE = Route("POST", "/webhook-endpoints")
ROUTE_ENDPOINTS_LIST = Route("GET", "/webhook-endpoints")
ROUTE_ENDPOINTS_GET = Route("GET", "/webhook-endpoints/{id}")
ROUTE_ENDPOINTS_UPDATE = Route("PATCH", "/webhook-endpoints/{id}")
ROUTE_ENDPOINTS_DELETE = Route("DELETE", "/webhook-endpoints/{id}")
ROUTE_ENDPOINTS_ROTATE = Route("POST", "/webhook-endpoints/{id}/rotate-secret")
ROUTE_ENDPOINTS_TEST = Route("POST", "/webhook-endpoints/{id}/test")
ROUTE_ENDPOINTS_RECOVER = Route("POST", "/webhook-endpoints/{id}/recover")
ROUTE_DELIVERIES_LIST = Route("GET", "/webhook-deliveries")
ROUTE_DELIVERIES_STATS = Route("GET", "/webhook-deliveries/stats")
ROUTE_DELIVERIES_GET = Route("GET", "/webhook-deliveries/{id}")
ROUTE_DELIVERIES_RETRY = Route("POST", "/webhook-deliveries/{id}/retry")
ROUTE_DELIVERIES_REDIRECT = Route("POST", "/webhook-deliveries/{id}/redirect")
ROUTE_INSPECTORS_CREATE = Route("POST", "/inspectors")
ROUTE_INSPECTORS_REQUESTS = Route("GET", "/inspectors/{id}/requests")
ROUTE_EVENTS_LIST = Route("GET", "/events")
ROUTE_EVENTS_GET = Route("GET", "/events/{id}")
ROUTE_DASHBOARD_SESSIONS_CREATE = Route("POST", "/dashboard-sessions")
ROUTE_DASHBOARD_SESSIONS_CURRENT = Route("GET", "/dashboard-sessions/current")
ROUTE_DASHBOARD_SESSIONS_LIST = Route("GET", "/dashboard-sessions")
ROUTE_DASHBOARD_SESSIONS_DELETE = Route("DELETE", "/dashboard-sessions/{id}")
ROUTE_OPENAPI = Route("GET", "/openapi.json")
ROUTE_ERROR_CODES = Route("GET", "/error-codes")
ROUTE_CHANGELOG = Route("GET", "/changelog.atom")

#: Every route the client's methods call.
ROUTES: List[Route] = [v for k, v in sorted(globals().items()) if k.startswith("ROUTE_") and isinstance(v, Route)]


def _list_query(limit: Optional[int], cursor: Optional[str], **filters: Any) -> Dict[str, Any]:
    q: Dict[str, Any] = {}
    if cursor:
        q["cursor"] = cursor
    if limit is not None and limit > 0:
        q["cursor_limit"] = int(limit)
    for k, v in filters.items():
        if v is not None and v != "":
            q[k] = v
    return q


def _item_id(item: Any) -> str:
    return str(item.id)


class _Service:
    def __init__(self, client: "Client") -> None:
        self._c = client

    def _walker(self, model: Any, route: Route, params: Tuple[str, ...], query: Dict[str, Any], position: Union[None, str, Position]) -> Walker[Any]:
        start = Position.parse(position) if isinstance(position, str) else position
        q = dict(query)
        cursor = q.pop("cursor", "")
        if start is None or start.is_start():
            start = Position(cursor=cursor or "")

        def fetch(cur: str) -> Page[Any]:
            page_q = dict(q)
            if cur:
                page_q["cursor"] = cur
            return self._c._page(model, route, params, page_q)

        return Walker(fetch, _item_id, start)


class ContactsService(_Service):
    """/public/v1/contacts"""

    def create(self, phone: str, name: str, email: Optional[str] = None, tags: Optional[Sequence[str]] = None,
               *, idempotency_key: Optional[str] = None) -> Contact:
        """Creates a contact (idempotent). 409 CONTACT_ALREADY_EXISTS when the phone is taken."""
        body = ContactCreate(phone=phone, name=name, email=email, tags=list(tags) if tags is not None else None)
        return self._c._one(Contact, ROUTE_CONTACTS_CREATE, body=body.to_json(), idempotency_key=idempotency_key)

    def get(self, contact_id: str) -> Contact:
        return self._c._one(Contact, ROUTE_CONTACTS_GET, (contact_id,))

    def count(self) -> ContactCount:
        """How many contacts the project has."""
        return self._c._one(ContactCount, ROUTE_CONTACTS_COUNT)

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, tag: Optional[str] = None,
             created_after: TimeArg = None, created_before: TimeArg = None) -> Page[Contact]:
        """One page of contacts, newest first (limit 1..200; default 20)."""
        return self._c._page(Contact, ROUTE_CONTACTS_LIST, (), _list_query(
            limit, cursor, tag=tag, created_after=time_param(created_after), created_before=time_param(created_before)))

    def walk(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, tag: Optional[str] = None,
             created_after: TimeArg = None, created_before: TimeArg = None,
             position: Union[None, str, Position] = None) -> Walker[Contact]:
        """A resumable walk of the contacts, newest first: from the start (or cursor), or from a saved position."""
        return self._walker(Contact, ROUTE_CONTACTS_LIST, (), _list_query(
            limit, cursor, tag=tag, created_after=time_param(created_after), created_before=time_param(created_before)), position)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, tag: Optional[str] = None,
             created_after: TimeArg = None, created_before: TimeArg = None) -> Iterator[Contact]:
        """Every contact, newest first, fetched a page (of limit) at a time as the loop goes."""
        return iter(self.walk(limit=limit, cursor=cursor, tag=tag, created_after=created_after, created_before=created_before))


class MessagesService(_Service):
    """/public/v1/messages"""

    def send(self, contact_id: str, text: str, channel: Optional[str] = None, *, idempotency_key: Optional[str] = None) -> Message:
        """Queues a message to a contact (idempotent); channel sms (default), whatsapp, telegram, viber, vk."""
        body = MessageCreate(contact_id=contact_id, text=text, channel=channel)
        return self._c._one(Message, ROUTE_MESSAGES_SEND, body=body.to_json(), idempotency_key=idempotency_key)

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, contact_id: Optional[str] = None,
             status: Optional[str] = None) -> Page[Message]:
        return self._c._page(Message, ROUTE_MESSAGES_LIST, (), _list_query(limit, cursor, contact_id=contact_id, status=status))

    def walk(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, contact_id: Optional[str] = None,
             status: Optional[str] = None, position: Union[None, str, Position] = None) -> Walker[Message]:
        return self._walker(Message, ROUTE_MESSAGES_LIST, (), _list_query(limit, cursor, contact_id=contact_id, status=status), position)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, contact_id: Optional[str] = None,
             status: Optional[str] = None) -> Iterator[Message]:
        return iter(self.walk(limit=limit, cursor=cursor, contact_id=contact_id, status=status))


class CatalogService(_Service):
    """/public/v1/catalog"""

    def create_import(self, items: Iterable[Union[CatalogItem, Dict[str, Any]]], *, idempotency_key: Optional[str] = None) -> CatalogImport:
        """Queues a catalog import (idempotent; up to 1000 items). Items are CatalogItem or dicts."""
        body = CatalogImportCreate(items=[i if isinstance(i, CatalogItem) else CatalogItem(**i) for i in items])
        return self._c._one(CatalogImport, ROUTE_CATALOG_IMPORT, body=body.to_json(), idempotency_key=idempotency_key)


class ScenariosService(_Service):
    """/public/v1/scenarios"""

    def run(self, scenario_id: str, contact_id: str, variables: Optional[Dict[str, Any]] = None,
            *, idempotency_key: Optional[str] = None) -> ScenarioRun:
        """Starts a scenario for a contact (idempotent)."""
        body = ScenarioRunCreate(contact_id=contact_id, variables=variables)
        return self._c._one(ScenarioRun, ROUTE_SCENARIOS_RUN, (scenario_id,), body=body.to_json(), idempotency_key=idempotency_key)


class WebhookEndpointsService(_Service):
    """/public/v1/webhook-endpoints"""

    def create(self, url: str, events: Sequence[str], description: Optional[str] = None,
               *, rate_limit: Optional[int] = None, max_concurrency: Optional[int] = None,
               idempotency_key: Optional[str] = None) -> WebhookEndpointWithSecret:
        """Registers an endpoint; the answer's secret is shown only here. events: types, or ["*"].

        rate_limit bounds the deliveries started per second, max_concurrency the requests in flight (None: no limit).
        """
        body = WebhookEndpointCreate(url=url, events=list(events), description=description,
                                     rate_limit=rate_limit, max_concurrency=max_concurrency)
        return self._c._one(WebhookEndpointWithSecret, ROUTE_ENDPOINTS_CREATE, body=body.to_json(), idempotency_key=idempotency_key)

    def get(self, endpoint_id: str) -> WebhookEndpoint:
        return self._c._one(WebhookEndpoint, ROUTE_ENDPOINTS_GET, (endpoint_id,))

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Page[WebhookEndpoint]:
        return self._c._page(WebhookEndpoint, ROUTE_ENDPOINTS_LIST, (), _list_query(limit, cursor))

    def walk(self, *, limit: Optional[int] = None, cursor: Optional[str] = None,
             position: Union[None, str, Position] = None) -> Walker[WebhookEndpoint]:
        return self._walker(WebhookEndpoint, ROUTE_ENDPOINTS_LIST, (), _list_query(limit, cursor), position)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Iterator[WebhookEndpoint]:
        return iter(self.walk(limit=limit, cursor=cursor))

    def update(self, endpoint_id: str, *, url: Optional[str] = None, events: Optional[Sequence[str]] = None,
               description: Optional[str] = None, enabled: Optional[bool] = None,
               rate_limit: Union[int, NoLimit, None] = None, max_concurrency: Union[int, NoLimit, None] = None,
               idempotency_key: Optional[str] = None) -> WebhookEndpoint:
        """Changes the fields given (idempotent); enabled=True re-enables a disabled endpoint.

        rate_limit and max_concurrency: a number sets the limit, ``botix.NO_LIMIT`` removes it.
        """
        body = WebhookEndpointUpdate(url=url, events=list(events) if events is not None else None,
                                     description=description, enabled=enabled,
                                     rate_limit=rate_limit, max_concurrency=max_concurrency)
        return self._c._one(WebhookEndpoint, ROUTE_ENDPOINTS_UPDATE, (endpoint_id,), body=body.to_json(), idempotency_key=idempotency_key)

    def delete(self, endpoint_id: str, *, idempotency_key: Optional[str] = None) -> Deleted:
        return self._c._one(Deleted, ROUTE_ENDPOINTS_DELETE, (endpoint_id,), idempotency_key=idempotency_key)

    def rotate_secret(self, endpoint_id: str, *, idempotency_key: Optional[str] = None) -> WebhookEndpointWithSecret:
        """A new signing secret (shown only here); the previous one signs too until previous_secret_expires_at."""
        return self._c._one(WebhookEndpointWithSecret, ROUTE_ENDPOINTS_ROTATE, (endpoint_id,), idempotency_key=idempotency_key)

    def test(self, endpoint_id: str, *, idempotency_key: Optional[str] = None) -> TestEvent:
        """Sends a webhook.test event to this endpoint through the normal pipeline."""
        return self._c._one(TestEvent, ROUTE_ENDPOINTS_TEST, (endpoint_id,), idempotency_key=idempotency_key)

    def recover(self, endpoint_id: str, since: Union[str, datetime], *, idempotency_key: Optional[str] = None) -> Recovery:
        """Re-sends the failed or dead deliveries since then, at most 100 per step: while has_more the
        recovery continues by itself, paced (``get`` shows its progress in ``recovery``)."""
        body = RecoverRequest(since=time_param(since) or "")
        return self._c._one(Recovery, ROUTE_ENDPOINTS_RECOVER, (endpoint_id,), body=body.to_json(), idempotency_key=idempotency_key)


class DeliveriesService(_Service):
    """/public/v1/webhook-deliveries (the last 14 days)"""

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, status: Optional[str] = None,
             endpoint_id: Optional[str] = None, event_type: Optional[str] = None, event_id: Optional[str] = None,
             delivery_id: Optional[str] = None, request_id: Optional[str] = None, since: TimeArg = None, until: TimeArg = None) -> Page[Delivery]:
        return self._c._page(Delivery, ROUTE_DELIVERIES_LIST, (), _list_query(
            limit, cursor, status=status, endpoint_id=endpoint_id, event_type=event_type, event_id=event_id,
            delivery_id=delivery_id, request_id=request_id, since=time_param(since), until=time_param(until)))

    def walk(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, status: Optional[str] = None,
             endpoint_id: Optional[str] = None, event_type: Optional[str] = None, event_id: Optional[str] = None,
             delivery_id: Optional[str] = None, request_id: Optional[str] = None, since: TimeArg = None, until: TimeArg = None, position: Union[None, str, Position] = None) -> Walker[Delivery]:
        return self._walker(Delivery, ROUTE_DELIVERIES_LIST, (), _list_query(
            limit, cursor, status=status, endpoint_id=endpoint_id, event_type=event_type, event_id=event_id,
            delivery_id=delivery_id, request_id=request_id, since=time_param(since), until=time_param(until)), position)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, status: Optional[str] = None,
             endpoint_id: Optional[str] = None, event_type: Optional[str] = None, event_id: Optional[str] = None,
             delivery_id: Optional[str] = None, request_id: Optional[str] = None, since: TimeArg = None, until: TimeArg = None) -> Iterator[Delivery]:
        return iter(self.walk(limit=limit, cursor=cursor, status=status, endpoint_id=endpoint_id, event_type=event_type,
                              event_id=event_id, delivery_id=delivery_id, request_id=request_id, since=since, until=until))

    def get(self, delivery_id: str) -> DeliveryDetail:
        """A delivery with its payload and attempts."""
        return self._c._one(DeliveryDetail, ROUTE_DELIVERIES_GET, (delivery_id,))

    def stats(self, *, granularity: Optional[str] = None, endpoint_id: Optional[str] = None,
              since: TimeArg = None, until: TimeArg = None) -> DeliveryStats:
        """Attempts per hour (default, the last 24 h) or day (the last 14 days), by outcome."""
        q = _list_query(None, None, granularity=granularity, endpoint_id=endpoint_id, since=time_param(since), until=time_param(until))
        return self._c._one(DeliveryStats, ROUTE_DELIVERIES_STATS, query=q)

    def retry(self, delivery_id: str, *, idempotency_key: Optional[str] = None) -> DeliveryRequest:
        """Sends the delivery again now, as a manual attempt."""
        return self._c._one(DeliveryRequest, ROUTE_DELIVERIES_RETRY, (delivery_id,), idempotency_key=idempotency_key)

    def redirect(self, delivery_id: str, inspector_id: str, *, idempotency_key: Optional[str] = None) -> DeliveryRequest:
        """Sends the delivery's webhook to an inspector instead."""
        body = RedirectRequest(inspector_id=inspector_id)
        return self._c._one(DeliveryRequest, ROUTE_DELIVERIES_REDIRECT, (delivery_id,), body=body.to_json(), idempotency_key=idempotency_key)


class InspectorsService(_Service):
    """/public/v1/inspectors"""

    def create(self, *, idempotency_key: Optional[str] = None) -> Inspector:
        """An inspector: a URL that keeps what it is sent (alive 24 h)."""
        return self._c._one(Inspector, ROUTE_INSPECTORS_CREATE, idempotency_key=idempotency_key)

    def requests_page(self, inspector_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Page[InspectorRequest]:
        return self._c._page(InspectorRequest, ROUTE_INSPECTORS_REQUESTS, (inspector_id,), _list_query(limit, cursor))

    def walk_requests(self, inspector_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None,
                      position: Union[None, str, Position] = None) -> Walker[InspectorRequest]:
        return self._walker(InspectorRequest, ROUTE_INSPECTORS_REQUESTS, (inspector_id,), _list_query(limit, cursor), position)

    def requests(self, inspector_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Iterator[InspectorRequest]:
        """Everything the inspector captured, newest first."""
        return iter(self.walk_requests(inspector_id, limit=limit, cursor=cursor))


class EventsService(_Service):
    """/public/v1/events"""

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, type: Optional[str] = None,
             since: TimeArg = None) -> Page[Event]:
        return self._c._page(Event, ROUTE_EVENTS_LIST, (), _list_query(limit, cursor, type=type, since=time_param(since)))

    def walk(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, type: Optional[str] = None,
             since: TimeArg = None, position: Union[None, str, Position] = None) -> Walker[Event]:
        return self._walker(Event, ROUTE_EVENTS_LIST, (), _list_query(limit, cursor, type=type, since=time_param(since)), position)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, type: Optional[str] = None,
             since: TimeArg = None) -> Iterator[Event]:
        return iter(self.walk(limit=limit, cursor=cursor, type=type, since=since))

    def get(self, event_id: str) -> Event:
        return self._c._one(Event, ROUTE_EVENTS_GET, (event_id,))


class DashboardSessionsService(_Service):
    """/public/v1/dashboard-sessions: short-lived, scoped tokens for the dashboard instead of the API key.

    Only a client made with the key may call it; a client made with a session's token
    (``botix.Client(token)``) calls what the scope grants and gets INSUFFICIENT_SCOPE for the rest.
    """

    def create(self, scope: str, *, ttl_seconds: Optional[int] = None, idempotency_key: Optional[str] = None) -> DashboardSession:
        """A session of scope ``read`` or ``read_retry`` (idempotent); the answer's token is shown only here."""
        body = DashboardSessionRequest(scope=scope, ttl_seconds=ttl_seconds)
        return self._c._one(DashboardSession, ROUTE_DASHBOARD_SESSIONS_CREATE, body=body.to_json(), idempotency_key=idempotency_key)

    def current(self) -> CurrentDashboardSession:
        """The session of this client's token: its scope and expiry (a client made with the API key gets NOT_FOUND)."""
        return self._c._one(CurrentDashboardSession, ROUTE_DASHBOARD_SESSIONS_CURRENT)

    def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Page[ListedDashboardSession]:
        return self._c._page(ListedDashboardSession, ROUTE_DASHBOARD_SESSIONS_LIST, (), _list_query(limit, cursor))

    def walk(self, *, limit: Optional[int] = None, cursor: Optional[str] = None,
             position: Union[None, str, Position] = None) -> Walker[ListedDashboardSession]:
        return self._walker(ListedDashboardSession, ROUTE_DASHBOARD_SESSIONS_LIST, (), _list_query(limit, cursor), position)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Iterator[ListedDashboardSession]:
        """The project's live sessions, newest first, each with the API key that made it (never their tokens):
        to find every token handed out and revoke it. The API key only (a session's token gets INSUFFICIENT_SCOPE)."""
        return iter(self.walk(limit=limit, cursor=cursor))

    def delete(self, session_id: str, *, idempotency_key: Optional[str] = None) -> DashboardSessionDeleted:
        """Revokes a session: its token stops working at once (idempotent)."""
        return self._c._one(DashboardSessionDeleted, ROUTE_DASHBOARD_SESSIONS_DELETE, (session_id,), idempotency_key=idempotency_key)
