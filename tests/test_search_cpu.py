"""The cuts in a search's own CPU (issue #21) give the same answers as the work they replace: SQLite's lexical
arm cut over every layer before the reader's layers are tested (`SqliteIndexStore._lexical_scoped`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.store import sqlite as sqlite_store
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
                   depth: int) -> list[tuple[int, int, float, float]]:
    """The lexical arm's statement before the cut: the reader's layers tested inside the full-text query."""
    sel = store.select(layers, Filters())
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
    monkeypatch.setattr(sqlite_store, "LEXICAL_OVERFETCH", 50)
    assert layered.lexical(["harbor", "quay"], sel, WEIGHTS, 12) == before
