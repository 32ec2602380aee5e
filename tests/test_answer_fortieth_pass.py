"""Issue #19, fortieth session (the nineteenth blind pair's wrong answers, read once its first figure was on record):
what came to pass is not said by a plan, a budget or a forecast; "what did X end up costing" and "what did we book in
revenue" ask for a sum; "q2 revenue — the draft had one number, what's the final?" asks for the measure named before
it; "where did it land" after a figure asks for the figure; "X — ok for prod or not?" asks yes or no and wants a ruling;
"is there a pip setting that …" asks for the setting; where to report something is an address; whether an option exists
is decided by a line that names one; something to do typed without a question word asks how; a version number alone
tells no how; "pip hash - what does it give me" asks what pip hash is; the period of "e.g." ends no sentence; a
typical figure asked is not given by one case's; a web address is a domain; "Dan Ferreira's title?" asks a role, and a
title given for the person's team is another's (no index; sentences written for these tests)."""

from __future__ import annotations

import pytest

from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.units import _sentences
from tests.test_answer_slots import _fills as _slot_fills


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _fills(question: str, text: str, context: str = "") -> float:
    return _slot_fills(question, text, context, Names())  # no entity the wiki knows


def test_asked_what_came_to_pass_a_plan_or_a_budget_fills_weakly() -> None:
    q = "what did the office move end up costing? not the budget, the real number"
    assert _fills(q, "Finance budgeted about £40k for the office move.") < 1
    assert _fills(q, "The office move came in at £43,800 all told.") == 1
    q = "what did we actually bill in revenue for Q1 2027?"
    # an outlook section's line is a forecast, whatever its own words
    assert _fills(q, "Revenue of about £3.4M for the quarter.", "Outlook for Q1 2027") < 1
    assert _fills(q, "Revenue for Q1 2027 closed at £3.1M.", "Results") == 1
    # a question that asks for the plan still gets it
    assert _fills("what was the budget for the office move?", "Finance budgeted about £40k for the office move.") == 1


def test_asked_whether_a_plan_held_a_line_that_only_gives_the_plan_decides_weakly() -> None:
    q = "did the billing cutover happen on its planned date?"
    assert _fills(q, "The billing cutover is planned for 3 March.") < 1
    assert _fills(q, "The billing cutover was planned for 3 March and went live on 9 March.") == 1
    # a yes/no question that asks nothing of a plan is decided by the same line
    assert _fills("is the billing cutover in march?", "The billing cutover is planned for 3 March.") == 1


@pytest.mark.parametrize("question", [
    "what did the office move end up costing in the end",
    "what did the rebrand wind up costing us",
    "what did we book in revenue for the quarter",
    "what did we bring in in sales last year",
])
def test_what_a_thing_came_to_cost_or_bring_in_is_a_sum(question: str) -> None:
    assert (_slot(question).kind, _slot(question).unit) == ("quantity", "money")


def test_the_later_one_of_a_measure_named_earlier_is_that_measure() -> None:
    got = _slot("q1 revenue — the march draft had one number, what's the final?")
    assert (got.kind, got.head, got.unit) == ("quantity", "revenue", "money")
    got = _slot("harbor pilot carrier count — the kickoff deck had a number but what's the later one?")
    assert (got.kind, got.head, got.unit) == ("quantity", "carrier", "count")
    # a line that speaks of the draft and gives no revenue fills nothing
    assert _fills("q1 revenue — the march draft had one number, what's the final?",
                  "This version replaces the draft circulated on 2 April.") == 0
    # nothing measured named before it: the question is read as it was
    assert _slot("the march draft had a typo, what's the final?").kind == "value"


def test_where_a_figure_landed_is_the_figure_not_a_place() -> None:
    got = _slot("in january we guessed ~9.5M ARR for end of Q1. where did it land?")
    assert (got.kind, got.unit) == ("quantity", "money")
    assert _slot("where did the team land after the move?").kind == "place"


@pytest.mark.parametrize("question", [
    "zipapp version of the tool (tool.pyz) — ok for our production servers or not?",
    "the nightly build: safe for customer demos?",
    "tool.pyz, ok for prod or not?",
])
def test_ok_or_not_without_an_auxiliary_asks_yes_or_no(question: str) -> None:
    assert _slot(question).kind == "yesno"
    # a line that rules on it decides; one that only describes the thing, weakly
    assert _fills(question, "The zip application should not be used in production environments.") == 1
    assert _fills(question, "The tool is also available as a standalone zip application.") < 1


def test_a_measure_allowed_in_a_thing_is_no_yes_or_no() -> None:
    assert _slot("max line length allowed in a requirements.txt file").kind == "quantity"


