"""The index database: `.stigmergy/index.sqlite`, SQLite (pysqlite3-binary) with FTS5 and sqlite-vec.

Derived and rebuildable. The schema comes from numbered migrations (PRAGMA user_version). Vectors live
twice on purpose: `vectors` is the content-addressed cache (hash, fingerprint) -> float32 blob that
survives renames and rebuilds; each readable layer has its own vec0 table (rowid = fragment id) so that a
reader's vector search only ever scans the layers they may read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from stigmergy.errors import IndexMissingExtensionError, StigmergyError


class IndexUnreadableError(StigmergyError):
    """The index file is damaged. It is derived state: `stigmergy index --rebuild` makes a new one."""

    def __init__(self, path: Path | str, cause: object) -> None:
        super().__init__(
            f"the index at {path} is unreadable ({cause})",
            hint="run `stigmergy index --rebuild` (the index is derived from the repository; nothing is lost)",
        )

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
)

# Above this many rows a layer's vector search prefilters on 1-bit quantised vectors and reranks in
# float: the exact float scan costs ~30 ms per 100k rows here, the bit scan ~8 ms (measured, bench/search.py).
EXACT_SCAN_MAX_ROWS = 20_000


def connect(path: Path | str, *, readonly: bool = False) -> Any:
    """A connection with FTS5 and sqlite-vec loaded and the schema migrated. Raises
    IndexMissingExtensionError (with the fix) when either extension is unavailable."""
    try:
        import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
    except ImportError as exc:
        raise IndexMissingExtensionError(
            "pysqlite3 is not installed (the standard sqlite3 module cannot load extensions here)",
            hint="pip install pysqlite3-binary",
        ) from exc
    try:
        import sqlite_vec  # type: ignore[import-not-found]
    except ImportError as exc:
        raise IndexMissingExtensionError("sqlite-vec is not installed", hint="pip install sqlite-vec") from exc
    if not readonly:
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


def open_for_rebuild(path: Path) -> Any:
    """A connection for `index --rebuild`. A damaged file is moved aside (`index.sqlite.corrupt`) and a new
    one started, so a rebuild always succeeds; a healthy one is kept for its vector cache."""
    try:
        conn = connect(path)
    except IndexUnreadableError:
        conn = None
    if conn is not None:
        try:
            if conn.execute("PRAGMA quick_check").fetchone()[0] == "ok":
                return conn
        except Exception:  # noqa: BLE001 - any failure here means the file cannot be trusted
            pass
        conn.close()
    path = Path(path)
    for suffix in ("", "-wal", "-shm"):
        damaged = Path(f"{path}{suffix}")
        if damaged.exists():
            damaged.replace(Path(f"{path}.corrupt{suffix}"))
    return connect(path)


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


def get_meta(conn: Any, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: Any, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (key, value))


def vec_table(conn: Any, layer: str, dimension: int | None = None) -> str | None:
    """The vec0 table of `layer`; created when `dimension` is given and it does not exist yet."""
    row = conn.execute("SELECT name, dimension FROM vec_tables WHERE layer = ?", (layer,)).fetchone()
    if row is not None:
        return str(row[0])
    if dimension is None:
        return None
    n = conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM vec_tables").fetchone()[0]
    name = f"vec_layer_{n}"
    conn.execute(
        f"CREATE VIRTUAL TABLE {name} USING vec0(embedding float[{dimension}] distance_metric=cosine, "
        f"bits bit[{dimension}])"
    )
    conn.execute("INSERT INTO vec_tables(layer, name, dimension) VALUES (?, ?, ?)", (layer, name, dimension))
    return name


def drop_vec_tables(conn: Any) -> None:
    for (name,) in conn.execute("SELECT name FROM vec_tables").fetchall():
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute("DELETE FROM vec_tables")
