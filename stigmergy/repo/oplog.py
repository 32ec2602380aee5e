"""The operation log as a reader may see it (`log`, `show`, `status`).

An operation belongs to the layers of the paths it wrote or was refused on, and of the capture it filed.
A reader who may read all of them sees the whole change record; anyone else sees that an operation of
that kind happened in those layers, and when: never its title, summary, paths, planner record or patch.
"""

from __future__ import annotations

from typing import Any

from stigmergy.repo.layout import classify
from stigmergy.repo.operations import Repository
from stigmergy.repo.state import OperationRow, StateStore
from stigmergy.settings import PUBLIC_LAYER, Settings


def operation_layers(row: OperationRow, state: StateStore) -> set[str]:
    m = row.manifest
    paths = [e.get("path") for e in m.get("paths", [])] + [v.get("path") for v in m.get("violations", [])]
    layers = {kind[1] for p in paths if isinstance(p, str) and (kind := classify(p)) is not None}
    cid = m.get("capture")
    if isinstance(cid, str):
        cap = state.capture(cid)
        if cap is not None:
            layers.add(cap.layer)
    return layers or {PUBLIC_LAYER}


def withheld(row: OperationRow, layers: set[str]) -> dict[str, Any]:
    """What a non-reader may know of an operation: that it happened, its kind, status, time and layers."""
    names = ", ".join(sorted(layers))
    return {
        "id": row.id,
        "kind": row.kind,
        "status": row.status,
        "commit": row.commit_sha,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "summary": f"(an operation in layer {names}; not readable by this reader)",
        "manifest": {"layers": sorted(layers), "withheld": True},
        "patch_sha256": None,
        "withheld": True,
    }


def visible(row: OperationRow, settings: Settings, state: StateStore, readable: tuple[str, ...]) -> dict[str, Any]:
    layers = operation_layers(row, state)
    if not layers <= set(readable):
        return withheld(row, layers)
    return {**row.to_dict(), "withheld": False}


def operations_for(
    repo: Repository, readable: tuple[str, ...], limit: int = 20, kind: str | None = None,
) -> list[dict[str, Any]]:
    """`log`: the newest operations, each whole or withheld for a reader of the layers `readable`
    (`stigmergy.layers.readable_layers`)."""
    state = repo.reader_state()
    return [visible(r, repo.settings, state, readable) for r in state.operations(limit=limit, kind=kind)]


def operation_for(
    repo: Repository, readable: tuple[str, ...], ref: str, patch: bool = True,
) -> dict[str, Any] | None:
    """`show`: one operation by id, prefix or commit, with its exact patch when a reader of the layers
    `readable` may read it."""
    state = repo.reader_state()
    row = state.operation(ref)
    if row is None:
        return None
    data = visible(row, repo.settings, state, readable)
    text = ""
    if not data["withheld"] and row.patch_sha and patch:
        text = repo.evidence.get(row.patch_sha).decode("utf-8", "replace")
    return {**data, "patch": text}
