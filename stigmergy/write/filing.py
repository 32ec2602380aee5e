"""Filing one capture: context -> planner -> gates, with one repair round for planners that can learn
from a refusal. The pipelines in `stigmergy.write.capture` commit `verdict.changes` with the source page."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stigmergy.errors import ConfigError
from stigmergy.gates.authorship import Authorship
from stigmergy.gates.engine import OperationInfo, Verdict, evaluate
from stigmergy.plan.context import build_context, context_record
from stigmergy.plan.planner import Planner
from stigmergy.plan.schema import Plan
from stigmergy.settings import Settings


@dataclass(frozen=True)
class FilingResult:
    plan: Plan
    verdict: Verdict  # final verdict (after at most one repair round for LLM planners)
    record: dict  # planner kind, model, prompt sha256, reply, tokens, context sizes, repair round


def make_planner(settings: Settings, env: Mapping[str, str]) -> Planner:
    """The planner `settings.planner.kind` names. `env` comes from the CLI (nothing below it reads
    os.environ); only the variable named by planner.api_key_env is looked at."""
    kind = settings.planner.kind
    if kind == "deterministic":
        from stigmergy.plan.deterministic import DeterministicPlanner

        return DeterministicPlanner()
    if kind in ("openai", "anthropic"):
        from stigmergy.plan.llm import AnthropicPlanner, OpenAIPlanner, api_key

        key = api_key(settings.planner, env)
        return OpenAIPlanner(settings.planner, key) if kind == "openai" else AnthropicPlanner(settings.planner, key)
    raise ConfigError(
        f"unknown planner kind {kind!r}", hint="set [planner] kind to deterministic, openai or anthropic in stigmergy.toml"
    )


def _index_search(root: Path, settings: Settings):  # noqa: ANN202
    """The index's page search when `.stigmergy/index.sqlite` exists; None otherwise. Filing never requires
    the index and never loads the embedding model: `page_paths` is lexical, scoped to the source's own
    layer, and answers [] for an index it cannot read (derived state; `stigmergy index --check` reports it)."""
    from stigmergy.repo.layout import Layout

    if not Layout(root).index_db.is_file():
        return None

    def search(query: str, k: int, layer: str) -> list[str]:
        from stigmergy.index.search import page_paths

        return page_paths(root, settings, query, k, layer=layer)

    return search


def propose(
    root: Path,
    settings: Settings,
    source_relpath: str,
    op: OperationInfo,
    planner: Planner | None = None,
    authorship: Authorship | None = None,
) -> FilingResult:
    """Plan the filing of the source page at `source_relpath` (already on disk) and judge the plan."""
    planner = planner or make_planner(settings, {})
    started = time.perf_counter()
    ctx = build_context(root, settings, source_relpath, search=_index_search(root, settings))
    context_ms = (time.perf_counter() - started) * 1000
    t_plan = time.perf_counter()
    reply = planner.plan(ctx)
    t_gates = time.perf_counter()
    verdict = evaluate(reply.plan, root, settings, op, authorship)
    record: dict[str, Any] = {
        "planner": planner.kind,
        "context": context_record(ctx),
        "context_ms": round(context_ms, 1),
        "plan_ms": round((t_gates - t_plan) * 1000, 1),
        "gates_ms": round((time.perf_counter() - t_gates) * 1000, 1),
        **{k: v for k, v in reply.record.items() if k != "planner"},
    }
    plan = reply.plan
    if not verdict.ok and getattr(planner, "repairs", False):
        reasons = [f"[{v.rule}] {v.path}: {v.message}" + (f" (lines: {' | '.join(v.lines[:5])})" if v.lines else "")
                   for v in verdict.violations]
        repair = planner.plan(ctx, feedback=reasons)
        verdict = evaluate(repair.plan, root, settings, op, authorship)
        plan = repair.plan
        record["repair"] = {
            "refusal": reasons,
            "ok": verdict.ok,
            **{k: v for k, v in repair.record.items() if k != "planner"},
        }
    record["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return FilingResult(plan, verdict, record)
