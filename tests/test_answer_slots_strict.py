"""The stricter slot rules added after measuring the held-out sets (issue #19): each a class of "answer" that
only shared the question's topic, with the line that does answer beside it (no index)."""

from __future__ import annotations

from stigmergy.answer.head_noun import modifiers
from stigmergy.answer.question import slot
from stigmergy.answer.slots import WEAK
from stigmergy.answer.terms import question_terms, spelled_out
from tests.test_answer_slots import _fills


def test_a_count_stands_beside_what_it_counts() -> None:
    q = "How many people work out of the Leeds office?"
    assert slot(q).head == "people"  # not "work", the verb after it
    assert _fills("How many people fit in the new office?", "The new office has room for 55 people, and a lab.") == 1.0
    # Two of something else, with "people" in a list further on: a count, but not of people.
    assert _fills(q, "We have two offices: Leeds (Wharf Street, finance and people) and Lisbon.") < 1.0
    # A clause ends the count's reach; a duration the window would cut ("47") is still a duration.
    assert _fills("How many SMS alerts were held up?",
                  "An SMS outage on 19 August delayed excursion alerts by up to 47 minutes.") < 1.0
    assert _fills("How many SMS alerts were held up?", "SMS alerts enabled. ~60 customers.") < 1.0
    assert _fills("How many staff did we have?", "Headcount — Q3 2026: 63; Q2 2026: 56.") == 1.0
    assert _fills("How many verbosity levels does pip have?", "Right now there are seven levels of verbosity.") == 1.0
    # A range takes its unit: "2-3 months" counts no maintainers.
    assert _fills("How many maintainers does pip have?", "Maintainers give triage rights after 2-3 months.") == 0.0


def test_the_questions_words_before_x_say_which_x() -> None:
    assert modifiers("how many nordic customers have switched it on", "customers") == (["nordic"], [])
    assert modifiers("what's our gross margin on software subscriptions", "margin") == (
        ["gross"], ["software", "subscriptions"])
    assert modifiers("What was Lanternfish Labs' revenue in Q1 2026?", "revenue") == ([], [])  # whose, not which
    assert modifiers("what version number did it get", "number") == ([], [])
    # Another X by a word of its own: not the X asked about.
    assert _fills("What's our gross margin on software subscriptions?", "Hardware gross margin remains at 23%.") == 0
    assert _fills("What's our gross margin on software subscriptions?", "Software gross margin is 81%.") == 1.0
    # The X without the question's word, and no word of its own: weakly.
    assert 0 < _fills("How many nordic customers have switched it on?", "Six customers have switched it on.") < 1.0
    assert _fills("How many nordic customers have switched it on?", "Six Nordic customers have switched it on.") == 1.0


def test_how_much_is_paid_wants_money() -> None:
    q = "How much do carriers pay per million events?"
    assert _fills(q, "Orbis Freight alone sends about 1.2 million events a week.") < 1.0
    assert _fills(q, "Carriers pay £40 per million events.") == 1.0
    assert _fills(q, "Carriers pay 1.2 million pounds a year.") == 1.0


def test_dates_a_month_alone_and_the_day_asked_for() -> None:
    # "may" the verb is no month; "May" the month is.
    assert _fills("When will pip drop the setup.py interface?", "A future release of pip may drop these options.") == 0
    assert _fills("When will pip drop the setup.py interface?", "It goes in May.") == 1.0
    q = "On what exact day of the month do pip releases go out?"
    assert slot(q).unit == "day"
    assert _fills(q, "Our release months are January, April, July, October.") == 0
    assert _fills(q, "Releases go out on 15 January.") == 1.0
    assert _fills("What date did Harbor 1.0 go GA?", "Harbor API 1.0 goes generally available on Tuesday 2 June.") == 1


def test_the_name_of_x_asks_which_x() -> None:
    s = slot("what's the name of the new nordic customer success manager starting in november?")
    assert (s.kind, s.head) == ("person", "manager")
    assert slot("what are the names of the researchers who ran the study?").kind == "person"
    # The speaker of a line that speaks of the role holder in the third person is not the role holder.
    q = "What's the name of the new customer success manager?"
    assert _fills(q, "Hannah Lindqvist: introduce the new Nordic customer success manager in November.") == 0
    assert _fills(q, "Daniel Ferreira: customer success manager.") == 1.0
    assert _fills(q, "Our new customer success manager is Daniel Ferreira.") == 1.0


def test_a_version_is_not_a_share() -> None:
    q = "What version of requests does pip vendor?"
    assert _fills(q, "43.16% (82/186) of respondents thought pip should upgrade requests.") == 0
    assert _fills(q, "pip vendors requests 2.32.3.") == 1.0


