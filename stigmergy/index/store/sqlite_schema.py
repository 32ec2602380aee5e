"""The SQLite index database itself: its schema (numbered migrations, PRAGMA user_version), the connection
that loads FTS5 and sqlite-vec and migrates, and the read-only peek at one meta value that `status` uses.

Apart from the store (sqlite.py) because nothing here answers a question of the `IndexStore` protocol: it is
what every statement stands on, read by the store's reads (sqlite.py) and the builder's writes
(sqlite_write.py) alike, and by docs/schema.md's generator. `marks` lives here for the same reason: both
build IN lists with it.

Derived and rebuildable. Vectors live twice on purpose: `vectors` is the content-addressed cache (hash,
fingerprint) -> float32 blob that survives renames and rebuilds; each readable layer has its own vec0 table
(rowid = fragment id) so that a reader's vector search only ever scans the layers they may read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stigmergy.errors import IndexMissingExtensionError
from stigmergy.index.store.protocol import IndexUnreadableError

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


def marks(values: Sequence[Any]) -> str:
    """`?, ?, ?` for an SQL IN list (an empty list matches nothing)."""
    return ",".join("?" * len(values)) if values else "NULL"


def dbapi() -> Any:
    """pysqlite3's DB-API module: the standard library's sqlite3 cannot load extensions here."""
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
    sqlite3 = dbapi()
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

