"""The SQLite state store (`.stigmergy/state.sqlite`, WAL): every statement the bookkeeping runs is in
this module (the `StateStore` protocol says what each one answers). It is bookkeeping; Git and the
evidence store stay canonical, and `write/recovery.py` rebuilds what a crash lost from commit trailers."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from stigmergy.errors import StigmergyError
from stigmergy.repo.state.protocol import CaptureRow, OperationRecord, OperationRow, PendingCapture

_MIGRATIONS = [
    """
    CREATE TABLE operations (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,              -- committed | refused | recovered
        commit_sha TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        summary TEXT NOT NULL DEFAULT '',
        manifest TEXT NOT NULL DEFAULT '{}',  -- JSON: paths and actions, counts, reasons, violations, planner record
        patch_sha TEXT                     -- exact patch, in the evidence store
    );
    CREATE INDEX operations_commit ON operations(commit_sha);
    CREATE TABLE queue (
        capture_id TEXT PRIMARY KEY,
        op_id TEXT NOT NULL,
        status TEXT NOT NULL,              -- pending | done
        created_at TEXT NOT NULL,
        envelope TEXT NOT NULL,            -- JSON: everything needed to render and file the capture
        inflight TEXT                      -- JSON: pre-images of paths being written, for crash repair
    );
    CREATE TABLE captures (
        capture_id TEXT PRIMARY KEY,
        content_sha TEXT NOT NULL,
        layer TEXT NOT NULL,
        source_path TEXT NOT NULL,
        op_id TEXT NOT NULL,
        captured_at TEXT NOT NULL,
        locator TEXT NOT NULL,
        filed INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX captures_content ON captures(content_sha, layer);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # Operations that are not captures (`stigmergy file`) have no queue row: their pre-images live here
    # while they write, so a crash mid-write can be undone.
    """
    CREATE TABLE inflight (op_id TEXT PRIMARY KEY, preimages TEXT NOT NULL);
    """,
    # A capture rebuilt from Git (a clone, a lost `.stigmergy/`) may not have its original bytes here.
    """
    ALTER TABLE captures ADD COLUMN rebuilt INTEGER NOT NULL DEFAULT 0;
    """,
]


