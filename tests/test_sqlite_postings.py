"""The lexical arm's first cut counted in process (`sqlite_postings`, issue #21) is FTS5's own: the same rows,
the same scores bit for bit, ties in the same order, on a full text built the way the index builds it; and
it steps aside (None) wherever it could not be exact, so FTS5's statement answers there."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.store import sqlite_postings
from stigmergy.index.store.protocol import Filters
from stigmergy.index.store.sqlite import SqliteIndexStore, fts_query
from stigmergy.index.store.sqlite_schema import connect

FTS5_CUT = "SELECT rowid, bm25(fts, 1.0, 1.0, 1.0, 1.0, 0.0) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT ?"
# A Zipf-like vocabulary: a few words in most rows, many in few; stems that porter folds together.
WORDS = ["harbor", "pilot", "quay", "cargo", "manifest", "tide", "berth", "crane", "ledger", "customs",
         "running", "runs", "ran", "configuration", "configured", "ship", "shipping", "vessel", "anchor", "buoy"]


@pytest.fixture(autouse=True)
def _nothing_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_postings, "_HELD", {})  # each test's databases alone


def _text(rng: random.Random, n: int) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(1.2)) - 1, len(WORDS) - 1)] for _ in range(n))


@pytest.fixture
def fts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[sqlite3.Connection]:
    """The index's own schema, its full text filled directly: 600 rows of 0-40 words a column, exact
    duplicates (bm25 ties), empty columns, and rows deleted after they were written."""
    monkeypatch.setattr(sqlite_postings, "MIN_ROWS", 0)
    conn = connect(tmp_path / "index.sqlite")
    rng = random.Random(7)
    rows = []
    for i in range(600):
        cols = [_text(rng, rng.randint(0, 6)), _text(rng, rng.randint(0, 8)), _text(rng, rng.randint(0, 40)),
                _text(rng, rng.randint(0, 3)) if i % 7 == 0 else ""]
        rows.append(cols)
        if i % 50 == 0:
            rows.append(list(cols))  # an exact duplicate: the same score, so FTS5's rowid order decides
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO fts(title, headings, body, extra, layer) VALUES (?, ?, ?, ?, 'public')", rows)
    conn.execute("DELETE FROM fts WHERE rowid % 13 = 0")
    conn.execute("COMMIT")
    yield conn
    conn.close()


def _pairs(got: list[tuple[int, int, float]] | None) -> list[tuple[int, float]]:
    assert got is not None
    return [(rowid, score) for rowid, _, score in got]


def _queries() -> list[list[str]]:
    rng = random.Random(3)
    out = [["harbor"], ["buoy"], ["running", "runs"], ["configured", "configuration", "anchor"], ["nothing"]]
    for _ in range(40):
        out.append(rng.sample(WORDS, rng.randint(1, 6)))
    return out


@pytest.mark.parametrize("depth", [1, 7, 50, 2000])
def test_the_cut_is_fts5s_own(fts: sqlite3.Connection, depth: int) -> None:
    for terms in _queries():
        want = [tuple(r) for r in fts.execute(FTS5_CUT, (fts_query(terms), depth))]
        got = sqlite_postings.cut(fts, terms, depth, warm=True)
        assert got is not None and [(r, s) for r, _, s in got] == want, terms  # bit for bit, FTS5's tie order


def test_it_follows_every_write(fts: sqlite3.Connection) -> None:
    terms = ["cargo", "tide"]
    before = _pairs(sqlite_postings.cut(fts, terms, 30, warm=True))
    assert before == [tuple(r) for r in fts.execute(FTS5_CUT, (fts_query(terms), 30))]
    fts.execute("INSERT INTO fts(title, headings, body, extra, layer) VALUES ('cargo cargo', '', 'tide', '', 'p')")
    fts.execute("DELETE FROM fts WHERE rowid IN (SELECT rowid FROM fts WHERE fts MATCH 'cargo' LIMIT 3)")
    after = _pairs(sqlite_postings.cut(fts, terms, 30, warm=True))
    assert after != before
    assert after == [tuple(r) for r in fts.execute(FTS5_CUT, (fts_query(terms), 30))]


def test_it_steps_aside_where_it_could_not_be_exact(fts: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    # A term of two tokens is a phrase: positions decide it, which the lists do not hold.
    assert sqlite_postings.cut(fts, ["harbor_pilot"], 10, warm=True) is None
    assert sqlite_postings.cut(fts, ["!!"], 10, warm=True) is None
    # A process that is not a long-lived service reads nothing (not the sizes, not a list) ...
    assert sqlite_postings.cut(fts, ["ledger", "crane"], 10, warm=False) is None
    assert sqlite_postings.cut(fts, ["ledger", "crane"], 10, warm=False) is None
    assert not sqlite_postings._HELD
    # ... but uses what a long-lived session of the process holds.
    sqlite_postings.cut(fts, ["ledger", "crane"], 10, warm=True)
    assert _pairs(sqlite_postings.cut(fts, ["ledger", "crane"], 10, warm=False)) == [
        tuple(r) for r in fts.execute(FTS5_CUT, (fts_query(["ledger", "crane"]), 10))]
    assert sqlite_postings.cut(fts, ["ledger", "anchor"], 10, warm=False) is None  # "anchor" is not held
    # A small table is left to FTS5 altogether.
    monkeypatch.setattr(sqlite_postings, "MIN_ROWS", 10_000)
    assert sqlite_postings.cut(fts, ["harbor"], 10, warm=True) is None


def test_varints_read_sqlites_nine_byte_form() -> None:
    assert sqlite_postings.varints(bytes([0x05, 0x81, 0x00, 0x7F])) == [5, 128, 127]
    assert sqlite_postings.varints(bytes([0xFF] * 8 + [0xFF])) == [2**64 - 1]


BOSS = "boss@example.com"


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A public and a board layer: board pages that match "harbor" better than any public page, sources in
    both layers naming "Harbor Pilot", and notes that name it too (not sources: never a mention)."""
    monkeypatch.setattr(sqlite_postings, "MIN_ROWS", 0)
    b = RepoBuilder(tmp_path / "w", layers={"board": [BOSS]})
    for i in range(30):
        b.wiki("note", f"Board {i:02d}", f"Harbor harbor board item {i % 3}.\n", layer="board")
    for i in range(30):
        b.wiki("note", f"Public {i:02d}", f"The harbor pilot {' '.join(['quay'] * (i % 4))} wrote note {i % 5}.\n")
    for i in range(12):
        b.source(f"Log {i:02d}", f"Harbor Pilot log {i}: the tide was {'high' if i % 2 else 'low'}.\n",
                 layer="board" if i % 3 == 0 else "public")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b.root / ".stigmergy" / "index.sqlite"


