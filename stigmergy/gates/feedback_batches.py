"""The append-only rule for committed feedback batches (docs/trust.md): a record is evidence of a judgement,
never edited in place; a new judgement is a new batch. The one exception is an erase's replacement, which may
take out exactly the records that name an erased capture or concern a page the replacement deletes, and an
erased layer's whole folder (history/rewrite.py does the same to every batch). gates/history.py turns what
this finds into findings, for the pre-receive gate and for `lint`'s history audit."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from stigmergy.repo.git import Git

# Set by gates/push.py on the replacement an erase force-pushes: what it may take out of feedback batches.
ERASED_HASHES, ERASED_LAYERS = "Erased-Id-Sha256", "Erased-Layer"
_CAPTURE_ID_RE = re.compile(r"cap_[0-9A-HJKMNP-TV-Z]{26}")


def feedback_batch_edits(
    git: Git, trailers: Mapping[str, Sequence[str]], entries: list[dict[str, Any]]
) -> list[tuple[str, str]]:
    """(path, why) for each committed feedback batch that `entries` (one commit's changes, with its
    `trailers`) edit or delete and that an erase may not."""
    from stigmergy.trust.records import batch_layer

    edited = [e for e in entries if e["action"] != "add" and batch_layer(str(e["path"])) is not None]
    if not edited:
        return []
    hashes = set(trailers.get(ERASED_HASHES, ()))
    layers = set(trailers.get(ERASED_LAYERS, ()))
    dead = {str(e["path"]) for e in entries if e["action"] == "delete"}
    blobs = git.blobs(sorted({str(e[k]) for e in edited for k in ("before", "after") if e[k]})) if hashes or layers else {}
    out = []
    for e in edited:
        path = str(e["path"])
        if hashes or layers:
            if batch_layer(path) in layers:
                continue
            before = _text(blobs, e["before"])
            after = _text(blobs, e["after"])
            if _only_erased(before, after, hashes, dead):
                continue
        what = "deleted" if e["action"] == "delete" else "edited"
        out.append((path, f"a recorded feedback batch was {what}: feedback is append-only evidence (a new judgement "
                          "is a new batch; only an erase takes records out)"))
    return out


def _text(blobs: dict[str, bytes], oid: Any) -> str:
    data = blobs.get(str(oid)) if oid else None
    return "" if data is None else data.decode("utf-8", "surrogateescape")


def _only_erased(before: str, after: str, hashes: set[str], dead: set[str]) -> bool:
    """`after` is `before` less some whole lines, each naming an erased capture (by its id's sha256) or
    concerning a page that goes."""
    kept = iter(before.splitlines(keepends=True))
    for line in after.splitlines(keepends=True):
        for old in kept:
            if old == line:
                break
            if not _erasable(old, hashes, dead):
                return False
        else:
            return False  # a line `before` does not hold, or holds out of order: an edit
    return all(_erasable(old, hashes, dead) for old in kept)


def _erasable(line: str, hashes: set[str], dead: set[str]) -> bool:
    if any(hashlib.sha256(cid.encode()).hexdigest() in hashes for cid in _CAPTURE_ID_RE.findall(line)):
        return True
    try:
        path = json.loads(line).get("path")
    except (ValueError, AttributeError):
        return False
    return isinstance(path, str) and path in dead
