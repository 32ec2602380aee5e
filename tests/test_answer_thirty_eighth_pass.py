"""Issue #19, thirty-eighth session (the seventeenth blind pair's misses): a noun phrase typed alone asks for what it
names ("date of the board meeting after the september one"); a currency sign typed for the word asks for money; an
exit code is a number; the asker's own release of their system ("windows 10") is no constraint, and a version of a
product is said by a line that names only its major release ("python 2.7": "supported Python 2"); a rate is spoken of
by what it counts per what; "net revenue retention" is a share, not a sum (no index; sentences written for these
tests)."""

from __future__ import annotations

import pytest

from stigmergy.answer.asides import claimed, motive
from stigmergy.answer.names import Entity, Names
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.select import _says_event, alternatives, event_terms, word_score
from stigmergy.answer.service import _named
from stigmergy.answer.terms import question_terms
from tests.test_answer_slots import _fills as _slot_fills
from tests.test_answer_thirty_seventh_pass import _line, _terms, _words


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _fills(question: str, text: str) -> float:
    return _slot_fills(question, text, "", Names())  # no entity the wiki knows


def _holds(question: str, text: str) -> bool:
    """Whether every constraint of the question holds on the line."""
    return _words(question, text)[1]


def test_a_noun_phrase_typed_alone_asks_for_what_it_names() -> None:
    assert _slot("date of the board meeting after the september one?").kind == "date"
    assert _slot("harbor launch date?").kind == "date"
    assert _slot("lisbon office move: first day at the new place").kind == "date"  # the label before a colon
    assert (_slot("q4 2026 revenue, final number?").kind, _slot("q4 2026 revenue, final number?").unit) == (
        "quantity", "money")
    assert _slot("pip cache location on windows").kind == "place"
    # a case said first, before a comma ("in the pellucid pilot, …"), and a lag, which is a time however it is named
    q = "in the pellucid pilot, typical lag between a breach finishing and its report being ready?"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "time")
    assert _fills(q, "Median time from the end of an excursion to the report being available: 74 seconds.") == 1
    assert "typical" not in {t.word for t in _terms(q)}
    # a line that only speaks of dates holds none: the honest answer is a refusal
    q = "date of the board meeting after the september one?"
    assert _fills(q, "Decisions go in meeting notes, with owners and dates.") == 0
    assert _fills(q, "The next board meeting is on 12 December.") == 1
    # a phrase with a verb in it, or one asked to be told, is not a noun phrase
    assert _slot("pip install keeps failing on my mac").kind == "value"
    assert _slot("explain 'excursion budget' to me like i'm new").kind != "quantity"


# (question, the slot's kind and unit, a line that fills it, a line that does not): a currency sign typed for the word
# asks for money; an exit code is a number, not a code span; an amount of time and "how much sooner" ask a duration
_READ_AND_FILLED = (
    ("carrier pricing on harbor: whats the actual £ rate per million events", ("quantity", "money"),
     "Carriers pay £40 per million events.",
     "Pricing: included in the Professional plan; carriers pay per million events."),
    ("what exit code does pip uninstall give when the package isn't installed at all?", ("quantity", ""),
     "It exits with status 1 when nothing matches.", "python -m pip uninstall SomePackage"),
    ("minimum amount of time pip warns before dropping a documented behaviour?", ("quantity", "time"),
     "Any change will be deprecated for a minimum of 6 months before it is removed.",
     "We keep 3 warnings on the page."),  # a count is no duration
    ("once we moved off the old poller, how much quicker did the temp alerts go out?", ("quantity", "time"),
     "Excursion alerts fired on average 41 seconds sooner than on the poller.",
     "Alerts went out for 61 of the 1,310 shipments."),
)


@pytest.mark.parametrize(("q", "kind_unit", "filled", "not_filled"), _READ_AND_FILLED,
                         ids=["currency", "exit-code", "amount-of-time", "sooner"])
