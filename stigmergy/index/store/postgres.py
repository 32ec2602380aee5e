"""The PostgreSQL index store: a shared index in one schema of a PostgreSQL database with pgvector, that
many clones, the push hook and warm servers read and write at once. Every statement the index runs
against PostgreSQL is in this module or, for the batched page writes, in `pg_write.py` (the `IndexStore` protocol says what each one answers).

- **Schema** from numbered migrations (`MIGRATIONS`, `schema_version`), applied under a transaction-level
  advisory lock so that two processes never migrate at once; a database whose schema is newer than this
  code is refused with one line (`IndexTooNewError`), never written to.
- **Which wiki.** The schema records the repository it indexes (`meta.wiki`, its root commit): another
  repository pointed at the same schema is refused, so one user-level connection string cannot mix two
  wikis' pages.
- **Full text** in `fts.tsv`, lexemes tokenised as FTS5 does and ranked by the same BM25 (`pg_text.py`),
  with a GIN index; `terms` keeps each lexeme's document frequency (FTS5's idf counts every row, too).
- **Vectors** with pgvector: `vectors` is the content-addressed cache (hash, fingerprint), `vec` holds each
  fragment's vector with its layer. A layer past `EXACT_SCAN_MAX_ROWS` gets its own partial HNSW index
  (cosine, `WHERE layer = '<layer>'`), so a reader's nearest-neighbour scan only ever walks the graph of
  a layer they may read; smaller layers are scanned exactly, as on SQLite.
- **Scope inside the query**: every arm's statement names the reader's layers (`layer = ANY(...)`, or one
  literal per layer for the HNSW scans) and the `Selection`'s condition on pages.
- **Many writers**: `writer_lock` is a session-level advisory lock per schema (builds from any clone and
  the push hook queue on it); `transaction()` is one PostgreSQL transaction (readers see the index before
  it or after it) and bumps `meta.generation`, which `version()` reads.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from stigmergy.errors import IndexMissingExtensionError, LockTimeoutError, StigmergyError
from stigmergy.index.store import pg_rank, pg_text, pg_write
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
    # 1: pages, fragments, full text + term statistics, vector cache and per-fragment vectors, links,
    # citations, entities, contradictions
    """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE pages(
        id BIGSERIAL PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        stem TEXT NOT NULL,
        layer TEXT NOT NULL,
        type TEXT NOT NULL,
        title TEXT NOT NULL,
        page_id TEXT,
        status TEXT,
        created TEXT,
        updated TEXT,
        occurred_at TEXT,
        captured_at TEXT,
        locator TEXT,
        blob_sha TEXT NOT NULL,
        meta TEXT NOT NULL,
        n_fragments INTEGER NOT NULL,
        n_claims INTEGER NOT NULL,
        n_cited INTEGER NOT NULL
    );
    CREATE INDEX pages_layer_type ON pages(layer, type);
    CREATE INDEX pages_stem ON pages(stem);
    CREATE INDEX pages_page_id ON pages(page_id);
    CREATE TABLE fragments(
        id BIGSERIAL PRIMARY KEY,
        page BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        layer TEXT NOT NULL,
        trail TEXT NOT NULL,
        start_char INTEGER NOT NULL,
        end_char INTEGER NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        hash TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX fragments_page ON fragments(page, seq);
    CREATE INDEX fragments_hash ON fragments(hash);
    CREATE TABLE fts(
        id BIGINT PRIMARY KEY REFERENCES fragments(id) ON DELETE CASCADE,
        layer TEXT NOT NULL,
        ntok INTEGER NOT NULL,
        tsv TSVECTOR NOT NULL
    );
    CREATE INDEX fts_tsv ON fts USING gin(tsv);
    CREATE INDEX fts_layer ON fts(layer);
    CREATE TABLE terms(term TEXT PRIMARY KEY, df INTEGER NOT NULL);
    CREATE TABLE vectors(
        hash TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        embedding vector NOT NULL,
        PRIMARY KEY(hash, fingerprint)
    );
    CREATE TABLE vec(
        id BIGINT PRIMARY KEY REFERENCES fragments(id) ON DELETE CASCADE,
        layer TEXT NOT NULL,
        embedding vector NOT NULL
    );
    CREATE INDEX vec_layer ON vec(layer);
    CREATE TABLE vec_indexes(layer TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, dimension INTEGER NOT NULL);
    CREATE TABLE entity_names(
        name TEXT NOT NULL,
        page BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        kind TEXT NOT NULL
    );
    CREATE INDEX entity_names_name ON entity_names(name);
    CREATE INDEX entity_names_page ON entity_names(page);
    CREATE TABLE page_entities(
        page BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        entity TEXT NOT NULL
    );
    CREATE INDEX page_entities_entity ON page_entities(entity);
    CREATE INDEX page_entities_page ON page_entities(page);
    CREATE TABLE links(
        src BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        target TEXT NOT NULL,
        line INTEGER NOT NULL
    );
    CREATE INDEX links_src ON links(src);
    CREATE INDEX links_target ON links(target);
    CREATE TABLE citations(
        src BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        source_path TEXT NOT NULL,
        capture_id TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL
    );
    CREATE INDEX citations_src ON citations(src);
    CREATE INDEX citations_capture ON citations(capture_id);
    CREATE INDEX citations_source ON citations(source_path);
    CREATE TABLE contradictions(
        page BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        con_id TEXT NOT NULL,
        status TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE INDEX contradictions_page ON contradictions(page);
    CREATE TABLE line_vectors(
        hash TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        vector BYTEA NOT NULL,
        PRIMARY KEY(hash, fingerprint)
    );
    CREATE TABLE page_vectors(
        page BIGINT PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
        centroid vector NOT NULL,
        lead vector NOT NULL,
        fragments INTEGER NOT NULL
    );
    INSERT INTO meta(key, value) VALUES ('generation', '0');
    """,
)

MAX_LINE_VECTORS = 300_000  # ask's line cache, as on SQLite: past it half goes
EXACT_SCAN_MAX_ROWS = 20_000  # as on SQLite: smaller layers are scanned exactly, larger ones through HNSW
HNSW_M, HNSW_EF_CONSTRUCTION = 16, 64
FIRST_CUT = 4  # ts_rank keeps this many times the arm's depth for the exact BM25 re-score
STATUS_ORDER = ("CASE p.status WHEN 'evergreen' THEN 0 WHEN 'mature' THEN 1 WHEN 'developing' THEN 2 "
                "ELSE 3 END")
# Text orders compare bytes, as SQLite's BINARY collation does, whatever the database's locale.
C = 'COLLATE "C"'


class IndexTooNewError(StigmergyError):
    """The shared index was migrated by a newer stigmergy: this one must not read or write it."""


class SharedIndexError(StigmergyError):
    pass


def _np(value: Any) -> np.ndarray:
    """A vector read back (pgvector's `Vector`) as a float32 array. Statements that read vectors ask for
    binary rows: pgvector parses the text form in Python, float by float (a search read ~500 vectors, and
    parsing them was most of its client time)."""
    import numpy as np

    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def _lock_key(kind: str, schema: str) -> int:
    """A 64-bit advisory-lock key for (kind, schema)."""
    return int.from_bytes(hashlib.sha256(f"stigmergy:{kind}:{schema}".encode()).digest()[:8], "big", signed=True)


def redact(url: str) -> str:
    """The connection string without its password, for messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - an unparsable string is named by its kind only
        return "the configured PostgreSQL database"
    host = parts.get("host") or "localhost"
    return f"postgresql://{parts.get('user') or ''}@{host}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise IndexMissingExtensionError(
            "the PostgreSQL index needs psycopg (index.backend = \"postgres\")",
            hint="pip install 'stigmergy[team]' (or pip install 'psycopg[binary]' pgvector)") from exc
    return psycopg


def connect(url: str, schema: str, *, timeout: float = 10.0, migrate_schema: bool = True) -> Any:
    """A connection (autocommit) whose search path is `schema`, the pgvector types registered and the
    schema migrated (when `migrate_schema`); IndexTooNewError when the schema is newer than this code."""
    psycopg = _psycopg()
    try:
        # No parallel workers for this connection's queries: a shared index answers many readers at once,
        # whose searches already keep the server's cores busy, and a search's full-text scan split over
        # two workers cost ~15% more of the server's CPU (303 -> 263 ms a search at 247,762 fragments,
        # client + server, four paired runs: docs/team.md) for a lower latency only on an idle server.
        conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout)),
                               application_name="stigmergy", options="-c max_parallel_workers_per_gather=0")
    except psycopg.Error as exc:
        raise SharedIndexError(f"cannot reach the shared index at {redact(url)}: {str(exc).strip().splitlines()[0]}",
                               hint="check index.url in ~/.config/stigmergy/config.toml or STIGMERGY_INDEX__URL") from None
    try:
        from psycopg import sql

        if migrate_schema:
            _ensure_extension(conn)
        conn.execute(sql.SQL("SET search_path TO {}, public").format(sql.Identifier(schema)))
        from pgvector.psycopg import register_vector

        try:
            register_vector(conn)
        except psycopg.ProgrammingError as exc:
            raise IndexMissingExtensionError(
                "the database has no pgvector extension", hint="run `CREATE EXTENSION vector` as its owner") from exc
        if migrate_schema:
            migrate(conn, schema)
        else:
            version = schema_version(conn, schema)
            if version != len(MIGRATIONS):
                _refuse_version(version, schema)
    except BaseException:
        conn.close()
        raise
    return conn