def test_an_auxiliary_before_allowed_says_when_not_whether() -> None:
    assert _slot("min warning period before pip is allowed to drop some documented behaviour").kind == "quantity"


@pytest.mark.parametrize("question", [
    "is there a pip setting that refuses to install outside a virtualenv",
    "is there a single command that prints every installed package as json",
    "is there any config option to turn the colour off",
])
def test_is_there_a_setting_or_a_command_asks_for_it(question: str) -> None:
    assert _slot(question).kind == "procedure"


def test_is_there_a_reason_still_asks_yes_or_no() -> None:
    assert _slot("is there a reason for the delay").kind == "yesno"


def test_the_period_of_an_abbreviation_ends_no_sentence() -> None:
    said = [s for _, _, s in _sentences([(1, "Install from a version control system (e.g. Git or Mercurial) and pin"),
                                         (2, "it, i.e. Write the exact version. Then commit it. Cf. The guide.")])]
    assert said == ["Install from a version control system (e.g. Git or Mercurial) and pin it, i.e. Write the exact "
                    "version.", "Then commit it.", "Cf. The guide."]
    # the lines a joined sentence spans are still cited
    assert _sentences([(1, "See the tools (e.g."), (2, "Git) for more. Next one.")])[0][:2] == (1, 2)


def test_where_to_report_something_is_an_address_to_write_to() -> None:
    q = "found a security hole in the app, where do i report it"
    assert _fills(q, "Security questions: security@example.org.") == 1
    assert _fills(q, "File it at https://example.org/disclose.") == 1
    assert _fills(q, "Post it in #security-reports.") == 1
    # a place a line names is where something is, not where to send it
    assert _fills(q, "Each device gets its certificate in the Leeds hardware lab before it ships.") < 1
    # where a thing is stays a place
    assert _fills("where is the hardware lab?", "The hardware lab is at 12 Wharf Street.") == 1


def test_whether_an_option_exists_is_decided_by_a_line_that_names_one() -> None:
    q = "does the freeze command have an option to print hashes too?"
    assert _fills(q, "Generate output suitable for a requirements file.") < 1
    assert _fills(q, "Use --all to list every package, and --exclude-editable to leave editables out.") == 1
    # a yes/no question about no option is decided as before
    assert _fills("does the freeze command print hashes?", "Generate output suitable for a requirements file.") == 1



@pytest.mark.parametrize("question", [
    "offline box: install everything from a folder of wheels i already copied",
    "list outdated packages but only the top-level ones",
    "want to cap package versions for the whole org",
])
def test_something_to_do_typed_without_a_question_word_asks_how(question: str) -> None:
    assert _slot(question).kind == "procedure"


@pytest.mark.parametrize("question", ["list of supported platforms", "cap on calls per key?",
                                      "need the office wifi password"])
def test_a_thing_named_by_a_verb_like_word_is_not_something_to_do(question: str) -> None:
    assert _slot(question).kind != "procedure"


def test_a_version_number_alone_tells_no_how() -> None:
    q = "turn off the system truststore stuff and go back to certifi only"
    assert _fills(q, "On Python 3.9 or earlier, only certifi is used, as truststore needs Python 3.10 or higher.") < 1
    assert _fills(q, "To opt out of system certificates, pass the `--use-deprecated=legacy-certs` flag.") == 1


def test_it_after_a_dash_asks_what_the_thing_before_it_does() -> None:
    got = _slot("pip hash - what does it give me")
    assert (got.kind, got.subject) == ("definition", "pip hash")
    assert _fills("pip hash - what does it give me",
                  "``pip hash`` is a convenient way to get a hash digest for use with hash-checking mode.") == 1
    # a pronoun that stands for a whole statement is not a thing typed before a dash
    assert _slot("customer says the light keeps flashing amber, what does that mean").subject != "customer says the light"


def test_asked_what_is_typical_a_line_with_no_typical_figure_fills_weakly() -> None:
    q = "during the pilot, typically how long after an alert fired was its report ready?"
    assert _fills(q, "The pilot starts on 1 June and runs for six months.") < 1
    assert _fills(q, "Median time from the alert to the report being available: 74 seconds.") == 1


def test_a_web_address_without_its_scheme_is_where_to_get_a_thing() -> None:
    q = "where can a customer grab the api description"
    assert _fills(q, "**OpenAPI 3.1 description** at docs.example.io/api, with examples in Python and JavaScript.") == 1
    # a place a preposition names, and no address, is still weak
    assert _fills(q, "The description ships with examples in Python.") < 1


