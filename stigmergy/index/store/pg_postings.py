"""The PostgreSQL lexical arm's cut counted in the serving process, over posting lists read once per
database generation.

Under the 50-reader load the impact walk (`pg_impact.walk`) was most of a search's database CPU: ~44 of
~57 ms at 30,839 fragments (two rounds, each reading its lists and scoring the fragments met against their
tsvectors). A long-lived session (`serve`, MCP: `keep_warm`) instead reads each query lexeme's postings
once, with every fragment's token count, layer and page, and holds them until the index's generation moves
(`meta.generation`: every writer's transaction bumps it, `PostgresIndexStore.transaction`); a query is then
a few vectorised passes over its lexemes' lists, and the database answers two short statements (the
generation, and the check below).

**The same bm25.** A posting's term frequency is not stored, but its impact is, written as
`tf / (tf + k1 (1 - b + b len / R))` in float8 and rounded to float4 (`pg_impact`), with R in `meta` and
len the fragment's token count. So tf = impact x / (1 - impact) with x = k1 (1 - b + b len / R), and the
rounding is far from moving it by a half: its error is at most tf e (tf + x) / x for e ~6e-8, under 0.02
at the 255 positions a lexeme keeps, with x >= 0.3. A list whose counts do not come out whole within
0.25, or whose length differs from the lexeme's `terms.df`, is not used (the walk answers). Each term is
then `c x tf (k1 + 1) / (tf + k1 (1 - b + b len / avg))` at the column weights 1 (the default: tf is the
weighted count only then; other weights, a phrase and a filtered search go to the walk), summed per
fragment; the cut is the best `depth` by score, ties by id, as the walk's `ORDER BY s.score DESC, c.id`.
The sum's order may differ from the database's in the last bit (3.6e-15 at most over the load bench's
queries; the tests hold the two equal to 9 decimals).

**Scope.** The reader's layers are applied before the cut (each fragment's `fts.layer`, held with the
lists), and the rows picked are then checked in SQL, with the reader's layers in the statement
(`fragments.layer = ANY(...)`, and each row's page): a row that is not there as held (a stale or damaged hold)
drops what is held and the walk answers. A hold can lose nothing and show nothing outside the layers.

**Read ahead.** When a generation is first held, every lexeme's list is read in the background, on a
connection of its own, in one snapshot at that generation (one streamed `GROUP BY lexeme`, one core:
~8 s of the database's CPU and ~5 s of the process's at 247,762 fragments, 20.5 million postings); lists
a search needs before then are read by word as above. A generation that follows one which stood less than
READ_AHEAD_AFTER seconds is read ahead only once it has stood that long itself, so that a wiki pushed to
every few seconds does not re-read every list after each push. Under the load bench's queries, all different, a
worker otherwise read ~1 new list a search in steady state (~3 ms of the database's CPU each). Past
PRELOAD_MAX postings in all nothing is read ahead.

Held per (server, database, schema) and process, shared by the sessions of a process, at most
MAX_POSTINGS postings (6 bytes each: a 32-bit position, a 16-bit count), the least recently used lexemes
dropped first; 36 bytes a fragment for its id, length, layer, page and length norm. A process that
searches once (a command) never reads them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stigmergy.index.store.background import Readers
from stigmergy.index.store.held_lists import HeldLists
from stigmergy.index.store.pg_held import place, snapshot
from stigmergy.index.store.pg_text import K1, B, ids_literal

MIN_ROWS = 20_000  # under this the walk costs a few milliseconds: nothing to gain (as on SQLite)
MAX_POSTINGS = 40_000_000
# Every list is read ahead when a generation is first held, up to this many postings in all (20.5 million at
# 247,762 fragments: ~120 MB a process); past it the lists are read as the searches use them.
PRELOAD_MAX = 30_000_000
READ_AHEAD_AFTER = 60.0  # seconds a generation stands before its lists are read ahead, when the last did not
_BATCH = 500  # lists a fetch of the read ahead, and between its checks that the hold is still current
_WHOLE = 0.25  # a recovered count further than this from a whole number is not trusted


@dataclass
class _Held:
    """One schema's fragments at one generation: lengths, layers and pages by position in `ids`."""

    key: int
    ref: float  # R: the average length the impacts were written at
    ids: np.ndarray  # int64, ascending: every fragment of the full text
    ntok: np.ndarray  # float64: its token count
    layer: np.ndarray  # int32: the code of its `fts.layer`
    page: np.ndarray  # int64: its page
    codes: dict[str, int]
    lists: HeldLists = field(default_factory=lambda: HeldLists(MAX_POSTINGS))
    masks: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)
    _norm: tuple[float, np.ndarray] | None = None

    def norm(self, avg: float) -> np.ndarray:
        """k1 (1 - b + b len / avg) by fragment, at this generation's average (kept: one a generation)."""
        got = self._norm
        if got is None or got[0] != avg:
            got = self._norm = (avg, K1 * (1 - B + B * self.ntok / avg))
        return got[1]

    def readable(self, layers: Sequence[str]) -> np.ndarray:
        key = tuple(layers)
        with _LOCK:
            mask = self.masks.get(key)
        if mask is None:
            codes = [self.codes[name] for name in key if name in self.codes]
            mask = np.isin(self.layer, np.asarray(codes, dtype=np.int32))
            with _LOCK:
                self.masks[key] = mask
        return mask


