"""Errors of the BOTIX client.

Every failed call raises an :class:`OperationError` (or a subclass, one per
``kind``). It carries what is needed to finish the operation: the
Idempotency-Key every attempt sent and how many attempts were made, and,
when the API answered, the answer's status, code, message, field, details,
request id and Retry-After.

An error of a mutating call does not say the operation did not happen: an
attempt may have reached the API and its answer been lost. To finish it,
call the same method with the same arguments and
``idempotency_key=err.idempotency_key`` (or ``**err.reissue()``). That is
always safe: with the same key and body the API replays the stored result
(``result.response.replayed``) or runs the operation once. It is pointless
when ``err.reissuable`` is False: the API refused the request itself.
"""

from __future__ import annotations

from typing import Dict, List, Optional

__all__ = [
    "ErrorCode", "ERROR_CODES", "OperationError", "APIError", "TransportError", "AttemptTimeoutError",
    "GaveUpError", "RetryQuotaExhaustedError", "InvalidIdempotencyKeyError", "DeadlineExceededError",
    "EncodeError", "DecodeError", "retryable_status",
]


class ErrorCode:
    """The public error codes of the API (the ``code`` of the error envelope)."""

    UNAUTHORIZED = "UNAUTHORIZED"
    INSUFFICIENT_SCOPE = "INSUFFICIENT_SCOPE"
    NOT_FOUND = "NOT_FOUND"
    INVALID_JSON = "INVALID_JSON"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    VALIDATION_FAILED = "VALIDATION_FAILED"
    INVALID_PARAMETER = "INVALID_PARAMETER"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    IDEMPOTENCY_KEY_REQUIRED = "IDEMPOTENCY_KEY_REQUIRED"
    IDEMPOTENCY_KEY_INVALID = "IDEMPOTENCY_KEY_INVALID"
    IDEMPOTENCY_KEY_REUSE_CONFLICT = "IDEMPOTENCY_KEY_REUSE_CONFLICT"
    IDEMPOTENCY_KEY_IN_PROGRESS = "IDEMPOTENCY_KEY_IN_PROGRESS"
    CONTACT_ALREADY_EXISTS = "CONTACT_ALREADY_EXISTS"
    ENDPOINT_DISABLED = "ENDPOINT_DISABLED"
    INVALID_CURSOR = "INVALID_CURSOR"
    OFFSET_TOO_LARGE = "OFFSET_TOO_LARGE"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    RETRY_COOLDOWN = "RETRY_COOLDOWN"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    INTERNAL = "INTERNAL"


#: Every code of :class:`ErrorCode` (a test checks it against the server's table).
ERROR_CODES: List[str] = [v for k, v in vars(ErrorCode).items() if k.isupper()]


def retryable_status(status: int, code: str) -> bool:
    """Whether an answer is worth retrying with the same key: 429, a 5xx, or 409 IN_PROGRESS."""
    return status == 429 or status >= 500 or code == ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS


class OperationError(Exception):
    """The error of a call. ``kind`` says what happened:

    ``api`` (the API answered with an error), ``transport`` (connection
    refused or reset), ``timeout`` (an attempt timed out), ``gave_up`` (every
    attempt the retry policy allows failed), ``quota`` (the retry quota
    stopped retrying), ``invalid_key`` (the caller's Idempotency-Key was
    refused before sending), ``deadline`` (the client's call_timeout),
    ``encode`` / ``decode`` (the request does not encode / the answer does
    not decode). For ``gave_up``, ``quota`` and ``deadline`` the answer
    fields are the last answer's, when there was one.
    """

    kind: str = "error"

    def __init__(
        self,
        message: str,
        *,
        method: str = "",
        path: str = "",
        idempotency_key: str = "",
        attempts: int = 0,
        status: int = 0,
        code: str = "",
        api_message: str = "",
        field: str = "",
        details: Optional[Dict[str, str]] = None,
        request_id: str = "",
        retry_after: float = 0.0,
        last: Optional[BaseException] = None,
    ) -> None:
        super().__init__(message)
        self.method = method
        self.path = path
        #: The key every attempt of a mutating call sent ("" for a GET).
        self.idempotency_key = idempotency_key
        #: How many HTTP attempts were made (0: nothing was sent).
        self.attempts = attempts
        #: The HTTP status of the (last) answer; 0 when no answer came.
        self.status = status
        #: The API's error code (:class:`ErrorCode`), "" when the answer was not the envelope.
        self.code = code
        #: The API's message (or the HTTP reason when the answer was not the envelope).
        self.api_message = api_message
        self.field = field
        self.details: Dict[str, str] = dict(details or {})
        self.request_id = request_id
        #: The server's Retry-After in seconds (0 when absent).
        self.retry_after = retry_after
        #: The last failure (an APIError, TransportError or AttemptTimeoutError) for gave_up/quota/deadline.
        self.last = last

    @property
    def reissuable(self) -> bool:
        """Whether calling again with the same key can end differently.

        False when the API refused the request itself (a 4xx other than 429
        and 409 IDEMPOTENCY_KEY_IN_PROGRESS, or a 3xx), when nothing could be
        sent (an invalid key, a body that does not encode) or when the answer
        does not decode (a replay is the same bytes); True otherwise.
        """
        if self.kind in ("invalid_key", "encode", "decode"):
            return False
        if self.kind == "api":
            return retryable_status(self.status, self.code)
        return True

    def reissue(self) -> Dict[str, str]:
        """The keyword arguments that make another call the same operation: ``**err.reissue()``."""
        return {"idempotency_key": self.idempotency_key}

    def __str__(self) -> str:
        head = "botix: %s %s (" % (self.method, self.path)
        if self.idempotency_key:
            head += "Idempotency-Key %s, " % self.idempotency_key
        return head + "%d attempts): %s" % (self.attempts, self.args[0] if self.args else "")


class APIError(OperationError):
    """The API answered with an error that retrying does not change (or a 3xx, never followed)."""

    kind = "api"


class TransportError(OperationError):
    """No answer: the connection was refused, reset or closed early."""

    kind = "transport"


class AttemptTimeoutError(OperationError):
    """An attempt outlived the client's attempt_timeout."""

    kind = "timeout"


class GaveUpError(OperationError):
    """Every attempt the retry policy allows failed in a way worth retrying."""

    kind = "gave_up"


class RetryQuotaExhaustedError(OperationError):
    """Not retried: the client's retry quota is empty because most recent calls failed."""

    kind = "quota"


class InvalidIdempotencyKeyError(OperationError):
    """The caller's Idempotency-Key is not a UUIDv4 or a ULID; nothing was sent."""

    kind = "invalid_key"


class DeadlineExceededError(OperationError):
    """The client's call_timeout ended the call."""

    kind = "deadline"


class EncodeError(OperationError):
    """The request body does not encode to JSON; nothing was sent."""

    kind = "encode"


class DecodeError(OperationError):
    """The API succeeded but its answer does not decode (or exceeds 8 MiB)."""

    kind = "decode"
