"""The SQLite lexical arm's first cut counted in process: FTS5's own bm25, over posting lists read once.

FTS5 ranks every match of a query: for each matching row it seeks the row's size in `fts_docsize` and calls
bm25 through the auxiliary-function API (~0.7 us a row). The load bench's five-word questions match 30,000
to 170,000 of 247,762 fragments, so that walk was 66-75 ms of a ~100 ms search (docs/team.md). Here each
query token's posting list (rowid, occurrences) is read once from FTS5's own index (an `fts5vocab`
instance table) and held, with every row's size and the table's averages, until the full text changes;
a query is then a few vectorised passes over its tokens' lists.

Exact, not an approximation: the scores are FTS5's bit for bit and the cut is FTS5's, ties in rowid order
(`ORDER BY s LIMIT n` over a match read in rowid order), because the arithmetic is FTS5's, in its order
(sqlite 3 `fts5_aux.c`, `fts5Bm25Function`):

    idf   = log((N - nHit + 0.5) / (nHit + 0.5)), 1e-6 when <= 0     (N rows, nHit rows holding the phrase)
    score = sum over the query's phrases, in order, of
            idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl)))

with f the phrase's occurrences in the row weighted by column, D the row's tokens (every column), avgdl
the table's tokens over its rows, k1 1.2, b 0.75; bm25() returns -score. `tests/test_sqlite_postings.py`
holds the two equal. What is left to FTS5's statement (`cut` answers None): a term that is not one token
(a phrase needs positions), column weights other than 1 (f would be a weighted sum whose rounding depends
on the order of the occurrences), a table under MIN_ROWS rows (FTS5 is fast there), and a token not held
yet, or nothing held, in a process that is not a long-lived service (reading a common token's list costs
about one FTS5 search, and the sizes and the page map ~1 s at 247,762 rows: only a `warm` session, `serve`
or MCP, reads them; a command that searches once never pays for them).

The reader's layers are applied before the cut, through a map of each row's page and each page's layer held
with the lists (and the entity arm's source mentions use it too: a match's rows looked up here instead of
joined to their pages row by row). The map is as current as the full text: the index writes a page's
pages, fragments and full-text rows in one transaction and never updates a page in place. Still, a
caller checks every row the map picked against the tables (`sqlite_lexical`) and calls `forget` when one
is not as the map says, so a stale or damaged map can lose a row, never show one outside the reader's layers.

Held per database file, shared by the sessions of a process (each reads through its own connection), and
dropped whole when FTS5's structure or averages record changes (every write to the full text does).
Memory: 6 bytes a posting (a 32-bit rowid, a 16-bit count), at most MAX_POSTINGS of them, the least
recently used tokens dropped first; 20 bytes a row and 13 a page for the sizes and the map.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stigmergy.index.store.held_lists import HeldLists
from stigmergy.index.store.pg_text import K1, B, idf  # FTS5's bm25 constants and idf, written once

# Below this many rows FTS5's statement costs a few milliseconds: nothing to gain.
MIN_ROWS = 20_000
# Postings held per database (6 bytes each: ~240 MB at the cap).
MAX_POSTINGS = 40_000_000
# FTS5's records in its `%_data` table (fts5Int.h: FTS5_AVERAGES_ROWID, FTS5_STRUCTURE_ROWID).
_AVERAGES = 1
_STRUCTURE = 10
_VOCAB = "temp.stigmergy_fts_instances"
# Terms whose tokens are remembered (a term's tokens never change: the tokenizer is the table's).
_TERMS_MAX = 50_000
# Entity-name matches whose source pages are remembered per version (a few KB each).
_SOURCES_MAX = 4_096


def varints(blob: bytes) -> list[int]:
    """FTS5's varints (SQLite's: big-endian 7-bit groups, the ninth byte whole)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for step in range(9):
            byte = blob[i]
            i += 1
            if step == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


class _Tokens:
    """A term's tokens as the full text's tokenizer cuts it (porter unicode61), through a private in-memory
    FTS5 table of the same SQLite build."""

    def __init__(self, tokenize: str) -> None:
        from stigmergy.index.store.sqlite_schema import dbapi

        self.conn = dbapi().connect(":memory:", check_same_thread=False, isolation_level=None)
        self.conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize={tokenize!r})")
        self.conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        self.lock = threading.Lock()
        self.memo: dict[str, tuple[str, ...]] = {}

    def of(self, term: str) -> tuple[str, ...]:
        with self.lock:
            held = self.memo.get(term)
            if held is None:
                self.conn.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (term,))
                held = tuple(r[0] for r in self.conn.execute("SELECT term FROM v ORDER BY offset"))
                self.conn.execute("DELETE FROM t")
                if len(self.memo) >= _TERMS_MAX:
                    self.memo.clear()
                self.memo[term] = held
            return held


