"""Issue #19, twenty-ninth pass: a "where" after a noun opens a relative clause and a question word after it asks; a
scene-setting "when …" clause may end at a dash; "what's it telling me" asks what a situation means, "what is X doing"
what X does; an acronym asked with "stand for" is answered by a line that spells it out; "how long will X keep …" is
answered by "until <date>"; a least version asked ("minimum setuptools") is said by ">=", not by a pin; a figure the
asker remembers ("I remember it being 14%") is a claim; a line that says what an option disables defines it. No
index; sentences written for these tests."""

from __future__ import annotations

from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, slot
from stigmergy.answer.slots import WEAK, kind_fill
from stigmergy.answer.values import asked


def test_a_where_after_a_noun_opens_a_clause_and_the_question_word_after_it_asks() -> None:
    assert slot("logs look broken on a server where the locale is latin-1 — what charset does the tool assume?"
                ).kind == "thing"
    assert slot("the installer picks the slow mirror on a laptop where the fast one is reachable. why?").kind == "reason"
    # with no question word after it, "where" still asks where
    assert slot("the folder where the tool keeps its cache?").kind == "place"
    assert slot("so where does the tool keep its cache").kind == "place"


def test_a_scene_setting_when_clause_may_end_at_a_dash() -> None:
    got = slot("when the ops folks say SLO they don't mean the usual thing — what is it?")
    assert got.kind == "definition"
    # "when" that asks is still a date
    assert slot("when is the offsite — roughly?").kind == "date"


def test_what_a_situation_is_telling_me_is_no_definition_and_what_x_is_doing_is_what_x_does() -> None:
    assert slot("the light keeps flashing red. what's it telling me?").kind != "definition"
    assert slot("the light keeps flashing red, what is that saying").kind != "definition"
    assert slot("they run it with --trace — what's that --trace flag doing?") == Slot("definition", subject="--trace flag")


def _fill(question: str, text: str) -> float:
    return kind_fill(slot(question), text, Names(), asked(question, Names()))


def test_an_acronym_asked_with_stand_for_is_answered_by_the_line_that_spells_it() -> None:
    q = "what do SLO/SLA actually stand for in the ops handbook?"
    assert slot(q).subject == "SLO SLA"
    assert _fill(q, "The handbook sets a service level objective and a service level agreement for each API.") == 1.0
    # a line that names the acronyms without spelling them is weak for "stand for"
    assert _fill(q, "SLO/SLA review: 3 March, every API passed.") == WEAK
    # a word typed in lower case is no acronym: the line must say it
    assert _fill("what does slo stand for", "The handbook sets a service level objective for each API.") == 0.0


def test_how_long_something_will_keep_going_is_answered_by_until_a_date() -> None:
    q = "how long will the old domain keep redirecting?"
    assert _fill(q, "Links to the old domain continue to redirect until March 2027.") == 1.0
    assert _fill(q, "Links to the old domain redirect to the new one.") == 0.0


def test_a_least_version_asked_is_said_by_at_least_not_by_a_pin() -> None:
    q = "what minimum setuptools does an old project need?"
    assert _fill(q, 'requires = ["setuptools>=40.8.0"]') == 1.0
    assert _fill(q, 'requires = ["setuptools ~= 58.0", "cython ~= 0.29.0"]') == WEAK
    # asked which version, a pin answers
    assert _fill("which setuptools version does the example use?", 'requires = ["setuptools ~= 58.0"]') == 1.0


def test_a_figure_the_asker_remembers_is_a_claim_the_answer_may_correct() -> None:
    from stigmergy.answer.asides import claimed
    from stigmergy.answer.terms import question_terms

    q = "what share of revenue is the big customer these days? I remember it being 14% or so"
    got = {t.word: t.claim for t in claimed(question_terms(q), q, "quantity")}
    assert got["14"] == "check"
    # a figure the question asks about is no claim
    q = "what share of revenue did the 14 new customers bring?"
    assert {t.word: t.claim for t in claimed(question_terms(q), q, "quantity")}["14"] != "check"


def test_a_line_that_says_what_an_option_turns_off_defines_it() -> None:
    from stigmergy.answer.defining import defines

    assert defines("--trace flag", "The --trace flag disables the tool's crash handler, which would catch errors.")
    assert defines("--fast flag", "The --fast flag skips the checksum pass.")
    assert not defines("--trace flag", "Run it with the --trace flag on the staging box.")
