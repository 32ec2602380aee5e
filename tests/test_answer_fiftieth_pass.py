"""Issue #19, fiftieth session (the twenty-ninth blind pair's misses, read once the thirtieth pair was written).
Question forms: "what's meant by X" and "saw something called X, what is that thing" ask X's definition; "what msg
does pip check show" asks what its transcript prints; "what fraction of users head to the docs" counts users; "from
the US" names the country; a figure the asker says was forecast, or gives in a quoted example, is no constraint; a
quote that is where the asker met a word does not refuse the word's meaning. Lines: "per 1,000 shipments", "November,
2020", "{pep}`517`" say the asker's "1000", "nov 2020", "pep517"; a bare domain is a URL; a name that opens a line
with its post beside it is a person; a title is the post of the person it stands beside; "two depot managers" counts
managers (sentences written for these tests)."""

from __future__ import annotations

from pathlib import Path

from stigmergy.answer.asides import claimed
from stigmergy.answer.counts import count_beside
from stigmergy.answer.defining import defined_in_context
from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.head_noun import counted_noun
from stigmergy.answer.names import Entity, Names
from stigmergy.answer.question import parts
from stigmergy.answer.roles import others_post
from stigmergy.answer.saying import says
from stigmergy.answer.select import score_part, word_score
from stigmergy.answer.service import _quoted_unsaid
from stigmergy.answer.terms import Term, question_terms, stems
from stigmergy.answer.values import asked
from stigmergy.answer.which import names_in, thing_fill
from tests.test_answer_forty_fourth_pass import _slot
from tests.test_answer_slots import _fills


def _line(text: str, at: int = 3, page: str = "sources/2026/01/x.md") -> Line:
    return Line(page, "Notes", "source", "public", at, text, text, (), (Cite(page, at, at, text),), 1)


def _names() -> Names:
    rory = Entity(1, "Rory MacAllister", "person", frozenset({"rory macallister", "rory"}))
    leila = Entity(2, "Leila Haddad", "person", frozenset({"leila haddad", "leila"}))
    maya = Entity(3, "Maya Okafor", "person", frozenset({"maya okafor", "maya"}))
    return Names({n: e for e in (rory, leila, maya) for n in e.names})


def test_what_is_meant_by_a_term_asks_its_definition() -> None:
    slot = _slot("what's meant by excursion budget")
    assert (slot.kind, slot.subject) == ("definition", "excursion budget")
    assert _slot("what is actually meant by a lane").subject == "lane"
    assert _slot("what is the excursion budget for this lane").kind == "quantity"  # a budget's sum, still
    # a name the asker met, then "what is that thing": the name's definition
    assert _slot("saw something called ingest health dashboard, what is that thing").subject == "ingest health dashboard"
    assert _slot("what is that thing").subject == "that thing"


def test_a_figure_with_thousands_separators_says_the_figure_typed_without_them() -> None:
    assert "1000" in stems("Excursions per 1,000 shipments fell from 6.8 in Q2 to 5.1 in Q3.")
    assert "1234567" in stems("1,234,567 readings")
    assert "12500" not in stems("a decimal 12,500.5 is not split and joined")
    assert "2026" not in stems("2,026 shipments since 1 June")  # a count that would read as the year
    # typed with its separators in the question, the figure is one term too
    assert [t.word for t in question_terms("how many of the 2,140 pilot shipments matched")][0] == "2140"
    q = "norrland excursions per 1000 shipments, what was it in q2"
    line = _line("Excursions per 1,000 shipments fell from 6.8 in Q2 to 5.1 in Q3.")
    assert word_score(line, question_terms(q), {})[2]  # every figure of the question held
    assert not word_score(_line("Excursions per 100 shipments fell in Q2."), question_terms(q), {})[2]


def test_a_month_and_its_year_are_said_with_a_comma_between() -> None:
    term = Term(word="november 2020", stem="november 2020", name=False, figure=True)
    assert says(term, frozenset(), {}, "a backlog of issues (782 as of November, 2020) for the team")
    assert says(term, frozenset(), {}, "782 as of November 2020")
    assert not says(term, frozenset(), {}, "782 as of November, 2021")


def test_a_name_run_together_with_its_number_is_said_apart() -> None:
    pep = Term(word="pep517", stem="pep517", name=False, figure=True)
    assert says(pep, frozenset(), {}, "If {pep}`517`'s `prepare_metadata_for_build_wheel` hook is provided")
    assert says(pep, frozenset(), {}, "as PEP 517 describes")
    assert not says(pep, frozenset(), {}, "as PEP 5170 describes")
    assert not says(pep, frozenset(), {}, "PEP 518 and 517.2")