_LOCK = threading.Lock()
_LOADING = threading.Lock()  # one load at a time in a process (four sessions would read the same rows)
_HELD: dict[tuple[str, str], _Held] = {}
_PRELOADS = Readers("stigmergy-pg-lists")
_SINCE: dict[tuple[str, str], float] = {}  # when this process last held a new generation here (monotonic)


def forget(conn: Any, schema: str) -> None:
    """Drop what is held for this schema (a check found it is not the database's any more)."""
    with _LOCK:
        _HELD.pop(place(conn, schema), None)


def _load(conn: Any, generation: int) -> _Held | None:
    """The fragments at `generation`, read in one snapshot (None: another generation by now, or too few)."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'impact_avg')").fetchall())
        if int(meta.get("generation", -1)) != generation or float(meta.get("impact_avg") or 0) <= 0:
            return None
        ids, ntok, page = conn.execute(
            "SELECT array_agg(t.id ORDER BY t.id), array_agg(t.ntok ORDER BY t.id), array_agg(f.page ORDER BY t.id) "
            "FROM fts t JOIN fragments f ON f.id = t.id").fetchone()
        if not ids or len(ids) < MIN_ROWS:
            return None
        ids_a = np.asarray(ids, dtype=np.int64)
        layer = np.full(len(ids_a), -1, dtype=np.int32)
        codes: dict[str, int] = {}
        for name, members in conn.execute("SELECT layer, array_agg(id) FROM fts GROUP BY layer ORDER BY layer"):
            code = codes.setdefault(str(name), len(codes))
            layer[np.searchsorted(ids_a, np.asarray(members, dtype=np.int64))] = code
    return _Held(generation, float(meta["impact_avg"]), ids_a, np.asarray(ntok, dtype=np.float64), layer,
                 np.asarray(page, dtype=np.int64), codes)


def _held(conn: Any, schema: str, generation: int, url: str = "") -> _Held | None:
    where = place(conn, schema)
    with _LOCK:
        held = _HELD.get(where)
    if held is not None and held.key == generation:
        return held
    with _LOADING:
        with _LOCK:
            held = _HELD.get(where)
        if held is None or held.key != generation:
            older = held is not None and held.key > generation  # a search that began before a write
            held = None if older else _load(conn, generation)
            with _LOCK:
                if held is not None:
                    _HELD[where] = held
                elif not older:
                    _HELD.pop(where, None)
            if held is not None and url:
                _start_preload(url, schema, where, held)
    return held


def _start_preload(url: str, schema: str, where: tuple[str, str], held: _Held) -> None:
    """Read `held`'s lists ahead: now when it is the first generation this process holds here or the one
    before it stood READ_AHEAD_AFTER seconds; else once this one has stood that long (a wiki pushed to every
    few seconds reads its lists by word, as before, instead of re-reading them all each time)."""
    now = time.monotonic()
    with _LOCK:
        before = _SINCE.get(where)
        _SINCE[where] = now
    deferred = before is not None and now - before < READ_AHEAD_AFTER
    _PRELOADS.start(where, _preloader, url, schema, where, held, deferred)


def _preloader(url: str, schema: str, where: tuple[str, str], held: _Held, deferred: bool) -> None:
    start = time.monotonic()
    while deferred and time.monotonic() - start < READ_AHEAD_AFTER:
        time.sleep(0.2)
        with _LOCK:
            if _HELD.get(where) is not held:
                return  # a newer generation came first: it decides for itself
    _preload(url, schema, where, held)


def _preload(url: str, schema: str, where: tuple[str, str], held: _Held) -> int:
    """Read every lexeme's list ahead into `held` (on a connection of its own, in one snapshot at its
    generation); stops when the hold is replaced. How many lists it held (0: over PRELOAD_MAX, or another
    generation by now). A list that does not decode is left to `_read`, which sends its search to the walk."""
    done = 0
    with snapshot(url, schema, held.key) as conn:
        if conn is None:
            return 0
        # One core: a read ahead after a write must not take the cores the searches are answered on.
        conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        dfs = {str(term): int(df) for term, df in conn.execute("SELECT term, df FROM terms")}
        if sum(dfs.values()) > PRELOAD_MAX:
            return 0
        with conn.cursor(name="stigmergy_lists") as cur:
            cur.itersize = _BATCH
            cur.execute("SELECT lexeme, array_send(array_agg(id)), array_send(array_agg(impact)) FROM postings "
                        "GROUP BY lexeme")
            batch: dict[str, tuple[np.ndarray, np.ndarray]] = {}
            for lexeme, ids, impacts in cur:
                got = _decode(held, dfs.get(str(lexeme), 0), bytes(ids), bytes(impacts))
                if got is not None:
                    batch[str(lexeme)] = got
                if len(batch) >= _BATCH:
                    with _LOCK:
                        if _HELD.get(where) is not held:
                            return done  # a newer generation: its own read ahead has started
                    held.lists.put(batch)
                    done += len(batch)
                    batch = {}
            held.lists.put(batch)
            done += len(batch)
    return done


def settle() -> None:
    """Wait for the reads ahead started so far (tests, benches)."""
    _PRELOADS.settle()


def _read(conn: Any, held: _Held, lexeme: str) -> tuple[np.ndarray, np.ndarray] | None:
    """`lexeme`'s fragments (positions in `held.ids`, ascending) and its count in each; None when the list is
    not the one `held` describes (another generation, a count that is not whole, a length that is not df)."""
    # The arrays in PostgreSQL's binary form, unsorted (the index-only scan's order): 4.5 against 13.5 ms
    # wall and 1.1 against 4.3 ms of client CPU for `array_agg(... ORDER BY id)` parsed as text (30 words of
    # ~14,000 postings at 247,762 fragments).
    generation, df, ids, impacts = conn.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'generation'), (SELECT df FROM terms WHERE term = %s), "
        "array_send(array_agg(id)), array_send(array_agg(impact)) FROM postings WHERE lexeme = %s",
        (lexeme, lexeme)).fetchone()
    if int(generation) != held.key:
        return None
    if ids is None:
        return (np.zeros(0, np.int32), np.zeros(0, np.uint16)) if not df else None
    return _decode(held, int(df or 0), bytes(ids), bytes(impacts))


def _decode(held: _Held, df: int, ids: bytes, impacts: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """One list from `array_send`'s bytes of its ids and impacts, as `_read` answers it (None: not `held`'s)."""
    fid, impact32 = unpack(ids, ">i8"), unpack(impacts, ">f4")
    if df != len(fid) or len(impact32) != len(fid):
        return None
    order = np.argsort(fid, kind="stable")
    fid, impact = fid[order], impact32[order].astype(np.float64)
    at = np.searchsorted(held.ids, fid)
    if bool(np.any(at >= len(held.ids))) or not np.array_equal(held.ids[np.minimum(at, len(held.ids) - 1)], fid):
        return None
    x = K1 * (1 - B + B * held.ntok[at] / held.ref)
    est = impact * x / (1.0 - impact)
    tf = np.rint(est)
    if (bool(np.any(~np.isfinite(est))) or bool(np.any(np.abs(est - tf) > _WHOLE)) or bool(np.any(tf < 1))
            or bool(np.any(tf > 0xFFFF))):
        return None
    return at.astype(np.int32), tf.astype(np.uint16)  # 6 bytes a posting


def unpack(blob: bytes, dtype: str) -> np.ndarray:
    """A one-dimensional array without nulls from `array_send`'s bytes (PostgreSQL's binary array form: the
    dimensions, the element type, then each element as its length and its big-endian bytes)."""
    if len(blob) < 12:
        raise ValueError("not an array")
    ndim, has_null = int.from_bytes(blob[0:4], "big"), int.from_bytes(blob[4:8], "big")
    width = np.dtype(dtype).itemsize
    if ndim == 0:
        return np.zeros(0, np.dtype(dtype).newbyteorder("="))
    n = int.from_bytes(blob[12:16], "big", signed=True)
    if ndim != 1 or has_null or n < 0 or len(blob) != 20 + n * (4 + width):
        raise ValueError("not a one-dimensional array without nulls of the expected width")
    rec = np.frombuffer(blob, dtype=np.dtype([("len", ">i4"), ("v", dtype)]), count=n, offset=20)
    if bool(np.any(rec["len"] != width)):
        raise ValueError("an element of another width")
    return rec["v"].astype(np.dtype(dtype).newbyteorder("="))


def _lists(conn: Any, held: _Held, lexemes: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]] | None:
    return held.lists.lists_for(list(lexemes), lambda lexeme: _read(conn, held, lexeme))


def cut(conn: Any, schema: str, generation: int, coef: dict[str, float], avg: float, layers: Sequence[str],
        depth: int, url: str = "") -> list[tuple[int, int, float, float]] | None:
    """The best `depth` (fragment, page, bm25, 0.0) in `layers` for single-word lexemes with coefficients
    `coef` (idf x copies), best first, ties by id, at column weights 1, from what is held at `generation`
    (read now where missing); None when the walk must answer (see the module's text). The caller checks the
    rows (`check`)."""
    if not coef or depth <= 0 or conn.info.transaction_status != 0:  # 0: idle, not inside a transaction
        return None
    held = _held(conn, schema, generation, url)
    if held is None:
        return None
    words = list(coef)
    lists = _lists(conn, held, words)
    if lists is None:
        return None
    norm = held.norm(avg or 1.0)
    ats = [at for at, _ in lists if len(at)]
    if not ats:
        return []
    parts = [coef[word] * f * (K1 + 1) / (f + norm[at])
             for word, (at, tf) in zip(words, lists, strict=True) if len(at) for f in (tf.astype(np.float64),)]
    # bincount adds in input order: each fragment's terms in the query's order, from 0.0. Every term is
    # positive (idf >= 1e-6, tf >= 1), so a fragment with a score is a fragment that matched.
    score = np.bincount(np.concatenate(ats), weights=np.concatenate(parts), minlength=len(held.ids))
    matched = np.flatnonzero(score)
    matched = matched[held.readable(layers)[matched]]  # the reader's layers before the cut
    if not len(matched):
        return []
    s = -score[matched]
    if len(matched) > depth:
        edge = np.partition(s, depth - 1)[depth - 1]
        keep = np.flatnonzero(s <= edge)
        matched, s = matched[keep], s[keep]
    order = np.lexsort((held.ids[matched], s))[:depth]
    best = matched[order]
    return [(int(f), int(p), float(-v), 0.0)
            for f, p, v in zip(held.ids[best].tolist(), held.page[best].tolist(), s[order].tolist(), strict=True)]


def check(conn: Any, schema: str, rows: Sequence[tuple[int, int, float, float]], layers: Sequence[str]) -> bool:
    """Are these rows' fragments in the reader's layers and of the pages held? (SQL with the layers in it.)
    When not, what is held is dropped."""
    if not rows:
        return True
    # The fragment's own layer column (written with its page's, in the page's transaction): one index probe
    # a row (joining `fts` and `pages` too cost 2.4 against 1.2 ms for 400 rows).
    found = dict(conn.execute(
        "SELECT f.id, f.page FROM fragments f WHERE f.id = ANY(%s::bigint[]) AND f.layer = ANY(%s::text[])",
        (ids_literal(r[0] for r in rows), list(layers))).fetchall())
    if len(found) == len(rows) and all(found.get(fid) == page for fid, page, _, _ in rows):
        return True
    forget(conn, schema)
    return False