def test_an_acronym_is_said_by_its_words_spelled_out() -> None:
    assert spelled_out("GA", "Harbor API 1.0 goes generally available on Tuesday")
    assert spelled_out("MKT", "Mean kinetic temperature (MKT) matched")
    assert not spelled_out("ga", "generally available")  # typed in capitals only
    assert not spelled_out("GA", "go ahead")  # a stopword spells nothing
    assert [t.word for t in question_terms("what date did harbor 1.0 go GA?")] == ["harbor", "1.0", "GA"]


def test_where_on_a_computer_is_a_path_or_an_address() -> None:
    q = "Where's pip's cache on Windows?"
    assert _fills(q, r"On Windows the cache is in %LocalAppData%\pip\Cache.") == 1.0
    assert _fills("Where should I report the error?", "Report it at the dedicated issue https://example.org/issues/13281.") == 1
    assert _fills(q, "The cache can be disabled with care.") == 0


def test_what_used_to_be_so_answers_a_question_about_now_weakly() -> None:
    q = "What's the folder for the http cache called these days?"
    assert _fills(q, "Previously this cache was stored in a directory called `web-cache`.") == WEAK
    assert _fills(q, "The http cache is stored in a directory called `http-v2`.") == 1.0
    # "is used to" is no past: the line says what a thing is for.
    assert _fills("What's the oldest Python that can use truststore?",
                  "On Python 3.9 only certifi is used to verify connections; truststore requires Python 3.10.") == 1.0
    assert _fills("What was the cache folder called before?", "Previously it was called `http`.") == 1.0


def test_since_which_version_wants_where_it_started() -> None:
    q = "Since which version does pip skip pre-releases unless asked?"
    assert _fills(q, "Starting with v1.4, pip will only install stable versions by default.") == 1.0
    assert _fills(q, "If a specifier includes a pre-release version (e.g. >=0.0.dev0) pip allows it.") < 1.0


def test_a_named_release_is_no_amount() -> None:
    q = "How large can pip's cache get?"
    assert _fills(q, "Pip 20.3: pip defaults to the new resolver.") == 0
    assert _fills(q, "The cache can grow to 2 GB.") == 1.0
    assert _fills("What was revenue in Q2?", "Revenue is £2.36M.") == 1.0


def test_an_option_the_question_names_is_a_constraint() -> None:
    terms = {t.word: t for t in question_terms("is --use-deprecated=out-of-tree-build still around?")}
    # the value an option is given names it exactly; the option's name may be said only by the heading or list the
    # value sits under (twenty-fifth pass: "--upgrade-strategy=to-satisfy-only")
    assert terms["out-of-tree-build"].proper and not terms["use-deprecated"].proper and not terms["still"].proper
    assert {t.word: t for t in question_terms("is --use-deprecated still around?")}["use-deprecated"].proper
    assert question_terms("what does PIP_CONFIG_FILE do?")[0].proper
    assert not any(t.proper for t in question_terms("what is the wi-fi password?"))


def test_how_big_wants_a_size_not_a_duration_nor_a_cross_reference() -> None:
    q = "Where's pip's cache, and how big is it allowed to grow?"
    assert slot("how big is it allowed to grow?").unit == "size"
    assert _fills("How big is the cache allowed to grow?", "You should be redirected automatically in 3 seconds.") == 0
    assert _fills("How large was the Series A?", "The Series A was £6M.") == 1.0
    # A documentation cross-reference is no place.
    assert _fills(q.split(",")[0] + "?", "This is now covered in :doc:`../topics/caching`.") < 1.0
    assert slot("of the people using pip in automation, how many actually have trouble with it?").head == ""


def test_prior_to_a_release_says_where_it_started() -> None:
    q = "Since which release does pip trust the system certificate store by default?"
    assert _fills(q, "Versions of pip prior to v24.2 did not use system certificates by default.") == 1.0


def test_the_words_score_knows_what_the_wiki_calls_a_quantity_instead() -> None:
    from stigmergy.answer.evidence import Line
    from stigmergy.answer.otherwise import same_as
    from stigmergy.answer.select import word_score

    terms = question_terms("how many staff did we have when Q2 closed?")
    line = Line("wiki/notes/q.md", "Quarterly figures", "note", "public", 3, "", "Headcount — Q3 2026: 63; Q2 2026: 56.",
                (), (), 1)
    _, on_topic, figures_ok, matched = word_score(line, terms, same_as(terms))
    assert figures_ok and on_topic and "staff" in matched
    # Without the list, the line says none of the question's words: off topic.
    assert not word_score(line, terms, {})[1]
