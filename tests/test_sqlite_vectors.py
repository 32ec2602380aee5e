"""The float vectors a long-lived process holds (`sqlite_vectors`, issue #21) are the tables' own: the same
vectors by fragment id, the same nearest rows and distances, under every reader's layers; nothing held is
used once the index has changed (a fragment id may name another fragment after a write); and a process that
is not long-lived, or an index too small to gain, never holds them. Real Git, real SQLite with sqlite-vec,
the tests' deterministic embedder."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.store import sqlite as sqlite_store
from stigmergy.index.store import sqlite_vectors
from stigmergy.index.store.protocol import Filters
from stigmergy.index.store.sqlite import SqliteIndexStore

BOSS = "boss@example.com"


@pytest.fixture(autouse=True)
def _nothing_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_vectors, "_HELD", {})
    monkeypatch.setattr(sqlite_vectors, "MIN_ROWS", 0)


def _builder(root: Path) -> RepoBuilder:
    b = RepoBuilder(root, layers={"board": [BOSS]})
    for i in range(25):
        b.wiki("note", f"Board {i:02d}", f"Harbor board item {i % 3} about cranes and quays.\n", layer="board")
    for i in range(40):
        b.wiki("note", f"Public {i:02d}", f"The harbor pilot wrote note {i % 5} on tides, berths and cargo {i}.\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _ids(store: SqliteIndexStore) -> list[int]:
    return [r[0] for r in store.conn.execute("SELECT id FROM fragments ORDER BY id")]


def _same(a: dict[int, np.ndarray], b: dict[int, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def _warm(path: Path, fingerprint: str) -> SqliteIndexStore:
    """A long-lived session's store with the matrix read (the first read starts the reader)."""
    store = SqliteIndexStore.open(path)
    store.keep_warm()
    store.fragment_vectors(_ids(store)[:1], fingerprint)
    sqlite_vectors.settle()
    return store


def test_the_held_vectors_and_the_nearest_rows_are_the_tables_own(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = _builder(tmp_path / "w").root / ".stigmergy" / "index.sqlite"
    monkeypatch.setattr(sqlite_store, "EXACT_SCAN_MAX_ROWS", 0)  # every layer through the prefilter and rerank
    cold, warm = SqliteIndexStore.open(path), None
    try:
        fingerprint = cold.meta("fingerprint") or ""
        warm = _warm(path, fingerprint)
        (slot, held), = sqlite_vectors._HELD.items()
        assert held.mat is not None and len(held.ids) == len(_ids(cold)), "the matrix was read"
        asked = [*_ids(cold), 10**9, -1]
        assert _same(warm.fragment_vectors(asked, fingerprint), cold.fragment_vectors(asked, fingerprint))
        pages = [r[0] for r in cold.conn.execute("SELECT id FROM pages")] + [10**9]
        assert held.pages.whole and len(held.pages.ids) == len(pages) - 1
        for least in (1, 2, 99):
            w, c = warm.page_vectors(pages, least), cold.page_vectors(pages, least)
            assert w.keys() == c.keys() and all(
                np.array_equal(w[p][0], c[p][0]) and np.array_equal(w[p][1], c[p][1]) and w[p][2] == c[p][2] for p in c)
        rng = np.random.default_rng(5)
        for layers in (("public",), ("board",), ("public", "board")):
            sel_w, sel_c = warm.select(layers, Filters()), cold.select(layers, Filters())
            for _ in range(8):
                q = rng.standard_normal(384).astype(np.float32)
                q /= np.linalg.norm(q)
                got = warm.nearest(q, sel_w, 12, 40, fingerprint)
                assert got == cold.nearest(q, sel_c, 12, 40, fingerprint), layers
                assert got and {warm.conn.execute("SELECT layer FROM fragments WHERE id = ?", (f,)).fetchone()[0]
                                for f, _, _ in got} <= set(layers)
        # Answered from the matrix: the statement is not asked for a vector the matrix holds.
        seen: list[str] = []
        warm.conn.set_trace_callback(seen.append)
        warm.fragment_vectors(_ids(cold)[:50], fingerprint)
        warm.page_vectors(pages, 1)
        warm.conn.set_trace_callback(None)
        assert not any("JOIN vectors" in s or "page_vectors" in s for s in seen)
    finally:
        cold.close()
        if warm is not None:
            warm.close()


def test_nothing_held_is_used_once_the_index_has_changed(tmp_path: Path) -> None:
    b = _builder(tmp_path / "w")
    path = b.root / ".stigmergy" / "index.sqlite"
    warm = SqliteIndexStore.open(path)
    try:
        fingerprint = warm.meta("fingerprint") or ""
        warm.close()
        warm = _warm(path, fingerprint)
        before = warm.fragment_vectors(_ids(warm), fingerprint)
        # The last pages' fragments go and new ones come: SQLite gives the new rows the freed ids.
        for i in range(35, 40):
            b.wiki("note", f"Public {i:02d}", f"Entirely other words {i}: lighthouse, fog signal, keeper's log.\n")
        b.commit()
        build_index(b.root, b.settings, embedder=HashEmbedder())
        cold = SqliteIndexStore.open(path)
        try:
            truth = cold.fragment_vectors(_ids(cold), fingerprint)
        finally:
            cold.close()
        reused = [f for f in truth if f in before and not np.array_equal(truth[f], before[f])]
        assert reused, "the test needs an id that now names another fragment"
        assert _same(warm.fragment_vectors(list(truth), fingerprint), truth)  # before the matrix is read again
        sqlite_vectors.settle()
        assert _same(warm.fragment_vectors(list(truth), fingerprint), truth)  # and after
    finally:
        warm.close()


def test_a_command_never_holds_them_and_a_small_index_is_left_to_the_statement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _builder(tmp_path / "w").root / ".stigmergy" / "index.sqlite"
    store = SqliteIndexStore.open(path)
    try:
        fingerprint = store.meta("fingerprint") or ""
        ids = _ids(store)
        threads = threading.active_count()
        assert store.fragment_vectors(ids, fingerprint) and not sqlite_vectors._HELD  # not warm: a command
        assert threading.active_count() == threads and not sqlite_vectors._READERS
        monkeypatch.setattr(sqlite_vectors, "MIN_ROWS", len(ids) + 1)
        store.keep_warm()
        first = store.fragment_vectors(ids, fingerprint)
        sqlite_vectors.settle()
        (held,) = sqlite_vectors._HELD.values()
        assert held.mat is None and _same(store.fragment_vectors(ids, fingerprint), first)
        monkeypatch.setattr(sqlite_vectors, "MIN_ROWS", 0)
        monkeypatch.setattr(sqlite_vectors, "MAX_BYTES", 1536 * (len(ids) - 1))  # one vector over the cap
        sqlite_vectors._HELD.clear()
        store.fragment_vectors(ids, fingerprint)
        sqlite_vectors.settle()
        assert all(h.mat is None for h in sqlite_vectors._HELD.values())
    finally:
        store.close()
