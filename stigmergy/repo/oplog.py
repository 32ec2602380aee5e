"""The operation log as a reader may see it (`log`, `show`, `status`).

An operation belongs to the layers of the paths it wrote or was refused on, and of the capture it filed.
A reader who may read all of them sees the whole change record; anyone else sees that an operation of
that kind happened in those layers, and when: never its title, summary, paths, planner record or patch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from stigmergy.repo.operations import Repository
from stigmergy.repo.state import OperationRow, StateStore
from stigmergy.settings import PUBLIC_LAYER, Settings

# A path of a layer anywhere in a record: a manifest's paths, a violation's, a record line such as
# "map of content written: layers/board/wiki/index.md", a patch's file headers.
_LAYER_PATH = re.compile(r"(?:^|[\s:'\"(\[/])layers/([^/\s'\"]+)/")
_PATCH_FILE = re.compile(r"^(?:diff --git a/(\S+) b/(\S+)|--- a/(\S+)|\+\+\+ b/(\S+))", re.M)


def path_layer(path: str) -> str:
    """`layers/<l>/...` is l, anything else public (stigmergy.layers.path_layer; repo sits below layers)."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "layers" else PUBLIC_LAYER


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def operation_layers(row: OperationRow, state: StateStore) -> set[str]:
    """Every layer the operation touched: of any path its record names (whatever the file: a page, a map
    of content, a source), and of the capture it filed. An operation that touched a restricted layer is
    withheld from that layer's non-readers whatever else it touched."""
    m = row.manifest
    layers = {PUBLIC_LAYER} if _touches_public(m) else set()
    for text in _strings(m):
        layers.update(_LAYER_PATH.findall("/" + text if text.startswith("layers/") else text))
    cid = m.get("capture")
    if isinstance(cid, str):
        cap = state.capture(cid)
        if cap is not None:
            layers.add(cap.layer)
    return layers or {PUBLIC_LAYER}


def _touches_public(manifest: dict[str, Any]) -> bool:
    paths = [e.get("path") for e in manifest.get("paths", [])] + [v.get("path") for v in manifest.get("violations", [])]
    return any(isinstance(p, str) and path_layer(p) == PUBLIC_LAYER for p in paths)


def patch_layers(patch: str) -> set[str]:
    """The layers of the files a patch changes (its `diff --git`, `---` and `+++` headers)."""
    return {path_layer(p) for m in _PATCH_FILE.finditer(patch) for p in m.groups() if p}


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
    if not data["withheld"] and row.patch_sha:
        text = repo.evidence.get(row.patch_sha).decode("utf-8", "replace")
        # The patch is the last word: a file of a layer the record did not name still withholds it all.
        layers = patch_layers(text)
        if not layers <= set(readable):
            return {**withheld(row, layers | operation_layers(row, state)), "patch": ""}
    return {**data, "patch": text if patch else ""}
