"""The state a search runs over: `SearchScope` (one repository's open index, its settings and the embedder),
opened by `open_scope` with the checks that the index is complete and built for these settings. The arm
queries (`arms`) and the fusion (`search`) are plain functions of a scope.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import NotFoundError
from stigmergy.index.analysis import configured_languages
from stigmergy.index.embedder import Embedder, make_embedder
from stigmergy.index.freshness import (
    Freshness,
    current_fingerprint,
    current_lexicon,
    fast_head,
    freshness,
    index_building,
)
from stigmergy.index.store import IndexStore, index_location, open_index
from stigmergy.repo.git import Git
from stigmergy.repo.layout import Layout
from stigmergy.settings import Settings
from stigmergy.trust.book import BookCache, TrustBook, load_book

SCAN_SPACING = 50.0  # a scan of the working tree takes at most ~2% of a search process's time


class FreshnessCache:
    """The last freshness answer (its key, when it was taken, the answer), which the sessions of one server
    share: re-scanning the working tree is two git commands over every page file (~0.3 s of CPU for a
    62,000-page wiki), and each session of a pool of four re-scanned it on its own every `freshness_ttl`,
    up to a core's half at 247,762 fragments. One session re-scans when the answer expires; the others
    meanwhile take the expired answer if its key still holds (the same HEAD, git index and database: only
    an uncommitted edit could differ, so the answer is at most its expiry plus one scan old) rather
    than wait for the scan (~0.15 s at 247,762 fragments every `freshness_ttl`, during which every other
    search of the server stood still). A session whose key differs (a commit, a build) scans itself."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last: tuple[tuple[Any, ...], float, Freshness] | None = None
        self.scanning = False
        # A long-lived service's: an expired answer whose key holds is re-scanned on a thread of its own (its
        # own connection to the index), and every session takes the expired answer meanwhile, the one that
        # found it expired included; else that session stood still for the scan (~0.15 s at 247,762
        # fragments), and with one session a search worker (service/search_workers.py), every search queued
        # behind it did too, every `freshness_ttl`.
        self.background = False
        self.refresher: threading.Thread | None = None
        # How long the last scan took (seconds, wall). An answer holds for `freshness_ttl` or SCAN_SPACING
        # times that, whichever is longer: at 247,762 fragments (50,000 page files) a scan is ~0.15 s of git's
        # CPU, and each search process of a server re-scanning every 2 s spent ~3 ms of the two cores a
        # search under the 50-reader load (docs/team.md); a small wiki's scans keep the 2 s.
        self.spent = 0.0

    def expires(self, ttl: float) -> float:
        """Seconds after it was taken that the last answer expires (a TTL of 0: at once, every query scans)."""
        return max(ttl, self.spent * SCAN_SPACING) if ttl > 0 else 0.0

    def settle(self) -> None:
        """Wait for a background re-scan running now (tests)."""
        thread = self.refresher
        if thread is not None:
            thread.join()


@dataclass
class _Memo:
    """What a warm scope remembers between queries (the scope itself never changes): the embedder, loaded
    on the first vector query; the index's fingerprint; the last freshness answer, with its key and when it
    was taken. (The store keeps what it knows of its own tables.)"""

    embedder: Embedder | None = None
    fingerprint: str | None = None
    fresh: FreshnessCache = field(default_factory=FreshnessCache)
    languages: tuple[str, ...] | None = None
    trust: BookCache = field(default_factory=BookCache)


@dataclass(frozen=True)
class SearchScope:
    """One repository's open index. `freshness_ttl`: HEAD and the git index are re-read on every query,
    the working tree re-scanned for uncommitted page edits at most this often, or 50 times as long as a scan
    takes where that is longer (0: on every query)."""

    root: Path
    settings: Settings
    layout: Layout
    git: Git
    store: IndexStore
    freshness_ttl: float = 2.0
    memo: _Memo = field(default_factory=_Memo, compare=False, repr=False)


