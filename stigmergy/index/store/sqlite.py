"""The SQLite index store: `.stigmergy/index.sqlite` (pysqlite3-binary) with FTS5 and sqlite-vec. Every
statement the index runs against SQLite is in this module and its two neighbours (the `IndexStore` protocol
says what each one answers): the database's schema and connection in sqlite_schema.py, the builder's writes
in sqlite_write.py, and here the store itself with every read (scope, the search arms, hits, reads, ask's).
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.errors import IndexMissingExtensionError
from stigmergy.index.store import sqlite_ask, sqlite_lexical, sqlite_write
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
    IndexUnreadableError,
    Integrity,
    ListedPage,
    NameRow,
    NewFragment,
    PageInfo,
    PageRef,
    Selection,
    SourceRow,
)
from stigmergy.index.store.sqlite_schema import MIGRATIONS, connect, dbapi, marks

if TYPE_CHECKING:
    import numpy as np

    from stigmergy.index.pagedoc import PageDoc
    from stigmergy.index.store.sqlite_bits import LayerBits

# Above this many rows a layer's vector search prefilters on 1-bit quantised vectors and reranks in
# float: the exact float scan costs ~30 ms per 100k rows here, the bit scan ~8 ms (measured, bench/search.py).
EXACT_SCAN_MAX_ROWS = 20_000
# A vec0 table's vector columns: `embedding` (0) and `bits` (1), as sqlite_write.vec_table declares them.
BITS_COLUMN = 1
# bm25 weight of the `extra` column (CJK bigrams, other languages' stems), beside title, headings and body.
EXTRA_WEIGHT = 1.0
_WORD_RE = re.compile(r"\w+")


def fts_query(terms: Iterable[str]) -> str:
    """An FTS5 query matching any of `terms`, each quoted (always valid syntax, whatever the term holds)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _bm25(weights: tuple[float, float, float]) -> str:
    """FTS5's bm25 over the title, headings, body and extra columns at these weights (the layer column: 0)."""
    w1, w2, w3 = (float(w) for w in weights)
    return f"bm25(fts, {w1}, {w2}, {w3}, {EXTRA_WEIGHT}, 0.0)"


def mention_query(names: Iterable[str]) -> str:
    """An FTS5 query matching any of `names` as a phrase in the body column ('' when none has a word)."""
    phrases = ['"' + " ".join(_WORD_RE.findall(n)) + '"' for n in names if _WORD_RE.search(n)]
    return "body : (" + " OR ".join(phrases) + ")" if phrases else ""


