"""The Git repositories an erase reaches: this one, and each restricted layer kept in a repository of its own
(`[layers.<l>] repository`, checked out at `layers/<l>/`).

Every path an erase handles is a path of this working tree (`layers/board/sources/…`); a `Tree` says which
repository holds it and its path there (`sources/…`). A layer's own repository is rewritten with the same
machinery as this one (history/rewrite.py), before this one: its pages may cite public sources, and the
per-version scrub reads this working tree as it stood before any rewrite.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from stigmergy.repo.git import Git
from stigmergy.repo.layout import layer_checkout
from stigmergy.repo.operations import Repository

HERE = ""  # the prefix of this repository's own tree


@dataclass(frozen=True)
class Tree:
    prefix: str  # "" for this repository, "layers/<l>/" for a layer's own
    git: Git

    @property
    def root(self) -> Path:
        return self.git.root

    @property
    def layer(self) -> str | None:
        return self.prefix.split("/")[1] if self.prefix else None

    def holds(self, rel: str) -> bool:
        return rel.startswith(self.prefix)

    def local(self, rel: str) -> str:
        """`rel` (a path of this working tree) as this repository names it."""
        return rel[len(self.prefix):]

    def run(self, *args: str) -> str:
        return self.git.run(*args, check=False)


def trees(repo: Repository, required: Collection[str] = ()) -> list[Tree]:
    """The layers' own repositories checked out here (each of `required` must be: refused otherwise, nothing
    changed), then this repository, last."""
    out = []
    for layer in sorted(repo.own_repository_layers):
        if layer in required or (layer_checkout(repo.root, layer) / ".git").exists():
            out.append(Tree(f"layers/{layer}/", repo.layer_git(layer)))
    return [*out, Tree(HERE, repo.git)]


def tree_at(all_trees: Sequence[Tree], prefix: str) -> Tree:
    return next(t for t in all_trees if t.prefix == prefix)


def tree_of(all_trees: Sequence[Tree], rel: str) -> Tree:
    """The repository that holds `rel`: a layer's own when the path lies in its checkout, else this one."""
    return next((t for t in all_trees if t.prefix and t.holds(rel)), tree_at(all_trees, HERE))


def unreached(repo: Repository) -> tuple[str, ...]:
    """Layers kept in a repository of their own that this clone has no checkout of: an erase cannot scrub a
    citation there (their readers run the same erase in a clone that has it)."""
    return tuple(sorted(layer for layer in repo.own_repository_layers
                        if not (layer_checkout(repo.root, layer) / ".git").exists()))


def commits_naming(tree: Tree, ids: Sequence[str]) -> list[str]:
    """Commits of every ref of `tree` whose diff or message names one of `ids`."""
    if not ids:
        return []
    found = tree.run("log", "--all", "--format=%H", "--pickaxe-regex", "-S", "|".join(ids)).split()
    grep = [arg for cid in ids for arg in ("--grep", cid)]
    found += tree.run("log", "--all", "--format=%H", "-F", *grep).split()
    return list(dict.fromkeys(found))


def diff_of(all_trees: Sequence[Tree], commit: str) -> bytes | None:
    """The patch of `commit`, from whichever repository holds it (a change record of a layer's operation
    names the layer repository's commit)."""
    for tree in all_trees:
        if tree.git.is_commit(commit):
            return tree.git.run_bytes("diff-tree", "-p", "--binary", "--root", "-r", "--no-commit-id", commit)
    return None
