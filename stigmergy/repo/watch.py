"""Which names in a working tree's folder changed since a caller last looked, from the kernel (inotify).

A capture process files a hundred documents one after another, and three of its kept answers are checked
against the disk before each use: the notes listing (a folder that gains a page per capture is listed
again whole), the entity heads (a `stat` of every entity page) and the claims on record (a `stat` of every
page of the layer: 2,300 of them, ~9 ms, after 2,000 documents). Each of those costs what the wiki holds,
so every capture cost more than the last. The kernel already knows which names changed: an inotify watch
on each folder hands them over, and a capture looks again at those names only.

Used only where it is exact; elsewhere the answer is None and the caller looks at the disk as before:
- Linux with the `inotify_simple` binding, not switched off (`STIGMERGY_WATCH=0`);
- a local file system (a network file system tells no machine of another machine's writes);
- the process that made the watch (a forked child starts its own; it never reads its parent's queue);
- a folder that is still the directory that was watched: each ask compares its device and inode, since
  a parent folder renamed and replaced moves no event for the folders below it;
- no overflow of the kernel's queue and no more than `MAX_FOLDERS` folders watched.

What inotify does not report, and so neither does this: a write through a shared memory mapping (no
editor or git writes a page so), and a write through a hard link made in a folder outside the watched
ones (the event goes to the folder of the name written through). Pages are not hard-linked by stigmergy
or git.

A caller takes a mark (`mark`) before it reads the folder from the disk, and later asks `changes(folder,
mark)` for the names touched since, with a new mark; a name touched between the new mark and the caller's
look at the disk is reported again next time (looked at twice, never missed).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

MAX_FOLDERS = 256  # watches one process keeps (a test run opens hundreds of repositories)
MAX_PENDING = 8192  # names kept per folder between two asks; past it the folder is read again whole
# File systems whose changes are all made through this kernel, so its inotify sees every one of them.
LOCAL_FS = frozenset({
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "overlay", "zfs", "f2fs", "bcachefs", "jfs",
    "reiserfs", "nilfs2", "hfsplus", "apfs",
})


# One sequence for every watcher this process (and, copied at a fork, its children) makes: a mark kept
# from an earlier watcher (the parent's, before a fork) never names a folder of a later one.
_EPOCHS = itertools.count(1)


class Mark(NamedTuple):
    epoch: int
    pos: int


@dataclass
class _Watched:
    wd: int
    ident: tuple[int, int]  # (st_dev, st_ino) of the folder when the watch was made
    epoch: int
    keys: set[str] = field(default_factory=set)  # the paths it was asked by (one directory, two spellings)
    base: int = 0  # position of log[0] since the watch began
    log: list[str] = field(default_factory=list)


class _Watcher:
    def __init__(self, inotify: Any, flags: Any) -> None:
        self.inotify = inotify
        self.flags = flags
        self.lock = threading.Lock()
        self.folders: dict[str, _Watched] = {}
        self.by_wd: dict[int, _Watched] = {}
        f = flags
        self.mask = (f.CREATE | f.DELETE | f.MODIFY | f.CLOSE_WRITE | f.MOVED_FROM | f.MOVED_TO | f.ATTRIB
                     | f.DELETE_SELF | f.MOVE_SELF | f.ONLYDIR | f.DONT_FOLLOW)
        self.gone = f.IGNORED | f.DELETE_SELF | f.MOVE_SELF | f.UNMOUNT

    def _epoch(self) -> int:
        return next(_EPOCHS)

    def _drop(self, w: _Watched) -> None:
        """Stop watching: every mark of it is unknown from now on, under every path it was asked by."""
        for key in w.keys:
            self.folders.pop(key, None)
        if self.by_wd.pop(w.wd, None) is not None:
            try:
                self.inotify.rm_watch(w.wd)
            except OSError:
                pass  # the kernel dropped it already (folder deleted)

    def poll(self) -> None:
        try:
            events = self.inotify.read(timeout=0)
        except OSError:
            events = []
            self._overflow()
        for ev in events:
            if ev.mask & self.flags.Q_OVERFLOW:
                self._overflow()
                continue
            w = self.by_wd.get(ev.wd)
            if w is None:
                continue
            if ev.mask & self.gone:
                self._drop(w)
                continue
            if ev.name:
                w.log.append(ev.name)
                if len(w.log) > MAX_PENDING:
                    w.epoch = self._epoch()  # every mark of it is now unknown: read again whole
                    w.base += len(w.log)
                    w.log.clear()

    def _overflow(self) -> None:
        for w in self.by_wd.values():
            w.epoch = self._epoch()
            w.base += len(w.log)
            w.log.clear()

    def _current(self, key: str) -> _Watched | None:
        """The watch of `key`, dropped when the path no longer names the watched directory."""
        w = self.folders.get(key)
        if w is None:
            return None
        try:
            st = os.stat(key, follow_symlinks=False)
            same = (st.st_dev, st.st_ino) == w.ident
        except OSError:
            same = False
        if not same:
            self._drop(w)
            return None
        return w

    def mark(self, key: str) -> Mark | None:
        self.poll()
        w = self._current(key)
        if w is None:
            if len(self.by_wd) >= MAX_FOLDERS or not _local(key):
                return None
            try:
                before = os.stat(key, follow_symlinks=False)
                wd = self.inotify.add_watch(key, self.mask)
                after = os.stat(key, follow_symlinks=False)
            except OSError:
                return None  # not a directory, a symlink (ONLYDIR | DONT_FOLLOW), or the kernel's limit
            ident = (after.st_dev, after.st_ino)
            w = self.by_wd.get(wd)
            if (before.st_dev, before.st_ino) != ident or (w is not None and w.ident != ident):
                # Replaced while the watch was made: the events of whichever directory it now watches
                # cannot be told apart from the other's.
                if w is not None:
                    self._drop(w)
                else:
                    try:
                        self.inotify.rm_watch(wd)
                    except OSError:
                        pass
                return None
            if w is None:  # else the same directory, asked by another path: one watch, one log
                w = self.by_wd[wd] = _Watched(wd, ident, self._epoch())
            w.keys.add(key)
            self.folders[key] = w
        return Mark(w.epoch, w.base + len(w.log))

    def changes(self, key: str, mark: Mark) -> tuple[set[str] | None, Mark | None]:
        self.poll()
        w = self._current(key)
        if w is None or w.epoch != mark.epoch or mark.pos < w.base:
            return None, self.mark(key)
        # The log is kept until MAX_PENDING names (then a mark older than that reads the folder whole):
        # callers ask once per use, so it stays short.
        return set(w.log[mark.pos - w.base :]), Mark(w.epoch, w.base + len(w.log))


_WATCHER: _Watcher | None = None
_MADE_IN: int | None = None  # the pid that tried to make _WATCHER (None: not tried)
_MOUNTS: list[tuple[str, str]] | None = None
_GUARD = threading.Lock()


def _watcher() -> _Watcher | None:
    global _WATCHER, _MADE_IN
    pid = os.getpid()
    if _MADE_IN == pid:
        return _WATCHER
    with _GUARD:
        if _MADE_IN != pid:
            # A forked child never reads the queue it inherited: its parent's events are the parent's.
            _WATCHER, _MADE_IN = _make(), pid
    return _WATCHER


def _make() -> _Watcher | None:
    if not sys.platform.startswith("linux") or os.environ.get("STIGMERGY_WATCH", "1").strip() in ("0", "false", "no"):
        return None
    try:
        from inotify_simple import INotify, flags
    except ImportError:
        return None
    try:
        return _Watcher(INotify(nonblocking=True), flags)
    except OSError:
        return None  # the user's limit of inotify instances: look at the disk instead


def _local(path: str) -> bool:
    """Whether the file system holding `path` is one whose every change this kernel makes."""
    global _MOUNTS
    if _MOUNTS is None:
        mounts = []
        try:
            for line in Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace").splitlines():
                left, _, right = line.partition(" - ")
                parts, rparts = left.split(), right.split()
                if len(parts) >= 5 and rparts:
                    point = parts[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
                    mounts.append((point, rparts[0]))
        except OSError:
            pass
        _MOUNTS = mounts
    real = os.path.realpath(path)
    best, fstype = -1, ""
    for point, kind in _MOUNTS:
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) > best:  # the last of equal mount points is the one on top
            best, fstype = len(point), kind
        elif inside and len(point) == best:
            fstype = kind
    return fstype in LOCAL_FS


def folder_of(path: str) -> str:
    """The folder of a repository path ("" at the root): the unit the kernel watches."""
    return path.rpartition("/")[0]


def mark(folder: Path | str) -> Mark | None:
    """Watch `folder` (kept) and return a mark of now; None when its changes cannot be known this way.
    Take it before reading the folder from the disk."""
    w = _watcher()
    if w is None:
        return None
    with w.lock:
        return w.mark(str(folder))


def changes(folder: Path | str, since: Mark | None) -> tuple[set[str] | None, Mark | None]:
    """(names in `folder` created, written, removed, renamed or re-permissioned since the mark, or None
    when that cannot be known: read the folder whole; a new mark, or None when it cannot be watched)."""
    w = _watcher()
    if w is None:
        return None, None
    with w.lock:
        if since is None:
            return None, w.mark(str(folder))
        return w.changes(str(folder), since)
