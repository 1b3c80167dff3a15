"""A route of the public API and the one encoding its query parameters share.

Both the client (which sends a route) and the services (which name every
route) use these, so they live here rather than in either: the services
module imports the client only for type checking, and the client imports
the services, with no import cycle between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Optional, Union


@dataclass(frozen=True)
class Route:
    """One public route: the method and the path under /public/v1, parameters in braces."""

    method: str
    path: str

    def full(self) -> str:
        return "/public/v1" + self.path


def time_param(value: Union[None, str, datetime]) -> Optional[str]:
    """A filter time: a datetime (naive means UTC) or an RFC 3339 string; None: no filter."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return str(value)
