"""The residue audit: where a string (or a content hash) is still held, in every place this repository
keeps bytes, and what the audit cannot see.

Places searched: every Git object in the object database, packed or loose, reachable or not (one
`git cat-file --batch-all-objects` stream, so unreachable objects a prune missed are found too); every
other file under `.git` (reflogs, refs, the staging index, COMMIT_EDITMSG, leftovers); the working tree;
the evidence store; the state database and the index, as raw file bytes including their WAL (a deleted row
lives on in free pages until VACUUM, and raw bytes see it). Text is matched as UTF-8 bytes, and also in
its JSON-escaped form (change records store JSON). A 64-hex needle is a sha256: it is searched as text and
also matched against the sha256 of every Git blob, working-tree file and evidence object.

A layer checked out as a Git repository of its own (`layers/<l>/`, docs/team.md) is searched the same
way: its object database, the files under its `.git`, its working tree, and its remotes named.

Not searched: the embedding model cache (`.stigmergy/cache`), text inside compressed originals (PDF, DOCX)
beyond their readable copy, and anything outside this folder (remotes, other clones, backups), which
the report names as unreachable.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import UsageError
from stigmergy.index.freshness import layer_checkouts
from stigmergy.layers import readable_layers
from stigmergy.repo.evidence import EvidenceStore
from stigmergy.repo.git import Git
from stigmergy.repo.layout import STATE_DIR
from stigmergy.settings import Settings

_SHA256_RE = re.compile(r"^[0-9a-fA-F]{64}$")
MAX_NEEDLE = 4096


@dataclass(frozen=True)
class Finding:
    place: str  # git-object | git-file | working-tree | evidence | state | index | stigmergy-file
    where: str  # object id, path, …
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"place": self.place, "where": self.where, "detail": self.detail}


@dataclass(frozen=True)
class AuditReport:
    kind: str  # text | sha256
    findings: tuple[Finding, ...]
    searched: dict[str, int]  # place -> how many objects/files were searched
    unreachable: tuple[str, ...]
    seconds: float = 0.0
    not_searched: tuple[str, ...] = field(default=())

    @property
    def clean(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "clean": self.clean,
            "findings": [f.to_dict() for f in self.findings],
            "searched": self.searched,
            "not_searched": list(self.not_searched),
            "unreachable": list(self.unreachable),
            "seconds": self.seconds,
        }


def _patterns(needle: str) -> list[bytes]:
    out = [needle.encode("utf-8")]
    escaped = json.dumps(needle)[1:-1].encode()
    if escaped not in out:
        out.append(escaped)
    return out


def _hit(data: bytes, patterns: list[bytes]) -> bool:
    return any(p in data for p in patterns)


def _git_objects(root: Path, patterns: list[bytes], sha: frozenset[str], searched: dict[str, int]) -> list[tuple[str, str, str]]:
    """(object id, type, why) for each object whose content matches."""
    hits: list[tuple[str, str, str]] = []
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch-all-objects", "--batch", "--unordered"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    n = 0
    try:
        while True:
            header = proc.stdout.readline()
            if not header:
                break
            oid, kind, size = header.split()
            data = proc.stdout.read(int(size))
            proc.stdout.read(1)
            n += 1
            if _hit(data, patterns):
                hits.append((oid.decode(), kind.decode(), "contains the text"))
            elif sha and kind == b"blob" and hashlib.sha256(data).hexdigest() in sha:
                hits.append((oid.decode(), kind.decode(), "its content has this sha256"))
    finally:
        proc.stdout.close()
        proc.wait()
    searched["git objects"] = n
    return hits


def _object_findings(checkout: Path, hits: list[tuple[str, str, str]], prefix: str = "") -> list[Finding]:
    """Findings for the objects `_git_objects` matched in `checkout`'s object database, each said reachable
    or not and, where a commit holds it, at which path; `prefix` names a layer's own repository."""
    if not hits:
        return []
    reach, paths = _reachability(checkout)
    label = f"{prefix}: " if prefix else ""
    out = []
    for oid, kind, why in hits:
        state = "reachable" if oid in reach else "unreachable (until pruned)"
        path = f" at {prefix}{paths[oid]}" if oid in paths else ""
        out.append(Finding("git-object", f"{label}{kind} {oid}", f"{why}; {state}{path}"))
    return out


def _reachability(root: Path) -> tuple[set[str], dict[str, str]]:
    """(object ids reachable from a ref, a reflog entry or the staging index, {blob/tree id: a path})."""
    out = Git(root).run("rev-list", "--all", "--reflog", "--indexed-objects", "--objects")
    reach: set[str] = set()
    paths: dict[str, str] = {}
    for line in out.splitlines():
        oid, _, path = line.partition(" ")
        reach.add(oid)
        if path:
            paths.setdefault(oid, path)
    return reach, paths


def _walk(folder: Path, skip: set[Path]) -> list[Path]:
    files = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d not in skip]
        files += [here / f for f in filenames]
    return files


def _scan_files(files: list[Path], root: Path, place: str, patterns: list[bytes], sha: frozenset[str]) -> list[Finding]:
    found = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        rel = path.relative_to(root).as_posix()
        if _hit(data, patterns):
            found.append(Finding(place, rel, "contains the text"))
        elif sha and hashlib.sha256(data).hexdigest() in sha:
            found.append(Finding(place, rel, "its content has this sha256"))
    return found