def schema_present(url: str, schema: str) -> bool:
    """Does the database hold this schema's index (of any version)? SharedIndexError when unreachable."""
    psycopg = _psycopg()
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=5, application_name="stigmergy")
    except psycopg.Error as exc:
        raise SharedIndexError(f"cannot reach the shared index at {redact(url)}: {str(exc).strip().splitlines()[0]}",
                               hint="check index.url in ~/.config/stigmergy/config.toml or STIGMERGY_INDEX__URL") from None
    try:
        return schema_version(conn, schema) > 0
    finally:
        conn.close()


def _ensure_extension(conn: Any) -> None:
    row = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public")
        except _psycopg().Error as exc:
            raise IndexMissingExtensionError(
                f"the database has no pgvector extension and it cannot be created here ({str(exc).strip()})",
                hint="ask its owner to run `CREATE EXTENSION vector`") from exc


def schema_version(conn: Any, schema: str) -> int:
    """The schema's migration number (0 when the schema or its version table is absent)."""
    row = conn.execute("SELECT to_regclass(%s)", (f'"{schema}".schema_version',)).fetchone()
    if row is None or row[0] is None:
        return 0
    from psycopg import sql

    got = conn.execute(sql.SQL("SELECT version FROM {}.schema_version").format(sql.Identifier(schema))).fetchone()
    return int(got[0]) if got else 0


def _refuse_version(version: int, schema: str) -> None:
    if version > len(MIGRATIONS):
        raise IndexTooNewError(
            f"the shared index (schema {schema}) is at schema version {version}, newer than this stigmergy "
            f"({len(MIGRATIONS)}); upgrade stigmergy to use it", hint="pip install --upgrade stigmergy")
    if version == 0:
        raise SharedIndexError(f"the shared index has no schema {schema} yet", hint="run `stigmergy index`")
    raise SharedIndexError(f"the shared index (schema {schema}) is at schema version {version}, older than this "
                           f"stigmergy ({len(MIGRATIONS)})", hint="run `stigmergy index` to migrate it")


def migrate(conn: Any, schema: str) -> None:
    from psycopg import sql

    version = schema_version(conn, schema)
    if version == len(MIGRATIONS):
        return
    if version > len(MIGRATIONS):
        _refuse_version(version, schema)
    with conn.transaction():
        # One migrator at a time; the second re-reads the version once the first has committed.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key("migrate", schema),))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        version = int(row[0]) if row else 0
        if row is None:
            conn.execute("INSERT INTO schema_version(version) VALUES (0)")
        if version > len(MIGRATIONS):
            _refuse_version(version, schema)
        for number, script in enumerate(MIGRATIONS, start=1):
            if number > version:
                conn.execute(script)
                conn.execute("UPDATE schema_version SET version = %s", (number,))


