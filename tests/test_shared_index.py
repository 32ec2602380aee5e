"""The shared index on a real PostgreSQL with pgvector (tests/servers.py, one server per session): schema
migrations and the refusal of a newer schema, the wiki it belongs to, many writers at once, a page's rows
swapped in one transaction, a clone behind the shared index, and a fresh clone that answers at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, git, run_cli
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.errors import ConfigError, StigmergyError
from stigmergy.index.build import SharedIndexAheadError, build_index
from stigmergy.index.freshness import tree_pages
from stigmergy.index.store import index_location, open_index
from stigmergy.index.store.pg_schema import MIGRATIONS, IndexTooNewError
from stigmergy.repo.git import Git
from stigmergy.repo.layout import Layout
from stigmergy.service import Identity, WikiService
from stigmergy.settings import load_settings

BOSS = "boss@example.com"
OUTSIDER = "intern@example.com"
CANARY = "PANGOLINQUASAR"


def _wiki(root: Path, env: dict[str, str], pages: int = 3) -> RepoBuilder:
    b = RepoBuilder(root, layers={"secret": [BOSS]}, env=env)
    for i in range(pages):
        b.wiki("note", f"Note {i}", f"Aurora shipped widget {i} to Acme in week {i}.\n")
    b.wiki("note", "Secret plan", f"{CANARY} is the plan.\n", layer="secret")
    b.commit("seed")
    return b


def _clone(src: Path, dest: Path, env: dict[str, str]) -> RepoBuilder:
    git(src.parent, "clone", "-q", str(src), str(dest))
    return RepoBuilder(dest, layers={"secret": [BOSS]}, env=env)


def _psql(url: str, schema: str, statement: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}", public')
        cur = conn.execute(statement)
        return cur.fetchall() if cur.description else []


def _consistent(b: RepoBuilder, commit: str) -> None:
    """The shared index holds exactly `commit`'s pages, each fragment once, with its full text and vector."""
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        assert store.meta("commit") == commit
        assert store.page_shas() == tree_pages(Git(b.root), commit)
        counts = store.integrity(store.meta("fingerprint") or "")
        assert counts.fragments == counts.fulltext_rows == sum(lv.vectors for lv in counts.layers)
        assert counts.fragments_without_vector == 0
    finally:
        store.close()
    url, schema = b.env["STIGMERGY_INDEX__URL"], b.env["STIGMERGY_INDEX__SCHEMA"]
    assert _psql(url, schema, "SELECT p.path FROM pages p WHERE p.n_fragments != "
                              "(SELECT count(*) FROM fragments f WHERE f.page = p.id)") == []
    assert _psql(url, schema, "SELECT page, seq FROM fragments GROUP BY page, seq HAVING count(*) > 1") == []


def test_the_schema_is_migrated_and_a_newer_one_refused_in_one_line(tmp_path: Path, pg_env: dict[str, str]) -> None:
    b = _wiki(tmp_path / "w", pg_env)
    build_index(b.root, b.settings, embedder=HashEmbedder())
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    assert _psql(url, schema, "SELECT version FROM schema_version") == [(len(MIGRATIONS),)]
    _psql(url, schema, f"UPDATE schema_version SET version = {len(MIGRATIONS) + 1}")
    with pytest.raises(IndexTooNewError, match="newer than this stigmergy"):
        open_index(index_location(Layout(b.root), b.settings))
    before = _psql(url, schema, "SELECT count(*) FROM pages")
    for args in (["search", "Aurora"], ["index"], ["status", "--json"]):
        code, out, err = run_cli(args, b.root, env=pg_env)
        if args[0] == "status":
            assert code == 0 and "newer than this stigmergy" in json.loads(out)["index"]["error"]
        else:
            assert code == 1 and err.startswith("error: the shared index (schema ") and "newer than" in err
            assert len([line for line in err.splitlines() if line.startswith("error:")]) == 1
    assert _psql(url, schema, "SELECT count(*) FROM pages") == before  # nothing written


