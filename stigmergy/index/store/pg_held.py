"""What a long-lived PostgreSQL session holds between searches, by id, per generation: page and fragment
vectors, and the rows a search reads by page or fragment id (a hit's lines and text, a page's facts, its
links and names for the graph arm).

Each search read the page vectors of its ~250 candidate pages (centroid and lead, 2 x 384 floats each) and
the vectors of its lexical fragments (~7.6 and ~2.2 ms a search at 30,839 fragments), and ~14 more short
statements by id, most of it rows the previous searches had read too. A warm session (`keep_warm`) asks
only for the ids it does not hold, and holds what comes back until the index's generation moves (every
writer's transaction bumps `meta.generation`; a page's vectors may be rewritten in place, so nothing is
kept across generations). Whether a page or fragment may be shown is the caller's: these are read by id,
for ids the scoped arms returned, exactly as the statements they stand for.

Held per (server, database, schema) and kind in a process, shared by its sessions: at most `cap` ids a
kind (below), the least recently used dropped first. A kind read whole at a generation (`fill`, from
`pg_fill`'s background read) is answered from what is held alone: an id not in it has no row.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

# A cap a kind: ~150 MB of page vectors, fragment vectors (most come from pg_nearest's hold over a large
# layer) and 100,000 ids of each kind of row (a fragment's text is the largest, ~1 KB). Lower caps (20,000
# pages) cost more misses under the load bench, whose queries are all different.
MAX_PAGES = 50_000
MAX_FRAGMENTS = 100_000
MAX_ROWS = 100_000

V = TypeVar("V")
_LOCK = threading.Lock()
# (place, kind) -> (generation, id -> value or None for "no row")
_HELD: dict[tuple[str, str, str], tuple[int, OrderedDict[Any, Any]]] = {}
# (place, kind) -> the generation at which its table holds every row of the kind (`fill`): an id not in
# it has no row, and nothing is asked of the database
_WHOLE: dict[tuple[str, str, str], int] = {}


def place(conn: Any, schema: str) -> tuple[str, str]:
    """Which shared index a hold is of: (server and database, schema). Every hold in this package keys by it."""
    info = conn.info
    return (f"{info.host}:{info.port}/{info.dbname}", schema)


@contextlib.contextmanager
def snapshot(url: str, schema: str, generation: int) -> Iterator[Any | None]:
    """A connection of its own inside one REPEATABLE READ READ ONLY transaction, what a background read
    of a warm session (`pg_postings`, `pg_nearest`, `pg_fill`) reads in; None when the schema is at
    another generation by now (nothing to read for this one)."""
    from stigmergy.index.store.pg_schema import connect

    conn = connect(url, schema, migrate_schema=False)
    try:
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
            yield conn if row is not None and int(row[0]) == generation else None
    finally:
        conn.close()


def read(where: tuple[str, str], kind: str, generation: int, ids: Sequence[Any], cap: int,
         fetch: Callable[[list[Any]], dict[Any, V]]) -> dict[Any, V]:
    """`ids`' values (absent: no row), from what is held at `generation` and `fetch` for the rest (all of
    them, holding nothing, for a search at an older generation than the one held: it began before a write)."""
    key = (*where, kind)
    with _LOCK:
        held = _HELD.get(key)
        if held is not None and held[0] > generation:
            older = True
        else:
            older = False
            if held is None or held[0] != generation:
                held = _HELD[key] = (generation, OrderedDict())
    if older:
        return fetch(list(dict.fromkeys(ids)))
    with _LOCK:
        table = held[1]
        if _WHOLE.get(key) == generation:
            return {i: value for i in ids if (value := table.get(i)) is not None}
        out: dict[Any, V] = {}
        missing: list[Any] = []
        for i in dict.fromkeys(ids):
            if i in table:
                table.move_to_end(i)
                value = table[i]
                if value is not None:
                    out[i] = value
            else:
                missing.append(i)
    if not missing:
        return out
    got = fetch(missing)
    with _LOCK:
        current = _HELD.get(key)
        if current is not None and current[0] == generation:
            table = current[1]
            for i in missing:
                table[i] = got.get(i)
            while len(table) > cap:
                table.popitem(last=False)
    out.update(got)
    return out


def fill(where: tuple[str, str], kind: str, generation: int, values: dict[Any, Any]) -> bool:
    """Hold every row of `kind` at `generation` (read in one snapshot at it): from now on an id not in
    `values` has no row. False when a newer generation is held already (nothing changes)."""
    key = (*where, kind)
    with _LOCK:
        held = _HELD.get(key)
        if held is not None and held[0] > generation:
            return False
        _HELD[key] = (generation, OrderedDict(values))
        _WHOLE[key] = generation
    return True
