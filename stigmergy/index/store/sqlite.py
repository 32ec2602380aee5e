"""The SQLite index store: `.stigmergy/index.sqlite` (pysqlite3-binary) with FTS5 and sqlite-vec. Every
statement the index runs against SQLite is in this module (the `IndexStore` protocol says what each one
answers).

Derived and rebuildable. The schema comes from numbered migrations (PRAGMA user_version). Vectors live
twice on purpose: `vectors` is the content-addressed cache (hash, fingerprint) -> float32 blob that
survives renames and rebuilds; each readable layer has its own vec0 table (rowid = fragment id) so that a
reader's vector search only ever scans the layers they may read.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.errors import IndexMissingExtensionError
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
    import numpy as np

    from stigmergy.index.pagedoc import PageDoc

MIGRATIONS: tuple[str, ...] = (
    # 1: pages, fragments, full text, vector cache, links, citations, entities
    """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE pages(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        stem TEXT NOT NULL,            -- casefolded file stem, for wikilink resolution
        layer TEXT NOT NULL,
        type TEXT NOT NULL,            -- source | note | concept | entity | project
        title TEXT NOT NULL,
        page_id TEXT,                  -- front matter id (pg_... or cap_...)
        status TEXT,
        created TEXT,
        updated TEXT,
        occurred_at TEXT,
        captured_at TEXT,
        locator TEXT,
        blob_sha TEXT NOT NULL,        -- git blob id of the indexed file content
        meta TEXT NOT NULL,            -- front matter as JSON
        n_fragments INTEGER NOT NULL,
        n_claims INTEGER NOT NULL,
        n_cited INTEGER NOT NULL
    );
    CREATE INDEX pages_layer_type ON pages(layer, type);
    CREATE INDEX pages_stem ON pages(stem);
    CREATE INDEX pages_page_id ON pages(page_id);
    CREATE TABLE fragments(
        id INTEGER PRIMARY KEY,
        page INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        layer TEXT NOT NULL,
        trail TEXT NOT NULL,           -- JSON list of headings
        start_char INTEGER NOT NULL,
        end_char INTEGER NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        hash TEXT NOT NULL             -- sha256 of the embedded text
    );
    CREATE INDEX fragments_page ON fragments(page, seq);
    CREATE INDEX fragments_hash ON fragments(hash);
    CREATE VIRTUAL TABLE fts USING fts5(title, headings, body, layer UNINDEXED, tokenize='porter unicode61');
    CREATE TABLE vectors(
        hash TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY(hash, fingerprint)
    ) WITHOUT ROWID;
    CREATE TABLE vec_tables(layer TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, dimension INTEGER NOT NULL);
    CREATE TABLE entity_names(
        name TEXT NOT NULL,            -- casefolded title or alias of an entity page
        page INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        kind TEXT NOT NULL             -- title | alias
    );
    CREATE INDEX entity_names_name ON entity_names(name);
    CREATE TABLE page_entities(
        page INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        entity TEXT NOT NULL           -- casefolded entity title from the `entities` front matter
    );
    CREATE INDEX page_entities_entity ON page_entities(entity);
    CREATE INDEX page_entities_page ON page_entities(page);
    CREATE TABLE links(
        src INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        target TEXT NOT NULL,          -- casefolded wikilink target
        line INTEGER NOT NULL
    );
    CREATE INDEX links_src ON links(src);
    CREATE INDEX links_target ON links(target);
    CREATE TABLE citations(
        src INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,         -- file line of the citing page
        source_path TEXT NOT NULL,
        capture_id TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL
    );
    CREATE INDEX citations_src ON citations(src);
    CREATE INDEX citations_capture ON citations(capture_id);
    CREATE TABLE contradictions(
        page INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        con_id TEXT NOT NULL,
        status TEXT NOT NULL,
        data TEXT NOT NULL             -- JSON of the block's record
    );
    CREATE INDEX contradictions_page ON contradictions(page);
    """,
    # 2: the full-text table gains `extra` (CJK bigrams, other languages' stems: index/analysis.py), and each
    # page its two descriptor vectors (fusion.py). An FTS5 table cannot add a column, so it is made anew,
    # empty, and the index is marked unbuilt (no fingerprint, no commit): searches say "run `stigmergy
    # index`", which re-reads every page and reuses every cached vector (nothing is embedded again).
    """
    DROP TABLE fts;
    CREATE VIRTUAL TABLE fts USING fts5(title, headings, body, extra, layer UNINDEXED, tokenize='porter unicode61');
    CREATE TABLE page_vectors(
        page INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
        centroid BLOB NOT NULL,        -- mean of the page's fragment vectors, L2-normalised
        lead BLOB NOT NULL,            -- its first fragment's vector
        fragments INTEGER NOT NULL     -- how many fragments it has
    );
    DELETE FROM meta WHERE key IN ('commit', 'fingerprint', 'dirty');
    """,
    # 3: ask's cache of candidate-line vectors, keyed like `vectors` by (text hash, fingerprint); kept by
    # rebuilds (it is keyed by content, not by page)
    """
    CREATE TABLE line_vectors(
        hash TEXT NOT NULL,            -- sha256 of the text embedded (a line with its title and heading)
        fingerprint TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY(hash, fingerprint)
    ) WITHOUT ROWID;
    """,
)
# ask's line cache stays below this many rows (~0.5 GB at 384 dimensions): past it half goes.
MAX_LINE_VECTORS = 300_000

# Above this many rows a layer's vector search prefilters on 1-bit quantised vectors and reranks in
# float: the exact float scan costs ~30 ms per 100k rows here, the bit scan ~8 ms (measured, bench/search.py).
EXACT_SCAN_MAX_ROWS = 20_000
# bm25 weight of the `extra` column (CJK bigrams, other languages' stems), beside title, headings and body.
EXTRA_WEIGHT = 1.0
_WORD_RE = re.compile(r"\w+")


def marks(values: Sequence[Any]) -> str:
    """`?, ?, ?` for an SQL IN list (an empty list matches nothing)."""
    return ",".join("?" * len(values)) if values else "NULL"


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


def _sqlite() -> Any:
    try:
        import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
    except ImportError as exc:
        raise IndexMissingExtensionError(
            "pysqlite3 is not installed (the standard sqlite3 module cannot load extensions here)",
            hint="pip install pysqlite3-binary",
        ) from exc
    return sqlite3


def connect(path: Path | str) -> Any:
    """A connection with FTS5 and sqlite-vec loaded and the schema migrated. Raises
    IndexMissingExtensionError (with the fix) when either extension is unavailable."""
    sqlite3 = _sqlite()
    try:
        import sqlite_vec  # type: ignore[import-not-found]
    except ImportError as exc:
        raise IndexMissingExtensionError("sqlite-vec is not installed", hint="pip install sqlite-vec") from exc
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None, check_same_thread=False)
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:
        raise IndexMissingExtensionError(
            f"could not load the sqlite-vec extension: {exc}", hint="pip install --force-reinstall sqlite-vec"
        ) from exc
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x)")
        conn.execute("DROP TABLE temp.fts5_probe")
    except Exception as exc:
        if "fts5" not in str(exc).lower():  # the probe read a damaged file, not a missing module
            conn.close()
            raise IndexUnreadableError(path, exc) from None
        raise IndexMissingExtensionError(
            "this SQLite build has no FTS5", hint="pip install --force-reinstall pysqlite3-binary"
        ) from exc
    try:
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA cache_size=-65536")
        conn.execute("PRAGMA mmap_size=268435456")
        migrate(conn)
        conn.execute("SELECT count(*) FROM meta").fetchone()
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            conn.close()
            raise
        conn.close()
        raise IndexUnreadableError(path, exc) from None
    return conn


def migrate(conn: Any) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for number, script in enumerate(MIGRATIONS, start=1):
        if number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check under the write lock: another process may have migrated meanwhile.
            if conn.execute("PRAGMA user_version").fetchone()[0] >= number:
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version={number}")
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    cleaned = re.sub(r"--[^\n]*", "", script)
    return [s.strip() for s in cleaned.split(";") if s.strip()]


def peek_meta(path: Path, key: str) -> tuple[bool, str | None, str | None]:
    """One meta value through the standard library's sqlite3, read-only (no extension, no migration)."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return False, None, str(exc)
    return True, (row[0] if row else None), None


