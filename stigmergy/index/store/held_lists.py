"""Posting lists held by token between searches, the least recently used dropped first past a cap of
postings: what the SQLite and the PostgreSQL lexical arms hold in a long-lived process
(`sqlite_postings`, `pg_postings`). Thread-safe: the sessions of a process share one."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any


class HeldLists:
    """token -> (positions or rowids, counts): arrays whose first says how many postings the list holds."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.lists: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self.held = 0
        self._lock = threading.Lock()

    def take(self, tokens: Iterable[str]) -> tuple[dict[str, tuple[Any, Any]], list[str]]:
        """(the lists held, marked as just used; the tokens not held), each token once."""
        have: dict[str, tuple[Any, Any]] = {}
        missing: list[str] = []
        with self._lock:
            for token in dict.fromkeys(tokens):
                got = self.lists.get(token)
                if got is not None:
                    self.lists.move_to_end(token)
                    have[token] = got
                else:
                    missing.append(token)
        return have, missing

    def put(self, read: dict[str, tuple[Any, Any]]) -> None:
        """Hold lists just read (a token another session put first keeps its list), then drop the least
        recently used past the cap (never the last one)."""
        with self._lock:
            for token, got in read.items():
                if token not in self.lists:
                    self.lists[token] = got
                    self.held += len(got[0])
            while self.held > self.cap and len(self.lists) > 1:
                _, (first, _) = self.lists.popitem(last=False)
                self.held -= len(first)

    def lists_for(self, tokens: list[str], read: Callable[[str], tuple[Any, Any] | None],
                  fetch: bool = True) -> list[tuple[Any, Any]] | None:
        """Each token's list, held or read now with `read` (None from it, or a token not held when not
        `fetch`: None, and nothing new held)."""
        have, missing = self.take(tokens)
        if missing and not fetch:
            return None
        new: dict[str, tuple[Any, Any]] = {}
        for token in missing:
            got = read(token)
            if got is None:
                return None
            new[token] = got
        self.put(new)
        have.update(new)
        return [have[t] for t in tokens]