class PostgresIndexStore:
    """`IndexStore` over one PostgreSQL connection (autocommit outside `transaction()`)."""

    shared = True

    def __init__(self, conn: Any, schema: str) -> None:
        self.conn = conn
        self.schema = schema
        self.errors: tuple[type[BaseException], ...] = (_psycopg().Error,)
        self._counts: tuple[int, dict[str, int]] | None = None
        self._stats: tuple[int, tuple[int, float]] | None = None
        self._phrase_df: dict[tuple[str, ...], int] = {}
        self._ef_search = 0
        self._locked = False

    @classmethod
    def open(cls, url: str, schema: str, wiki: str = "", *, timeout: float = 10.0) -> PostgresIndexStore:
        store = cls(connect(url, schema, timeout=timeout), schema)
        try:
            store.claim(wiki)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def peek(cls, url: str, schema: str, wiki: str = "") -> PostgresIndexStore | None:
        """Read-only use that never migrates and never waits long: None when unreachable or not current."""
        try:
            store = cls(connect(url, schema, timeout=2.0, migrate_schema=False), schema)
        except (StigmergyError, Exception):  # noqa: BLE001 - a peek never fails its caller
            return None
        try:
            store.conn.execute("SET statement_timeout = 2000")
            if wiki and store.meta("wiki") not in (None, wiki):
                store.close()
                return None
        except Exception:  # noqa: BLE001
            store.close()
            return None
        return store

    def claim(self, wiki: str) -> None:
        """Record which repository this schema indexes, or refuse another one."""
        if not wiki:
            return
        held = self.meta("wiki")
        if held is None:
            self.conn.execute("INSERT INTO meta(key, value) VALUES ('wiki', %s) ON CONFLICT (key) DO NOTHING", (wiki,))
            held = self.meta("wiki")
        if held != wiki:
            raise SharedIndexError(
                f"the shared index (schema {self.schema}) holds another wiki (first commit {str(held)[:12]}), "
                f"not this one ({wiki[:12]})",
                hint="give this wiki its own: set index.schema in ~/.config/stigmergy/config.toml")

    # ------------------------------------------------------------ lifecycle, meta, transactions

    def close(self) -> None:
        if self._locked:
            self.release_writer()
        self.conn.close()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def all_meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                          "excluded.value", (key, value))

    def version(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.conn.transaction():
            yield
            self.conn.execute("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'")

    @contextmanager
    def writer_lock(self, timeout: float) -> Iterator[None]:
        """Hold the schema's writer lock (a session advisory lock) for the block, waiting up to `timeout`."""
        key = _lock_key("index", self.schema)
        deadline = time.monotonic() + timeout
        while not self.conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    f"another writer has been indexing the shared index (schema {self.schema}) for over "
                    f"{timeout:g}s", hint="try again when it finishes")
            time.sleep(0.05)
        self._locked = True
        try:
            yield
        finally:
            self.release_writer()

    def release_writer(self) -> None:
        if self._locked and not self.conn.closed:
            self.conn.execute("SELECT pg_advisory_unlock(%s)", (_lock_key("index", self.schema),))
        self._locked = False

    def writer_busy(self) -> bool:
        """Does another session hold the writer lock now?"""
        key = _lock_key("index", self.schema)
        if self.conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
            self.conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            return False
        return True

    # ------------------------------------------------------------ the builder's writes

    def indexed_pages(self) -> dict[str, IndexedPage]:
        return {r[0]: IndexedPage(r[1], r[0], r[2], r[3])
                for r in self.conn.execute("SELECT path, id, layer, blob_sha FROM pages")}

    def page_shas(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT path, blob_sha FROM pages").fetchall())

    def clear(self) -> None:
        # DELETE, not TRUNCATE: readers keep the old rows until the swap commits.
        self.conn.execute("DELETE FROM pages")
        self.conn.execute("DELETE FROM terms")
        for (name,) in self.conn.execute("SELECT name FROM vec_indexes").fetchall():
            self._drop_index(name)
        self.conn.execute("DELETE FROM vec_indexes")

    def _drop_index(self, name: str) -> None:
        from psycopg import sql

        self.conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(name)))

    def remove_pages(self, pages: Sequence[IndexedPage]) -> None:
        pg_write.remove_pages(self.conn, pages)

    def insert_pages(self, items: Sequence[tuple[PageDoc, str]]) -> list[NewFragment]:
        return pg_write.insert_pages(self.conn, items)

    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> set[str]:
        have: set[str] = set()
        for i in range(0, len(hashes), 5000):
            chunk = list(hashes[i : i + 5000])
            have.update(r[0] for r in self.conn.execute(
                "SELECT hash FROM vectors WHERE fingerprint = %s AND hash = ANY(%s::text[])", (fingerprint, chunk)))
        return have

    def put_vectors(self, fingerprint: str, rows: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        batch = [(h, fingerprint, np.ascontiguousarray(v, dtype=np.float32)) for h, v in rows]
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.executemany("INSERT INTO vectors(hash, fingerprint, embedding) VALUES (%s, %s, %s) "
                            "ON CONFLICT (hash, fingerprint) DO UPDATE SET embedding = excluded.embedding", batch)

    def attach_vectors(self, fragments: Sequence[NewFragment], fingerprint: str, dimension: int | None) -> None:
        if not fragments:
            return
        self.conn.execute(
            "INSERT INTO vec(id, layer, embedding) SELECT u.i, u.l, v.embedding "
            "FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS u(i, l, h) "
            "JOIN vectors v ON v.hash = u.h AND v.fingerprint = %s",
            ([f.id for f in fragments], [f.layer for f in fragments], [f.hash for f in fragments], fingerprint))
        self._page_vectors([f.id for f in fragments])

    def _page_vectors(self, fragments: Sequence[int]) -> None:
        """Each page of `fragments` (all of a page's fragments are new together): the mean of its fragment
        vectors (L2-normalised) and its first fragment's vector."""
        import numpy as np

        pages: dict[int, list[tuple[int, Any]]] = {}
        for pid, seq, vec in self.conn.execute(
                "SELECT f.page, f.seq, v.embedding FROM fragments f JOIN vec v ON v.id = f.id "
                "WHERE f.id = ANY(%s::bigint[])", (list(fragments),), binary=True):
            pages.setdefault(pid, []).append((seq, vec))
        rows = []
        for pid, got in pages.items():
            got.sort(key=lambda r: r[0])
            mat = np.stack([_np(v) for _, v in got])
            mean = mat.mean(axis=0)
            mean /= max(float(np.linalg.norm(mean)), 1e-12)
            rows.append((pid, mean.astype(np.float32), mat[0], len(got)))
        if rows:
            with self.conn.cursor() as cur:
                cur.executemany("INSERT INTO page_vectors(page, centroid, lead, fragments) VALUES (%s, %s, %s, %s) "
                                "ON CONFLICT (page) DO UPDATE SET centroid = excluded.centroid, lead = excluded.lead, "
                                "fragments = excluded.fragments", rows)

    def page_vectors(self, pages: Sequence[int], min_fragments: int = 1) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:

        if not pages:
            return {}
        return {pid: (_np(c), _np(lead), int(n))
                for pid, c, lead, n in self.conn.execute(
                    "SELECT page, centroid, lead, fragments FROM page_vectors WHERE page = ANY(%s::bigint[]) "
                    "AND fragments >= %s",
                    (list(pages), min_fragments), binary=True)}

    def fragment_vectors(self, fragments: Sequence[int], fingerprint: str) -> dict[int, np.ndarray]:

        if not fragments:
            return {}
        return {fid: _np(v) for fid, v in self.conn.execute(
            "SELECT id, embedding FROM vec WHERE id = ANY(%s::bigint[])", (list(fragments),), binary=True)}

    def prune_vectors(self, keep_fingerprint: str | None = None) -> None:
        if keep_fingerprint is not None:
            self.conn.execute("DELETE FROM vectors WHERE fingerprint != %s", (keep_fingerprint,))
            self.conn.execute("DELETE FROM line_vectors WHERE fingerprint NOT LIKE %s || ':%%'", (keep_fingerprint,))
        self.conn.execute("DELETE FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM fragments f WHERE f.hash = v.hash)")

    def drop_layer_vectors(self, layer: str) -> None:
        self.conn.execute("DELETE FROM vec WHERE layer = %s", (layer,))
        row = self.conn.execute("DELETE FROM vec_indexes WHERE layer = %s RETURNING name", (layer,)).fetchone()
        if row:
            self._drop_index(row[0])

    def analyze(self, full: bool) -> None:
        """Planner statistics, and an HNSW index for each layer that has outgrown the exact scan (built
        here, once the rows are in: building the graph at the end is far cheaper than growing it row by
        row through a bulk load)."""
        from psycopg import sql

        counts = dict(self.conn.execute("SELECT layer, count(*) FROM vec WHERE layer NOT IN (SELECT layer FROM "
                                        "vec_indexes) GROUP BY layer").fetchall())
        for layer, n in sorted(counts.items()):
            if n <= EXACT_SCAN_MAX_ROWS:
                continue
            dim = self.conn.execute("SELECT vector_dims(embedding) FROM vec WHERE layer = %s LIMIT 1",
                                    (layer,)).fetchone()[0]
            nxt = self.conn.execute("SELECT count(*) + 1 FROM vec_indexes").fetchone()[0]
            name = f"vec_hnsw_{nxt}_{hashlib.sha256(layer.encode()).hexdigest()[:8]}"
            self.conn.execute(sql.SQL(
                "CREATE INDEX {} ON vec USING hnsw ((embedding::vector({})) vector_cosine_ops) "
                "WITH (m = {}, ef_construction = {}) WHERE layer = {}").format(
                    sql.Identifier(name), sql.Literal(int(dim)), sql.Literal(HNSW_M),
                    sql.Literal(HNSW_EF_CONSTRUCTION), sql.Literal(layer)))
            self.conn.execute("INSERT INTO vec_indexes(layer, name, dimension) VALUES (%s, %s, %s)", (layer, name, dim))
        if not full:
            # An update of a few pages leaves the statistics to autovacuum's analyze: ANALYZE of eight tables
            # cost more than the rest of a one-page update (0.2 of 0.5 s at 2,000 fragments).
            return
        self.conn.execute("DELETE FROM terms WHERE df <= 0")
        for table in ("pages", "fragments", "fts", "vec", "terms", "links", "entity_names", "page_entities"):
            self.conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))

    def optimize_fulltext(self) -> None:
        """Nothing to do: the GIN index merges its pending list itself."""

    def compact(self) -> None:
        # Deleted rows stay in the table files until they are rewritten (erase): VACUUM FULL rewrites them.
        for table in ("pages", "fragments", "fts", "terms", "vectors", "vec", "page_vectors", "line_vectors", "entity_names", "page_entities",
                      "links", "citations", "contradictions", "meta"):
            from psycopg import sql

            self.conn.execute(sql.SQL("VACUUM FULL {}").format(sql.Identifier(table)))

    def totals(self) -> tuple[int, int]:
        pages, fragments = self.conn.execute(
            "SELECT (SELECT count(*) FROM pages), (SELECT count(*) FROM fragments)").fetchone()
        return int(pages), int(fragments)

    def integrity(self, fingerprint: str) -> Integrity:
        q = self.conn.execute
        n_frag = q("SELECT count(*) FROM fragments").fetchone()[0]
        n_fts = q("SELECT count(*) FROM fts").fetchone()[0]
        missing = q("SELECT count(*) FROM fragments f WHERE NOT EXISTS "
                    "(SELECT 1 FROM vectors v WHERE v.hash = f.hash AND v.fingerprint = %s)", (fingerprint,)).fetchone()[0]
        vec = dict(q("SELECT layer, count(*) FROM vec GROUP BY layer").fetchall())
        frag = dict(q("SELECT layer, count(*) FROM fragments GROUP BY layer").fetchall())
        layers = tuple(LayerVectors(layer, int(vec.get(layer, 0)), int(frag.get(layer, 0)))
                       for layer in sorted(set(vec) | set(frag)))
        return Integrity(int(n_frag), int(n_fts), int(missing), layers)

    # ------------------------------------------------------------ scope

    def entity_keys(self, name: str, layers: tuple[str, ...]) -> tuple[list[int], list[str]]:
        from stigmergy.pages.wikilinks import link_key

        key = link_key(name)
        pages = [r[0] for r in self.conn.execute(
            "SELECT DISTINCT en.page FROM entity_names en JOIN pages p ON p.id = en.page "
            "WHERE en.name = %s AND p.layer = ANY(%s::text[])", (key, list(layers)))]
        keys = {key}
        if pages:
            keys.update(r[0] for r in self.conn.execute(
                "SELECT name FROM entity_names WHERE page = ANY(%s::bigint[])", (pages,)))
        return pages, sorted(keys)

    def select(self, layers: tuple[str, ...], filters: Filters) -> Selection:
        """The SQL condition on pages `p`: the reader's layers and the filters."""
        conds = ["p.layer = ANY(%s::text[])"]
        params: list[Any] = [list(layers)]
        if filters.type:
            conds.append("p.type = %s")
            params.append(filters.type)
        if filters.status:
            conds.append("p.status = %s")
            params.append(filters.status)
        if filters.layer:
            conds.append("p.layer = %s")
            params.append(filters.layer)
        if filters.since:
            conds.append("coalesce(p.updated, p.occurred_at, p.captured_at, '') >= %s")
            params.append(filters.since)
        if filters.entity:
            pages, keys = self.entity_keys(filters.entity, layers)
            # Sources carry no `entities` list: the ones whose text names the entity (a phrase match) belong.
            mention = pg_text.tsquery(pg_text.phrases(keys), column="D")
            conds.append("(p.id IN (SELECT page FROM page_entities WHERE entity = ANY(%s::text[])) "
                         "OR p.id = ANY(%s::bigint[])"
                         + (" OR (p.type = 'source' AND p.id IN (SELECT f.page FROM fts t JOIN fragments f "
                            "ON f.id = t.id WHERE t.tsv @@ %s::tsquery))" if mention else "") + ")")
            params.extend([keys, pages])
            if mention:
                params.append(mention)
        return Selection(layers, filters, (" AND ".join(conds), tuple(params)))

    # ------------------------------------------------------------ full text

    def _fts_stats(self) -> tuple[int, float]:
        """(rows, mean tokens per row) of the whole full-text table, once per database version."""
        version = self.version()
        if self._stats is None or self._stats[0] != version:
            n, total = self.conn.execute("SELECT count(*), coalesce(sum(ntok), 0) FROM fts").fetchone()
            self._stats = (version, (int(n), float(total) / max(1, int(n))))
            self._phrase_df = {}
        return self._stats[1]

    def _dfs(self, phrase_list: Sequence[tuple[str, ...]]) -> dict[str, int]:
        """Document frequency of each single-word phrase's lexeme (absent: none)."""
        singles = sorted({p[0] for p in phrase_list if len(p) == 1})
        return {str(k): int(v) for k, v in self.conn.execute(
            "SELECT term, df FROM terms WHERE term = ANY(%s::text[])", (singles,)).fetchall()} if singles else {}

    def _idfs(self, phrase_list: Sequence[tuple[str, ...]], rows: int,
              df: dict[str, int] | None = None) -> list[float]:
        df = self._dfs(phrase_list) if df is None else df
        out = []
        for phrase in phrase_list:
            if len(phrase) == 1:
                n = int(df.get(phrase[0], 0))
            else:
                if phrase not in self._phrase_df:
                    self._phrase_df[phrase] = int(self.conn.execute(
                        "SELECT count(*) FROM fts WHERE tsv @@ %s::tsquery", (pg_text.tsquery([phrase]),)).fetchone()[0])
                n = self._phrase_df[phrase]
            out.append(pg_text.idf(rows, n))
        return out

    def _ranked(self, phrase_list: Sequence[tuple[str, ...]], layers: Sequence[str], where: str,
                params: Sequence[Any], weights: tuple[float, float, float], depth: int,
                filter_first: bool, pick: tuple[float, float, float] | None = None) -> list[tuple[int, int, float, float]]:
        """(fragment, page, bm25, bm25 at the weights `pick` or 0.0) of the best BM25 matches in `layers` of pages
        meeting `where`, best first (ties by id): a ts_rank cut of FIRST_CUT x `depth` inside the database (ties
        by id too, so that the cut is the same whatever the plan), re-scored exactly with FTS5's bm25 (inside the
        database for single words, `pg_rank`; here for phrases)."""
        query = pg_text.tsquery(phrase_list)
        w = pg_text.weights_array(weights)
        cut = max(depth * FIRST_CUT, 100)
        if filter_first:
            sql_text = (
                "SELECT t.id, f.page, t.ntok FROM fts t JOIN fragments f ON f.id = t.id JOIN pages p "
                f"ON p.id = f.page WHERE t.tsv @@ %s::tsquery AND t.layer = ANY(%s::text[]) AND {where} "
                "ORDER BY ts_rank(%s::float4[], t.tsv, %s::tsquery, 1) DESC, t.id LIMIT %s")
            args: tuple[Any, ...] = (query, list(layers), *params, w, query, cut)
        else:
            sql_text = (
                "SELECT c.id, f.page, c.ntok FROM (SELECT t.id, t.ntok, ts_rank(%s::float4[], t.tsv, "
                "%s::tsquery, 1) AS r FROM fts t WHERE t.tsv @@ %s::tsquery AND t.layer = ANY(%s::text[]) "
                f"ORDER BY r DESC, t.id LIMIT %s) c JOIN fragments f ON f.id = c.id JOIN pages p ON p.id = f.page WHERE {where}")
            args = (w, query, query, list(layers), cut, *params)
        if pg_rank.in_database(phrase_list):
            rows, avg = self._fts_stats()
            idfs = self._idfs(phrase_list, rows)
            both = pick is not None
            scored = self.conn.execute(
                f"SELECT c.id, c.page, s.score, {'s2.score' if both else '0.0'} FROM ({sql_text}) c JOIN fts t ON t.id = c.id "
                f"{pg_rank.score_join('t')} {pg_rank.score_join('t', 's2') if both else ''} "
                "ORDER BY s.score DESC, c.id LIMIT %s",
                (*args, *pg_rank.score_params(phrase_list, idfs, avg, weights),
                 *(pg_rank.score_params(phrase_list, idfs, avg, pick) if pick is not None else ()), depth))
            return [(fid, page, float(score), float(score2)) for fid, page, score, score2 in scored.fetchall()]
        cands = self.conn.execute(f"SELECT id, page, ntok FROM ({sql_text}) c", args).fetchall()
        return self._rescored(cands, phrase_list, weights, depth, pick)

    def _rescored(self, cands: Sequence[tuple[int, int, int]], phrase_list: Sequence[tuple[str, ...]],
                  weights: tuple[float, float, float], depth: int,
                  pick: tuple[float, float, float] | None = None) -> list[tuple[int, int, float, float]]:
        """The best `depth` of (fragment, page, token count) rows by FTS5's bm25, best first (ties by id), each
        with its bm25 at the weights `pick` (0.0 without)."""
        if not cands:
            return []
        lexemes = sorted({x for p in phrase_list for x in p})
        in_phrases = sorted({x for p in phrase_list if len(p) > 1 for x in p})
        # A lexeme's column letters come as one string (counted here); positions only for the words of a
        # phrase, which need them to find the phrase (parsing every position of ~1,600 rows cost more
        # client CPU than the rest of a search). Each row's tsvector is cut down to the query's lexemes
        # (delete the others: the row's lexemes less the query's) before unnest, which otherwise made a
        # row with two arrays for each of a fragment's ~90 lexemes: 43 -> 19 ms of the database's CPU a
        # search at 31,000 fragments, the same rows.
        occ: dict[int, dict[str, tuple[str, list[int] | None]]] = {}
        for fid, lexeme, positions, letters in self.conn.execute(
                "SELECT t.id, u.lexeme, CASE WHEN u.lexeme = ANY(%s::text[]) THEN u.positions END, "
                "array_to_string(u.weights, '') FROM fts t, "
                "unnest(ts_delete(t.tsv, tsvector_to_array(ts_delete(t.tsv, %s::text[])))) u "
                "WHERE t.id = ANY(%s::bigint[])",
                (in_phrases, lexemes, [c[0] for c in cands])):
            occ.setdefault(fid, {})[lexeme] = (letters, positions)
        rows, avg = self._fts_stats()
        idfs = self._idfs(phrase_list, rows)
        scored = []
        for fid, page, ntok in cands:
            hits = [pg_text.phrase_hits(occ.get(fid, {}), p) for p in phrase_list]
            also = pg_text.bm25(hits, idfs, pick, ntok, avg) if pick is not None else 0.0
            scored.append((-pg_text.bm25(hits, idfs, weights, ntok, avg), fid, page, also))
        scored.sort()
        return [(fid, page, -neg, also) for neg, fid, page, also in scored[:depth]]

    # ------------------------------------------------------------ the search arms

    def lexical(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                depth: int) -> list[tuple[int, int, float]]:
        phrase_list = pg_text.phrases(terms)
        if not phrase_list:
            return []
        where, params = sel.condition
        return [(fid, pid, s) for fid, pid, s, _ in
                self._ranked(phrase_list, sel.layers, where, params, weights, depth, filter_first=sel.filtered)]

    def lexical_both(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                     pick: tuple[float, float, float], depth: int) -> list[tuple[int, int, float, float]]:
        phrase_list = pg_text.phrases(terms)
        if not phrase_list:
            return []
        where, params = sel.condition
        return self._ranked(phrase_list, sel.layers, where, params, weights, depth, filter_first=sel.filtered,
                            pick=pick)

    def _vec_rows(self) -> dict[str, int]:
        version = self.version()
        if self._counts is None or self._counts[0] != version:
            self._counts = (version, dict(self.conn.execute("SELECT layer, count(*) FROM vec GROUP BY layer").fetchall()))
        return self._counts[1]

    def nearest(self, query: np.ndarray, sel: Selection, want: int, prefilter: int,
                fingerprint: str) -> list[tuple[int, int, float]]:
        import numpy as np
        from psycopg import sql

        qvec = np.ascontiguousarray(query, dtype=np.float32)
        counts = self._vec_rows()
        indexes = dict(self.conn.execute("SELECT layer, dimension FROM vec_indexes").fetchall()) if any(
            counts.get(layer, 0) > EXACT_SCAN_MAX_ROWS for layer in sel.layers) else {}
        parts: list[Any] = []
        params: list[Any] = []
        for layer in sel.layers:
            if not counts.get(layer):
                continue
            dim = indexes.get(layer)
            if dim:
                # The layer's own HNSW graph: the partial index's predicate is this literal layer.
                cast = sql.SQL("(v.embedding::vector({d})) <=> %s::vector({d})").format(d=sql.Literal(int(dim)))
                parts.append(sql.SQL("(SELECT v.id, {c} AS d FROM vec v WHERE v.layer = {l} ORDER BY {c} LIMIT %s)")
                             .format(c=cast, l=sql.Literal(layer)))
                params.extend([qvec, qvec, want])
            else:
                parts.append(sql.SQL("(SELECT v.id, v.embedding <=> %s AS d FROM vec v WHERE v.layer = %s "
                                     "ORDER BY d LIMIT %s)"))
                params.extend([qvec, layer, want])
        if not parts:
            return []
        if indexes:
            ef = max(40, want, prefilter)
            if ef != self._ef_search:
                self.conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(int(min(ef, 1000)))))
                self._ef_search = ef
        where, cond = sel.condition
        statement = sql.SQL(
            "SELECT c.id, f.page, 1.0 - c.d FROM (SELECT id, d FROM ({u}) n ORDER BY d LIMIT %s) c "
            "JOIN fragments f ON f.id = c.id JOIN pages p ON p.id = f.page WHERE {w} ORDER BY c.d"
        ).format(u=sql.SQL(" UNION ALL ").join(parts), w=sql.SQL(where))  # type: ignore[arg-type]
        return [(r[0], r[1], float(r[2])) for r in self.conn.execute(statement, (*params, want, *cond)).fetchall()]

    def entity_names_in(self, names: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, int]]:
        return self._rows("SELECT en.name, en.page FROM entity_names en JOIN pages p ON p.id = en.page "
                          "WHERE en.name = ANY(%s::text[]) AND p.layer = ANY(%s::text[])", (list(names), list(layers)))

    def _rows(self, statement: str, params: Sequence[Any]) -> list[Any]:
        return [tuple(r) for r in self.conn.execute(statement, params).fetchall()]

    def names_of(self, pages: Sequence[int]) -> list[tuple[str, int]]:
        return self._rows("SELECT name, page FROM entity_names WHERE page = ANY(%s::bigint[])", (list(pages),))

    def allowed(self, pages: Sequence[int], sel: Selection) -> set[int]:
        where, params = sel.condition
        return {r[0] for r in self.conn.execute(
            f"SELECT p.id FROM pages p WHERE p.id = ANY(%s::bigint[]) AND {where}", (list(pages), *params))}

    def pages_about(self, entities: Sequence[str], sel: Selection, depth: int) -> list[tuple[int, int]]:
        where, params = sel.condition
        return self._rows(
            f"SELECT p.id, count(*) AS n FROM page_entities pe JOIN pages p ON p.id = pe.page "
            f"WHERE pe.entity = ANY(%s::text[]) AND {where} GROUP BY p.id "
            f"ORDER BY n DESC, {STATUS_ORDER}, p.updated {C} DESC NULLS LAST, p.path {C} "
            f"LIMIT %s", (list(entities), *params, depth))

    def source_mentions(self, names: Sequence[str], sel: Selection, depth: int) -> list[int]:
        match = pg_text.tsquery(pg_text.phrases(names), column="D")
        if not match:
            return []
        where, params = sel.condition
        return [r[0] for r in self.conn.execute(
            f"SELECT p.id FROM fts t JOIN fragments f ON f.id = t.id JOIN pages p ON p.id = f.page "
            f"WHERE t.tsv @@ %s::tsquery AND t.layer = ANY(%s::text[]) AND p.type = 'source' AND {where} "
            f"GROUP BY p.id, p.path ORDER BY p.path {C} LIMIT %s",
            (match, list(sel.layers), *params, depth))]

    def links_from(self, pages: Sequence[int]) -> list[tuple[int, str]]:
        return self._rows("SELECT src, target FROM links WHERE src = ANY(%s::bigint[])", (list(pages),))

    def pages_with_stems(self, stems: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self._rows(f"SELECT p.id, p.stem FROM pages p WHERE p.stem = ANY(%s::text[]) AND {where}",
                          (list(stems), *params))

    def entities_named(self, names: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self._rows(f"SELECT p.id, en.name FROM entity_names en JOIN pages p ON p.id = en.page "
                          f"WHERE en.name = ANY(%s::text[]) AND {where} ORDER BY p.path {C}, en.name {C}",
                          (list(names), *params))

    def stems_and_titles(self, pages: Sequence[int]) -> list[tuple[int, str, str]]:
        return self._rows("SELECT id, stem, title FROM pages WHERE id = ANY(%s::bigint[])", (list(pages),))

    def linking(self, targets: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self._rows(f"SELECT DISTINCT l.src, l.target FROM links l JOIN pages p ON p.id = l.src "
                          f"WHERE l.target = ANY(%s::text[]) AND {where}", (list(targets), *params))

    def out_degrees(self, pages: Sequence[int]) -> list[tuple[int, int]]:
        return self._rows("SELECT src, count(*) FROM links WHERE src = ANY(%s::bigint[]) GROUP BY src", (list(pages),))

    def in_degrees(self, targets: Sequence[str]) -> list[tuple[str, int]]:
        return self._rows("SELECT target, count(*) FROM links WHERE target = ANY(%s::text[]) GROUP BY target",
                          (list(targets),))

    # ------------------------------------------------------------ hits

    def citations_of(self, pages: Sequence[int]) -> list[CitationRow]:
        return [CitationRow(*r) for r in self.conn.execute(
            "SELECT c.src, c.line, c.capture_id, s.occurred_at, c.start_line FROM citations c "
            "LEFT JOIN pages s ON s.page_id = c.capture_id AND s.type = 'source' "
            "WHERE c.src = ANY(%s::bigint[])", (list(pages),))]

    def fragment_rows(self, fragments: Sequence[int]) -> dict[int, FragmentRow]:
        return {r[0]: FragmentRow(*r) for r in self.conn.execute(
            "SELECT id, seq, start_line, end_line FROM fragments WHERE id = ANY(%s::bigint[])", (list(fragments),))}

    def fragment_at(self, page: int, line: int) -> int | None:
        row = self.conn.execute("SELECT id FROM fragments WHERE page = %s AND start_line <= %s ORDER BY seq DESC "
                                "LIMIT 1", (page, line)).fetchone()
        return row[0] if row else None

    def first_fragment(self, page: int) -> int | None:
        row = self.conn.execute("SELECT id FROM fragments WHERE page = %s ORDER BY seq LIMIT 1", (page,)).fetchone()
        return row[0] if row else None

    def fragment_text(self, fragment: int) -> str:
        return str(self.conn.execute("SELECT body FROM fragments WHERE id = %s", (fragment,)).fetchone()[0])

    def fragment_texts(self, fragments: Sequence[int]) -> dict[int, str]:
        if not fragments:
            return {}
        return dict(self.conn.execute("SELECT id, body FROM fragments WHERE id = ANY(%s::bigint[])",
                                      (list(fragments),)).fetchall())

    def page_infos(self, pages: Sequence[int]) -> dict[int, PageInfo]:
        return {r[0]: PageInfo(*r) for r in self.conn.execute(
            "SELECT id, path, title, type, layer, status, occurred_at, n_claims, n_cited, page_id, "
            "meta::jsonb ->> 'decay', "
            "(SELECT count(DISTINCT c.capture_id) FROM citations c WHERE c.src = pages.id), "
            "(SELECT count(*) FROM contradictions k WHERE k.page = pages.id AND k.status = 'open') FROM pages "
            "WHERE id = ANY(%s::bigint[])", (list(pages),))}

    def hubs(self, pages: Sequence[int]) -> set[int]:
        return {r[0] for r in self.conn.execute(
            "SELECT id FROM pages WHERE type IN ('entity', 'concept', 'project') AND id = ANY(%s::bigint[])",
            (list(pages),))}

    def sources_of_captures(self, captures: Sequence[str], sel: Selection) -> dict[str, int]:
        where, params = sel.condition
        return dict(self.conn.execute(
            f"SELECT p.page_id, p.id FROM pages p WHERE p.page_id = ANY(%s::text[]) AND p.type = 'source' "
            f"AND {where}", (list(captures), *params)).fetchall())

    # ------------------------------------------------------------ reads

    def resolve_link(self, keys: Sequence[str], layers: tuple[str, ...], from_layer: str) -> PageRef | None:
        row = self.conn.execute(
            "SELECT path, title FROM pages WHERE stem = ANY(%s::text[]) AND type != 'source' "
            f"AND layer = ANY(%s::text[]) ORDER BY layer = %s DESC, layer = 'public' DESC, path {C} LIMIT 1",
            (list(keys), list(layers), from_layer)).fetchone()
        if row is None:
            row = self.conn.execute(
                "SELECT p.path, p.title FROM entity_names en JOIN pages p ON p.id = en.page "
                "WHERE en.name = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) "
                f"ORDER BY p.layer = %s DESC, p.layer = 'public' DESC, p.path {C} LIMIT 1",
                (list(keys), list(layers), from_layer)).fetchone()
        return PageRef(row[0], row[1]) if row else None

    def backlinks(self, names: Sequence[str], layers: tuple[str, ...], exclude: str, limit: int) -> list[Backlink]:
        return [Backlink(*r) for r in self.conn.execute(
            "SELECT p.path, min(p.title), min(l.line) FROM links l JOIN pages p ON p.id = l.src "
            "WHERE l.target = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) AND p.path != %s "
            f"GROUP BY p.path ORDER BY p.path {C} LIMIT %s", (list(names), list(layers), exclude, limit))]

    def count_pages(self, sel: Selection) -> int:
        where, params = sel.condition
        return int(self.conn.execute(f"SELECT count(*) FROM pages p WHERE {where}", params).fetchone()[0])

    def list_pages(self, sel: Selection, limit: int) -> list[ListedPage]:
        where, params = sel.condition
        return [ListedPage(*r) for r in self.conn.execute(
            f"SELECT p.path, p.title, p.type, p.layer, p.status, coalesce(p.updated, p.occurred_at), p.n_fragments, p.id "
            f"FROM pages p WHERE {where} ORDER BY p.type {C}, p.path {C} LIMIT %s", (*params, limit))]

    def entity(self, key: str, layers: tuple[str, ...]) -> EntityPage | None:
        row = self.conn.execute(
            "SELECT p.id, p.path, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name = %s AND p.layer = ANY(%s::text[]) ORDER BY en.kind {C} DESC, p.path {C} LIMIT 1",
            (key, list(layers))).fetchone()
        return EntityPage(*row) if row else None

    def about_entity(self, keys: Sequence[str], layers: tuple[str, ...], exclude: int) -> list[AboutPage]:
        return [AboutPage(*r) for r in self.conn.execute(
            "SELECT * FROM (SELECT DISTINCT p.id, p.path, p.title, p.type, p.status FROM page_entities pe "
            "JOIN pages p ON p.id = pe.page WHERE pe.entity = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) "
            f"AND p.id != %s) x ORDER BY x.type {C}, x.path {C}", (list(keys), list(layers), exclude))]

    def facts(self, pages: Sequence[int], layers: tuple[str, ...]) -> list[Fact]:
        return [Fact(*r) for r in self.conn.execute(
            "SELECT c.src, c.line, c.source_path, c.start_line, c.end_line, s.occurred_at, s.title "
            "FROM citations c JOIN pages s ON s.path = c.source_path AND s.type = 'source' "
            "WHERE c.src = ANY(%s::bigint[]) AND s.layer = ANY(%s::text[]) "
            f"ORDER BY s.occurred_at {C} NULLS FIRST, c.src, c.line", (list(pages), list(layers)))]

    def contradictions_on(self, pages: Sequence[int]) -> list[ContradictionRow]:
        return [ContradictionRow(*r) for r in self.conn.execute(
            "SELECT c.page, c.data FROM contradictions c WHERE c.page = ANY(%s::bigint[]) "
            f"ORDER BY c.status = 'resolved', c.con_id {C}", (list(pages),))]

    # ------------------------------------------------------------ ask

    def name_rows(self, layers: tuple[str, ...]) -> list[NameRow]:
        if not layers:
            return []
        rows = [NameRow(n, pid, t, str(json.loads(m).get("entity_type") or "")) for n, pid, t, m in self.conn.execute(
            "SELECT en.name, p.id, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
            "WHERE p.layer = ANY(%s::text[])", (list(layers),))]
        rows += [NameRow(t, pid, t, "project") for pid, t in self.conn.execute(
            "SELECT id, title FROM pages WHERE type = 'project' AND layer = ANY(%s::text[])", (list(layers),))]
        return rows

    def sources_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[SourceRow]:
        return [SourceRow(*r) for r in self.conn.execute(
            "SELECT path, title, coalesce(occurred_at, captured_at, '') FROM pages WHERE type = 'source' "
            "AND path = ANY(%s::text[]) AND layer = ANY(%s::text[])", (sorted(set(paths)), list(layers)))]

    def contradictions_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT p.path, c.data FROM contradictions c JOIN pages p ON p.id = c.page "
            f"WHERE p.path = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) ORDER BY p.path {C}, c.con_id {C}",
            (list(paths), list(layers)))]

    def line_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, bytes]:
        return {h: bytes(v) for h, v in self.conn.execute(
            "SELECT hash, vector FROM line_vectors WHERE fingerprint = %s AND hash = ANY(%s::text[])",
            (fingerprint, list(hashes)))}

    def put_line_vectors(self, fingerprint: str, rows: Sequence[tuple[str, bytes]], wait: float) -> bool:
        try:
            with self.conn.transaction():
                self.conn.execute(f"SET LOCAL lock_timeout = {max(1, int(wait * 1000))}")
                with self.conn.cursor() as cur:
                    cur.executemany("INSERT INTO line_vectors(hash, fingerprint, vector) VALUES (%s, %s, %s) "
                                    "ON CONFLICT (hash, fingerprint) DO UPDATE SET vector = excluded.vector",
                                    [(h, fingerprint, v) for h, v in rows])
                n = self.conn.execute("SELECT count(*) FROM line_vectors").fetchone()[0]
                if n > MAX_LINE_VECTORS:
                    self.conn.execute("DELETE FROM line_vectors WHERE ctid IN (SELECT ctid FROM line_vectors LIMIT %s)",
                                      (n // 2,))
            return True
        except self.errors:
            return False  # a reader without write rights, or a lock held too long: this answer keeps its vectors

    # ------------------------------------------------------------ term statistics

    def fragment_count(self, layers: tuple[str, ...] | None = None) -> int:
        if layers is None:
            return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM fragments").fetchone()[0])
        return int(self.conn.execute("SELECT count(*) FROM fts WHERE layer = ANY(%s::text[])",
                                     (list(layers),)).fetchone()[0])

    def term_frequency(self, term: str, probe: int, layers: tuple[str, ...] | None = None) -> int:
        query = pg_text.tsquery(pg_text.phrases([term]))
        if not query:
            return 0
        if layers is None:
            return int(self.conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE tsv @@ %s::tsquery LIMIT %s) x",
                                         (query, probe)).fetchone()[0])
        return int(self.conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM fts WHERE tsv @@ %s::tsquery AND layer = ANY(%s::text[]) LIMIT %s) x",
            (query, list(layers), probe)).fetchone()[0])

    def page_matches(self, terms: Sequence[str], layer: str, weights: tuple[float, float, float],
                     depth: int) -> list[str]:
        phrase_list = pg_text.phrases(terms)
        if not phrase_list:
            return []
        ranked = self._ranked(phrase_list, [layer], "TRUE", (), weights, depth, filter_first=False)
        paths = dict(self.conn.execute("SELECT id, path FROM pages WHERE id = ANY(%s::bigint[]) AND type != 'source'",
                                       (sorted({p for _, p, _, _ in ranked}),)).fetchall())
        return [paths[p] for _, p, _, _ in ranked if p in paths]


def _conforms(store: PostgresIndexStore) -> None:
    """The type checker proves here that this backend is an `IndexStore` (nothing calls it)."""
    from stigmergy.index.store.protocol import IndexStore

    _: IndexStore = store
