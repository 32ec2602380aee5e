"""What a long-lived session holds of the shared index (stigmergy/index/store/pg_postings.py and
pg_held.py) on a real PostgreSQL: the lexical cut counted in process equals the exact BM25 top of
every match, for every layer set; a hold that is not the database's is caught by the SQL check and
answers nothing outside the reader's layers; a write moves the generation and what is held with it; a
list whose counts do not come out whole is not used; held page vectors follow the generation."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from test_index_support import HashEmbedder, RepoBuilder
from test_shared_index import _psql
from test_shared_index_walk import VOCAB, _exhaustive, _pages, _Watched

from stigmergy.index.build import build_index
from stigmergy.index.store import index_location, open_index, pg_fill, pg_held, pg_postings
from stigmergy.index.store.background import Readers
from stigmergy.index.store.protocol import Filters
from stigmergy.repo.layout import Layout

BOSS = "boss@example.com"
CANARY = "pangolin"


@pytest.fixture(autouse=True)
def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold any index, however small (the floor keeps the walk for small ones), and start each test bare."""
    monkeypatch.setattr(pg_postings, "MIN_ROWS", 0)
    monkeypatch.setattr(pg_postings, "_HELD", {})
    monkeypatch.setattr(pg_postings, "_PRELOADS", Readers("stigmergy-pg-lists"))
    monkeypatch.setattr(pg_postings, "_SINCE", {})
    monkeypatch.setattr(pg_held, "_HELD", {})
    monkeypatch.setattr(pg_held, "_WHOLE", {})
    monkeypatch.setattr(pg_fill, "_STARTED", {})
    monkeypatch.setattr(pg_fill, "_READERS", Readers("stigmergy-pg-rows"))


def _wiki(tmp_path: Path, pg_env: dict[str, str], seed: int) -> RepoBuilder:
    """Public pages of the shared vocabulary, built twice (the average length moves away from the one the
    impacts were written at), and secret pages that hold the best matches of `CANARY` and of common words."""
    rng = random.Random(seed)
    b = RepoBuilder(tmp_path / "w", layers={"secret": [BOSS]}, env=pg_env)
    _pages(b, rng, 0, 50, 20)
    b.commit("first")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    _pages(b, rng, 50, 60, 60)
    for i in range(6):
        b.wiki("note", f"Board {i}", f"{CANARY} aurora aurora comet {CANARY}.\n", layer="secret")
    b.commit("more")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _warm(b: RepoBuilder):  # noqa: ANN202
    store = open_index(index_location(Layout(b.root), b.settings))
    store.keep_warm()
    return store


