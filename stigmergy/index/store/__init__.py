"""The index store: the one seam between the index stage and the database that holds the index.

`IndexStore` names every question the index stage asks of its database (page rows, fragments, full text,
vectors, links, citations, entities, contradictions, meta) and every write the builder makes. Each backend
holds every statement it runs in modules of its own: `sqlite.py` (SQLite, FTS5 and sqlite-vec, with its
schema, the builder's writes and ask's statements beside it in `sqlite_schema.py`, `sqlite_write.py`,
`sqlite_ask.py`); a PostgreSQL + pgvector backend is a second set implementing the same protocol and
passing the same tests. Nothing else in `stigmergy/` writes SQL (tests/test_architecture.py fails on a statement
elsewhere), and what crosses the seam is a frozen value or a tuple of plain ids, never a cursor.

Where the reader's scope goes: every query that returns pages takes a `Selection` (the reader's layers
and the filters, compiled once per search by `IndexStore.select`) and applies it inside the query, never
after it.

Where it lives is an `IndexLocation` (`index_location(layout, settings)`): the SQLite file under
`.stigmergy/` (the default), or a schema of a shared PostgreSQL database (`[index] backend = "postgres"`,
the connection string and schema from the user's environment or configuration only; `postgres.py`
and the `pg_*.py` modules beside it).

Open a store with `open_index` (reads and builds), `open_index(..., rebuild=True)` (a damaged file is moved
aside), or `peek_index` (read-only, never migrates, never waits: the lexical page search filing asks).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from stigmergy.repo.layout import Layout
    from stigmergy.settings import Settings


@dataclass(frozen=True)
class IndexLocation:
    """Where a repository's index lives: `path` (the SQLite file), or, when `url` is set, the `schema` of
    that PostgreSQL database, shared by every clone of the wiki whose identity is `wiki` (its root commit)."""

    path: Path
    url: str = ""
    schema: str = "stigmergy"
    wiki: str = ""

    @property
    def shared(self) -> bool:
        return bool(self.url)

    def __str__(self) -> str:
        if not self.shared:
            return str(self.path)
        from stigmergy.index.store.pg_schema import redact

        return f"{redact(self.url)} (schema {self.schema})"

    def exists(self) -> bool:
        """Is there an index here at all (a file; a schema with its tables)? Never creates one."""
        if not self.shared:
            return self.path.is_file()
        if not self.wiki:  # not a repository with a commit: nothing of it can be in a shared index
            return False
        from stigmergy.index.store.pg_schema import schema_present

        return schema_present(self.url, self.schema)


def wiki_identity(root: Path) -> str:
    """The repository's identity for a shared index: its root commit(s), which every clone shares."""
    from stigmergy.repo.git import Git

    if not Path(root).is_dir():
        return ""
    out = Git(root).run("rev-list", "--max-parents=0", "HEAD", check=False)
    return ",".join(sorted(out.split()))


def index_location(layout: Layout, settings: Settings) -> IndexLocation:
    """The index `settings` name for the repository at `layout`."""
    if settings.index.backend != "postgres":
        return IndexLocation(layout.index_db)
    if not settings.index.url:
        from stigmergy.errors import ConfigError

        raise ConfigError(
            "index.backend is \"postgres\" but no connection string is set",
            hint="set STIGMERGY_INDEX__URL, or url under [index] in ~/.config/stigmergy/config.toml")
    return IndexLocation(layout.index_db, settings.index.url, settings.index.schema, wiki_identity(layout.root))


def _where(where: Path | IndexLocation) -> IndexLocation:
    return where if isinstance(where, IndexLocation) else IndexLocation(Path(where))


def open_index(where: Path | IndexLocation, *, rebuild: bool = False) -> IndexStore:
    """The index at `where`, migrated to the current schema (created when absent). With `rebuild`, a SQLite
    file that fails its integrity check is moved aside and a new one started."""
    loc = _where(where)
    if loc.shared:
        from stigmergy.index.store.postgres import PostgresIndexStore

        return PostgresIndexStore.open(loc.url, loc.schema, loc.wiki)
    from stigmergy.index.store.sqlite import SqliteIndexStore

    return SqliteIndexStore.open_for_rebuild(loc.path) if rebuild else SqliteIndexStore.open(loc.path)


def peek_index(where: Path | IndexLocation) -> IndexStore | None:
    """A read-only look at the index that never migrates, never loads an extension and never waits long:
    None when the file is absent, locked, damaged or of another schema version (or the database is
    unreachable)."""
    loc = _where(where)
    if loc.shared:
        from stigmergy.index.store.postgres import PostgresIndexStore

        return PostgresIndexStore.peek(loc.url, loc.schema, loc.wiki)
    from stigmergy.index.store.sqlite import SqliteIndexStore

    return SqliteIndexStore.peek(loc.path)


def peek_meta(path: Path, key: str) -> tuple[bool, str | None, str | None]:
    """(readable, the meta value or None, the error when unreadable), without migrating or loading anything."""
    from stigmergy.index.store.sqlite_schema import peek_meta as sqlite_peek_meta

    return sqlite_peek_meta(path, key)


def index_state(where: Path | IndexLocation) -> dict[str, Any]:
    """What `status` says of the index file: present, readable (None when absent), the commit it reflects,
    whether a first build is under way, the error when it cannot be read. Reads one meta value and loads
    nothing (`status` stays quick); `behind_head` is the caller's to fill in."""
    loc = _where(where)
    if loc.shared:
        return _shared_state(loc)
    path = loc.path
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


def _shared_state(loc: IndexLocation) -> dict[str, Any]:
    state: dict[str, Any] = {"present": False, "readable": None, "commit": None, "behind_head": None,
                             "building": False, "error": None}
    from stigmergy.errors import StigmergyError
    from stigmergy.index.store.pg_schema import connect
    from stigmergy.index.store.postgres import PostgresIndexStore

    try:
        store = PostgresIndexStore(connect(loc.url, loc.schema, timeout=5.0, migrate_schema=False), loc.schema)
    except StigmergyError as exc:
        if "has no schema" not in exc.message:
            state.update(present=True, readable=False, error=exc.message)
        return state
    try:
        store.claim(loc.wiki)
        commit = store.meta("commit")
        state.update(present=True, readable=True, commit=commit or None, building=commit is None)
    except StigmergyError as exc:
        state.update(present=True, readable=False, error=exc.message)
    finally:
        store.close()
    return state


def schema_migrations() -> tuple[str, ...]:
    """The backend's schema, for docs/schema.md."""
    from stigmergy.index.store.sqlite_schema import MIGRATIONS

    return MIGRATIONS


__all__ = [
    "AboutPage", "Backlink", "CitationRow", "ContradictionRow", "EntityPage", "Fact", "Filters", "FragmentRow",
    "IndexLocation", "IndexStore", "IndexUnreadableError", "IndexedPage", "Integrity", "LayerVectors", "ListedPage",
    "NameRow", "NewFragment", "PageInfo", "PageRef", "Selection", "SourceRow", "index_location", "index_state",
    "open_index", "peek_index", "peek_meta", "schema_migrations", "wiki_identity",
]

