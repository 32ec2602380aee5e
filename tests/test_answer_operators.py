"""Issue #19, twenty-eighth pass: a version operator the question types ("what does the ~= operator mean", "pin
everything with ==") is a term said as it is written, and the definition asked is the operator's, which a line gives
by saying what the operator with its version is equivalent to; a name with a digit ("md5") weighs as a word. No
index; sentences written for these tests."""

from __future__ import annotations

from stigmergy.answer.names import Names
from stigmergy.answer.question import parts, slot
from stigmergy.answer.slots import fill
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked


def test_an_operator_is_a_term_and_a_definitions_subject() -> None:
    assert "~=" in [t.word for t in question_terms("what does the ~= operator mean in a version pin")]
    assert [t.constraint for t in question_terms("hash checking mode forces me to pin everything with == … why?")
            if t.word == "=="] == [True]
    # one inside the asker's example pin is no constraint: the docs explain the case with their own
    assert [t.constraint for t in question_terms("i put requests==2.31 in a constraints file, why is it not installed?")
            if t.word == "=="] == [False]
    assert not [t for t in question_terms("does => work as an arrow") if t.word in ("=>", ">=")]
    assert slot("what does the ~= operator mean in a version pin").subject == "~="
    assert slot("what does ~=3.1 mean in a version specifier").subject == "~="
    assert slot("what does MKT stand for").subject == "MKT"  # capitals kept (defining.acronyms)


def test_the_operators_meaning_is_what_it_is_equivalent_to() -> None:
    part = parts("what does the ~= operator mean")[0]
    q = asked(part.text, Names())
    said = "Compatible versions only differ in the final segment. `~=3.1.2` is equivalent to `>=3.1.2, ==3.1.*`."
    named = "Any requirement that imposes an upper limit, i.e. contains the operator <, <=, ~=, or == with a wildcard."
    assert fill(part.slot, said, "", Names(), q)[0] == 1.0
    assert fill(part.slot, "~= — Any compatible version.", "", Names(), q)[0] == 1.0
    assert fill(part.slot, named, "", Names(), q)[0] == 0.0




def test_the_word_that_asks_a_meaning_is_no_word_the_line_must_say() -> None:
    from stigmergy.answer.evidence import Line
    from stigmergy.answer.select import score_part

    text = "Tidemark shows the dwell time of every shipment."
    line = Line("sources/2026/01/x.md", "Glossary", "source", "public", 3, text, text, (), (), 1, "")
    part = parts("what does dwell time mean in tidemark")[0]
    terms = question_terms(part.text)
    assert "mean" in {t.word for t in terms}
    scored = score_part((line,), part, terms, Names(), asked(part.text, Names()), None, None)
    assert scored[0].words == 1.0


def test_a_name_with_a_digit_weighs_as_a_word() -> None:
    from stigmergy.answer.evidence import Line
    from stigmergy.answer.select import word_score

    q = "can i just use md5 digests for my hash lines?"
    terms = question_terms(q)
    said = "However, weaker ones such as md5, sha1, and sha224 are excluded."
    line = Line("sources/2026/01/x.md", "Secure installs", "source", "public", 3, said, said, (), (), 1, "")
    w, _, held, matched = word_score(line, terms, {})
    assert held and "md5" in matched and w > 0
