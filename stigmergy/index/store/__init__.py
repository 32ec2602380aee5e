"""The index store: the one seam between the index stage and the database that holds the index.

`IndexStore` names every question the index stage asks of its database (page rows, fragments, full text,
vectors, links, citations, entities, contradictions, meta) and every write the builder makes. Each backend
is one module holding every statement it runs: `sqlite.py` today (SQLite, FTS5 and sqlite-vec); a
PostgreSQL + pgvector backend is a second module implementing the same protocol and passing the same
tests. Nothing else in `stigmergy/` writes SQL (tests/test_architecture.py fails on a statement
elsewhere), and what crosses the seam is a frozen value or a tuple of plain ids, never a cursor.

Where the reader's scope goes: every query that returns pages takes a `Selection` (the reader's layers
and the filters, compiled once per search by `IndexStore.select`) and applies it inside the query, never
after it.

Open a store with `open_index` (reads and builds), `open_index(..., rebuild=True)` (a damaged file is moved
aside), or `peek_index` (read-only, never migrates, never waits: the lexical page search filing asks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stigmergy.index.store.protocol import (
    AboutPage,
    Backlink,
    CitationRow,
    ContradictionRow,
    EntityPage,
    Fact,
    Filters,
    FragmentRow,
    IndexedPage,
    IndexStore,
    IndexUnreadableError,
    Integrity,
    LayerVectors,
    ListedPage,
    NameRow,
    NewFragment,
    PageInfo,
    PageRef,
    Selection,
    SourceRow,
)


def open_index(path: Path, *, rebuild: bool = False) -> IndexStore:
    """The index at `path`, migrated to the current schema (created when absent). With `rebuild`, a file that
    fails its integrity check is moved aside and a new one started."""
    from stigmergy.index.store.sqlite import SqliteIndexStore

    return SqliteIndexStore.open_for_rebuild(path) if rebuild else SqliteIndexStore.open(path)


def peek_index(path: Path) -> IndexStore | None:
    """A read-only look at the index that never migrates, never loads an extension and never waits long:
    None when the file is absent, locked, damaged or of another schema version."""
    from stigmergy.index.store.sqlite import SqliteIndexStore

    return SqliteIndexStore.peek(path)


def peek_meta(path: Path, key: str) -> tuple[bool, str | None, str | None]:
    """(readable, the meta value or None, the error when unreadable), without migrating or loading anything."""
    from stigmergy.index.store.sqlite import peek_meta as sqlite_peek_meta

    return sqlite_peek_meta(path, key)


def index_state(path: Path) -> dict[str, Any]:
    """What `status` says of the index file: present, readable (None when absent), the commit it reflects,
    whether a first build is under way, the error when it cannot be read. Reads one meta value and loads
    nothing (`status` stays quick); `behind_head` is the caller's to fill in."""
    state: dict[str, Any] = {"present": path.is_file(), "readable": None, "commit": None, "behind_head": None,
                             "building": False, "error": None}
    if state["present"]:
        readable, commit, error = peek_meta(path, "commit")
        state["readable"] = readable
        if readable:
            state["commit"], state["building"] = commit, commit is None
        else:
            # Derived state: say so and how to get it back, never a traceback.
            state["error"] = f"the index is unreadable ({error}); run `stigmergy index --rebuild`"
    return state


def schema_migrations() -> tuple[str, ...]:
    """The backend's schema, for docs/schema.md."""
    from stigmergy.index.store.sqlite import MIGRATIONS

    return MIGRATIONS


__all__ = [
    "AboutPage", "Backlink", "CitationRow", "ContradictionRow", "EntityPage", "Fact", "Filters", "FragmentRow",
    "IndexStore", "IndexUnreadableError", "IndexedPage", "Integrity", "LayerVectors", "ListedPage", "NameRow",
    "NewFragment",
    "PageInfo", "PageRef", "Selection", "SourceRow", "index_state", "open_index", "peek_index", "peek_meta", "schema_migrations",
]

