"""Issue #19, fifteenth pass: what documentation says in its own markup is read as a reader sees it (a
reStructuredText "#." list item is a statement, not a heading) and the asker's plain words find it ("write out":
"emit"). Sentences written for these tests."""

from __future__ import annotations

import pytest

from stigmergy.answer.otherwise import plainly
from stigmergy.answer.question import parts, slot
from stigmergy.answer.select import word_score
from stigmergy.answer.terms import question_terms, stem
from stigmergy.answer.units import source_units
from tests.test_answer_posts_and_terms import _line
from tests.test_answer_slots import _fills


def test_an_auto_numbered_item_is_a_statement() -> None:
    content = ["Examples", "========", "", "#. Emit a ``pylock.toml`` for the project in the current directory", "",
               "# A Markdown heading", "", "Plain text after it."]
    said = [u[2] for u in source_units(content, 1, 1)]
    assert any(s.endswith("Emit a ``pylock.toml`` for the project in the current directory") for s in said)
    assert not any("Markdown heading" in s for s in said)


def _says_more(question: str, plain: str, other: str) -> bool:
    """The line in plain words says more of the question than the other line does."""
    [part] = parts(question)
    terms = question_terms(part.text)
    alts = plainly(terms, part.text)
    return word_score(_line(plain), terms, alts)[0] > word_score(_line(other), terms, alts)[0]


def test_write_out_is_said_by_emit() -> None:
    assert _says_more("what file does pip lock write out", "Emit a pylock.toml for the project in the current directory.",
                      "Read a pylock.toml for the project in the current directory.")
    # Only "write out": "who wrote the lock file" is not said by a line that emits one.
    [who] = parts("who wrote the lock file")
    forms = plainly(question_terms(who.text), who.text).values()
    assert not any(stem("emit") in form for alts in forms for form in alts)


def test_the_things_a_colon_lists_name_which_ones() -> None:
    q = "Which AWS regions does Tidemark run in?"
    assert _fills(q, "Tidemark runs in two AWS regions: eu-west-2 (London) and eu-north-1 (Stockholm).") == 1.0
    # Two regions, with none named, say there are two, not which.
    assert _fills(q, "Tidemark runs in two AWS regions for its UK and Nordic customers.") == 0.0
    # A colon that gives back the question's own words names nothing.
    assert _fills("which team owns Tidemark?", "Tidemark team: Tidemark.") == 0.0


def test_a_count_of_something_else_after_the_sentence_that_counts_the_asked_noun() -> None:
    q = "how many lanes is the pilot running on"
    before = "Pellucid's pilot covers 42 lanes out of their Dublin hub."
    assert _fills(q, "So far 1,310 pilot shipments have run; 61 had an excursion.", before) == 0.0
    assert _fills(q, before) == 1.0
    # A number elsewhere in the sentence before ("on 5 August, two days late") does not count the noun.
    units = "how many G2 units went to Pellucid"
    assert _fills(units, "The team shipped 180 of them to Pellucid.", "G2 units arrived in Leeds on 5 August, two days late.") > 0


def test_hang_on_to_is_said_by_held() -> None:
    assert _says_more("how long does the gateway hang on to its readings?",
                      "Readings are held on the gateway for up to 30 days.", "Readings are sent by the gateway within 30 days.")
    # "hang" alone (a picture that hangs on the wall) is not keeping anything.
    [wall] = parts("where does the gateway hang?")
    assert not plainly(question_terms(wall.text), wall.text)


@pytest.mark.parametrize(("question", "head"), [
    ("Which programming language is the ingest service written in?", "language"),
    ("which packaging tool does pip recommend", "tool"),
    ("what are the meeting rooms in the leeds office called?", "rooms"),
    ("which pip release added the lock command", "release"),
])
def test_a_word_in_ing_right_after_which_qualifies_the_noun(question: str, head: str) -> None:
    assert slot(question).head == head


def test_a_verb_right_after_which_is_still_the_verb() -> None:
    assert slot("which happened first, the rename or the launch?").head == ""


RUNNING = """Running Tests
=============

It is preferable to run the tests in parallel, since they take a long time.

To run tests:

.. code-block:: console

    $ nox -s test-3.10 -- -n auto

To run tests without parallelization, run:

.. code-block:: console

    $ nox -s test-3.10

The example above runs tests against Python 3.10.
"""


