"""The float vectors of a large SQLite index, held by a long-lived process (`serve`, MCP: a `warm` session)
between searches, for the two places a search reads them: the vector arm's exact cosine over the 1-bit
prefilter's candidates, and the blend's vectors of the lexical arm's fragments.

Each of those reads joined `fragments` to `vectors` for a few hundred ids: ~60 us a vector, ~8 ms of a
search at 247,762 fragments (docs/team.md). Held, a read is an index into one float32 matrix.

Exact, not an approximation: the same float32 vectors, looked up by fragment id, so every distance is the
one the statement gave. Held per database file and fingerprint, shared by the sessions of a process, and
used only at the version of the full text it was read at (`sqlite_postings.version_key`: the index writes a
page's fragments, full text and vectors in one transaction and never updates a fragment in place; a
fragment id may be used again by another fragment later, so nothing held is trusted across versions).

Read in the background: reading the matrix takes ~2.5 s at 247,762 fragments (the vectors table in its own
order, then each fragment's row by its hash; joined fragment by fragment it took 12 s), so a search that
finds it missing or at another version starts a reader thread on a connection of its own and is answered by
the statement, as every search is until the matrix is there. A fragment whose vector is not in the matrix is
read by the statement too; so is everything in a process that is not a long-lived service, and an index
under MIN_ROWS fragments (the statement is fast there) or over MAX_BYTES of vectors (memory: 1,536 bytes a
fragment at 384 dimensions, ~380 MB at 247,762).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import numpy as np

from stigmergy.index.store import sqlite_postings
from stigmergy.index.store.sqlite_postings import database_path, version_key
from stigmergy.index.store.sqlite_schema import dbapi, marks

MIN_ROWS = sqlite_postings.MIN_ROWS  # the same floor as the held lists': below it the statements are fast
MAX_BYTES = 1 << 30


@dataclass(frozen=True)
class _Pages:
    """The `page_vectors` table: each page's centroid and lead vectors and its count of fragments."""

    ids: np.ndarray  # int64, ascending
    centroid: np.ndarray  # float32, a row per page
    lead: np.ndarray
    fragments: np.ndarray  # int64
    whole: bool  # every row read (False: one was of another width, and the statement answers)


_NO_PAGES = _Pages(np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros((0, 0), np.float32),
                   np.zeros(0, np.int64), False)


@dataclass(frozen=True)
class _Held:
    key: bytes
    ids: np.ndarray  # int64, ascending: the fragments that have a vector
    rows: np.ndarray  # int64: each id's row of `mat`
    mat: np.ndarray | None  # float32; None: not held at this version (too few fragments or too many bytes)
    pages: _Pages = _NO_PAGES


_LOCK = threading.Lock()
_HELD: dict[tuple[str, str], _Held] = {}
_READERS: dict[tuple[str, str], threading.Thread] = {}


