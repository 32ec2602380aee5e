"""The cuts in a search's own CPU (issue #21) give the same answers as the work they replace: SQLite's lexical
arm cut over every layer before the reader's layers are tested (`sqlite_lexical`), and the
vector arm's 1-bit prefilter counted in process (`sqlite_bits`) instead of by vec0's scan."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.store import sqlite as sqlite_store
from stigmergy.index.store import sqlite_bits, sqlite_lexical
from stigmergy.index.store.protocol import Filters
from stigmergy.index.store.sqlite import SqliteIndexStore, fts_query, marks

BOSS = "boss@example.com"
WEIGHTS = (1.0, 1.0, 1.0)


@pytest.fixture(scope="module")
def index_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A public layer and a board layer whose pages match "harbor" better (three times a page, and short)
    than every public page does, and many exact bm25 ties (pages of the same length)."""
    b = RepoBuilder(tmp_path_factory.mktemp("cpu") / "w", layers={"board": [BOSS]})
    for i in range(40):
        b.wiki("note", f"Board {i:02d}", f"Harbor harbor harbor board item {i % 3}.\n", layer="board")
    for i in range(40):
        filler = " ".join(["quay"] * (i % 4))
        b.wiki("note", f"Public {i:02d}", f"The harbor pilot {filler} wrote note {i % 5}.\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b.root / ".stigmergy" / "index.sqlite"


@pytest.fixture
def layered(index_file: Path) -> Iterator[SqliteIndexStore]:
    store = SqliteIndexStore.open(index_file)  # its own connection: no statement prepared before a test
    yield store
    store.close()


def _scoped_in_fts(store: SqliteIndexStore, terms: list[str], layers: tuple[str, ...],
                   depth: int, filters: Filters | None = None) -> list[tuple[int, int, float, float]]:
    """The lexical arm's statement before the cut: the reader's layers tested inside the full-text query."""
    sel = store.select(layers, filters or Filters())
    where, params = sel.condition
    rank = sqlite_store._bm25(WEIGHTS)
    sql = (f"SELECT f.id, f.page, -h.s, -h.s2 FROM (SELECT rowid, {rank} AS s, 0.0 AS s2 FROM fts WHERE fts MATCH ? "
           f"AND layer IN ({marks(layers)}) ORDER BY s LIMIT ?) h "
           f"CROSS JOIN fragments f ON f.id = h.rowid CROSS JOIN pages p ON p.id = f.page WHERE {where} ORDER BY h.s")
    return [tuple(r) for r in store.conn.execute(sql, (fts_query(terms), *layers, depth, *params)).fetchall()]


def _layer_reads(store: SqliteIndexStore) -> list[str]:
    reads: list[str] = []

    def watch(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
        if action == 20 and arg1 == "fts" and arg2 == "layer":  # SQLITE_READ of the full text's layer column
            reads.append(arg2)
        return 0

    store.conn.set_authorizer(watch)
    return reads


@pytest.mark.parametrize("depth", [1, 5, 30, 45, 200])
@pytest.mark.parametrize("layers", [("public",), ("board",), ("public", "board")])
@pytest.mark.parametrize("query", [["harbor"], ["quay"], ["harbor", "pilot"], ["board", "note"], ["nothing"]])
def test_the_cut_over_every_layer_equals_the_scoped_cut(layered: SqliteIndexStore, query: list[str],
                                                          layers: tuple[str, ...], depth: int) -> None:
    got = layered.lexical(query, layered.select(layers, Filters()), WEIGHTS, depth)
    assert [(f, p, s) for f, p, s, _ in _scoped_in_fts(layered, query, layers, depth)] == got


def test_a_public_reader_gets_no_board_row_when_the_board_holds_every_best_match(layered: SqliteIndexStore) -> None:
    # The best 2 x depth matches of "harbor" are all the board's: the cut finds no readable row and the
    # scoped statement answers, with the public pages alone.
    sel = layered.select(("public",), Filters())
    got = layered.lexical(["harbor"], sel, WEIGHTS, 10)
    board = {r[0] for r in layered.conn.execute("SELECT id FROM pages WHERE layer = 'board'")}
    assert len(got) == 10 and not {p for _, p, _ in got} & board
    assert got == [(f, p, s) for f, p, s, _ in _scoped_in_fts(layered, ["harbor"], ("public",), 10)]


def test_the_layer_column_is_read_only_when_the_cut_falls_short(layered: SqliteIndexStore) -> None:
    reads = _layer_reads(layered)
    layered.lexical(["quay"], layered.select(("public",), Filters()), WEIGHTS, 10)
    assert reads == []  # "quay" is public only: the first cut holds the answer
    layered.lexical(["harbor"], layered.select(("public",), Filters()), WEIGHTS, 10)
    assert reads  # the board's matches fill the first cut: the scoped statement runs


def test_a_wider_first_cut_changes_nothing(layered: SqliteIndexStore, monkeypatch: pytest.MonkeyPatch) -> None:
    sel = layered.select(("public",), Filters())
    before = layered.lexical(["harbor", "quay"], sel, WEIGHTS, 12)
    monkeypatch.setattr(sqlite_lexical, "LEXICAL_OVERFETCH", 50)
    assert layered.lexical(["harbor", "quay"], sel, WEIGHTS, 12) == before


def _filtered_in_fts(store: SqliteIndexStore, terms: list[str], layers: tuple[str, ...], filters: Filters,
                     depth: int) -> list[tuple[int, int, float]]:
    """The filtered lexical statement before the cut: the full text's layer column tested beside the page's."""
    sel = store.select(layers, filters)
    where, params = sel.condition
    rank = sqlite_store._bm25(WEIGHTS)
    sql = (f"SELECT f.id, f.page, -{rank} AS s FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p "
           f"ON p.id = f.page WHERE fts MATCH ? AND fts.layer IN ({marks(layers)}) AND {where} ORDER BY s DESC LIMIT ?")
    return [tuple(r) for r in store.conn.execute(sql, (fts_query(terms), *layers, *params, depth)).fetchall()]


@pytest.mark.parametrize("filters", [Filters(type="note"), Filters(status="developing"), Filters(type="entity"),
                                     Filters(since="2026-01-01")])
@pytest.mark.parametrize("layers", [("public",), ("public", "board")])
def test_a_filtered_cut_reads_no_layer_column_and_finds_the_same_rows(
        layered: SqliteIndexStore, filters: Filters, layers: tuple[str, ...]) -> None:
    reads = _layer_reads(layered)
    for query in (["harbor"], ["harbor", "quay"], ["board"]):
        for depth in (3, 30, 200):
            got = layered.lexical(query, layered.select(layers, filters), WEIGHTS, depth)
            assert got == _filtered_in_fts(layered, query, layers, filters, depth)[:depth]
            assert not ({p for _, p, _ in got} - {r[0] for r in layered.conn.execute(
                f"SELECT id FROM pages WHERE layer IN ({marks(layers)})", layers)})
    reads.clear()
    layered.lexical(["harbor"], layered.select(layers, filters), WEIGHTS, 10)
    assert reads == []


@pytest.mark.parametrize("depth", [1, 3, 30, 200])
@pytest.mark.parametrize("layer", ["public", "board"])
def test_a_layer_filter_keeps_what_the_scoped_cut_kept(layered: SqliteIndexStore, layer: str, depth: int) -> None:
    # A layer filter does not narrow the selection (`Filters.narrows`): the cut is of the reader's layers
    # and the filter applies to its rows, as before.
    for query in (["harbor"], ["board"], ["harbor", "quay"]):
        got = layered.lexical(query, layered.select(("public", "board"), Filters(layer=layer)), WEIGHTS, depth)
        want = _scoped_in_fts(layered, query, ("public", "board"), depth, Filters(layer=layer))
        assert got == [(f, p, s) for f, p, s, _ in want]


def _vec0(tmp_path: Path, dimension: int, n: int, chunk: int, seed: int) -> tuple[object, np.ndarray]:
    """A vec0 table of `n` random bit vectors in chunks of `chunk` (many chunks, many equal distances), with
    every seventh row deleted (slots a chunk keeps but no longer counts) and a few rows inserted after."""
    from stigmergy.index.store.sqlite_schema import connect

    conn = connect(tmp_path / f"bits-{dimension}-{chunk}-{seed}.sqlite")
    conn.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{dimension}] distance_metric=cosine, "
                 f"bits bit[{dimension}], chunk_size={chunk})")
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n + 20, dimension)).astype(np.float32)
    for i in range(n):
        conn.execute("INSERT INTO v(rowid, embedding, bits) VALUES (?, ?, vec_quantize_binary(?))",
                     (i + 1, vecs[i].tobytes(), vecs[i].tobytes()))
    conn.execute("DELETE FROM v WHERE rowid % 7 = 3")
    for i in range(n, n + 20):
        conn.execute("INSERT INTO v(rowid, embedding, bits) VALUES (?, ?, vec_quantize_binary(?))",
                     (i + 1, vecs[i].tobytes(), vecs[i].tobytes()))
    return conn, rng.standard_normal((40, dimension)).astype(np.float32)


