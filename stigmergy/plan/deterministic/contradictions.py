"""Different figures for the same subject and measure: the deterministic contradiction finder.

A measure is (subject, measure word, period, figure kind) — for example (Aurora Systems, revenue,
Q1 2026, money). Two cited lines with the same measure and different values contradict each other;
both stay, and a contradiction record cites both.
"""

from __future__ import annotations

from dataclasses import dataclass

from stigmergy.plan.deterministic.analysis import Measure, measures_in, row_measures


@dataclass(frozen=True)
class CitedClaim:
    text: str  # the claim as written (no citation, links as labels)
    capture_id: str
    source_path: str
    start: int
    end: int
    cells: tuple[str, ...] = ()  # when the claim is a table row: its cells and the table header
    header: tuple[str, ...] = ()


def claim_measures(claim: CitedClaim, subject: str) -> list[Measure]:
    if claim.cells and claim.header:
        return row_measures(claim.cells, claim.header, subject)
    return measures_in(claim.text, [subject])


@dataclass(frozen=True)
class Conflict:
    measure: Measure  # the new line's measure
    old_value: str
    old: CitedClaim
    new: CitedClaim
    old_raw: str


def find_conflicts(
    subject: str,
    new_claims: list[CitedClaim],
    old_claims: list[CitedClaim],
    recorded: frozenset[tuple[str, int, int]] = frozenset(),
) -> list[Conflict]:
    """Pairs (old, new) stating the same measure of `subject` with different values. Periods must be
    stated for amounts, percentages and counts: 'revenue was $2M' and 'revenue was $3M' with no period
    may describe different quarters and are not compared."""
    old_index: dict[tuple[str, str, str, str], list[tuple[Measure, CitedClaim]]] = {}
    for claim in old_claims:
        for m in claim_measures(claim, subject):
            if m.kind != "date" and not m.period and " " not in m.measure:
                continue
            old_index.setdefault(m.key, []).append((m, claim))
    out: list[Conflict] = []
    seen: set[tuple] = set()
    for claim in new_claims:
        for m in claim_measures(claim, subject):
            if m.kind != "date" and not m.period and " " not in m.measure:
                continue
            for old_m, old in old_index.get(m.key, []):
                if old_m.value == m.value or old.capture_id == claim.capture_id:
                    continue
                if (old.capture_id, old.start, old.end) in recorded:
                    continue  # this claim is already in a contradiction on record
                key = (old.capture_id, old.start, old.end, claim.capture_id, claim.start, claim.end, m.key)
                if key in seen:
                    continue
                seen.add(key)
                out.append(Conflict(m, old_m.value, old, claim, old_m.raw))
    return out
