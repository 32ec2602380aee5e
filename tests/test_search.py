"""Search: the four arms, fusion, factors, filters, and scope before retrieval (canary strings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder, cite

from stigmergy.errors import NotFoundError
from stigmergy.index.build import build_index
from stigmergy.index.reads import describe_entity, list_pages, read_pages
from stigmergy.index.search import Filters, Searcher, make_snippet

CANARY = "ZEBRAQUOKKA"
BOSS = "boss@example.com"
OUTSIDER = "intern@example.com"


@pytest.fixture
def scoped(tmp_path: Path, index_env: dict[str, str]) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w", layers={"secret": [BOSS]}, env=index_env)
    s1 = b.source("Aurora metrics", "Aurora reached $1.3M ARR in Q1 2026.\nChurn fell to 2%.\n",
                  occurred_at="2026-03-01")
    old = b.source("Old memo", "Aurora started as a side project in 2019.\n", occurred_at="2019-05-01")
    note = "wiki/notes/Aurora revenue.md"
    b.wiki("note", "Aurora revenue",
           f"- Aurora reached $1.3M ARR in Q1 2026. {cite(note, s1, 22)}\n- Origins: {cite(note, old, 22)}\n"
           "- Customer: [[Acme Corp]]; plan: [[Secret plan]].\n",
           entities=("Acme Corp",), status="mature")
    b.wiki("entity", "Acme Corp", "Acme buys widgets from us every quarter.\n", aliases=("Acme", "ACME Inc"))
    b.wiki("concept", "Widget pricing", "Widgets cost 40 euros each; see [[Aurora revenue]].\n", status="seed")
    # The restricted layer: every trace of it carries the canary.
    b.source(f"{CANARY} acquisition", f"Project {CANARY} will acquire Acme for $9M.\n", layer="secret")
    b.wiki("note", "Secret plan", f"{CANARY} is the plan. It concerns [[Acme Corp]].\n", layer="secret")
    b.wiki("entity", f"{CANARY} Labs", f"{CANARY} Labs is a shell company.\n", layer="secret",
           aliases=("ZQ Labs",))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _search(b: RepoBuilder, query: str, reader: str, **kw):  # type: ignore[no-untyped-def]
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        return s.search(query, reader, **kw)
    finally:
        s.close()


def _leaks(data: object) -> bool:
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "query"}  # the query echoes what the reader typed
    text = json.dumps(data, default=str).lower()
    return CANARY.lower() in text or "layers/secret" in text or "zq labs" in text


def test_lexical_vector_entity_arms_and_explain(scoped: RepoBuilder) -> None:
    result = _search(scoped, "How much ARR did Aurora make?", OUTSIDER)
    top = result.hits[0]
    assert top.path in {"wiki/notes/Aurora revenue.md"} or top.type == "source"
    assert top.arms["lexical"] is not None and top.arms["vector"] is not None
    assert set(top.factors) == {"status", "freshness", "support", "focus", "confidence", "lifecycle", "kind"}
    assert "**ARR**" in top.snippet or "**Aurora**" in top.snippet
    assert "[source]" not in top.snippet
    assert len(result.hits) <= 5
    assert result.to_dict()["index"]["commit"]


def test_entity_arm_resolves_aliases(scoped: RepoBuilder) -> None:
    result = _search(scoped, "what does ACME Inc buy", OUTSIDER)
    by_path = {h.path: h for h in result.hits}
    assert by_path["wiki/entities/Acme Corp.md"].arms["entity"] == 1
    assert by_path["wiki/notes/Aurora revenue.md"].arms["entity"] == 2  # a page about Acme


def test_graph_arm_adds_linked_pages(scoped: RepoBuilder) -> None:
    result = _search(scoped, "widgets cost euros", OUTSIDER, arms=("lexical", "graph"))
    by_path = {h.path: h for h in result.hits}
    assert by_path["wiki/concepts/Widget pricing.md"].arms["lexical"] == 1
    assert by_path["wiki/notes/Aurora revenue.md"].arms["graph"] is not None


def test_status_factor_orders_equal_pages(scoped: RepoBuilder) -> None:
    result = _search(scoped, "Aurora", OUTSIDER)
    factors = {h.path: h.factors for h in result.hits}
    assert factors["wiki/notes/Aurora revenue.md"]["status"] > 1.0  # mature
    assert factors["wiki/notes/Aurora revenue.md"]["support"] == pytest.approx(0.97 + 0.05 * 2 / 3)


def test_filters(scoped: RepoBuilder) -> None:
    assert {h.type for h in _search(scoped, "Aurora Acme widgets", OUTSIDER, filters=Filters(type="source")).hits} == {"source"}
    assert [h.path for h in _search(scoped, "Aurora widgets", OUTSIDER, filters=Filters(status="seed")).hits] == [
        "wiki/concepts/Widget pricing.md"]
    about = _search(scoped, "Aurora", OUTSIDER, filters=Filters(entity="Acme")).hits
    assert {h.path for h in about} == {"wiki/notes/Aurora revenue.md", "wiki/entities/Acme Corp.md"}
    recent = _search(scoped, "Aurora side project", OUTSIDER, filters=Filters(type="source", since="2026-01-01")).hits
    assert [h.title for h in recent] == ["Aurora metrics"]


def test_canaries_never_reach_an_outsider(scoped: RepoBuilder) -> None:
    for query in (CANARY, f"{CANARY} Labs acquisition", "ZQ Labs", "secret plan", "shell company acquire Acme $9M"):
        for filters in (Filters(), Filters(layer="secret"), Filters(entity="ZQ Labs"), Filters(type="entity")):
            result = _search(scoped, query, OUTSIDER, filters=filters, k=20)
            assert not _leaks(result.to_dict()), (query, filters)
    assert not _leaks(list_pages(scoped.root, scoped.settings, OUTSIDER))
    assert not _leaks(list_pages(scoped.root, scoped.settings, OUTSIDER, Filters(layer="secret")))
    page = read_pages(scoped.root, scoped.settings, OUTSIDER, ["wiki/entities/Acme Corp.md"], evidence=True)
    assert not _leaks(page)  # the secret backlink is not listed
    page = read_pages(scoped.root, scoped.settings, OUTSIDER, ["wiki/notes/Aurora revenue.md"])
    assert {link["target"]: link["path"] for link in page["pages"][0]["links"]}["Secret plan"] is None
    assert not _leaks(describe_entity(scoped.root, scoped.settings, OUTSIDER, "Acme"))


def test_forbidden_and_absent_answer_identically(scoped: RepoBuilder) -> None:
    secret = "layers/secret/wiki/notes/Secret plan.md"
    absent = "layers/secret/wiki/notes/Nothing here.md"
    errors = []
    for path in (secret, absent):
        with pytest.raises(NotFoundError) as err:
            read_pages(scoped.root, scoped.settings, OUTSIDER, [path])
        errors.append((err.value.message.replace(path, "P"), err.value.hint, err.value.exit_code))
    assert errors[0] == errors[1]
    errors = []
    for name in (f"{CANARY} Labs", "ZQ Labs", "Nobody Labs"):
        with pytest.raises(NotFoundError) as err:
            describe_entity(scoped.root, scoped.settings, OUTSIDER, name)
        errors.append((err.value.message.replace(repr(name), "N"), err.value.hint))
    assert errors[0] == errors[1] == errors[2]
    # the boss reads it
    page = read_pages(scoped.root, scoped.settings, BOSS, [secret])
    assert CANARY in page["pages"][0]["content"]


def test_the_boss_finds_the_canary(scoped: RepoBuilder) -> None:
    result = _search(scoped, CANARY, BOSS)
    assert result.hits and all(h.layer == "secret" for h in result.hits[:3])
    assert describe_entity(scoped.root, scoped.settings, BOSS, "ZQ Labs")["entity"]["title"] == f"{CANARY} Labs"


def test_staleness_is_scoped_too(scoped: RepoBuilder) -> None:
    scoped.wiki("note", "Secret plan", f"{CANARY} is the plan, version 2.\n", layer="secret")
    scoped.commit("secret edit")
    assert not _search(scoped, "Aurora", OUTSIDER).index.stale
    boss = _search(scoped, "Aurora", BOSS).index
    assert boss.stale and boss.changed == ("layers/secret/wiki/notes/Secret plan.md",)


def test_arms_are_plain_functions_of_a_scope_and_keep_to_its_layers(scoped: RepoBuilder) -> None:
    """Each arm runs alone over a `SearchScope`: an outsider's layers never return the secret layer's
    fragments or pages, whichever arm asks; the boss's do; `run_search` answers what `Searcher` does."""
    from stigmergy.index import arms
    from stigmergy.index.scope import readable_layers
    from stigmergy.index.search import run_search
    from stigmergy.index.session import open_scope, scope_embedder

    scope = open_scope(scoped.root, scoped.settings, HashEmbedder())
    try:
        secret = {p.id for p in scope.store.indexed_pages().values() if p.layer == "secret"}
        assert secret
        found = {}
        for reader in (OUTSIDER, BOSS):
            sel = scope.store.select(readable_layers(scoped.settings, reader), Filters())
            qvec = scope_embedder(scope).embed([f"{CANARY} Acme"])[0]
            pages = {p for _, p, _ in arms.lexical(scope, [CANARY.lower(), "acme"], sel)}
            pages |= {p for _, p, _ in arms.vector(scope, qvec, sel)}
            pages |= set(arms.entity(scope, f"{CANARY} Labs Acme", sel)[0])
            pages |= set(arms.graph(scope, sorted(pages), sel))
            found[reader] = pages
        assert found[OUTSIDER] and not found[OUTSIDER] & secret
        assert found[BOSS] & secret
        warm = run_search(scope, "Aurora ARR", OUTSIDER, check_freshness=False).to_dict()
    finally:
        scope.store.close()
    assert warm["hits"] == _search(scoped, "Aurora ARR", OUTSIDER, check_freshness=False).to_dict()["hits"]
    with pytest.raises(NotFoundError):
        open_scope(scoped.root / "nowhere", scoped.settings)