def test_the_connection_string_is_the_users_and_another_wiki_is_refused(tmp_path: Path, pg_env: dict[str, str]) -> None:
    b = _wiki(tmp_path / "w", pg_env)
    (b.root / "stigmergy.toml").write_text((b.root / "stigmergy.toml").read_text()
                                           + f'[index]\nbackend = "postgres"\nurl = "{pg_env["STIGMERGY_INDEX__URL"]}"\n')
    with pytest.raises(ConfigError, match=r"index.url may not be set by the repository"):
        load_settings(b.root)
    git(b.root, "checkout", "-q", "stigmergy.toml")
    # The repository may choose the backend; without the user's connection string it says what to set.
    with pytest.raises(ConfigError, match="no connection string"):
        index_location(Layout(b.root), load_settings(b.root, {"STIGMERGY_INDEX__BACKEND": "postgres"}))
    build_index(b.root, b.settings, embedder=HashEmbedder())
    other = _wiki(tmp_path / "other", pg_env, pages=4)  # another repository (another root commit), same schema
    with pytest.raises(StigmergyError, match="holds another wiki"):
        build_index(other.root, other.settings, embedder=HashEmbedder())
    code, _, err = run_cli(["search", "Aurora"], other.root, env=pg_env)
    assert code == 1 and "holds another wiki" in err and "set index.schema" in err


def test_many_writers_at_once_lose_and_duplicate_nothing(tmp_path: Path, pg_env: dict[str, str]) -> None:
    origin = _wiki(tmp_path / "origin", pg_env, pages=12)
    commits = [git(origin.root, "rev-parse", "HEAD").strip()]
    for n in range(2):
        origin.wiki("note", f"Note {n}", f"Aurora shipped widget {n} twice, revision {n}.\n")
        origin.wiki("note", f"Added {n}", f"A page added in revision {n}.\n")
        (origin.root / "wiki/notes/Note 11.md").unlink(missing_ok=True)
        commits.append(origin.commit(f"revision {n}"))
    clones = []
    for i, commit in enumerate([commits[0], commits[1], commits[2], commits[2]]):
        c = _clone(origin.root, tmp_path / f"clone{i}", pg_env)
        git(c.root, "checkout", "-q", commit)
        clones.append(c)
    script = ("import sys; sys.path.insert(0, sys.argv[2]); from pathlib import Path; import os; "
              "from test_index_support import HashEmbedder; from stigmergy.index.build import build_index; "
              "from stigmergy.settings import load_settings; r = Path(sys.argv[1]); "
              "print(build_index(r, load_settings(r, dict(os.environ)), embedder=HashEmbedder()))")
    env = {**os.environ, **pg_env}
    procs = [subprocess.Popen([sys.executable, "-c", script, str(c.root), str(REPO_ROOT / "tests")], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in clones]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-800:] for o in outs]
    # Whatever order the lock gave them: the newest commit wins, the clones behind it wrote nothing.
    _consistent(clones[2], commits[2])
    assert sum("ahead of this clone" in o[0] for o in outs) + sum("already reflects" in o[0] for o in outs) >= 1


def test_a_page_swap_is_one_transaction(tmp_path: Path, pg_env: dict[str, str]) -> None:
    b = _wiki(tmp_path / "w", pg_env)
    build_index(b.root, b.settings, embedder=HashEmbedder())
    b.wiki("note", "Note 0", "Aurora shipped widget 0 again, a new text.\n")
    b.wiki("note", "Fresh page", "Something new.\n")
    b.commit("edit")
    seen = {}

    def pause(point: str) -> None:
        if point == "index-swap":  # every row written, not yet committed: another reader sees the old index
            other = open_index(index_location(Layout(b.root), b.settings))
            try:
                seen["pages"] = sorted(other.page_shas())
            finally:
                other.close()

    report = build_index(b.root, b.settings, embedder=HashEmbedder(), pause=pause)
    assert report.pages_indexed == 2 and "wiki/notes/Fresh page.md" not in seen["pages"]
    _consistent(b, git(b.root, "rev-parse", "HEAD").strip())


