"""The vector arm over a large PostgreSQL layer in a warm session: SQLite's method over vectors held in
process, read once per generation.

Under the 50-reader load at 247,762 fragments, pgvector's HNSW scan of the 223,001-vector public layer was
~7 ms of the database's CPU a search (ef_search 100, a real query), half of all it did for a search. A
long-lived session (`serve`, MCP: `keep_warm`) instead holds each HNSW layer's vectors and answers as the
SQLite index answers a layer past EXACT_SCAN_MAX_ROWS: the 1-bit prefilter's `prefilter` nearest by Hamming
distance (the vectors' signs, counted with numpy: `sqlite_bits.nearest`, ties by fragment id), then the
exact cosine distance of those candidates over the held float32 vectors. The caller keeps the scope: only
the reader's layers are scanned, and the rows picked go through the statement that names the selection's
condition (`pg_search.nearest`). HNSW still answers every session that is not warm, a layer not held, and
every search until the vectors are read.

Read in the background, on a connection of its own, in one snapshot at the generation asked for
(`COPY ... TO STDOUT (FORMAT BINARY)` parsed by numpy: ~380 MB of vectors at 247,762 fragments); a search
that finds them missing or at another generation starts the reader and is answered by HNSW. Held per
(server, database, schema) in a process, shared by its sessions; not over MAX_BYTES of vectors (memory:
1,540 bytes a vector at 384 dimensions, plus 56 for its bits and id). A read that gives nothing (over
the cap, a row that does not parse) is not tried again at the same generation.

The same read takes every page's centroid and lead vectors (`page_vectors`, ~3 KB a page more at 384
dimensions, within what MAX_BYTES leaves after the layers' vectors), which each search reads for its ~250
candidate pages: held whole, no page of them is read by id again at that generation (`page_vectors`
below; `pg_held` holds them by id otherwise).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from stigmergy.index.store import sqlite_bits
from stigmergy.index.store.background import Readers
from stigmergy.index.store.pg_held import place, snapshot

MAX_BYTES = 1 << 30
_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


@dataclass(frozen=True)
class _Layer:
    bits: sqlite_bits.LayerBits  # rowids: the fragment ids, ascending; tie: the same (ties by id)
    mat: np.ndarray  # float32, a row per id
    norms: np.ndarray  # float32: each row's length


@dataclass(frozen=True)
class _Pages:
    """Every row of `page_vectors` at the hold's generation, by position in `ids` (ascending)."""

    ids: np.ndarray  # int64
    centroid: np.ndarray  # float32, a row per page
    lead: np.ndarray  # float32
    fragments: np.ndarray  # int32


@dataclass(frozen=True)
class _Hold:
    generation: int
    layers: dict[str, _Layer]
    pages: _Pages | None = None  # None: not read (another dimension among them, or a row that did not parse)


_LOCK = threading.Lock()
_HELD: dict[tuple[str, str], _Hold] = {}
_READERS = Readers("stigmergy-pg-vectors")
_TRIED: dict[tuple[str, str], int] = {}  # the generation a reader last gave nothing for: not read again


