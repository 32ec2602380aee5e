"""What a process derived from each page, kept on disk for the next process (#27: "the caches survive across
captures in one process and are rebuilt cheaply in a new one").

Within a process the planner's per-page knowledge (the claims in each page's contradiction blocks, each entity
page's title, type and aliases) is kept and re-read only for the pages the kernel names (repo/watch.py). A new
process had to read every page once: after 2,000 documents, 2,219 pages and 201 entity heads, ~0.2 CPU-s
before its first plan, a fifth of a one-document `capture` from a hook or cron. With this file it stats each
page and reads only those that changed since a process last saw them.

**When an entry holds.** An entry is the value derived from the page's bytes under the page's stamp
(mtime in nanoseconds, size), the stamp the in-process caches use. A rewrite of the same size within one tick
of the file system's clock would keep that stamp, so an entry is written to disk only when the page's mtime
is at least `RACY_NS` older than the moment its stamp was read (git's racy-clean rule): any later write then
carries a later mtime. A copy that keeps times (`cp -a`, a backup restored) keeps the entries valid, as it
keeps the bytes. Not seen, as with git's `core.checkStat=minimal`: different bytes of the same size given the
old page's exact mtime afterwards (`touch -d` after an edit). What reads these values is the planner (what
to propose); the gates read the pages themselves.

**The file** is local state, `.stigmergy/memo/pages-<name>.json` (`.stigmergy/` is never tracked: lint
refuses a tracked path there). It holds page paths, capture ids and entity names, so `erase` removes it
(`drop`) and the residue audit searches it, unlike the model files of `.stigmergy/cache/`. JSON, never code;
a file that is too large, malformed or of another format version is ignored whole and written again.
Writes go to a temporary file renamed over the old one, so a reader sees one whole version; two processes
writing race only to which whole version stays, and every entry of either is checked against the page
before use.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.repo.files import write_atomic
from stigmergy.repo.layout import Layout
from stigmergy.settings import CONFIG_FILE

if TYPE_CHECKING:
    from stigmergy.repo.state.memo_sqlite import MemoRows

FORMAT = 1
RACY_NS = 2_000_000_000  # coarser than any local file system's timestamp tick (FAT's is 2 s)
MAX_BYTES = 64 << 20  # a cache file larger than this is not read (about 500,000 pages' entries)
SAVE_AFTER = 32  # at least this many entries changed since the last write make a process write before it exits

PageStamp = tuple[int, int]  # (mtime_ns, size)
# The stamp of a value derived from the page's path alone (its title's terms): it holds whatever the bytes.
NAME_ONLY: PageStamp = (-1, -1)
_MISS = object()


def stamp_of(st: os.stat_result) -> PageStamp:
    return (st.st_mtime_ns, st.st_size)


def now_ns() -> int:
    """Take it before the stats whose entries may be kept (see `PageMemo.keep`)."""
    return time.time_ns()


class PageMemo:
    """One derivation's entries {relpath: (stamp, value)} for one repository; `take` answers a kept value
    only for the stamp it was derived under."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = Path(root)
        self.file = Layout(self.root).memo_dir / f"pages-{_safe(name)}.json"
        self.name = name
        self._entries: dict[str, tuple[PageStamp, Any]] | None = None
        self._changed = 0  # entries kept or dropped since the file was read or written

    def _load(self) -> dict[str, tuple[PageStamp, Any]]:
        if self._entries is not None:
            return self._entries
        self._entries = {}
        data = _read(self.file, self.name)
        if data is None:
            return self._entries
        pages = data.get("pages")
        if not isinstance(pages, dict):
            return self._entries
        for rel, row in pages.items():
            if (isinstance(rel, str) and isinstance(row, list) and len(row) == 3
                    and type(row[0]) is int and type(row[1]) is int):
                self._entries[rel] = ((row[0], row[1]), row[2])
        return self._entries

    def take(self, rel: str, stamp: PageStamp) -> Any:
        """The value kept for `rel` under exactly `stamp`, else `MISS`."""
        got = self._load().get(rel)
        return got[1] if got is not None and got[0] == stamp else _MISS

    def keep(self, rel: str, stamp: PageStamp, value: Any, since_ns: int) -> None:
        """Remember `value` (JSON: lists, strings, numbers) for `rel` under `stamp`, where the stat that gave
        `stamp` came after `since_ns`. A page changed within `RACY_NS` of that moment is not kept (its next
        write could carry the same stamp); its old entry goes."""
        entries = self._load()
        if stamp != NAME_ONLY and stamp[0] >= since_ns - RACY_NS:
            self.forget(rel)
            return
        old = entries.get(rel)
        if old is None or old[0] != stamp or old[1] != value:
            entries[rel] = (stamp, value)
            self._changed += 1
            _DIRTY[str(self.file)] = self

    def forget(self, rel: str) -> None:
        if self._load().pop(rel, None) is not None:
            self._changed += 1
            _DIRTY[str(self.file)] = self

    def retain(self, live: Collection[str]) -> None:
        """Forget the entries of pages not in `live` (every page there is, after a full pass)."""
        entries = self._load()
        for rel in [r for r in entries if r not in live]:
            self.forget(rel)

    def save_if_many(self) -> None:
        """Write now when many entries changed (a quarter of them: the first read of a wiki in a process, or
        a recompile); fewer wait for the process's exit, so a capture does not rewrite the file each time."""
        if self._changed >= max(SAVE_AFTER, len(self._entries or ()) // 4):
            self.save()

    def save(self) -> None:
        """Best effort: a cache that cannot be written (a read-only checkout, a full disk) only costs the
        next process its reads. Only in a repository (its `stigmergy.toml`), whose `.gitignore` names `.stigmergy/`."""
        _DIRTY.pop(str(self.file), None)
        if self._entries is None or self._changed == 0:
            return
        if not _in_repository(self.root):
            return
        body = {"format": FORMAT, "name": self.name,
                "pages": {rel: [s[0], s[1], v] for rel, (s, v) in self._entries.items()}}
        if _write(self.file, body):
            self._changed = 0


def _safe(name: str) -> str:
    """A layer's name is the user's: a name that is not plainly a file name is hashed into one."""
    if re.fullmatch(r"[A-Za-z0-9_.-]{1,80}", name) and not name.startswith("."):
        return name
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _write(file: Path, body: dict[str, Any]) -> bool:
    """`body` as the whole new content of `file`; False if it could not be written."""
    try:
        write_atomic(file, json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode(), prefix=".memo-")
        return True
    except (OSError, TypeError, ValueError):
        return False


def _in_repository(root: Path) -> bool:
    """Only a repository (its `stigmergy.toml`, whose `.gitignore` names `.stigmergy/`) gets a memo folder."""
    return (root / CONFIG_FILE).is_file()


def _read(file: Path, name: str) -> dict[str, Any] | None:
    try:
        if file.stat().st_size > MAX_BYTES:
            return None
        data = json.loads(file.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("name") != name:
        return None
    return data


def read_value(root: Path, name: str) -> Any:
    """The value an earlier process kept under `name` (`keep_at_exit`), None when there is none. The caller
    checks its shape and whether it still holds: this is a cache, never a record."""
    data = _read(Layout(Path(root)).memo_dir / f"value-{_safe(name)}.json", name)
    return None if data is None else data.get("value")


def keep_at_exit(root: Path, name: str, produce: Callable[[], Any]) -> None:
    """At this process's exit, keep what `produce()` then answers (JSON; None keeps nothing) under `name`."""
    _AT_EXIT[(str(root), name)] = produce


class RowMemo:
    """Per-page values too large to read whole in every process (a source's statements): one row each in
    `.stigmergy/memo/<name>.sqlite`, the value as JSON text (not deflated: the residue audit reads it), under
    the same stamp and racy rule as
    `PageMemo`. Rows are written in batches (a transaction per `BATCH` rows, the rest at exit); a busy
    database (another process writing) skips the write. Never raises: a cache that cannot be read is empty."""

    BATCH = 64

    def __init__(self, root: Path, name: str) -> None:
        self.root = Path(root)
        self.file = Layout(self.root).memo_dir / f"{_safe(name)}.sqlite"
        self._db: MemoRows | None = None
        self._opened = False
        self._pending: dict[str, tuple[PageStamp, bytes]] = {}

    def _conn(self, create: bool) -> MemoRows | None:
        if self._db is not None or (self._opened and not create):
            return self._db
        if not create and not self.file.is_file():
            return None
        self._opened = True
        try:
            if create:
                if not _in_repository(self.root):
                    return None
                self.file.parent.mkdir(parents=True, exist_ok=True)
            # Imported here: a process that never opens a row memo does not load SQLite for it.
            from stigmergy.repo.state.memo_sqlite import MemoRows

            self._db = MemoRows.open(self.file)
        except OSError:
            return None
        return self._db

    def take(self, rel: str, stamp: PageStamp) -> Any:
        pending = self._pending.get(rel)
        if pending is not None:
            return json.loads(pending[1]) if pending[0] == stamp else _MISS
        db = self._conn(create=False)
        if db is None:
            return _MISS
        try:
            row = db.get(rel)
            if row is None or (row[0], row[1]) != stamp or len(row[2]) > MAX_BYTES:
                return _MISS
            return json.loads(row[2])
        except (ValueError, TypeError):
            return _MISS

    def keep(self, rel: str, stamp: PageStamp, value: Any, since_ns: int) -> None:
        if stamp[0] >= since_ns - RACY_NS:
            return  # written within the racy window: the next process reads the page (an old row misses its stamp)
        try:
            self._pending[rel] = (stamp, json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
        except (TypeError, ValueError):
            return
        _ROWS_DIRTY[str(self.file)] = self
        if len(self._pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        _ROWS_DIRTY.pop(str(self.file), None)
        db = self._conn(create=True) if pending else None
        if db is None:
            return
        db.put_many([(rel, s[0], s[1], v) for rel, (s, v) in pending.items()])

    def close(self) -> None:
        self._pending.clear()
        _ROWS_DIRTY.pop(str(self.file), None)
        if self._db is not None:
            self._db.close()
        self._db, self._opened = None, False


MISS = _MISS
_MEMOS: dict[tuple[str, str], PageMemo] = {}
_DIRTY: dict[str, PageMemo] = {}
_AT_EXIT: dict[tuple[str, str], Callable[[], Any]] = {}
_ROWS: dict[tuple[str, str], RowMemo] = {}
_ROWS_DIRTY: dict[str, RowMemo] = {}


def memo(root: Path, name: str) -> PageMemo:
    """The process's one memo of `name` for the repository at `root`."""
    return _MEMOS.get((str(root), name)) or _MEMOS.setdefault((str(root), name), PageMemo(root, name))


def rows(root: Path, name: str) -> RowMemo:
    """The process's one row memo of `name` for the repository at `root`."""
    return _ROWS.get((str(root), name)) or _ROWS.setdefault((str(root), name), RowMemo(root, name))


def drop(root: Path) -> None:
    """Forget every kept entry of the repository at `root`, on disk and in this process (`erase`: the next
    process reads the pages again)."""
    for (where, _name), m in list(_MEMOS.items()):
        if where == str(root):
            m._entries, m._changed = {}, 0
            _DIRTY.pop(str(m.file), None)
    for key in [k for k in _AT_EXIT if k[0] == str(root)]:
        _AT_EXIT.pop(key, None)
    for (where, _name), r in list(_ROWS.items()):
        if where == str(root):
            r.close()
    folder = Layout(Path(root)).memo_dir
    if folder.is_dir():
        for f in folder.iterdir():
            if f.is_file() and not f.is_symlink():
                f.unlink(missing_ok=True)


@atexit.register
def _save_all() -> None:
    for m in list(_DIRTY.values()):
        m.save()
    for r in list(_ROWS_DIRTY.values()):
        r.flush()
    for (root, name), produce in list(_AT_EXIT.items()):
        _AT_EXIT.pop((root, name), None)
        try:
            value = produce()
        except Exception:  # noqa: BLE001 - a cache at exit never fails the process
            continue
        if value is not None and _in_repository(Path(root)):
            _write(Layout(Path(root)).memo_dir / f"value-{_safe(name)}.json",
                   {"format": FORMAT, "name": name, "value": value})
