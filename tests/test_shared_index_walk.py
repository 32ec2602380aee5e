"""The shared index's lexical first cut by the impact walk (stigmergy/index/store/pg_impact.py) on a real
PostgreSQL: the exact BM25 top of every match, also once the average length has moved away from the one
the impacts were written at; a restricted layer's fragments never met by a reader without the layer,
before and after a page swap; a deleted page leaves no postings; an existing schema is backfilled by
its migration."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import git
from test_index_support import HashEmbedder, RepoBuilder
from test_shared_index import _psql

from stigmergy.index.build import build_index
from stigmergy.index.store import index_location, open_index, pg_impact, pg_search
from stigmergy.index.store.pg_schema import MIGRATIONS
from stigmergy.index.store.protocol import Filters
from stigmergy.repo.layout import Layout

BOSS = "boss@example.com"
VOCAB = ("aurora widget harbor ledger invoice comet basalt cedar delta ember fjord glacier heron iris juniper "
         "kelp lantern meadow nectar orchid").split()


def _pages(b: RepoBuilder, rng: random.Random, start: int, n: int, longest: int, layer: str = "public") -> None:
    def words(k: int) -> str:
        return " ".join(rng.choice(VOCAB) for _ in range(k))

    for i in range(start, start + n):
        b.wiki("note", f"{words(2).title()} {i}", f"{words(rng.randint(1, longest))}.\n\n## {words(2).title()}\n\n"
               f"{words(rng.randint(1, longest))}.\n", layer=layer)


class _Watched:
    """The store's connection, keeping each walk statement's lexemes, layers and depths of read `n`."""

    def __init__(self, conn) -> None:  # noqa: ANN001
        self.conn = conn
        self.walks: list[tuple[list[str], list[str], list[int]]] = []
        self.statements = 0

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.conn, name)

    def execute(self, statement, params=None, **kw):  # noqa: ANN001, ANN201
        self.statements += 1
        if isinstance(statement, str) and statement.startswith("WITH q AS") and "postings" in statement:
            self.walks.append((list(params[0]), list(params[1]), list(params[3])))
        return self.conn.execute(statement, params, **kw)


def _exhaustive(monkeypatch: pytest.MonkeyPatch, store, calls):  # noqa: ANN001, ANN202
    """The same calls with every match re-scored exactly (no walk, a ts_rank cut deeper than the matches)."""
    with monkeypatch.context() as m:
        m.setattr(pg_search, "WALK", False)
        m.setattr(pg_search, "FIRST_CUT", 10**6)
        return [call(store) for call in calls]


@pytest.mark.parametrize("drift", ["longer", "shorter"])
def test_the_walk_gives_the_exact_bm25_top_after_the_average_length_moves(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, drift: str) -> None:
    """Impacts are written at the average length of the first build; pages added later move the average
    (3x longer or shorter pages) and the walk's top still equals the exact BM25 top of every match, with
    column weights 10 : 3 : 1, a second weighting, words given twice, depths 1 to 60."""
    rng = random.Random(11 if drift == "longer" else 12)
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    _pages(b, rng, 0, 60, 20)
    b.commit("first")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    _pages(b, rng, 60, 90, 90 if drift == "longer" else 3)
    b.commit("more")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        rows, avg = store._fts_stats()
        ref = pg_impact.reference(store.conn)
        assert (avg / ref > 1.5) if drift == "longer" else (avg / ref < 0.8), (avg, ref)
        sel = store.select(("public",), Filters())
        queries = [[rng.choice(VOCAB) for _ in range(rng.randint(1, 5))] for _ in range(36)]
        queries += [["aurora", "aurora", "comet"], ["aurora", "nowhere"], ["nowhere"]]
        calls = []
        for i, terms in enumerate(queries):
            depth = (1, 5, 20, 60)[i % 4]
            calls.append(lambda s, t=terms, d=depth: s.lexical(t, sel, (10.0, 3.0, 1.0), d))
            calls.append(lambda s, t=terms, d=depth: s.lexical_both(t, sel, (1.0, 1.0, 1.0), (10.0, 3.0, 1.0), d))
        walked = [call(store) for call in calls]
        exact = _exhaustive(monkeypatch, store, calls)
    finally:
        store.close()
    for got, want in zip(walked, exact, strict=True):
        assert [r[:2] for r in got] == [r[:2] for r in want]
        assert [tuple(round(x, 9) for x in r[2:]) for r in got] == [tuple(round(x, 9) for x in r[2:]) for r in want]


def test_the_walk_settles_without_reading_every_posting(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """Where the best fragments stand out (a word many times in a few short fragments, once in long ones),
    the first round settles: one statement, far fewer postings read than the list holds, at depth 4 and 40."""
    rng = random.Random(8)
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    _pages(b, rng, 0, 80, 60)
    for i in range(4):
        b.wiki("note", f"Lantern {i}", "lantern " * (6 + i) + "\n")
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        watched = _Watched(store.conn)
        store.conn = watched
        rows = store.lexical(["lantern"], store.select(("public",), Filters()), (1.0, 1.0, 1.0), 4)
        deeper = store.lexical(["lantern"], store.select(("public",), Filters()), (1.0, 1.0, 1.0), 40)
        store.conn = watched.conn
        held = store.conn.execute("SELECT count(*) FROM postings WHERE lexeme = 'lantern'").fetchone()[0]
        titles = [store.conn.execute("SELECT p.title FROM fragments f JOIN pages p ON p.id = f.page WHERE f.id = %s",
                                     (r[0],)).fetchone()[0] for r in rows]
    finally:
        store.close()
    assert sorted(titles) == [f"Lantern {i}" for i in range(4)]
    # A lone lexeme's first round reads past the depth (40 -> 50 postings) and settles there too.
    assert [w[2] for w in watched.walks] == [[16], [50]] and held > 60 and len(deeper) == 40


def test_a_walk_that_splits_runs_two_statements(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """A question of several words whose first round does not settle: the version, the document
    frequencies and the walk's two rounds, nothing else (the lists' highest impacts come back with the first
    round, and the version read for the statistics serves the walk)."""
    rng = random.Random(4)
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    _pages(b, rng, 0, 60, 20)
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        sel = store.select(("public",), Filters())
        store.lexical(["aurora", "comet", "heron"], sel, (1.0, 1.0, 1.0), 40)  # statistics read once
        watched = _Watched(store.conn)
        store.conn = watched
        rows = store.lexical(["aurora", "comet", "heron"], sel, (1.0, 1.0, 1.0), 40)
        store.conn = watched.conn
    finally:
        store.close()
    assert len(rows) == 40 and len(watched.walks) == 2 and watched.statements == 4


def test_a_restricted_layers_fragments_never_enter_the_walk(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """A reader without the `secret` layer: the walk reads only the reader's layers' lists, and every posting
    carries its fragment's layer, so no secret fragment is met, though the secret pages would top the list
    (their text is the query's words over and over); before and after a page swap that rewrites a secret
    page and moves a public one into the layer. The reader with the layer gets the secret pages first."""
    rng = random.Random(5)
    b = RepoBuilder(tmp_path / "w", layers={"secret": [BOSS]}, env=pg_env)
    _pages(b, rng, 0, 40, 30)
    for i in range(3):
        b.wiki("note", f"Secret {i}", "aurora comet " * 40 + "\n", layer="secret")
    b.wiki("note", "Moving", "aurora comet " * 30 + "\n")
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())

    def check(moved: bool) -> None:
        store = open_index(index_location(Layout(b.root), b.settings))
        try:
            secret = {r[0] for r in store.conn.execute("SELECT id FROM fts WHERE layer = 'secret'")}
            moving = {r[0] for r in store.conn.execute(
                "SELECT f.id FROM fragments f JOIN pages p ON p.id = f.page WHERE p.path LIKE '%%Moving.md'")}
            assert secret and moving and (moving <= secret) == moved
            watched = _Watched(store.conn)
            store.conn = watched
            top: list[int] = []
            for terms in (["aurora", "comet"], ["aurora"], ["comet", "heron", "kelp"]):
                for depth in (1, 10, 100):
                    rows = store.lexical(terms, store.select(("public",), Filters()), (1.0, 1.0, 1.0), depth)
                    assert not {r[0] for r in rows} & secret
                    top += [r[0] for r in rows[:1]]
            store.conn = watched.conn
            assert watched.walks and all(set(layers) == {"public"} for _, layers, _ in watched.walks)
            assert (set(top) & moving) == (set() if moved else set(top) & moving) and (moved or set(top) & moving)
            assert store.conn.execute("SELECT count(*) FROM postings s JOIN fts t ON t.id = s.id "
                                      "WHERE s.layer != t.layer").fetchone()[0] == 0
            assert {r[0] for r in store.conn.execute("SELECT DISTINCT id FROM postings WHERE layer = 'secret'")} == secret
            boss = store.lexical(["aurora", "comet"], store.select(("public", "secret"), Filters()), (1.0, 1.0, 1.0), 3)
            assert {r[0] for r in boss} <= secret
        finally:
            store.close()

    check(moved=False)
    b.wiki("note", "Secret 0", "aurora comet heron kelp " * 50 + "\n", layer="secret")
    git(b.root, "rm", "-q", "wiki/notes/Moving.md")
    b.wiki("note", "Moving", "aurora comet " * 30 + "\n", layer="secret")
    b.commit("swap")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    check(moved=True)


def test_a_deleted_page_leaves_no_postings(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """Deleting a page removes its postings with its rows; after any update the postings are exactly one
    per (lexeme, fragment) of the full text."""
    rng = random.Random(9)
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    _pages(b, rng, 0, 20, 20)
    b.wiki("note", "Doomed", "glacier fjord " * 20 + "\n")
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    doomed = [r[0] for r in _psql(url, schema, "SELECT f.id FROM fragments f JOIN pages p ON p.id = f.page "
                                                "WHERE p.path = 'wiki/notes/Doomed.md'")]
    assert doomed and _psql(url, schema, f"SELECT count(*) FROM postings WHERE id IN ({','.join(map(str, doomed))})")[0][0] > 0
    git(b.root, "rm", "-q", "wiki/notes/Doomed.md")
    b.commit("delete")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    assert _psql(url, schema, f"SELECT count(*) FROM postings WHERE id IN ({','.join(map(str, doomed))})") == [(0,)]
    assert _psql(url, schema, "SELECT count(*) FROM postings") == _psql(url, schema,
                                                                       "SELECT count(*) FROM fts, unnest(fts.tsv)")
    assert _psql(url, schema, "SELECT count(*) FROM postings s LEFT JOIN fts t ON t.id = s.id "
                              "WHERE t.id IS NULL") == [(0,)]


def _before_the_postings(url: str, schema: str) -> None:
    """Set a schema back to the version before the postings, as that version left it (no table, no R)."""
    version = MIGRATIONS.index(pg_impact.MIGRATION)
    _psql(url, schema, f"DROP TABLE postings; DELETE FROM meta WHERE key = 'impact_avg'; "
                       f"UPDATE schema_version SET version = {version}")


def test_the_migration_backfills_an_existing_schema(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """A schema at the version before the postings (its full text there, no postings) gets them from its
    migration: the same rows, and the same reference length, as the page writes make."""
    rng = random.Random(3)
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    _pages(b, rng, 0, 30, 25)
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    written = sorted(_psql(url, schema, "SELECT lexeme, layer, impact, id FROM postings"))
    ref = _psql(url, schema, "SELECT value FROM meta WHERE key = 'impact_avg'")
    _before_the_postings(url, schema)
    store = open_index(index_location(Layout(b.root), b.settings))
    store.close()
    assert _psql(url, schema, "SELECT version FROM schema_version") == [(len(MIGRATIONS),)]
    assert _psql(url, schema, "SELECT value FROM meta WHERE key = 'impact_avg'") == ref
    assert sorted(_psql(url, schema, "SELECT lexeme, layer, impact, id FROM postings")) == written
    assert len(written) > 300


def test_page_swaps_keep_the_postings_exact_after_a_backfill(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """Page swaps on a schema whose postings and R came from the migration's backfill (R read back from its
    text): after pages are rewritten, added in another layer and deleted, the postings are exactly one per
    (lexeme, fragment) of the full text, in its fragment's layer, none left behind."""
    rng = random.Random(21)
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    _pages(b, rng, 0, 30, 25)
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    _before_the_postings(url, schema)
    open_index(index_location(Layout(b.root), b.settings)).close()
    before = _psql(url, schema, "SELECT count(*) FROM postings")[0][0]
    notes = sorted((b.root / "wiki" / "notes").iterdir())
    for i, page in enumerate(notes[:6]):
        page.write_text(page.read_text() + f"\nRevision {i}: heron kelp lantern {'meadow ' * i}.\n")
    git(b.root, "rm", "-q", str(notes[6].relative_to(b.root)))
    _pages(b, rng, 100, 2, 25, layer="secret")
    b.commit("swap")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    after = _psql(url, schema, "SELECT count(*) FROM postings")[0][0]
    assert after != before and after == _psql(url, schema, "SELECT count(*) FROM fts, unnest(fts.tsv)")[0][0]
    assert _psql(url, schema, "SELECT count(*) FROM postings s LEFT JOIN fts t ON t.id = s.id "
                              "WHERE t.id IS NULL OR t.layer <> s.layer") == [(0,)]
