"""What every operation of `WikiService` stands on (service/wiki.py): the caller and its layers, the
repository and the planner (made on first use and kept), the writer lock with each operation's recovery
policy (`policy.WRITE_POLICIES`), the reads of the state database brought up to date from Git, and what a
long-lived service keeps warm: its search sessions (the connection and the embedding model stay loaded),
the folded feedback records and the access counts not yet appended.

Apart from the operations because every one of them uses it and none of it is an operation: what a front
end calls here (`require_root`, `reader`, `refresh_settings`, `close`) is about the service itself. The
trust judgements (service/judgements.py) and the other operations (service/wiki.py) are subclasses of
`ServiceCore`. Nothing here imports a heavy library at module level (tests/test_cli_structure.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.errors import NotARepositoryError, StigmergyError
from stigmergy.service.identity import Identity
from stigmergy.service.policy import BOOKKEEPING_READS, WRITE_POLICIES, Recovery
from stigmergy.settings import Settings

if TYPE_CHECKING:
    from stigmergy.index.embedder import Embedder
    from stigmergy.index.search import Searcher
    from stigmergy.plan.planner import Planner
    from stigmergy.repo.git import Git
    from stigmergy.repo.operations import Repository
    from stigmergy.write.capture import CaptureOutcome

# Warm search sessions a long-lived service keeps (a command keeps one). One session at a time made a
# server answer one search at a time: at 50 searches a second the database's part of one search (its own
# process) could not overlap the Python part of the next, nor the query embedding (onnxruntime releases
# the GIL). Each holds a connection; all share the model. More than a few gain nothing under one GIL.
SEARCH_SESSIONS = 4


class _Warm:
    """The warm search sessions and their lock; services for several callers of one server share them (a
    searcher takes the reader per call, so the model is loaded once). A session is lent to one caller at a
    time; `generation` moves when the sessions are dropped (settings changed, service closed), so a session
    lent out before is closed when it comes back instead of returning to the pool."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.returned = threading.Condition(self.lock)
        self.idle: list[Searcher] = []
        self.lent = 0
        self.generation = 0
        self.embedder: Any = None  # the model the first session loaded, shared by the next ones
        self.fresh: Any = None  # the sessions' one freshness cache (index/session.FreshnessCache)
        self.model_lock = threading.Lock()
        self.trust: Any = None  # the folded feedback records (trust/book.py), kept while no batch changes
        self.access: Any = None  # access counts not yet appended (trust/access.py)
        self.workers: Any = None  # the searches' worker processes ([search] processes > 1: service/search_workers.py)


