"""Issue #19, eighth pass: lines that "answered" with a value of another kind than the one asked (found on the
tune sets; no index; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.names import Names, load
from stigmergy.answer.question import parts
from stigmergy.answer.slots import WEAK, fill
from stigmergy.answer.values import asked
from stigmergy.index.store import NameRow
from tests.test_answer_slots import _fills as _slot_fills
from tests.test_answer_slots import _Rows


def _names() -> Names:
    return load(_Rows([NameRow("oslo", 1, "Oslo", "place")]), ("public",))


def _fills(question: str, line: str, context: str = "") -> float:
    return _slot_fills(question, line, context, _names())


def test_a_folder_is_a_path_not_a_file_or_a_command() -> None:
    q = "once the site is rendered with make, which folder does the output land in?"
    # A file or a command the line names is no folder.
    assert _fills(q, "Makefile.am -- the build rules live in this file.") == 0.0
    assert _fills(q, "Run `make html_site` to render the pages.") == 0.0
    # A path is.
    assert _fills(q, "The rendered pages are written to the public/html folder.") == 1.0
    assert _fills(q, "The rendered pages are written to dist/.") == 1.0
    # So is a folder the line names in code, when it is no file, command or package.
    assert _fills(q, "Pages now go to a directory called `site-v2`.") == 1.0
    assert _fills(q, "Install the theme with :pypi:`furo` first.") == 0.0


def test_the_acronym_of_the_asked_noun_is_not_one_of_them() -> None:
    q = "apart from svn, which version control systems does the build farm mirror?"
    # "(VCS)" names the asked words again; it says none of the systems (a capitalised word may still be a name:
    # weakly).
    assert _fills(q, "The build farm mirrors several version control systems (VCS).") == WEAK
    # A word beside the noun that is not its acronym still says which one.
    assert _fills(q, "The build farm mirrors the version control systems fossil and darcs.") == 1.0


def test_what_else_a_thing_is_called_is_given_by_an_aka() -> None:
    q = "the runbook talks about cold soak, what's that called otherwise?"
    [part] = parts(q)
    assert (part.text, part.slot.kind, part.slot.subject) == ("what else is cold soak called", "alias", "cold soak")
    names = _names()
    a = asked(part.text, names)
    assert fill(part.slot, "Thermal dwell (AKA cold soak) keeps a unit below freezing.", "", names, a)[0] == 1.0
    # A line that only speaks of the thing gives it no other name.
    assert fill(part.slot, "Cold soak lasts two hours.", "", names, a)[0] == 0.0
    # The other name may be the heading the line sits under.
    assert fill(part.slot, "Let the unit sit overnight.", "Checklist Thermal dwell (AKA Cold Soak)", names, a) == (
        0.9, True)
