"""Issue #19, forty-fifth session (the twenty-fourth blind pair's misses, read once its figure was on record). Question
forms: "how many hrs" asks for a duration; "excursion budget, meaning?" asks what a term means; a noun phrase opened by
the measure it asks for ("date the …", "number of …", "reason …") asks for it whatever verbs follow; two things asked
by name and joined by "and" are two parts; a person typed first, then "real name" or "title", asks for the other name
or the post; "min python" asks for Python's least version; "what made X do Y" asks why. Lines: what someone left for
is why they left; a term's first word defines it only where it opens the line; a thing's other name says what it means; a yes in the asker's own words
answers a yes-or-no question, unless the asker pasted it; "there is no way" answers "any switch to …?"; what a
command's output is redirected to is where it writes; a web app's address is a web address; "based on the principle"
gives a reason and "Do _not_" rules; a configuration line tells how. Answers: one quoting a lead-in says the list it
introduces, only from what the reader may read (no index for most; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.defining import defines
from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.lead_in import items_after
from stigmergy.answer.question import parts
from tests.test_answer_forty_fourth_pass import _fills, _slot


def test_how_many_hours_typed_short_asks_for_a_duration() -> None:
    q = "g2 battery backup, how many hrs"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "time")
    assert _fills(q, "Battery backup — Beacon G2: 72 hours; Beacon (first generation): 8 hours") == 1
    assert _slot("how many people signed up").unit == "count"  # a count is still one


def test_a_unit_split_from_its_figure_is_one_the_answerer_reads_whole() -> None:
    # typed.py splits a figure from the short forms shorthand.py writes out, so "24hr" is "24 hour(s)" on a line
    from stigmergy.answer.shorthand import TIME_SHORT, whole_form
    from stigmergy.answer.typed import clean

    assert clean("retried for 24hr") == "retried for 24 hr" and whole_form("hr") == "hour"
    assert all(clean(f"2{unit}") == f"2 {unit}" for unit in TIME_SHORT)
    assert _slot("how many hr does the G2 battery last").unit == "time"


def test_a_term_then_meaning_asks_what_it_means() -> None:
    for q in ("quick one: excursion budget, meaning?", "excursion budget = ?", "excursion budget meaning"):
        assert (_slot(q).kind, _slot(q).subject) == ("definition", "excursion budget"), q
    # what someone saw, then "meaning?", is no term; nor a term with its case ("in the lodestar context")
    assert _slot("my G2 light keeps flashing red, meaning?").subject != "my G2 light keeps flashing red"
    assert _slot("GDP in the lodestar context = ? (not the economics one lol)").kind != "definition"


def test_a_terms_first_word_defines_it_only_where_it_opens_the_line() -> None:
    assert not defines("excursion budget", "**Excursion reports.** Every excursion produces a report within minutes.")
    assert defines("excursion budget", "An excursion budget per lane: the total time a product may spend out of range.")
    assert defines("trivial label", "Trivial : special label for pull requests that need no news entry.")


def test_another_name_says_what_a_word_means() -> None:
    line = 'This approach is well suited for development and is also known as a "development installation".'
    assert _fills("pip install -e what does editable actually mean", line, "Editable installs") == 1
    assert _fills("what does 'editable' install actually do vs normal", line, "Editable installs") < 1  # what it does


def test_a_yes_in_the_askers_own_words_answers() -> None:
    q = "on linux will pip respect XDG_CACHE_HOME if i set it, or is it always ~/.cache/pip"
    assert _slot(q).kind == "yesno"
    assert _fills(q, "pip will also respect `XDG_CACHE_HOME`.") == 1
    # a label and the thing say nothing; nor does the line the asker pasted, or one that asks
    assert _fills("is --use-deprecated=legacy-resolver still supported", "Example: --use-deprecated=legacy-resolver") == 0
    q = "Can not perform a '--user' install. User site-packages are not visible in this virtualenv. why??"
    assert _fills(q, "User site-packages are not visible in this virtualenv.") == 0
    assert _fills("will pip respect XDG_CACHE_HOME", "Will pip respect XDG_CACHE_HOME?") == 0


def test_a_line_saying_there_is_none_answers_whether_there_is_any() -> None:
    line = "There is no way to force the use of the legacy build system interface."
    assert _fills("any switch to make pip always take the old setup.py build route instead of pyproject?", line) == 1
    assert _fills("which switch makes pip take the old setup.py build route", line) < 1  # asked which, not whether


def test_what_a_command_redirects_to_is_where_it_writes() -> None:
    q = "where to write pip's fish completion script"
    assert _fills(q, "python -m pip completion --fish > ~/.config/fish/completions/pip.fish") == 1
    assert _fills("where is the wheel i install from", "python -m pip install ./downloads/SomePackage-1.0-py3-none-any.whl") < 1


def test_a_noun_phrase_opened_by_its_measure_asks_for_it() -> None:
    assert _slot("date the lisbon folks start working out of rua do alecrim?").kind == "date"
    got = _slot("number of customers in the harbor beta before it went GA")
    assert (got.kind, got.unit, got.head) == ("quantity", "count", "customers")
    assert _slot("reason M2 went live four days late").kind == "reason"
    got = _slot("worst-case lateness of readings during the april poller mess")
    assert (got.kind, got.unit) == ("quantity", "extent")
    assert _fills("worst-case lateness of readings during the april poller mess",
                  "Readings were delayed by up to 3 hours 12 minutes.") == 1


def test_the_address_of_a_web_app_is_a_web_address() -> None:
    q = "old coldtrace web app — what's the address now"
    assert _fills(q, "The platform and its mobile apps are now called Tidemark; the address is app.tidemark.io.") == 1
    assert _fills(q, "The new office is at Rua do Alecrim 38, Lisbon.") < 1  # a street is no web address


def test_two_things_asked_by_name_are_two_parts() -> None:
    got = [(p.text, p.slot.kind) for p in parts("new lisbon office — street address and monthly rent")]
    assert got == [("new lisbon office — street address", "place"), ("new lisbon office: monthly rent", "quantity")]
    got = [(p.text, p.slot.kind) for p in parts("pellucid pilot fee and pilot length?")]
    assert got == [("pellucid pilot fee", "quantity"), ("pellucid pilot length", "quantity")]
    assert [p.text for p in parts("what is the Q2 revenue and headcount")] == ["what is the Q2 revenue", "Q2 headcount"]
    # one thing asked: two verbs, two things compared, or a second noun that names no kind of value
    for q in ("how do i list and remove cached wheels", "difference between constraints and requirements files",
              "terms and conditions of the pilot",
              "can I put --hash on just one line of requirements.txt and leave the rest unhashed?"):  # one yes or no
        assert len(parts(q)) == 1, q


def test_a_decision_based_on_a_principle_gives_its_reason_and_do_not_rules() -> None:
    line = ("The decision to install topologically is based on the principle that installations should proceed in a way "
            "that leaves the environment usable at each step.")
    assert _fills("reason pip installs in topological order", line) == 1
    q = "should i wrap specifiers in quotes inside requirements.txt like on the shell"
    assert _fills(q, "Do _not_ use quotes in requirement files.") == 1
    assert _fills(q, "We do not know why some shells need them.") < 1  # no ruling


def test_a_person_typed_first_then_the_name_or_post_asked() -> None:
    got = [(p.text, p.slot.kind, p.slot.subject) for p in parts("sam from the leeds lab - full name and title?")]
    assert got == [("sam from the leeds lab - full name", "alias", "sam"), ("sam from the leeds lab: title", "role", "sam")]
    assert (_slot("tomek — real name").kind, _slot("tomek — real name").subject) == ("alias", "tomek")
    assert _slot("the offsite: title").kind != "role"  # a thing typed first is no person


def test_a_configuration_line_tells_how() -> None:
    q = "set a different timeout only for the freeze command in pip.conf"
    assert _fills(q, "[freeze] timeout = 10") == 1
    assert _fills(q, "The timeout is 10 seconds.") < 1


def test_min_before_a_runtime_asks_for_its_version() -> None:
    got = _slot("min python needed for pip's truststore / system certs")
    assert (got.kind, got.unit, got.subject) == ("quantity", "version", "python")
    assert _slot("max retries for the webhook").unit != "version"  # no runtime named


def test_what_made_someone_do_something_asks_why() -> None:
    assert _slot("what made pellucid's QA reject our first lodestar report format").kind == "reason"
    assert _slot("what made it into the 4.0 release").kind != "reason"  # got into it
    assert _slot("what made up the difference").kind != "reason"


def test_what_someone_left_for_is_why_they_left() -> None:
    line = "Two customers left in the quarter, both small food distributors who moved to a logger vendor with a lower price."
    assert _fills("what made those two customers leave us in Q4 2025?", line) == 1
    assert _fills("those 2 customers we lost in q4 2025, why did they leave", line) == 1
    assert _fills("why did revenue grow in q4", "Two engineers moved to Lisbon in the quarter.") < 1  # no one left


def _src(n: int, text: str, before: Cite | None = None) -> Line:
    path = "sources/2026/01/x.md"
    return Line(path, "Personas", "source", "public", n, text, text, (), (Cite(path, n, n, text),), 1,
                before.text if before else "", before)


def test_an_answer_quoting_a_lead_in_says_the_list_it_introduces() -> None:
    lead = _src(23, "The 3 types of Python users, we proposed were:")
    at = lead.cites[0]
    items = [_src(25 + i, t, at) for i, t in enumerate(("The Python Software User", "The Python Software Maker",
                                                         "The Python Package Maintainer"))]
    other = _src(40, "A later paragraph of its own.")
    got = items_after(lead, (lead, *reversed(items), other))
    assert got is not None
    assert got.text == "The Python Software User; The Python Software Maker; The Python Package Maintainer."
    assert [c.start for c in got.cites] == [25, 26, 27]
    assert items_after(items[0], (lead, *items)) is None  # no lead-in
    assert items_after(lead, (lead, other)) is None  # nothing introduced


def test_a_lead_ins_list_reads_only_what_the_reader_may_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: the board's minutes introduce the offer's conditions with a lead-in; a public reader's answer says
    # none of them, the board reader's says them all.
    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader
    from test_index_support import RepoBuilder

    b = RepoBuilder(tmp_path / "w", layers={"board": [BOARD]})
    b.source("Offer notes", "Orbis set 3 conditions for the offer:\n\n"
             f"- Reference {CANARY} exclusivity for sixty days\n- Keeping the Leeds lab open\n"
             "- Retaining the founding team\n", layer="board", occurred_at="2026-09-17", key="offer")
    b.source("Office notes", "The Leeds office has room for 40 people.\n", occurred_at="2026-09-01", key="office")
    b.commit()
    got = answers_by_reader(b, "orbis offer conditions?")
    import json

    public, board = json.dumps(got[PUBLIC][0]), json.dumps(got[BOARD][0])
    assert CANARY not in public and "Leeds lab" not in public and "founding team" not in public
    assert "founding team" in board and "Leeds lab" in board  # the test can fail
