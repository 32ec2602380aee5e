"""The statements only `ask` (answer/) runs against the SQLite index: the entity and project names it
recognises in a question, the sources and contradiction blocks behind its candidate lines, and its cache of
candidate-line vectors, the one write a reader's call makes (kept by rebuilds: keyed by content, not by page).

Apart from the store's reads (sqlite.py) because they serve one consumer, whose needs change with each of
its passes, and the line cache is a write of its own with its own bound and lock handling. Functions over
a connection, as sqlite_write.py; `SqliteIndexStore` forwards its protocol methods here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stigmergy.index.store.protocol import NameRow, SourceRow
from stigmergy.index.store.sqlite_schema import dbapi, marks

# ask's line cache stays below this many rows (~0.5 GB at 384 dimensions): past it half goes.
MAX_LINE_VECTORS = 300_000


def name_rows(conn: Any, layers: tuple[str, ...]) -> list[NameRow]:
    if not layers:
        return []
    lay = marks(layers)
    rows = [NameRow(n, pid, t, str(json.loads(m).get("entity_type") or "")) for n, pid, t, m in conn.execute(
        f"SELECT en.name, p.id, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
        f"WHERE +p.layer IN ({lay})", layers)]
    rows += [NameRow(t, pid, t, "project") for pid, t in conn.execute(
        f"SELECT id, title FROM pages WHERE type = 'project' AND layer IN ({lay})", layers)]
    return rows


def sources_at(conn: Any, paths: Sequence[str], layers: tuple[str, ...]) -> list[SourceRow]:
    out: list[SourceRow] = []
    listed = sorted(set(paths))
    for i in range(0, len(listed), 500):
        chunk = listed[i : i + 500]
        out += [SourceRow(*r) for r in conn.execute(
            f"SELECT path, title, coalesce(occurred_at, captured_at, '') FROM pages WHERE type = 'source' "
            f"AND path IN ({marks(chunk)}) AND layer IN ({marks(layers)})", (*chunk, *layers))]
    return out


def contradictions_at(conn: Any, paths: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in conn.execute(
        f"SELECT p.path, c.data FROM contradictions c JOIN pages p ON p.id = c.page "
        f"WHERE p.path IN ({marks(paths)}) AND p.layer IN ({marks(layers)}) ORDER BY p.path, c.con_id",
        (*paths, *layers))]


def line_vectors(conn: Any, fingerprint: str, hashes: Sequence[str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for i in range(0, len(hashes), 500):
        chunk = list(hashes[i : i + 500])
        out.update(conn.execute(
            f"SELECT hash, vector FROM line_vectors WHERE fingerprint = ? AND hash IN ({marks(chunk)})",
            (fingerprint, *chunk)).fetchall())
    return out


def put_line_vectors(conn: Any, fingerprint: str, rows: Sequence[tuple[str, bytes]], wait: float) -> bool:
    sqlite3 = dbapi()
    conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR REPLACE INTO line_vectors(hash, fingerprint, vector) VALUES (?, ?, ?)",
                                  [(h, fingerprint, v) for h, v in rows])
            n = conn.execute("SELECT count(*) FROM line_vectors").fetchone()[0]
            if n > MAX_LINE_VECTORS:
                # No ages are kept: an arbitrary half goes (a line asked about again costs one embedding).
                conn.execute("DELETE FROM line_vectors WHERE hash IN (SELECT hash FROM line_vectors "
                                  "LIMIT ?)", (n // 2,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return True
    except sqlite3.OperationalError:
        return False  # the index is being written: this answer keeps its vectors to itself
    finally:
        conn.execute("PRAGMA busy_timeout = 30000")
