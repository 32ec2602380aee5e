"""Issue #19, fifteenth pass: a final report's forecast for the next quarter does not correct the draft's figure for
this one (lines written for this test)."""

from __future__ import annotations

from pathlib import Path

from stigmergy.answer.evidence import Line
from stigmergy.answer.select import Scored
from stigmergy.answer.supersede import decide


def _line(text: str, title: str, n: int) -> Line:
    return Line(f"sources/2026/07/{n}.md", title, "source", "public", n, text, text, (), (), 1, sources=(title,))


def test_a_forecast_in_the_final_report_does_not_supersede_the_drafts_figure(tmp_path: Path) -> None:
    draft = _line("ARR at quarter end — Q2 2026: £8.2M; Q1 2026: £7.0M.", "Quarterly report — Q2 2026 (DRAFT)", 1)
    forecast = _line("Expect ARR of about £9.2M at the end of Q3.", "Quarterly report — Q2 2026 (final)", 2)
    final = _line("ARR at quarter end — Q2 2026: £8.4M; Q1 2026: £7.0M.", "Quarterly report — Q2 2026 (final)", 3)
    top = Scored(draft, 0.73, 1.0, 0.46, 1.0, False, True, ("ARR", "end", "june"))
    weak = Scored(forecast, 0.36, 0.9, 0.29, 0.6, False, True, ("ARR", "end"))
    same = Scored(final, 0.58, 0.9, 0.24, 1.0, False, True, ("ARR", "end", "june"))
    args = ((), tmp_path, ("public",), "quantity")
    # The forecast (a plan, weaker in its slot) leaves the draft's figure standing …
    assert decide(top, [top, weak], (draft, forecast), *args).lines == [draft]
    # … while the final report's own figure for the quarter supersedes it.
    said = decide(top, [top, same, weak], (draft, final, forecast), *args)
    assert said.lines == [final] and [s["text"] for s in said.superseded] == [draft.text]
