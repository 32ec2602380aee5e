"""Is the index current? Which commit it reflects, which pages changed since (as a reader sees them),
whether it was built for the configured model, and whether a build is running now. The read side (search,
reads, the warm session) and the builder both ask here; the read side never imports the builder."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import LockTimeoutError
from stigmergy.index.analysis import configured_languages, lexicon_key
from stigmergy.index.embedder import fingerprint, model_key, quantize_mode, resolve_model
from stigmergy.index.store import IndexStore
from stigmergy.repo.containment import contained_file
from stigmergy.repo.git import Git, blob_sha
from stigmergy.repo.layout import Layout, classify
from stigmergy.repo.lock import WriterLock
from stigmergy.settings import Settings

PAGE_PATHSPEC = ("sources", "wiki", "layers")


@dataclass(frozen=True)
class Freshness:
    """Which commit the index reflects, and whether the repository (as this reader sees it) is ahead."""

    commit: str | None
    head: str | None
    stale: bool
    changed: tuple[str, ...] = field(default=())
    # The index reflects commits this checkout does not have (a clone behind a shared index): the pages
    # in `changed` are newer in the index than here; `git pull` brings them.
    ahead: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"commit": self.commit, "head": self.head, "stale": self.stale, "changed": list(self.changed),
                "ahead": self.ahead}


# ---------------------------------------------------------------- repository listing


def _split_z(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def page_files(git: Git) -> set[str]:
    """Every page file of the working tree (tracked or not), reached without a symlink, the pages of layers
    checked out as repositories of their own included."""
    tracked = _split_z(git.run_bytes("ls-files", "-z", "--", *PAGE_PATHSPEC))
    untracked = _split_z(git.run_bytes("ls-files", "-z", "--others", "--exclude-standard", "--", *PAGE_PATHSPEC))
    return {p for p in (*tracked, *untracked) if classify(p) is not None
            and contained_file(git.root, p) is not None} | checkout_page_files(git)


def layer_checkouts(root: Path) -> dict[str, Path]:
    """`layers/<l>/` -> its folder, for each layer checked out as a Git repository of its own (a layer with
    `[layers.<l>] repository`; docs/team.md). Found on disk: Git never checks out a `.git`, so only the
    person who cloned the layer there can have put one."""
    base = Path(root) / "layers"
    if not base.is_dir() or base.is_symlink():
        return {}
    return {f"layers/{d.name}/": d for d in sorted(base.iterdir())
            if d.is_dir() and not d.is_symlink() and (d / ".git").exists()}


def checkout_page_files(git: Git) -> set[str]:
    """The page files (tracked or not) of the layers checked out as repositories of their own, by their
    path in this working tree. This repository's Git never sees them (they are ignored here)."""
    out: set[str] = set()
    for prefix, checkout in layer_checkouts(git.root).items():
        inner = Git(checkout)
        files = [*_split_z(inner.run_bytes("ls-files", "-z", "--", "sources", "wiki", check=False)),
                 *_split_z(inner.run_bytes("ls-files", "-z", "--others", "--exclude-standard", "--", "sources", "wiki",
                                           check=False))]
        out |= {prefix + p for p in files if classify(prefix + p) is not None
                and contained_file(git.root, prefix + p) is not None}
    return out


def commit_exists(git: Git, commit: str) -> bool:
    return git.is_commit(commit)


def is_ancestor(git: Git, older: str, newer: str) -> bool:
    """Every commit of `older` is reachable from `newer`."""
    return git.run("rev-list", "-n", "1", older, "--not", newer, check=False).strip() == ""


def relation(git: Git, indexed: str | None, head: str | None) -> str:
    """How the indexed commit stands to HEAD: none (no index yet), same, ahead (HEAD has commits the index
    lacks), behind (the index has commits HEAD lacks), unknown (this clone lacks the indexed commit),
    diverged."""
    if not indexed:
        return "none"
    if indexed == head:
        return "same"
    if head is None or not commit_exists(git, indexed):
        return "unknown"
    if is_ancestor(git, indexed, head):
        return "ahead"
    if is_ancestor(git, head, indexed):
        return "behind"
    return "diverged"


