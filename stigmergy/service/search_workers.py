"""A long-lived service's searches in worker processes of their own (`[search] processes`, `stigmergy serve
--search-processes`), so that a server uses more than one core.

Why processes: a search is mostly Python and numpy between SQLite calls, and one process runs Python on one
core at a time (the GIL). Measured at 247,762 fragments on two cores with eight readers at once, a server's
threads completed ~30 searches a second with 1.4-1.6 cores busy; two processes answering the same readers
completed ~39 with both busy (docs/team.md). Each worker holds what a warm session holds (the connection,
the model, the lexical arm's posting lists), so memory grows with the workers; the default is one, the
server's own threads, as before.

What a worker is given: the repository's root, the settings and the environment when it starts; with each
search the settings the server holds now (a reader removed from a layer in stigmergy.toml loses it in the
workers at the next search, as in the server), the query, the reader's name, k and the filters. It answers
the `SearchResult`. It never sees a token or a request: who the reader is was settled by the server. The
workers are started with `spawn` (the server has threads; a forked copy of a lock held by one of them would
never be released) and stopped with the server.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.errors import StigmergyError

if TYPE_CHECKING:
    from stigmergy.index.search import SearchResult
    from stigmergy.index.store.protocol import Filters
    from stigmergy.settings import Settings

_SERVICE: Any = None  # the worker's own long-lived service (one per worker process)


def _start(root: str, settings: Settings, env: dict[str, str], embedder: Any) -> None:
    """A worker's start: its own service, long-lived as the server's is (warm sessions, held lists)."""
    global _SERVICE
    from stigmergy.service.core import ServiceCore
    from stigmergy.service.identity import Identity

    # Ctrl-C reaches the whole process group: the server stops its workers itself, without a traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True).start()
    # Searching is all it does: the core of a service (service/core.py) has the warm sessions and the settings.
    _SERVICE = ServiceCore(Path(root), settings, Identity(""), env, embedder=embedder, long_lived=True)


def _exit_with(server: int) -> None:
    """A server killed outright (SIGKILL, out of memory) cannot stop its workers; each leaves when it sees
    its parent gone, rather than wait on the server's queue forever holding its memory."""
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


def _search(settings: Settings, query: str, reader: str, k: int | None, filters: Filters | None) -> SearchResult:
    service = _SERVICE
    if settings != service.settings:
        service.adopt_settings(settings)
    with service.searching() as searcher:
        return searcher.search(query, reader, k=k, filters=filters)


def _warm() -> int:
    """Open a session (the connection, the model) before the first reader waits for it."""
    with _SERVICE.searching():
        return os.getpid()


class SearchWorkers:
    """`processes` workers answering searches; `search` blocks its caller (a server thread) until one has."""

    def __init__(self, root: Path, settings: Settings, env: dict[str, str], processes: int,
                 embedder: Any = None) -> None:
        import multiprocessing

        self.processes = processes
        self._args = (str(root), settings, dict(env), embedder)
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise StigmergyError("the server is stopping: its search workers are closed")
            if self._executor is None:
                self._executor = ProcessPoolExecutor(self.processes, mp_context=self._ctx, initializer=_start,
                                                     initargs=self._args)
            return self._executor

    def warm(self) -> list[Future[int]]:
        """Start every worker and open its session now (the workers start on demand otherwise)."""
        pool = self._pool()
        return [pool.submit(_warm) for _ in range(self.processes)]

    def search(self, settings: Settings, query: str, reader: str, k: int | None,
               filters: Filters | None) -> SearchResult:
        """The search in a worker. A worker that died (killed, out of memory) breaks the executor: a new
        one is started and the search asked once more; a second failure is the caller's error, said plainly
        (a worker that cannot even start, say)."""
        for attempt in (1, 2):
            executor = self._pool()
            try:
                return executor.submit(_search, settings, query, reader, k, filters).result()
            except BrokenProcessPool as exc:
                with self._lock:
                    if self._executor is executor:
                        self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
                if attempt == 2:
                    raise StigmergyError(f"a search worker stopped: {exc}",
                                         hint="see the server's log; `--search-processes 1` searches in the server") from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