@dataclass
class _Held:
    """One database's full text as bm25 needs it, at one version (`key`)."""

    key: bytes
    rows: int
    avgdl: float
    sizes: np.ndarray  # float64 by rowid: the row's tokens over every column
    pages: _Pages
    lists: HeldLists = field(default_factory=lambda: HeldLists(MAX_POSTINGS))
    # The entity arm's source mentions: a match's source pages (every layer) in path order, at this version.
    sources: OrderedDict[str, np.ndarray] = field(default_factory=OrderedDict)

    def readable(self, layers: tuple[str, ...]) -> np.ndarray:
        """By rowid: the row's page is in one of `layers`."""
        with _LOCK:
            mask = self.pages.masks.get(layers)
        if mask is None:
            codes = [self.pages.codes[name] for name in layers if name in self.pages.codes]
            mask = np.isin(self.pages.row_layer, np.asarray(codes, dtype=np.int32))
            with _LOCK:
                self.pages.masks[layers] = mask
        return mask


@dataclass
class _Pages:
    """Which page each full-text row is of, and what the searches ask of that page, at the same version as
    the full text (the index writes a page's rows, fragments and full text in one transaction, and never
    updates a page in place). What is picked through it is checked against the tables before it is used."""

    page_of: np.ndarray  # int64 by rowid: the row's page (-1: none)
    row_layer: np.ndarray  # int32 by rowid: the code of its page's layer (-1: none)
    page_layer: np.ndarray  # int32 by page id: the code of its layer (-1: none)
    codes: dict[str, int]
    source: np.ndarray  # bool by page id: a source page
    order: np.ndarray  # int64 by page id: its place in byte order of path, as ORDER BY p.path sorts
    masks: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)


_LOCK = threading.Lock()
_HELD: dict[str, _Held] = {}
_TOKENIZERS: dict[str, _Tokens] = {}
_TOKENIZE_RE = re.compile(r"tokenize\s*=\s*'([^']*)'")


def _tokens(tokenize: str) -> _Tokens:
    with _LOCK:
        tok = _TOKENIZERS.get(tokenize)
        if tok is None:
            tok = _TOKENIZERS[tokenize] = _Tokens(tokenize)
        return tok


def version_key(conn: Any, path: str) -> bytes:
    """The full text's version: its structure record (a new one with every write) and its averages, and the
    file itself (a rebuild into a new file may write the same records over other rowids)."""
    rows = dict(conn.execute("SELECT id, block FROM fts_data WHERE id IN (?, ?)", (_AVERAGES, _STRUCTURE)))
    try:
        st = os.stat(path)
        file = f"{st.st_dev}:{st.st_ino}".encode()
    except OSError:
        file = path.encode()
    return file + b"|" + bytes(rows.get(_STRUCTURE) or b"") + b"|" + bytes(rows.get(_AVERAGES) or b"")


def _load(conn: Any, key: bytes) -> _Held | None:
    block = conn.execute("SELECT block FROM fts_data WHERE id = ?", (_AVERAGES,)).fetchone()
    if block is None:
        return None
    averages = varints(bytes(block[0]))
    rows, tokens = averages[0], sum(averages[1:])
    if rows == 0 or rows < MIN_ROWS:
        return None
    top = conn.execute("SELECT max(id) FROM fts_docsize").fetchone()[0] or 0
    if top >= 2**31 or top > 4 * rows + 1_000_000:
        return None  # sizes are held by rowid: sparse or huge rowids are left to FTS5
    sizes = np.zeros(int(top) + 1, dtype=np.float64)
    for rowid, blob in conn.execute("SELECT id, sz FROM fts_docsize"):
        sizes[rowid] = sum(varints(bytes(blob)))
    pages = _load_pages(conn, len(sizes))
    return None if pages is None else _Held(key, rows, float(tokens) / float(rows), sizes, pages)


def _load_pages(conn: Any, n_rows: int) -> _Pages | None:
    listed = conn.execute("SELECT id, layer, type = 'source', path FROM pages").fetchall()
    top = max((r[0] for r in listed), default=0)
    if top >= 2**31 or top > 4 * len(listed) + 1_000_000:
        return None
    codes: dict[str, int] = {}
    layer_of = np.full(top + 1, -1, dtype=np.int32)
    source = np.zeros(top + 1, dtype=bool)
    order = np.zeros(top + 1, dtype=np.int64)
    for place, (pid, layer, is_source, _) in enumerate(sorted(listed, key=lambda r: str(r[3]).encode("utf-8"))):
        layer_of[pid] = codes.setdefault(str(layer), len(codes))
        source[pid] = bool(is_source)
        order[pid] = place
    page_of = np.full(n_rows, -1, dtype=np.int64)
    for fid, pid in conn.execute("SELECT id, page FROM fragments"):
        if 0 <= fid < n_rows and 0 <= pid <= top:
            page_of[fid] = pid
    row_layer = np.where(page_of >= 0, layer_of[np.maximum(page_of, 0)], -1).astype(np.int32)
    return _Pages(page_of, row_layer, layer_of, codes, source, order)


