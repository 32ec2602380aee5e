"""Issue #19, third pass: the general rules added after measuring the calibration half again, each with the
line that must not answer beside the one that does (no index)."""

from __future__ import annotations

from dataclasses import replace

from stigmergy.answer.compose import readable
from stigmergy.answer.evidence import Line
from stigmergy.answer.select import topical, word_score
from stigmergy.answer.terms import question_terms
from stigmergy.answer.units import source_units, statement
from tests.test_answer_slots import _fills


def _line(text: str, before: str = "", title: str = "Notes") -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", 5, text, text, (), (), 1, before)


def test_a_table_without_outer_pipes_is_read_row_by_row() -> None:
    # An HTML table reads out as "a | b | c" lines: one paragraph of them "answered" whatever any cell said.
    content = ["# Office", "", "## Practical", "", "What | Where | Who to ask",
               "Wi-Fi | LanternfishStaff (password in 1Password) | #it-help",
               "Meeting rooms | Tejo, Douro, Mondego | Book in the calendar", "", "Sam said a | b once."]
    units = source_units(content, 1, 1)
    rows = [u for u in units if u[0] in (6, 7)]
    assert [(u[0], u[1]) for u in rows] == [(6, 6), (7, 7)]  # each row cites its own line
    assert all(u[3] == "| What | Where | Who to ask |" and u[4] == (5, 5) for u in rows)  # the header is context
    wifi = _line(rows[0][2], rows[0][3])
    assert readable(wifi) == "Wi-Fi — Where: LanternfishStaff (password in 1Password); Who to ask: #it-help."
    # A lone line with a pipe in it is prose, not a table.
    assert any(u[2] == "Sam said a | b once." for u in units)


def test_directive_options_and_document_fields_state_nothing() -> None:
    assert not statement(":http-equiv=refresh: 3; url=../../cli/pip_cache/.")
    assert not statement(":maxdepth: 2")
    assert statement(":ref:`caching` says the cache holds wheels.")  # a role, then a statement
    assert statement("Note: the cache holds wheels.")


def test_a_major_release_named_by_its_number_is_no_amount() -> None:
    q = "How large can pip's cache get before old entries are pruned?"
    assert _fills(q, "In Python 2 environments, pip defaults to the old resolver.") == 0
    assert _fills(q, "Pip 21 dropped it.") == 0
    assert _fills(q, "The cache is pruned past 2 GB.") == 1.0


def test_a_share_answers_how_many_of_a_group() -> None:
    share = "Half (51%) of all participants used pip in automation, with only 9% having issues with it."
    assert _fills("of the people using pip in automation, how many actually have trouble with it?", share) == 1.0
    assert _fills("how many of those users have trouble with it?", share) == 1.0
    # Without the group, "how many" wants a count: a share is not one.
    assert _fills("how many users have trouble with pip?", share) < 1.0


def test_the_wikis_own_subject_does_not_put_a_line_on_topic() -> None:
    terms = [replace(t, everywhere=t.word == "pip") for t in question_terms("which pip release added the lock command?")]
    assert "pip" not in topical(terms) and "lock" in topical(terms)
    off = _line("Pip defaults to the new resolver.")
    assert not word_score(off, terms, {})[1]  # only "pip": the wiki's own subject
    assert word_score(_line("The lock command writes pylock.toml."), terms, {})[1]
    # When the wiki's subject is all the question says, it still counts; a rare proper name is a topic.
    only = [replace(t, everywhere=True) for t in question_terms("what is pip?")]
    assert topical(only)
    named = [replace(t, everywhere=t.word == "pip") for t in question_terms("which CPython versions does pip work on?")]
    assert word_score(_line("CPython 3.9, 3.10 and 3.11."), named, {})[1]


def test_a_list_item_and_a_code_block_take_what_introduces_them_as_context() -> None:
    content = ["# Caching", "", "### Default paths", "", "````{tab} Linux", "```", "~/.cache/pip", "```", "````", "",
               "````{tab} Windows", "```", "%LocalAppData%\\pip\\Cache", "```", "````", "",
               "- The default clone location (for editable", "  installs) is:", "",
               "  - `<venv path>/src/SomeProject` in virtual environments", "", "A paragraph of its own.",
               "- an item after it", "", "### Next", "", "- an item of another section"]
    units = {u[2]: u for u in source_units(content, 1, 1)}
    # A code fence is no section underline: the path above it stays a statement, with its tab's label.
    assert units["%LocalAppData%\\pip\\Cache"][3:5] == ("Windows", (11, 11))
    assert units["~/.cache/pip"][3] == "Linux"
    item = units["- `<venv path>/src/SomeProject` in virtual environments"]
    assert item[3:5] == ("The default clone location (for editable installs) is:", (17, 18))
    # What a lead-in introduced ends with the list: a later paragraph's item, another section's, get none.
    assert units["- an item after it"][3] == ""
    assert units["- an item of another section"][3] == ""


def test_the_best_pages_are_read_whole_when_short() -> None:
    from stigmergy.answer.evidence import WHOLE_PAGES, _rest_of_top

    def page(path: str, total: int, shown: list[int]) -> dict[str, object]:
        return {"path": path, "fragments_total": total, "fragments": [{"n": n} for n in shown]}

    pages = [page("a.md", 7, [2, 3, 4]), page("a.md", 7, [3, 4, 5]), page("b.md", 5, [1, 2, 3])]
    # a.md (two hits): fragments 1, 6 and 7 were left out: #1 and #7 (each with its neighbours) bring them.
    assert _rest_of_top(pages) == ["a.md#1", "a.md#7"]
    assert WHOLE_PAGES == 1  # b.md, the second page, is read as the search found it
    assert _rest_of_top([page("long.md", 40, [10])]) == []  # a long page is not read whole
