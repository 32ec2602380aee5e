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


def test_the_sentence_before_names_who_only_when_the_line_refers_back_to_it() -> None:
    """A line whole in itself ("An external penetration test … is performed every year") is not about the firm the
    sentence before names ("Lanternfish Labs holds ISO/IEC 27001 certification"); one that says "they" is."""
    from stigmergy.answer.evidence import Line
    from stigmergy.answer.question import parts
    from stigmergy.answer.select import named_context

    before = "Lanternfish Labs holds ISO/IEC 27001 certification, renewed in November 2025."
    whole = Line("sources/2026/05/x.md", "Security overview", "source", "public", 9, "",
                 "An external penetration test is performed every year; the last one was in February 2026.",
                 ("Certifications and audits",), (), 1, before)
    slot = parts("which firm did our last penetration test")[0].slot
    assert "Lanternfish" not in named_context(whole, slot)
    leaning = Line(whole.page, whole.title, "source", "public", 9, "", "They also run a yearly penetration test.",
                   whole.headings, (), 1, before)
    assert "Lanternfish" in named_context(leaning, slot)
    # Where a thing is may be told by the sentence before, as before.
    assert "Lanternfish" in named_context(whole, parts("where is the penetration test done")[0].slot)


def test_the_new_one_is_coming_not_named() -> None:
    """"Hannah Lindqvist: introduce the new Nordic customer success manager" says one is coming, not who; the
    acronym asked ("CSM") is read as the line spells it. A name set beside "the new X" still names it."""
    assert _fills("what's the name of the second nordic CSM joining in november",
                  "Hannah Lindqvist: introduce the new Nordic customer success manager in November.") == 0.0
    assert _fills("what's the name of the second nordic CSM joining in november",
                  "Introduce the new Nordic customer success manager in November.") == 0.0
    assert _fills("which firm is our auditor?", "We hired Greywater Ventures as the new auditor.") == 1.0
    assert _fills("which firm is our auditor?", "Greywater Ventures, the new auditor, starts in May.") == 1.0
