"""Issue #19, twenty-eighth pass: a line that names only another period than the one asked ("a headcount of 63 at
the end of Q3" under a Q2 2026 report's title, "we ended 2025 with 44 people" under a 2026 plan's) is about that
period, though its page's title names the asked one; and what actually happened is not answered by the plan. No index;
sentences written for these tests."""

from __future__ import annotations

from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import parts
from stigmergy.answer.select import alternatives, word_score
from stigmergy.answer.terms import question_terms


def _line(text: str, title: str) -> Line:
    return Line("sources/2026/07/x.md", title, "source", "public", 5, text, text, (), (), 1, "")


def _held(q: str, text: str, title: str) -> bool:
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line(text, title)
    return word_score(line, terms, alternatives((line,), part, terms, Names()))[2]


def test_a_line_that_names_only_another_quarter_is_not_about_the_asked_one() -> None:
    q = "final headcount number for end of Q2 2026?"
    title = "Quarterly report — Q2 2026 (final)"
    assert not _held(q, "Expect a headcount of 63 at the end of Q3.", title)
    assert _held(q, "Headcount reached 56 at quarter end.", title)
    # the asked quarter said beside another, and a version number, are no other quarter
    assert _held(q, "Headcount — Q2: 56; Q3: 63.", title)
    assert _held(q, "Headcount reached 56 once Q3.1 of the plan was signed.", title)


def test_a_line_that_names_only_another_year_is_not_about_the_asked_one() -> None:
    q = "how many people are we meant to be by the end of 2026?"
    title = "Hiring plan 2026"
    assert not _held(q, "We ended 2025 with 44 people.", title)
    assert _held(q, "Total — End 2025: 44; End 2026: 68.", title)
    assert _held(q, "We plan to be 68 people by December.", title)


def test_a_period_the_question_names_too_is_not_another() -> None:
    q = "why did 50k of the money get counted in Q3 and not Q2"
    assert _held(q, "The payment is recognisable only on acceptance of the validation pack, so £50k moves to Q3.",
                 "Quarterly report — Q2 2026 (final)")
    assert _held("what did we spend in 2026 compared with 2025", "We spent £1.2M in 2025.", "Budget 2026")


def test_what_actually_happened_is_not_answered_by_the_plan() -> None:
    from stigmergy.answer.slots import fill
    from stigmergy.answer.values import asked

    q = "driftwood full cutover was planned for end of may — when did it actually happen?"
    part = parts(q)[0]
    a = asked(part.text, Names())
    plan, _ = fill(part.slot, "M3 full cutover: planned 29 May.", "", Names(), a)
    done, _ = fill(part.slot, "M3, the full cutover, happened on Friday 12 June 2026.", "", Names(), a)
    both, _ = fill(part.slot, "M2 was planned for 10 April and went live on 14 April.", "", Names(), a)
    assert done == 1.0 and both == 1.0 and plan < done
    # asked without "actually", a forecast still answers when something is due
    part = parts("when is the full cutover due?")[0]
    assert fill(part.slot, "M3 full cutover: planned 29 May.", "", Names(), asked(part.text, Names()))[0] == 1.0