def test_a_clone_behind_is_told_which_pages_differ_and_writes_nothing(tmp_path: Path, pg_env: dict[str, str]) -> None:
    origin = _wiki(tmp_path / "origin", pg_env)
    behind = _clone(origin.root, tmp_path / "behind", pg_env)
    origin.wiki("note", "Note 1", "Aurora shipped widget 1 late.\n")
    origin.wiki("note", "Secret plan", f"{CANARY} is the plan, version 2.\n", layer="secret")
    head = origin.commit("ahead")
    build_index(origin.root, origin.settings, embedder=HashEmbedder())
    for reader, changed in ((OUTSIDER, ["wiki/notes/Note 1.md"]),
                            (BOSS, ["layers/secret/wiki/notes/Secret plan.md", "wiki/notes/Note 1.md"])):
        service = WikiService(behind.root, behind.settings, Identity(reader), {}, embedder=HashEmbedder())
        try:
            fresh = service.search("Aurora widget").index
        finally:
            service.close()
        assert fresh.ahead and not fresh.stale and fresh.commit == head and list(fresh.changed) == changed
    report = build_index(behind.root, behind.settings, embedder=HashEmbedder())
    assert report.pages_indexed == 0 and "ahead of this clone" in (report.note or "")
    code, out, err = run_cli(["index"], behind.root, env=pg_env)
    assert code == 0 and "ahead of this clone" in out
    _consistent(origin, head)
    # A clone that has the indexed commit but went another way (diverged) is refused, unless it rebuilds.
    behind.wiki("note", "Local only", "A page this clone never pushed.\n")
    behind.commit("local")
    git(behind.root, "fetch", "-q", "origin")
    with pytest.raises(SharedIndexAheadError, match="has diverged from"):
        build_index(behind.root, behind.settings, embedder=HashEmbedder())
    # The server's hook after a push writes what it has: the pushed history is the shared one.
    build_index(behind.root, behind.settings, embedder=HashEmbedder(), from_push=True)
    _consistent(behind, git(behind.root, "rev-parse", "HEAD").strip())


def test_a_fresh_clone_answers_at_once_without_embedding_the_wiki(tmp_path: Path, pg_env: dict[str, str]) -> None:
    from test_mcp import READ_TOOLS

    origin = _wiki(tmp_path / "origin", pg_env)
    build_index(origin.root, origin.settings, embedder=HashEmbedder())
    fresh = _clone(origin.root, tmp_path / "fresh", pg_env)
    assert not (fresh.root / ".stigmergy").exists()
    embedder = HashEmbedder()
    service = WikiService(fresh.root, fresh.settings, Identity(OUTSIDER), {}, embedder=embedder)
    try:
        hits = service.search("Aurora widget Acme").hits
        page = service.read(["wiki/notes/Note 1.md"])["pages"][0]
        answer = service.ask("What did Aurora ship to Acme?")
        hidden = service.search(CANARY, k=20)
    finally:
        service.close()
    assert hits and hits[0].path.startswith("wiki/notes/Note ") and "widget 1" in page["content"]
    assert answer["index"]["stale"] is False and CANARY not in json.dumps(answer)
    assert all(not h.path.startswith("layers/") for h in hidden.hits)
    assert embedder.texts <= 3  # only the questions were embedded, never a page
    assert not (fresh.root / ".stigmergy" / "index.sqlite").exists()
    # The agents' interface, in process through the SDK's client.
    import anyio
    from mcp import Client

    from stigmergy.mcp.server import build_server
    from stigmergy.mcp.tools import Session

    session = Session(WikiService(fresh.root, fresh.settings, Identity(OUTSIDER), {}, embedder=HashEmbedder()))

    async def main() -> tuple:
        async with Client(build_server(session)) as client:
            return await client.list_tools(), await client.call_tool("search", {"query": "Aurora widget"})

    try:
        tools, found = anyio.run(main)
    finally:
        session.close()
    assert sorted(t.name for t in tools.tools) == READ_TOOLS and found.structured_content["hits"]


def test_a_clones_commit_hook_leaves_the_shared_index_to_the_push(tmp_path: Path, pg_env: dict[str, str]) -> None:
    b = _wiki(tmp_path / "w", pg_env)
    service = WikiService(b.root, b.settings, Identity(OUTSIDER), {}, embedder=HashEmbedder())
    try:
        assert service.index_hook() == 0  # a clone's post-commit: nothing written
    finally:
        service.close()
    assert not index_location(Layout(b.root), b.settings).exists()


