"""Issue #19, forty-first session (the twentieth blind pair's misses, read once its figure was on record): whether a plan
held is asked in more words; a version is asked without a question word ("last pip that still ran on python 2.7?"); a
window is a span of time; a wish for a tool to do something asks how; a git command typed alone says neither yes nor
no; "is the X safe to use in prod?" wants a ruling; a sentence already said within an earlier one is not said twice;
a quarter's last day is said by the quarter; a temperature by its degrees; an acronym's plural is no proper name;
latency is a delay, an account a customer, each a per; "what value" is any figure; a post ends where a clause about it
begins; "py3" is Python 3; a tool's word and two more are a command only where typed as one; a case after the question
("…, when hacking on pip") is no second question; "what does that even mean" asks about "that" (no index; sentences
written for these tests)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stigmergy.answer.asked_post import role
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.procedure import is_command
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.select import alternatives, score_part, word_score
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked
from tests.test_answer_slots import _fills as _slot_fills


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _fills(question: str, text: str, context: str = "") -> float:
    return _slot_fills(question, text, context, Names())  # no entity the wiki knows


def _line(text: str, title: str = "Notes", line: int = 5) -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", line, text, text, (), (), 1, "")


def _words(question: str, text: str, title: str = "Notes") -> tuple[float, bool]:
    """(the words score, whether every constraint of the question holds on the line)."""
    terms = question_terms(question)
    part = parts(question)[0]
    got = word_score(_line(text, title), terms, alternatives((_line(text, title),), part, terms, Names()))
    return got[0], got[2]


@pytest.mark.parametrize("question", [
    "was the billing cutover end of march like the plan said, or did it move?",
    "customers were told it ships on 15 may. is that still the date or did it slip?",
])
def test_whether_a_plan_held_asked_in_more_words_is_not_decided_by_the_plan(question: str) -> None:
    assert _slot(question).kind == "yesno"
    assert _fills(question, "Billing cutover — Planned: 30 March 2027; Status: not started") < 1
    assert _fills(question, "The billing cutover happened on 14 April.") == 1
    # a plan asked about plainly is still decided by it
    assert _fills("is the billing cutover end of march?", "Billing cutover — Planned: 30 March 2027") == 1


@pytest.mark.parametrize(("question", "subject", "line"), [
    ("last pip that still ran on python 2.7?", "pip", "pip 20.3 was the last version of pip that supported Python 2."),
    ("oldest cpython that the tool still officially runs on?", "cpython", "The tool supports CPython 3.9 and later."),
])
def test_a_version_asked_without_a_question_word_is_a_version(question: str, subject: str, line: str) -> None:
    got = _slot(question)
    assert (got.kind, got.unit, got.subject) == ("quantity", "version", subject)
    assert _fills(question, line) == 1


@pytest.mark.parametrize("question", ["first aid kit location?", "last Friday standup, who ran it?"])
def test_first_or_last_before_another_word_is_no_version(question: str) -> None:
    assert _slot(question).unit != "version"


def test_a_window_is_a_span_of_time() -> None:
    q = "min deprecation window before the tool drops some documented behaviour"
    assert (_slot(q).kind, _slot(q).head) == ("quantity", "window")
    assert _fills(q, "Any change that removes documented behavior will be deprecated for a minimum of 6 months.") == 1
    assert _fills(q, "Deprecations are announced in the changelog.") == 0
    assert _fills(q, "Deprecated options are listed in 3 places.") == 0  # a figure of no time or length


@pytest.mark.parametrize("question", [
    "want pip to just tell me in json what it would install w/o touching the env",
    "need pip to ignore every config file on the machine for one CI job",
])
def test_a_wish_for_the_tool_to_do_something_asks_how(question: str) -> None:
    assert _slot(question).kind == "procedure"


@pytest.mark.parametrize(("question", "kind"), [("i want to know who runs harbor", "person"),
                                                ("we want to know when lodestar ships", "date")])
def test_wanting_to_know_still_asks_its_question(question: str, kind: str) -> None:
    assert _slot(question).kind == kind


def test_a_git_command_typed_alone_says_neither_yes_nor_no() -> None:
    assert is_command("git fetch upstream") and is_command("git checkout -b my-fix")
    assert not is_command("git is the version control system pip supports best.")
    assert _fills("does pip handle bazaar repos or only git", "git fetch upstream") == 0


@pytest.mark.parametrize("question", ["is the pip.pyz zipapp safe to use in prod?",
                                      "are md5 hashes fine for hash-checking mode?"])
def test_is_the_thing_fine_to_use_wants_a_ruling(question: str) -> None:
    assert _fills(question, "The zip application should not be used in production environments.") == 1
    assert _fills(question, "The zip application can be downloaded from the bootstrap site.") < 1


def test_a_quarters_last_day_is_said_by_the_quarter() -> None:
    q = "how much cash did we have left at 30 sept"
    assert _words(q, "Cash at quarter end: £11.9M in Q3 2026.")[1]
    # another day of the month is no quarter's end: the line about the quarter does not say it
    assert not _words("how much cash did we have left at 12 sept", "Cash at quarter end: £11.9M in Q3 2026.")[1]


def test_a_temperature_is_said_by_its_degrees() -> None:
    q = "what temperature range is the G2 rated for"
    assert _fills(q, "Operating range — Beacon G2: -30 C to +60 C") == 1
    assert _fills(q, "Operating range — Beacon G2: 30 to 60 units") == 0
    part = parts(q)[0]
    [scored] = score_part((_line("Operating range — Beacon G2: -30 C to +60 C"),), part, question_terms(q), Names(),
                          asked(q, Names()), None, None)
    assert "temperature" not in scored.matched and scored.words > 0.4  # the word the unit says weighs nothing


def test_an_acronyms_plural_is_no_proper_name() -> None:
    [urls] = [t for t in question_terms("old example.io URLs, until when do they keep forwarding") if t.stem == "url"]
    assert not urls.proper and not urls.constraint


@pytest.mark.parametrize(("question", "text"), [
    ("what was median latency from gateway to app?", "Median delay 3.9 seconds."),
    ("april backlog, how many accounts were affected", "41 customers were affected, including Norrland."),
])
def test_a_measure_is_said_by_its_plainer_name(question: str, text: str) -> None:
    assert _fills(question, text) == 1


def test_each_is_said_by_per() -> None:
    q = "how long did each excursion report take them by hand?"
    with_per, plain = _words(q, "It takes her team about 25 minutes per excursion report by hand."), _words(
        q, "It takes her team about 25 minutes for an excursion report by hand.")
    assert with_per[0] > plain[0]


def test_what_value_asks_for_any_figure() -> None:
    q = "if nobody sets an activation energy per product, what value does it fall back to"
    assert _fills(q, "An activation energy configurable per product (default 83.144 kJ/mol).") == 1


def test_a_post_ends_where_a_clause_about_it_begins() -> None:
    assert role("who's the partner we deal with there") == "partner"
    assert role("who is the head of marketing?") == "head of marketing"
    assert role("who is the IT lead?") == "IT lead"  # a post's acronym, not a pronoun


def test_py3_is_python_3() -> None:
    q = "which version flipped the new resolver on by default for py3 users"
    assert _words(q, "pip 20.3: pip defaults to the new resolver in Python 3 environments.")[1]
    assert not _words(q, "pip 20.2: a beta of the new resolver was available.")[1]


def test_a_tools_word_and_two_more_are_a_command_only_where_typed_as_one() -> None:
    from stigmergy.answer.service import commands

    q = "env var to load one more pip config file last"
    terms = [replace(t, everywhere=t.word == "pip") for t in question_terms(q)]
    prose = _line("Like all options, it can also be placed into the pip config file.")
    assert commands(q, terms, (prose,)) == []
    assert [c.stem for c in commands(q, terms, (_line("`pip config file` edits it."),))] == ["pip config file"]


def test_a_case_after_the_question_is_no_second_question() -> None:
    assert _slot("whats the --debug global flag for, when hacking on pip").kind != "date"
    # a question after a clause still asks
    assert _slot("pip list grows a column when i have editable installs, what's that column called").kind != "date"


def test_what_does_that_even_mean_asks_about_that() -> None:
    assert _slot("got ResolutionTooDeepError, what does that even mean").subject == "that"


def test_any_command_to_asks_for_a_command() -> None:
    assert (_slot("any pip command to sanity check installed versions").kind,
            _slot("any pip command to sanity check installed versions").head) == ("thing", "command")


def test_a_sentence_said_within_an_earlier_one_is_not_said_again() -> None:
    from stigmergy.answer.service import said_within

    said = [{"text": "The zip application is currently experimental. We test it. It should not be used in production."}]
    assert said_within("the zip application is currently experimental.", said) == 0
    assert said_within("it should not be used in production.", said) == 0
    # words within other words, and another sentence, are not said
    assert said_within("pplication is currently experimental.", said) is None
    assert said_within("the zip application is stable.", said) is None


def test_a_bare_name_in_code_is_no_how() -> None:
    q = "pass key=value settings through to the build backend from the command line"
    assert _slot(q).kind == "procedure"
    assert _fills(q, "Newer versions of `setuptools` will use `pip` for these, but cannot pass through arguments.") < 1
    assert _fills(q, "Settings provided via `--config-settings` options are passed to the build backend.") == 1


def test_their_name_after_a_dash_asks_a_name() -> None:
    q = "the mid-sized account we lost in Q3 because it got bought — what was their name"
    assert (_slot(q).kind, _slot(q).head) == ("thing", "name")
    assert _fills(q, "One mid-sized customer churned after being acquired by a competitor's customer.") == 0


@pytest.mark.parametrize(("adverb", "adjective"), [("eagerly", "eager"), ("quickly", "quick"), ("weekly", "week"),
                                                   ("exactly", "exact"), ("correctly", "correct")])
def test_an_adverb_is_said_by_its_adjective(adverb: str, adjective: str) -> None:
    from stigmergy.answer.terms import stem

    assert stem(adverb) == stem(adjective)


@pytest.mark.parametrize("word", ["only", "early", "family", "reply"])
def test_a_word_that_only_ends_like_an_adverb_keeps_its_stem(word: str) -> None:
    import snowballstemmer

    from stigmergy.answer.terms import stem

    assert stem(word) == snowballstemmer.stemmer("porter").stemWord(word)


@pytest.mark.parametrize(("question", "text"), [
    ("how do i get pip to go through our company http gateway", "In many corporate environments an HTTP proxy is needed."),
    ("how do i hand pip a custom CA bundle file", "The `--cert` option lets users give a different certificate bundle."),
    ("how do i feed options to the build backend from the pip cli", "Settings given on the command line reach the backend."),
    ("my build needs an ancient setuptools, will it downgrade mine", "A project that needs an older setuptools builds."),
])
def test_plainer_words_say_the_askers(question: str, text: str) -> None:
    """company: corporate; CA: certificate (typed in capitals too); cli: command line; ancient: older."""
    terms = question_terms(question)
    part = parts(question)[0]
    alts = alternatives((_line(text),), part, terms, Names())
    assert word_score(_line(text), terms, alts)[0] > word_score(_line(text), terms, {})[0]


def test_how_a_thing_gets_done_is_said_by_who_does_it() -> None:
    q = "how do i get my travel expenses approved"
    assert _fills(q, "Expenses and travel: Rory MacAllister's finance team approves within five days.") == 1
    assert _fills(q, "Travel expenses are listed in the quarterly report.") == 0  # says nothing of approving


def test_any_figure_asked_is_answered_only_from_the_readers_own_pages(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: "what value" now takes any figure (above), and the board minutes hold one. A public reader asking for it
    # gets a refusal that says nothing of the minutes; the board reader gets the figure.
    import json

    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w", index=False)
    got = answers_by_reader(b, "orbis offered to acquire aurora - what value did they put on it?")
    [public], [board] = got[PUBLIC], got[BOARD]
    said = json.dumps(public)
    assert CANARY not in said and "72M" not in said and "Orbis offered" not in said
    assert board["answered"] and "$72M" in board["sentences"][0]["text"]  # the test can fail


def test_asked_whether_one_can_a_command_that_does_it_shows_how() -> None:
    q = "made a venv with --without-pip. can my global pip install stuff into it somehow?"
    assert _fills(q, "$ python -m venv .venv --without-pip $ pip --python .venv install SomePackage") == 1
    # a command that types only what the question does, or a yes/no that asks no ability, decides nothing
    assert _fills(q, "$ python -m venv .venv --without-pip") == 0
    assert _fills("does pip install build isolation by default?", "$ pip install --no-build-isolation .") == 0


def test_a_quoted_list_of_choices_is_no_phrase() -> None:
    from types import SimpleNamespace

    from stigmergy.answer.service import _quoted_unsaid as unsaid

    def _quoted_unsaid(q: str, lines: tuple) -> bool:  # type: ignore[type-arg]
        return unsaid(q, parts(q)[0].slot, lines)

    lines = (SimpleNamespace(text="*(b)ackup* Rename the file or checkout to a .bak name."),)
    assert not _quoted_unsaid("pip asked me '(i)gnore, (w)ipe, (b)ackup, (a)bort' for a dir, what does backup do?",
                              lines)  # type: ignore[arg-type]
    assert _quoted_unsaid("what does the 'backup was not restored' message mean?", lines)  # type: ignore[arg-type]
