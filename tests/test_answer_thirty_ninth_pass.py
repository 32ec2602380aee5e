"""Issue #19, thirty-ninth session (unanswerable questions of the eighteenth blind pair that were "answered"): a figure
the question already holds, written another way, is no value ("£14.5k" and "£14,500"); a date in another month than
the one the question puts the asked date in is no answer; a yes/no question is not decided by a line that says only what
it says; "what does X do compared to Y" asks what X does; "keep saying IQ/OQ - what is that" asks what IQ/OQ is; a count
of another noun counts nothing asked (no index; sentences written for these tests)."""

from __future__ import annotations

import pytest

from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.values import Asked, amount, asked, figures_in, outside_month
from tests.test_answer_slots import _fills as _slot_fills


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _figures(text: str, q: Asked, unit: str) -> list[str]:
    """The new figures' numbers (the word a figure's reading takes after it as its unit left out)."""
    return [value.split()[0] for value in figures_in(text, q, unit)]


def _fills(question: str, text: str) -> float:
    return _slot_fills(question, text, "", Names())  # no entity the wiki knows


@pytest.mark.parametrize(("number", "scale", "expected"), [
    ("14,500", None, 14500.0), ("14.5", "k", 14500.0), ("2.74", " M", 2_740_000.0), ("1", "billion", 1e9),
    ("1,200,000", None, 1_200_000.0),
    # no single amount: a comma that need not group thousands, a range, a multiple
    ("14,5", None, None), ("10-20", None, None), ("3", "x", None),
])
def test_the_amount_a_figure_writes(number: str, scale: str | None, expected: float | None) -> None:
    assert amount(number, scale) == expected


def test_a_figure_the_question_holds_written_another_way_is_no_value() -> None:
    q = asked("how much of the £14.5k offsite budget is just the venue rental", Names())
    assert figures_in("Budget for the offsite is £14,500 including venue, meals and travel.", q, "money") == []
    assert _figures("The venue rental is £3,200 for the three nights.", q, "money") == ["£3,200"]
    q = asked("we had 1.2M events last week, how many this week?", Names())
    assert figures_in("Events last week: 1,200,000.", q, "count") == []
    assert _figures("Events this week: 1,350,000.", q, "count") == ["1,350,000"]
    # end to end: the line that only restates the question's figure fills nothing, and the honest answer is a refusal
    q = "how much of the £14.5k offsite budget is just the venue rental"
    assert _fills(q, "Budget for the offsite is £14,500 including venue, meals and travel.") == 0
    assert _fills(q, "The venue rental is £3,200 for the three nights.") == 1


def test_a_date_in_another_month_than_the_one_asked_about_is_no_answer() -> None:
    q = "exact date of the demo for the customer in october?"
    assert outside_month("We announced a launch date of 15 September in the July newsletter.", asked(q, Names()))
    assert _fills(q, "We announced a launch date of 15 September in the July newsletter.") == 0
    assert _fills(q, "The demo for the customer is booked for 14 October.") == 1
    assert _fills(q, "The customer demo is on 2026-10-14.") == 1
    # a date the line gives without a month is not set against the asked one
    assert not outside_month("The demo is on Tuesday.", asked(q, Names()))
    # asked what a move made of a date, the new date may fall in another month
    q = "the demo planned in october got moved, to when?"
    assert not outside_month("We moved the demo to 3 November.", asked(q, Names()))
    assert _fills(q, "We moved the demo to 3 November.") == 1
    # a month the question names for something else is no constraint on the date
    q = "when is the review after the september offsite?"
    assert not outside_month("The review is on 2 October.", asked(q, Names()))


def test_a_line_that_says_only_what_a_yes_no_question_says_decides_nothing() -> None:
    q = "is --use-deprecated=legacy-resolver still a supported thing i can rely on"
    assert _fills(q, "Example: ``--use-deprecated=legacy-resolver``") == 0
    assert _fills(q, "The legacy resolver is deprecated and unsupported; it will be removed.") == 1


def test_what_a_thing_does_set_against_another_is_still_its_definition() -> None:
    for q in ("what does --ignore-installed actually do compared to force reinstall",
              "what does --no-deps do vs --no-build-isolation", "what does MKT mean, as opposed to mean temperature"):
        assert _slot(q).kind == "definition", q
    assert _slot("what does --ignore-installed actually do compared to force reinstall").subject == "--ignore-installed"