@pytest.mark.parametrize(("question", "subject"), [
    ("Dan Ferreira's title?", "dan ferreira"),
    ("what does sam actually do here, job-title wise?", "sam"),
])
def test_a_title_typed_after_a_name_asks_the_persons_role(question: str, subject: str) -> None:
    assert (_slot(question).kind, _slot(question).subject) == ("role", subject)


def test_how_close_asks_for_a_measure() -> None:
    assert _slot("as of late august: how close was MKT to the customer's spreadsheet").kind == "quantity"


def test_a_web_address_asked_is_a_domain_not_a_street() -> None:
    q = "what's the web address for the app now"
    assert _fills(q, "The platform is now called Tidemark; the address is app.example.io.") == 1
    assert _fills(q, "The new office is at 12 Wharf Street, Leeds.") == 0


def test_a_title_given_for_the_persons_team_is_another_persons() -> None:
    from stigmergy.answer.names import Entity

    names = Names()
    sam = Entity(1, "Samuel Achterberg", "person", frozenset({"samuel achterberg", "sam"}))
    names.by_name = {"samuel achterberg": sam, "sam": sam}
    q = "what does sam actually do here, job-title wise?"
    assert _slot_fills(q, "A firmware engineer for Samuel Achterberg's Beacon G2 team.", "", names) < 1
    assert _slot_fills(q, "Sam — Hardware Lead. Beacon and Beacon G2, firmware updates, the Leeds lab.", "", names) == 1


def test_a_phrase_quoted_that_no_line_writes_is_asked_about_nothing_the_wiki_says() -> None:
    from types import SimpleNamespace

    from stigmergy.answer.service import _quoted_unsaid as unsaid

    def _quoted_unsaid(q: str, lines: tuple) -> bool:  # type: ignore[type-arg]
        return unsaid(q, parts(q)[0].slot, lines)

    lines = (SimpleNamespace(text="Set PIP_USE_FEATURE to opt in to the new resolver."),
             SimpleNamespace(text="pip prints “Requirement already satisfied: requests” and moves on."))
    q = "env var to shut up the 'a new release of pip is available' notice?"
    assert _quoted_unsaid(q, lines)  # type: ignore[arg-type]
    # a phrase a line writes, however it is cased or punctuated, is said; a word or two in quotes is no phrase
    assert not _quoted_unsaid('what does "requirement already satisfied" mean?', lines)  # type: ignore[arg-type]
    assert not _quoted_unsaid("what does 'prod' mean here?", lines)  # type: ignore[arg-type]
    assert not _quoted_unsaid("why don't my wheels build, it's the third time", lines)  # type: ignore[arg-type]


def test_a_quoted_phrase_the_wiki_writes_is_still_answered(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Guard (passes before the rule): a question quoting a line's own words is answered from it, the one quoting
    # words no line writes is not.
    from test_answer_support import PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w", index=False)
    answers = answers_by_reader(b, "what was 'aurora revenue was' in q1 2026?",
                                "what was the 'aurora revenue was not reported' figure in q1 2026?")[PUBLIC]
    assert [a["answered"] for a in answers] == [True, False]  # the test can fail


def test_a_phrase_quoted_from_a_restricted_page_is_answered_only_to_its_readers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: a public reader quotes words of the board minutes. The phrase is looked for in the reader's own evidence
    # only, so the public answer is a refusal that says nothing of the minutes, and the board reader is answered.
    import json

    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w", index=False)
    got = answers_by_reader(b, "how much did 'orbis offered to acquire aurora' put on the table?")
    [public], [board] = got[PUBLIC], got[BOARD]
    assert not public["answered"]
    assert CANARY not in json.dumps(public) and "72M" not in json.dumps(public) and "Orbis" not in json.dumps(public)
    assert board["answered"] and "$72M" in board["sentences"][0]["text"]  # the test can fail


def test_a_paragraph_that_is_only_a_literal_is_the_term_the_next_one_describes() -> None:
    from stigmergy.answer.units import source_units

    text = ("# Options\n\n``--ignore-installed``\n\nAct as if the currently installed version is not there.\n\n"
            "Plain paragraph here.\n\nAnother one follows it.\n\n--src <dir>\n\nCheck out editable projects here.")
    got = {u[2]: u[3] for u in source_units(text.split("\n"), 1, 1)}
    assert got["Act as if the currently installed version is not there."] == "``--ignore-installed``"
    assert got["Check out editable projects here."] == "--src <dir>"
    # a plain paragraph is no term: the one after it stands alone, as before
    assert got["Another one follows it."] == ""