class StateDB:
    """`StateStore` over one SQLite connection (read-only when `readonly`: a reader never writes it)."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        try:
            self._open(path, readonly)
        except sqlite3.DatabaseError as exc:
            # Bookkeeping is derived from Git (see resume): name the file and the way back, never a
            # traceback. It is not moved aside here: it may hold acknowledged captures not yet filed.
            raise StigmergyError(
                f"the state database {path} is unreadable ({exc})",
                hint=f"move it aside (mv {path} {path}.bad) and run `stigmergy resume` to rebuild it from Git",
            ) from exc

    def _open(self, path: Path, readonly: bool) -> None:
        if readonly:
            if not path.exists():
                self.conn = sqlite3.connect(":memory:")
                self._migrate()
                return
            self.conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
            # A read-only open reads nothing yet: read the header now, so a damaged file fails here.
            self.conn.execute("PRAGMA user_version").fetchone()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(path, timeout=30, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            # An acknowledged capture must survive a crash: FULL syncs each commit of the WAL. Bookkeeping
            # that Git can rebuild commits with `tx(durable=False)` (see there).
            self.conn.execute("PRAGMA synchronous=FULL")
            self._migrate()
        self.conn.row_factory = sqlite3.Row

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        for number, script in enumerate(_MIGRATIONS, start=1):
            if number > version:
                self.conn.executescript(f"BEGIN; {script}; PRAGMA user_version={number}; COMMIT;")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def tx(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction. `durable=False` commits without syncing the WAL (synchronous=NORMAL):
        the commit survives a killed process (it is in the OS's cache) and is synced with the next durable
        one, but a power cut may lose it. Only for rows a crash may lose because `resume` rebuilds them
        from Git (a filed capture's operation row, from its commit's trailers) or because what they guard
        is itself unsynced (pre-images of working-tree files, which are written without fsync too): each
        capture of a chat export was seven fsyncs, three of them here (issue 24)."""
        if not durable:
            self.conn.execute("PRAGMA synchronous=NORMAL")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        finally:
            if not durable:
                self.conn.execute("PRAGMA synchronous=FULL")

    # --- queue -------------------------------------------------------------------------------------
    def enqueue(self, capture_id: str, op_id: str, created_at: str, envelope: dict[str, Any]) -> None:
        with self.tx() as c:
            c.execute(
                "INSERT INTO queue(capture_id, op_id, status, created_at, envelope) VALUES (?,?,?,?,?)",
                (capture_id, op_id, "pending", created_at, json.dumps(envelope, sort_keys=True)),
            )

    def pending(self) -> list[PendingCapture]:
        rows = self.conn.execute(
            "SELECT capture_id, op_id, envelope, inflight FROM queue WHERE status='pending' ORDER BY capture_id"
        ).fetchall()
        return [PendingCapture(r[0], r[1], json.loads(r[2]), json.loads(r[3]) if r[3] else None) for r in rows]

    def set_inflight(self, capture_id: str, inflight: dict[str, Any] | None) -> None:
        with self.tx(durable=False) as c:
            c.execute(
                "UPDATE queue SET inflight=? WHERE capture_id=?",
                (json.dumps(inflight) if inflight is not None else None, capture_id),
            )

    def begin_inflight(self, op_id: str, preimages: dict[str, Any]) -> None:
        with self.tx() as c:
            c.execute("INSERT OR REPLACE INTO inflight VALUES (?, ?)", (op_id, json.dumps(preimages)))

    def inflight_ops(self) -> list[tuple[str, dict[str, Any]]]:
        rows = self.conn.execute("SELECT op_id, preimages FROM inflight ORDER BY op_id").fetchall()
        return [(r[0], json.loads(r[1])) for r in rows]

    def end_inflight(self, op_id: str) -> None:
        with self.tx() as c:
            c.execute("DELETE FROM inflight WHERE op_id=?", (op_id,))

    # --- captures ----------------------------------------------------------------------------------
    def find_capture(self, content_sha: str, layer: str) -> CaptureRow | None:
        return _capture(self.conn.execute(
            "SELECT * FROM captures WHERE content_sha=? AND layer=? ORDER BY capture_id LIMIT 1", (content_sha, layer)
        ).fetchone())

    def find_pending_content(self, content_sha: str, layer: str) -> str | None:
        for p in self.pending():
            env = p.envelope
            if env.get("content_sha") == content_sha and env.get("layer") == layer and not env.get("force"):
                return p.capture_id
        return None

    def capture(self, capture_id: str) -> CaptureRow | None:
        return _capture(self.conn.execute("SELECT * FROM captures WHERE capture_id=?", (capture_id,)).fetchone())

    def captures(self) -> list[CaptureRow]:
        return [c for c in map(_capture, self.conn.execute("SELECT * FROM captures ORDER BY capture_id")) if c]

    def captures_of_content(self, content_sha: str, layer: str) -> list[str]:
        """Capture ids holding these bytes in this layer, oldest first."""
        return [r[0] for r in self.conn.execute(
            "SELECT capture_id FROM captures WHERE content_sha=? AND layer=? ORDER BY capture_id", (content_sha, layer))]

    def forget_capture(self, capture_id: str) -> None:
        """Drop a capture from the catalogue (its source page was deleted): the same bytes may be captured anew."""
        with self.tx() as c:
            c.execute("DELETE FROM captures WHERE capture_id=?", (capture_id,))

    # --- operations --------------------------------------------------------------------------------
    def record_operation(
        self,
        row: OperationRow,
        capture: CaptureRow | None = None,
        done_capture_id: str | None = None,
        durable: bool = True,
    ) -> None:
        with self.tx(durable=durable) as c:
            c.execute(
                "INSERT OR REPLACE INTO operations VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    row.id, row.kind, row.status, row.commit_sha, row.started_at, row.finished_at,
                    row.summary, json.dumps(row.manifest, sort_keys=True, default=str), row.patch_sha,
                ),
            )
            if capture is not None:
                c.execute(
                    "INSERT OR REPLACE INTO captures(capture_id, content_sha, layer, source_path, op_id, captured_at,"
                    " locator, filed, rebuilt) VALUES (:capture_id,:content_sha,:layer,:source_path,"
                    ":op_id,:captured_at,:locator,:filed,:rebuilt)",
                    {**capture.to_dict(), "filed": int(capture.filed), "rebuilt": int(capture.rebuilt)},
                )
            if done_capture_id is not None:
                c.execute("UPDATE queue SET status='done', inflight=NULL WHERE capture_id=?", (done_capture_id,))
            c.execute("DELETE FROM inflight WHERE op_id=?", (row.id,))
            if row.commit_sha:
                c.execute("INSERT OR REPLACE INTO meta VALUES ('last_commit', ?)", (row.commit_sha,))

    def set_meta(self, key: str, value: str) -> None:
        with self.tx() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def has_operation(self, op_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM operations WHERE id=?", (op_id,)).fetchone() is not None

    def operation(self, op_id: str) -> OperationRow | None:
        row = self.conn.execute("SELECT * FROM operations WHERE id=?", (op_id,)).fetchone()
        if row is None:
            row = self.conn.execute(
                "SELECT * FROM operations WHERE id LIKE ? OR commit_sha LIKE ? ORDER BY id LIMIT 2",
                (op_id + "%", op_id + "%"),
            ).fetchone()
        return _op(row) if row else None

    def operations(self, limit: int = 50, kind: str | None = None) -> list[OperationRow]:
        if kind:
            rows = self.conn.execute(
                "SELECT * FROM operations WHERE kind=? ORDER BY id DESC LIMIT ?", (kind, limit)
            ).fetchall()
        else:
            rows = self.conn.execute("SELECT * FROM operations ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_op(r) for r in rows]

    def operation_records(self) -> list[OperationRecord]:
        return [OperationRecord(*r) for r in self.conn.execute(
            "SELECT id, commit_sha, manifest, patch_sha, summary FROM operations").fetchall()]

    def patches(self) -> list[tuple[str, str]]:
        """(operation id, patch object) of every operation that has a patch."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT id, patch_sha FROM operations WHERE patch_sha IS NOT NULL")]

    def rewrite_operation(self, op_id: str, commit_sha: str | None, manifest: dict[str, Any], patch_sha: str | None,
                          summary: str) -> None:
        """Point an operation at its rewritten commit with a redacted record (erase)."""
        with self.tx() as c:
            c.execute(
                "UPDATE operations SET commit_sha=?, manifest=?, patch_sha=?, summary=? WHERE id=?",
                (commit_sha, json.dumps(manifest, sort_keys=True, default=str), patch_sha, summary, op_id),
            )

    def drop_erased(self, capture_ids: tuple[str, ...], op_ids: tuple[str, ...]) -> None:
        """Every row of erased captures and their operations, in one transaction."""
        caps = ",".join("?" * len(capture_ids)) or "NULL"
        ops = ",".join("?" * len(op_ids)) or "NULL"
        with self.tx() as c:
            c.execute(f"DELETE FROM captures WHERE capture_id IN ({caps})", capture_ids)
            c.execute(f"DELETE FROM queue WHERE capture_id IN ({caps})", capture_ids)
            c.execute(f"DELETE FROM operations WHERE id IN ({ops})", op_ids)
            c.execute(f"DELETE FROM inflight WHERE op_id IN ({ops})", op_ids)

    def compact(self) -> None:
        """Rewrite the file: deleted rows stay readable in free pages and the WAL until then (erase)."""
        self.conn.execute("VACUUM")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def counts(self) -> dict[str, int]:
        q = self.conn.execute
        return {
            "operations": q("SELECT count(*) FROM operations").fetchone()[0],
            "refused": q("SELECT count(*) FROM operations WHERE status='refused'").fetchone()[0],
            "captures": q("SELECT count(*) FROM captures").fetchone()[0],
            "pending": q("SELECT count(*) FROM queue WHERE status='pending'").fetchone()[0],
            "unfiled": q("SELECT count(*) FROM captures WHERE filed=0").fetchone()[0],
        }


def _capture(row: sqlite3.Row | None) -> CaptureRow | None:
    if row is None:
        return None
    return CaptureRow(
        capture_id=row["capture_id"], content_sha=row["content_sha"], layer=row["layer"],
        source_path=row["source_path"], op_id=row["op_id"], captured_at=row["captured_at"], locator=row["locator"],
        filed=bool(row["filed"]), rebuilt=bool(row["rebuilt"]),
    )


def _conforms(store: StateDB) -> None:
    """The type checker proves here that this backend is a `StateStore` (nothing calls it)."""
    from stigmergy.repo.state.protocol import StateStore

    _: StateStore = store


def _op(row: sqlite3.Row) -> OperationRow:
    return OperationRow(
        id=row["id"],
        kind=row["kind"],
        status=row["status"],
        commit_sha=row["commit_sha"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        summary=row["summary"],
        manifest=json.loads(row["manifest"]),
        patch_sha=row["patch_sha"],
    )
