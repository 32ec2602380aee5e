"""Issue #19, ninth pass: lines that "answered" with what they only introduce or with a value of another kind
(found on the tune and fresh sets; no index; sentences written for these tests)."""

from __future__ import annotations

from tests.test_answer_slots import _fills


def test_a_lead_in_holds_no_value_what_it_introduces_does() -> None:
    q = "what should I run in place of make install for the docs?"
    # "…, run:" announces the command on the next line; it gives none itself.
    assert _fills(q, "To install the rendered docs without make install, run:") == 0.0
    # The code line it introduces does, with the lead-in as its context.
    assert _fills(q, "$ tox run -e docs_install", "To install the rendered docs without make install, run:") == 1.0
    # A lead-in that gives a figure of its own still holds it.
    assert _fills("what share of builders skip the docs?", "Most builders skip the docs (72.5%):") == 1.0
