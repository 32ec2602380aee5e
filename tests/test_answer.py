"""`ask`: cited answers, honest refusals, contradictions, scope, freshness, and the LLM answerer's verifier
against a local server that speaks the OpenAI chat completions protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from test_answer_support import BOARD, CANARY, PUBLIC, build_wiki
from test_index_support import HashEmbedder, RepoBuilder
from test_llm_planners import Server, openai_reply

from stigmergy.answer.service import REFUSAL, ask
from stigmergy.answer.verify import split_cited, unsupported
from stigmergy.errors import ConfigError, UsageError
from stigmergy.index.search import Searcher
from stigmergy.settings import load_settings


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    s = Server()
    yield s
    s.close()


@pytest.fixture
def repo(tmp_path: Path) -> RepoBuilder:
    return build_wiki(tmp_path / "w")


def _ask(b: RepoBuilder, question: str, reader: str = PUBLIC, **kw):  # type: ignore[no-untyped-def]
    settings = kw.pop("settings", b.settings)
    s = Searcher(b.root, settings, HashEmbedder())
    try:
        return ask(b.root, settings, reader, question, searcher=s, **kw)
    finally:
        s.close()


def test_answer_sentences_carry_their_citations(repo: RepoBuilder) -> None:
    out = _ask(repo, "When did the Lisbon office open?", evidence=True)
    assert out["answered"] and out["answerer"] == "deterministic"
    first = out["sentences"][0]
    assert "2 March 2026" in first["text"]
    sources = [c for c in first["citations"] if c["path"].startswith("sources/")]
    assert sources and all("2 March 2026" in c["text"] for c in sources)
    for s in out["sentences"]:  # every figure of every sentence is in the lines it cites
        assert unsupported(s["text"], "\n".join(c["text"] for c in s["citations"])) == []
    assert out["index"]["commit"] and out["index"]["stale"] is False


def test_unanswerable_question_is_refused_with_nearest_pages(repo: RepoBuilder) -> None:
    out = _ask(repo, "What is the salary of the Lisbon office manager?")
    assert not out["answered"] and out["refusal"] == REFUSAL and out["sentences"] == []
    assert out["nearest"] and all("path" in n for n in out["nearest"])
    assert "commit" in out["index"] and "stale" in out["index"]


def test_a_figure_the_question_names_must_be_in_the_line(repo: RepoBuilder) -> None:
    assert not _ask(repo, "What was Aurora revenue in Q3 2027?")["answered"]


def test_open_contradiction_touching_the_answer_is_reported(repo: RepoBuilder) -> None:
    out = _ask(repo, "What was Aurora revenue in Q1 2026?")
    assert out["answered"]
    [con] = out["contradictions"]
    assert con["subject"] == "Aurora Q1 revenue"
    assert [c["date"] for c in con["claims"]] == ["2026-03-28", "2026-04-02"] and con["later"] == 1
    assert all(c["citation"]["path"].startswith("sources/") for c in con["claims"])
    # A question the contradiction does not touch does not carry it.
    assert _ask(repo, "When did the Lisbon office open?")["contradictions"] == []


def test_restricted_canary_never_reaches_a_public_answer(repo: RepoBuilder) -> None:
    public = _ask(repo, "What did Orbis offer to acquire Aurora for?", evidence=True)
    assert CANARY not in json.dumps(public) and "72M" not in json.dumps(public)
    board = _ask(repo, "What did Orbis offer to acquire Aurora for?", reader=BOARD)
    assert board["answered"] and "$72M" in board["sentences"][0]["text"]


def test_stale_index_is_reported(repo: RepoBuilder) -> None:
    page = repo.root / "wiki/notes/Q1 report.md"
    page.write_text(page.read_text().replace("12 people", "12 people (hand edit)"))
    out = _ask(repo, "When did the Lisbon office open?")
    assert out["index"]["stale"] is True and "wiki/notes/Q1 report.md" in out["index"]["changed"]


def test_bad_questions_get_one_line_errors(repo: RepoBuilder) -> None:
    with pytest.raises(UsageError):
        _ask(repo, "   ")
    with pytest.raises(UsageError, match="at most 1000"):
        _ask(repo, "why " * 400)
    code, out, err = run_cli(["ask", ""], repo.root)
    assert code == 2 and err.startswith("error: ask needs a question") and out == ""


def test_verifier_rules() -> None:
    cited = "Aurora revenue was $1.3M in Q1 2026, reported by Maya Okafor."
    assert unsupported("Aurora revenue was $1.3M in Q1 2026.", cited) == []
    assert unsupported("Aurora revenue was $1.4M in Q1 2026.", cited) == ["figure '1.4M'"]
    assert unsupported("Revenue was reported by Tomasz Wieczorek.", cited) == ["name 'Tomasz'", "name 'Wieczorek'"]
    assert unsupported("The revenue was reported on 3 May 2026.", cited) == ["figure '3 May 2026'"]
    assert split_cited("Revenue was $1.3M [1]. Maya reported it [1, 2].\n- Not cited.") == [
        ("Revenue was $1.3M.", [1]), ("Maya reported it.", [1, 2]), ("Not cited.", [])]


def _llm_settings(b: RepoBuilder, url: str):  # type: ignore[no-untyped-def]
    with (b.root / "stigmergy.toml").open("a") as fh:
        fh.write('[answer]\nkind = "openai"\nmodel = "test-model"\n')
    # The endpoint is the user's (environment or user config), never the repository file's.
    return load_settings(b.root, env={"STIGMERGY_ANSWER__BASE_URL": f"{url}/v1"})


def test_llm_answer_keeps_verified_sentences_and_withholds_the_rest(repo: RepoBuilder, server: Server) -> None:
    settings = _llm_settings(repo, server.url)
    server.script.append((200, {}, openai_reply(
        "Aurora revenue was $1.3M in Q1 2026 [1]. It was $2.9M in Q2 2026 [1]. Maya Okafor signed it off [1]. "
        "Revenue grew strongly."), 0.0))
    out = _ask(repo, "What was Aurora revenue in Q1 2026?", settings=settings)
    assert out["answered"] and out["answerer"] == "openai:test-model"
    assert [s["text"] for s in out["sentences"]] == ["Aurora revenue was $1.3M in Q1 2026."]
    reasons = {w["text"]: w["reasons"] for w in out["withheld"]}
    assert any("figure" in r for r in reasons["It was $2.9M in Q2 2026."])
    assert reasons["Maya Okafor signed it off."] == ["name 'Maya'", "name 'Okafor'"]
    assert reasons["Revenue grew strongly."] == ["cites no evidence line"]
    request = server.requests[0]["body"]
    assert request["model"] == "test-model" and "[1] " in request["messages"][1]["content"]
    assert CANARY not in json.dumps(request)


def test_llm_answer_with_nothing_verified_is_a_refusal(repo: RepoBuilder, server: Server) -> None:
    settings = _llm_settings(repo, server.url)
    server.script.append((200, {}, openai_reply("Aurora revenue was $9.9M in Q1 2026 [1]."), 0.0))
    out = _ask(repo, "What was Aurora revenue in Q1 2026?", settings=settings)
    assert not out["answered"] and out["refusal"] == REFUSAL
    assert out["withheld"][0]["text"] == "Aurora revenue was $9.9M in Q1 2026."
    server.script.append((200, {}, openai_reply("NOT IN THE WIKI"), 0.0))
    assert not _ask(repo, "What was Aurora revenue in Q1 2026?", settings=settings)["answered"]


def test_llm_eligible_pool_reads_past_the_deterministic_threshold(repo: RepoBuilder, server: Server) -> None:
    """`[answer] llm_pool = "eligible"`: the model reads the best eligible lines once the best passes
    `llm_floor`, where the deterministic pool gives it nothing under `threshold`."""
    question = "What was Aurora revenue in Q1 2026?"
    with (repo.root / "stigmergy.toml").open("a") as fh:
        fh.write('[answer]\nkind = "openai"\nmodel = "test-model"\nthreshold = 0.99\n')
    env = {"STIGMERGY_ANSWER__BASE_URL": f"{server.url}/v1"}
    near = _ask(repo, question, settings=load_settings(repo.root, env=env))
    assert not near["answered"] and server.requests == []  # nothing past 0.99: no line, no request
    with (repo.root / "stigmergy.toml").open("a") as fh:
        fh.write('llm_pool = "eligible"\nllm_floor = 0.0\n')
    server.script.append((200, {}, openai_reply("Aurora revenue was $1.3M in Q1 2026 [1]."), 0.0))
    wide = _ask(repo, question, settings=load_settings(repo.root, env=env))
    assert wide["answered"] and [s["text"] for s in wide["sentences"]] == ["Aurora revenue was $1.3M in Q1 2026."]
    [request] = server.requests
    assert "$1.3M" in request["body"]["messages"][1]["content"]


def test_unknown_llm_pool_fails_before_any_work(repo: RepoBuilder, server: Server) -> None:
    with (repo.root / "stigmergy.toml").open("a") as fh:
        fh.write('[answer]\nkind = "openai"\nmodel = "test-model"\nllm_pool = "everything"\n')
    settings = load_settings(repo.root, env={"STIGMERGY_ANSWER__BASE_URL": f"{server.url}/v1"})
    with pytest.raises(ConfigError, match="llm_pool 'everything'"):
        _ask(repo, "What was Aurora revenue in Q1 2026?", settings=settings)
    assert server.requests == []


def test_llm_answerer_misconfigured_fails_before_any_work(repo: RepoBuilder) -> None:
    with (repo.root / "stigmergy.toml").open("a") as fh:
        fh.write('[answer]\nkind = "planner"\n')
    with pytest.raises(ConfigError, match="planner is deterministic"):
        _ask(repo, "What was Aurora revenue in Q1 2026?")


def test_source_text_becomes_cited_sentences() -> None:
    from stigmergy.answer.units import _source_units

    content = ["# Report", "", "Revenue grew 26% on Q1. Nine new", "customers joined.", "- A list item",
               "", "| Metric | Q2 2026 |", "| --- | --- |", "| Revenue | £2.36M |", "After the table."]
    units = _source_units(content, 10, 1)
    assert units == [
        (12, 12, "Revenue grew 26% on Q1.", ""),
        (12, 13, "Nine new customers joined.", "Revenue grew 26% on Q1."),
        (14, 14, "- A list item", ""),
        (16, 16, "| Metric | Q2 2026 |", ""),
        (18, 18, "| Revenue | £2.36M |", "| Metric | Q2 2026 |"),
        (19, 19, "After the table.", ""),
    ]


def test_anthropic_answerer_speaks_the_messages_protocol(repo: RepoBuilder, server: Server) -> None:
    with (repo.root / "stigmergy.toml").open("a") as fh:
        fh.write('[answer]\nkind = "anthropic"\nmodel = "claude-test"\n')
    # The endpoint and the key's variable are the user's (environment or user config), not the repository's.
    settings = load_settings(repo.root, env={"STIGMERGY_ANSWER__BASE_URL": server.url,
                                             "STIGMERGY_ANSWER__API_KEY_ENV": "ANSWER_KEY"})
    with pytest.raises(ConfigError, match="ANSWER_KEY"):
        _ask(repo, "When did the Lisbon office open?", settings=settings, env={})
    server.script.append((200, {}, {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                                    "content": [{"type": "text", "text": "The Lisbon office opened on 2 March 2026 [1]."}],
                                    "stop_reason": "end_turn"}, 0.0))
    out = _ask(repo, "When did the Lisbon office open?", settings=settings, env={"ANSWER_KEY": "k-123"})
    assert out["answered"] and out["sentences"][0]["text"] == "The Lisbon office opened on 2 March 2026."
    req = server.requests[-1]
    assert req["path"] == "/v1/messages" and req["headers"]["x-api-key"] == "k-123"


def test_a_page_gone_from_the_tree_is_skipped_and_the_index_reported_stale(repo: RepoBuilder) -> None:
    (repo.root / "wiki/notes/Q1 report.md").unlink()
    out = _ask(repo, "When did the Lisbon office open?")
    assert out["index"]["stale"] is True
    assert all(s["page"] != "wiki/notes/Q1 report.md" for s in out["sentences"])