def _read(conn: Any, token: str) -> tuple[np.ndarray, np.ndarray]:
    """`token`'s rows (ascending) and its occurrences in each, over every column: one row a occurrence in
    FTS5's order (row, column, offset), read as one string (a Python row each would cost 3x more: 154 ->
    43 ms for a token in 120,210 rows of 247,762) and counted by runs."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} USING fts5vocab(main, 'fts', 'instance')")
    text = conn.execute(f"SELECT group_concat(doc) FROM {_VOCAB} WHERE term = ?", (token,)).fetchone()[0]
    if not text:
        return np.zeros(0, np.int32), np.zeros(0, np.uint16)
    docs = np.fromstring(text, dtype=np.int64, sep=",")
    if len(docs) != text.count(",") + 1:
        raise ValueError(f"could not read the occurrences of {token!r}")
    if len(docs) > 1 and bool(np.any(docs[1:] < docs[:-1])):
        rows, counts = np.unique(docs, return_counts=True)  # not in row order: count them by value
    else:
        starts = np.flatnonzero(np.concatenate(([True], docs[1:] != docs[:-1])))
        rows, counts = docs[starts], np.diff(np.append(starts, len(docs)))
    return rows.astype(np.int32), counts.astype(np.uint16 if counts.max() <= 0xFFFF else np.uint32)


def database_path(conn: Any) -> str:
    for _, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return _real(file) if file else f"memory:{id(conn)}"
    return f"memory:{id(conn)}"


@functools.lru_cache(maxsize=64)
def _real(file: str) -> str:
    """The file's resolved path, resolved once (a search asks several times; a file replaced under the same
    name is told apart by `version_key`, which holds its inode)."""
    return os.path.realpath(file)


def _tokenizer_of(conn: Any) -> str:
    """The full text's tokenizer as its table declares it (FTS5's default where it names none)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'fts'").fetchone()
    found = _TOKENIZE_RE.search(row[0] if row else "")
    return found.group(1) if found else "unicode61"


@contextmanager
def _snapshot(conn: Any, load: bool) -> Iterator[_Held | None]:
    """One read transaction on `conn` (unless one is open: the caller's then) and the held full text at its
    version, read now if it is not held and `load` (None: FTS5's statement answers). The transaction ends
    however the block does."""
    began = not conn.in_transaction
    if began:
        conn.execute("BEGIN")  # one snapshot for the version, the sizes, the map and the lists
    try:
        path = database_path(conn)
        key = version_key(conn, path)
        with _LOCK:
            held = _HELD.get(path)
        if (held is None or held.key != key) and not load:
            held = None
        elif held is None or held.key != key:
            held = _load(conn, key)
            with _LOCK:
                if held is None:
                    _HELD.pop(path, None)
                else:
                    _HELD[path] = held
        yield held if held is not None and held.rows >= MIN_ROWS else None
    finally:
        if began and conn.in_transaction:
            conn.execute("COMMIT")


def _failures() -> tuple[type[BaseException], ...]:
    """What reading FTS5's own tables may raise here: the database's errors, a list that does not parse."""
    from stigmergy.index.store.sqlite_schema import dbapi

    return (dbapi().Error, ValueError)


def forget(conn: Any) -> None:
    """Drop what is held for `conn`'s database (a check found it is not the database's any more)."""
    with _LOCK:
        _HELD.pop(database_path(conn), None)


def cut(conn: Any, terms: list[str], depth: int, warm: bool,
        layers: tuple[str, ...] | None = None) -> list[tuple[int, int, float]] | None:
    """The best `depth` rows of the FTS5 query matching any of `terms` (each a quoted phrase) among the rows
    of pages in `layers` (None: every row), as `(rowid, page, bm25)` best first, exactly as
    `SELECT rowid, bm25(fts, 1, 1, 1, 1, 0) AS s ... ORDER BY s LIMIT depth` returns them (page -1: the
    row has none); None when FTS5's statement must answer (see the module's text)."""
    if not warm and not _HELD:
        return None  # a command's process: nothing held, nothing to read (not even the tokenizer)
    tokenizer = _tokens(_tokenizer_of(conn))
    phrases: list[str] = []
    for term in terms:
        toks = tokenizer.of(term)
        if len(toks) != 1:
            return None
        phrases.append(toks[0])
    if not phrases or depth <= 0:
        return None
    try:
        with _snapshot(conn, warm) as held:
            if held is None:
                return None
            lists = _lists(conn, held, phrases, warm)
    except _failures():
        forget(conn)  # FTS5's tables are not as this reads them: its statement answers
        return None
    if lists is None:
        return None
    return _rank(held, lists, depth, None if layers is None else held.readable(layers))


