"""Issue #19, eighteenth pass: "our SMS provider" says whose provider it is, not which one, so it answers no
"which provider" question; a name beside it still does (no index)."""

from __future__ import annotations

from tests.test_answer_slots import _fills


def test_a_possessive_names_no_one() -> None:
    q = "which sms provider do we use for excursion alerts"
    assert _fills(q, "Between 13:04 and 13:51 UTC, alerts sent by SMS were delayed because of an outage at our SMS "
                     "provider.") == 0.0
    assert _fills(q, "We moved to Twilio, our new SMS provider, in May.") > 0.0
    assert _fills(q, "Our SMS provider is Twilio.") > 0.0
