"""An answer cites every source that states its value, not only the line it quotes: a reader sees that the
status page and the investor letter both put the SMS delay at 47 minutes. A line only corroborates when it would
answer the question itself (eligible, past the threshold), comes from another source and states the same value;
at most two are added (sentences written for these tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.answer.service import ask
from stigmergy.index.build import build_index

READER = "someone@example.com"


def _cited(answer: dict) -> set[str]:
    return {c["path"] for s in answer["sentences"] for c in s["citations"] if c["path"].startswith("sources/")}


QUESTION = "how late were the sms excursion alerts in the august provider outage?"


def _agreeing(b: RepoBuilder) -> tuple[str, str]:
    """Two sources that state the SMS delay in their own words: the investor letter and the status page."""
    letter = b.source("Investor letter Q3", "An SMS provider outage on 19 August delayed excursion alerts by up to "
                      "47 minutes.\nOur fallback provider is now always on.\n", occurred_at="2026-10-01")
    status = b.source("Status page incident", "Excursion alerts sent by SMS were delayed by up to 47 minutes during "
                      "the SMS provider outage on 19 August.\n", occurred_at="2026-08-19")
    return letter, status


def test_every_source_stating_the_answer_is_cited(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "kb")
    letter, status = _agreeing(b)
    other = b.source("Board call", "The SMS provider outage review on 20 August ran for 47 minutes.\n",
                     occurred_at="2026-08-20")
    wrong = b.source("Early estimate", "During the SMS provider outage excursion alerts were delayed by up to 30 "
                     "minutes, the first estimate said.\n", occurred_at="2026-08-19")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    got = ask(b.root, b.settings, READER, QUESTION)
    assert got["answered"], got
    cited = _cited(got)
    assert {letter, status} <= cited, (cited, got["sentences"])
    # Another subject with the same figure, and the same subject with another figure, corroborate nothing.
    assert other not in cited and wrong not in cited
    # The quoted line is still one sentence: the others are citations of it, not sentences of their own, and the
    # sentence names them, so a reader sees which sources agree.
    assert len(got["sentences"]) == 1
    quoted = got["sentences"][0]["page"]
    also = got["sentences"][0]["also"]
    assert [a["path"] for a in also] == [p for p in (letter, status) if p != quoted]
    assert {a["title"] for a in also} <= {"Investor letter Q3", "Status page incident"}


def test_the_cli_names_the_sources_that_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from stigmergy.cli.agent_cmds import render_answer

    b = RepoBuilder(tmp_path / "kb")
    _agreeing(b)
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    got = ask(b.root, b.settings, READER, QUESTION)
    render_answer(got)
    printed = capsys.readouterr().out
    other = got["sentences"][0]["also"][0]
    assert f"also said in: {other['title']} ({other['path']}" in printed, printed


def test_the_web_view_names_the_sources_that_agree_escaped() -> None:
    from stigmergy.server.render import ask_page

    hostile = "<script>alert(1)</script> letter"
    result = {"answered": True, "sentences": [{
        "text": "Delayed by up to 47 minutes.", "page": "sources/2026/08/cap_A.md", "title": "Status page", "type": "source",
        "line": 3, "citations": [{"path": "sources/2026/08/cap_A.md", "lines": [3, 3]}],
        "also": [{"title": hostile, "path": "sources/2026/10/cap_B.md"}]}], "contradictions": []}
    html = ask_page(None, "how late?", result)
    assert "also said in: <a href=" in html and "sources/2026/10/cap_B.md" in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_name_corroborates_only_the_same_names() -> None:
    # "Who leads the Harbor API team?" quoted from "Ines Carvalho leads …": a line naming Ines and someone else
    # ("Ines Carvalho handed the team over to Samuel Achterberg") says something else of her, and is no second source.
    from stigmergy.answer.corroborate import _agree
    from stigmergy.answer.evidence import Line
    from stigmergy.answer.names import Entity, Names
    from stigmergy.answer.question import Slot
    from stigmergy.answer.values import asked

    ines = Entity(1, "Ines Carvalho", "person", frozenset({"ines carvalho"}))
    samuel = Entity(2, "Samuel Achterberg", "person", frozenset({"samuel achterberg"}))
    names = Names(by_name={"ines carvalho": ines, "samuel achterberg": samuel})
    q = asked("who leads the harbor api team?", names)

    def line(text: str) -> Line:
        return Line("sources/x.md", "X", "source", "public", 1, text, text, (), (), 1)

    quoted = line("Ines Carvalho leads the Harbor API team.")
    slot = Slot("person")
    assert _agree(slot, quoted, line("The Harbor API team is led by Ines Carvalho since March."), names, q)
    assert not _agree(slot, quoted, line("Ines Carvalho handed the Harbor API team over to Samuel Achterberg."), names, q)
