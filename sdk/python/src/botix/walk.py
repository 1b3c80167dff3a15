"""Resumable walks of the API's lists.

A :class:`Position` is where a walk stands: the cursor of the page holding
the last item handled ("" for the first page) and that item's id ("" when no
item of that page is handled yet). Its text form is the same in every BOTIX
SDK: ``p1.<item id>.<page cursor>``.

Resuming at a position fetches that page again with its cursor and skips its
leading items whose id is >= the saved id. Every list of the API is ordered
newest first by id, and ids are ``<prefix>_<ULID>`` (they sort by creation
time as strings), so the rule also holds when the saved item was deleted in
the meantime: nothing after it is lost, nothing before it is repeated.
"""

from __future__ import annotations

import re
from typing import Callable, Generic, Iterator, Optional, TypeVar

from .types import Page

__all__ = ["Position", "InvalidPositionError", "Walker"]

_PREFIX = "p1."
_ID = re.compile(r"^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$")


class InvalidPositionError(ValueError):
    """A string that is not the text form of a Position."""


class Position:
    """Where a walk stands; ``str(position)`` is its stable text form."""

    __slots__ = ("cursor", "after")

    def __init__(self, cursor: str = "", after: str = "") -> None:
        self.cursor = cursor
        self.after = after

    @classmethod
    def parse(cls, text: str) -> "Position":
        """Reads ``str(position)``; "" is the start of the list."""
        if text == "":
            return cls()
        if not text.startswith(_PREFIX):
            raise InvalidPositionError("botix: not a list position")
        rest = text[len(_PREFIX):]
        after, sep, cursor = rest.partition(".")
        if not sep or (after and not _ID.match(after)) or any(c in cursor for c in " \t\r\n"):
            raise InvalidPositionError("botix: not a list position")
        return cls(cursor=cursor, after=after)

    def is_start(self) -> bool:
        return not self.cursor and not self.after

    def __str__(self) -> str:
        return _PREFIX + self.after + "." + self.cursor

    def __repr__(self) -> str:
        return "Position(%r)" % str(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and (self.cursor, self.after) == (other.cursor, other.after)

    def __hash__(self) -> int:
        return hash((self.cursor, self.after))


T = TypeVar("T")


class Walker(Generic[T]):
    """Walks one list, newest first, and knows where it stands after every item.

    Iterate it (``for item in walker``); ``walker.position`` is past the last
    item yielded: read in the loop body it already counts the item being
    handled, so save it once that item is done. Stopping (``break``, an
    exception) keeps the position; iterating again, on this walker or on a new
    one started at the saved position, continues with the next item. A page
    fetch error is raised from the loop and leaves the position at the last
    item yielded. Not safe for concurrent use.
    """

    def __init__(self, fetch: Callable[[str], Page[T]], item_id: Callable[[T], str], start: Optional[Position] = None) -> None:
        self._fetch = fetch
        self._id = item_id
        self.position: Position = start if start is not None else Position()

    def __iter__(self) -> Iterator[T]:
        cursor, after = self.position.cursor, self.position.after
        while True:
            page = self._fetch(cursor)
            more = bool(page.has_more and page.next_cursor)
            last = len(page.data) - 1
            for i, item in enumerate(page.data):
                item_id = self._id(item)
                if after and item_id >= after:
                    continue  # handled before the walk stopped (newer or the same)
                after = ""
                if more and i == last:
                    # The page is done with this item: resuming starts at the next page.
                    self.position = Position(cursor=page.next_cursor or "")
                else:
                    self.position = Position(cursor=cursor, after=item_id)
                yield item
            if not more:
                return
            cursor, after = page.next_cursor or "", ""
            self.position = Position(cursor=cursor)
