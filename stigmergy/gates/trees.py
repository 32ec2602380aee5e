"""Trees the history gates compare: what changed between two trees (with file modes, so a symbolic link
is seen as one), and the tree Git's own merge would have written for two commits.

A merge commit, or a branch tip that replaces another, is judged by what it changed itself. Where Git
merges a file cleanly, that is the difference between the pushed tree and the automatic merge; a file Git
could not merge is judged against each side (gates/history.py)."""

from __future__ import annotations

from dataclasses import dataclass

from stigmergy.repo.git import Git, is_oid, raw_entries

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
LINK_MODES = ("120000", "160000")  # a symbolic link, a submodule


@dataclass(frozen=True)
class AutoMerge:
    tree: str
    conflicted: frozenset[str]


def tree_changes(git: Git, before: str | None, after: str) -> list[dict[str, str | None]]:
    """What changed from `before` (a commit or tree; None: the empty tree) to `after`: path, action
    (add | delete | modify), blob ids before and after, and the mode after."""
    raw = git.run_bytes("-c", "core.quotePath=false", "diff-tree", "-r", "--raw", "--no-renames", "--no-abbrev", "-z",
                        before or EMPTY_TREE, after).decode("utf-8", "surrogateescape")
    return raw_entries(raw)


def auto_merge(git: Git, ours: str, theirs: str) -> AutoMerge | None:
    """The tree `git merge` would write for `ours` and `theirs` (files it cannot merge hold conflict
    markers and are listed), or None when this Git has no `merge-tree --write-tree` (before 2.38)."""
    out = git.run_bytes("merge-tree", "--write-tree", "--name-only", "-z", "--allow-unrelated-histories", ours, theirs,
                        check=False)
    # stdout: the tree id NUL, then (on conflicts) the conflicted paths, each NUL-terminated, then an
    # empty entry and the informational messages. An older Git prints nothing on stdout.
    parts = out.decode("utf-8", "surrogateescape").split("\0")
    tree = parts[0].strip()
    if not is_oid(tree):
        return None
    conflicted: set[str] = set()
    for name in parts[1:]:
        if not name:
            break
        conflicted.add(name)
    return AutoMerge(tree, frozenset(conflicted))


__all__ = ["EMPTY_TREE", "LINK_MODES", "AutoMerge", "auto_merge", "tree_changes"]
