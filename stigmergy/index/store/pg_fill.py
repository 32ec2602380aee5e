"""The small rows a warm PostgreSQL session reads by id, read whole once per generation in the background.

A search reads, by page or fragment id, its hits' facts, lines and citations and the graph arm's stems,
names, links and degrees (`pg_reads`, held by id in `pg_held`). Under the load bench's queries, all
different, each search still met ids not held yet, so each of ~8 such statements ran on most searches
(~1.1 ms of the database's CPU a search in a replay, more under the load, and as much again in the
process). A long-lived session (`keep_warm`) instead reads every row of these kinds at the generation it
searches at, on a connection of its own, in one REPEATABLE READ snapshot, and hands each to `pg_held.fill`:
from then on an id not held has no row and nothing is asked (at 247,762 fragments: 50,000 pages, ~1 s
of the database's CPU and ~1.5 s of the process's, ~165 MB a process). The texts of fragments stay read by id (~250 MB).

Each statement is the by-id statement of `pg_reads` without its id condition (the same columns, and the
same order within a key where that statement orders; the graph arm's use of links does not depend on
their order), so a kind read whole answers as its reads by id; the caller keeps the scope, as
there: these are read for ids the scoped arms returned.
"""

from __future__ import annotations

import threading
from typing import Any

from stigmergy.index.store import pg_held
from stigmergy.index.store.background import Readers
from stigmergy.index.store.protocol import FragmentRow, PageInfo

MAX_FRAGMENTS = 500_000  # past this many fragments nothing is read whole (~165 MB a process at 247,762)

# kind -> (statement, how a row is held): "one" (key -> the row's object), "grouped" (key -> its rows)
KINDS: dict[str, tuple[str, str]] = {
    "page_infos": (
        "SELECT id, path, title, type, layer, status, occurred_at, n_claims, n_cited, page_id, "
        "meta::jsonb ->> 'decay', "
        "(SELECT count(DISTINCT c.capture_id) FROM citations c WHERE c.src = pages.id), "
        "(SELECT count(*) FROM contradictions k WHERE k.page = pages.id AND k.status = 'open'), locator FROM pages", "page"),
    "hubs": ("SELECT id FROM pages WHERE type IN ('entity', 'concept', 'project')", "hub"),
    "fragment_rows": ("SELECT id, seq, start_line, end_line FROM fragments", "fragment"),
    "stems": ("SELECT id, stem, title FROM pages", "grouped"),
    "names": ("SELECT page, name FROM entity_names ORDER BY page, name", "grouped"),
    "links": ("SELECT src, target FROM links ORDER BY src, target", "grouped"),
    "out": ("SELECT src, count(*) FROM links GROUP BY src", "grouped"),
    "citations": (
        "SELECT c.src, c.line, c.capture_id, s.occurred_at, c.start_line FROM citations c "
        "LEFT JOIN pages s ON s.page_id = c.capture_id AND s.type = 'source' "
        "ORDER BY c.src, c.line, c.capture_id", "grouped"),
}

_LOCK = threading.Lock()
_STARTED: dict[tuple[str, str], int] = {}  # the generation a read was last started for, per place
_READERS = Readers("stigmergy-pg-rows")


def _values(rows: Any, how: str) -> dict[Any, Any]:
    if how == "page":
        return {r[0]: PageInfo(*r) for r in rows}
    if how == "hub":
        return {r[0]: True for r in rows}
    if how == "fragment":
        return {r[0]: FragmentRow(*r) for r in rows}
    grouped: dict[Any, list[tuple[Any, ...]]] = {}
    for row in rows:
        grouped.setdefault(row[0], []).append(tuple(row))
    return grouped


def read(url: str, schema: str, where: tuple[str, str], generation: int) -> int:
    """Read every kind whole at `generation` and hold it; how many kinds were held (0: another generation
    by now, or more fragments than MAX_FRAGMENTS)."""
    with pg_held.snapshot(url, schema, generation) as conn:
        if conn is None or int(conn.execute("SELECT count(*) FROM fragments").fetchone()[0]) > MAX_FRAGMENTS:
            return 0
        got = {kind: _values(conn.execute(statement).fetchall(), how) for kind, (statement, how) in KINDS.items()}
    return sum(pg_held.fill(where, kind, generation, values) for kind, values in got.items())


def start(url: str, schema: str, where: tuple[str, str], generation: int) -> None:
    """Start reading every kind whole at `generation`, once per generation and place (a read that fails
    leaves the rows read by id, as before)."""
    with _LOCK:
        if not url or _STARTED.get(where, -1) >= generation:
            return
        _STARTED[where] = generation
    _READERS.start(where, read, url, schema, where, generation)


def settle() -> None:
    """Wait for the reads started so far (tests)."""
    _READERS.settle()