def test_a_typed_slot_is_read_and_filled_by_a_value_of_its_kind(q: str, kind_unit: tuple[str, str], filled: str,
                                                                 not_filled: str) -> None:
    assert (_slot(q).kind, _slot(q).unit) == kind_unit
    assert _fills(q, filled) > 0
    assert _fills(q, not_filled) == 0


def test_the_askers_own_release_of_their_system_is_no_constraint() -> None:
    q = "windows 10 - where should my personal pip.ini live?"
    [release] = [t for t in _terms(q) if t.figure]
    assert (release.claim, release.constraint) == ("example", False)
    assert _holds(q, "User : %APPDATA%\\pip\\pip.ini")
    # a yes-or-no question puts its release to the wiki, as it puts any figure (a claim to check, not an example)
    [release] = [t for t in _terms("is pip still supported on windows 7?") if t.figure]
    assert release.claim == "check"


def test_a_version_is_said_by_a_line_that_names_only_its_major_release() -> None:
    q = "last pip version that still worked on python 2.7?"
    assert _holds(q, "pip 20.3 was the last version of pip that supported Python 2.")
    assert not _holds(q, "pip 20.3 was the last version of pip that supported Python 3.")
    # a line that names another release as well says nothing of the one asked
    assert not _holds("which pip release dropped support for python 3.8?",
                      "Python 2 users should upgrade to Python 3, since pip 21.0 dropped support for Python 2.")
    # nor does a yes-or-no question take the major release for the version it asks about
    assert not _holds("does pip still support python 3.8?", "pip supports Python 3.")


def test_a_rate_is_spoken_of_by_what_it_counts_per_what() -> None:
    q = "norrland excursion rate in q3, per thousand shipments?"
    assert _fills(q, "Excursions per 1,000 shipments fell from 6.8 in Q2 to 5.1 in Q3.") > 0
    assert _fills(q, "There were 412 excursions in Q3.") == 0  # a count, not a rate


def test_a_measure_of_revenue_is_no_sum_of_money() -> None:
    q = "net revenue retention for 2025?"
    assert _slot(q).unit != "money"
    assert _fills(q, "Net revenue retention for the year was 118%.") == 1
    assert _slot("what was the revenue in q3").unit == "money"  # the sum itself still is


def test_an_env_var_asked_for_is_a_name_and_stuff_is_a_filler() -> None:
    assert _slot("is there an environment variable to stop pip checking for a newer version?") == Slot(
        "thing", head="variable")
    assert _slot("wipe all of pip's cached stuff in one go").kind == "procedure"
    assert "stuff" not in {t.word for t in _terms("wipe all of pip's cached stuff in one go")}


def test_a_legacy_thing_asked_about_is_not_the_old_form_of_it() -> None:
    # "the legacy poller" names the system the asker asks about: a line about it dates nothing
    q = "who switched the legacy poller off in the end?"
    line = "The legacy poller stayed on as a fallback and was switched off this morning, 26 June, by Grace Nakamura."
    assert _fills(q, line) == _fills(q, line.replace("legacy poller", "poller"))
    # … while for what holds now, a legacy file is the old one
    q = "where is my per-user pip config these days?"
    assert _fills(q, "The legacy per-user configuration file is also loaded: $HOME/.pip/pip.conf.") < _fills(
        q, "The per-user configuration file: $HOME/.config/pip/pip.conf.")


def test_after_all_the_others_names_an_order_not_an_event() -> None:
    q = "is there an env var that points pip at a config file that gets loaded after all the others?"
    assert _slot(q) == Slot("thing", head="variable")
    [part] = parts(q)
    line = _line("The environment variable PIP_CONFIG_FILE names a configuration file that is loaded last.")
    assert event_terms(part.text, _terms(q)) == []
    assert _says_event(event_terms(part.text, _terms(q)), line, {})
    # an event after "after" still is one: "who took over as lead after Ines moved"
    q = "who took over as harbor lead after Ines moved?"
    assert [t.word for t in event_terms(parts(q)[0].text, _terms(q))] == ["moved"]


