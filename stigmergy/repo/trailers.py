"""The trailers every stigmergy commit carries (`Stigmergy-Operation: <op-id>`, `Stigmergy-Kind: <kind>`):
how recovery finds operations in history and how the human-line gate tells people's lines from ours.
Defined here once; everything that writes or reads them imports these names."""

from __future__ import annotations

from collections.abc import Mapping

TRAILER_OP = "Stigmergy-Operation"
TRAILER_KIND = "Stigmergy-Kind"
TRAILER_CAPTURE = "Stigmergy-Capture"  # the capture a capture or file operation is about
TRAILER_FILING = "Stigmergy-Filing"  # how its filing ended: filed | refused | archived | failed | waiting
TRAILERS = (TRAILER_OP, TRAILER_KIND, TRAILER_CAPTURE, TRAILER_FILING)
# Maintenance trailers that name page paths (gates/history.py verifies them, else infers from the diff).
TRAILER_TARGET = "Stigmergy-Target"
TRAILER_MOVE = "Stigmergy-Move"
PATH_TRAILERS = (TRAILER_TARGET, TRAILER_MOVE)
# Page ids (never names, so a restricted layer's commits carry them too): the page a rename, merge or
# delete acted on, and the page a merge kept. With the diff they make the curation record readable from
# a fresh clone (history/curation.py).
TRAILER_PAGE = "Stigmergy-Page"
TRAILER_INTO = "Stigmergy-Into"


def trailer_format(key: str) -> str:
    """A `git log --format` placeholder for one trailer's values, comma-separated."""
    return f"%(trailers:key={key},valueonly,separator=%x2c)"


# One `git log --format` for the readers of the wiki's history (the curation record, history/curation.py;
# which pages people wrote lines in, gates/authorship.py): `Git.history_changes` reads the walk once per
# HEAD and both take it from there (a recompile asks for both). Fields, split at \x1f: commit, commit
# time, author, then HISTORY_KEYS' values cut at \x1d, then the operation and kind trailers as
# `trailer_format` writes them (comma-separated).
HISTORY_KEYS = (TRAILER_OP, TRAILER_KIND, TRAILER_TARGET, TRAILER_MOVE, TRAILER_PAGE, TRAILER_INTO)
HISTORY_FORMAT = "\x1f".join(["%H", "%ct", "%an <%ae>",
                               *(f"%(trailers:key={k},valueonly,separator=%x1d)" for k in HISTORY_KEYS),
                               trailer_format(TRAILER_OP), trailer_format(TRAILER_KIND)])
HISTORY_FIELDS = 3 + len(HISTORY_KEYS) + 2


def commit_message(
    kind: str, title: str, op_id: str, body: str = "", trailers: Mapping[str, str] | None = None
) -> str:
    """The commit message of an operation; its trailers are what `recovery` rebuilds bookkeeping from."""
    title = " ".join(title.split())[:120]
    parts = [f"{kind}: {title}"]
    if body.strip():
        parts.append(body.strip())
    extra = "".join(f"\n{k}: {' '.join(str(v).split())}" for k, v in (trailers or {}).items() if v)
    parts.append(f"{TRAILER_OP}: {op_id}\n{TRAILER_KIND}: {kind}{extra}")
    return "\n\n".join(parts) + "\n"