def open_scope(root: Path, settings: Settings, embedder: Embedder | None = None,
               freshness_ttl: float = 2.0, git: Git | None = None) -> SearchScope:
    """Open `root`'s index for searching; NotFoundError when there is none, it is being built, or it was
    built for another model or chunking than `settings` name."""
    root = Path(root)
    layout = Layout(root)
    loc = index_location(layout, settings)
    if not loc.exists():
        raise NotFoundError("this repository has no index yet", hint="run `stigmergy index`")
    store = open_index(loc)
    built = store.meta("fingerprint")
    if built != current_fingerprint(settings, layout):
        busy = store.writer_busy()
        store.close()
        # A half-built index is never an error a reader must decode: say that a build is under way.
        if busy or index_building(layout):
            raise NotFoundError(
                "the index is being built" + (" for the configured embedding model" if built else "")
                + " (`stigmergy index` is running)",
                hint="try again when it finishes",
            )
        if built is None:
            raise NotFoundError("this repository has no complete index yet", hint="run `stigmergy index`")
        raise NotFoundError(
            "the index was built with another embedding model or chunking than stigmergy.toml sets",
            hint="run `stigmergy index` (it re-embeds everything once)",
        )
    if store.meta("lexicon") != current_lexicon(settings):
        store.close()
        raise NotFoundError(
            "the index's full text was analysed with other [index] languages (or by an older stigmergy) than "
            "stigmergy.toml sets", hint="run `stigmergy index` (it re-reads every page; nothing is re-embedded)")
    return SearchScope(root, settings, layout, git or Git(root), store, freshness_ttl, _Memo(embedder=embedder))


def scope_embedder(scope: SearchScope) -> Embedder:
    """The scope's embedder, loaded on first use (lexical-only work never loads the model)."""
    if scope.memo.embedder is None:
        scope.memo.embedder = make_embedder(scope.settings.embedder, scope.layout.cache_dir, threads=1)
    return scope.memo.embedder


def scope_freshness(scope: SearchScope, layers: tuple[str, ...]) -> Freshness:
    """How far the index is behind the repository for `layers`, cached while HEAD, the git index and the
    database are unchanged, for `freshness_ttl` seconds or SCAN_SPACING times the last scan, whichever is
    longer (in the scope's `FreshnessCache`, which a server's sessions share)."""
    try:
        git_index = (scope.root / ".git" / "index").stat().st_mtime_ns
    except OSError:
        git_index = None
    key = (fast_head(scope.git), git_index, scope.store.version(), layers)
    cache = scope.memo.fresh
    with cache.lock:
        last = cache.last
        if last is not None and last[0] == key and (
                time.monotonic() - last[1] < cache.expires(scope.freshness_ttl) or cache.scanning):
            return last[2]
        cache.scanning = True
        if last is not None and last[0] == key and cache.background:
            cache.refresher = threading.Thread(target=_rescan, args=(scope, layers, key), daemon=True,
                                               name="stigmergy-freshness")
            cache.refresher.start()
            return last[2]
    try:
        return _scan(scope, scope.store, layers, key)
    finally:
        with cache.lock:
            cache.scanning = False


def _scan(scope: SearchScope, store: IndexStore, layers: tuple[str, ...], key: tuple[Any, ...],
          started: float | None = None) -> Freshness:
    """Scan now and keep the answer; `started`: when a re-scan began (its connection counts in its cost)."""
    cache = scope.memo.fresh
    taken = time.monotonic()
    fresh = freshness(store, scope.git, layers)
    with cache.lock:
        if cache.last is None or cache.last[1] <= taken:
            cache.last = (key, taken, fresh)
            cache.spent = time.monotonic() - (started if started is not None else taken)
    return fresh


def _rescan(scope: SearchScope, layers: tuple[str, ...], key: tuple[Any, ...]) -> None:
    """The background re-scan: on a connection of its own (a session's is used by its searches meanwhile).
    A re-scan that fails leaves the expired answer, and the next search past the TTL tries again."""
    cache = scope.memo.fresh
    started = time.monotonic()
    try:
        store = open_index(index_location(scope.layout, scope.settings))
        try:
            _scan(scope, store, layers, key, started)
        finally:
            store.close()
    except Exception:  # noqa: BLE001 - the answer stays the last one; a search never fails for a re-scan
        pass
    finally:
        with cache.lock:
            cache.scanning = False


def scope_languages(scope: SearchScope) -> tuple[str, ...]:
    """The stemmers a query goes through: the configured `[index] languages` and every language a page of
    the index declared (read once per scope)."""
    if scope.memo.languages is None:
        try:
            declared = [str(x) for x in json.loads(scope.store.meta("languages") or "[]")]
        except ValueError:
            declared = []
        configured = configured_languages(scope.settings.index.languages)
        scope.memo.languages = tuple(dict.fromkeys([*configured, *declared]))
    return scope.memo.languages


def index_fingerprint(scope: SearchScope) -> str:
    """The fingerprint the index's vectors were built with (read once per scope)."""
    if scope.memo.fingerprint is None:
        scope.memo.fingerprint = scope.store.meta("fingerprint") or ""
    return scope.memo.fingerprint



def scope_trust(scope: SearchScope) -> TrustBook:
    """The feedback records folded, re-read only when a batch file changed (a feedback just given shows in
    the next search)."""
    return load_book(scope.root, scope.settings.trust, scope.memo.trust)