class SqliteIndexStore:
    """`IndexStore` over one SQLite connection. A warm store (a search session) keeps a few answers that
    only change when the database does: the per-layer vec0 tables and their row counts."""

    shared = False

    def __init__(self, conn: Any, errors: tuple[type[BaseException], ...]) -> None:
        self.conn = conn
        self.errors = errors
        self._counts: tuple[int, dict[str, int]] | None = None
        self._bits: dict[str, tuple[int, str, LayerBits | None]] = {}
        # A long-lived session (`keep_warm`): it reads what sqlite_postings holds between searches.
        self.warm = False

    @classmethod
    def open(cls, path: Path) -> SqliteIndexStore:
        return cls(connect(path), (dbapi().Error,))

    @classmethod
    def open_for_rebuild(cls, path: Path) -> SqliteIndexStore:
        """A connection for `index --rebuild`. A damaged file is moved aside (`index.sqlite.corrupt`) and a
        new one started, so a rebuild always succeeds; a healthy one is kept for its vector cache."""
        try:
            conn = connect(path)
        except IndexUnreadableError:
            conn = None
        if conn is not None:
            try:
                if conn.execute("PRAGMA quick_check").fetchone()[0] == "ok":
                    return cls(conn, (dbapi().Error,))
            except Exception:  # noqa: BLE001 - any failure here means the file cannot be trusted
                pass
            conn.close()
        path = Path(path)
        for suffix in ("", "-wal", "-shm"):
            damaged = Path(f"{path}{suffix}")
            if damaged.exists():
                damaged.replace(Path(f"{path}.corrupt{suffix}"))
        return cls(connect(path), (dbapi().Error,))

    @classmethod
    def peek(cls, path: Path) -> SqliteIndexStore | None:
        try:
            sqlite3 = dbapi()
        except IndexMissingExtensionError:  # pragma: no cover - pysqlite3 is a dependency
            import sqlite3
        try:
            # Read-only, no extension and no migration: a capture must never write to (or wait on) the index.
            conn = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, timeout=0.5, check_same_thread=False)
        except (sqlite3.Error, ValueError, OSError):
            return None
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] != len(MIGRATIONS):
                conn.close()
                return None
        except sqlite3.Error:
            conn.close()
            return None
        return cls(conn, (sqlite3.Error,))

    # ------------------------------------------------------------ lifecycle, meta, transactions

    def close(self) -> None:
        self.conn.close()

    def keep_warm(self) -> None:
        self.warm = True
        # A long-lived session reads the vectors it will hold now, in the background (sqlite_vectors), so
        # that the first readers are not answered by the statement while the server is new.
        from stigmergy.index.store import sqlite_vectors  # numpy: searches only

        with contextlib.suppress(*self.errors):
            sqlite_vectors.prepare(self.conn, self.meta("fingerprint") or "")

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def all_meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value))

    def version(self) -> int:
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def writer_lock(self, timeout: float) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # the builder holds `.stigmergy/index.lock` (index/freshness.py)

    def writer_busy(self) -> bool:
        return False

    # ------------------------------------------------------------ the builder's writes (sqlite_write.py)

    def indexed_pages(self) -> dict[str, IndexedPage]:
        return {r[0]: IndexedPage(r[1], r[0], r[2], r[3])
                for r in self.conn.execute("SELECT path, id, layer, blob_sha FROM pages")}

    def page_shas(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT path, blob_sha FROM pages").fetchall())

    def vec_table(self, layer: str, dimension: int | None = None) -> str | None:
        """The vec0 table of `layer`; created when `dimension` is given and it does not exist yet."""
        return sqlite_write.vec_table(self.conn, layer, dimension)

    def clear(self) -> None:
        sqlite_write.clear(self.conn)

    def remove_pages(self, pages: Sequence[IndexedPage]) -> None:
        sqlite_write.remove_pages(self.conn, pages)

    def insert_pages(self, items: Sequence[tuple[PageDoc, str]]) -> list[NewFragment]:
        return sqlite_write.insert_pages(self.conn, items)

    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> set[str]:
        return sqlite_write.cached_vectors(self.conn, fingerprint, hashes)

    def put_vectors(self, fingerprint: str, rows: Iterable[tuple[str, np.ndarray]]) -> None:
        with self.transaction():
            sqlite_write.put_vectors(self.conn, fingerprint, rows)

    def attach_vectors(self, fragments: Sequence[NewFragment], fingerprint: str, dimension: int | None) -> None:
        sqlite_write.attach_vectors(self.conn, fragments, fingerprint, dimension)

    def page_vectors(self, pages: Sequence[int], min_fragments: int = 1) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:
        import numpy as np

        if not pages:
            return {}
        if self.warm:
            from stigmergy.index.store import sqlite_vectors  # numpy: searches only

            held = sqlite_vectors.page_vectors(self.conn, self.meta("fingerprint") or "", pages, min_fragments, True)
            if held is not None:
                return held
        return {pid: (np.frombuffer(c, dtype=np.float32), np.frombuffer(lead, dtype=np.float32), n)
                for pid, c, lead, n in self.conn.execute(
                    f"SELECT page, centroid, lead, fragments FROM page_vectors WHERE page IN ({marks(pages)}) "
                    "AND fragments >= ?", (*pages, min_fragments))}

    def prune_vectors(self, keep_fingerprint: str | None = None) -> None:
        sqlite_write.prune_vectors(self.conn, keep_fingerprint)

    def drop_layer_vectors(self, layer: str) -> None:
        sqlite_write.drop_layer_vectors(self.conn, layer)

    def analyze(self, full: bool) -> None:
        # Planner statistics: without them SQLite may drive a query from the (unselective) layer index.
        # They keep sample keys of indexed columns (page ids, paths): an erase runs the full form.
        self.conn.execute("ANALYZE" if full else "PRAGMA optimize")

    def optimize_fulltext(self) -> None:
        self.conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")

    def compact(self) -> None:
        # Deleted rows stay readable in free pages and the WAL until the file is rewritten.
        self.conn.execute("VACUUM")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def totals(self) -> tuple[int, int]:
        pages, fragments = self.conn.execute(
            "SELECT (SELECT count(*) FROM pages), (SELECT count(*) FROM fragments)").fetchone()
        return int(pages), int(fragments)

    def integrity(self, fingerprint: str) -> Integrity:
        return sqlite_write.integrity(self.conn, fingerprint)

    # ------------------------------------------------------------ scope

    def entity_keys(self, name: str, layers: tuple[str, ...]) -> tuple[list[int], list[str]]:
        """Readable entity pages called `name` (title or alias) and every name they go by."""
        from stigmergy.pages.wikilinks import link_key

        key = link_key(name)
        pages = [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT en.page FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name = ? AND +p.layer IN ({marks(layers)})", (key, *layers))]
        keys = {key}
        if pages:
            keys.update(r[0] for r in self.conn.execute(
                f"SELECT name FROM entity_names WHERE page IN ({marks(pages)})", pages))
        return pages, sorted(keys)

    def select(self, layers: tuple[str, ...], filters: Filters) -> Selection:
        """The SQL condition on pages `p`: the reader's layers and the filters."""
        conds = [f"+p.layer IN ({marks(layers)})"]
        params: list[Any] = list(layers)
        if filters.type:
            conds.append("p.type = ?")
            params.append(filters.type)
        if filters.status:
            conds.append("p.status = ?")
            params.append(filters.status)
        if filters.layer:
            conds.append("p.layer = ?")
            params.append(filters.layer)
        if filters.since:
            conds.append("coalesce(p.updated, p.occurred_at, p.captured_at, '') >= ?")
            params.append(filters.since)
        if filters.entity:
            pages, keys = self.entity_keys(filters.entity, layers)
            # Sources carry no `entities` list: the ones whose text names the entity (a phrase match) belong.
            mention = mention_query(keys)
            conds.append(f"(p.id IN (SELECT page FROM page_entities WHERE entity IN ({marks(keys)})) "
                         f"OR p.id IN ({marks(pages)})"
                         + (" OR (p.type = 'source' AND p.id IN (SELECT f.page FROM fts CROSS JOIN fragments f "
                            "ON f.id = fts.rowid WHERE fts MATCH ?))" if mention else "") + ")")
            params.extend(keys)
            params.extend(pages)
            if mention:
                params.append(mention)
        return Selection(layers, filters, (" AND ".join(conds), tuple(params)))

    # ------------------------------------------------------------ the search arms

    def lexical(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                depth: int) -> list[tuple[int, int, float]]:
        return [(fid, pid, s) for fid, pid, s, _ in self._lexical(terms, sel, weights, None, depth)]

    def lexical_both(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                     pick: tuple[float, float, float], depth: int) -> list[tuple[int, int, float, float]]:
        return self._lexical(terms, sel, weights, pick, depth)

    def _lexical(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                 pick: tuple[float, float, float] | None, depth: int) -> list[tuple[int, int, float, float]]:
        if not terms:
            return []
        # The second score costs one more bm25 over the rows already found (FTS5 keeps their phrase hits).
        also = _bm25(pick) if pick is not None else "0.0"
        # FTS5's own scores counted in process over posting lists held between searches (sqlite_postings),
        # where that is exact: one score, every column weighing 1.
        exact = pick is None and all(float(w) == 1.0 for w in (*weights, EXTRA_WEIGHT))
        return sqlite_lexical.ranked(self.conn, fts_query(terms), sel, _bm25(weights), also, depth,
                                     list(terms) if exact else None, self.warm)

    def _vec_rows(self, layer: str, table: str) -> int:
        """Rows in `layer`'s vec0 table, counted once per database version."""
        version = self.version()
        if self._counts is None or self._counts[0] != version:
            self._counts = (version, {})
        counts = self._counts[1]
        if layer not in counts:
            counts[layer] = self.conn.execute(f"SELECT count(*) FROM {table}_rowids").fetchone()[0]
        return counts[layer]

    def _bit_nearest(self, layer: str, table: str, query: np.ndarray, blob: bytes, k: int) -> list[int]:
        """The 1-bit prefilter's candidates: vec0's own scan, or the same rows counted in process
        (sqlite_bits) from the layer's bits, read once per database version."""
        from stigmergy.index.store import sqlite_bits  # numpy: searches only

        version = self.version()
        held = self._bits.get(layer)
        if sqlite_bits.AVAILABLE and (held is None or held[0] != version or held[1] != table):
            try:
                held = (version, table, sqlite_bits.load(self.conn, table, BITS_COLUMN))
            except (sqlite3.Error, ValueError):
                # vec0's storage is not laid out as sqlite-vec 0.1.x lays it (another release): its own scan
                # answers instead, as it does without numpy 2, and this layer is not read again this version.
                held = (version, table, None)
            self._bits[layer] = held
        if not sqlite_bits.AVAILABLE or held is None or held[2] is None:
            return [r[0] for r in self.conn.execute(
                f"SELECT rowid FROM {table} WHERE bits MATCH vec_quantize_binary(?) AND k = ?", (blob, k))]
        return sqlite_bits.nearest(held[2], query, k)

    def nearest(self, query: np.ndarray, sel: Selection, want: int, prefilter: int,
                fingerprint: str) -> list[tuple[int, int, float]]:
        import numpy as np

        blob = np.ascontiguousarray(query, dtype=np.float32).tobytes()
        scored: list[tuple[float, int]] = []
        for layer in sel.layers:
            table = self.vec_table(layer)
            if table is None:
                continue
            rows = self._vec_rows(layer, table)
            if rows == 0:
                continue
            if rows <= EXACT_SCAN_MAX_ROWS:
                scored.extend((d, fid) for fid, d in self.conn.execute(
                    f"SELECT rowid, distance FROM {table} WHERE embedding MATCH ? AND k = ?", (blob, want)))
            else:
                # 1-bit prefilter, then exact cosine on the float vectors of the candidates.
                cand = self._bit_nearest(layer, table, query, blob, prefilter)
                if not cand:
                    continue
                from stigmergy.index.store import sqlite_vectors  # numpy: searches only

                got, mat = sqlite_vectors.vectors(self.conn, fingerprint, cand, self.warm)
                if mat is not None:
                    dist = 1.0 - mat @ np.asarray(query, dtype=np.float32)
                    scored.extend(zip(dist.tolist(), got, strict=True))
        scored.sort()
        best = scored[:want]
        if not best:
            return []
        ids = [fid for _, fid in best]
        where, params = sel.condition
        ok = dict(self.conn.execute(
            f"SELECT f.id, f.page FROM fragments f JOIN pages p ON p.id = f.page WHERE f.id IN ({marks(ids)}) AND {where}",
            (*ids, *params)).fetchall())
        return [(fid, ok[fid], 1.0 - d) for d, fid in best if fid in ok]

    def fragment_vectors(self, fragments: Sequence[int], fingerprint: str) -> dict[int, np.ndarray]:
        from stigmergy.index.store import sqlite_vectors  # numpy: searches only

        if not fragments:
            return {}
        got, mat = sqlite_vectors.vectors(self.conn, fingerprint, fragments, self.warm)
        return {} if mat is None else dict(zip(got, mat, strict=True))

    def entity_names_in(self, names: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, int]]:
        return self.conn.execute(
            f"SELECT en.name, en.page FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name IN ({marks(names)}) AND +p.layer IN ({marks(layers)})", (*names, *layers)).fetchall()

    def names_of(self, pages: Sequence[int]) -> list[tuple[str, int]]:
        return self.conn.execute(
            f"SELECT name, page FROM entity_names WHERE page IN ({marks(pages)})", list(pages)).fetchall()

    def allowed(self, pages: Sequence[int], sel: Selection) -> set[int]:
        where, params = sel.condition
        return {r[0] for r in self.conn.execute(
            f"SELECT p.id FROM pages p WHERE p.id IN ({marks(pages)}) AND {where}", (*pages, *params))}

    def pages_about(self, entities: Sequence[str], sel: Selection, depth: int) -> list[tuple[int, int]]:
        where, params = sel.condition
        return self.conn.execute(
            f"SELECT p.id, count(*) AS n FROM page_entities pe JOIN pages p ON p.id = pe.page "
            f"WHERE pe.entity IN ({marks(entities)}) AND {where} GROUP BY p.id "
            f"ORDER BY n DESC, CASE p.status WHEN 'evergreen' THEN 0 WHEN 'mature' THEN 1 WHEN 'developing' THEN 2 "
            f"ELSE 3 END, p.updated DESC, p.path LIMIT ?", (*entities, *params, depth)).fetchall()

    def source_mentions(self, names: Sequence[str], sel: Selection, depth: int) -> list[int]:
        match = mention_query(names)
        return sqlite_lexical.mentions(self.conn, match, sel, depth, self.warm) if match else []

    def links_from(self, pages: Sequence[int]) -> list[tuple[int, str]]:
        return self.conn.execute(
            f"SELECT src, target FROM links WHERE src IN ({marks(pages)})", list(pages)).fetchall()

    def pages_with_stems(self, stems: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self.conn.execute(
            f"SELECT p.id, p.stem FROM pages p WHERE p.stem IN ({marks(stems)}) AND {where}",
            (*stems, *params)).fetchall()

    def entities_named(self, names: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self.conn.execute(
            f"SELECT p.id, en.name FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name IN ({marks(names)}) AND {where} ORDER BY p.path, en.name", (*names, *params)).fetchall()

    def stems_and_titles(self, pages: Sequence[int]) -> list[tuple[int, str, str]]:
        return self.conn.execute(
            f"SELECT id, stem, title FROM pages WHERE id IN ({marks(pages)})", list(pages)).fetchall()

    def linking(self, targets: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self.conn.execute(
            f"SELECT DISTINCT l.src, l.target FROM links l JOIN pages p ON p.id = l.src "
            f"WHERE l.target IN ({marks(targets)}) AND {where}", (*targets, *params)).fetchall()

    def out_degrees(self, pages: Sequence[int]) -> list[tuple[int, int]]:
        return self.conn.execute(
            f"SELECT src, count(*) FROM links WHERE src IN ({marks(pages)}) GROUP BY src", list(pages)).fetchall()

    def in_degrees(self, targets: Sequence[str]) -> list[tuple[str, int]]:
        return self.conn.execute(
            f"SELECT target, count(*) FROM links WHERE target IN ({marks(targets)}) GROUP BY target",
            list(targets)).fetchall()

    # ------------------------------------------------------------ hits

    def citations_of(self, pages: Sequence[int]) -> list[CitationRow]:
        return [CitationRow(*r) for r in self.conn.execute(
            f"SELECT c.src, c.line, c.capture_id, s.occurred_at, c.start_line FROM citations c "
            f"LEFT JOIN pages s ON s.page_id = c.capture_id AND s.type = 'source' "
            f"WHERE c.src IN ({marks(pages)})", list(pages))]

    def fragment_rows(self, fragments: Sequence[int]) -> dict[int, FragmentRow]:
        return {r[0]: FragmentRow(*r) for r in self.conn.execute(
            f"SELECT id, seq, start_line, end_line FROM fragments WHERE id IN ({marks(fragments)})", list(fragments))}

    def fragment_at(self, page: int, line: int) -> int | None:
        row = self.conn.execute("SELECT id FROM fragments WHERE page = ? AND start_line <= ? ORDER BY seq DESC "
                                "LIMIT 1", (page, line)).fetchone()
        return row[0] if row else None

    def first_fragment(self, page: int) -> int | None:
        row = self.conn.execute("SELECT id FROM fragments WHERE page = ? ORDER BY seq LIMIT 1", (page,)).fetchone()
        return row[0] if row else None

    def fragment_text(self, fragment: int) -> str:
        return str(self.conn.execute("SELECT body FROM fts WHERE rowid = ?", (fragment,)).fetchone()[0])

    def fragment_texts(self, fragments: Sequence[int]) -> dict[int, str]:
        if not fragments:
            return {}
        return dict(self.conn.execute(f"SELECT rowid, body FROM fts WHERE rowid IN ({marks(fragments)})",
                                      list(fragments)).fetchall())

    def page_infos(self, pages: Sequence[int]) -> dict[int, PageInfo]:
        return {r[0]: PageInfo(*r) for r in self.conn.execute(
            f"SELECT id, path, title, type, layer, status, occurred_at, n_claims, n_cited, page_id, "
            f"json_extract(meta, '$.decay'), "
            f"(SELECT count(DISTINCT c.capture_id) FROM citations c WHERE c.src = pages.id), "
            f"(SELECT count(*) FROM contradictions k WHERE k.page = pages.id AND k.status = 'open'), locator FROM pages "
            f"WHERE id IN ({marks(pages)})", list(pages))}

    def hubs(self, pages: Sequence[int]) -> set[int]:
        return {r[0] for r in self.conn.execute(
            f"SELECT id FROM pages WHERE type IN ('entity', 'concept', 'project') AND id IN ({marks(pages)})",
            list(pages))}

    def sources_of_captures(self, captures: Sequence[str], sel: Selection) -> dict[str, int]:
        where, params = sel.condition
        return dict(self.conn.execute(
            f"SELECT p.page_id, p.id FROM pages p WHERE p.page_id IN ({marks(captures)}) AND p.type = 'source' "
            f"AND {where}", (*captures, *params)).fetchall())

    # ------------------------------------------------------------ reads

    def resolve_link(self, keys: Sequence[str], layers: tuple[str, ...], from_layer: str) -> PageRef | None:
        row = self.conn.execute(
            f"SELECT path, title FROM pages WHERE stem IN ({marks(keys)}) AND type != 'source' "
            f"AND layer IN ({marks(layers)}) ORDER BY layer = ? DESC, layer = 'public' DESC, path LIMIT 1",
            (*keys, *layers, from_layer)).fetchone()
        if row is None:
            row = self.conn.execute(
                f"SELECT p.path, p.title FROM entity_names en JOIN pages p ON p.id = en.page "
                f"WHERE en.name IN ({marks(keys)}) AND +p.layer IN ({marks(layers)}) "
                f"ORDER BY p.layer = ? DESC, p.layer = 'public' DESC, p.path LIMIT 1",
                (*keys, *layers, from_layer)).fetchone()
        return PageRef(row[0], row[1]) if row else None

    def backlinks(self, names: Sequence[str], layers: tuple[str, ...], exclude: str, limit: int) -> list[Backlink]:
        return [Backlink(*r) for r in self.conn.execute(
            f"SELECT p.path, p.title, min(l.line) FROM links l JOIN pages p ON p.id = l.src "
            f"WHERE l.target IN ({marks(names)}) AND +p.layer IN ({marks(layers)}) AND p.path != ? "
            f"GROUP BY p.path ORDER BY p.path LIMIT ?", (*names, *layers, exclude, limit))]

    def count_pages(self, sel: Selection) -> int:
        where, params = sel.condition
        return int(self.conn.execute(f"SELECT count(*) FROM pages p WHERE {where}", params).fetchone()[0])

    def list_pages(self, sel: Selection, limit: int) -> list[ListedPage]:
        where, params = sel.condition
        return [ListedPage(*r) for r in self.conn.execute(
            f"SELECT p.path, p.title, p.type, p.layer, p.status, coalesce(p.updated, p.occurred_at), p.n_fragments, p.id "
            f"FROM pages p WHERE {where} ORDER BY p.type, p.path LIMIT ?", (*params, limit))]

    def entity(self, key: str, layers: tuple[str, ...]) -> EntityPage | None:
        row = self.conn.execute(
            f"SELECT p.id, p.path, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name = ? AND +p.layer IN ({marks(layers)}) ORDER BY en.kind DESC, p.path LIMIT 1",
            (key, *layers)).fetchone()
        return EntityPage(*row) if row else None

    def about_entity(self, keys: Sequence[str], layers: tuple[str, ...], exclude: int) -> list[AboutPage]:
        return [AboutPage(*r) for r in self.conn.execute(
            f"SELECT DISTINCT p.id, p.path, p.title, p.type, p.status FROM page_entities pe "
            f"JOIN pages p ON p.id = pe.page WHERE pe.entity IN ({marks(keys)}) AND +p.layer IN ({marks(layers)}) "
            f"AND p.id != ? ORDER BY p.type, p.path", (*keys, *layers, exclude))]

    def facts(self, pages: Sequence[int], layers: tuple[str, ...]) -> list[Fact]:
        return [Fact(*r) for r in self.conn.execute(
            f"SELECT c.src, c.line, c.source_path, c.start_line, c.end_line, s.occurred_at, s.title "
            f"FROM citations c JOIN pages s ON s.path = c.source_path AND s.type = 'source' "
            f"WHERE c.src IN ({marks(pages)}) AND s.layer IN ({marks(layers)}) "
            f"ORDER BY s.occurred_at, c.src, c.line", (*pages, *layers))]

    def contradictions_on(self, pages: Sequence[int]) -> list[ContradictionRow]:
        return [ContradictionRow(*r) for r in self.conn.execute(
            f"SELECT c.page, c.data FROM contradictions c WHERE c.page IN ({marks(pages)}) "
            f"ORDER BY c.status = 'resolved', c.con_id", list(pages))]

    # ------------------------------------------------------------ ask (sqlite_ask.py)

    def name_rows(self, layers: tuple[str, ...]) -> list[NameRow]:
        return sqlite_ask.name_rows(self.conn, layers)

    def sources_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[SourceRow]:
        return sqlite_ask.sources_at(self.conn, paths, layers)

    def contradictions_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, str]]:
        return sqlite_ask.contradictions_at(self.conn, paths, layers)

    def line_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, bytes]:
        return sqlite_ask.line_vectors(self.conn, fingerprint, hashes)

    def put_line_vectors(self, fingerprint: str, rows: Sequence[tuple[str, bytes]], wait: float) -> bool:
        return sqlite_ask.put_line_vectors(self.conn, fingerprint, rows, wait)

    # ------------------------------------------------------------ term statistics

    def fragment_count(self, layers: tuple[str, ...] | None = None) -> int:
        if layers is None:
            return int(self.conn.execute("SELECT max(rowid) FROM fragments").fetchone()[0] or 0)
        return int(self.conn.execute(
            f"SELECT count(*) FROM fragments f JOIN pages p ON p.id = f.page WHERE p.layer IN ({marks(layers)})",
            layers).fetchone()[0])

    def term_frequency(self, term: str, probe: int, layers: tuple[str, ...] | None = None) -> int:
        if layers is None:
            return int(self.conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                                         (fts_query([term]), probe)).fetchone()[0])
        return int(self.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? AND layer IN ({marks(layers)}) LIMIT ?)",
            (fts_query([term]), *layers, probe)).fetchone()[0])

    def page_matches(self, terms: Sequence[str], layer: str, weights: tuple[float, float, float],
                     depth: int) -> list[str]:
        return [r[0] for r in self.conn.execute(
            f"SELECT p.path FROM (SELECT rowid, {_bm25(weights)} AS s FROM fts WHERE fts MATCH ? "
            f"AND layer = ? ORDER BY s LIMIT ?) h CROSS JOIN fragments f ON f.id = h.rowid "
            f"CROSS JOIN pages p ON p.id = f.page WHERE p.type != 'source' ORDER BY h.s",
            (fts_query(terms), layer, depth)).fetchall()]


def _conforms(store: SqliteIndexStore) -> None:
    """The type checker proves here that this backend is an `IndexStore` (nothing calls it)."""
    from stigmergy.index.store.protocol import IndexStore

    _: IndexStore = store
