"""Issue #19, thirty-second pass: a section's topic sentence and the sentence that holds its value score within a few
points of each other, and words and meaning cannot tell which answers; the answer says the second beside the first.
Lines written for these tests."""

from __future__ import annotations

from pathlib import Path

from stigmergy.answer.evidence import Cite, Evidence, Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import Part, Slot
from stigmergy.answer.select import Scored
from stigmergy.answer.service import _beside, _deterministic

PAGE = "sources/2026/12/cap_urls.md"


def _line(n: int, text: str, page: str = PAGE, headings: tuple[str, ...] = ("VCS support", "URL fragments")) -> Line:
    return Line(page=page, title="VCS support", type="source", layer="public", line=n, raw=text, text=text,
                headings=headings, cites=(Cite(page, n, n, text),), rank=1)


def _scored(line: Line, score: float, eligible: bool = True) -> Scored:
    return Scored(line=line, score=score, words=score, meaning=score, fill=1.0 if eligible else 0.0,
                  via_context=False, on_topic=True, matched=())


TOPIC = _line(12, "In all other circumstances, the egg fragment is not necessary and its use is discouraged.")
VALUE = _line(14, "In practice the egg fragment is only required to help pip determine the VCS clone location in "
                  "editable mode.")


def test_the_sections_other_line_that_answers_nearly_as_well_is_said_beside_the_best() -> None:
    top = _scored(TOPIC, 0.63)
    got = _beside(top, [top, _scored(VALUE, 0.54)], set())
    assert got is not None and got.line is VALUE


def test_no_line_beside_when_it_is_far_below_of_another_section_or_page_or_not_eligible() -> None:
    top = _scored(TOPIC, 0.63)
    assert _beside(top, [top, _scored(VALUE, 0.40)], set()) is None  # under 0.7 of the best
    assert _beside(top, [top, _scored(VALUE, 0.60, eligible=False)], set()) is None  # fills no slot
    other_section = _line(30, VALUE.text, headings=("VCS support", "Editable mode"))
    assert _beside(top, [top, _scored(other_section, 0.60)], set()) is None
    other_page = _line(14, VALUE.text, page="sources/2026/12/cap_other.md")
    assert _beside(top, [top, _scored(other_page, 0.60)], set()) is None
    # the best line's own words again, or a line an earlier part already said, is not a second line
    again = _line(40, TOPIC.text + " See below.")
    assert _beside(top, [top, _scored(again, 0.62)], set()) is None
    assert _beside(top, [top, _scored(VALUE, 0.60)], {" ".join(VALUE.text.casefold().split())}) is None


def test_the_answer_says_both_lines_each_with_its_citation(tmp_path: Path) -> None:
    part = Part("what is the #egg= bit on a vcs url used for nowadays?", Slot("value"))
    scored = [_scored(TOPIC, 0.63), _scored(VALUE, 0.54), _scored(_line(20, "Fragments are optional."), 0.30)]
    ev = Evidence(lines=(TOPIC, VALUE), pages=(), index=None)
    sentences, superseded, report = _deterministic([(part, [], scored)], ev, Names(), tmp_path, ("public",),
                                                   with_text=True, threshold=0.46)
    assert [s["text"] for s in sentences] == [TOPIC.text, VALUE.text]
    assert [c["lines"] for s in sentences for c in s["citations"]] == [[12, 12], [14, 14]]
    assert report[0]["answered"] and report[0]["sentences"] == [0, 1] and not superseded
    # below the threshold the part is refused, whatever lies beside its best line
    low = [_scored(TOPIC, 0.40), _scored(VALUE, 0.39)]
    sentences, _, report = _deterministic([(part, [], low)], ev, Names(), tmp_path, ("public",), True, 0.46)
    assert sentences == [] and not report[0]["answered"]