def test_a_restructuredtext_code_block_reads_its_lead_in_and_the_paragraph_before_a_short_one() -> None:
    units = {u[2]: u[3] for u in source_units(RUNNING.split("\n"), 1, 0)}
    # "To run tests:" says little: the sentence before it says what the command is for.
    assert units["$ nox -s test-3.10 -- -n auto"] == ("It is preferable to run the tests in parallel, since they take a "
                                                       "long time. To run tests:")
    assert units["$ nox -s test-3.10"] == "To run tests without parallelization, run:"
    assert units["The example above runs tests against Python 3.10."] == ""  # the code block ended at the dedent


def test_what_a_line_does_without_is_not_what_it_says() -> None:
    [part] = parts("how do I run the tests in parallel")
    terms = question_terms(part.text)
    with_it = word_score(_line("Run the tests in parallel with nox."), terms, {})[0]
    without = word_score(_line("Run the tests without parallelization."), terms, {})[0]
    assert with_it > without


@pytest.mark.parametrize(("question", "head"), [
    ("whats the max length of a take home exercise", "length"),
    ("what is the maximum size of the cache", "size"),
    ("what is the minimum git version pip needs", "version"),
])
def test_the_utmost_of_a_measure_asks_for_the_measure(question: str, head: str) -> None:
    assert slot(question).kind == "quantity" and slot(question).head == head


def test_a_list_items_indented_paragraph_goes_on_with_the_item() -> None:
    content = ["### Additional restrictions", "", "- Hashes are required for _all_ requirements.", "",
               "  This is because a partially-hashed file is likely an error.", "",
               "  Note that URL hashes suffice.", "", "- Hashes are required for _all_ dependencies.", "",
               "A paragraph of its own.", "", "- One item.", "", "This starts at the margin."]
    units = {u[2]: u[3] for u in source_units(content, 1, 0)}
    assert units["This is because a partially-hashed file is likely an error."] == "- Hashes are required for _all_ requirements."
    assert units["Note that URL hashes suffice."] == "This is because a partially-hashed file is likely an error."
    assert units["A paragraph of its own."] == ""
    assert units["This starts at the margin."] == ""  # not indented: not the item's


def test_a_question_about_doing_without_is_said_by_without() -> None:
    [part] = parts("how do I install pip without internet access")
    terms = question_terms(part.text)
    offline = _line("To install without internet access, download the wheels first.")
    assert word_score(offline, terms, {}, lacking=True)[0] > word_score(offline, terms, {})[0]


def test_the_length_of_a_task_is_a_duration_or_a_length() -> None:
    # Sixteenth pass: "the max length of a take-home exercise" is answered by "capped at three hours", which never
    # says "length"; a length or a duration is a figure with its unit, not any figure.
    q = "whats the max length of a take home exercise for candidates"
    assert slot(q).unit == "extent" and slot("what is the duration of the pilot").unit == "extent"
    assert _fills(q, "Take-home tasks are capped at three hours and paid.") > 0
    assert _fills("what is the duration of the pilot", "The pilot runs for 6 weeks from 1 May.") > 0
    assert _fills(q, "We hire 12 engineers in 2026.") == 0


def test_a_library_may_be_called_a_package() -> None:
    # Sixteenth pass: "which library" is answered by "a separate package, resolvelib"; a line that names no
    # library, package or module at all does not fill it.
    q = "which library is the scheduler built on?"
    assert _fills(q, "The scheduler itself is based on a separate package, cronlite.") > 0
    assert _fills(q, "The scheduler runs every night at two.") == 0


def test_a_pipe_in_code_is_no_table_cell() -> None:
    # Sixteenth pass: as the planner reads them (statements._bare_split), two lines that each hold a shell pipe in
    # code are prose, while a table whose cells hold code stays a table.
    from stigmergy.answer.units import _bare_row
    shell = ["Run `grep x | sort` first.", "Then `cut -f1 | uniq` it."]
    assert not _bare_row(shell, 0) and not _bare_row(shell, 1)
    table = ["Code | Name", "`100` | `CONTINUE`", "`101` | `SWITCHING`"]
    assert _bare_row(table, 1) and _bare_row(table, 2)


def test_tildes_under_a_title_underline_a_heading_and_do_not_open_code() -> None:
    from stigmergy.answer.units import source_units

    content = ["# Page", "", "File logging", "~~~~~~~~~~~~", "", "pip offers the --log option for a log file.", "",
               "~~~", "pip install --log x.log", "~~~", "", "That is all there is."]
    units = {u[2]: u[5] for u in source_units(content, 1, 1)}
    assert units.get("pip offers the --log option for a log file.") == "File logging"
    assert "That is all there is." in units  # the fence after a blank line opened and closed