@pytest.mark.skipif(not sqlite_bits.AVAILABLE, reason="numpy < 2 has no bitwise_count: vec0's own scan runs")
@pytest.mark.parametrize(("dimension", "chunk"), [(64, 8), (384, 64), (40, 16)])
def test_the_bit_prefilter_in_process_returns_vec0s_rows(tmp_path: Path, dimension: int, chunk: int) -> None:
    # 64 dimensions: distances 0-64 over 300 rows, so the k-th distance is nearly always shared and vec0's
    # tie order decides the rows; 40: a width that is not whole 64-bit words.
    conn, queries = _vec0(tmp_path, dimension, 300, chunk, seed=dimension)
    layer = sqlite_bits.load(conn, "v", 1)
    assert len(layer.rowids) == conn.execute("SELECT count(*) FROM v").fetchone()[0]
    ties = 0
    for q in queries:
        for k in (1, 5, 37, 100, 1000):
            want = [r[0] for r in conn.execute(
                "SELECT rowid FROM v WHERE bits MATCH vec_quantize_binary(?) AND k = ?", (q.tobytes(), k))]
            got = sqlite_bits.nearest(layer, q, k)
            assert got == want, (k, got, want)
            dist = [r[0] for r in conn.execute(
                "SELECT distance FROM v WHERE bits MATCH vec_quantize_binary(?) AND k = ?", (q.tobytes(), k + 1))]
            ties += len(dist) > k and dist[k - 1] == dist[k]
    assert ties > 20  # the cases that decide the order were there
    conn.close()