def test_a_quote_where_the_asker_met_a_word_does_not_refuse_its_meaning() -> None:
    lines = (_line("Pinning refers to using the `==` operator to require a specific version."),)
    q = "people keep saying 'pin your versions' - what does pinning mean here"
    assert not _quoted_unsaid(q, parts(q)[0].slot, lines)
    # the quote is what is asked about: a phrase no line writes is still refused
    q = "what does 'a new release of pip is available' mean"
    assert _quoted_unsaid(q, parts(q)[0].slot, lines)
    q = "what does the 'a new release of pip is available' message mean"
    assert _quoted_unsaid(q, parts(q)[0].slot, lines)
    q = "env var to shut up the 'a new release of pip is available' notice?"
    assert _quoted_unsaid(q, parts(q)[0].slot, lines)
    # an example of the asker's own, after "like", is no phrase to find
    q = "which pep is the spec for requirement strings like 'foo>=1.0; python_version<3.8'"
    assert not _quoted_unsaid(q, parts(q)[0].slot, lines)


def test_a_quoted_example_after_like_holds_no_constraint() -> None:
    q = "which pep number is the full spec for requirement strings like 'foo>=1.0; python_version<3.8'"
    terms = claimed(question_terms(q), q, parts(q)[0].slot.kind)
    assert not [t.word for t in terms if t.constraint]
    q = "which pep covers requirement strings on python 3.8"  # a version the question names stays one
    assert "3.8" in [t.word for t in claimed(question_terms(q), q, parts(q)[0].slot.kind) if t.constraint]


def test_a_figure_the_asker_says_was_forecast_is_no_constraint() -> None:
    q = "q3 arr was forecast at 9.2M - what did it land at"
    terms = claimed(question_terms(q), q, parts(q)[0].slot.kind)
    assert [t.word for t in terms if t.constraint] == ["q3"]
    line = _line("ARR at quarter end — Q3 2026: £9.3M; Q2 2026: £8.2M")
    assert score_part((line,), parts(q)[0], terms, Names(), asked(q, Names()), None, None)


def test_a_plural_then_a_bare_verb_counts_the_plural() -> None:
    assert counted_noun("users head to the official pip docs".split()) == "users"
    assert counted_noun("maintainers audit the code".split()) == "maintainers"
    assert counted_noun("SMS alerts were sent".split()) == "alerts"
    assert counted_noun("shipment events a week".split()) == "events"
    assert _slot("what fraction of users head to the official pip docs when something goes wrong").head != "head"


def test_us_in_capitals_is_the_country() -> None:
    q = "how many respondents were from the US"
    assert "US" in [t.word for t in question_terms(q)]
    assert "us" not in [t.word.casefold() for t in question_terms("can you tell us how many respondents there were")]


def test_the_message_a_command_shows_is_asked_by_its_kind() -> None:
    q = "what msg does pip check show when nothing is broken"
    assert _slot(q).kind == "value"
    part = parts(q)[0]
    line = _line("$ python -m pip check No broken requirements found.")
    scored = score_part((line,), part, question_terms(q), Names(), asked(q, Names()), None, None)
    assert scored and scored[0].fill == 1.0


def test_a_bare_domain_is_a_web_address() -> None:
    q = asked("what url do we use for coldtrace now", Names())
    assert thing_fill("url", "The app URL moves to app.tidemark.io; the old URLs redirect.", Names(), q) == 1.0
    assert thing_fill("url", "The app URL moves in March.", Names(), q) == 0.0
    assert _fills("what url do we use for coldtrace now", "The platform is now called Tidemark; the address is "
                  "app.tidemark.io.") > 0


def test_an_option_value_is_defined_under_the_options_words() -> None:
    text = "``eager``: upgrades all dependencies regardless of whether they still satisfy the new requirements"
    context = "\"Only if needed\" Recursive Upgrade There are 2 upgrade strategies supported:"
    assert defined_in_context("--upgrade-strategy eager", text, context)
    assert not defined_in_context("--upgrade-strategy eager", text, "There are 2 choices:")
    # a label that is a hyphenated word of the term itself still defines it
    assert defined_in_context("only-if-needed strategy", "``only-if-needed``: upgrades a dependency only if needed",
                              "There are 2 upgrade strategies supported:")


