"""Issue #19, ninth pass: lines that "answered" with what they only introduce or with a value of another kind
(found on the tune and fresh sets; no index; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.question import parts, slot
from stigmergy.answer.slots import WEAK
from tests.test_answer_slots import _fills


def test_a_lead_in_holds_no_value_what_it_introduces_does() -> None:
    q = "what should I run in place of make install for the docs?"
    # "…, run:" announces the command on the next line; it gives none itself.
    assert _fills(q, "To install the rendered docs without make install, run:") == 0.0
    # The code line it introduces does, with the lead-in as its context.
    assert _fills(q, "$ tox run -e docs_install", "To install the rendered docs without make install, run:") == 1.0
    # A lead-in that gives a figure of its own still holds it.
    assert _fills("what share of builders skip the docs?", "Most builders skip the docs (72.5%):") == 1.0


def test_a_period_after_that_or_in_says_which_period_not_that_a_date_is_asked() -> None:
    # "…, and what was the burn that month?": the burn is asked (a sum), "that month" says which one.
    second = parts("how many weeks of stock did we hold at the end of May, and what was the burn that month?")[1]
    assert (second.slot.kind, second.slot.unit, second.slot.head) == ("quantity", "money", "burn")
    assert slot("what was the date of the move").kind == "date"
    # A figure with a unit of its own is no sum, not even weakly.
    assert _fills("what was the burn that month?", "At the current burn the runway is about 30 months.") == 0.0
    assert _fills("how much did the fit-out cost?", "The fit-out took 9 weeks.") == 0.0
    assert _fills("what was the burn that month?", "Net burn in May was £210k.") == 1.0


def test_an_illustration_is_not_the_asked_figure() -> None:
    q = "how long a warranty do the sensors usually get?"
    line = "Warranty: the period a vendor repairs a faulty unit for free, set per contract (for example 24 months)."
    assert _fills(q, line) == WEAK
    assert _fills(q, "Warranty: the sensors come with 24 months of cover.") == 1.0


def test_a_due_date_does_not_say_when_it_happened() -> None:
    q = "when was the audit report sent out?"
    # The stamp says when the line was said; "due 14 Mar" is what was planned.
    assert _fills(q, "[09:12] Priya: audit report owner: Sam, due 14 Mar.") == WEAK
    # A line that says both dates what happened too.
    assert _fills(q, "The audit report was due 2 May and went out on 9 May.") == 1.0


def test_an_address_is_asked_as_a_place() -> None:
    q = "what's the street address of the Leeds lab?"
    assert slot(q).kind == "place"
    assert _fills(q, "Leeds: the lab sits in a shared unit near the canal.") == 0.0
    assert _fills(q, "The Leeds lab is at 14 Wharf Street.") == 1.0


def test_a_share_of_a_named_kind_of_people_is_theirs() -> None:
    q = "what percentage of plugin maintainers pin their dependencies?"
    assert slot(q).head == "maintainers"
    # A share of the survey's respondents is another share.
    assert _fills(q, "Of all survey respondents, 38% pin their dependencies.") == 0.0
    assert _fills(q, "Among plugin maintainers, 38% pin their dependencies.") == 1.0


def test_how_a_thing_gets_done_is_said_by_a_line_that_says_it_is_done() -> None:
    q = "how do exported reports get encrypted?"
    # A line about the reports' retention says nothing of how they are encrypted.
    assert _fills(q, "Exported reports are kept for 30 days in the `exports/` bucket.") == 0.0
    assert _fills(q, "Exported reports are encrypted at rest with a rotating customer secret.") > 0.0


def test_a_line_broken_at_a_hyphen_joins_without_a_space_and_a_named_method_says_how() -> None:
    from stigmergy.answer.units import source_units

    [(first, last, sentence, _, _, _)] = source_units(
        ["# Backups", "", "Nightly backups are signed with ED25519-", "SHA512 before upload."], 1, 1)
    assert (first, last, sentence) == (3, 4, "Nightly backups are signed with ED25519-SHA512 before upload.")
    assert _fills("how do nightly backups get signed?", sentence) == 1.0


def test_the_utmost_value_is_said_as_a_bound() -> None:
    q = "what was the longest delay on nightly exports during the spring migration?"
    # "up to 9 minutes" says the longest delay; a line with a delay and no bound says some delay, weakly.
    assert _fills(q, "During the spring migration nightly exports were delayed by up to 9 minutes.") == 1.0
    assert _fills(q, "During the spring migration nightly exports were delayed by 9 minutes.") == WEAK


def test_a_duration_spelled_out_is_a_duration() -> None:
    q = "how soon after sign-off must the invoice go out?"
    assert _fills(q, "Invoices go out within three working days of sign-off.") == 1.0
    assert _fills(q, "Invoices go out within three signatures of sign-off.") == 0.0