def test_a_search_answers_the_same_either_way(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the store, under a reader's layers: the arm's rows, scores included, and the source pages
    that name an entity are those of the SQL statements."""
    store = SqliteIndexStore.open(wiki)
    try:
        store.keep_warm()
        answers: dict[tuple[object, ...], list[object]] = {}
        for floor in (10**9, 0):
            monkeypatch.setattr(sqlite_postings, "MIN_ROWS", floor)
            for layers in (("public",), ("public", "board"), ("board",)):
                sel = store.select(layers, Filters())
                for terms in (["harbor"], ["harbor", "quay", "note"], ["pilot", "board"], ["tide", "low"]):
                    answers.setdefault((layers, tuple(terms)), []).append(store.lexical(terms, sel, (1.0, 1.0, 1.0), 12))
                for names in (["harbor pilot"], ["harbor pilot", "tide"], ["nobody here"]):
                    for depth in (3, 50):
                        answers.setdefault((layers, tuple(names), depth), []).append(
                            store.source_mentions(names, sel, depth))
        assert any(fts5 for fts5, _ in answers.values())
        for key, (fts5, held) in answers.items():
            assert held == fts5, key
        assert sqlite_postings._HELD, "the held path answered"
    finally:
        store.close()


def test_a_map_that_lies_never_shows_a_page_the_reader_may_not_read(wiki: Path) -> None:
    """The pages and layers the held map gives are checked against the tables: a map that calls every row
    public (a stale or tampered map) shows a public reader no board page, and is dropped."""
    store = SqliteIndexStore.open(wiki)
    try:
        store.keep_warm()
        sel = store.select(("public",), Filters())
        honest = store.lexical(["harbor"], sel, (1.0, 1.0, 1.0), 12)
        mentions = store.source_mentions(["harbor pilot"], sel, 50)
        held = next(iter(sqlite_postings._HELD.values()))
        public = held.pages.codes["public"]
        held.pages.row_layer[:] = public
        held.pages.masks.clear()
        board = {r[0] for r in store.conn.execute("SELECT id FROM pages WHERE layer = 'board'")}
        assert store.lexical(["harbor"], sel, (1.0, 1.0, 1.0), 12) == honest
        assert not sqlite_postings._HELD
        store.lexical(["harbor"], sel, (1.0, 1.0, 1.0), 12)  # held again, honest
        held = next(iter(sqlite_postings._HELD.values()))
        held.pages.row_layer[:] = public
        held.pages.page_layer[:] = public
        held.pages.masks.clear()
        again = store.source_mentions(["harbor pilot"], sel, 50)
        assert again == mentions and not board & set(again)
        assert not sqlite_postings._HELD
    finally:
        store.close()


def test_a_full_cache_drops_the_least_recently_used_lists_and_answers_the_same(
        fts: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_postings, "MAX_POSTINGS", 300)
    for terms in _queries():
        want = [tuple(r) for r in fts.execute(FTS5_CUT, (fts_query(terms), 40))]
        assert _pairs(sqlite_postings.cut(fts, terms, 40, warm=True)) == want, terms
        held = next(iter(sqlite_postings._HELD.values()))
        assert held.lists.held == sum(len(ids) for ids, _ in held.lists.lists.values())
        assert held.lists.held <= 300 or len(held.lists.lists) == 1


def test_sessions_searching_at_once_share_the_lists_and_each_gets_fts5s_answer(tmp_path: Path,
                                                                               fts: sqlite3.Connection) -> None:
    """Four connections to one file, a thread each (a server's pool: a session is lent to one caller at a
    time), asking in different orders: every answer is FTS5's, and one held full text serves them all."""
    import threading

    path = tmp_path / "index.sqlite"
    wants = {tuple(t): [tuple(r) for r in fts.execute(FTS5_CUT, (fts_query(t), 25))] for t in _queries()}
    conns = [connect(path) for _ in range(4)]
    wrong: list[object] = []

    def run(conn: sqlite3.Connection, offset: int) -> None:
        items = list(wants.items())
        for terms, want in items[offset:] + items[:offset]:
            try:
                if _pairs(sqlite_postings.cut(conn, list(terms), 25, warm=True)) != want:
                    wrong.append(terms)
            except Exception as exc:  # noqa: BLE001 - a failure in a thread is the test's failure
                wrong.append(exc)

    threads = [threading.Thread(target=run, args=(conns[i], i * 11)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for conn in conns:
        conn.close()
    assert not wrong
    assert len(sqlite_postings._HELD) == 1  # one held full text for the file, shared


def test_a_list_that_cannot_be_read_leaves_the_answer_to_fts5_and_no_transaction_open(
        fts: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable(conn: object, token: str) -> object:
        raise ValueError("could not read")

    monkeypatch.setattr(sqlite_postings, "_read", unreadable)
    assert sqlite_postings.cut(fts, ["harbor", "tide"], 10, warm=True) is None
    assert not fts.in_transaction
    assert not sqlite_postings._HELD

    def broken(conn: object, key: bytes) -> object:
        raise _db_error()  # the database's own error class (pysqlite3's, not the standard library's)

    monkeypatch.setattr(sqlite_postings, "_load", broken)
    assert sqlite_postings.cut(fts, ["harbor"], 10, warm=True) is None
    assert sqlite_postings.mentions(fts, '"harbor"', ("public",), 10, warm=True) is None
    assert not fts.in_transaction


def _db_error() -> BaseException:
    from stigmergy.index.store.sqlite_schema import dbapi

    return dbapi().OperationalError("no such table: fts_docsize")  # type: ignore[no-any-return]
