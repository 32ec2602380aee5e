"""The statements of the row memo (`repo/page_memo.RowMemo`, `.stigmergy/memo/<name>.sqlite`): one row per page,
its stamp and its value. A cache: every error reads as a miss or a skipped write, never raised. SQL lives in store
modules only (tests/test_architecture.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class MemoRows:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    @classmethod
    def open(cls, file: Path) -> MemoRows | None:
        try:
            # A short busy timeout: another process writing means this one skips its write, never waits.
            db = sqlite3.connect(file, timeout=0.05, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA synchronous=OFF")  # a cache: a row lost to a crash is read again
            db.execute("CREATE TABLE IF NOT EXISTS rows (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, "
                       "value BLOB) WITHOUT ROWID")
        except sqlite3.Error:
            return None
        return cls(db)

    def get(self, path: str) -> tuple[int, int, bytes] | None:
        try:
            row = self.db.execute("SELECT mtime_ns, size, value FROM rows WHERE path = ?", (path,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else (row[0], row[1], row[2])

    def put_many(self, rows: list[tuple[str, int, int, bytes]]) -> None:
        try:
            with self.db:
                self.db.execute("BEGIN")
                self.db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error:
            pass

    def close(self) -> None:
        self.db.close()