def _read_all(conn: Any, path: str, fingerprint: str) -> _Held:
    """The matrix at the database's version, read in one snapshot on `conn`."""
    conn.execute("BEGIN")
    try:
        key = version_key(conn, path)
        nothing = _Held(key, np.zeros(0, np.int64), np.zeros(0, np.int64), None)
        # A small index (most of them) is told apart before the vectors are counted.
        if int(conn.execute("SELECT count(*) FROM fragments").fetchone()[0]) < MIN_ROWS:
            return nothing
        n = int(conn.execute("SELECT count(*) FROM vectors WHERE fingerprint = ?", (fingerprint,)).fetchone()[0])
        first = conn.execute("SELECT length(vector) FROM vectors WHERE fingerprint = ? LIMIT 1",
                             (fingerprint,)).fetchone()
        width = int(first[0]) if first and first[0] else 0
        if not width or width % 4 or n * width > MAX_BYTES:
            return nothing
        mat = np.empty((n, width // 4), dtype=np.float32)
        row_of: dict[str, int] = {}
        for i, (digest, blob) in enumerate(conn.execute(
                "SELECT hash, vector FROM vectors WHERE fingerprint = ?", (fingerprint,))):
            if i < n and len(blob) == width:
                mat[i] = np.frombuffer(blob, dtype=np.float32)
                row_of[digest] = i
        pairs = [(fid, row_of[digest]) for fid, digest in conn.execute("SELECT id, hash FROM fragments ORDER BY id")
                 if digest in row_of]
        pages = _read_pages(conn, width)
    finally:
        conn.execute("COMMIT")
    table = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return _Held(key, table[:, 0].copy(), table[:, 1].copy(), mat, pages)


def _read_pages(conn: Any, width: int) -> _Pages:
    n = int(conn.execute("SELECT count(*) FROM page_vectors").fetchone()[0])
    ids = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    centroid = np.empty((n, width // 4), dtype=np.float32)
    lead = np.empty((n, width // 4), dtype=np.float32)
    got = 0
    for pid, c, first, k in conn.execute("SELECT page, centroid, lead, fragments FROM page_vectors ORDER BY page"):
        if got < n and len(c) == width and len(first) == width:
            ids[got], counts[got] = pid, k
            centroid[got] = np.frombuffer(c, dtype=np.float32)
            lead[got] = np.frombuffer(first, dtype=np.float32)
            got += 1
    return _Pages(ids[:got].copy(), centroid[:got].copy(), lead[:got].copy(), counts[:got].copy(), got == n)


def _reader(path: str, fingerprint: str) -> None:
    try:
        conn = dbapi().connect(f"file:{quote(path)}?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False)
        try:
            held = _read_all(conn, path, fingerprint)
        finally:
            conn.close()
        with _LOCK:
            _HELD[(path, fingerprint)] = held
    except Exception:  # noqa: BLE001 - a matrix not read leaves the statement answering, as before
        with _LOCK:
            _HELD.pop((path, fingerprint), None)
    finally:
        with _LOCK:
            _READERS.pop((path, fingerprint), None)


def _held(conn: Any, fingerprint: str) -> _Held | None:
    """The matrix if it is held at the database's version now; else None, and a reader started."""
    path = database_path(conn)
    if path.startswith("memory:"):
        return None
    key = version_key(conn, path)
    slot = (path, fingerprint)
    with _LOCK:
        held = _HELD.get(slot)
        if held is not None and held.key == key:
            return held if held.mat is not None else None
        _HELD.pop(slot, None)  # another version's: its memory goes now, not when the next is read
        if slot not in _READERS:
            thread = threading.Thread(target=_reader, args=(path, fingerprint), name="stigmergy-vectors", daemon=True)
            _READERS[slot] = thread
            thread.start()
    return None


def prepare(conn: Any, fingerprint: str) -> None:
    """Start reading the matrix now if it is not held at this version (a long-lived session's start)."""
    if fingerprint:
        _held(conn, fingerprint)


def settle() -> None:
    """Wait for the readers running now (tests)."""
    with _LOCK:
        running = list(_READERS.values())
    for thread in running:
        thread.join()


def _statement(conn: Any, fingerprint: str, ids: Sequence[int]) -> list[tuple[int, bytes]]:
    if not ids:
        return []
    return conn.execute(
        f"SELECT f.id, v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash AND v.fingerprint = ? "
        f"WHERE f.id IN ({marks(ids)})", (fingerprint, *ids)).fetchall()


def _stack(rows: list[tuple[int, bytes]]) -> np.ndarray:
    return np.frombuffer(b"".join(v for _, v in rows), dtype=np.float32).reshape(len(rows), -1)


def vectors(conn: Any, fingerprint: str, ids: Sequence[int], warm: bool) -> tuple[list[int], np.ndarray | None]:
    """(the ids of `ids` that have a vector, their vectors as the rows of one float32 matrix; None when none
    has), from the held matrix where it holds them, else from the tables."""
    held = _held(conn, fingerprint) if warm and ids else None
    if held is None or held.mat is None:
        rows = _statement(conn, fingerprint, ids)
        return ([fid for fid, _ in rows], _stack(rows)) if rows else ([], None)
    want = np.asarray(ids, dtype=np.int64)
    if len(held.ids):
        at = np.minimum(np.searchsorted(held.ids, want), len(held.ids) - 1)
        hit = held.ids[at] == want
    else:
        at, hit = np.zeros(len(want), np.int64), np.zeros(len(want), dtype=bool)
    found, mat = want[hit].tolist(), held.mat[held.rows[at[hit]]]
    rows = [(fid, blob) for fid, blob in _statement(conn, fingerprint, want[~hit].tolist())
            if len(blob) == 4 * mat.shape[1]]
    if rows:
        found += [fid for fid, _ in rows]
        mat = np.vstack([mat, _stack(rows)])
    return (found, mat) if found else ([], None)


def page_vectors(conn: Any, fingerprint: str, pages: Sequence[int], min_fragments: int,
                 warm: bool) -> dict[int, tuple[np.ndarray, np.ndarray, int]] | None:
    """Each of `pages` that has page vectors from at least `min_fragments` fragments: (centroid, lead,
    fragments), as the `page_vectors` table holds them, from the held copy; None when it is not held (the
    statement answers) or holds a page vector of another width than the fragments' (none is left out)."""
    held = _held(conn, fingerprint) if warm and pages else None
    if held is None or held.mat is None:
        return None
    table = held.pages
    if not table.whole:
        return None
    want = np.asarray(pages, dtype=np.int64)
    if not len(table.ids):
        return {}
    at = np.minimum(np.searchsorted(table.ids, want), len(table.ids) - 1)
    hit = (table.ids[at] == want) & (table.fragments[at] >= min_fragments)
    return {pid: (table.centroid[i], table.lead[i], int(table.fragments[i]))
            for pid, i in zip(want[hit].tolist(), at[hit].tolist(), strict=True)}