class SqliteIndexStore:
    """`IndexStore` over one SQLite connection. A warm store (a search session) keeps a few answers that
    only change when the database does: the per-layer vec0 tables and their row counts."""

    shared = False

    def __init__(self, conn: Any, errors: tuple[type[BaseException], ...]) -> None:
        self.conn = conn
        self.errors = errors
        self._counts: tuple[int, dict[str, int]] | None = None

    @classmethod
    def open(cls, path: Path) -> SqliteIndexStore:
        return cls(connect(path), (_sqlite().Error,))

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
                    return cls(conn, (_sqlite().Error,))
            except Exception:  # noqa: BLE001 - any failure here means the file cannot be trusted
                pass
            conn.close()
        path = Path(path)
        for suffix in ("", "-wal", "-shm"):
            damaged = Path(f"{path}{suffix}")
            if damaged.exists():
                damaged.replace(Path(f"{path}.corrupt{suffix}"))
        return cls(connect(path), (_sqlite().Error,))

    @classmethod
    def peek(cls, path: Path) -> SqliteIndexStore | None:
        try:
            sqlite3 = _sqlite()
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

    # ------------------------------------------------------------ the builder's writes

    def indexed_pages(self) -> dict[str, IndexedPage]:
        return {r[0]: IndexedPage(r[1], r[0], r[2], r[3])
                for r in self.conn.execute("SELECT path, id, layer, blob_sha FROM pages")}

    def page_shas(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT path, blob_sha FROM pages").fetchall())

    def vec_table(self, layer: str, dimension: int | None = None) -> str | None:
        """The vec0 table of `layer`; created when `dimension` is given and it does not exist yet."""
        row = self.conn.execute("SELECT name, dimension FROM vec_tables WHERE layer = ?", (layer,)).fetchone()
        if row is not None:
            return str(row[0])
        if dimension is None:
            return None
        n = self.conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM vec_tables").fetchone()[0]
        name = f"vec_layer_{n}"
        self.conn.execute(
            f"CREATE VIRTUAL TABLE {name} USING vec0(embedding float[{dimension}] distance_metric=cosine, "
            f"bits bit[{dimension}])"
        )
        self.conn.execute("INSERT INTO vec_tables(layer, name, dimension) VALUES (?, ?, ?)", (layer, name, dimension))
        return name

    def clear(self) -> None:
        self.conn.execute("DELETE FROM pages")
        self.conn.execute("DELETE FROM fts")
        for (name,) in self.conn.execute("SELECT name FROM vec_tables").fetchall():
            self.conn.execute(f"DROP TABLE IF EXISTS {name}")
        self.conn.execute("DELETE FROM vec_tables")

    def remove_pages(self, pages: Sequence[IndexedPage]) -> None:
        for page in pages:
            self._remove_page(page)

    def insert_pages(self, items: Sequence[tuple[PageDoc, str]]) -> list[NewFragment]:
        return [f for doc, sha in items for f in self._insert_page(doc, sha)]

    def _remove_page(self, page: IndexedPage) -> None:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM fragments WHERE page = ?", (page.id,))]
        if ids:
            self.conn.execute(f"DELETE FROM fts WHERE rowid IN ({marks(ids)})", ids)
            table = self.vec_table(page.layer)
            if table:
                self.conn.execute(f"DELETE FROM {table} WHERE rowid IN ({marks(ids)})", ids)
        self.conn.execute("DELETE FROM pages WHERE id = ?", (page.id,))

    def _insert_page(self, doc: PageDoc, blob_sha: str) -> list[NewFragment]:
        from stigmergy.index.analysis import extra_text, has_cjk
        from stigmergy.index.pagedoc import meta_str
        from stigmergy.pages.wikilinks import link_key

        conn, m = self.conn, doc.meta
        stem = link_key(doc.path.rsplit("/", 1)[-1][:-3])
        cur = conn.execute(
            "INSERT INTO pages(path, stem, layer, type, title, page_id, status, created, updated, occurred_at, "
            "captured_at, locator, blob_sha, meta, n_fragments, n_claims, n_cited) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc.path, stem, doc.layer, doc.type, doc.title, meta_str(m, "id"), doc.status,
                meta_str(m, "created"), meta_str(m, "updated"), meta_str(m, "occurred_at"),
                meta_str(m, "captured_at"), meta_str(m, "locator"), blob_sha,
                json.dumps(m, default=str, ensure_ascii=False), len(doc.fragments), doc.claim_lines,
                len(doc.citations),
            ),
        )
        pid = cur.lastrowid
        title_col = " ".join((doc.title, *doc.aliases))
        # Only a page that holds CJK text or has a stemmer besides English's gets an `extra` column.
        analysed = bool(doc.languages) or has_cjk(doc.text)
        out = []
        for f in doc.fragments:
            h = f.content_hash(doc.title)
            fid = conn.execute(
                "INSERT INTO fragments(page, seq, layer, trail, start_char, end_char, start_line, end_line, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (pid, f.seq, doc.layer, json.dumps(list(f.trail), ensure_ascii=False), f.start_char, f.end_char,
                 f.start_line, f.end_line, h),
            ).lastrowid
            heads = " ".join(f.trail)
            extra = extra_text(f"{title_col}\n{heads}\n{f.text}", doc.languages) if analysed else ""
            conn.execute(
                "INSERT INTO fts(rowid, title, headings, body, extra, layer) VALUES (?, ?, ?, ?, ?, ?)",
                (fid, title_col, heads, f.text, extra, doc.layer),
            )
            out.append(NewFragment(fid, doc.layer, h))
        if doc.type == "entity":
            names = {link_key(doc.title): "title"}
            for alias in doc.aliases:
                names.setdefault(link_key(alias), "alias")
            conn.executemany("INSERT INTO entity_names(name, page, kind) VALUES (?, ?, ?)",
                             [(n, pid, k) for n, k in names.items() if n])
        conn.executemany("INSERT INTO page_entities(page, entity) VALUES (?, ?)",
                         [(pid, e) for e in sorted({link_key(e) for e in doc.entities})])
        conn.executemany("INSERT INTO links(src, target, line) VALUES (?, ?, ?)",
                         [(pid, link_key(ln.target), ln.line) for ln in doc.links])
        conn.executemany(
            "INSERT INTO citations(src, line, source_path, capture_id, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?)",
            [(pid, line, c.path, c.capture_id, c.start, c.end) for line, cs in doc.citations.items() for c in cs],
        )
        conn.executemany(
            "INSERT INTO contradictions(page, con_id, status, data) VALUES (?, ?, ?, ?)",
            [(pid, c.id, c.status, json.dumps(c.to_dict(), ensure_ascii=False)) for c in doc.contradictions],
        )
        return out

    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> set[str]:
        have: set[str] = set()
        for i in range(0, len(hashes), 500):
            chunk = list(hashes[i : i + 500])
            have.update(r[0] for r in self.conn.execute(
                f"SELECT hash FROM vectors WHERE fingerprint = ? AND hash IN ({marks(chunk)})", (fingerprint, *chunk)))
        return have

    def put_vectors(self, fingerprint: str, rows: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        with self.transaction():
            self.conn.executemany(
                "INSERT OR REPLACE INTO vectors(hash, fingerprint, vector) VALUES (?, ?, ?)",
                [(h, fingerprint, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for h, v in rows],
            )

    def attach_vectors(self, fragments: Sequence[NewFragment], fingerprint: str, dimension: int | None) -> None:
        if not fragments:
            return
        if dimension is None:
            row = self.conn.execute("SELECT vector FROM vectors WHERE fingerprint = ? LIMIT 1", (fingerprint,)).fetchone()
            dimension = len(row[0]) // 4
        by_layer: dict[str, list[tuple[int, str]]] = {}
        for f in fragments:
            by_layer.setdefault(f.layer, []).append((f.id, f.hash))
        for layer, rows in by_layer.items():
            table = self.vec_table(layer, dimension)
            self.conn.executemany(
                f"INSERT INTO {table}(rowid, embedding, bits) SELECT ?, vector, vec_quantize_binary(vector) "
                "FROM vectors WHERE hash = ? AND fingerprint = ?",
                [(fid, h, fingerprint) for fid, h in rows],
            )
        self._page_vectors([f.id for f in fragments], fingerprint)

    def _page_vectors(self, fragments: Sequence[int], fingerprint: str) -> None:
        """Each page of `fragments` (all of a page's fragments are new together): the mean of its fragment
        vectors and its first fragment's vector."""
        import numpy as np

        pages: dict[int, list[tuple[int, bytes]]] = {}
        for i in range(0, len(fragments), 500):
            chunk = fragments[i : i + 500]
            for pid, seq, blob in self.conn.execute(
                    f"SELECT f.page, f.seq, v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash "
                    f"AND v.fingerprint = ? WHERE f.id IN ({marks(chunk)})", (fingerprint, *chunk)):
                pages.setdefault(pid, []).append((seq, blob))
        rows = []
        for pid, got in pages.items():
            got.sort()
            mat = np.frombuffer(b"".join(b for _, b in got), dtype=np.float32).reshape(len(got), -1)
            mean = mat.mean(axis=0)
            mean /= max(float(np.linalg.norm(mean)), 1e-12)
            rows.append((pid, mean.astype(np.float32).tobytes(), mat[0].tobytes(), len(got)))
        self.conn.executemany(
            "INSERT OR REPLACE INTO page_vectors(page, centroid, lead, fragments) VALUES (?, ?, ?, ?)", rows)

    def page_vectors(self, pages: Sequence[int], min_fragments: int = 1) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:
        import numpy as np

        if not pages:
            return {}
        return {pid: (np.frombuffer(c, dtype=np.float32), np.frombuffer(lead, dtype=np.float32), n)
                for pid, c, lead, n in self.conn.execute(
                    f"SELECT page, centroid, lead, fragments FROM page_vectors WHERE page IN ({marks(pages)}) "
                    "AND fragments >= ?", (*pages, min_fragments))}

    def prune_vectors(self, keep_fingerprint: str | None = None) -> None:
        if keep_fingerprint is not None:
            self.conn.execute("DELETE FROM vectors WHERE fingerprint != ?", (keep_fingerprint,))
            self.conn.execute("DELETE FROM line_vectors WHERE fingerprint NOT LIKE ? || ':%'", (keep_fingerprint,))
        self.conn.execute("DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM fragments f WHERE f.hash = vectors.hash)")

    def drop_layer_vectors(self, layer: str) -> None:
        table = self.vec_table(layer)
        if table:
            self.conn.execute(f"DROP TABLE IF EXISTS {table}")
            self.conn.execute("DELETE FROM vec_tables WHERE layer = ?", (layer,))

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
        q = self.conn.execute
        n_frag = q("SELECT count(*) FROM fragments").fetchone()[0]
        n_fts = q("SELECT count(*) FROM fts").fetchone()[0]
        missing = q("SELECT count(*) FROM fragments f WHERE NOT EXISTS "
                    "(SELECT 1 FROM vectors v WHERE v.hash = f.hash AND v.fingerprint = ?)", (fingerprint,)).fetchone()[0]
        layers = []
        for layer, table in q("SELECT layer, name FROM vec_tables").fetchall():
            n = q(f"SELECT count(*) FROM {table}").fetchone()[0]
            want = q("SELECT count(*) FROM fragments WHERE layer = ?", (layer,)).fetchone()[0]
            layers.append(LayerVectors(layer, n, want))
        return Integrity(n_frag, n_fts, missing, tuple(layers))

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
        where, params = sel.condition
        layers = sel.layers
        rank = _bm25(weights)
        # The second score costs one more bm25 over the rows already found (FTS5 keeps their phrase hits).
        also = _bm25(pick) if pick is not None else "0.0"
        if not sel.filtered:
            # Scope is inside the full-text query itself (the layer column); the best rows are then joined.
            sql = (
                f"SELECT f.id, f.page, -h.s, -h.s2 FROM (SELECT rowid, {rank} AS s, {also} AS s2 FROM fts WHERE fts MATCH ? "
                f"AND layer IN ({marks(layers)}) ORDER BY s LIMIT ?) h "
                f"CROSS JOIN fragments f ON f.id = h.rowid CROSS JOIN pages p ON p.id = f.page WHERE {where} ORDER BY h.s"
            )
            return self.conn.execute(sql, (fts_query(terms), *layers, depth, *params)).fetchall()
        # With filters every match is checked against them before the cut, so none is lost to the LIMIT.
        # CROSS JOIN pins the order: the MATCH drives and pages are looked up by key.
        sql = (
            f"SELECT f.id, f.page, -{rank} AS s, -{also} FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p "
            f"ON p.id = f.page WHERE fts MATCH ? AND fts.layer IN ({marks(layers)}) AND {where} ORDER BY s DESC LIMIT ?"
        )
        return self.conn.execute(sql, (fts_query(terms), *layers, *params, depth)).fetchall()

    def _vec_rows(self, layer: str, table: str) -> int:
        """Rows in `layer`'s vec0 table, counted once per database version."""
        version = self.version()
        if self._counts is None or self._counts[0] != version:
            self._counts = (version, {})
        counts = self._counts[1]
        if layer not in counts:
            counts[layer] = self.conn.execute(f"SELECT count(*) FROM {table}_rowids").fetchone()[0]
        return counts[layer]

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
                cand = [r[0] for r in self.conn.execute(
                    f"SELECT rowid FROM {table} WHERE bits MATCH vec_quantize_binary(?) AND k = ?",
                    (blob, prefilter))]
                if not cand:
                    continue
                got = self.conn.execute(
                    f"SELECT f.id, v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash AND v.fingerprint = ? "
                    f"WHERE f.id IN ({marks(cand)})", (fingerprint, *cand)).fetchall()
                if got:
                    mat = np.frombuffer(b"".join(v for _, v in got), dtype=np.float32).reshape(len(got), -1)
                    dist = 1.0 - mat @ np.asarray(query, dtype=np.float32)
                    scored.extend((float(d), fid) for (fid, _), d in zip(got, dist, strict=True))
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
        import numpy as np

        if not fragments:
            return {}
        rows = self.conn.execute(
            f"SELECT f.id, v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash AND v.fingerprint = ? "
            f"WHERE f.id IN ({marks(fragments)})", (fingerprint, *fragments)).fetchall()
        return {fid: np.frombuffer(blob, dtype=np.float32) for fid, blob in rows}

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
        if not match:
            return []
        where, params = sel.condition
        return [r[0] for r in self.conn.execute(
            f"SELECT p.id FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p "
            f"ON p.id = f.page WHERE fts MATCH ? AND fts.layer IN ({marks(sel.layers)}) AND p.type = 'source' "
            f"AND {where} GROUP BY p.id, p.path ORDER BY p.path LIMIT ?", (match, *sel.layers, *params, depth))]

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
            f"(SELECT count(*) FROM contradictions k WHERE k.page = pages.id AND k.status = 'open') FROM pages "
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

    # ------------------------------------------------------------ ask

    def name_rows(self, layers: tuple[str, ...]) -> list[NameRow]:
        if not layers:
            return []
        lay = marks(layers)
        rows = [NameRow(n, pid, t, str(json.loads(m).get("entity_type") or "")) for n, pid, t, m in self.conn.execute(
            f"SELECT en.name, p.id, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE +p.layer IN ({lay})", layers)]
        rows += [NameRow(t, pid, t, "project") for pid, t in self.conn.execute(
            f"SELECT id, title FROM pages WHERE type = 'project' AND layer IN ({lay})", layers)]
        return rows

    def sources_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[SourceRow]:
        out: list[SourceRow] = []
        listed = sorted(set(paths))
        for i in range(0, len(listed), 500):
            chunk = listed[i : i + 500]
            out += [SourceRow(*r) for r in self.conn.execute(
                f"SELECT path, title, coalesce(occurred_at, captured_at, '') FROM pages WHERE type = 'source' "
                f"AND path IN ({marks(chunk)}) AND layer IN ({marks(layers)})", (*chunk, *layers))]
        return out

    def contradictions_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.conn.execute(
            f"SELECT p.path, c.data FROM contradictions c JOIN pages p ON p.id = c.page "
            f"WHERE p.path IN ({marks(paths)}) AND p.layer IN ({marks(layers)}) ORDER BY p.path, c.con_id",
            (*paths, *layers))]

    def line_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for i in range(0, len(hashes), 500):
            chunk = list(hashes[i : i + 500])
            out.update(self.conn.execute(
                f"SELECT hash, vector FROM line_vectors WHERE fingerprint = ? AND hash IN ({marks(chunk)})",
                (fingerprint, *chunk)).fetchall())
        return out

    def put_line_vectors(self, fingerprint: str, rows: Sequence[tuple[str, bytes]], wait: float) -> bool:
        sqlite3 = _sqlite()
        self.conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.executemany("INSERT OR REPLACE INTO line_vectors(hash, fingerprint, vector) VALUES (?, ?, ?)",
                                      [(h, fingerprint, v) for h, v in rows])
                n = self.conn.execute("SELECT count(*) FROM line_vectors").fetchone()[0]
                if n > MAX_LINE_VECTORS:
                    # No ages are kept: an arbitrary half goes (a line asked about again costs one embedding).
                    self.conn.execute("DELETE FROM line_vectors WHERE hash IN (SELECT hash FROM line_vectors "
                                      "LIMIT ?)", (n // 2,))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            return True
        except sqlite3.OperationalError:
            return False  # the index is being written: this answer keeps its vectors to itself
        finally:
            self.conn.execute("PRAGMA busy_timeout = 30000")

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