def _rows(b: RepoBuilder) -> dict[str, list[tuple]]:
    """Every row a page write produces, keyed by path (ids differ between builds)."""
    url, schema = b.env["STIGMERGY_INDEX__URL"], b.env["STIGMERGY_INDEX__SCHEMA"]
    q = {
        "pages": "SELECT path, stem, layer, type, title, page_id, blob_sha, meta, n_fragments, n_claims, n_cited "
                 "FROM pages ORDER BY path",
        "fragments": "SELECT p.path, f.seq, f.layer, f.trail, f.start_line, f.end_line, f.hash, f.body, t.ntok, "
                     "t.tsv::text, v.embedding::text FROM fragments f JOIN pages p ON p.id = f.page "
                     "JOIN fts t ON t.id = f.id JOIN vec v ON v.id = f.id ORDER BY p.path, f.seq",
        "terms": "SELECT term, df FROM terms WHERE df > 0 ORDER BY term",
        "names": "SELECT e.name, p.path, e.kind FROM entity_names e JOIN pages p ON p.id = e.page ORDER BY 1, 2",
        "entities": "SELECT p.path, e.entity FROM page_entities e JOIN pages p ON p.id = e.page ORDER BY 1, 2",
        "links": "SELECT p.path, l.target, l.line FROM links l JOIN pages p ON p.id = l.src ORDER BY 1, 2, 3",
        "citations": "SELECT p.path, c.line, c.source_path, c.capture_id, c.start_line, c.end_line FROM citations c "
                     "JOIN pages p ON p.id = c.src ORDER BY 1, 2, 3",
        "contradictions": "SELECT p.path, c.con_id, c.status FROM contradictions c JOIN pages p ON p.id = c.page "
                          "ORDER BY 1, 2",
        "page_vectors": "SELECT p.path, v.fragments FROM page_vectors v JOIN pages p ON p.id = v.page ORDER BY 1",
    }
    return {name: _psql(url, schema, sql) for name, sql in q.items()}