def _state_place(rel: str) -> str:
    """The place a file under .stigmergy belongs to (`rel` is relative to .stigmergy)."""
    name = rel.split("/", 1)[0]
    if name.startswith("state.sqlite"):
        return "state"
    if name.startswith("index.sqlite"):
        return "index"
    if name == "objects":
        return "evidence"
    return "stigmergy-file"


def unreachable_places(root: Path) -> list[str]:
    git = Git(root)
    places = []
    for name in git.run("remote", check=False).split():
        url = git.run("remote", "get-url", name, check=False).strip()
        places.append(
            f"remote {name} ({url}): holds whatever was pushed to it; it keeps the old history until you "
            f"force-push every branch and tag (git push --force --all {name}; git push --force --tags {name}) "
            "and its host prunes it (hosted forges also keep pull-request refs, forks and caches)"
        )
    places += [
        "other clones and forks of this repository, and their reflogs",
        "backups, snapshots, and disk blocks that held deleted files",
        "copies already sent elsewhere: LLM planner requests, MCP clients, terminals, logs, hook servers",
    ]
    return places


def require_every_layer(settings: Settings, reader: str) -> None:
    """The audit searches every byte the repository keeps, every layer's included, and its answer (found or
    not, and where) is about all of them by nature; so only a reader of every configured layer may ask."""
    hidden = [layer.name for layer in settings.layers if layer.name not in readable_layers(settings, reader)]
    if hidden:
        raise UsageError(
            f"--audit searches every layer, and {reader or 'this identity'} is not a reader of layer "
            f"{', '.join(hidden)}",
            hint="run the audit as someone who reads every layer (--as EMAIL)",
        )


def audit(root: Path, needle: str | Sequence[str], *, git_objects: bool = True,
          evidence: EvidenceStore | None = None) -> AuditReport:
    """Where `needle` (text, or a sha256 of content; or several, searched in one pass) is still found.
    `evidence`: the repository's evidence store, asked for every sha256 needle (a bucket is searched by
    object id, never for text); without it, the local folder is."""
    import time

    from stigmergy.errors import UsageError

    t0 = time.perf_counter()
    needles = [needle] if isinstance(needle, str) else list(needle)
    for n in needles:
        if not n or len(n) > MAX_NEEDLE or "\n" in n:
            raise UsageError(f"the audit needle must be one line of 1 to {MAX_NEEDLE} characters")
    sha = frozenset(n.lower() for n in needles if _SHA256_RE.match(n))
    patterns = [p for n in needles for p in _patterns(n.lower() if _SHA256_RE.match(n) else n)]
    searched: dict[str, int] = {}
    findings: list[Finding] = []
    git = Git(root)
    git_dir = Path(git.run("rev-parse", "--absolute-git-dir").strip())
    if git_objects:
        findings += _object_findings(root, _git_objects(root, patterns, sha, searched))
    git_files = [p for p in _walk(git_dir, {git_dir / "objects"})]
    searched["files under .git (reflogs, refs, index)"] = len(git_files)
    findings += _scan_files(git_files, git_dir.parent if git_dir.name == ".git" else git_dir, "git-file", patterns, sha)
    # A layer checked out as a repository of its own keeps its history in its own object database, whose
    # objects are compressed: searched as this repository's are, its places named by their folder.
    inner_git_dirs: set[Path] = set()
    for prefix, checkout in layer_checkouts(root).items():
        inner_dir = Path(Git(checkout).run("rev-parse", "--absolute-git-dir").strip())
        inner_git_dirs |= {inner_dir, checkout / ".git"}
        if git_objects:
            inner_searched: dict[str, int] = {}
            findings += _object_findings(checkout, _git_objects(checkout, patterns, sha, inner_searched), prefix)
            searched[f"git objects of {prefix}"] = inner_searched["git objects"]
        inner_files = _walk(inner_dir, {inner_dir / "objects"})
        searched[f"files under {prefix}.git"] = len(inner_files)
        findings += _scan_files(inner_files, root, "git-file", patterns, sha)
    state_dir = root / STATE_DIR
    tree = _walk(root, {git_dir, root / ".git", state_dir, *inner_git_dirs})
    searched["working-tree files"] = len(tree)
    findings += _scan_files(tree, root, "working-tree", patterns, sha)
    state_files = _walk(state_dir, {state_dir / "cache"}) if state_dir.is_dir() else []
    searched["files under .stigmergy (evidence, state, index)"] = len(state_files)
    for f in _scan_files(state_files, root, "stigmergy", patterns, sha):
        findings.append(Finding(_state_place(f.where.split("/", 1)[1] if "/" in f.where else f.where), f.where, f.detail))
    for digest in sorted(sha):
        if (state_dir / "objects" / digest[:2] / digest[2:]).is_file():
            findings.append(Finding("evidence", f"{STATE_DIR}/objects/{digest[:2]}/{digest[2:]}", "the evidence object is present"))
        elif evidence is not None:
            findings += [Finding("evidence", where, detail) for where, detail in evidence.residue(digest)]
    if evidence is not None and sha:
        searched["evidence store objects (by id)"] = len(sha)
    return AuditReport(
        kind="several" if len(needles) > 1 else ("sha256" if sha else "text"),
        findings=tuple(dict.fromkeys(findings)),
        searched=searched,
        unreachable=tuple(unreachable_places(root)) + tuple(
            f"{prefix}: {place}" for prefix, checkout in layer_checkouts(root).items()
            for place in unreachable_places(checkout)[:-3]),
        seconds=round(time.perf_counter() - t0, 3),
        not_searched=(f"{STATE_DIR}/cache (embedding model files)", "text inside compressed originals (PDF, DOCX)"),
    )