def test_snippet_marks_terms() -> None:
    text = "x " * 200 + "The Aurora launch went well. " + "y " * 200
    snip = make_snippet(text, ["aurora"])
    assert "**Aurora**" in snip and snip.startswith("…") and len(snip) < 300


@pytest.mark.model
def test_cli_json_shapes_parse(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, cli) -> None:  # type: ignore[no-untyped-def]
    from test_index_support import link_model_cache

    b = RepoBuilder(tmp_path / "w", layers={"secret": [BOSS]})
    s1 = b.source("Aurora metrics", "Aurora reached $1.3M ARR in Q1 2026.\n")
    note = "wiki/notes/Aurora revenue.md"
    b.wiki("note", "Aurora revenue", f"- Aurora reached $1.3M ARR. {cite(note, s1, 22)}\n", entities=("Acme Corp",))
    b.wiki("entity", "Acme Corp", "Acme buys Aurora.\n", aliases=("Acme",))
    b.source(f"{CANARY} memo", f"{CANARY} acquisition.\n", layer="secret")
    b.commit()
    link_model_cache(b.root, tmp_path_factory.getbasetemp())
    code, out, err = cli(["index", "--json"], b.root)
    assert code == 0, err
    assert json.loads(out)["pages_total"] == 4
    code, out, _ = cli(["search", "how much recurring revenue", "--json", "--as", OUTSIDER, "--explain"], b.root)
    data = json.loads(out)
    assert code == 0 and data["hits"][0]["path"] in (note, s1) and set(data["index"]) == {"commit", "head", "stale", "changed", "ahead"}
    assert not _leaks(data)
    code, out, _ = cli(["--as", BOSS, "search", CANARY, "--json"], b.root)
    assert CANARY in json.dumps(json.loads(out)["hits"])
    code, out, _ = cli(["read", note, f"{note}#1", "--evidence", "--json"], b.root)
    assert code == 0 and len(json.loads(out)["pages"]) == 2
    code, out, _ = cli(["list", "--type", "entity", "--json"], b.root)
    assert code == 0 and [p["title"] for p in json.loads(out)["pages"]] == ["Acme Corp"]
    code, out, _ = cli(["describe", "Acme", "--json"], b.root)
    assert code == 0 and json.loads(out)["entity"]["aliases"] == ["Acme"]
    code, _, err = cli(["read", "layers/secret/sources/2026/03/nothing.md", "--as", OUTSIDER], b.root)
    assert code == 1 and "no page at" in err
    code, out, err = cli(["search", "Aurora", "--as", OUTSIDER], b.root)
    assert code == 0 and "Aurora revenue" in out


