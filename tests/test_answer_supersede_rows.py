"""Issue #19, seventeenth pass: a note's line that cites a whole table rests on the open contradiction about its own
row, not on the one about the row beside it (lines and blocks written for this test)."""

from __future__ import annotations

from pathlib import Path

from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.select import Scored
from stigmergy.answer.supersede import decide

DRAFT, FINAL = "sources/2026/07/draft.md", "sources/2026/07/final.md"


def _claim(path: str, start: int, end: int, text: str, date: str) -> dict[str, object]:
    return {"path": path, "start": start, "end": end, "text": text, "date": date}


def _block(subject: str, draft: str, final: str) -> dict[str, object]:
    return {"page": "wiki/notes/Q2.md", "subject": subject, "status": "open",
            "claims": [_claim(DRAFT, 33, 38, draft, "2026-07-08"), _claim(FINAL, 34, 39, final, "2026-07-21")]}


def test_a_line_citing_a_whole_table_rests_on_its_own_rows_block(tmp_path: Path) -> None:
    # The draft's note line cites the whole table (revenue and headcount rows alike).
    noted = Line("wiki/notes/Q2 (DRAFT).md", "Q2 (DRAFT)", "note", "public", 41, "Headcount — Q2 2026: 58; Q1 2026: 49.",
                 "Headcount — Q2 2026: 58; Q1 2026: 49.", (), (Cite(DRAFT, 33, 38, ""),), 1)
    final_revenue = Line(FINAL, "Q2 (final)", "source", "public", 36, "Revenue — Q2 2026: £2.36M; Q1 2026: £1.88M.",
                         "Revenue — Q2 2026: £2.36M; Q1 2026: £1.88M.", (), (Cite(FINAL, 34, 36, ""),), 2)
    final_headcount = Line(FINAL, "Q2 (final)", "source", "public", 39, "Headcount — Q2 2026: 56; Q1 2026: 49.",
                           "Headcount — Q2 2026: 56; Q1 2026: 49.", (), (Cite(FINAL, 37, 39, ""),), 3)
    revenue = _block("the reported revenue for Q2 2026", "Revenue — Q2 2026: £2.41M; Q1 2026: £1.88M",
                     "Revenue — Q2 2026: £2.36M; Q1 2026: £1.88M")
    headcount = _block("the reported headcount for Q2 2026", "Headcount — Q2 2026: 58; Q1 2026: 49",
                       "Headcount — Q2 2026: 56; Q1 2026: 49")
    top = Scored(noted, 0.71, 1.0, 0.43, 1.0, False, True, ("staff", "Q2"))
    said = decide(top, [top], (noted, final_revenue, final_headcount), (revenue, headcount), tmp_path, ("public",),
                  "quantity")
    # The final report's headcount row (dated by its claim), not the revenue row the revenue block's later claim
    # rests on.
    assert [(ln.page, ln.text, ln.date) for ln in said.lines] == [(FINAL, final_headcount.text, "2026-07-21")]
    assert "headcount" in said.superseded[0]["why"]
