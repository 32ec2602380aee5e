"""Issue #19, eleventh pass: wrong answers and unanswerable questions "answered" on the calibration sets, by
cause (no index; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.slots import WEAK
from tests.test_answer_slots import _fills


def test_a_line_that_opens_with_example_is_an_illustration() -> None:
    q = "what's the minimum tox version I need for the docs build?"
    assert _fills(q, "Example: tox -e docs-3.12") == WEAK
    assert _fills(q, "An example - tox -e docs-3.12") == WEAK
    # The version the line gives as a fact still fills; "example-driven" opens no illustration.
    assert _fills(q, "The docs build needs tox 4.2 or later.") == 1.0
    assert _fills("how many pages does the example-driven guide have?", "Example-driven guide: 48 pages.") == 1.0
