"""`ask` on the cases issue #19 names: a slot the topic does not fill, aliases, final beats draft, later
beats earlier, a resolved contradiction answers with its resolution, two-part questions, the line-vector
cache, and scope (nothing of a restricted layer in any part of a public answer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_answer_support import CANARY, PUBLIC, build_wiki, line_of
from test_index_support import HashEmbedder, RepoBuilder, cite, ulid

from stigmergy.answer.service import REFUSAL, ask
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher
from stigmergy.pages.contradictions import (
    ClaimRecord,
    make_contradiction,
    render_block,
    resolve_contradiction,
)

BOARD = "ceo@example.com"


def _ask(b: RepoBuilder, question: str, reader: str = PUBLIC, embedder: HashEmbedder | None = None, **kw):  # type: ignore[no-untyped-def]
    s = Searcher(b.root, b.settings, embedder or HashEmbedder())
    try:
        return ask(b.root, b.settings, reader, question, searcher=s, **kw)
    finally:
        s.close()


def _text(out: dict) -> str:  # type: ignore[type-arg]
    return " ".join(s["text"] for s in out["sentences"])


@pytest.fixture
def wiki(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w", layers={"board": [BOARD]})
    draft = b.source("Q2 report (DRAFT)", "Headcount reached 58 at the end of Q2 2026.\n", occurred_at="2026-07-08",
                     key="d")
    final = b.source("Q2 report (final)", "Headcount was 56 at the end of Q2 2026; two hires start in July.\n",
                     occurred_at="2026-07-21", key="f")
    kickoff = b.source("Project Driftwood kickoff", "Daniel Ferreira is the project lead; Tomasz Wieczorek is the "
                       "sponsor.\n", occurred_at="2026-01-12", key="k")
    supply = b.source("Supply update", "Beacon G2 supply: one component has a 16-week lead time.\n"
                      "The Lisbon office opened on 2 March 2026.\n", occurred_at="2026-05-02", key="s")
    rent_a = b.source("Office costs January", "The Lisbon office rent is €4,000 a month.\n", occurred_at="2026-01-10",
                      key="ra")
    rent_b = b.source("Office costs February", "The Lisbon office rent is €4,500 a month.\n",
                      occurred_at="2026-02-10", key="rb")
    lease = b.source("Lease signed", "The lease signed on 9 February fixes the rent at €4,500 a month.\n",
                     occurred_at="2026-02-12", key="l")
    minutes = b.source("Board minutes", f"Reference {CANARY}: the office rent will rise to €9,999.\n",
                       layer="board", occurred_at="2026-09-17", key="m")
    said = {draft: ["Headcount reached 58 at the end of Q2 2026."],
            final: ["Headcount was 56 at the end of Q2 2026; two hires start in July."],
            kickoff: ["Daniel Ferreira is the project lead; Tomasz Wieczorek is the sponsor."],
            supply: ["Beacon G2 supply: one component has a 16-week lead time.",
                     "The Lisbon office opened on 2 March 2026."]}
    for src, title in ((draft, "Q2 report (DRAFT)"), (final, "Q2 report (final)"), (kickoff, "Project Driftwood kickoff"),
                       (supply, "Supply update")):
        note = f"wiki/notes/{title}.md"
        b.wiki("note", title, "".join(f"- {t} {cite(note, src, line_of(b.root, src, t))}\n" for t in said[src]))
    office = "wiki/notes/Lisbon office.md"
    con = make_contradiction(
        "con_" + ulid("rent"), "the Lisbon office rent", "Two cost reports disagree on the rent.",
        [ClaimRecord("The Lisbon office rent is €4,000 a month.", "2026-01-10", rent_a.rsplit("/", 1)[1][:-3], rent_a,
                     line_of(b.root, rent_a, "rent"), line_of(b.root, rent_a, "rent")),
         ClaimRecord("The Lisbon office rent is €4,500 a month.", "2026-02-10", rent_b.rsplit("/", 1)[1][:-3], rent_b,
                     line_of(b.root, rent_b, "rent"), line_of(b.root, rent_b, "rent"))])
    # The resolution names the board's minutes as its source: a hand edit (anyone who can push can write
    # one); a public answer must not read or name them.
    resolved = resolve_contradiction(con, "The signed lease fixes the rent at €4,500 a month.",
                                     minutes.rsplit("/", 1)[1][:-3], minutes, "2026-02-12")
    b.wiki("note", "Lisbon office", (
        f"- The Lisbon office rent is €4,000 a month. {cite(office, rent_a, line_of(b.root, rent_a, 'rent'))}\n"
        f"- The Lisbon office rent is €4,500 a month. {cite(office, rent_b, line_of(b.root, rent_b, 'rent'))}\n\n"
        f"{render_block(resolved, office)}\n"))
    b.wiki("entity", "Tomasz Wieczorek", f"- Tomasz Wieczorek is the CTO. {cite('wiki/entities/Tomasz Wieczorek.md', kickoff, line_of(b.root, kickoff, 'sponsor'))}\n",
           aliases=("Tomek",))
    b.wiki("note", "Lease signed", f"- The lease signed on 9 February fixes the rent at €4,500 a month. "
           f"{cite('wiki/notes/Lease signed.md', lease, line_of(b.root, lease, 'lease'))}\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def test_topic_is_not_an_answer_and_the_refusal_lists_the_nearest_lines(wiki: RepoBuilder) -> None:
    out = _ask(wiki, "Which Beacon G2 component has the 16-week lead time?")
    assert not out["answered"] and out["refusal"] == REFUSAL
    near = out["nearest_lines"]
    assert any("one component has a 16-week lead time" in n["text"] and n["why"] == "does not say which" for n in near)
    assert all(n["citations"] for n in near)
    # The wiki note that quotes the source line says the same thing: one entry, cited in both places.
    texts = [n["text"] for n in near]
    assert len(texts) == len(set(texts)), texts
    [lead] = [n for n in near if "16-week" in n["text"]]
    assert {c["path"].split("/")[0] for c in lead["citations"]} == {"sources", "wiki"}


def test_an_alias_names_the_entity_and_the_slot_is_filled_from_the_title(wiki: RepoBuilder) -> None:
    out = _ask(wiki, "Which project was Tomek the sponsor of?", evidence=True)
    assert out["answered"], out["nearest_lines"]
    assert "Project Driftwood" in _text(out) and "Tomasz Wieczorek is the sponsor" in _text(out)
    # The title the answer leans on is cited with the line.
    cited = [c for s in out["sentences"] for c in s["citations"]]
    assert any(c["text"].startswith("# Project Driftwood kickoff") for c in cited if c["path"].startswith("sources/"))


def test_the_final_report_beats_the_draft_and_the_draft_is_shown_superseded(wiki: RepoBuilder) -> None:
    out = _ask(wiki, "What was our headcount at the end of Q2 2026?", evidence=True)
    assert out["answered"] and "56" in _text(out) and "58" not in _text(out)
    [sup] = out["superseded"]
    assert "58" in sup["text"] and "draft" in sup["why"] and sup["citations"]
    assert any(c["path"].startswith("sources/") and "58" in c["text"] for c in sup["citations"])


def test_an_open_contradiction_answers_with_its_later_claim(tmp_path: Path) -> None:
    b = build_wiki(tmp_path / "w")
    out = _ask(b, "What was Aurora revenue in Q1 2026?")
    assert out["answered"] and "$1.3M" in _text(out) and "$1.1M" not in _text(out)
    [sup] = out["superseded"]
    assert "$1.1M" in sup["text"] and "2026-03-28" == sup["date"]
    assert out["contradictions"] and out["contradictions"][0]["later"] == 1


def test_a_resolved_contradiction_answers_with_its_resolution_without_reading_another_layer(wiki: RepoBuilder) -> None:
    out = _ask(wiki, "How much is the Lisbon office rent?", evidence=True)
    assert out["answered"]
    text = _text(out)
    assert "€4,500" in text and "Resolved 2026-02-12" in text and "€4,000" not in text
    assert any("4,000" in s["text"] for s in out["superseded"])
    dump = json.dumps(out, ensure_ascii=False)
    assert CANARY not in dump and "9,999" not in dump and "layers/board" not in dump
    board = _ask(wiki, "How much is the Lisbon office rent?", reader=BOARD, evidence=True)
    assert any(c["path"].startswith("layers/board/") for s in board["sentences"] for c in s["citations"])


def test_two_part_question_answers_each_part_and_says_which_is_uncovered(wiki: RepoBuilder) -> None:
    out = _ask(wiki, "When did the Lisbon office open, and what is its phone number?")
    assert out["answered"] and "2 March 2026" in _text(out)
    assert [p["answered"] for p in out["parts"]] == [True, False]
    assert out["uncovered"] == [out["parts"][1]["question"]]
    assert "phone" in out["uncovered"][0]


def test_a_warm_ask_embeds_only_the_question(wiki: RepoBuilder) -> None:
    first, second = HashEmbedder(), HashEmbedder()
    cold = _ask(wiki, "When did the Lisbon office open?", embedder=first)
    assert cold["answered"] and cold["evidence"]["lines_embedded"] > 0
    warm = _ask(wiki, "When did the Lisbon office open?", embedder=second)
    assert warm["evidence"]["lines_embedded"] == 0 and warm["sentences"] == cold["sentences"]
    # The search embeds the query once, the answerer the question (its one part) once: nothing else.
    assert second.texts == 2


def test_nothing_of_a_restricted_layer_reaches_a_public_refusal(wiki: RepoBuilder) -> None:
    out = _ask(wiki, f"What does {CANARY} say about the rent rise?", evidence=True)
    dump = json.dumps(out, ensure_ascii=False)
    assert "9,999" not in dump and "layers/board" not in dump
