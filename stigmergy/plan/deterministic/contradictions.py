"""A disagreement between two cited sources: the claims (a cited statement with its line range, and for a
table row its cells and header) and the `Conflict` of a new claim with an older one. Which figures are
compared, and about what, is decided in `facts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from stigmergy.plan.deterministic.figures import Measure


@dataclass(frozen=True)
class CitedClaim:
    text: str  # the statement as the source gives it (cleaned inline markdown)
    capture_id: str
    source_path: str
    start: int
    end: int
    cells: tuple[str, ...] = ()  # when the claim is a table row: its cells and the table header
    header: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conflict:
    measure: Measure  # the new line's measure, with the period read from its context
    old_value: str
    old: CitedClaim
    new: CitedClaim
    old_raw: str