class ServiceCore:
    """A service's state and the machinery its operations share; `WikiService` is the class to build."""

    def __init__(
        self,
        root: Path | None,
        settings: Settings,
        identity: Identity,
        env: Mapping[str, str] | None = None,
        *,
        embedder: Embedder | None = None,
        on_wait: Callable[[str], None] | None = None,
        long_lived: bool = False,
    ) -> None:
        """`embedder`: the model a warm search uses (default: the one settings name, loaded on first use);
        `on_wait`: told while the writer lock is held by someone else (default: stderr); `long_lived`: a
        server's service, whose Git reads go through GitPython's persistent reader (repo/gitpython.py)."""
        self.root = root
        self.settings = settings
        self.identity = identity
        self.env: Mapping[str, str] = dict(env or {})
        self._embedder = embedder
        self._on_wait = on_wait
        self.long_lived = long_lived
        self._repo: Repository | None = None
        self._planner: Planner | None = None
        self._warm_state = _Warm()
        self._declared = self._read_declarations()

    def _read_declarations(self) -> bytes | None:
        from stigmergy.settings import CONFIG_FILE

        try:
            return (self.root / CONFIG_FILE).read_bytes() if self.root is not None else None
        except OSError:
            return None

    def refresh_settings(self) -> None:
        """For a service that lives across calls (the MCP server): when stigmergy.toml changed, read its
        layers, readers, maintainers and channels again, so a reader removed from a layer loses it at the
        next call. A file that no longer parses refuses every call (ConfigError) rather than keep serving
        by the old readers."""
        from stigmergy.settings import refresh_declarations

        now = self._read_declarations()
        if now == self._declared:
            return
        settings = refresh_declarations(self.settings, now)
        self.adopt_settings(settings)
        self._declared = now

    def adopt_settings(self, settings: Settings) -> None:
        """Search and write by `settings` from now on (the sessions opened under the old ones are closed);
        a search worker is handed the server's settings this way at each search."""
        with self._warm_state.lock:
            self._close_searchers()  # they hold the old settings
            self.settings = settings
            self._repo = None  # rebuilt on next use from the new settings

    @property
    def reader(self) -> str:
        return self.identity.reader

    def readable(self) -> tuple[str, ...]:
        from stigmergy.layers import readable_layers

        return readable_layers(self.settings, self.reader)

    def require_root(self) -> Path:
        if self.root is None:
            raise NotARepositoryError(
                "not inside a stigmergy repository", hint="run `stigmergy init` first, or pass --repo PATH"
            )
        return self.root

    @property
    def pause_points(self) -> frozenset[str]:
        """Crash-test stops named by STIGMERGY_PAUSE_AT (see `Repository.pause`)."""
        raw = self.env.get("STIGMERGY_PAUSE_AT", "")
        return frozenset(p.strip() for p in raw.split(",") if p.strip())

    def repository(self) -> Repository:
        if self._repo is None:
            from stigmergy.repo.operations import Repository

            self._repo = Repository(self.require_root(), self.settings, pause_at=self.pause_points,
                                    long_lived=self.long_lived)
        return self._repo

    def planner(self) -> Planner:
        """The configured planner, made once (a missing API key fails here, when a filing needs it)."""
        if self._planner is None:
            from stigmergy.write.filing import make_planner

            self._planner = make_planner(self.settings, self.env)
        return self._planner

    def close(self) -> None:
        with self._warm_state.lock:
            self._close_searchers()
            pool, self._warm_state.workers = self._warm_state.workers, None
        if pool is not None:
            pool.close()
        if self._warm_state.access is not None:
            self._warm_state.access.flush()
        if self._repo is not None and self.long_lived:
            from stigmergy.repo.gitpython import close_walker

            close_walker(self._repo.git)

    # ------------------------------------------------------------ the lock and the recovery policies

    @contextmanager
    def _writing(self, operation: str) -> Iterator[tuple[Repository, list[CaptureOutcome]]]:
        """Hold the writer lock as `operation`'s policy says, after its recovery; yields what `resume`
        finished (captures a crash had interrupted)."""
        policy = WRITE_POLICIES[operation]
        repo = self.repository()
        with repo.lock(on_wait=self._on_wait, timeout=None if policy.wait else 0.0):
            yield repo, self._recover(repo, policy.recovery)

    def _recover(self, repo: Repository, recovery: Recovery) -> list[CaptureOutcome]:
        from stigmergy.write.capture import resume
        from stigmergy.write.recovery import refuse_while_pending

        if recovery is Recovery.RESUME or (recovery is Recovery.RESUME_IF_IDLE and not repo.state.pending()):
            return resume(repo, self.planner)
        if recovery is Recovery.REFUSE_PENDING:
            refuse_while_pending(repo)
        return []

    def _reading_state(self, operation: str) -> Repository:
        """The repository for a read of the state database, brought up to date from Git first."""
        from stigmergy.repo.operations import Repository
        from stigmergy.write.recovery import ensure_bookkeeping

        assert operation in BOOKKEEPING_READS
        # A clone or a lost `.stigmergy/` gets its bookkeeping back here; never waits for a writer.
        repo = Repository(self.require_root(), self.settings)
        ensure_bookkeeping(repo)
        return repo

    # ------------------------------------------------------------ the warm search sessions

    def _git(self) -> Git | None:
        """The Git the reads share: the repository's GitPython reader in a long-lived service, else None
        (each read opens the binary's wrapper, as a command always did). It serialises its own pipe."""
        return self.repository().git if self.long_lived else None

    def _close_searchers(self) -> None:
        """Close the idle sessions and retire the lent ones (closed when they come back); under the lock."""
        warm = self._warm_state
        warm.generation += 1
        for searcher in warm.idle:
            searcher.close()
        warm.idle.clear()

    def _borrow(self) -> tuple[Searcher, int]:
        """An idle session, or a new one while fewer than the pool's size are lent, else wait for one."""
        warm = self._warm_state
        limit = SEARCH_SESSIONS if self.long_lived else 1
        with warm.lock:
            while not warm.idle and warm.lent >= limit:
                warm.returned.wait()
            warm.lent += 1
            generation = warm.generation
            if warm.idle:
                return warm.idle.pop(), generation
            git = self._git()
        try:
            from stigmergy.index.search import Searcher

            # Opened outside the lock (a connection, the schema check: others' searches go on meanwhile).
            searcher = Searcher(self.require_root(), self.settings, self._embedder, git=git)
            if self.long_lived:
                searcher.scope.store.keep_warm()
            with warm.model_lock:  # one working-tree scan per freshness_ttl for the pool, not one a session
                if warm.fresh is None:
                    warm.fresh = searcher.scope.memo.fresh
                    # A server re-scans an expired answer in the background (index/session.FreshnessCache).
                    warm.fresh.background = self.long_lived
                searcher.scope.memo.fresh = warm.fresh
            if self.long_lived and self._embedder is None:
                # One model for every session of the pool: the first loads it, the next ones take it.
                with warm.model_lock:
                    if warm.embedder is None:
                        warm.embedder = searcher.embedder
                    searcher.scope.memo.embedder = warm.embedder
        except BaseException:
            with warm.lock:
                warm.lent -= 1
                warm.returned.notify()
            raise
        return searcher, generation

    def _give_back(self, searcher: Searcher, generation: int, broken: bool) -> None:
        warm = self._warm_state
        with warm.lock:
            warm.lent -= 1
            if broken or generation != warm.generation:
                searcher.close()  # a failed session (the index rebuilt under it), or one from before a drop
            else:
                warm.idle.append(searcher)
            warm.returned.notify()

    @contextmanager
    def searching(self) -> Iterator[Searcher]:
        """A warm search session, lent to this caller alone until the block ends; a session that failed (the
        index rebuilt under it) is closed, and the next call opens a new one."""
        searcher, generation = self._borrow()
        broken = True
        try:
            yield searcher
            broken = False
        finally:
            self._give_back(searcher, generation, broken)

    @contextmanager
    def _read_store(self) -> Iterator[Any]:
        """The store a read goes through: in a long-lived server on a shared index, the warm session's
        (opening a connection per read cost ~5 ms of client and ~10 ms of server CPU), one caller at a
        time as searches are; else None (the read opens its own, as a command does)."""
        if not (self.long_lived and self.settings.index.backend == "postgres"):
            yield None
            return
        try:
            searcher, generation = self._borrow()
        except StigmergyError:
            yield None  # the read opens its own and says what is wrong, as before
            return
        broken = True
        try:
            yield searcher.store
            broken = False
        except StigmergyError:
            broken = False  # a refusal, not a broken connection
            raise
        finally:
            self._give_back(searcher, generation, broken)

    # ------------------------------------------------------------ trust from use: the warm caches

    def trust_book(self) -> Any:
        """Every feedback record folded (kept while no batch file changes)."""
        from stigmergy.trust.book import BookCache, load_book

        warm = self._warm_state
        if warm.trust is None:
            warm.trust = BookCache()
        return load_book(self.require_root(), self.settings.trust, warm.trust)

    def _count(self, page_ids: Any) -> None:
        """Accesses for the popular-but-unexamined list: counted in memory, appended in batches."""
        from stigmergy.trust.access import AccessCounter

        if self.root is None:
            return
        warm = self._warm_state
        with warm.lock:
            if warm.access is None:
                warm.access = AccessCounter(self.repository().layout.state_dir)
            warm.access.count(str(p) for p in page_ids if p)
