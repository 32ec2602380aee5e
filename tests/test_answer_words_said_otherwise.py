"""Issue #19, twenty-eighth pass: an option's kind said after it ("pip's --debug switch") is no word a line must say,
a sentence that says what the rule before it prevents gives the reason for the rule, and a word negated by its prefix
("unassigned") is said with "not". No index; sentences written for these tests."""

from __future__ import annotations

from stigmergy.answer.cues import CAUSE_RE
from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import parts
from stigmergy.answer.select import score_part
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked


def _line(text: str, n: int) -> Line:
    return Line("sources/2026/01/x.md", "Development", "source", "public", n, text, text, (), (), 1, "")


def _said(q: str, text: str) -> set[str]:
    """The question's words that a line holding `text` says, in its own words or others that say them."""
    from stigmergy.answer.select import alternatives, word_score

    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line(text, 1)
    return set(word_score(line, terms, alternatives((line,), part, terms, Names()))[3])


def test_an_options_kind_said_after_it_is_no_word_a_line_must_say() -> None:
    lines = (_line("The --debug flag disables pip's exception handler.", 1),
             _line("Use a debugger switch such as pdb on the --debug run.", 2))
    for q in ("what is pip's --debug switch for?", "what is the --debug option for?"):
        part = parts(q)[0]
        terms = question_terms(part.text)
        scored = score_part(lines, part, terms, Names(), asked(part.text, Names()), None, None)
        top = next(s for s in scored if s.line.line == 1)
        assert top.words == 1.0
    # a switch named apart from an option is still a word the question asks about
    part = parts("what does the debug switch do")[0]
    terms = question_terms(part.text)
    scored = score_part(lines, part, terms, Names(), asked(part.text, Names()), None, None)
    assert next(s for s in scored if s.line.line == 1).words < 1.0


def test_a_sentence_that_says_what_the_rule_prevents_gives_its_reason() -> None:
    assert CAUSE_RE.search("This prevents a surprising hash mismatch upon the release of a new version.")
    assert CAUSE_RE.search("Pinning every requirement, which avoids a surprise upgrade.")
    assert not CAUSE_RE.search("Nothing prevents you from pinning twice.")


def test_a_word_negated_by_its_prefix_is_said_with_not_and_holding_onto_is_holding() -> None:
    q = "unassigned gateway - how long does it hold onto readings"
    assert {"unassigned", "hold"} <= _said(q, "A gateway not assigned to a site keeps its readings for 30 days.")
    # the word without "not" is not its negation
    assert "unassigned" not in _said(q, "Each assigned gateway reports its readings every 30 seconds.")


def test_what_the_asker_needs_to_do_and_a_clause_before_the_case_put_weigh_half() -> None:
    from stigmergy.answer.asides import MOTIVE_WEIGHT, motive

    for q, word, kept in (("need to email Sam from the hardware lab, what's his surname", "email", "surname"),
                          ("for a customer call tomorrow — if their G2 box loses power, how long will it last?",
                           "tomorrow", "power")):
        plain = {t.word: t.weight for t in question_terms(q)}
        got = {t.word: t.weight for t in motive(question_terms(q), q)}
        assert got[word] == plain[word] * MOTIVE_WEIGHT
        assert got[kept] == plain[kept]
    # "need to" that is the question itself keeps its words
    q = "need to pin every requirement?"
    assert {t.word: t.weight for t in motive(question_terms(q), q)} == {t.word: t.weight for t in question_terms(q)}


def test_what_holds_for_the_whole_file_holds_globally() -> None:
    q = "does one --hash line turn on hash checking for the whole file?"
    assert "whole" in _said(q, "Specifying --hash against any requirement will activate this mode globally.")
    assert "whole" not in _said(q, "Hash checking is checked line by line.")


def test_a_word_asked_in_whose_words_is_a_definition_and_a_word_after_per_is_not_defined() -> None:
    from stigmergy.answer.defining import defines
    from stigmergy.answer.question import slot

    assert slot("what's a 'lane' in tidemark speak").kind == "definition"
    assert slot("what's 'GDP' in the context of lodestar?").kind == "definition"
    # a kind of thing (an article before it) and the product it is used in: its definition too (forty-ninth session;
    # until then a value); a judgement of a value is still its figure
    assert slot("what's a lane in tidemark").kind == "definition"
    assert slot("what's an excursion budget in lodestar") == slot("what's an excursion budget")
    assert slot("what's a typical delay in driftwood").kind == "quantity"
    assert slot("what's the budget in lodestar").kind == "quantity"
    assert defines("lane", "Lane — a recurring route from an origin to a destination.")
    assert not defines("lane", "An excursion budget per lane: the total time a product may spend out of range.")