def test_a_name_said_only_in_the_remark_after_the_question_is_no_constraint() -> None:
    q = "when did the g2 stock actually show up in leeds? sam was hoping for early aug"
    sam = Entity(7, "Samuel Achterberg", "person", frozenset({"samuel achterberg", "sam"}))
    names = Names({"samuel achterberg": sam, "sam": sam})
    [part] = parts(q)
    terms = motive(claimed(_named(question_terms(part.text), part.text, names), part.text, part.slot.kind), part.text)
    sam = next(t for t in terms if t.stem == "sam")
    assert sam.proper and sam.claim == "aside" and not sam.constraint
    # the same name in the clause that asks stays what a line must say
    q = "when did sam's g2 stock show up in leeds?"
    [part] = parts(q)
    terms = motive(claimed(_named(question_terms(part.text), part.text, names), part.text, part.slot.kind), part.text)
    assert next(t for t in terms if t.stem == "sam").constraint


def test_a_default_asked_for_is_not_a_value_the_asker_would_choose() -> None:
    q = "when i run pip install --upgrade without saying anything else, which upgrade strategy is used for the deps"
    chosen = "pip install --upgrade SomePackage --upgrade-strategy=eager: upgrades both SomePackage and SomeDependency."
    assert _fills(q, chosen) < _fills(q, "The default strategy is only-if-needed.") == 1
    # asked what a chosen value does, the line that sets it answers in full
    assert _fills("which upgrade strategy upgrades every dependency?", chosen) == 1


def test_a_term_defined_by_its_name_without_the_kind_typed_after_it() -> None:
    q = "in pip inspect json, what does the requested field mean"
    assert _slot(q).kind == "definition"
    assert _fills(q, "`requested`: `true` if the `REQUESTED` metadata is present, `false` otherwise.") == 1
    assert _fills(q, "`installer`: the name of the tool that installed the package.") == 0


def test_told_is_the_askers_frame_not_a_word_a_line_must_say() -> None:
    assert "told" not in {t.word for t in _terms("why am i told not to import pip from my own script?")}


def test_a_url_in_a_command_to_type_is_weakly_where() -> None:
    q = "i did pip install -e git+https://... inside my venv, where did it clone the repo to?"
    command = "python -m pip install 'SomeProject@git+https://git.repo/some_pkg.git@1.3.1'"
    said = "For editable installs the clone is made in <venv path>/src/SomeProject by default."
    assert _fills(q, command) < _fills(q, said) == 1
    assert _fills("where can i download get-pip.py?", "Download it from https://bootstrap.pypa.io/get-pip.py") == 1


def test_a_short_form_of_a_measure_asks_for_the_measure() -> None:
    q = "what temps can a g2 operate in?"
    assert (_slot(q).kind, _slot(q).head) == ("quantity", "temperature")
    assert _fills(q, "Operating temperature — Beacon G2: -30 °C to +60 °C.") == 1
    # a temperature is spoken of by its degrees, and an example the question names is what it asks about
    q = "what temp range is the dublin to cork hospitals lane?"
    lane = 'Lane: a route from an origin to a destination, for example "Dublin hub to Cork hospitals, 2–8 °C".'
    assert _fills(q, lane) == 1
    assert _fills("what temp range is the leeds to hull lane?", lane) < 1  # another lane's example only illustrates


def test_a_noun_phrase_asked_by_a_public_reader_is_answered_from_public_lines_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: the date a typed noun phrase asks for is stated only in the board layer. The public reader's answer is
    # an honest refusal that shows nothing of the board's page; the board reader is answered from it.
    import json

    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w")
    b.source("Board calendar", f"The next board meeting is on 12 December. {CANARY} stays in the room.\n",
             layer="board", occurred_at="2026-09-18", key="boardcal")
    b.source("How we meet", "Decisions go in meeting notes, with owners and dates.\n", occurred_at="2026-09-18",
             key="howwemeet")
    b.commit()
    answers = {reader: got[0] for reader, got in answers_by_reader(b, "date of the next board meeting?").items()}
    public = json.dumps(answers[PUBLIC])
    assert CANARY not in public and "12 December" not in public and "Board calendar" not in public
    assert not answers[PUBLIC]["answered"]
    assert answers[BOARD]["answered"] and "12 December" in json.dumps(answers[BOARD])  # the test can fail


