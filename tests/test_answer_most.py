"""Issue #19: "which X has the most" is answered by the table's top row, not by its header (tables written for
these tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.answer.evidence import Line
from stigmergy.answer.most import asks_most, top_row
from stigmergy.answer.service import ask
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher

HEADER = "| Country | Number of participants | Share |"
ROWS = ["| Portugal | 11 | 9% |", "| Japan | 42 | 30% |", "| Kenya | 17 | 12% |", "| Grand Total | 140 | 100% |"]


def _lines(header: str = HEADER, rows: list[str] = ROWS) -> tuple[Line, ...]:
    head = Line("sources/2026/01/x.md", "Survey", "source", "public", 10, header, header, (), (), 1)
    return (head, *(Line("sources/2026/01/x.md", "Survey", "source", "public", 12 + i, r, r, (), (), 1, header)
                    for i, r in enumerate(rows)))


def test_what_asks_for_the_top() -> None:
    assert asks_most("which country did the most participants come from?", "place")
    assert asks_most("which feature came out on top?", "thing")
    assert not asks_most("which country did the most participants come from?", "quantity")  # a figure, not a row
    assert not asks_most("what is the most recent release?", "thing")
    assert not asks_most("which plan allows at most 5 seats?", "thing")


def test_the_row_with_the_largest_figure_of_the_asked_column() -> None:
    lines = _lines()
    q = "which country did the most participants come from?"
    assert top_row(lines[0], lines, q).text == ROWS[1]  # from the header: the total row is no country
    assert top_row(lines[3], lines, q).text == ROWS[1]  # from any row of the same table
    # Two columns of figures and the question names neither: no single top.
    assert top_row(lines[0], lines, "which country came out on top?") is None
    # One column of figures: it is the one.
    one = _lines("| Country | Participants |", ["| Portugal | 11 |", "| Japan | 1,042 |", "| Kenya | 170 |"])
    assert top_row(one[0], one, "which country came out on top?").text == "| Japan | 1,042 |"
    # A tie has no single top; a line that is no table row has no table.
    tie = _lines("| Country | Participants |", ["| Portugal | 42 |", "| Japan | 42 |"])
    assert top_row(tie[0], tie, q) is None
    prose = Line("sources/2026/01/x.md", "Survey", "source", "public", 3, "Most came from Japan.", "Most came from Japan.",
                 (), (), 1)
    assert top_row(prose, (prose, *lines), q) is None


def test_ask_answers_with_the_top_row(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    table = "\n".join(["# Who took part", "", "We asked where participants live.", "", HEADER,
                       "| --- | --- | --- |", *ROWS, ""])
    b.source("Survey participants", table, occurred_at="2026-05-01", key="survey")
    for i, text in enumerate(("The Leeds office opened in March.", "Payroll runs on the last working day.",
                              "The warehouse app ships every two weeks.")):
        b.source(f"Note {i}", text + "\n", occurred_at="2026-05-01", key=f"n{i}")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        # The hashing embedder gives no meaning: the threshold is lowered so that the words alone decide.
        settings = replace(b.settings, answer=replace(b.settings.answer, threshold=0.3))
        out = ask(b.root, settings, "someone@example.com", "which country did the most participants come from?",
                  searcher=s, evidence=True)
    finally:
        s.close()
    assert out["answered"], (out["evidence"], out["parts"])
    assert out["sentences"][0]["text"].startswith("Japan — Number of participants: 42")