def test_a_note_about_one_source_outranks_a_hub_citing_many(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    memo = b.source("Pricing memo", "Widget list price rises to 45 euros in May.\n")
    others = [b.source(f"Memo {i}", f"Topic {i} update number {i}.\n") for i in range(5)]
    note = "wiki/notes/Pricing memo.md"
    b.wiki("note", "Pricing memo", f"- Widget list price rises to 45 euros in May. {cite(note, memo, 22)}\n")
    hub = "wiki/entities/Acme Corp.md"
    body = f"- Widget list price rises to 45 euros in May. {cite(hub, memo, 22)}\n" + "".join(
        f"- Topic {i} update. {cite(hub, src, 22)}\n" for i, src in enumerate(others))
    b.wiki("entity", "Acme Corp", body, aliases=("Acme",))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    hits = {h.path: h for h in _search(b, "widget list price May", OUTSIDER, k=10).hits}
    assert hits[note].factors["focus"] == 1.0
    assert hits[hub].factors["focus"] < 0.9
    assert hits[note].score > hits[hub].score
    # The query that is the entity's name keeps the entity page first, however many sources it cites.
    named = _search(b, "Acme", OUTSIDER, k=3).hits
    assert named[0].path == hub and named[0].factors["focus"] == 1.0


def test_page_paths_lexical_scoped_and_never_failing(scoped: RepoBuilder) -> None:
    from stigmergy.index.search import page_paths
    from stigmergy.write.filing import _index_search

    b, st = scoped, scoped.settings
    assert page_paths(b.root, st, "Aurora ARR revenue in Q1", 3)[0] == "wiki/notes/Aurora revenue.md"
    found = page_paths(b.root, st, f"Acme widgets Aurora {CANARY} plan", 10)
    assert found and all(p.startswith("wiki/") for p in found)  # wiki pages only, of the public layer only
    secret = page_paths(b.root, st, f"{CANARY} plan", 10, layer="secret")
    assert secret and all(p.startswith("layers/secret/wiki/") for p in secret)
    assert page_paths(b.root, st, "Aurora", 3, layer="nowhere") == []
    # A long text: its rarest terms make the query, not the whole text.
    long_text = ("the quarter went well and the team shipped many things " * 40) + "Widgets cost 40 euros each.\n"
    assert page_paths(b.root, st, long_text, 2)[0] == "wiki/concepts/Widget pricing.md"
    # The filing hook calls it with (query, k, layer).
    search = _index_search(b.root, st)
    assert search is not None and search("Aurora ARR", 2, "public")[0] == "wiki/notes/Aurora revenue.md"
    # Stale: a page deleted in the working tree is not offered.
    (b.root / "wiki/notes/Aurora revenue.md").unlink()
    assert "wiki/notes/Aurora revenue.md" not in page_paths(b.root, st, "Aurora ARR revenue", 5)
    # Unreadable or missing index: [] (the caller falls back), never an exception.
    if b.env:  # the shared index: a database that cannot be reached, a schema that does not exist
        import dataclasses

        for index in (dataclasses.replace(st.index, url="postgresql://nobody@127.0.0.1:1/none"),
                      dataclasses.replace(st.index, schema="absent_schema")):
            gone = dataclasses.replace(st, index=index)
            assert page_paths(b.root, gone, "Aurora", 3) == []
        return
    db = b.root / ".stigmergy" / "index.sqlite"
    for extra in db.parent.glob("index.sqlite-*"):
        extra.unlink()
    db.write_bytes(b"not a database")
    assert page_paths(b.root, st, "Aurora", 3) == []
    db.unlink()
    assert page_paths(b.root, st, "Aurora", 3) == [] and _index_search(b.root, st) is None


def test_page_paths_imports_no_model(scoped: RepoBuilder) -> None:
    import os
    import subprocess
    import sys

    code = (
        "import os, sys; from pathlib import Path; from stigmergy.settings import load_settings; "
        "from stigmergy.index.search import page_paths; "
        f"r = Path({str(scoped.root)!r}); print(page_paths(r, load_settings(r, dict(os.environ)), 'Aurora ARR', 2)); "
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'onnxruntime', 'tokenizers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, **scoped.env}).stdout.splitlines()
    assert "Aurora revenue" in out[0] and out[1] == "[]"


def test_a_layer_filter_searches_that_layer_not_the_best_of_all(tmp_path: Path, index_env: dict[str, str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader of two layers who filters to one gets that layer's best matches, even when the other layer's
    matches fill every arm's depth: the filter narrows the reader's layers before the arms cut, not after."""
    import stigmergy.index.arms as arms

    monkeypatch.setattr(arms, "LEXICAL_DEPTH", 4)
    b = RepoBuilder(tmp_path / "w", layers={"secret": [BOSS]}, env=index_env)
    for i in range(40):  # more than the arm fetches (depth x FETCH_FACTOR)
        b.wiki("note", f"Budget line {i}", f"Budget budget budget: the widget budget, item {i}.\n")
    b.wiki("note", "Board minutes", "The board read many papers today; one of them touched the budget.\n",
           layer="secret")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    hits = _search(b, "budget", BOSS, arms=("lexical",), filters=Filters(layer="secret")).hits
    assert [h.path for h in hits] == ["layers/secret/wiki/notes/Board minutes.md"]
    everyone = _search(b, "budget", BOSS, arms=("lexical",)).hits
    assert "layers/secret/wiki/notes/Board minutes.md" not in [h.path for h in everyone]  # outranked without the filter
    assert not _search(b, "budget", OUTSIDER, arms=("lexical",), filters=Filters(layer="secret")).hits
