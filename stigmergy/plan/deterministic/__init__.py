"""The default planner: analysis of the source (analysis.py), contradiction finding (contradictions.py)
and the filing itself (planner.py). No network, no key, reproducible byte for byte."""

from __future__ import annotations

from typing import Any

__all__ = ["DeterministicPlanner"]


def __getattr__(name: str) -> Any:
    # Lazy: plan.context uses analysis helpers, and planner.py uses plan.context.
    if name == "DeterministicPlanner":
        from stigmergy.plan.deterministic.planner import DeterministicPlanner

        return DeterministicPlanner
    raise AttributeError(name)
