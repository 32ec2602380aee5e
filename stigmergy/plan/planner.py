"""The planner seam: deterministic, OpenAI-compatible and Anthropic planners all take a context and
return a plan with what the change record should keep about how it was made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from stigmergy.plan.context import PlannerContext
from stigmergy.plan.schema import Plan


@dataclass(frozen=True)
class PlannerReply:
    plan: Plan
    record: dict[str, Any] = field(default_factory=dict)  # model, prompt sha256, reply, tokens, ...


class Planner(Protocol):
    kind: str

    def plan(self, context: PlannerContext, feedback: Sequence[str] = ()) -> PlannerReply:
        """Propose a plan. `feedback` holds the gate refusal reasons of the previous attempt (repair round)."""
        ...

    @property
    def repairs(self) -> bool:
        """Whether a refused plan is worth one repair round (an LLM can correct itself; code cannot)."""
        ...
