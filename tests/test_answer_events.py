"""Issue #19: a question about what followed an event ("who took over as Harbor API lead after Ines moved?")
is answered only by a line that says the event, in itself or its context (no index; sentences written for
these tests)."""

from __future__ import annotations

from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import parts
from stigmergy.answer.select import event_terms, score_part
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked


def _line(text: str, title: str = "Notes", line: int = 5) -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", line, text, text, (), (), 1, "")


def _eligible(question: str, *texts: str, title: str = "Notes") -> list[str]:
    [part] = parts(question)
    terms = question_terms(part.text)
    lines = tuple(_line(t, title, i + 1) for i, t in enumerate(texts))
    scored = score_part(lines, part, terms, Names(), asked(part.text, Names()), None, None)
    return [s.line.text for s in scored if s.eligible]


def test_the_event_words_are_the_plain_words_after_after_or_since() -> None:
    def words(q: str) -> list[str]:
        return [t.word for t in event_terms(q, question_terms(q))]

    assert words("Who took over as Harbor API lead after Ines moved?") == ["moved"]
    assert words("what changed in the pricing since the rename, and why?") == ["rename"]
    # A name or a figure alone names no event: those are constraints of their own already.
    assert words("who has led the team since 2024?") == []
    assert words("who led the team after Ines?") == []
    # "before" and "until" set a limit, not a moment the line must name.
    assert words("how many calls can one key make before it gets throttled?") == []
    assert words("who is the Harbor API lead?") == []


def test_a_line_about_the_subject_but_not_the_event_does_not_answer() -> None:
    q = "Who took over as Harbor API lead after Ines moved?"
    roster = "Attendees: Inês Carvalho (Staff Engineer, Harbor API lead), Tomasz Wieczorek (CTO), Grace Nakamura."
    handover = "After Inês moved to Lodestar, Priya Raman took over as Harbor API lead."
    assert _eligible(q, roster) == []
    assert _eligible(q, roster, handover) == [handover]


def test_the_event_may_be_said_by_the_line_s_context() -> None:
    q = "who took over the on-call rota after the reorg?"
    line = "From 1 March, Priya Raman took over the on-call rota."
    assert _eligible(q, line, title="Notes") == []
    assert _eligible(q, line, title="The reorg: who owns what") == [line]


def test_a_value_that_is_not_a_name_may_set_the_moment_in_other_words() -> None:
    # A yes/no, a figure or a date carries its own value: "went live" is said by "production keys".
    q = "after the API went live, did customers have to swap out the keys they used in the beta?"
    line = "Beta keys keep working and become production keys; no customer action needed."
    assert _eligible(q, line) == [line]
