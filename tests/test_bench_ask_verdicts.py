"""`bench/ask.py`'s verdicts: an answer is right only with the expected fact cited to one of the set's sources; a
wrong answer that gives the fact cited to another source line that says it is counted beside, never as right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import load_bench


def _wiki(tmp_path: Path) -> Path:
    for name, locator in (("cap_A", "reports/q2-final.md"), ("cap_B", "meetings/q2-review.md")):
        page = tmp_path / "sources/2026/07" / f"{name}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"---\nlocator: {locator}\n---\nbody\n", encoding="utf-8")
    return tmp_path


def _row(text: str, cited: str, cited_text: str) -> dict[str, Any]:
    return {"answered": True, "uncovered": [], "sentences": [
        {"text": text, "citations": [{"path": f"sources/2026/07/{cited}.md", "text": cited_text}]}]}


def test_the_right_fact_cited_elsewhere_is_wrong_and_counted_as_supported(tmp_path: Path) -> None:
    ask = load_bench("ask")
    loc = ask.Locators(_wiki(tmp_path))
    q = {"id": "x1", "q": "headcount at the end of june?", "expect": ["212"], "source": ["reports/q2-final.md"]}
    right = _row("Headcount was 212 on 30 June.", "cap_A", "Headcount at 30 June: 212.")
    elsewhere = _row("Headcount was 212 on 30 June.", "cap_B", "We closed June at 212 people.")
    unsupported = _row("Headcount was 212 on 30 June.", "cap_B", "Headcount grew in June.")
    wrong = _row("Headcount was 198 on 30 June.", "cap_A", "Headcount at 30 June: 198 (draft).")
    assert ask.verdict(q, right, loc) == "answered_correctly"
    assert [ask.verdict(q, r, loc) for r in (elsewhere, unsupported, wrong)] == ["answered_wrongly"] * 3
    assert [ask.supported_elsewhere(q, r) for r in (elsewhere, unsupported, wrong)] == [True, False, False]

    spec = {"questions": [q]}
    got = ask.tally("bench", spec, {"rows": [{**elsewhere, "id": "x1", "best": 0.7, "parts": []}]}, loc, None)
    assert got["answered_correctly"] == 0 and got["answered_wrongly"] == 1 and got["wrong_fact_supported"] == 1