@pytest.mark.parametrize(("question", "said"), [
    ("pharma folks keep saying IQ/OQ - what is that", "what is IQ/OQ"),
    ("we keep hearing about MKT in reviews. what is it?", "what is MKT"),
    ("everyone keeps saying dwell time in standup, what does it mean", "what does dwell time mean"),
])
def test_a_term_heard_before_the_question_is_what_its_pronoun_asks_about(question: str, said: str) -> None:
    [part] = parts(question)
    assert part.text == said and part.slot.kind == "definition"
    # a pronoun that refers back to a statement, not a term, is left as it is asked
    assert parts("i keep hearing the resolver backtracks. is that bad?")[0].slot.kind == "yesno"
    q = "customer says the light on their new G2 box keeps flashing amber, what does that mean"
    assert "light" in parts(q)[0].text and "amber" in parts(q)[0].text


def test_a_count_of_another_noun_is_no_count_of_the_asked_one() -> None:
    q = "how many surveys did the ux folks put out during their 2020 research"
    # the line's section speaks of surveys, and the line counts people
    context = "UX research in 2020: surveys and interviews"
    assert _slot_fills(q, "In total 472 people signed up to the panel, although some unsubscribed.", context, Names()) == 0
    assert _slot_fills(q, "We ran 10 surveys over the year.", context, Names()) == 1
    # people are counted by any noun for a person
    assert _fills("how many people signed up to the panel", "In total 472 users signed up to the panel.") == 1


def test_the_thing_a_relative_clause_picks_out_is_asked_as_which_thing() -> None:
    q = "what was the payments company in porto that grace worked for before us?"
    assert (_slot(q).kind, _slot(q).head) == ("org", "company")
    # the line that speaks of the company and names none does not answer
    assert _fills(q, "Grace spent six years running infrastructure for a payments company in Porto.") == 0
    assert _slot("what is the office where hannah works?").kind == "place"
    # a clause about an amount stays an amount
    assert (_slot("what is the rent that we pay for leeds?").kind, _slot("what is the rent that we pay for leeds?").unit) == (
        "quantity", "money")


def test_asked_for_a_default_a_line_that_says_nothing_of_one_fills_weakly() -> None:
    q = "if I leave the port off in --proxy, which port does pip use?"
    assert _fills(q, "Use the --proxy option to give a proxy in the form scheme://[user:passwd@]proxy.server:port") < 1
    assert _fills(q, "When the port is omitted, pip assumes port 80 for http proxies.") == 1
    q = "whats the default --timeout for pip if i never set it?"
    assert _fills(q, "As an example, set the HTTP timeout (--timeout) to 60 seconds.") < 1
    assert _fills(q, "The socket timeout defaults to 15 seconds.") == 1
    # what holds when nothing is given, said in its context, is said
    assert _slot_fills("where does pip put its cache by default on linux?", "~/.cache/pip", "Default paths", Names()) == 1


def test_the_utmost_of_a_things_measure_is_a_figure() -> None:
    q = "what's the longest line allowed in a requirements.txt file?"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "extent")
    assert _fills(q, "A line ending in an unescaped \\ is treated as a line continuation.") == 0
    assert _fills(q, "Lines in a requirements file may be at most 4,096 characters long.") == 1
    assert _slot("what's the longest project name pip will accept, in characters?").kind == "quantity"
    # the biggest of a kind of organisation is one of them, not a measure
    assert _slot("what is the biggest customer in the nordics?").kind != "quantity"


def test_what_pip_assumes_when_a_part_is_left_out_is_its_default() -> None:
    q = "if i give --proxy without a port, which port does pip assume?"
    assert _fills(q, "Use the --proxy option to give a proxy in the form scheme://proxy.server:port") < 1


def test_what_will_be_is_not_said_by_what_is_now_or_what_was_done() -> None:
    q = "which hash algorithm will pip recommend after sha256?"
    assert _fills(q, "The recommended hash algorithm at the moment is `sha384`.") < 1
    assert _fills(q, "From pip 26, `sha512` will be the recommended hash algorithm.") == 1
    q = "which python version is pip dropping support for next?"
    assert _fills(q, "In pip 21.0, pip dropped support for Python 2 altogether.") < 1
    assert _fills(q, "Support for Python 3.8 will be dropped in pip 25.") == 1