def mentions(conn: Any, match: str, layers: tuple[str, ...], depth: int, warm: bool) -> list[int] | None:
    """The first `depth` source pages in `layers` by path that hold a row matching the FTS5 query `match`,
    as `SELECT p.id ... WHERE fts MATCH ? AND p.type = 'source' AND <layers> GROUP BY p.id, p.path ORDER BY
    p.path LIMIT depth` gives them, with the rows' pages looked up here rather than joined row by row (a
    common name matched 144,126 of 247,762 rows); None when the statement must answer."""
    if not warm and not _HELD:
        return None
    try:
        with _snapshot(conn, warm) as held:
            if held is None:
                return None
            with _LOCK:
                pages = held.sources.get(match)
                if pages is not None:
                    held.sources.move_to_end(match)
            if pages is None:
                text = conn.execute("SELECT group_concat(rowid) FROM fts WHERE fts MATCH ?", (match,)).fetchone()[0]
                pages = _source_pages(held, text or "")
                if pages is None:
                    return None
                with _LOCK:
                    held.sources[match] = pages
                    while len(held.sources) > _SOURCES_MAX:
                        held.sources.popitem(last=False)
    except _failures():
        return None  # the statement answers (and says what is wrong with the query, if that is it)
    pm = held.pages
    codes = np.asarray([pm.codes[name] for name in layers if name in pm.codes], dtype=np.int32)
    return [int(p) for p in pages[np.isin(pm.page_layer[pages], codes)][:depth]]


def _source_pages(held: _Held, text: str) -> np.ndarray | None:
    """The source pages of the rows listed in `text` (FTS5's rowids, comma-separated), every layer, in
    byte order of path; None when the list does not parse."""
    if not text:
        return np.zeros(0, np.int64)
    rows = np.fromstring(text, dtype=np.int64, sep=",")
    if len(rows) != text.count(",") + 1:
        return None
    pm = held.pages
    rows = rows[(rows >= 0) & (rows < len(pm.page_of))]
    pages = np.unique(pm.page_of[rows])
    pages = pages[pages >= 0]
    pages = pages[pm.source[pages]]
    return pages[np.argsort(pm.order[pages], kind="stable")]


def _lists(conn: Any, held: _Held, phrases: list[str], fetch: bool) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The phrases' posting lists, read where not held if `fetch`; else None when one is not held."""
    return held.lists.lists_for(phrases, lambda token: _read(conn, token), fetch)


def _rank(held: _Held, lists: list[tuple[np.ndarray, np.ndarray]], depth: int,
          readable: np.ndarray | None) -> list[tuple[int, int, float]]:
    k1, b, avgdl, sizes = K1, B, held.avgdl, held.sizes
    ids: list[np.ndarray] = []
    parts: list[np.ndarray] = []
    for rows, counts in lists:
        hits = len(rows)
        if not hits:
            continue
        w = idf(held.rows, hits)
        f = counts.astype(np.float64)
        # FTS5's expression, operation for operation: idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / avgdl)))
        parts.append(w * ((f * (k1 + 1.0)) / (f + k1 * ((1.0 - b) + (b * sizes[rows]) / avgdl))))
        ids.append(rows)
    if not ids:
        return []
    # bincount adds in input order: each row's phrases in query order from 0.0, as FTS5's loop does.
    score = np.bincount(np.concatenate(ids), weights=np.concatenate(parts), minlength=len(sizes))
    matched = np.flatnonzero(score)  # every phrase adds at least idf 1e-6 times a positive share
    if readable is not None:
        matched = matched[readable[matched]]  # the reader's layers before the cut, never after it
    s = -score[matched]
    if len(matched) > depth:
        # The depth-th score, then every row at or above it (ties at the edge in rowid order, below).
        edge = np.partition(s, depth - 1)[depth - 1]
        keep = np.flatnonzero(s <= edge)
        matched, s = matched[keep], s[keep]
    order = np.lexsort((matched, s))[:depth]
    best = matched[order]
    return list(zip(best.tolist(), held.pages.page_of[best].tolist(), s[order].tolist(), strict=True))
