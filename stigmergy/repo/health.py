"""Repository health: `status` (pending work, the last operation, the index's commit, uncommitted
changes). The evidence and source-page check (`fsck`) is `stigmergy.capture.fsck`, above the pages it parses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stigmergy.repo.operations import Repository


def status(repo: Repository, index: Mapping[str, Any], readable: tuple[str, ...] = ()) -> dict[str, Any]:
    """Pending work, the last operation and `index` (what `stigmergy.index.store.index_state` says of the
    index: the ground cannot read it itself), as a reader of the layers `readable`
    (`stigmergy.layers.readable_layers`) may see them (see repo/oplog.py). Without `readable` (an internal
    caller), no layer's content is shown."""
    from stigmergy.repo.oplog import operation_layers, visible

    state = repo.reader_state()
    # Counts are of what the reader may read: a layer's pace of work is itself something of that layer.
    # What lies in other layers is one total, so pending work is never silently hidden from the count.
    ops_all = state.operations(limit=-1)
    ops_seen = [r for r in ops_all if operation_layers(r, state) <= set(readable)]
    caps_all = state.captures()
    caps_seen = [r for r in caps_all if r.layer in readable]
    queued = state.pending()
    pending = [
        {"capture_id": p.capture_id, "op_id": p.op_id, "layer": p.envelope.get("layer"),
         "locator": p.envelope.get("locator")}
        for p in queued if p.envelope.get("layer", "public") in readable
    ]
    counts = {
        "operations": len(ops_seen),
        "refused": sum(1 for r in ops_seen if r.status == "refused"),
        "captures": len(caps_seen),
        "pending": len(pending),
        "unfiled": sum(1 for r in caps_seen if not r.filed),
        "in_layers_you_cannot_read": (len(ops_all) - len(ops_seen)) + (len(caps_all) - len(caps_seen))
        + (len(queued) - len(pending)),
    }
    ops = ops_seen[:1]
    tracked_state = repo.git.ls_files(".stigmergy")
    head = repo.git.head()
    dirty = [line for line in repo.git.status_porcelain("sources", "wiki", "layers") if line]
    index = {**index, "behind_head": index["commit"] != head if index["readable"] else None}
    absent = sum(1 for r in state.captures() if r.rebuilt and not repo.evidence.has(r.content_sha))
    last = visible(ops[0], repo.settings, state, readable) if ops else None
    state.close()
    return {
        "root": str(repo.root),
        "head": head,
        "last_operation": last,
        "pending": pending,
        "counts": counts,
        "index": index,
        "evidence": {"originals_absent": absent},
        "health": {
            "uncommitted_wiki_changes": len(dirty),
            # Derived state is never taken from tracked files: a pull would overwrite it (lint: tracked-state).
            "tracked_state": len(tracked_state),
            "ok": not queued and not index["behind_head"] and index["readable"] is not False and not tracked_state,
        },
    }
