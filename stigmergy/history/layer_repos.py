"""What history-wide work (the export bundle) reads of a restricted layer kept in a Git repository of its own,
checked out at `layers/<l>/` and ignored by this repository: its tracked files, its curation record and its
people's lines, each named by its path in this working tree (`layers/<l>/wiki/…`), as the layer's pages
would be named if they lived here. An exported layer must be checked out here: a bundle that silently lacked
its captures would be a false one, so `require` refuses (nothing written) first."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from stigmergy.garden.carry import human_lines
from stigmergy.history.curation import CurationEntry, read_curation
from stigmergy.repo.git import Git
from stigmergy.repo.layout import layer_checkout, layer_prefix
from stigmergy.repo.operations import Repository


def checkouts(repo: Repository, layers: Collection[str]) -> dict[str, Git]:
    """{`layers/<l>/`: its Git} for each of `layers` kept in a repository of its own; refused (exit 2, with
    what to clone) when this clone has no checkout of one."""
    return {layer_prefix(layer): repo.layer_git(layer) for layer in sorted(set(layers) & repo.own_repository_layers)}


def present(repo: Repository) -> tuple[str, ...]:
    """The layers kept in a repository of their own that this clone has a checkout of."""
    return tuple(sorted(layer for layer in repo.own_repository_layers
                        if (layer_checkout(repo.root, layer) / ".git").exists()))


def require(repo: Repository, layers: Collection[str]) -> None:
    checkouts(repo, layers)


def tracked(repo: Repository, layers: Collection[str], *tops: str) -> list[str]:
    """This repository's tracked files under `tops` (and `layers/`), then those of each exported layer's own
    repository under `tops`, by their path here."""
    out = repo.git.ls_files(*tops, "layers")
    for prefix, git in checkouts(repo, layers).items():
        out += [prefix + p for p in git.ls_files(*tops)]
    return out


def curation(repo: Repository, layers: Collection[str]) -> list[CurationEntry]:
    """The curation record of the exported layers' own repositories (pages named by their path here), in
    time order; this repository's is read by the caller."""
    out: list[CurationEntry] = []
    for prefix, git in checkouts(repo, layers).items():
        out += read_curation(git, prefix).entries
    return sorted(out, key=lambda e: e.at)


def people_lines(repo: Repository, texts: dict[str, str]) -> dict[str, list[tuple[int, str]]]:
    """`human_lines` for pages of this working tree, each blamed in the repository that holds it."""
    own = {layer_prefix(layer): layer_checkout(repo.root, layer) for layer in repo.own_repository_layers}
    groups: dict[str, dict[str, str]] = {}
    for rel, text in texts.items():
        prefix = next((p for p in own if rel.startswith(p)), "")
        groups.setdefault(prefix, {})[rel[len(prefix):]] = text
    out: dict[str, list[tuple[int, str]]] = {}
    for prefix, group in groups.items():
        root: Path = own[prefix] if prefix else repo.root
        # This repository's own Git: the walk and page versions its curation record read are read again.
        git = None if prefix else repo.git
        out |= {prefix + rel: lines for rel, lines in human_lines(root, group, git).items()}
    return out
