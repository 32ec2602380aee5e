"""Operations: every state change is one Git commit with trailers, plus a change record (manifest +
exact patch in the evidence store) in the state database.

This is the ground: it imports nothing above `repo/`. Layers above that keep their own view of the
history (the human-line gate's commit cache) pass a `CommitListener` and are told of each commit; what
they keep between operations lives in `Repository.kept`, which this layer never reads."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from stigmergy.errors import StigmergyError
from stigmergy.repo.evidence import EvidenceStore, open_evidence
from stigmergy.repo.files import write_atomic
from stigmergy.repo.git import Git, GitError, blob_sha
from stigmergy.repo.layout import Layout, classify, layer_checkout, own_repository_layer
from stigmergy.repo.lock import WriterLock
from stigmergy.repo.patch import FileChange, git_patch
from stigmergy.repo.state import CaptureRow, OperationRow, StateDB, StateStore
from stigmergy.repo.trailers import (
    PATH_TRAILERS,
    TRAILER_CAPTURE,
    TRAILER_FILING,
    TRAILER_KIND,
    TRAILER_OP,
    commit_message,
)
from stigmergy.settings import PUBLIC_LAYER, Settings

# Told after each commit stigmergy makes: (root, parent commit or None, the new commit, paths it touched).
CommitListener = Callable[[Path, str | None, str, Iterable[str]], None]


class LayerCheckoutMissingError(StigmergyError):
    """A write to a layer with a repository of its own, in a clone without its checkout."""

    exit_code = 2


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Repository:
    """Everything an operation needs, resolved once."""

    root: Path
    settings: Settings
    pause_at: frozenset[str] = field(default_factory=frozenset)
    # State the layers above keep for as long as this repository object lives (one command, one MCP
    # server), keyed by its type: the write path's commit history for the human-line gate.
    kept: dict[type, Any] = field(default_factory=dict, repr=False, compare=False)
    # A long-lived process (the MCP server) reads objects through GitPython's persistent reader
    # (repo/gitpython.py); a command's short life stays on the git binary (repo/git.py says why).
    long_lived: bool = False

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.root)

    @cached_property
    def git(self) -> Git:
        if self.long_lived:
            from stigmergy.repo.gitpython import LongLivedGit

            return LongLivedGit(self.root)
        return Git(self.root)

    @cached_property
    def evidence(self) -> EvidenceStore:
        if self.settings.evidence.backend == "local":
            return open_evidence(self.layout.objects_dir, self.settings.evidence)
        # A shared bucket holds one wiki per prefix: the repository's root commit names it (every clone shares it).
        roots = self.git.run("rev-list", "--max-parents=0", "HEAD", check=False).split()
        return open_evidence(self.layout.objects_dir, self.settings.evidence, ",".join(sorted(roots)))

    @cached_property
    def state(self) -> StateStore:
        return StateDB(self.layout.state_db)

    @cached_property
    def own_repository_layers(self) -> frozenset[str]:
        """Layers that live in a Git repository of their own (`[layers.<l>] repository`)."""
        return frozenset(layer.name for layer in self.settings.layers if layer.repository)

    def layer_git(self, layer: str) -> Git:
        """The Git repository that holds a layer with a repository of its own, checked out at
        `layers/<layer>/`; refused (nothing written) when this clone has no checkout of it."""
        checkout = layer_checkout(self.root, layer)
        if not (checkout / ".git").exists() or not checkout.is_dir() or checkout.is_symlink():
            url = self.settings.layer(layer).repository
            raise LayerCheckoutMissingError(
                f"layer {layer} lives in its own repository, and this clone has no checkout of it at layers/{layer}/",
                hint=f"if you may read it: git clone {url} layers/{layer}")
        exclude = Path(self.git.run("rev-parse", "--git-path", "info/exclude").strip())
        exclude = exclude if exclude.is_absolute() else self.root / exclude
        line = f"/layers/{layer}/"
        # This repository must never take the layer's files (a `git add -A` would embed its checkout).
        if line not in (exclude.read_text().splitlines() if exclude.is_file() else []):
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with exclude.open("a") as fh:
                fh.write(f"{line}\n")
        return Git(checkout)

    def require_layer_checkout(self, layer: str) -> None:
        if layer in self.own_repository_layers:
            self.layer_git(layer)

    def reader_state(self) -> StateStore:
        return StateDB(self.layout.state_db, readonly=True)

    def lock(self, on_wait: Callable[[str], None] | None = None, timeout: float | None = None) -> WriterLock:
        """The writer lock (waiting `[lock] timeout_seconds`, or `timeout`: 0 refuses at once while another
        writer holds it); once held, git lock files a killed process left behind are cleared."""
        say = on_wait or _stderr
        return WriterLock(
            self.layout.lock_file, self.settings.lock.timeout_seconds if timeout is None else timeout, on_wait,
            after_acquire=lambda: self.git.clear_stale_locks(say),
        )

    def pause(self, point: str) -> None:
        """Debugging aid for crash tests (STIGMERGY_PAUSE_AT): stop here long enough to be killed."""
        if point in self.pause_at:
            print(f"paused at {point}", flush=True)
            time.sleep(120)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _write_atomic(path: Path, data: bytes) -> None:
    write_atomic(path, data, prefix=".stigmergy-")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def restore(root: Path, preimages: Mapping[str, str | None]) -> None:
    """Put paths back as they were before an interrupted or failed write (None: did not exist)."""
    for rel, text in preimages.items():
        target = root / rel
        if text is None:
            target.unlink(missing_ok=True)
        else:
            _write_atomic(target, text.encode("utf-8"))


@dataclass(frozen=True)
class CommitRequest:
    """One operation's commit: what it writes (`changes`: path -> text, None = delete), the operation it
    is (id, kind, title, start time, summary, trailers), what its change record says (`manifest`, `status`),
    and its bookkeeping: the capture's catalogue row, the queue row it completes, whether its pre-images
    are kept while it writes (so a crash can be undone), and paths it already wrote ahead of the commit."""

    op_id: str
    kind: str
    title: str
    changes: Mapping[str, str | None]
    started_at: str
    summary: str = ""
    manifest: Mapping[str, Any] | None = None
    status: str = "committed"
    capture: CaptureRow | None = None
    queue_capture_id: str | None = None
    track_inflight: bool = False
    new_paths: frozenset[str] = frozenset()
    trailers: Mapping[str, str] | None = None


def apply_and_commit(repo: Repository, request: CommitRequest, listeners: Sequence[CommitListener] = ()) -> OperationRow:
    """Write the request's changes, commit them as one operation, record it.

    On any failure before the commit lands, the files are put back as they were.
    """
    op_id, kind, title, changes, started_at = (request.op_id, request.kind, request.title, request.changes,
                                               request.started_at)
    summary, manifest, status, capture = request.summary, request.manifest, request.status, request.capture
    queue_capture_id, track_inflight, new_paths, trailers = (request.queue_capture_id, request.track_inflight,
                                                             request.new_paths, request.trailers)
    root = repo.root
    preimages: dict[str, str | None] = {}
    entries: list[dict[str, Any]] = []
    for rel in sorted(changes):
        # A path in `new_paths` was written ahead of the commit by this operation (a source page the
        # planner had to read from disk): it is new to Git whatever the working tree holds now.
        before = None if rel in new_paths else _read(root / rel)
        after = changes[rel]
        preimages[rel] = None if before is None else before.decode("utf-8", "surrogateescape")
        if after is None and before is None:
            continue
        action = "delete" if after is None else ("add" if before is None else "modify")
        after_bytes = None if after is None else after.encode("utf-8")
        if before is not None and after_bytes == before:
            continue
        entries.append(
            {
                "path": rel,
                "action": action,
                "before": None if before is None else blob_sha(before),
                "after": None if after_bytes is None else blob_sha(after_bytes),
            }
        )
    if track_inflight and queue_capture_id is not None:
        repo.state.set_inflight(queue_capture_id, preimages)
    elif track_inflight and entries:
        repo.state.begin_inflight(op_id, preimages)
    try:
        for rel in sorted(changes):
            after = changes[rel]
            if after is None:
                (root / rel).unlink(missing_ok=True)
            elif rel in new_paths and _read(root / rel) == after.encode("utf-8"):
                continue  # already written by this operation (a page the planner read from disk)
            else:
                _write_atomic(root / rel, after.encode("utf-8"))
        repo.pause("commit")
        written = [e["path"] for e in entries if e["action"] != "delete"]
        removed = [e["path"] for e in entries if e["action"] == "delete"]
        if entries:
            parent = repo.git.fast_head()
            message = commit_message(kind, title, op_id, summary, trailers)
            restricted = sorted({layer for e in entries if (c := classify(e["path"])) is not None
                                 and (layer := c[1]) != PUBLIC_LAYER and _restricted(repo.settings, layer)})
            if restricted:
                # Anyone with a clone reads commit messages: a restricted layer's title and summary stay in
                # its files (and in the change record, which `show` scopes by reader). Trailers name only ids.
                # Path trailers go too; the history audit infers targets and moves from the diff instead.
                ids_only = {k: v for k, v in (trailers or {}).items() if k not in PATH_TRAILERS}
                message = commit_message(kind, f"an operation in layer {', '.join(restricted)}", op_id, "", ids_only)
            commit, commit_git = _commit_routed(repo, written, removed, message, kind, title, op_id, summary,
                                                trailers)
            if commit_git is repo.git:
                for listener in listeners:
                    listener(repo.root, parent, commit,
                             [e["path"] for e in entries if own_repository_layer(e["path"], repo.own_repository_layers) is None])
        else:
            commit = None
    except BaseException:
        restore(root, preimages)
        raise
    repo.pause("bookkeeping")
    patch_sha = None
    if commit is not None:
        patch = git_patch(
            FileChange(rel, None if (pre := preimages[rel]) is None else pre.encode("utf-8", "surrogateescape"),
                       None if (post := changes[rel]) is None else post.encode("utf-8"))
            for rel in (e["path"] for e in entries)
        )
        if patch is None:  # binary content: let git write the binary patch
            patch = commit_git.run_bytes("diff-tree", "-p", "--binary", "--root", "-r", "--no-commit-id", commit)
        # Not synced: the commit gives the patch again (`git diff-tree -p`), and each fsync was a capture's
        # longest wait after the acknowledgement's own (issue 24).
        patch_sha = repo.evidence.put(patch, durable=False)
    counts: dict[str, int] = {}
    for e in entries:
        counts[e["action"]] = counts.get(e["action"], 0) + 1
    full_manifest = {"paths": entries, "counts": counts, **(manifest or {})}
    row = OperationRow(
        id=op_id,
        kind=kind,
        status=status,
        commit_sha=commit,
        started_at=started_at,
        finished_at=utc_now(),
        summary=summary or title,
        manifest=full_manifest,
        patch_sha=patch_sha,
    )
    # A committed operation's row is rebuilt from its commit's trailers should a power cut lose it (resume,
    # write/recovery.py); a refused one (no commit) exists only in the state store.
    repo.state.record_operation(row, capture=capture, done_capture_id=queue_capture_id, durable=commit is None)
    return row


def _commit_routed(repo: Repository, written: list[str], removed: list[str], message: str, kind: str, title: str,
                   op_id: str, summary: str | None, trailers: Mapping[str, str] | None) -> tuple[str, Git]:
    """Commit the written and removed paths: those of a layer with a repository of its own in its checkout
    (paths relative to it, the full message: only the layer's readers hold that repository), the rest here.
    Returns the commit this repository got, else the layer's, and the Git that holds it."""
    identity = repo.settings.identity
    own: dict[str, tuple[list[str], list[str]]] = {}
    here_written: list[str] = []
    here_removed: list[str] = []
    for paths, target, mine in ((written, here_written, 0), (removed, here_removed, 1)):
        for rel in paths:
            layer = own_repository_layer(rel, repo.own_repository_layers)
            if layer is None:
                target.append(rel)
            else:
                own.setdefault(layer, ([], []))[mine].append(rel.removeprefix(f"layers/{layer}/"))
    gits = {layer: repo.layer_git(layer) for layer in sorted(own)}  # every checkout present before any commit
    done: tuple[str, Git] | None = None
    landed: list[tuple[Git, str | None]] = []
    try:
        for layer, (w, r) in sorted(own.items()):
            git = gits[layer]
            parent = git.fast_head()
            full = commit_message(kind, title, op_id, summary or "", trailers)
            done = (git.commit_paths(w, full, identity.name, identity.email, removed=r,
                                     after_stage=lambda: repo.pause("staged")), git)
            landed.append((git, parent))
        if here_written or here_removed or done is None:
            done = (repo.git.commit_paths(here_written, message, identity.name, identity.email,
                                          removed=here_removed, after_stage=lambda: repo.pause("staged")), repo.git)
    except BaseException:
        # One operation, several repositories: a later commit failed, so the earlier ones are taken back
        # (the caller puts the files back as they were).
        for git, parent in landed:
            if parent is None:
                git.run("update-ref", "-d", "HEAD", check=False)
                git.run("read-tree", "--empty", check=False)
            else:
                git.run("reset", "-q", parent, check=False)
        raise
    return done


def commit_person_paths(repo: Repository, written: Sequence[str], message: str, name: str, email: str,
                        when: int | None = None) -> None:
    """A person's commit (no operation trailer) of `written`: the paths of a layer kept in a repository of its
    own in that repository (paths relative to it), the rest here; one commit per repository."""
    groups: dict[str | None, list[str]] = {}
    for rel in written:
        groups.setdefault(own_repository_layer(rel, repo.own_repository_layers), []).append(rel)
    for layer, paths in sorted(groups.items(), key=lambda item: item[0] or ""):
        if layer is None:
            repo.git.commit_paths(paths, message, name, email, when=when)
        else:
            local = [rel.removeprefix(f"layers/{layer}/") for rel in paths]
            repo.layer_git(layer).commit_paths(local, message, name, email, when=when)


def _restricted(settings: Settings, layer: str) -> bool:
    # Not stigmergy.layers (repo sits below it): a layer whose readers are not "*" (everyone).
    try:
        return "*" not in {r.strip() for r in settings.layer(layer).readers}
    except StigmergyError:
        return True


__all__ = [
    "TRAILER_CAPTURE", "TRAILER_FILING", "TRAILER_KIND", "TRAILER_OP", "CommitListener", "CommitRequest", "GitError",
    "LayerCheckoutMissingError",
    "Repository",
    "apply_and_commit", "commit_message", "commit_person_paths", "restore", "utc_now",
]