def test_the_store_reads_a_layers_bits_again_after_another_connection_writes(
        index_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A copy of the index (this test deletes a vector), every layer through the prefilter
    # (EXACT_SCAN_MAX_ROWS 0), and the in-process count against vec0's scan.
    copy = tmp_path / "index.sqlite"
    source = SqliteIndexStore.open(index_file)
    source.conn.execute("VACUUM INTO ?", (str(copy),))
    source.close()
    monkeypatch.setattr(sqlite_store, "EXACT_SCAN_MAX_ROWS", 0)
    store, other = SqliteIndexStore.open(copy), SqliteIndexStore.open(copy)
    fingerprint = store.meta("fingerprint") or ""
    sel = store.select(("public", "board"), Filters())
    query = HashEmbedder().embed(["harbor pilot note"])[0]

    def both() -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]]]:
        fast = store.nearest(query, sel, 30, 25, fingerprint)
        monkeypatch.setattr(sqlite_bits, "AVAILABLE", False)
        slow = store.nearest(query, sel, 30, 25, fingerprint)
        monkeypatch.undo()
        monkeypatch.setattr(sqlite_store, "EXACT_SCAN_MAX_ROWS", 0)
        return fast, slow

    try:
        fast, slow = both()
        assert fast == slow and len(fast) == 30
        gone = fast[0][0]
        layer = other.conn.execute("SELECT p.layer FROM fragments f JOIN pages p ON p.id = f.page WHERE f.id = ?",
                                   (gone,)).fetchone()[0]
        other.conn.execute(f"DELETE FROM {other.vec_table(layer)} WHERE rowid = ?", (gone,))
        fast, slow = both()
        assert fast == slow and len(fast) == 30 and gone not in {f for f, _, _ in fast}
    finally:
        store.close()
        other.close()


def test_vec0_storage_it_cannot_read_falls_back_to_vec0s_scan(
        index_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another sqlite-vec release may lay its chunks out otherwise: reading them fails, and the prefilter's
    candidates come from vec0's own scan, the same rows, instead of an error in every search."""
    monkeypatch.setattr(sqlite_store, "EXACT_SCAN_MAX_ROWS", 0)
    store = SqliteIndexStore.open(index_file)
    fingerprint = store.meta("fingerprint") or ""
    sel = store.select(("public", "board"), Filters())
    query = HashEmbedder().embed(["harbor pilot note"])[0]
    try:
        want = store.nearest(query, sel, 30, 25, fingerprint)
        store._bits.clear()

        def unreadable(*_: object) -> None:
            raise sqlite3.OperationalError("no such table: v_chunks")

        monkeypatch.setattr(sqlite_bits, "load", unreadable)
        assert store.nearest(query, sel, 30, 25, fingerprint) == want
        assert store.nearest(query, sel, 30, 25, fingerprint) == want  # and again, without trying to read it
    finally:
        store.close()
