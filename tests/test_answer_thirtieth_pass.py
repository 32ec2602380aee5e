"""Issue #19, thirtieth pass: a second part's "it" stands for what the first part asks a value of ("what date did the
pilot start, and what is it worth": the pilot), and a frame before the question word is no subject; "the path of X"
asks where; a clause of doing or saying ("when using --strict", "when people say 'dwell time'") sets the scene; "the
reasoning behind" asks why; "what does passing --flag do" asks what the flag does; a list of versions gives the
oldest; a line that reports a question answers none; a command to type is how, and words in quotes are not code. No
index; sentences written for these tests."""

from __future__ import annotations

from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts, slot
from stigmergy.answer.slots import WEAK, fill, kind_fill
from stigmergy.answer.values import asked


def _fill(question: str, text: str) -> float:
    return kind_fill(slot(question), text, Names(), asked(question, Names()))


def _fill_in(question: str, text: str, context: str = "") -> float:
    return fill(slot(question), text, context, Names(), asked(question, Names()))[0]


def test_a_second_part_it_stands_for_what_the_first_part_asks_a_value_of() -> None:
    got = parts("what date did the pilot start, and what is it worth?")
    assert got[1].text == "what is the pilot worth" and got[1].carried == "the pilot"
    # the first part's own pronoun stands for its topic
    got = parts("for the Oslo pilot: what date did it kick off, and what's it worth to us?")
    assert got[1].text == "what is the Oslo pilot worth to us"
    got = parts("what format does the tool export, and which version added that command?")
    assert got[1].carried == "the tool"
    # a thing asked for is what a later "it" stands for: the backend needs setuptools, not the tool
    got = parts("what backend does the tool fall back to, and what minimum setuptools does it require?")
    assert got[1].carried == "backend"
    # a frame before the question word is no subject
    got = parts("on windows where does the tool keep its cache, and what's the command to wipe all of it?")
    assert "windows" not in got[1].carried and "cache" in got[1].carried


def test_the_path_of_a_file_asks_where() -> None:
    assert slot("on linux what's the path of my per-user config file").kind == "place"
    assert slot("what's the location of the user config?").kind == "place"
    assert _fill("on linux what's the path of my per-user config file", "User: per-user configuration file.") == 0.0
    assert _fill("on linux what's the path of my per-user config file", "User: $HOME/.config/tool/tool.conf") == 1.0


def test_a_clause_of_doing_or_saying_sets_the_scene() -> None:
    assert slot("when using --strict will the tool still read cached wheels").kind == "yesno"
    assert slot("new here: when people say 'dwell time' is that the same thing as a delay").kind == "yesno"
    # "when" that asks is still a date
    assert slot("when is the offsite").kind == "date"
    assert slot("when did people say the offsite is").kind == "date"


def test_the_reasoning_behind_asks_why_and_what_passing_a_flag_does_asks_what_it_does() -> None:
    assert slot("what is the reasoning behind installing dependencies first").kind == "reason"
    assert slot("what's the rationale for pinning everything").kind == "reason"
    assert slot("what does passing --report - (a dash) to the installer do") == Slot("definition", subject="--report")
    assert slot("what does setting the cache dir do").kind != "definition"


def test_a_list_of_versions_gives_the_oldest() -> None:
    q = "what is the oldest python version the current tool still works with"
    assert _fill_in(q, "CPython 3.9, 3.10, 3.11, 3.12, 3.13, and latest PyPy3.", "Supported Python versions") == 1.0
    # one version, said without "oldest", is any version
    assert _fill_in(q, "Python 3.12 is used in CI.", "Supported Python versions") == WEAK


def test_a_line_that_reports_a_question_answers_none() -> None:
    q = "do they have to swap their beta key now?"
    assert _fill_in(q, "[10:12] Hannah: Erik asks whether their beta key still works.") == 0.0
    assert _fill_in(q, "I said yes, beta keys are production keys now.") == 1.0
    # asked about the asking, the line that reports it may answer
    assert _fill_in("when did Erik ask whether the beta key still works?", "On 2 June Erik asks whether the beta key "
                                                                           "still works.") == 1.0


def test_a_command_to_type_is_how_and_words_in_quotes_are_not_code() -> None:
    q = "how do I generate a lock file for the project in the current folder"
    assert _fill(q, "python -m tool lock -e .") == 1.0
    assert _fill("how do i build the documentation locally", "$ nox -s docs") == 1.0
    assert _fill("how do i install only the test group", '"Dependency Groups" are lists of items to be installed.') == WEAK
    assert _fill("how do i point the tool at the proxy", "Packages from PyPI_ need internet access, often "
                                                         "through a proxy server.") == WEAK
    # a command that types only what the question names is no how, unless running it is asked
    assert _fill("how do i verify the signature of get-tool.py before running it", "$ python get-tool.py.") == 0.0
    assert _fill("how do i run get-tool.py once downloaded", "$ python get-tool.py.") == 1.0


def test_plain_words_for_what_a_document_says_formally() -> None:
    from stigmergy.answer.counts import says_head

    assert says_head("payroll", "Headcount — Q2 2026: 56.")
    assert says_head("max", "Take-home tasks are capped at three hours.")
    assert says_head("permanent", "Engineers have no standing access to customer data.")
    assert not says_head("payroll", "Revenue — Q2 2026: £2.1M.")


def test_a_command_that_uses_an_option_does_not_define_it() -> None:
    q = "what does passing --report - (a dash) to the installer do"
    assert _fill(q, "pip install \\ --dry-run --quiet --report - \\ pydantic") == 0.0
    assert _fill(q, "The --report option of the install command produces a JSON report of what it installed.") == 1.0
    assert _fill(q, "The --report option is mentioned in the changelog.") == WEAK


def test_having_something_done_after_a_yes_or_no_question_is_part_of_it() -> None:
    got = parts("can I put $TOKEN in requirements.txt and have the tool fill it in from the environment?")
    assert len(got) == 1 and got[0].slot.kind == "yesno"
    assert len(parts("is the cache shared and have they measured it?")) == 2


def test_a_prompt_choice_labelled_by_its_letter_is_the_word() -> None:
    from stigmergy.answer.names import words
    from stigmergy.answer.terms import stems

    assert "backup" in words("*(b)ackup* Rename the file or checkout")
    assert "backup" in stems("*(b)ackup* Rename the file or checkout")


def test_a_secret_named_by_three_words_is_still_a_secret() -> None:
    assert slot("what's the lisbon staff wifi password?").kind == "secret"
    assert slot("what's the wifi password policy?").kind != "secret"


def test_a_street_address_is_not_a_city() -> None:
    q = "what's the street address of Hannah's workspace in Gothenburg?"
    assert _fill(q, "Malmö — Hannah's desk at a shared workspace near the harbour.") <= WEAK
    assert _fill(q, "The workspace is at 12 Wharf Street, Gothenburg.") == 1.0


def test_when_something_went_away_is_said_by_a_line_that_speaks_of_its_going() -> None:
    q = "in which version was the legacy resolver code finally deleted?"
    assert _fill_in(q, "Tool 20.1: an alpha version of the new resolver was available, opt-in.") == WEAK
    assert _fill_in(q, "Tool 21.0: the old resolver is no longer supported.") == WEAK
    assert _fill_in(q, "Tool 22.3: the resolver code of old was removed.") == 1.0