def test_a_name_that_opens_a_line_is_a_name() -> None:
    q = asked("who's our person at greywater", Names())
    assert "Marcus Hale" in names_in("Marcus Hale — partner at Greywater Ventures, board member.", Names(), q, None)[1]
    assert "The Simply" not in " ".join(names_in("The Simply Secure team focused on four areas.", Names(), q, None)[1])
    # "our person" is anyone there, no post a line must say; a full name with its post beside it is a person
    assert _fills("who's our person at greywater", "Marcus Hale — partner at Greywater Ventures, board member.") == 1.0
    assert _fills("who's our person at greywater", "Marcus Hale joined us in May.") < 1.0
    # a name alone, a dash, then its post: one clause, the name the post's holder
    assert _fills("which Greywater partner sits on our board?", "Marcus Hale — partner at Greywater Ventures.") > 0
    # two people joined by "and", or a first name alone before the post, stay apart from the post
    assert _fills("who is norrland fresh's CFO?", "Erik Sandberg and Norrland's CFO attended for the customer.") == 0


def test_a_title_is_the_post_of_the_person_beside_it() -> None:
    names = _names()
    assert others_post("rory", "Prepared by Leila Haddad (Head of People) with Rory MacAllister.", names)
    assert not others_post("rory", "Rory — Finance Director, Leeds. Budgets and invoices.", names)
    assert not others_post("rory", "Finance Director Rory MacAllister signed it.", names)  # after, where none before
    assert _fills("what's rory's job", "Rory — Finance Director, Leeds.", names=names) == 1.0
    assert _fills("what's rory's job", "Prepared by Leila Haddad (Head of People) with Rory MacAllister.",
                  names=names) < 1.0


def test_a_count_before_a_compound_counts_its_last_noun() -> None:
    q = asked("how many depots does norrland run", Names())
    assert not count_beside("depots", "From Norrland Fresh: Erik Sandberg and two depot managers.", q)
    assert count_beside("depots", "Norrland Fresh distributes groceries from 9 depots.", q)
    assert count_beside("depots", "It added five depots and 140 gateways.", q)
    q = asked("how many G2s did norrland order", Names())
    assert count_beside("g2s", "Norrland Fresh ordered 60 Beacon G2 gateways.", q)  # a model's name is what they are
    assert _fills("how many depots does norrland run", "From Norrland Fresh: two depot managers.") < 1.0



def test_a_later_part_that_says_only_another_period_asks_the_first_parts_question() -> None:
    from stigmergy.answer.service import _asked_again

    q = "norrland excursions per 1000 shipments, what was it in q2 and what in q3"
    first, later = (question_terms(p.text) for p in parts(q))
    got = {t.word for t in _asked_again(later, first)}
    assert {"norrland", "excursions", "1000", "shipments", "q3"} <= got and "q2" not in got
    # a later part that names something of its own keeps to it
    q = "when did harbor go live, and what does it cost"
    first, later = (question_terms(p.text) for p in parts(q))
    assert _asked_again(later, first) == later


def test_a_name_with_its_post_never_reaches_a_reader_past_its_layer(tmp_path: Path, index_env: dict[str, str]) -> None:
    """Hostile, on either index backend: the rule that makes "Quentin Vale — partner at Greywater Ventures" a person
    reads only the reader's evidence. A board-only line names the partner; a public reader asking who their person at
    Greywater is never sees the name, however the question is put; the board's reader gets it."""
    from test_index_support import HashEmbedder, RepoBuilder

    from stigmergy.answer.service import ask
    from stigmergy.index.build import build_index
    from stigmergy.index.search import Searcher

    board, public, canary = "ceo@example.com", "someone@example.com", "Quentin Vale"
    b = RepoBuilder(tmp_path / "w", layers={"board": [board]}, env=index_env)
    b.source("Board contacts", f"{canary} — partner at Greywater Ventures, board observer. Contact through Maya.\n",
             layer="board")
    b.source("Funding notes", "Greywater Ventures led the Series A in October. Maya Okafor is the contact.\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        for question in ("who's our person at greywater", "which greywater partner sits on our board?",
                         "who is quentin vale at greywater"):
            assert canary not in str(ask(b.root, b.settings, public, question, searcher=s)), question
        own = ask(b.root, b.settings, board, "which greywater partner sits on our board?", searcher=s)
        assert canary in str(own)
    finally:
        s.close()
