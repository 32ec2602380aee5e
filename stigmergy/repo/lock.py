"""One writer per repository: an flock'ed lock file that records its owner's pid. The kernel drops the
lock when the owner dies, so a crashed writer never wedges the repository."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from stigmergy.errors import LockTimeoutError


class WriterLock:
    def __init__(
        self,
        path: Path,
        timeout: float,
        on_wait: Callable[[str], None] | None = None,
        after_acquire: Callable[[], object] | None = None,
    ) -> None:
        self.path = path
        self.timeout = timeout
        self.on_wait = on_wait
        self.after_acquire = after_acquire  # work that is only safe once we hold the lock (stale git locks)
        self._fd: int | None = None

    def owner(self) -> str:
        try:
            return self.path.read_text().strip() or "unknown"
        except OSError:
            return "unknown"

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        announced = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not announced and self.on_wait is not None:
                    self.on_wait(f"waiting for another writer (pid {self.owner()}) to finish…")
                    announced = True
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeoutError(
                        f"another stigmergy writer (pid {self.owner()}) holds the repository lock",
                        hint=f"wait for it to finish, or raise [lock] timeout_seconds (now {self.timeout:g} s)",
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        if self.after_acquire is not None:
            try:
                self.after_acquire()
            except BaseException:
                self.release()
                raise

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