def parse_copy(blob: bytes, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids, float32 vectors) from a binary COPY of `(id bigint, embedding vector)` rows of `dim` dimensions
    (PostgreSQL's COPY header, then each row as its field count and each field's length and bytes; pgvector
    sends a vector as its dimensions, an unused int16 and big-endian float4s). ValueError when it is not that."""
    if not blob.startswith(_SIGNATURE) or len(blob) < 21:
        raise ValueError("not a binary COPY")
    extension = int.from_bytes(blob[15:19], "big")
    start = 19 + extension
    row = np.dtype([("fields", ">i2"), ("id_len", ">i4"), ("id", ">i8"), ("vec_len", ">i4"), ("dim", ">i2"),
                    ("unused", ">i2"), ("v", ">f4", (dim,))])
    body = len(blob) - start - 2  # the trailer: a field count of -1
    if body < 0 or body % row.itemsize or blob[-2:] != b"\xff\xff":
        raise ValueError("rows of another width (a vector of other dimensions, or a null)")
    rows = np.frombuffer(blob, dtype=row, count=body // row.itemsize, offset=start)
    if (bool(np.any(rows["fields"] != 2)) or bool(np.any(rows["id_len"] != 8))
            or bool(np.any(rows["vec_len"] != 4 + 4 * dim)) or bool(np.any(rows["dim"] != dim))):
        raise ValueError("a row that is not (id, vector) of the expected dimensions")
    return rows["id"].astype(np.int64), rows["v"].astype(np.float32)


def parse_page_copy(blob: bytes, dim: int) -> _Pages:
    """The rows of a binary COPY of `(page bigint, centroid vector, lead vector, fragments integer)` with
    vectors of `dim` dimensions, ascending by page. ValueError when it is not that."""
    if not blob.startswith(_SIGNATURE) or len(blob) < 21:
        raise ValueError("not a binary COPY")
    start = 19 + int.from_bytes(blob[15:19], "big")
    vec = [("len", ">i4"), ("dim", ">i2"), ("unused", ">i2"), ("v", ">f4", (dim,))]
    row = np.dtype([("fields", ">i2"), ("id_len", ">i4"), ("id", ">i8"), ("c", vec), ("l", vec),
                    ("n_len", ">i4"), ("n", ">i4")])
    body = len(blob) - start - 2
    if body < 0 or body % row.itemsize or blob[-2:] != b"\xff\xff":
        raise ValueError("rows of another width (a vector of other dimensions, or a null)")
    rows = np.frombuffer(blob, dtype=row, count=body // row.itemsize, offset=start)
    if (bool(np.any(rows["fields"] != 4)) or bool(np.any(rows["id_len"] != 8)) or bool(np.any(rows["n_len"] != 4))
            or any(bool(np.any(rows[c]["len"] != 4 + 4 * dim)) or bool(np.any(rows[c]["dim"] != dim)) for c in ("c", "l"))):
        raise ValueError("a row that is not (page, centroid, lead, fragments) of the expected dimensions")
    ids = rows["id"].astype(np.int64)
    if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):
        raise ValueError("pages out of order")
    return _Pages(ids, rows["c"]["v"].astype(np.float32), rows["l"]["v"].astype(np.float32),
                  rows["n"].astype(np.int32))


def _layer(ids: np.ndarray, mat: np.ndarray) -> _Layer:
    if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):  # the COPY's order is the id's; else sort here
        order = np.argsort(ids, kind="stable")
        ids, mat = np.ascontiguousarray(ids[order]), np.ascontiguousarray(mat[order])
    packed = np.packbits(mat > 0, axis=1, bitorder="little")
    if packed.shape[1] % 8 == 0:
        packed = packed.view(np.uint64)
    bits = sqlite_bits.LayerBits(ids, np.ascontiguousarray(packed.T), ids)
    # Row lengths without a temporary the size of the matrix (np.linalg.norm made one: 2.4 of 5.7 s a read).
    return _Layer(bits, mat, np.sqrt(np.einsum("ij,ij->i", mat, mat)).astype(np.float32))


def _read(url: str, schema: str, generation: int) -> _Hold | None:
    with snapshot(url, schema, generation) as conn:
        if conn is None:
            return None
        graphs = conn.execute("SELECT layer, dimension FROM vec_indexes ORDER BY layer").fetchall()
        counts = dict(conn.execute("SELECT layer, count(*) FROM vec GROUP BY layer").fetchall())
        used = sum(int(counts.get(layer, 0)) * (4 * int(dim) + 56) for layer, dim in graphs)
        if used > MAX_BYTES:
            return None
        layers: dict[str, _Layer] = {}
        for layer, dim in graphs:
            # One growing buffer, not a bytes object a row: 223,001 small allocations stayed in the
            # reader thread's malloc arena after the read (~+200 MB of each worker's PSS).
            blob = bytearray()
            with conn.cursor().copy("COPY (SELECT id, embedding FROM vec WHERE layer = %s ORDER BY id) TO STDOUT "
                                    "(FORMAT BINARY)", (layer,)) as copy:
                for chunk in copy:
                    blob += chunk
            ids, mat = parse_copy(bytes(blob), int(dim))
            del blob
            layers[str(layer)] = _layer(ids, mat)
        pages = _read_pages(conn, graphs, MAX_BYTES - used)
    return _Hold(generation, layers, pages)


def _read_pages(conn: Any, graphs: list[tuple[str, int]], room: int) -> _Pages | None:
    """Every page's centroid and lead vectors, when they are all of the graphs' one dimension and within
    `room` bytes (what MAX_BYTES leaves after the layers' vectors); else None (read by id, `pg_held`)."""
    dims = {int(dim) for _, dim in graphs}
    n = int(conn.execute("SELECT count(*) FROM page_vectors").fetchone()[0])
    if len(dims) != 1 or not n or n * (8 * min(dims) + 40) > room:
        return None
    blob = bytearray()
    with conn.cursor().copy("COPY (SELECT page, centroid, lead, fragments FROM page_vectors ORDER BY page) TO STDOUT "
                            "(FORMAT BINARY)") as copy:
        for chunk in copy:
            blob += chunk
    try:
        return parse_page_copy(bytes(blob), min(dims))
    except ValueError:
        return None  # a page of another dimension: read by id as before


def _reader(url: str, schema: str, where: tuple[str, str], generation: int) -> None:
    try:
        hold = _read(url, schema, generation)
    except Exception:  # noqa: BLE001 - a reader that fails leaves HNSW answering; the next generation tries again
        hold = None
    with _LOCK:
        if hold is not None:
            _HELD[where] = hold
        else:
            _TRIED[where] = generation  # over the cap, another generation by now, or a read that failed


def _hold(conn: Any, url: str, schema: str, generation: int) -> _Hold | None:
    where = place(conn, schema)
    with _LOCK:
        hold = _HELD.get(where)
        if hold is not None and hold.generation == generation:
            return hold
        if hold is not None and hold.generation < generation:
            _HELD.pop(where, None)  # memory back before the next is read
        if url and _TRIED.get(where) != generation and not _READERS.running(where):
            _READERS.start(where, _reader, url, schema, where, generation)
    return None


def settle() -> None:
    """Wait for the readers started so far (tests)."""
    _READERS.settle()


def nearest(conn: Any, url: str, schema: str, generation: int, layer: str, query: np.ndarray,
            k: int) -> list[tuple[float, int]] | None:
    """The `k` (cosine distance, fragment) of `layer` nearest `query` by the 1-bit prefilter and the exact
    rerank, nearest first; None when the layer is not held at `generation` (HNSW answers; the vectors are
    read in the background)."""
    if getattr(np, "bitwise_count", None) is None:
        return None  # numpy before 2.0: no popcount to count the bits with (sqlite_bits); HNSW answers
    hold = _hold(conn, url, schema, generation)
    if hold is None:
        return None
    held = hold.layers.get(layer)
    if held is None:
        return None
    if not len(held.bits.rowids) or k <= 0:
        return []
    cand = np.asarray(sqlite_bits.nearest(held.bits, query, k), dtype=np.int64)
    rows = np.searchsorted(held.bits.rowids, cand)
    q = np.asarray(query, dtype=np.float32)
    qn = float(np.linalg.norm(q)) or 1.0
    dist = 1.0 - (held.mat[rows] @ q) / (np.maximum(held.norms[rows], 1e-12) * qn)
    out = sorted(zip(dist.tolist(), cand.tolist(), strict=True))
    return [(float(d), int(f)) for d, f in out]


def page_vectors(conn: Any, schema: str, generation: int,
                 pages: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray, int]] | None:
    """`pages`' (centroid, lead, fragments) rows from the hold at `generation` (a page without a row is
    absent, as from the statement); None when page vectors are not held at that generation."""
    with _LOCK:
        hold = _HELD.get(place(conn, schema))
    if hold is None or hold.generation != generation or hold.pages is None:
        return None
    held = hold.pages
    if not len(held.ids) or not pages:
        return {}
    want = np.asarray(pages, dtype=np.int64)
    at = np.minimum(np.searchsorted(held.ids, want), len(held.ids) - 1)
    found = held.ids[at] == want
    return {int(pid): (held.centroid[row], held.lead[row], int(held.fragments[row]))
            for pid, row in zip(want[found].tolist(), at[found].tolist(), strict=True)}


def vectors(conn: Any, schema: str, generation: int, ids: list[int]) -> dict[int, np.ndarray]:
    """The held vectors of those of `ids` that are in a held layer at `generation` (the others are not
    answered here)."""
    with _LOCK:
        hold = _HELD.get(place(conn, schema))
    if hold is None or hold.generation != generation or not ids:
        return {}
    want = np.asarray(ids, dtype=np.int64)
    out: dict[int, np.ndarray] = {}
    for held in hold.layers.values():
        known = held.bits.rowids
        if not len(known):
            continue
        at = np.minimum(np.searchsorted(known, want), len(known) - 1)
        found = known[at] == want
        for fid, row in zip(want[found].tolist(), at[found].tolist(), strict=True):
            out[int(fid)] = held.mat[row]
    return out
