"""Issue #19, seventeenth pass: how a question names a measure ("the max line width", "a 3-month deprecation",
"the final version", "which pip release") against the words a document gives it in (no index; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.evidence import Line
from stigmergy.answer.question import parts, slot
from stigmergy.answer.select import word_score
from stigmergy.answer.slots import WEAK, fill
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked
from tests.test_answer_slots import _fills, _names


def _line(text: str, context: str = "") -> Line:
    return Line("sources/2026/01/x.md", "Notes", "source", "public", 5, text, text, (), (), 1, context)


def test_an_extent_asked_past_its_bound_word_wants_a_figure_with_its_unit() -> None:
    q = "what's the max line width for the style guide?"
    asked = slot(q)
    assert (asked.head, asked.unit) == ("width", "extent")  # "max" says which width, "line" whose
    assert _fills(q, "Limit all lines to a maximum of 79 characters.", "Style guide") == 1.0
    assert _fills(q, "The style guide has 12 sections.") == 0.0  # a count, not a width
    assert slot("how deep is the lake at its deepest point?").kind == "quantity"
    assert slot("what's the maximum upload size?").head == "size"  # a measure right after the bound, as before



def test_a_total_asks_for_the_measure_it_totals() -> None:
    """Eighteenth pass: "the total budget" asks for a budget ("Budget for the offsite is £14,500 …"), as "the max
    line width" asks for a width; "total" alone is still a measure of its own."""
    q = "whats the total budget for the sintra leadership offsite"
    assert (slot(q).head, slot(q).unit) == ("budget", "money")
    assert _fills(q, "Budget for the offsite is £14,500 including venue, meals and travel.") > 0
    assert slot("what's the overall headcount?").head == "headcount"
    assert slot("what is the total?").head == "total"


def test_how_often_among_a_count_is_a_rate_per_that_count() -> None:
    """Eighteenth pass: "how often … per thousand" is answered by "Excursions per 1,000 shipments fell from 6.8 to
    5.1"; a figure beside "in 100 towns" is no rate."""
    q = "how often did norrland's shipments go out of range last quarter, per thousand"
    assert slot(q).unit == "frequency"
    assert _fills(q, "Excursions per 1,000 shipments fell from 6.8 in Q2 to 5.1 in Q3.") == 1.0
    assert _fills(q, "We have 3 depots in 100 towns.") == 0.0


def test_what_a_thing_is_costing_is_money_and_a_total_is_not_one_of_its_parts() -> None:
    """Eighteenth pass: "how much is the quinta costing us" asks for money ("40 minutes from the office" is no
    answer), and "just for the venue" is not answered by "£14,500 including venue, meals and travel"."""
    q = "how much is the sintra quinta costing us just for the venue"
    assert slot(q).unit == "money"
    assert _fills(q, "Venue: a rented quinta outside Sintra, 40 minutes from the Lisbon office.") == 0.0
    assert _fills(q, "Budget for the offsite is £14,500 including venue, meals and travel.") == WEAK
    assert _fills(q, "The venue costs £6,000 for the two days.") == 1.0

def test_a_figure_written_with_its_unit_as_one_word_is_said_apart() -> None:
    q = "how many reviewers must approve a shortened 3-month deprecation?"
    terms = question_terms(q)
    ctx = "Some changes may have a deprecation period of 3 months."
    said = word_score(_line("This requires two reviewers to approve it.", ctx), terms, {})
    assert said[2]  # the question's figure is held, by the sentence before
    assert word_score(_line("Changes get a 3-month deprecation."), terms, {})[2]
    # Another figure, or the same figure of another unit, is not it.
    assert not word_score(_line("This requires two reviewers.", "A deprecation period of 6 months."), terms, {})[2]
    assert not word_score(_line("This requires two reviewers.", "A deprecation period of 3 weeks."), terms, {})[2]
    assert not word_score(_line("This requires two reviewers.", "Version 13 months later."), terms, {})[2]


def test_the_final_version_is_the_last_version() -> None:
    q = "what was the final release of the tool that still ran on python 2?"
    assert _fills(q, "Version 20.3 was the last release of the tool that supported Python 2.") == 1.0
    q = "what was the final tool version that still ran on python 2?"
    assert (slot(q).head, slot(q).unit) == ("version", "version")
    assert _fills(q, "Version 20.3 was the last version of the tool that supported Python 2.") == 1.0
    # Another which-one of the series is still another version.
    assert _fills(q, "Version 9.0 was the first version of the tool that supported Python 3.") == 0.0
    terms = question_terms(q)
    assert "final" in word_score(_line("Tool 20.3 was the last version that supported Python 2."), terms,
                                 {"final": (frozenset({"last"}),)})[3]


