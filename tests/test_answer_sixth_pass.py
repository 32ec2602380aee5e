"""Issue #19, sixth pass: a value of the asked kind, read closer (found on the tune sets; no index; sentences
written for these tests)."""

from __future__ import annotations

from stigmergy.answer.names import Names, load
from stigmergy.answer.question import slot
from stigmergy.index.store import NameRow
from tests.test_answer_slots import _fills as _slot_fills
from tests.test_answer_slots import _Rows


def _names() -> Names:
    return load(_Rows([NameRow("oslo", 1, "Oslo", "place"), NameRow("kettle", 2, "Kettle", "product"),
                       NameRow("jonas berg", 3, "Jonas Berg", "person"),
                       NameRow("marta silva", 4, "Marta Silva", "person")]), ("public",))


def _fills(question: str, line: str, context: str = "") -> float:
    return _slot_fills(question, line, context, _names())


def test_what_time_wants_an_hour_of_the_day() -> None:
    assert slot("What time does the Thursday design review start?").unit == "clock"
    assert slot("what time frame do we have for the migration?").unit != "clock"
    q = "What time does the Thursday design review start?"
    # The weekday or the date the meeting falls on is no hour.
    assert _fills(q, "Lena chairs the Thursday design review.") == 0.0
    assert _fills(q, "The Thursday design review moved to 14 May 2026.") == 0.0
    for line in ("The Thursday design review starts at 10:30.", "The Thursday design review starts at 3pm.",
                 "The Thursday design review starts at noon in the Oslo room."):
        assert _fills(q, line) == 1.0, line



def test_a_money_question_wants_a_sum() -> None:
    assert slot("How much ARR does the Oslo office bring in, in euros?").unit == "money"
    assert slot("What does the Kettle team starter plan cost per month?").unit == "money"
    q = "How much ARR does the Oslo office bring in, in euros?"
    assert _fills(q, "The Oslo office is 14% of ARR.") == 0.0  # a share of it, not a sum
    assert _fills(q, "The Oslo office brings in €2.4 million of ARR.") == 1.0
    q = "What does the Kettle team starter plan cost per month?"
    assert _fills(q, "Pricing: the Kettle team starter plan is billed per seat.") == 0.0  # no sum
    assert _fills(q, "The Kettle team starter plan costs $49 per month.") == 1.0


def test_who_was_hired_as_a_role_asks_for_the_roles_holder() -> None:
    q = "Who did we hire as the Oslo support lead?"
    assert slot(q).subject == "oslo support lead"
    # A plan to hire names no one; the organisations on the line are not the hire.
    assert _fills(q, "An Oslo support lead, for Project Kettle and Fjord Logistics.") == 0.0
    assert _fills(q, "Fjord Logistics asked about the Oslo office.") == 0.0  # no lead spoken of
    assert _fills(q, "We hired Dana Reyes as the Oslo support lead in May.") > 0.0


def test_a_version_named_before_its_product_is_that_products() -> None:
    q = "What is the minimum Kettle version the exporter needs?"
    assert slot(q).unit == "version"  # "minimum" says which version, the version is asked
    # A line about another package's minimum version does not say Kettle's.
    assert _fills(q, "The exporter is installed with pip install 'exporter>=2.4' # minimum version") == 0.0
    assert _fills(q, "The exporter needs Kettle 3.1 or later.") == 1.0
    # Words that say which of the versions are not a product the line must name.
    assert _fills("What is the minimum supported Kettle version?", "Kettle 3.1 is the oldest we test against.") > 0.0


def test_a_role_joined_by_and_is_a_second_person() -> None:
    q = "Who is the Oslo office's finance director?"
    assert _fills(q, "Jonas Berg and the Oslo office's finance director joined the call.") == 0.0
    assert _fills(q, "Jonas Berg and Marta Silva's finance director joined the Oslo call.") == 0.0
    assert _fills(q, "Jonas Berg, the Oslo office's finance director, joined the call.") > 0.0
    assert _fills(q, "Jonas Berg, Oslo office manager and finance director, joined the call.") > 0.0
    # The page's title may say the rest of the role: the line's "Oslo's finance director" is the asked one.
    assert _fills(q, "Jonas Berg and Oslo's finance director joined the call.", "Oslo office") == 0.0


def test_a_named_role_beside_other_unnamed_people_is_named() -> None:
    q = "Who is the Oslo head of logistics?"
    # "two depot managers" are other people, unnamed; the head of logistics is named.
    assert _fills(q, "From Oslo: Jonas Berg (Head of Logistics) and two depot managers.") > 0.0
    assert _fills(q, "From Oslo: a head of logistics and two depot managers.") == 0.0


def test_an_owners_role_is_said_by_the_role_not_the_owner() -> None:
    q = "Who is Fjord Dairy's CFO?"
    # The owner spoken of and someone named: that someone is not the CFO.
    assert _fills(q, "Jonas Berg: offer Fjord Dairy a service credit per the contract.") == 0.0
    assert _fills(q, "Marta Silva, Fjord Dairy's CFO, signed the renewal.") > 0.0


def test_a_measure_asked_by_name_wants_a_figure_of_it() -> None:
    q = "What operating voltage does the Kettle base station use?"
    assert slot(q).kind == "quantity"
    # A figure of something else about the base station is not its voltage, and a name is no figure.
    assert _fills(q, "Kettle base station agreement with the Oslo lab: 100% within 0.5 dB.") == 0.0
    assert _fills(q, "The Kettle base station runs at an operating voltage of 12 V.") == 1.0
