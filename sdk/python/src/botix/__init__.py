"""BOTIX public API client for Python.

    import botix

    client = botix.Client()  # BOTIX_API_KEY, BOTIX_API_URL
    contact = client.contacts.create(phone="+79990000000", name="Ivan")

One Idempotency-Key per call of a mutating method, the same on every retry;
retries of transport errors, timeouts, 429, 5xx and 409 IDEMPOTENCY_KEY_IN_PROGRESS
with full-jitter backoff, Retry-After and a retry quota; typed errors that
carry the key and the attempt count; resumable walks. ``botix.webhook`` is
the receiver kit.
"""

from __future__ import annotations

import logging as _logging

from ._version import __version__
from .client import DEFAULT_BASE_URL, ChangelogEntry, Client, RetryPolicy, Route, valid_idempotency_key
from .errors import (
    ERROR_CODES, APIError, AttemptTimeoutError, DeadlineExceededError, DecodeError, EncodeError, ErrorCode,
    GaveUpError, InvalidIdempotencyKeyError, OperationError, RetryQuotaExhaustedError, TransportError,
)
from .services import ROUTES
from .types import *  # noqa: F401,F403
from .types import __all__ as _types_all
from .walk import InvalidPositionError, Position, Walker

__all__ = [
    "__version__", "DEFAULT_BASE_URL", "ChangelogEntry", "Client", "RetryPolicy", "Route", "valid_idempotency_key",
    "ERROR_CODES", "APIError", "AttemptTimeoutError", "DeadlineExceededError", "DecodeError", "EncodeError",
    "ErrorCode", "GaveUpError", "InvalidIdempotencyKeyError", "OperationError", "RetryQuotaExhaustedError",
    "TransportError", "ROUTES", "InvalidPositionError", "Position", "Walker",
] + list(_types_all)

# A library logs, the application configures: no output unless it adds a handler.
_logging.getLogger("botix").addHandler(_logging.NullHandler())
