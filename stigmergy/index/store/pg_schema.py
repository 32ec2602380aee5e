"""The PostgreSQL index's schema and connections: numbered migrations (`MIGRATIONS`, `schema_version`),
applied under a transaction-level advisory lock so that two processes never migrate at once; a database
whose schema is newer than this code is refused with one line (`IndexTooNewError`), never written to.
`connect` gives a connection whose search path is the index's schema, pgvector's types registered.
"""

from __future__ import annotations

import hashlib
from typing import Any

from stigmergy.errors import IndexMissingExtensionError, StigmergyError
from stigmergy.index.store import pg_impact

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
    # 2: the lexical arm's impact-ordered postings (pg_impact.py), filled from the full text already there
    pg_impact.MIGRATION,
)


class IndexTooNewError(StigmergyError):
    """The shared index was migrated by a newer stigmergy: this one must not read or write it."""


class SharedIndexError(StigmergyError):
    pass



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