def test_the_wikis_own_subject_need_not_be_said() -> None:
    names = _names()
    [part] = parts("which pip release added the --python flag?")
    plain, on_pips_wiki = asked(part.text, names), asked(part.text, names, frozenset({"pip"}))
    # Where "pip" is on a third of the pages, a page's release note is pip's; elsewhere it may be another's.
    assert fill(part.slot, "New in version 22.3.", "", names, on_pips_wiki)[0] == 1.0
    assert fill(part.slot, "New in version 22.3.", "", names, plain)[0] == 0.0
    # A word the question puts before "release" that the wiki is not all about must still be said.
    [part] = parts("which tox release added the --python flag?")
    assert fill(part.slot, "New in version 22.3.", "", names, asked(part.text, names, frozenset({"pip"})))[0] == 0.0


def test_the_legacy_form_of_the_asked_thing_answers_weakly() -> None:
    q = "where's my per-user config file on linux?"
    assert _fills(q, "The legacy per-user configuration file is also loaded: $HOME/.tool/tool.conf") == WEAK
    assert _fills(q, "User: $HOME/.config/tool/tool.conf, which respects XDG_CONFIG_HOME.") == 1.0
    # A legacy system the question does not ask about dates nothing.
    q = "How long were readings delayed in the 22 April incident?"
    assert _fills(q, "On 22 April readings from the legacy poller reached us late, by up to 3 hours.") == 1.0


def test_what_occurs_when_is_a_cause() -> None:
    q = "why would the freeze command fail with permission denied?"
    assert _fills(q, "This error occurs, for instance, when the command is installed only for another user.") == 1.0
    assert _fills(q, "It happens if the current user cannot read the file.") == 1.0
    assert _fills(q, "The freeze command prints a permission denied error.") < 1.0


def test_a_share_of_those_who_do_not_is_not_a_share_of_those_who_do() -> None:
    q = "what share of respondents thought the tool should not upgrade?"
    assert _fills(q, "43% of respondents thought that the tool should implicitly upgrade.") == WEAK
    assert _fills(q, "46% of respondents thought that the tool should _not_ implicitly upgrade.") == 1.0
    # "Never" asks how often, which the line answers in its own words.
    q = "what share of people almost never use the reinstall option?"
    assert _fills(q, 'Most respondents use the reinstall option "almost never" (65.6%).') == 1.0


def test_the_oldest_named_product_asks_for_its_version() -> None:
    q = "What is the oldest Python on which the tool will use the trust store?"
    assert (slot(q).kind, slot(q).unit) == ("quantity", "version")
    assert _fills(q, "On Python 3.10 or later, system certificates are used by default.") == 1.0
    assert _fills(q, "To opt out of system certificates, pass --use-deprecated=legacy-certs.") == 0.0
    # Not a name: the oldest of some kind of thing, asked by its noun.
    assert slot("what is the oldest open issue?").unit != "version"


def test_a_version_in_an_address_or_a_pin_belongs_to_what_it_installs() -> None:
    q = "what's the minimum git version the tool needs for git+ installs?"
    assert _fills(q, "tool install 'SomeProject@git+https://git.repo/some_pkg.git@1.3.1'") == 0.0
    assert _fills(q, 'tool install "pydantic>=1.9" git+https://github.com/pypa/packaging@main') == 0.0
    assert _fills(q, "Installing from git needs git 2.17 or later.") == 1.0
    # A pin of what the question names is its version.
    assert _fills("which pydantic version does the report pin?", 'The report pins "pydantic>=1.9".') == 1.0


def test_a_periods_edge_is_no_word_to_find() -> None:
    # "when Q2 closed" asks for the figure for Q2; "Headcount — Q2 2026: 56" never says "closed".
    assert "closed" not in [t.word for t in question_terms("how many staff did we have when Q2 closed?")]
    assert "ended" not in [t.word for t in question_terms("what was revenue when 2025 ended?")]
    assert "closed" in [t.word for t in question_terms("which depots closed in Q2?")]  # what happened, not when


def test_a_file_named_alone_is_no_way_to_do_something() -> None:
    q = "how do i install numpy with conda?"
    assert _fills(q, "./downloads/numpy-1.9.2-cp34-none-win32.whl.") == WEAK  # a listing's line
    assert _fills(q, "Run `conda install numpy` in the environment.") == 1.0
    assert _fills(q, "Install it from ./downloads/numpy-1.9.2-cp34-none-win32.whl with --no-index.") == 1.0