def test_a_command_to_type_says_no_yes_or_no_and_a_file_is_said_by_its_kind() -> None:
    q = "if i put a package in constraints.txt that nothing else needs, will pip go and install it?"
    assert _fills(q, "python -m pip install -c constraints.txt") == 0
    said = "Including a package in a constraints file does not trigger installation of the package."
    assert _fills(q, said) == 1
    [term] = [t for t in _terms(q) if t.word == "constraints.txt"]
    assert word_score(_line(said), [term], {})[3] == ("constraints.txt",)
    assert word_score(_line("Including a package in a lock file pins it."), [term], {})[3] == ()


def test_the_piece_asked_about_is_defined_without_where_the_asker_met_it() -> None:
    q = "what's the #egg= bit at the end of a git url actually for"
    assert _fills(q, 'pip also looks at the `egg` fragment specifying the "project name".') > 0


def test_the_best_way_to_is_how_and_a_dm_is_a_direct_message() -> None:
    q = "whats the best way to ask grace a question, dm her?"
    words = {t.word for t in _terms(q)}
    assert not words & {"best", "way"} and "dm" in words
    line = "She prefers a written question in #sre to a direct message."
    assert "dm" in word_score(_line(line), _terms(q), alternatives((_line(line),), parts(q)[0], _terms(q), Names()))[3]
    assert "way" in {t.word for t in _terms("which way does the lane run?")}  # a way that is no "way to"


def test_getting_into_a_building_is_said_by_its_entrance() -> None:
    q = "working late in lisbon, how do i get into the building after 8pm?"
    line = "After 20:00 the side door on Travessa do Carvalho is the only entrance."
    terms = _terms(q)
    got = word_score(_line(line), terms, alternatives((_line(line),), parts(q)[0], terms, Names()))
    assert "building" in got[3]


def test_a_name_asked_for_is_a_name_and_a_sum_named_after_much_is_that_sum() -> None:
    q = "what's the name of the quinta we booked for the sintra offsite?"
    assert _slot(q) == Slot("thing", head="name")
    assert _fills(q, "Venue: a rented quinta outside Sintra, forty minutes away.") == 0  # speaks of it, names none
    assert _fills(q, "Venue: the `Quinta do Vale` outside Sintra.") == 1
    q = "how much rent are we paying for the new rua do alecrim office?"
    assert (_slot(q).unit, _slot(q).head) == ("money", "rent")
    assert _fills(q, "Lisbon office moves to Rua do Alecrim in October; one-off cost of about £65k.") == 0
    assert _fills(q, "The rent at Rua do Alecrim is £9,500 a month.") == 1


def test_a_default_is_no_answer_to_how_high_it_can_go() -> None:
    q = "carriers can get a higher harbor rate limit — how high can it go?"
    default = "Per-key rate limits. 600 requests per minute by default; carriers can ask for more."
    assert _fills(q, default) < _fills(q, "Carriers may be raised to 3,000 requests per minute.") == 1


def test_a_noun_phrase_that_names_only_the_slot_asks_about_nothing() -> None:
    # "date of?": no word of what the date is of, so nothing a line could answer (a line that says "a 15 September
    # date" was its answer, for saying "date")
    assert _terms("date of?") == []
    assert "date" not in {t.word for t in _terms("date of the next board meeting?")}
    assert "date" in {t.word for t in _terms("when is the due date for the renewal?")}  # a date named inside


def test_a_relative_day_the_line_dates_itself_is_not_dated_again() -> None:
    from stigmergy.answer.compose import _dated

    said = "The legacy poller was switched off this morning, 26 June, by Grace Nakamura."
    assert _dated(said, "2026-06-26") == said  # not "this morning (26 June 2026), 26 June"
    assert _dated("It was switched off this morning.", "2026-06-26") == (
        "It was switched off this morning (26 June 2026).")
