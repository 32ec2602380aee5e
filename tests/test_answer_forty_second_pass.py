"""Issue #19, forty-second session (the twenty-first blind pair's misses, read once its figure was on record): a line
that bounds a product's releases ("On Python 3.10 or later") speaks of every release of that major version; "p99" is
the 99th percentile; an annual value is said "a year", a value by what a thing is worth, and a credit is money;
"X - what is that thing" asks what X is, and a line that says X is another name of something defines it; "+" joins
two questions, and so does a comma before a question word with its verb; a topic the wiki knows, typed before a dash,
is what every later part asks about; a remark after a dash, or after a noun phrase typed as the question, asks
nothing, and a plan the asker recalls is the figure the answer may correct; "is there" stands for nothing; "why'd"
is "why did"; a table row's cells are one record; a bracketed letter is a prompt's choice; an option with the asker's
own argument, or their own shell line, names no page, and a page naming one of two commands is read; a variable the
docs write as a pattern ("PIP_<UPPER_LONG_NAME>") is one instance of it (no index; sentences written for these
tests)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from stigmergy.answer import files
from stigmergy.answer.asides import claimed
from stigmergy.answer.defining import defines
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.select import alternatives, word_score
from stigmergy.answer.terms import question_terms
from tests.test_answer_slots import _fills as _slot_fills


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _fills(question: str, text: str, context: str = "") -> float:
    return _slot_fills(question, text, context, Names())


def _line(text: str, title: str = "Notes") -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", 5, text, text, (), (), 1, "")


def _holds(question: str, text: str) -> bool:
    """Whether every constraint of the question (a figure it names) holds on the line."""
    part = parts(question)[0]
    terms = claimed(question_terms(part.text), part.text, part.slot.kind)
    line = _line(text)
    return word_score(line, terms, alternatives((line,), part, terms, Names()))[2]


@pytest.mark.parametrize("question", [
    "on python 3.12, does the tool trust the OS certificate store by default?",
    "on python 3.12 what does the tool check certificates against",
    "my python 3.9 venv gets ssl errors but the 3.11 one works fine. why",
])
def test_a_bound_on_a_products_releases_speaks_of_every_release_of_that_major_version(question: str) -> None:
    assert _holds(question, "On Python 3.10 or later, by default system certificates are used in addition to certifi.")
    assert _holds(question, "On Python 3.9 or earlier, only certifi is used.")
    # a bound on another product's releases, or one of another major version that leaves the release out, does not
    assert not _holds(question, "To use system certificates with pip v22.2 or later, you must opt in.")
    assert not _holds(question, "On Python 4.0 or later, certifi is used.")
    assert not _holds(question, "Before Python 2.7, certifi was used.")


def test_a_bound_of_another_major_version_speaks_of_the_releases_within_it() -> None:
    q = "im on pip 23, how do i get it to trust the certs from my OS store"
    assert _holds(q, "To use system certificates with pip v22.2 or later, you must opt in.")
    assert not _holds(q, "With pip v24.2 or later, system certificates are used by default.")


def test_p99_is_the_99th_percentile() -> None:
    assert _holds("what was the p99 delay on the new path", "99th percentile delay: 19 seconds on the new path.")
    assert not _holds("what was the p99 delay on the new path", "95th percentile delay: 9 seconds on the new path.")


def test_an_annual_value_is_said_a_year_and_by_what_it_is_worth() -> None:
    q = "what's the annual value of the pellucid enterprise deal"
    assert _slot(q).kind == "quantity"
    assert _fills(q, "Pellucid signed a three-year Enterprise contract, worth £410k a year.") == 1
    assert _fills(q, "Pellucid signed a three-year Enterprise contract on 29 September.") == 0  # no figure


def test_what_is_that_thing_after_a_dash_asks_what_the_thing_is() -> None:
    q = "'ingest health' dashboard - what is that thing"
    got = _slot(q)
    assert (got.kind, got.subject) == ("definition", "'ingest health' dashboard")
    assert _fills(q, 'The comparison dashboard, renamed "ingest health", now owned by the platform team.') == 1


def test_a_line_that_gives_another_name_defines_the_name() -> None:
    assert defines("ingest health", 'The comparison dashboard, renamed "ingest health", is owned by the platform team.')
    assert defines("ingest health", "The comparison dashboard (also known as ingest health) shows both paths.")
    assert not defines("ingest health", "The ingest health dashboard was renamed last week.")


def test_a_plus_joins_two_questions() -> None:
    got = parts("rate limit per harbor key by default + what's the overage fee if a carrier goes over")
    assert [p.slot.kind for p in got] == ["quantity", "quantity"]
    assert got[1].slot.unit == "money"
    got = parts("g2 specs pls: operating temp range + reading interval range")
    assert len(got) == 2 and got[1].text == "reading interval range"


def test_a_noun_phrase_question_keeps_its_slot_past_the_remark_after_it() -> None:
    q = "driftwood M2 date? plan had 10 april"
    assert _slot(q).kind == "date"
    [part] = parts(q)
    ten = next(t for t in claimed(question_terms(part.text), part.text, "date") if t.word == "10")
    assert ten.claim == "check"  # the planned date is what the answer may correct, not what it must say


def test_a_credit_is_money() -> None:
    q = "what credit did norrland get for the april outage"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "money")
    assert _fills(q, "The April incident cost us one service credit (£8k, Norrland Fresh).") == 1
    assert _fills(q, "He accepted the service credit and asked about the new path.") == 0


def test_is_there_stands_for_nothing() -> None:
    got = parts("with --progress-bar=raw what does each line look like, and is there a setting for json events instead?")
    assert got[1].text == "is there a setting for json events instead" and not got[1].carried
    # a "there" that stands for a place still carries it
    assert parts("where is the lisbon office and who works there?")[1].carried


@pytest.mark.parametrize(("question", "named"), [
    ("can i put `-e ./mylib` inside constraints.txt?", {"constraints.txt"}),
    ("i did `export PIP_NO_CACHE_DIR=` to switch it off", set()),
    ("can `pip lock` write a poetry.lock instead?", {"pip lock", "poetry.lock"}),
    ("does `pip list --format=freeze` show editables like `pip freeze` does?", {"pip list", "pip freeze"}),
])
def test_an_option_with_the_askers_argument_or_their_own_shell_line_names_no_page(question: str, named: set[str]) -> None:
    assert files.named(question) == named


def test_a_page_that_names_one_of_the_asked_commands_is_read() -> None:
    pages = [{"path": "a.md", "title": "Pip list", "content": "Contrary to the freeze command, pip list --format=freeze …"},
             {"path": "b.md", "title": "Caching", "content": "the wheel cache"}]
    assert files.pages_naming(frozenset({"pip list", "pip freeze"}), pages) == {"a.md"}
    assert files.pages_naming(frozenset({"pip lock"}), pages) == frozenset()  # a command no page names: nothing read
    # a file the asker names is named by the page that answers, whatever else a page names
    assert files.pages_naming(frozenset({"pip list", "poetry.lock"}), pages) == frozenset()
    assert files.pages_naming(frozenset({"pip list", "pip lock"}), pages) == {"a.md"}


def test_a_variable_the_docs_write_as_a_pattern_is_one_instance_of_it() -> None:
    from stigmergy.answer.service import _instances

    q = "i did `export PIP_NO_CACHE_DIR=` (empty). does pip treat the empty value as false?"
    terms = question_terms(q)
    var = next(t for t in terms if t.word == "PIP_NO_CACHE_DIR")
    assert var.constraint
    pattern = (SimpleNamespace(text="Options can be set with variables of the format `PIP_<UPPER_LONG_NAME>`."),)
    got = next(t for t in _instances(terms, pattern) if t.word == "PIP_NO_CACHE_DIR")  # type: ignore[arg-type]
    assert not got.constraint
    # a variable a line of the evidence writes stays what the answer must say
    named = (*pattern, SimpleNamespace(text="PIP_NO_CACHE_DIR=false turns the cache off."))
    assert next(t for t in _instances(terms, named) if t.word == "PIP_NO_CACHE_DIR").constraint  # type: ignore[arg-type]


def test_a_page_naming_one_of_the_asked_commands_is_read_only_where_the_reader_may(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: a question naming two commands now reads a page that names one of them. The board minutes name one
    # ("orbis offered"); a public reader's answer says nothing of them, the board reader's is read from them.
    from test_answer_support import CANARY, said_by_reader

    said, board = said_by_reader(tmp_path / "w", "what did `orbis offered` and `aurora declined` say about the price?")
    assert CANARY not in said and "72M" not in said and "Orbis offered" not in said
    assert "$72M" in board  # the test can fail


def test_a_letter_in_brackets_is_a_prompts_choice_where_the_question_speaks_of_choices() -> None:
    q = "pip asks me what to do since the path already exists and one choice is (b). what does b actually do"
    assert "(b)" in [t.word for t in question_terms(q)]
    assert _holds(q, "*(b)ackup* Rename the file or checkout to a .bak name.")
    assert not _holds(q, "*(w)ipe* Delete the file or VCS checkout.")
    # a bracketed letter in a question about something else labels a list item, not a choice
    assert "(b)" not in [t.word for t in question_terms("in step (b) of the install guide, which cable goes first")]


def test_a_question_then_a_comma_and_another_question_is_two_parts() -> None:
    got = parts("is our iso 27001 still valid, when was it last renewed")
    assert [p.slot.kind for p in got] == ["yesno", "date"]
    # a case after the comma ("when i have no internet") or before it ("when i hack on it, what …") is no second
    # question, nor is the same kind asked again in other words
    assert len(parts("how do i install the tool, when i have no internet")) == 1
    assert len(parts("when I hack on the tool's source, what does the --debug switch change?")) == 1
    assert len(parts("whats the capacity of the new lisbon office, how many people fit?")) == 1


def test_a_remark_after_a_dash_keeps_its_words_but_asks_nothing() -> None:
    [part] = parts("so what exactly is a telemetry gap — chart shows hatching")
    assert (part.slot.kind, part.slot.subject) == ("definition", "telemetry gap")
    [part] = parts("which office is our HQ — wharf street one?")
    assert part.slot.kind == "place" and "wharf street" in part.text


def test_whyd_asks_why() -> None:
    assert _slot("why'd we drop the coldtrace name in the end?").kind == "reason"
    assert parts("how'd they fix the backlog?")[0].text == "how did they fix the backlog"


def test_a_topic_the_wiki_knows_is_what_every_later_part_asks_about() -> None:
    from stigmergy.answer.pronouns import topic_carried
    from tests.test_answer_slots import _names

    names = _names()  # knows Lisbon, not "offsite" or "history"
    first, second = topic_carried(parts("lisbon office: what are the meeting rooms called and which days are we in?"),
                                  names)
    assert (second.text, second.carried) == ("lisbon office: which days are we in", "lisbon office")
    # a topic of plain words, one with a figure, or a frame, is how the asker came to the question
    for q in ("bit of history: what flag turned on the alpha, and what about the beta?",
              "lisbon 2026 - where is the office, and what does the lab hold?",
              "on a lisbon trip: where is the office and what does the lab hold?"):
        assert all(not p.carried for p in topic_carried(parts(q), names))


def test_a_table_rows_cells_are_one_record() -> None:
    from tests.test_answer_slots import _names

    q = "lisbon: who is the first aid person"
    assert _slot_fills(q, "| First aid | Kitchen | Daniel Ferreira |", "", _names()) == 1
    # in prose, a post and a name in two clauses are still two people's
    assert _slot_fills(q, "First aid kits are in the kitchen; Daniel Ferreira runs the office.", "", _names()) < 1


def test_what_x_names_asks_which_x() -> None:
    assert (_slot("lisbon: what room names can i book").kind, _slot("lisbon: what room names can i book").head) == (
        "thing", "room")


def test_a_metre_written_apart_from_its_figure_is_a_length() -> None:
    q = "what height off the floor should the box go"
    assert _fills(q, "Mount the gateway at least 1.5 m above the floor.") == 1
    assert _fills("how much did the round raise", "The round raised £1.5 m from two funds.") == 1  # money, not metres
    assert _fills(q, "The round raised 1.5 m from two funds.") == 0
    assert _fills(q, "Revenue grew 1.5 m over two years.") == 0


def test_a_statement_then_the_sentence_that_asks() -> None:
    q = "security folks told us never to use --extra-index-url for our internal packages. whats the reasoning?"
    assert _slot(q).kind == "reason"


def test_when_before_a_verb_in_ing_opens_a_case_not_a_question() -> None:
    assert _slot("pip.conf: shorter timeout only when running pip freeze").kind != "date"
    assert _slot("when is the offsite").kind == "date"  # a question word with its verb still asks
    assert _slot("when did the cutover happen").kind == "date"


def test_a_piece_of_the_askers_example_version_is_the_example() -> None:
    q = "pip versions look like 24.2 - what does the 2 part mean?"
    part = parts(q)[0]
    two = next(t for t in claimed(question_terms(part.text), part.text, part.slot.kind) if t.word == "2")
    assert two.claim == "example" and not two.constraint


def test_the_askers_hedge_is_no_word_of_the_term() -> None:
    got = _slot("pharma folks keep saying MKT on calls. what is it actually")
    assert (got.kind, got.subject) == ("definition", "MKT")
    assert _fills("what is MKT actually", "**Mean kinetic temperature (MKT)** — a single temperature that …") == 1


def test_one_on_one_is_a_kind_of_interview_and_folks_are_people() -> None:
    q = "2020 ux study - how many folks got interviewed 1:1"
    assert "1" not in [t.word for t in question_terms(parts(q)[0].text)]
    assert _fills(q, "In total, we interviewed 48 pip users, recruited from the user panel.") == 1


def test_a_version_written_after_another_named_product_is_that_products() -> None:
    q = "which truststore version is bundled with pip 25.1?"
    assert _fills(q, "To use system certificates with pip v22.2 or later, you must opt in with truststore.") == 0
    assert _fills(q, "pip 25.1 bundles truststore 0.10.1.") == 1


def test_an_example_figure_no_page_writes_adds_nothing_to_the_words_score() -> None:
    from dataclasses import replace

    q = "on pip 25.1 which truststore version is bundled"
    terms = [replace(t, claim="example", absent=True, bounded="pip") if t.word == "25.1" else t
             for t in question_terms(q)]
    line = _line("With pip v22.2 or later, the truststore version bundled is 0.10.")
    got = word_score(line, terms, {})[0]
    assert got <= 1.0  # the example is matched on the line but was never part of the whole it is a share of


def test_a_version_after_the_word_version_is_no_other_products() -> None:
    q = "since what pip version does pip write the REQUESTED metadata file?"
    assert _fills(q, "It is generated by pip since version 20.2.") == 1
