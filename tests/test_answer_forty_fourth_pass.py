"""Issue #19, forty-fourth session (the twenty-third blind pair's misses, read once its figure was on record): a time
of day after "after" is no event a line must name; a figure typed glued to its unit ("2yr") is the figure and the
unit; "p99 delay" is a line's "99th percentile delay", and the asker's "old" says no more than which; "X, what was it"
asks for X's value; "actually" asks nothing, and a line that gives only a plan, a budget or a forecast answers no
question of what came to pass; the words a command is given ("pip install x", "path/", "git+…") are no subcommand;
"which … person" asks for anyone of any post; "Three names reached the council: …" names them after its clause;
"what causes X" asks its cause; "meant for" asks what a thing is for; the question after a colon that opens with an
auxiliary, ", good idea?", and a case opened by "if" or "when" or set off by a comma, then a question opening with an
auxiliary, ask yes or no (no index; sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace

from stigmergy.answer.asides import motive
from stigmergy.answer.head_noun import modifiers
from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.select import event_terms
from stigmergy.answer.service import commands
from stigmergy.answer.terms import question_terms
from tests.test_answer_claims import _line, _words
from tests.test_answer_slots import _fills as _slot_fills


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _fills(question: str, text: str, context: str = "") -> float:
    return _slot_fills(question, text, context, Names())


def test_a_time_of_day_after_after_is_no_event() -> None:
    q = "harbor go-live day, who had on-call after 2pm lisbon time?"
    assert event_terms(q, question_terms(q)) == []
    # an event still is one
    q = "who took over as harbor api lead after ines moved to lodestar?"
    assert "move" in [t.stem for t in event_terms(q, question_terms(q))]


def test_a_figure_glued_to_its_unit_is_the_figure_and_the_unit() -> None:
    q = parts("when exactly did norrland sign the 2yr renewal")[0].text
    assert "2 yr" in q
    assert _words(q, "Norrland Fresh signed a two-year renewal on 19 September.")[1]
    assert not _words(q, "Norrland Fresh signed a three-year renewal on 19 September.")[1]
    assert "24 hrs" in parts("is the webhook retried for 24hrs")[0].text
    assert "200ms" in parts("is p99 under 200ms")[0].text  # a unit no line writes whole stays as typed


def test_a_percentile_typed_short_is_the_one_a_report_spells_out() -> None:
    q = "p99 delay on the old poller according to the april driftwood numbers"
    assert modifiers(q, "delay") == ([], ["poller"])  # the asker's "old" says which poller, no word a line must say
    assert _fills(q, "99th percentile delay: 19 seconds on Driftwood, 7 minutes on the poller.") == 1
    assert _words(q, "99th percentile delay: 19 seconds on Driftwood.")[1]
    assert not _words(q, "Median delay: 4 seconds on Driftwood, 50 seconds on the poller.")[1]


def test_a_topic_then_what_was_it_asks_for_its_value() -> None:
    q = "net revenue retention full year 2025, what was it"
    assert (_slot(q).kind, _slot(q).head) == ("quantity", "retention")
    assert _fills(q, "Net revenue retention for the year was 118%.") == 1
    assert _slot("headcount at end of june - what was it?").kind == "quantity"
    assert _slot("gdp, what is it?").kind == "definition"  # in the present tense, what it means


def test_actually_asks_nothing_and_a_plan_is_not_what_came_to_pass() -> None:
    assert "actual" not in {t.stem for t in question_terms("did any sensor data actually go missing")}
    q = "what did Q4 2026 revenue actually come in at?"
    assert _fills(q, "Expect revenue of about £3.0M and ARR of about £10.0M at year end.") == 0
    assert _fills("what revenue do we expect for Q4 2026?",
                  "Expect revenue of about £3.0M and ARR of about £10.0M at year end.") > 0
    q = "did M2 actually hit 10 april?"
    assert _fills(q, "Project Driftwood reached M1 (shadow ingestion) on 25 February. M2 is planned for 10 April.") == 0
    assert _fills(q, "M2 was planned for 10 April and went live on 14 April.") == 1
    # a plan the asker names is the one told to be doubted
    q = "when did driftwood actually do the full cutover? plan said end of may"
    assert _fills(q, "M3 full cutover — Planned: 29 May 2026; Status: not started") == 0
    assert _fills(q, "M3, the full cutover, happened on Friday 12 June 2026.") == 1
    # a kickoff's milestones are the plan too
    assert _fills(q, "Driftwood runs in three milestones: M1 by 27 February 2026; M3 full cutover by 29 May 2026.") == 0
    assert _fills("what are driftwood's milestones", "Driftwood runs in three milestones: M1 by 27 February 2026.") > 0


def test_what_a_command_is_given_is_no_subcommand() -> None:
    lines = (_line("$ pip install x y"), _line("$ pip install path/to/project"), _line("$ pip install git+https://x/y"))
    for q in ("is `pip install x` then `pip install y` the same as `pip install x y`?",
              "should ci use -e or a plain pip install path/?", "pip install git+https://x/y@main changes nothing, why"):
        terms = [replace(t, everywhere=t.word == "pip") for t in question_terms(q)]
        assert commands(q, terms, lines) == [], q
    q = "if i run pip cache remove numpy, does that also clear the http responses?"
    terms = [replace(t, everywhere=t.word == "pip") for t in question_terms(q)]
    assert [c.stem for c in commands(q, terms, (_line("pip cache remove setuptools removes its wheels."),))] == [
        "pip cache remove"]


def test_which_person_asks_for_anyone_of_any_post() -> None:
    q = "which greywater person sits on our board"
    assert _slot_fills(q, "Marcus Hale — partner at Greywater Ventures, board member.") > 0
    assert _slot_fills("which greywater partner sits on our board", "Marcus Hale — investor, board member.") == 0


def test_a_list_after_its_clause_names_the_things() -> None:
    q = "besides tidemark which names were on the shortlist"
    assert _fills(q, "Three names reached the council: Tidemark, Meridian and Keel.") > 0
    assert _fills(q, "Three names reached the council in March.") == 0


def test_what_causes_asks_for_the_cause() -> None:
    for q in ("what causes the permission denied error", "pip freeze says permission denied, what is causing this",
              "what could cause a hash mismatch"):
        assert _slot(q).kind == "reason", q
    assert _slot("what caused the april backlog").kind == "reason"


def test_meant_for_asks_what_a_thing_is_for() -> None:
    assert _slot("what's --use-feature meant for") == Slot("definition", subject="--use-feature")
    assert _slot("what is the --debug flag intended for").subject == "the --debug flag"


def test_a_question_after_a_colon_and_a_good_idea_ask_yes_or_no() -> None:
    q = "pharma prospect asking: do you guys store any patient data?"
    assert _slot(q).kind == "yesno"
    # who asks weighs half: the line that answers speaks of the data, not of the prospect
    weights = {t.stem: t.weight for t in motive(question_terms(q), q)}
    assert weights["prospect"] == weights["patient"] / 2
    assert _slot("pip.conf: where does it live on windows?").kind == "place"
    assert _slot("thinking of using pip.pyz on our prod servers, good idea?").kind == "yesno"


def test_a_case_then_a_question_opening_with_an_auxiliary_asks_yes_or_no() -> None:
    for q in ("if the sensors stop reporting for a while does that count as an excursion?",
              "when a gateway goes offline does it buffer readings", "with the http cache on, can i run pip fully offline?"):
        assert _slot(q).kind == "yesno", q
    assert _slot("when did pip drop python 2").kind == "date"
    assert _slot("when a gateway goes offline how long does it buffer").kind != "yesno"
    assert _slot("q2 revenue - i saw 2.41m somewhere, is that the final number?").kind != "yesno"


def test_what_a_choice_reduces_the_risk_of_is_what_it_is_for() -> None:
    q = "old pip just installed stuff, why does the new one bother backtracking"
    assert _fills(q, "Backtracking reduces the risk that installing a new package will accidentally break an existing "
                     "installed package.") == 1
    assert _fills(q, "Backtracking can take a long time on large dependency trees with many candidate versions.") < 1


def test_a_topic_asked_first_reads_only_what_the_reader_may_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: "X, what was it" is now asked as "what was X". The board minutes give the offer; a public reader's
    # answer says nothing of it, the board reader's is read from them.
    from test_answer_support import CANARY, said_by_reader

    said, board = said_by_reader(tmp_path / "w", "the offer to acquire aurora, what was it?")
    assert CANARY not in said and "72M" not in said and "Orbis" not in said
    assert "72M" in board  # the test can fail