def test_the_held_cut_is_the_exact_bm25_top_for_every_layer_set(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Words, words given twice, a word no page has, depths 1 to 400, for a reader of the public layer and
    one of both: rows equal to the exact top of every match (scores to 1e-9), the walk never asked, and
    the public reader never shown a secret fragment."""
    b = _wiki(tmp_path, pg_env, 21)
    rng = random.Random(5)
    store = _warm(b)
    try:
        queries = [[rng.choice(VOCAB) for _ in range(rng.randint(1, 5))] for _ in range(30)]
        queries += [["aurora", "aurora", "comet"], ["aurora", "nowhere"], ["nowhere"], [CANARY], [CANARY, "aurora"]]
        calls = []
        for layers in (("public",), ("public", "secret")):
            sel = store.select(layers, Filters())
            for i, terms in enumerate(queries):
                depth = (1, 5, 20, 60, 400)[i % 5]
                calls.append(lambda s, t=terms, d=depth, x=sel: s.lexical(t, x, (1.0, 1.0, 1.0), d))
        watched = _Watched(store.conn)
        store.conn = watched
        held = [call(store) for call in calls]
        store.conn = watched.conn
        assert watched.walks == []  # every cut counted in process
        exact = _exhaustive(monkeypatch, store, calls)
        secret = {r[0] for r in _psql(pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"],
                                      "SELECT id FROM fragments WHERE layer = 'secret'")}
    finally:
        store.close()
    assert any(held), "the queries found nothing"
    for got, want in zip(held, exact, strict=True):
        assert [r[:2] for r in got] == [r[:2] for r in want]
        assert [round(r[2], 9) for r in got] == [round(r[2], 9) for r in want]
    public = held[:len(held) // 2]
    assert not {r[0] for rows in public for r in rows} & secret
    assert {r[0] for rows in held[len(held) // 2:] for r in rows} & secret  # the boss does see them


def test_a_hold_that_is_not_the_database_is_dropped_and_shows_nothing_outside_the_layers(
        tmp_path: Path, pg_env: dict[str, str]) -> None:
    """The held layers damaged so that every fragment looks public: the public reader's cut still has no
    secret fragment (the SQL check refuses the rows, the hold is dropped, the walk answers)."""
    b = _wiki(tmp_path, pg_env, 22)
    store = _warm(b)
    try:
        sel = store.select(("public",), Filters())
        before = store.lexical([CANARY, "aurora"], sel, (1.0, 1.0, 1.0), 50)
        (held,) = pg_postings._HELD.values()
        held.layer[:] = held.codes["public"]
        held.masks.clear()
        after = store.lexical([CANARY, "aurora"], sel, (1.0, 1.0, 1.0), 50)
        dropped = not pg_postings._HELD
        secret = {r[0] for r in store.conn.execute("SELECT id FROM fragments WHERE layer = 'secret'")}
    finally:
        store.close()
    assert dropped
    assert after == before
    assert not {r[0] for r in after} & secret


def test_a_write_moves_the_generation_and_the_new_page_is_found(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """A page written by another process after the lists were read: the next search reads them again."""
    b = _wiki(tmp_path, pg_env, 23)
    store = _warm(b)
    try:
        sel = store.select(("public",), Filters())
        first = store.lexical(["aurora", "zeppelin"], sel, (1.0, 1.0, 1.0), 5)
        generation = store.version()
        b.wiki("note", "Zeppelin", "zeppelin aurora zeppelin.\n")
        b.commit("zeppelin")
        build_index(b.root, b.settings, embedder=HashEmbedder())
        sel = store.select(("public",), Filters())  # the next search begins, as every search does, here
        second = store.lexical(["aurora", "zeppelin"], sel, (1.0, 1.0, 1.0), 5)
        title = store.conn.execute("SELECT p.title FROM fragments f JOIN pages p ON p.id = f.page WHERE f.id = %s",
                                   (second[0][0],)).fetchone()[0]
        (held,) = pg_postings._HELD.values()
    finally:
        store.close()
    assert held.key > generation
    assert title == "Zeppelin" and first[0][0] != second[0][0]


@pytest.mark.parametrize("damage", ["impact", "df"])
def test_a_list_that_does_not_come_out_whole_is_not_used(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    """Impacts raised by a fifth (counts no longer whole) or a document frequency that is not the list's
    length: the list is refused, the walk answers, and the answer is still the exact top."""
    b = _wiki(tmp_path, pg_env, 24)
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    if damage == "impact":  # raised impacts keep the walk's bound an upper bound: it stays exact
        _psql(url, schema, "UPDATE postings SET impact = least(impact * 1.2, 0.99) WHERE lexeme = 'aurora'")
    else:
        _psql(url, schema, "UPDATE terms SET df = df + 1 WHERE term = 'aurora'")
    store = _warm(b)
    try:
        sel = store.select(("public",), Filters())
        calls = [lambda s, d=d: s.lexical(["aurora", "comet"], sel, (1.0, 1.0, 1.0), d) for d in (3, 30)]
        watched = _Watched(store.conn)
        store.conn = watched
        got = [call(store) for call in calls]
        store.conn = watched.conn
        exact = _exhaustive(monkeypatch, store, calls)
    finally:
        store.close()
    assert watched.walks, "the damaged list was used"
    for rows, want in zip(got, exact, strict=True):
        assert [r[:2] for r in rows] == [r[:2] for r in want]


@pytest.mark.parametrize("room", ["all", "none"])
def test_every_list_is_read_ahead_and_answers_as_the_lists_read_by_word(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, room: str) -> None:
    """The first warm search starts reading every list ahead: once done, no search reads a list by word
    and every cut is still the exact BM25 top, for both readers; with more postings than PRELOAD_MAX
    nothing is read ahead and the lists are read by word as before."""
    if room == "none":
        monkeypatch.setattr(pg_postings, "PRELOAD_MAX", 10)
    b = _wiki(tmp_path, pg_env, 27)
    rng = random.Random(8)
    store = _warm(b)
    reads: list[str] = []
    by_word = pg_postings._read
    monkeypatch.setattr(pg_postings, "_read", lambda conn, held, lexeme: (reads.append(lexeme), by_word(conn, held, lexeme))[1])
    try:
        store.lexical(["aurora"], store.select(("public",), Filters()), (1.0, 1.0, 1.0), 5)
        pg_postings.settle()
        reads.clear()
        queries = [[rng.choice(VOCAB) for _ in range(rng.randint(1, 4))] for _ in range(20)] + [[CANARY, "aurora"]]
        calls = [lambda s, t=terms, x=layers, d=(5, 40, 400)[i % 3]: s.lexical(t, s.select(x, Filters()), (1.0, 1.0, 1.0), d)
                 for i, terms in enumerate(queries) for layers in (("public",), ("public", "secret"))]
        watched = _Watched(store.conn)
        store.conn = watched
        held = [call(store) for call in calls]
        store.conn = watched.conn
        exact = _exhaustive(monkeypatch, store, calls)
        (hold,) = pg_postings._HELD.values()
        n_lists = int(store.conn.execute("SELECT count(DISTINCT lexeme) FROM postings").fetchone()[0])
    finally:
        store.close()
    assert watched.walks == []
    for got, want in zip(held, exact, strict=True):
        assert [r[:2] for r in got] == [r[:2] for r in want]
        assert [round(r[2], 9) for r in got] == [round(r[2], 9) for r in want]
    if room == "all":
        assert reads == [] and len(hold.lists.lists) == n_lists
    else:
        assert reads and len(hold.lists.lists) < n_lists


def test_a_generation_after_a_short_one_is_read_ahead_only_once_it_stands(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The first generation a process holds is read ahead at once; one written soon after is read by word
    until it has stood READ_AHEAD_AFTER seconds, and one superseded before then is never read ahead."""
    b = _wiki(tmp_path, pg_env, 28)
    store = _warm(b)

    def write(title: str) -> None:
        b.wiki("note", title, f"{title.lower()} aurora comet.\n")
        b.commit(title)
        build_index(b.root, b.settings, embedder=HashEmbedder())

    def hold_after_search() -> pg_postings._Held:
        store._stats = None  # a new search reads the generation
        store.lexical(["aurora"], store.select(("public",), Filters()), (1.0, 1.0, 1.0), 5)
        (held,) = pg_postings._HELD.values()
        return held

    try:
        monkeypatch.setattr(pg_postings, "READ_AHEAD_AFTER", 600.0)
        first = hold_after_search()
        pg_postings.settle()
        lists = int(store.conn.execute("SELECT count(DISTINCT lexeme) FROM postings").fetchone()[0])
        whole = len(first.lists.lists)
        write("Zeppelin")
        second = hold_after_search()
        (reader,) = pg_postings._PRELOADS.threads.values()
        early = len(second.lists.lists)
        write("Blimp")
        third = hold_after_search()
        reader.join(timeout=10)
        superseded = len(second.lists.lists)
        monkeypatch.setattr(pg_postings, "READ_AHEAD_AFTER", 0.0)  # the third has now stood long enough
        pg_postings.settle()
        stood = len(third.lists.lists)
        lists_now = int(store.conn.execute("SELECT count(DISTINCT lexeme) FROM postings").fetchone()[0])
    finally:
        store.close()
    assert whole == lists
    assert early == 1 and superseded == 1 and not reader.is_alive()  # 'aurora', read by word
    assert stood == lists_now > lists


def test_the_small_rows_read_whole_answer_as_read_by_id_and_follow_the_generation(
        tmp_path: Path, pg_env: dict[str, str]) -> None:
    """Once a warm session has read its pages' facts, lines, citations, stems, names, links and degrees
    whole, each read by id equals a cold session's, an id with no row is absent, and no statement runs; a
    write moves the generation and the next read is the database's again."""
    b = _wiki(tmp_path, pg_env, 29)
    warm, cold = _warm(b), open_index(index_location(Layout(b.root), b.settings))

    def reads(store, pages: list[int], frags: list[int]) -> list[object]:  # noqa: ANN001
        return [store.page_infos(pages), store.hubs(pages), store.fragment_rows(frags), store.stems_and_titles(pages),
                store.names_of(pages), sorted(store.links_from(pages)), store.out_degrees(pages),
                store.citations_of(pages)]

    try:
        pages = [r[0] for r in cold.conn.execute("SELECT id FROM pages ORDER BY id")] + [10**9]
        frags = [r[0] for r in cold.conn.execute("SELECT id FROM fragments ORDER BY id")] + [10**9]
        warm.select(("public",), Filters())
        warm.page_infos(pages[:1])  # starts the read
        pg_fill.settle()
        watched = _Watched(warm.conn)
        warm.conn = watched
        got = reads(warm, pages, frags)
        warm.conn = watched.conn
        want = reads(cold, pages, frags)
        statements = watched.statements
        b.wiki("note", "Zeppelin", "zeppelin aurora.\n")
        b.commit("zeppelin")
        build_index(b.root, b.settings, embedder=HashEmbedder())
        warm.select(("public",), Filters())
        new = [r[0] for r in cold.conn.execute("SELECT id FROM pages WHERE title = 'Zeppelin'")]
        after = warm.page_infos(new)
    finally:
        warm.close()
        cold.close()
    assert got == want and got[0] and got[3]
    assert statements == 0
    assert list(after) == new


def test_held_page_vectors_follow_the_generation(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """A warm session's page and fragment vectors equal a cold one's; a vector rewritten in a transaction
    that moves the generation is read again, and a page under the least fragment count is left out."""
    b = _wiki(tmp_path, pg_env, 25)
    warm, cold = _warm(b), open_index(index_location(Layout(b.root), b.settings))
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    try:
        pages = [r[0] for r in cold.conn.execute("SELECT page FROM page_vectors ORDER BY page")]
        frags = [r[0] for r in cold.conn.execute("SELECT id FROM vec ORDER BY id LIMIT 40")]
        fp = cold.meta("fingerprint") or ""
        for _ in range(2):  # the second from what is held
            a, c = warm.page_vectors(pages, 1), cold.page_vectors(pages, 1)
            assert a.keys() == c.keys() and a
            assert all(np.array_equal(a[p][0], c[p][0]) and a[p][2] == c[p][2] for p in a)
            fa, fc = warm.fragment_vectors(frags, fp), cold.fragment_vectors(frags, fp)
            assert fa.keys() == fc.keys() and all(np.array_equal(fa[i], fc[i]) for i in fa)
        page = pages[0]
        _psql(url, schema, "BEGIN; UPDATE page_vectors SET centroid = lead, fragments = fragments + 5 WHERE page = "
                           f"{page}; UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'; COMMIT")
        warm._stats = None  # a new search reads the generation
        moved = warm.page_vectors([page], 1)[page]
        fresh = cold.page_vectors([page], 1)[page]
        floor = warm.page_vectors([page], fresh[2]), warm.page_vectors([page], fresh[2] + 1)  # from what is held
    finally:
        warm.close()
        cold.close()
    assert np.array_equal(moved[0], fresh[0]) and moved[2] == fresh[2]
    assert np.array_equal(moved[0], moved[1])
    assert list(floor[0]) == [page] and floor[1] == {}


def _graph_wiki(tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> RepoBuilder:
    """A wiki whose two layers both get an HNSW graph (the exact-scan floor lowered to 5 vectors)."""
    from stigmergy.index.store import pg_search, postgres

    monkeypatch.setattr(pg_search, "EXACT_SCAN_MAX_ROWS", 5)
    monkeypatch.setattr(postgres, "EXACT_SCAN_MAX_ROWS", 5)
    return _wiki(tmp_path, pg_env, 26)


def _vectors(store, layer: str) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    rows = store.conn.execute("SELECT id, embedding FROM vec WHERE layer = %s ORDER BY id", (layer,),
                              binary=True).fetchall()
    return np.asarray([r[0] for r in rows]), np.asarray([r[1].to_numpy() for r in rows], dtype=np.float32)


def test_held_vectors_answer_as_the_1bit_prefilter_and_exact_rerank_within_the_layers(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the vectors are read, a warm session's vector arm over an HNSW layer gives the prefilter's
    candidates (Hamming distance of the signs, ties by id, computed here independently) reranked by their
    exact cosine distance; a public reader gets no secret fragment; a prefilter as deep as the layer gives
    the exact cosine top; the lexical fragments' vectors come from the hold equal to the statement's."""
    from stigmergy.index.store import pg_nearest

    monkeypatch.setattr(pg_nearest, "_HELD", {})
    monkeypatch.setattr(pg_nearest, "_TRIED", {})
    b = _graph_wiki(tmp_path, pg_env, monkeypatch)
    store, cold = _warm(b), open_index(index_location(Layout(b.root), b.settings))
    try:
        assert {r[0] for r in store.conn.execute("SELECT layer FROM vec_indexes")} == {"public", "secret"}
        ids, mat = _vectors(store, "public")
        secret_ids, secret_mat = _vectors(store, "secret")
        rng = np.random.default_rng(3)
        public = store.select(("public",), Filters())
        store.nearest(mat[0], public, 10, 10, "")  # starts the reader; HNSW answers meanwhile
        pg_nearest.settle()
        fp = store.meta("fingerprint") or ""
        for query in [mat[3] + 0.01 * rng.standard_normal(384).astype(np.float32),
                      rng.standard_normal(384).astype(np.float32)]:
            got = store.nearest(query, store.select(("public",), Filters()), 8, 12, fp)
            ham = (np.unpackbits(np.packbits(mat > 0, axis=1) ^ np.packbits(query > 0)[None, :], axis=1)).sum(axis=1)
            cand = [int(ids[i]) for i in np.lexsort((ids, ham))[:12]]
            cos = {int(i): 1.0 - float(v @ query) / float(np.linalg.norm(v) * np.linalg.norm(query))
                   for i, v in zip(ids, mat, strict=True)}
            want = sorted(cand, key=lambda i: (cos[i], i))[:8]
            assert [r[0] for r in got] == want
            assert all(abs(r[2] - (1.0 - cos[r[0]])) < 1e-5 for r in got)
            deep = store.nearest(query, store.select(("public",), Filters()), 8, len(ids), fp)
            assert [r[0] for r in deep] == sorted(cos, key=lambda i: (cos[i], i))[:8]
        # A secret fragment's own vector: first for the boss, absent for a public reader.
        both = store.nearest(secret_mat[0], store.select(("public", "secret"), Filters()), 5, 20, fp)
        assert both[0][0] in set(secret_ids.tolist())
        assert not {r[0] for r in store.nearest(secret_mat[0], public, 50, 200, fp)} & set(secret_ids.tolist())
        some = ids[:7].tolist()
        held, read = store.fragment_vectors(some, fp), cold.fragment_vectors(some, fp)
        assert held.keys() == read.keys() == set(some)
        assert all(np.array_equal(held[i], read[i]) for i in some)
        # Every page's vectors came with the read: equal to the statement's, a floor applied, none by id.
        pages = [r[0] for r in cold.conn.execute("SELECT id FROM pages ORDER BY id")] + [10**9]
        assert pg_nearest.page_vectors(store.conn, store.schema, store._generation(), pages) is not None
        for least in (1, 2, 10**6):
            pa, pc = store.page_vectors(pages, least), cold.page_vectors(pages, least)
            assert pa.keys() == pc.keys() and (pa or least > 1)
            assert all(np.array_equal(pa[p][0], pc[p][0]) and np.array_equal(pa[p][1], pc[p][1])
                       and pa[p][2] == pc[p][2] for p in pa)
        assert not [k for k in pg_held._HELD if k[2] == "page"]
    finally:
        store.close()
        cold.close()


def test_page_vectors_are_held_only_within_what_the_cap_leaves_after_the_vectors(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The layers' vectors and the page vectors each fit MAX_BYTES, not both: the layers are held, the page
    vectors are not (and are read by id, equal to the statement's)."""
    from stigmergy.index.store import pg_nearest

    monkeypatch.setattr(pg_nearest, "_HELD", {})
    monkeypatch.setattr(pg_nearest, "_TRIED", {})
    b = _graph_wiki(tmp_path, pg_env, monkeypatch)
    store, cold = _warm(b), open_index(index_location(Layout(b.root), b.settings))
    try:
        n_vec = int(store.conn.execute("SELECT count(*) FROM vec WHERE layer IN (SELECT layer FROM vec_indexes)").fetchone()[0])
        n_pages = int(store.conn.execute("SELECT count(*) FROM page_vectors").fetchone()[0])
        # Each fits alone, not both.
        monkeypatch.setattr(pg_nearest, "MAX_BYTES", max(n_vec * (4 * 384 + 56), n_pages * (8 * 384 + 40)) + 100)
        _, mat = _vectors(store, "public")
        store.nearest(mat[0], store.select(("public",), Filters()), 5, 5, "")
        pg_nearest.settle()
        (hold,) = pg_nearest._HELD.values()
        pages = [r[0] for r in cold.conn.execute("SELECT page FROM page_vectors ORDER BY page")]
        pa, pc = store.page_vectors(pages, 1), cold.page_vectors(pages, 1)
    finally:
        store.close()
        cold.close()
    assert hold.layers and hold.pages is None
    assert pa.keys() == pc.keys() and pa and all(np.array_equal(pa[p][0], pc[p][0]) for p in pa)
    assert [k for k in pg_held._HELD if k[2] == "page"]


def test_held_vectors_follow_the_generation(tmp_path: Path, pg_env: dict[str, str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A page written after the vectors were read: the next search is answered by HNSW (the hold is of
    another generation) and starts a new read; once read, the new page's fragment is found from the hold."""
    from stigmergy.index.store import pg_nearest

    monkeypatch.setattr(pg_nearest, "_HELD", {})
    monkeypatch.setattr(pg_nearest, "_TRIED", {})
    b = _graph_wiki(tmp_path, pg_env, monkeypatch)
    store = _warm(b)
    try:
        sel = store.select(("public",), Filters())
        _, mat = _vectors(store, "public")
        store.nearest(mat[0], sel, 5, 5, "")
        pg_nearest.settle()
        first = next(iter(pg_nearest._HELD.values())).generation
        b.wiki("note", "Zeppelin", "zeppelin zeppelin zeppelin.\n")
        b.commit("zeppelin")
        build_index(b.root, b.settings, embedder=HashEmbedder())
        fid = store.conn.execute("SELECT f.id FROM fragments f JOIN pages p ON p.id = f.page "
                                 "WHERE p.title = 'Zeppelin'").fetchone()[0]
        query = store.conn.execute("SELECT embedding FROM vec WHERE id = %s", (fid,), binary=True).fetchone()[0]
        query = query.to_numpy().astype(np.float32)
        sel = store.select(("public",), Filters())
        assert pg_nearest.nearest(store.conn, store.url, store.schema, store._generation(), "public", query, 5) is None
        pg_nearest.settle()
        second = next(iter(pg_nearest._HELD.values())).generation
        got = store.nearest(query, store.select(("public",), Filters()), 5, 5, "")
    finally:
        store.close()
    assert second > first
    assert got[0][0] == fid


def test_a_copy_that_is_not_id_and_vector_is_refused() -> None:
    """The binary COPY's rows are checked before a vector is taken from them."""
    from stigmergy.index.store import pg_nearest

    def copy(rows: list[tuple[int, list[float]]], dim: int) -> bytes:
        out = bytearray(b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big"))
        for fid, vec in rows:
            out += (2).to_bytes(2, "big") + (8).to_bytes(4, "big") + fid.to_bytes(8, "big")
            out += (4 + 4 * len(vec)).to_bytes(4, "big") + len(vec).to_bytes(2, "big") + (0).to_bytes(2, "big")
            out += np.asarray(vec, dtype=">f4").tobytes()
        return bytes(out + b"\xff\xff")

    ids, mat = pg_nearest.parse_copy(copy([(7, [1.0, -2.0]), (3, [0.5, 0.25])], 2), 2)
    assert ids.tolist() == [7, 3] and mat.tolist() == [[1.0, -2.0], [0.5, 0.25]]
    with pytest.raises(ValueError):
        pg_nearest.parse_copy(copy([(7, [1.0, -2.0])], 2), 3)  # other dimensions
    with pytest.raises(ValueError):
        pg_nearest.parse_copy(copy([(7, [1.0, -2.0]), (3, [0.5])], 2), 2)  # a row of another width
    with pytest.raises(ValueError):
        pg_nearest.parse_copy(b"not a copy at all", 2)

    def pages(rows: list[tuple[int, list[float], list[float], int]]) -> bytes:
        out = bytearray(b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big"))
        for pid, centroid, lead, n in rows:
            out += (4).to_bytes(2, "big") + (8).to_bytes(4, "big") + pid.to_bytes(8, "big")
            for vec in (centroid, lead):
                out += (4 + 4 * len(vec)).to_bytes(4, "big") + len(vec).to_bytes(2, "big") + (0).to_bytes(2, "big")
                out += np.asarray(vec, dtype=">f4").tobytes()
            out += (4).to_bytes(4, "big") + n.to_bytes(4, "big")
        return bytes(out + b"\xff\xff")

    got = pg_nearest.parse_page_copy(pages([(3, [1.0, 0.0], [0.5, 0.5], 2), (9, [0.0, 1.0], [-1.0, 2.0], 1)]), 2)
    assert got.ids.tolist() == [3, 9] and got.lead.tolist() == [[0.5, 0.5], [-1.0, 2.0]] and got.fragments.tolist() == [2, 1]
    for bad in ([(3, [1.0, 0.0], [0.5], 2)],  # a lead of other dimensions
                [(9, [1.0, 0.0], [0.5, 0.5], 2), (3, [1.0, 0.0], [0.5, 0.5], 2)]):  # not by page
        with pytest.raises(ValueError):
            pg_nearest.parse_page_copy(pages(bad), 2)


def test_a_search_that_began_before_a_write_keeps_the_newer_hold(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """A cut asked at an older generation than the one held is left to the walk, and the hold stays."""
    b = _wiki(tmp_path, pg_env, 27)
    store = _warm(b)
    try:
        sel = store.select(("public",), Filters())
        store.lexical(["aurora"], sel, (1.0, 1.0, 1.0), 5)
        (held,) = pg_postings._HELD.values()
        older = pg_postings.cut(store.conn, store.schema, held.key - 1, {"aurora": 1.0}, 10.0, ["public"], 5)
        kept = list(pg_postings._HELD.values())
    finally:
        store.close()
    assert older is None
    assert kept == [held]


def test_a_vector_read_that_fails_leaves_hnsw_answering_and_is_not_tried_again(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows that do not parse: nothing is held, every search is answered (by HNSW, the same rows as a cold
    session's), and the read is not tried again at the same generation."""
    from stigmergy.index.store import pg_nearest

    monkeypatch.setattr(pg_nearest, "_HELD", {})
    monkeypatch.setattr(pg_nearest, "_TRIED", {})
    b = _graph_wiki(tmp_path, pg_env, monkeypatch)
    reads = []

    def broken(blob: bytes, dim: int):  # noqa: ANN202
        reads.append(dim)
        raise ValueError("a row that is not (id, vector)")

    monkeypatch.setattr(pg_nearest, "parse_copy", broken)
    store, cold = _warm(b), open_index(index_location(Layout(b.root), b.settings))
    try:
        _, mat = _vectors(store, "public")
        answers = []
        for i in range(3):
            answers.append(store.nearest(mat[i], store.select(("public",), Filters()), 5, 5, ""))
            pg_nearest.settle()
        want = [cold.nearest(mat[i], cold.select(("public",), Filters()), 5, 5, "") for i in range(3)]
    finally:
        store.close()
        cold.close()
    assert len(reads) == 1 and not pg_nearest._HELD
    assert [[r[0] for r in a] for a in answers] == [[r[0] for r in w] for w in want]


def test_a_new_graph_or_dropped_vectors_move_the_generation(tmp_path: Path, pg_env: dict[str, str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes outside a page transaction that change how a layer is searched move the generation too, so
    that a warm session does not keep vectors or graphs that are gone."""
    from stigmergy.index.store import pg_search, postgres

    b = _wiki(tmp_path, pg_env, 28)
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        before = store.version()
        monkeypatch.setattr(pg_search, "EXACT_SCAN_MAX_ROWS", 5)
        monkeypatch.setattr(postgres, "EXACT_SCAN_MAX_ROWS", 5)
        store.analyze(False)  # builds the graphs the lowered floor now calls for
        graphs = store.version()
        store.drop_layer_vectors("secret")
        dropped = store.version()
    finally:
        store.close()
    assert before < graphs < dropped