def test_a_folder_or_location_asked_after_what_is_is_where() -> None:
    from stigmergy.answer.question import slot

    assert slot("what's pip's default cache folder on Windows").kind == "place"
    assert slot("what is the default config file location on macos").kind == "place"
    assert slot("what is the path of least resistance").kind == "value"


def test_an_extra_key_of_json_output_is_an_additional_field() -> None:
    q = "pip list --format=json: which extra key shows up for editable installs?"
    assert {"extra", "key"} <= _said(q, "The json format outputs an additional editable_project_location field.")
    # a key that is no JSON output's is still a key
    assert "key" not in _said("where do i put my api key?", "Put the token in the password field.")


def test_a_naming_rule_is_the_format_names_take() -> None:
    q = "what's the general naming rule for these env vars?"
    assert {"naming", "rule"} <= _said(q, "Options can be set with environment variables using the format "
                                          "PIP_<UPPER_LONG_NAME>.")
    assert "rule" not in _said("what's the rule for pinning?", "Use the format name==version.")


def test_what_it_can_be_used_for_leans_on_the_sentence_that_names_it() -> None:
    from stigmergy.answer.compose import leans_back

    assert leans_back("In combination with --dry-run and --ignore-installed it can be used to resolve a set of "
                      "requirements without actually installing them.")
    assert not leans_back("The --report option can be used to write a JSON report of what pip installed.")


def test_whats_wrong_asks_no_definition_and_a_flashing_light_blinks() -> None:
    from stigmergy.answer.question import slot

    assert slot("beacon led flashing amber — what's wrong").kind == "value"
    assert slot("what's a reefer").kind == "definition"
    assert "flashing" in _said("the light keeps flashing amber, how do i fix it",
                               "LED blinks amber: the gateway is not assigned to a site.")


def test_a_how_goes_on_with_the_next_step_the_source_gives() -> None:
    from stigmergy.answer.evidence import follow_on
    from stigmergy.answer.units import source_units

    content = ["# Office", "", "Badges are issued by the building reception on your first day. Bring a photo ID.",
               "Parking is free."]
    lines = tuple(Line("sources/x.md", "Office", "source", "public", a, t, t, (), (Cite("sources/x.md", a, b, t),), 1,
                       before, Cite("sources/x.md", *at, before) if at else None)
                  for a, b, t, before, at, _ in source_units(content, 1, 1))
    first = lines[0]
    assert follow_on(first, lines, steps=True) is lines[1]
    assert follow_on(first, lines) is None  # not for a question that asks no steps


def test_what_a_change_removed_is_said_by_a_line_that_says_a_removal() -> None:
    from stigmergy.answer.select import score_part

    part = parts("what did the 4.0 release remove?")[0]
    terms = question_terms(part.text)
    lines = (_line("The next major release is 4.0, not 1.0.", 1), _line("In 4.0 the legacy CSV v1 export is removed.", 2))
    scored = {s.line.line: s.fill for s in score_part(lines, part, terms, Names(), asked(part.text, Names()), None, None)}
    assert scored[2] > scored[1]
    # what a release did, asked without a verb of change, is not weighed so
    part = parts("what did the 4.0 release bring?")[0]
    terms = question_terms(part.text)
    scored = {s.line.line: s.fill for s in score_part(lines, part, terms, Names(), asked(part.text, Names()), None, None)}
    assert scored[2] == scored[1]


def test_what_reaches_a_build_is_passed_to_it() -> None:
    q = "do --config-settings values also reach the builds of my dependencies?"
    assert "reach" in _said(q, "They are not passed to the build of dependencies when set with --config-settings.")
    assert "reach" not in _said(q, "The user can supply --config-settings on the command line.")


def test_going_back_to_the_old_behaviour_is_opting_out_of_the_new() -> None:
    q = "pip now uses the OS trust store. how do I go back to certifi only?"
    assert "back" in _said(q, "To opt-out of using system certificates you can pass the --use-deprecated=legacy-certs "
                              "flag to pip.")
    assert "back" not in _said("how do i go back to the old resolver", "The new resolver is the default.")
