"""What a reader may see of a garden report: every entry is attributed to the layer of the page it concerns
(by the path it was built from, never by its text); entries in a layer the reader cannot read become counts,
so the verdict and exit code stay honest while their paths, titles and details stay unseen."""

from __future__ import annotations

import dataclasses
from typing import Any

from stigmergy.layers import path_layer


def plan_records(done: Any, learned: Any, maps: Any) -> tuple[str, ...]:
    """The change records of a garden plan, one per repair, learned alias and map written."""
    return tuple(f"{d['repair']} {d['path']}: {d['detail']}" for d in done) + tuple(
        f"alias learned: {a.alias!r} -> {a.entity} (seen at {a.evidence})" for a in learned
    ) + tuple(f"map of content written: {m}" for m in maps)


def _split(entries: list[Any], *keys: str, readable: frozenset[str]) -> tuple[list[Any], int]:
    """Entries whose every named page lies in a readable layer, and how many do not."""
    shown = [e for e in entries if all(path_layer(str(e[k])) in readable for k in keys if e.get(k))]
    return shown, len(entries) - len(shown)


def _blind_left(left: Any, readable: frozenset[str] | None) -> list[dict[str, Any]]:
    """`left` as a reader of `readable` (None: every layer) is told it: an entry about a layer they cannot
    read is the entry its made-up twin would leave (or none), so garden answers the same whether or not
    the page exists."""
    out = []
    for e in left:
        if readable is not None and e.get("_about") is not None and e["_about"] not in readable:
            e = e.get("_blind")
        if e is not None:
            out.append({k: v for k, v in e.items() if not k.startswith("_")})
    return out


def _scoped_counts(lint: Any, readable: frozenset[str]) -> dict[str, int]:
    from stigmergy.gates.lint import scope_report

    return dict(scope_report(lint, set(readable)).to_dict()["counts"])


def scope_garden(outcome: Any, plan: Any, readable: frozenset[str] | None) -> Any:
    """`outcome` (a garden Outcome built from `plan`) as a reader of `readable` may see it; None is everything.
    The report gains `hidden`: how many repairs, findings left, lint findings and merge proposals were withheld."""
    report = dict(outcome.report)
    if readable is None:
        for key in ("findings_left", "findings_info"):
            if key in report:
                report[key] = _blind_left(report[key], None)
        report["hidden"] = {"repairs": 0, "left": 0, "findings": 0, "proposals": 0}
        return dataclasses.replace(outcome, report=report)
    done = [d for d in plan.done if path_layer(d["path"]) in readable]
    learned = [a for a in plan.learned if path_layer(a.entity) in readable]
    maps = [m for m in plan.maps if path_layer(m) in readable]
    repairs_hidden = len(plan.done) + len(plan.learned) + len(plan.maps) - len(done) - len(learned) - len(maps)
    report["done"] = done
    report["aliases_learned"] = [a.to_dict() for a in learned]
    report["maps"] = maps
    report["left"], left_hidden = _split(_blind_left(plan.left, readable), "path", readable=readable)
    report["lint_before"] = _scoped_counts(plan.lint, readable)
    report["merge_proposals"], proposals_hidden = _split(report.get("merge_proposals") or [], "page", "into",
                                                         readable=readable)
    findings_hidden = 0
    left_count = outcome.findings_left
    for key in ("findings_left", "findings_info"):
        if key in report:
            report[key], n = _split(_blind_left(report[key], readable), "path", readable=readable)
            findings_hidden += n
            if key == "findings_left":
                left_count = len(report[key]) + n
    history = report.get("history")
    if isinstance(history, dict) and history.get("findings"):
        shown, n = _split(history["findings"], "path", readable=readable)
        report["history"] = {**history, "findings": shown, "hidden": n}
        findings_hidden += n
    report["hidden"] = {"repairs": repairs_hidden, "left": left_hidden, "findings": findings_hidden,
                        "proposals": proposals_hidden}
    violations, _ = _split(list(outcome.violations), "path", readable=readable)
    return dataclasses.replace(
        outcome, report=report, records=plan_records(done, learned, maps), findings_left=left_count,
        paths=tuple((a, p) for a, p in outcome.paths if path_layer(p) in readable), violations=tuple(violations),
    )
