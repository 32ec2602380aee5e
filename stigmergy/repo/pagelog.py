"""A page's history as a reader may see it: the commits that changed it, newest first.

A commit that also changed a file the reader may not read (a maintenance run across layers, say) is
listed with its commit and date only: its subject and author could name what lies in that layer.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from stigmergy.repo.git import Git
from stigmergy.repo.layout import classify

RECORD, FIELD = "\x1e", "\x1f"


def _layer_of(path: str) -> str | None:
    """The layer a tracked file belongs to (None: a file outside any layer, e.g. stigmergy.toml)."""
    kind = classify(path)
    if kind is not None:
        return kind[1]
    parts = path.split("/")
    return parts[1] if parts[0] == "layers" and len(parts) > 2 else None


def page_history(git: Git, path: str, readable: Collection[str], limit: int = 50) -> list[dict[str, Any]]:
    """Up to `limit` commits that changed `path` (which the caller checked the reader may read)."""
    # Literal pathspecs: the path is a file name, never a glob or `:(magic)` that could match other files.
    out = git.run("--literal-pathspecs", "log", f"-n{limit}", "--full-diff", "--name-only", "--no-renames",
                  f"--format={RECORD}%H{FIELD}%aI{FIELD}%an{FIELD}%s", "--", path, check=False)
    commits = []
    for chunk in out.split(RECORD)[1:]:
        head, _, names = chunk.partition("\n")
        sha, date, author, subject = (head.split(FIELD) + ["", "", "", ""])[:4]
        files = [n for n in names.splitlines() if n.strip()]
        hidden = any((layer := _layer_of(f)) is not None and layer not in readable for f in files)
        commits.append({
            "commit": sha, "date": date,
            "author": None if hidden else author,
            "subject": None if hidden else subject,
            "files": None if hidden else len(files),
            "withheld": hidden,
        })
    return commits