def tree_pages(git: Git, commit: str | None, prefix: str = "") -> dict[str, str]:
    """path -> blob id of every page file committed at `commit` (regular files only: a symbolic link or a
    submodule entry is not a page). `prefix`: `git` is a layer's own repository checked out there, whose
    paths are the public tree's without it."""
    if not commit:
        return {}
    out = git.run_bytes("ls-tree", "-r", "-z", "--full-tree", commit, "--",
                        *(("sources", "wiki") if prefix else PAGE_PATHSPEC))
    pages = {}
    for entry in out.split(b"\0"):
        if not entry:
            continue
        info, _, name = entry.partition(b"\t")
        mode, kind, sha = info.decode().split()
        path = prefix + name.decode("utf-8", "surrogateescape")
        if kind == "blob" and mode in ("100644", "100755") and classify(path) is not None:
            pages[path] = sha
    return pages


def read_blobs(git: Git, shas: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each blob (one `git cat-file --batch`)."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    out = git.run_bytes("cat-file", "--batch", input=("\n".join(wanted) + "\n").encode())
    blobs, pos = {}, 0
    for sha in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        blobs[sha] = out[pos : pos + size]
        pos += size + 1
    return blobs


def changed_since(git: Git, commit: str) -> set[str]:
    """Pages that differ between `commit` and the working tree, plus untracked pages."""
    changed = _split_z(git.run_bytes("diff", "--name-only", "--no-renames", "-z", commit, "--", *PAGE_PATHSPEC))
    untracked = _split_z(git.run_bytes("ls-files", "-z", "--others", "--exclude-standard", "--", *PAGE_PATHSPEC))
    return {p for p in (*changed, *untracked) if classify(p) is not None}


def dirty_pages(git: Git, head: str | None) -> set[str]:
    """Pages whose working-tree content is not HEAD's."""
    if head is None:
        return page_files(git)
    return changed_since(git, head)


def fast_head(git: Git) -> str | None:
    """HEAD's commit id without a subprocess (see Git.fast_head)."""
    return git.fast_head()


def freshness(store: IndexStore, git: Git, readable: Iterable[str]) -> Freshness:
    """The indexed commit and, restricted to layers the reader can see, the pages that changed since."""
    layers = set(readable)
    indexed = store.meta("commit") or None
    head = fast_head(git)
    candidates: set[str] = set()
    if indexed is None:
        candidates = page_files(git) if head else set()
    elif indexed == head or commit_exists(git, indexed):
        candidates = changed_since(git, indexed) | set(json.loads(store.meta("dirty") or "[]"))
    else:
        candidates = page_files(git)
    known = store.page_shas() if candidates else {}
    changed = []
    for path in sorted(candidates):
        kind = classify(path)
        if kind is None or kind[1] not in layers:
            continue
        file = contained_file(git.root, path)
        sha = blob_sha(file.read_bytes()) if file is not None else None
        if sha != known.get(path):
            changed.append(path)
    # A shared index other clones write may be ahead of this checkout: its pages are the newer ones.
    ahead = bool(store.shared and indexed and indexed != head
                 and relation(git, indexed, head) in ("behind", "unknown", "diverged"))
    return Freshness(commit=indexed, head=head, stale=bool(changed) and not ahead, changed=tuple(changed),
                     ahead=ahead)


# ---------------------------------------------------------------- built for these settings, being built


def current_fingerprint(settings: Settings, layout: Layout) -> str:
    """What the configured model and chunking would build: an index of another fingerprint is not current."""
    info = resolve_model(settings.embedder)
    return fingerprint(info, model_key(info.path, layout.cache_dir), settings.index, quantize_mode(settings.embedder))


def current_lexicon(settings: Settings) -> str:
    """What the configured text analysis would write into the full-text rows (index/analysis.py)."""
    return lexicon_key(configured_languages(settings.index.languages))


def index_lock(layout: Layout, timeout: float) -> WriterLock:
    return WriterLock(layout.state_dir / "index.lock", timeout)


def try_index_lock(layout: Layout) -> WriterLock | None:
    lock = index_lock(layout, 0.0)
    try:
        lock.acquire()
    except LockTimeoutError:
        return None
    return lock


def index_building(layout: Layout) -> bool:
    """Is an index build running now (someone holds the index lock)?"""
    lock = try_index_lock(layout)
    if lock is None:
        return True
    lock.release()
    return False
