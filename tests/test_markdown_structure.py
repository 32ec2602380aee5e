"""Markdown structure is read by markdown-it-py: code blocks of any fence (longer fences holding shorter
ones, tildes holding backticks, unclosed fences, indented blocks) and inline code spans of any backtick
run hide what they quote from wikilinks, citations, the planner and title detection. A fence toggle
got every one of these wrong."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from stigmergy.capture.extract import extract
from stigmergy.pages.citations import citations_by_line
from stigmergy.pages.markdown import code_lines, mask_code_spans, maybe_block
from stigmergy.pages.wikilinks import parse_wikilinks
from stigmergy.plan.deterministic.statements import split_units
from stigmergy.settings import CaptureSettings

NESTED = "\n".join([
    "Before [[Alpha]].",          # 0
    "````markdown",               # 1
    "```",                        # 2
    "[[Quoted]]",                 # 3  inside the 4-backtick fence
    "```",                        # 4
    "````",                       # 5
    "After [[Beta]].",            # 6
    "~~~",                        # 7
    "```",                        # 8  a backtick line does not close a tilde fence
    "[[Tilde]]",                  # 9
    "~~~",                        # 10
    "",                           # 11
    "    [[Indented]]",           # 12 indented code block
    "",                           # 13
    "Text with `[[Span]]` and ``a ` [[Double]] `` and [[Gamma]].",  # 14
    "```",                        # 15 unclosed: runs to the end
    "[[Unclosed]]",               # 16
])


def test_code_lines_follow_commonmark() -> None:
    assert code_lines(NESTED) == frozenset({1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 15, 16})
    assert code_lines("no code here\n- a list\n    continued") == frozenset()


def test_wikilinks_in_code_are_not_links() -> None:
    links = parse_wikilinks(NESTED)
    assert [link.target for link in links] == ["Alpha", "Beta", "Gamma"]
    assert [link.line for link in links] == [1, 7, 15]


def test_code_spans_of_any_backtick_run_are_masked_in_place() -> None:
    line = "a ``x ` [[y]]`` b `[[z]]` c ```unmatched [[w]]"
    masked = mask_code_spans(line)
    assert len(masked) == len(line)
    assert "[[y]]" not in masked and "[[z]]" not in masked and "[[w]]" in masked


def test_a_citation_quoted_in_a_code_block_cites_nothing() -> None:
    cite = "- Revenue grew. ([source](../../sources/2026/03/cap_01JD8Z3Q5N4W2X7Y9A0B1C2D3E.md#L3))"
    text = "\n".join(["# Page", "", "````", "```", cite, "```", "````", cite])
    assert list(citations_by_line(text, "wiki/notes/page.md")) == [8]


def test_the_planner_reads_no_statement_out_of_code() -> None:
    lines = NESTED.split("\n")
    units, _ = split_units(lines, 1)
    text = " ".join(u.text for u in units)
    for quoted in ("Quoted", "Tilde", "Indented", "Unclosed"):
        assert quoted not in text
    assert "Before" in text and "After" in text


def test_a_title_inside_a_fence_is_not_the_title() -> None:
    doc = "~~~\n```\n# Not the title\n~~~\n\n# The title\n\nBody.\n"
    assert extract(doc.encode(), "notes.md", CaptureSettings()).title == "The title"


_OLD_MAYBE_BLOCK = re.compile(r"```|~~~|^(?: {4}|\t)", re.M)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \t\n`~ab", max_size=40))
def test_the_code_prefilter_answers_as_the_one_regex_did(text: str) -> None:
    # maybe_block replaced one slow regex (fences or an indented line) with substring tests first: it
    # must say yes exactly where that regex matched, or code_lines would miss (or invent) a code block.
    assert maybe_block(text) == (_OLD_MAYBE_BLOCK.search(text) is not None)
    for edge in ("    x", "x\n    y", "x    y", "\tx", "x\ty", "x\n\ty", "``", "`` `", "~~", "~~~"):
        assert maybe_block(edge) == (_OLD_MAYBE_BLOCK.search(edge) is not None)
