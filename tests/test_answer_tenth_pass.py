"""Issue #19, tenth pass: answerable questions refused because the line that answers them says the question's
words in other words (found on the calibration sets; no index; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.evidence import Line
from stigmergy.answer.select import word_score
from stigmergy.answer.terms import question_terms


def _line(text: str, title: str = "Notes") -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", 5, text, text, (), (), 1, "")


def test_the_utmost_asked_is_said_by_a_bound() -> None:
    terms = question_terms("how slow did the nightly export get, worst case?")
    bound = word_score(_line("The nightly export ran with a maximum lag of 14 minutes."), terms, {})[0]
    plain = word_score(_line("The nightly export ran with a lag of 14 minutes."), terms, {})[0]
    assert bound > plain
    terms = question_terms("what was the longest wait for the kettle queue?")
    assert word_score(_line("Orders for the kettle queue waited up to 40 minutes."), terms, {})[0] > word_score(
        _line("Orders for the kettle queue waited 40 minutes."), terms, {})[0]
    # A line with no bound gets no credit for the adjective it does not say.
    terms = question_terms("what was the worst month for the kettle queue?")
    assert word_score(_line("The kettle queue was quiet in May."), terms, {})[0] == word_score(
        _line("The kettle queue was quiet in June."), terms, {})[0]
