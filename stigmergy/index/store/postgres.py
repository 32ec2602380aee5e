"""The PostgreSQL index store: a shared index in one schema of a PostgreSQL database with pgvector, that
many clones, the push hook and warm servers read and write at once. Its statements are in this module
(the connection's lifecycle, locks, the builder's writes and vectors) and beside it: `pg_schema.py` (the
migrations and connections), `pg_search.py` (the arms), `pg_reads.py` (every other read), `pg_write.py`
(the batched page writes); the `IndexStore` protocol says what each one answers.

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
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from stigmergy.errors import LockTimeoutError, StigmergyError
from stigmergy.index.store import pg_held, pg_impact, pg_nearest, pg_write
from stigmergy.index.store.pg_schema import SharedIndexError, _lock_key, _psycopg, connect
from stigmergy.index.store.pg_search import EXACT_SCAN_MAX_ROWS, PgSearch
from stigmergy.index.store.protocol import IndexedPage, Integrity, LayerVectors, NewFragment

if TYPE_CHECKING:
    import numpy as np

    from stigmergy.index.pagedoc import PageDoc

HNSW_M, HNSW_EF_CONSTRUCTION = 16, 64


def _np(value: Any) -> np.ndarray:
    """A vector read back (pgvector's `Vector`) as a float32 array. Statements that read vectors ask for
    binary rows: pgvector parses the text form in Python, float by float (a search read ~500 vectors, and
    parsing them was most of its client time)."""
    import numpy as np

    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


class PostgresIndexStore(PgSearch):
    """`IndexStore` over one PostgreSQL connection (autocommit outside `transaction()`)."""

    shared = True

    def __init__(self, conn: Any, schema: str) -> None:
        self.conn = conn
        self.schema = schema
        self.errors: tuple[type[BaseException], ...] = (_psycopg().Error,)
        self._counts: tuple[int, dict[str, int], dict[str, int]] | None = None
        self._stats: tuple[int, tuple[int, float]] | None = None
        self._phrase_df: dict[tuple[str, ...], int] = {}
        self._ef_search = 0
        self._ref: tuple[int, float] | None = None
        self._locked = False
        self._warm = False
        self._gen: int | None = None
        self.url = ""

    @classmethod
    def open(cls, url: str, schema: str, wiki: str = "", *, timeout: float = 10.0) -> PostgresIndexStore:
        store = cls(connect(url, schema, timeout=timeout), schema)
        store.url = url  # a warm session's background readers open connections of their own (pg_nearest)
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

    def keep_warm(self) -> None:
        """A long-lived session: it holds between searches, per generation, the lexical arm's posting lists
        (`pg_postings`, read at their first use), each HNSW layer's vectors (`pg_nearest`, read in the
        background at the first search) and the rows it reads by id (`pg_held`)."""
        self._warm = True

    def close(self) -> None:
        if self._locked:
            self.release_writer()
        self.conn.close()

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                          "excluded.value", (key, value))

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
        # DELETE, not TRUNCATE: readers keep the old rows until the swap commits. The postings have no foreign
        # key to cascade from the pages (pg_impact.remove): they go here.
        pg_impact.clear(self.conn)
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

        def fetch(ids: list[int], least: int) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:
            return {pid: (_np(c), _np(lead), int(n))
                    for pid, c, lead, n in self.conn.execute(
                        "SELECT page, centroid, lead, fragments FROM page_vectors WHERE page = ANY(%s::bigint[]) "
                        "AND fragments >= %s", (ids, least), binary=True)}

        if not self._warm:
            return fetch(list(pages), min_fragments)
        # Every page's row held (the least count is applied here), so that a later search with another
        # floor finds it too: all of them where the vector arm's reader has read them (`pg_nearest`).
        generation = self._generation()
        got = pg_nearest.page_vectors(self.conn, self.schema, generation, list(pages))
        if got is None:
            got = pg_held.read(pg_held.place(self.conn, self.schema), "page", generation,
                               pages, pg_held.MAX_PAGES, lambda ids: fetch(ids, 1))
        return {pid: row for pid, row in got.items() if row[2] >= min_fragments}

    def fragment_vectors(self, fragments: Sequence[int], fingerprint: str) -> dict[int, np.ndarray]:

        if not fragments:
            return {}

        def fetch(ids: list[int]) -> dict[int, np.ndarray]:
            return {fid: _np(v) for fid, v in self.conn.execute(
                "SELECT id, embedding FROM vec WHERE id = ANY(%s::bigint[])", (ids,), binary=True)}

        if not self._warm:
            return fetch(list(fragments))
        generation = self._generation()
        got = pg_nearest.vectors(self.conn, self.schema, generation, list(fragments))  # the vector arm's hold
        rest = [f for f in fragments if f not in got]
        if rest:
            got.update(pg_held.read(pg_held.place(self.conn, self.schema), "fragment", generation, rest,
                                    pg_held.MAX_FRAGMENTS, fetch))
        return got

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
        self._bump()  # what warm sessions hold of the layer's vectors is gone with them

    def _bump(self) -> None:
        """Move the generation outside `transaction()` (inside one, the transaction moves it at its end)."""
        self.conn.execute("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'")

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
            self._bump()  # a new graph changes how the layer is searched: warm sessions re-read (pg_nearest)
        if not full:
            # An update of a few pages leaves the statistics to autovacuum's analyze: ANALYZE of eight tables
            # cost more than the rest of a one-page update (0.2 of 0.5 s at 2,000 fragments).
            return
        self.conn.execute("DELETE FROM terms WHERE df <= 0")
        for table in ("pages", "fragments", "fts", "postings", "vec", "terms", "links", "entity_names", "page_entities"):
            self.conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))

    def optimize_fulltext(self) -> None:
        """Nothing to do: the GIN index merges its pending list itself."""

    def compact(self) -> None:
        # Deleted rows stay in the table files until they are rewritten (erase): VACUUM FULL rewrites them.
        for table in ("pages", "fragments", "fts", "postings", "terms", "vectors", "vec", "page_vectors", "line_vectors", "entity_names", "page_entities",
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


def _conforms(store: PostgresIndexStore) -> None:
    """The type checker proves here that this backend is an `IndexStore` (nothing calls it)."""
    from stigmergy.index.store.protocol import IndexStore

    _: IndexStore = store
