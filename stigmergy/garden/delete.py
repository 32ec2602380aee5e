"""`delete PATH|CAPTURE`: remove a wiki page, or a capture's source page, with the reference sweep.

The original bytes stay in the evidence store (erasing them is `erase`). Deleting anything of a restricted
layer needs a reader of that layer."""

from __future__ import annotations

from pathlib import Path

from stigmergy.errors import NotFoundError, UsageError
from stigmergy.garden.proposal import Proposal
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.garden.sweep import sweep_references
from stigmergy.gates.engine import OperationInfo
from stigmergy.pages.moc import render_map
from stigmergy.pages.paths import stem_of, unsafe_relpath_reason
from stigmergy.repo.layout import classify, layer_prefix, map_relpath
from stigmergy.settings import Settings

MAX_RATIONALE = 2000


def find_source(root: Path, settings: Settings, capture: str, reader: str | None = None) -> str:
    """The source page of a capture id (or a unique prefix of one), in any layer (any the reader may read,
    given a `reader`: a restricted capture then matches nothing, as an absent one does)."""
    hits = []
    for layer in settings.layer_names():
        if reader is not None and not readable(settings, reader, layer):
            continue
        base = root / f"{layer_prefix(layer)}sources"
        if base.is_dir():
            hits += [p.relative_to(root).as_posix() for p in base.glob(f"*/*/{capture}*.md")]
    if len(hits) != 1:
        raise NotFoundError(
            f"{'no' if not hits else 'more than one'} source page matches {capture!r}",
            hint="give the whole capture id (`stigmergy log --kind capture` lists them)",
        )
    return hits[0]


def resolve_target(
    root: Path, settings: Settings, target: str, snapshot: Snapshot, reader: str | None = None
) -> str:
    """A repository-relative page path for what the user named: a path, a capture id, or a page title.

    Given a `reader`, what lies in a layer they may not read is answered exactly as what is absent: a
    path there gets one refusal whether or not a page is at it, and capture ids and titles match only in
    the reader's layers, so the error is never an oracle for a restricted page's existence."""
    if target.startswith("cap_") and "/" not in target:
        return find_source(root, settings, target.removesuffix(".md"), reader)
    reason = unsafe_relpath_reason(target)
    kind = classify(target) if reason is None else None
    if kind is not None:
        if reader is not None and not readable(settings, reader, layer_of(target)):
            raise UsageError(
                f"{target} is in layer {layer_of(target)!r}, which {reader or 'this reader'} may not read",
                hint="changing a restricted page needs a reader of its layer (--as EMAIL)",
            )
        if not snapshot.is_file(target):
            raise NotFoundError(f"no page at {target}", hint="`stigmergy list` shows the wiki's pages")
        return target
    if "/" not in target:
        found = snapshot.resolver.resolve(target)
        if reader is not None:
            found = [p for p in found if readable(settings, reader, layer_of(p))]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise UsageError(f"{target!r} names several pages: {', '.join(found)}; give the path")
    raise NotFoundError(
        f"{target!r} is not a wiki page, a source page or a capture id",
        hint="give a path such as wiki/notes/Title.md, or a capture id cap_…",
    )


def readable(settings: Settings, reader: str, layer: str) -> bool:
    from stigmergy.index.scope import readable_layers

    return layer in readable_layers(settings, reader)


def refresh_maps(root: Path, post: Snapshot, changes: dict[str, str | None], layers: set[str]) -> None:
    """Re-render the maps of content of `layers` that exist, for the pages as `changes` leave them."""
    for layer in sorted(layers):
        rel = map_relpath(layer)
        now = post.file_text(rel)  # the snapshot's tree: recompile's replay holds its writes in memory
        if now is None:
            continue
        text = render_map(layer, post.map_pages())
        if now != text:
            changes[rel] = text


def plan_delete(
    root: Path, settings: Settings, target: str, rationale: str, *, reader: str | None, op_id: str, timestamp: str,
    snapshot: Snapshot | None = None,
) -> Proposal:
    """`reader` None: no reader check (a replay of the curation record, already allowed as a whole)."""
    rationale = " ".join(rationale.split())
    if not rationale:
        raise UsageError("--rationale must say why (it is kept in the change record)")
    if len(rationale) > MAX_RATIONALE:
        raise UsageError(f"--rationale is longer than {MAX_RATIONALE} characters")
    snapshot = snapshot or Snapshot.load(root, settings)
    rel = resolve_target(root, settings, target, snapshot, reader)
    layer = layer_of(rel)
    if reader is not None and not readable(settings, reader, layer):
        raise UsageError(
            f"{rel} belongs to layer {layer!r}, which {reader or 'this reader'} may not read",
            hint="deleting a restricted page needs a reader of its layer (--as EMAIL)",
        )
    is_source = (classify(rel) or ("", ""))[0] == "source"
    sweep = sweep_references(root, settings, [rel], timestamp=timestamp, snapshot=snapshot)
    op = OperationInfo(op_id=op_id, kind="delete", timestamp=timestamp, rationale=rationale, targets=(rel,))
    what = f"source {stem_of(rel)}" if is_source else rel
    if sweep.skipped:
        page, why = sweep.skipped[0]
        return Proposal(op, f"delete {what}", {}, nothing=f"{page} refers to {rel} but is {why}")
    changes = dict(sweep.changes)
    post = snapshot.with_changes(changes)
    refresh_maps(root, post, changes, {layer_of(p) for p in changes})
    removed_lines = sum(1 for r in sweep.records if r.startswith("line removed"))
    report = {
        "target": rel,
        "target_kind": "source" if is_source else (classify(rel) or ("", ""))[0],
        "rationale": rationale,
        "pages_changed": sorted(p for p, t in changes.items() if t is not None),
        "pages_removed": sorted(p for p, t in changes.items() if t is None and p != rel),
        "cascaded": list(sweep.cascaded),
        "lines_removed": removed_lines,
        "evidence_kept": is_source,
    }
    page = None if is_source else snapshot.page(rel)
    return Proposal(op, f"delete {what}", changes, report, records=sweep.records,
                    page_ids=(page.id,) if page is not None else ())