def test_a_total_asked_is_not_counted_by_what_was_added() -> None:
    q = "how many beacon gateways do we have out in the field in total, all customers?"
    assert _fills(q, "The expansion at Norrland Fresh added about 140 Beacon gateways.") < 1
    assert _fills(q, "We have 1,310 Beacon gateways in the field in total.") == 1


def test_a_term_heard_and_asked_about_by_a_public_reader_is_answered_from_public_lines_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: the question names a codename heard in the corridor ("keep hearing heron - what is that"), which the new
    # reading turns into "what is heron"; only the board layer defines it. The public reader gets an honest refusal
    # that shows nothing of the board's page, the board reader the definition; and a figure restated in another format
    # by a public line ("£14,500" for "£14.5k") is no answer either.
    import json

    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w")
    b.source("Board minutes", f"Heron is the code name for the acquisition talks with Orbis. {CANARY} stays here.\n",
             layer="board", occurred_at="2026-09-18", key="boardmin")
    b.source("Offsite plan", "Budget for the offsite is £14,500 including venue, meals and travel.\n"
             "People keep hearing code names in the corridor; ask your lead.\n", occurred_at="2026-09-18", key="offsite")
    b.commit()
    answers = answers_by_reader(b, "people keep hearing heron in the corridor - what is it?",
                                "how much of the £14.5k offsite budget is the venue alone?")
    public = json.dumps(answers[PUBLIC])
    assert CANARY not in public and "Orbis" not in public and "Board minutes" not in public
    assert not answers[PUBLIC][0]["answered"] and not answers[PUBLIC][1]["answered"]
    assert answers[BOARD][0]["answered"] and "Orbis" in json.dumps(answers[BOARD][0])  # the test can fail


def test_a_question_of_figures_and_months_alone_asks_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Bad input: "£14.5k?" was "answered" with the line nearest a figure ("Revenue is £2.36M, not £2.41M").
    from test_answer_support import PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w", index=False)
    answers = answers_by_reader(b, "£14.5k?", "in october?", "q1 2026?", "Aurora revenue in q1 2026?")[PUBLIC]
    assert [a["answered"] for a in answers] == [False, False, False, True]  # the test can fail


def test_an_acronym_in_capitals_the_wiki_never_writes_is_a_constraint() -> None:
    from dataclasses import replace

    from stigmergy.answer.select import word_score
    from stigmergy.answer.terms import jargon, question_terms
    from tests.test_answer_thirty_seventh_pass import _line

    known = frozenset("pip support auth for our corporate proxy".split())
    q = "does pip support NTLM auth for our corporate proxy?"
    # what weigh() gives a capitalised acronym no fragment of the reader's says
    terms = [replace(t, absent=True) if t.word == "NTLM" else t for t in question_terms(q)]
    got = {t.word: t.proper for t in jargon(terms, known)}
    assert got["NTLM"] and not got["proxy"]
    proxies = "Using the --proxy option, pip works behind an outbound HTTP proxy server in corporate networks."
    assert not word_score(_line(proxies), jargon(terms, known), {})[2]
    # a line that names it says it
    assert word_score(_line("Pip cannot authenticate to a corporate proxy with NTLM."), jargon(terms, known), {})[2]


def test_an_acronym_the_wiki_spells_out_is_context_not_a_constraint(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # "now that 1.0 is GA": the wiki writes "generally available", so GA is a thing it knows, said as context; a line
    # about the keys answers. "NTLM", which no line says, keeps the question from being answered by a line on proxies.
    # A guard: it passes on c419334 too, and fails where an acronym in capitals is a constraint without
    # service._spelled (two right answers of the read sets were lost so).
    from test_answer_support import PUBLIC, answers_by_reader, build_wiki

    b = build_wiki(tmp_path / "w", index=False)
    b.source("Harbor launch", "Harbor API 1.0 is generally available as of 2 June 2026.\n", occurred_at="2026-06-02",
             key="harbor")
    b.source("Beta keys FAQ", "Beta API keys are now production keys; you do not need to rotate them.\n"
             "Harbor works behind an outbound HTTP proxy server in corporate networks.\n", occurred_at="2026-06-03",
             key="keysfaq")
    b.commit()
    ga, ntlm = answers_by_reader(b, "do harbor beta users have to rotate their api keys now that 1.0 is GA?",
                                 "does harbor support NTLM auth for our corporate proxy?")[PUBLIC]
    assert ga["answered"] and "production keys" in " ".join(s["text"] for s in ga["sentences"])
    assert not ntlm["answered"]  # the test can fail
