"""`garden`: lint the whole wiki, then propose every deterministic repair as one operation.

The proposal holds page repairs (garden/repairs.py), aliases the wiki attests (garden/aliases.py), and the
maps of content (pages/moc.py). Duplicate entities are reported as merge proposals, never merged."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from stigmergy.garden.aliases import LearnedAlias, MergeProposal, duplicate_entities, learn_aliases
from stigmergy.garden.proposal import Proposal
from stigmergy.garden.repairs import FoldedNames, repair_page
from stigmergy.garden.scope import plan_records
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.gates.engine import OperationInfo
from stigmergy.gates.lint import LintReport, lint_repository
from stigmergy.pages.moc import render_map
from stigmergy.pages.wiki import render_wiki_page
from stigmergy.repo.layout import map_relpath
from stigmergy.settings import Settings

# Findings a garden repairs (the rest need a person: `left` says which and why).
REPAIRABLE = frozenset({"dead-link", "ambiguous-link", "orphan", "sources-drift"})


@dataclass(frozen=True)
class GardenPlan:
    proposal: Proposal
    lint: LintReport  # before the repairs
    done: tuple[dict[str, str], ...]
    left: tuple[dict[str, Any], ...]
    learned: tuple[LearnedAlias, ...]
    merges: tuple[MergeProposal, ...]
    maps: tuple[str, ...] = field(default=())  # maps of content written anew
    unwritten: int = 0  # repairs (and aliases, maps) in layers the identity may not write: counted, not made

    def report(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for d in self.done:
            counts[d["repair"]] = counts.get(d["repair"], 0) + 1
        if self.maps:
            counts["map"] = len(self.maps)
        if self.learned:
            counts["alias"] = len(self.learned)
        return {
            "lint_before": self.lint.to_dict()["counts"],
            "repairs": counts,
            "done": list(self.done),
            "aliases_learned": [a.to_dict() for a in self.learned],
            "maps": list(self.maps),
            "left": [{k: v for k, v in e.items() if not k.startswith("_")} for e in self.left],
            "merge_proposals": [m.to_dict() for m in self.merges],
            "unwritten": self.unwritten,
        }


def plan_garden(root: Path, settings: Settings, *, op_id: str, timestamp: str,
                writable: frozenset[str] | None = None) -> GardenPlan:
    """`writable`: the layers the identity running garden may write (None: every layer); repairs in the
    others are counted (`unwritten`), never made: garden cannot be a way to write where one may not."""
    root = Path(root)
    unwritten = 0

    def may(rel: str) -> bool:
        return writable is None or layer_of(rel) in writable

    lint = lint_repository(root, settings)
    snap = Snapshot.load(root, settings)
    folded = FoldedNames(snap)
    changes: dict[str, str | None] = {}
    done: list[dict[str, str]] = []
    left: list[dict[str, Any]] = []
    for rel, text in snap.texts.items():
        fix = repair_page(rel, text, snap, folded, timestamp)
        if not may(rel):
            unwritten += len(fix.done)
            continue
        done += fix.done
        left += fix.left
        if fix.text != text:
            changes[rel] = fix.text
    post = snap.with_changes(changes)
    learned = learn_aliases(post)
    unwritten += sum(1 for a in learned if not may(a.entity))
    learned = [a for a in learned if may(a.entity)]
    for alias in learned:
        page = post.page(alias.entity)
        if page is None:
            continue
        page = replace(page, aliases=(*page.aliases, alias.alias), updated=timestamp)
        changes[alias.entity] = render_wiki_page(page)
        post = post.with_changes({alias.entity: changes[alias.entity]})
    maps = []
    pages = post.pages()
    for layer in sorted({layer_of(rel) for rel in pages}):
        rel = map_relpath(layer)
        text = render_map(layer, pages)
        try:
            current = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            current = None
        if current != text and not may(rel):
            unwritten += 1
        elif current != text:
            changes[rel] = text
            maps.append(rel)
    for finding in lint.findings:
        if finding.severity == "info":
            continue  # a person's uncited line: shown by lint, legitimate, never a finding that needs a person
        if finding.blind is not None and finding.blind[0] in REPAIRABLE:
            continue  # repaired as its made-up twin is: a link into a narrower layer is made plain text
        entry = _left(finding, changes)
        if entry is not None and finding.about is not None:
            # What a non-reader of `about` is told instead (garden/scope.py): the entry the made-up twin of
            # the restricted source would leave, or none.
            blind = _left(replace(finding, rule=finding.blind[0], message=finding.blind[1]),
                          changes) if finding.blind else None
            entry = {**entry, "_about": finding.about, "_blind": blind}
        if entry is not None:
            left.append(entry)
    op = OperationInfo(op_id=op_id, kind="garden", timestamp=timestamp)
    records = plan_records(done, learned, maps)
    proposal = Proposal(op, "repair the wiki", changes, records=records,
                        nothing=None if changes else "nothing to repair")
    return GardenPlan(proposal, lint, tuple(done), tuple(left), tuple(learned), tuple(duplicate_entities(post)), tuple(maps),
                      unwritten)


def _left(finding: Any, changes: dict[str, str | None]) -> dict[str, str] | None:
    """The `left` entry of a lint finding no repair fixes, or None."""
    if finding.rule in REPAIRABLE or (finding.rule == "contract" and finding.path in changes):
        return None
    return {"finding": finding.rule, "path": finding.path, "why": f"needs a person: {finding.message}"}


def without(plan: GardenPlan, paths: set[str], why: dict[str, str]) -> GardenPlan:
    """The plan less the changes to `paths` (a gate refused them); their repairs move to `left`."""
    changes = {p: t for p, t in plan.proposal.changes.items() if p not in paths}
    done = tuple(d for d in plan.done if d["path"] not in paths)
    left = plan.left + tuple(
        {"finding": d["repair"], "path": d["path"], "why": f"the repair would break a gate: {why.get(d['path'], '')}"}
        for d in plan.done if d["path"] in paths
    )
    learned = tuple(a for a in plan.learned if a.entity not in paths)
    maps = tuple(m for m in plan.maps if m not in paths)
    records = tuple(r for r in plan.proposal.records if not any(f" {p}:" in r or r.endswith(p) for p in paths))
    proposal = replace(plan.proposal, changes=changes, records=records, nothing=None if changes else "nothing to repair")
    return replace(plan, proposal=proposal, done=done, left=left, learned=learned, maps=maps)

