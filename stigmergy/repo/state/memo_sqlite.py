"""The statements of the row memo (`repo/page_memo.RowMemo`, `.stigmergy/memo/<name>.sqlite`): one row per page,
its stamp and its value, a cache that any error leaves empty. SQL lives in store modules only (tests/test_architecture.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class MemoRows:
    def __init__(self, file: Path) -> None:
        # A short busy timeout: another process writing means this one skips its write, never waits.
        self.db = sqlite3.connect(file, timeout=0.05, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA synchronous=OFF")  # a cache: a row lost to a crash is read again
        self.db.execute("CREATE TABLE IF NOT EXISTS rows (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, "
                        "value BLOB) WITHOUT ROWID")

    def get(self, path: str) -> tuple[int, int, bytes] | None:
        row = self.db.execute("SELECT mtime_ns, size, value FROM rows WHERE path = ?", (path,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def put_many(self, rows: list[tuple[str, int, int, bytes]]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?)", rows)

    def close(self) -> None:
        self.db.close()


Error = sqlite3.Error
