"""Filing one capture: context -> planner -> gates, with one repair round for planners that can learn
from a refusal. The pipelines in `stigmergy.write.capture` commit `verdict.changes` with the source page."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
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


# What the write pipelines take instead of the environment: a planner when they need one (the service
# builds the planner once and hands out the same one; a missing API key is an error only when filing).
PlannerFactory = Callable[[], Planner]


def planner_factory(settings: Settings, env: Mapping[str, str]) -> PlannerFactory:
    """The planner `settings` name, made on first use and kept (a failed attempt is tried again)."""
    made: list[Planner] = []

    def planner() -> Planner:
        if not made:
            made.append(make_planner(settings, env))
        return made[0]

    return planner


def default_planners(settings: Settings) -> PlannerFactory:
    """For callers that have no environment to give (tests, benches): the planner without an API key."""
    return planner_factory(settings, {})


def make_planner(settings: Settings, env: Mapping[str, str]) -> Planner:
    """The planner `settings.planner.kind` names. `env` comes from the CLI (nothing below it reads
    os.environ); only the variable named by planner.api_key_env is looked at."""
    kind = settings.planner.kind
    if kind == "deterministic":
        from stigmergy.plan.deterministic import DeterministicPlanner

        return DeterministicPlanner()
    if kind in ("openai", "anthropic"):
        from stigmergy.plan.llm import AnthropicPlanner, OpenAIPlanner, api_key

        settings.require_endpoint("planner")
        key = api_key(settings.planner, env)
        return OpenAIPlanner(settings.planner, key) if kind == "openai" else AnthropicPlanner(settings.planner, key)
    raise ConfigError(
        f"unknown planner kind {kind!r}", hint="set [planner] kind to deterministic, openai or anthropic in stigmergy.toml"
    )


def _index_search(root: Path, settings: Settings):  # noqa: ANN202
    """The index's page search when `.stigmergy/index.sqlite` exists; None otherwise. Filing never requires
    the index and never loads the embedding model: `page_paths` is lexical, scoped to the source's own
    layer, and answers [] for an index it cannot read (derived state; `stigmergy index --check` reports it)."""
    from stigmergy.errors import StigmergyError
    from stigmergy.index.store import index_location
    from stigmergy.repo.layout import Layout

    try:
        where = index_location(Layout(root), settings)
    except StigmergyError:
        return None
    if not where.shared and not where.path.is_file():
        return None

    def search(query: str, k: int, layer: str) -> list[str]:
        from stigmergy.index.page_lookup import page_paths

        return page_paths(root, settings, query, k, layer=layer)

    return search


def planner_version(settings: Settings, root: Path | None = None) -> str:
    """Which planner, at which version, writes pages: the deterministic planner's is a digest of its own
    code (it changes whenever the code does, with nobody to remember to bump a number); an LLM planner's
    names its kind and model and a digest of the doctrine it follows. Recorded in every filing's change
    record, so `status` can tell when a recompile would change the wiki."""
    kind = settings.planner.kind
    if kind == "deterministic":
        return f"deterministic/{_code_digest()}"
    doctrine = b""
    if root is not None and (Path(root) / "librarian_skill.md").is_file():
        doctrine = (Path(root) / "librarian_skill.md").read_bytes()
    import hashlib

    return f"{kind}/{settings.planner.model or 'default'}/{hashlib.sha256(doctrine).hexdigest()[:12]}"


@lru_cache(maxsize=1)
def _code_digest() -> str:
    import hashlib

    import stigmergy.plan as plan_pkg

    digest = hashlib.sha256()
    base = Path(plan_pkg.__file__).parent
    for path in sorted(base.rglob("*.py")):
        digest.update(path.relative_to(base).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


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
        "planner_version": planner_version(settings, root),
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