def test_batched_page_writes_equal_page_by_page_ones_and_updates_equal_a_rebuild(
        tmp_path: Path, pg_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The batched writes (pg_write.py): one chunk, a chunk per page, and an incremental update after edits
    and deletions all leave exactly the rows (and document frequencies) a rebuild writes."""
    from test_index_support import cite

    from stigmergy.index.store import pg_write

    b = _wiki(tmp_path / "w", pg_env, pages=6)
    src = b.source("Acme memo", "Acme ordered ninety widgets.\n\nAurora shipped them in March.\n")
    b.wiki("entity", "Acme", "Acme buys widgets " + cite("wiki/entities/Acme.md", src, 1) + "\n",
           aliases=("Acme Corp", "ACME Inc"), entities=("Aurora",))
    b.wiki("note", "Links", "See [[Acme]] and [[Note 1]] and [[Nowhere]].\n\n## Straße café\n\nNaïve résumé 東京 "
           "text.\n", entities=("Acme",))
    b.commit("more")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    one_chunk = _rows(b)
    assert one_chunk["citations"] and one_chunk["names"] and one_chunk["links"] and one_chunk["entities"]
    monkeypatch.setattr(pg_write, "CHUNK_FRAGMENTS", 1)
    monkeypatch.setattr(pg_write, "CHUNK_TERMS", 3)
    build_index(b.root, b.settings, embedder=HashEmbedder(), rebuild=True)
    assert _rows(b) == one_chunk
    # An update: edits, a new page, a deleted one; then the rebuild of the same commit.
    b.wiki("note", "Note 1", "Aurora shipped widget 1 late, to Acme and Umbrella.\n")
    b.wiki("note", "Fresh", "Umbrella ordered gadgets.\n")
    (b.root / "wiki/notes/Note 2.md").unlink()
    head = b.commit("edits")
    report = build_index(b.root, b.settings, embedder=HashEmbedder())
    assert not report.full and report.pages_indexed == 2 and report.pages_removed == 1
    updated = _rows(b)
    monkeypatch.undo()
    build_index(b.root, b.settings, embedder=HashEmbedder(), rebuild=True)
    assert _rows(b) == updated
    _consistent(b, head)


def test_the_ascii_fast_path_tokenises_as_unicode61_does() -> None:
    """pg_text.tokenize reads ASCII text with one regular expression; it must split and fold exactly as the
    per-character path (unicode61's letters, numbers and private-use characters) that other text takes."""
    import random

    from stigmergy.index.store import pg_text

    def slow(text: str) -> list[str]:  # a non-ASCII token after a space: the per-character path
        return pg_text.tokenize(text + " é")[:-1]

    rng = random.Random(7)
    alphabet = [chr(c) for c in range(128)]
    texts = ["Aurora shipped 90 widgets_to ACME-Corp's v2.1 (running, runs)", "a" * 70 + " xx I/O e-mail@x.org"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(400)]
    for text in texts:
        assert text.isascii() and pg_text.tokenize(text) == slow(text), text


def test_an_ids_literal_is_integers_only() -> None:
    """The lexical and vector checks bind their ids as one `bigint[]` literal: numbers only, never text
    that could close the array and add another element."""
    import numpy as np

    from stigmergy.index.store import pg_text

    assert pg_text.ids_literal([3, np.int64(1), 2]) == "{3,1,2}"
    assert pg_text.ids_literal(i for i in ()) == "{}"
    with pytest.raises(ValueError):
        pg_text.ids_literal(["1},{2"])  # type: ignore[list-item]


def test_a_servers_reads_go_through_its_warm_connection(tmp_path: Path, pg_env: dict[str, str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived service on a shared index reads (`read`, `list`, `describe`) through its warm session's
    connection instead of opening one per call; the answers are those of a command's own connection, and a
    missing page is the same error, the session kept."""
    import stigmergy.index.reads as reads

    b = _wiki(tmp_path / "w", pg_env)
    b.wiki("entity", "Acme", "Acme buys widgets.\n", aliases=("Acme Corp",))
    b.commit("entity")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    opened: list[object] = []
    real_open = reads.open_index
    monkeypatch.setattr(reads, "open_index", lambda *a, **k: opened.append(a) or real_open(*a, **k))

    def answers(service: WikiService) -> list:
        try:
            out = [service.read(["wiki/notes/Note 1.md"]), service.list_pages(), service.describe("Acme")]
            with pytest.raises(StigmergyError, match="no page at"):
                service.read(["wiki/notes/Nowhere.md"])
            out.append(service.search("Aurora widget").hits[0].path)
            return json.loads(json.dumps(out, default=str))
        finally:
            service.close()

    plain = answers(WikiService(b.root, b.settings, Identity(BOSS), {}, embedder=HashEmbedder()))
    assert len(opened) == 4  # a command: one connection per read
    opened.clear()
    served = answers(WikiService(b.root, b.settings, Identity(BOSS), {}, embedder=HashEmbedder()).serving())
    assert opened == [] and served == plain


def test_full_text_scores_equal_sqlites_for_words_and_phrases(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """PostgreSQL re-scores its first cut with FTS5's bm25 from each lexeme's column letters (positions only
    for the words of a phrase): the scores and their order equal SQLite's, for single words weighted by
    column (title, heading, body) and for phrases, which must not count their words out of order or apart."""
    from stigmergy.index.store.protocol import Filters

    b = _wiki(tmp_path / "w", {}, pages=2)
    b.wiki("note", "Cold chain", "The cold chain is cold. Chain cold is not the phrase.\n\n## Cold chain audit\n\n"
           "Aurora audits the cold-chain twice: cold chain, cold chain.\n")
    b.wiki("note", "Widgets", "Widgets cost euros; the chain of widgets is cold.\n")
    b.wiki("note", "Chain", "chain chain chain cold cold audit\n")
    b.wiki("note", "Apart", "Cold weather. Chain stores. Nothing else here mentions either word twice.\n")
    b.commit("pages")
    scores = {}
    for label, env in (("sqlite", {}), ("postgres", pg_env)):
        settings = load_settings(b.root, env)
        build_index(b.root, settings, embedder=HashEmbedder())
        store = open_index(index_location(Layout(b.root), settings))
        try:
            sel = store.select(("public",), Filters())
            out = []
            for terms in (["cold chain"], ["cold-chain", "audit"], ["widgets", "cold", "cold"], ["chain"]):
                rows = store.lexical(terms, sel, (10.0, 3.0, 1.0), 50)
                infos = store.page_infos(sorted({p for _, p, _ in rows}))
                out.append([(infos[p].path, round(s, 9)) for _, p, s in rows])
                # The same rows with their score at the weights that choose a page's fragment, which is the
                # score those weights give alone.
                both = store.lexical_both(terms, sel, (10.0, 3.0, 1.0), (1.0, 1.0, 1.0), 50)
                assert [r[:3] for r in both] == rows
                alone = {f: s for f, _, s in store.lexical(terms, sel, (1.0, 1.0, 1.0), 50)}
                assert all(abs(alone[f] - s2) < 1e-9 for f, _, _, s2 in both), terms
                out.append([(infos[p].path, round(s2, 9)) for _, p, _, s2 in both])
            scores[label] = out
        finally:
            store.close()
    assert scores["postgres"] == scores["sqlite"]
    assert all(scores["sqlite"])  # every query matched something
    phrase = dict(scores["sqlite"][0])
    assert "wiki/notes/Apart.md" not in phrase and "wiki/notes/Widgets.md" not in phrase


def test_the_cut_scored_in_the_database_equals_the_python_re_score(tmp_path: Path, pg_env: dict[str, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Single-word queries have their ts_rank cut re-scored with FTS5's bm25 inside PostgreSQL (pg_rank): the
    rows, their order and their scores equal the Python re-score's (pg_text.bm25) on many queries, with
    title and heading weights, words given twice, rows of many lengths and a cut smaller than the matches."""
    import random

    from stigmergy.index.store import pg_rank
    from stigmergy.index.store.protocol import Filters

    rng = random.Random(7)
    vocab = ("aurora widget harbor ledger invoice comet basalt cedar delta ember fjord glacier heron iris "
             "juniper kelp lantern meadow nectar orchid").split()
    b = RepoBuilder(tmp_path / "w", env=pg_env)
    for i in range(130):
        words = lambda n: " ".join(rng.choice(vocab) for _ in range(n))  # noqa: E731
        b.wiki("note", f"{words(2).title()} {i}", f"{words(rng.randint(3, 60))}.\n\n## {words(2).title()}\n\n"
               f"{words(rng.randint(1, 40))} 東京タワー {words(rng.randint(0, 9))}.\n")
    b.commit("pages")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        sel = store.select(("public",), Filters())
        queries = [[rng.choice(vocab) for _ in range(rng.randint(1, 4))] for _ in range(40)]
        queries += [["aurora", "aurora", "comet"], ["東京タワー", "heron"], ["aurora", "nowhere"], ["nowhere"]]
        got: dict[bool, list] = {}
        for in_db in (True, False):
            monkeypatch.setattr(pg_rank, "IN_DATABASE", in_db)
            got[in_db] = [store.lexical(terms, sel, (10.0, 3.0, 1.0), 30) for terms in queries]
            got[in_db] += [store.lexical_both(terms, sel, (10.0, 3.0, 1.0), (1.0, 1.0, 1.0), 30) for terms in queries]
    finally:
        store.close()
    for terms, fast, slow in zip(queries + queries, got[True], got[False], strict=True):
        assert [r[:2] for r in fast] == [r[:2] for r in slow], terms
        assert [tuple(round(x, 9) for x in r[2:]) for r in fast] == [tuple(round(x, 9) for x in r[2:]) for r in slow], terms
    assert sum(len(rows) == 30 for rows in got[True]) > 20  # most queries match more rows than the depth
    assert len({r[2] for rows in got[True] for r in rows}) > 200  # scores differ: not one value for all


def test_a_searchs_queries_run_without_parallel_workers(tmp_path: Path, pg_env: dict[str, str]) -> None:
    """Many readers share the server's cores: a search's scan is not split over parallel workers (which cost
    the server more CPU a search), on every connection the store opens."""
    b = _wiki(tmp_path / "w", pg_env)
    build_index(b.root, b.settings, embedder=HashEmbedder())
    store = open_index(index_location(Layout(b.root), b.settings))
    try:
        assert store.conn.execute("SHOW max_parallel_workers_per_gather").fetchone()[0] == "0"
    finally:
        store.close()
    assert _psql(pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"],
                 "SHOW max_parallel_workers_per_gather") != [("0",)]  # the server's own default is left alone
