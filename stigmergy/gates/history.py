"""The gates, run over history: each commit is judged against its first parent with the same gate code
a plan passes, so an edit that bypassed stigmergy (a hand commit, a push) cannot slip past them.

A commit without an operation trailer is a person's: it may add or edit uncited lines, and nothing the
gates protect (a source page, a cited line, an attribution, a contradiction block). A commit with a
trailer is judged by the rules of the kind it claims (gates/maintenance.py): the trailer is a claim to
verify, never a pass. Rules checked: source-immutable, cited-line-lost, attribution-lost,
contradiction-altered. `lint` (and `garden --check`) audit the commits since the last clean check; the
`pre-receive` hook (index/hooks.py) audits every pushed commit. Merge commits are not judged themselves:
the commits they bring in are.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.gates.context import GateContext, OperationInfo, Violation
from stigmergy.gates.rules import (
    attribution_lost,
    cited_line_lost,
    contradiction_altered,
    source_immutable,
)
from stigmergy.gates.view import _v
from stigmergy.pages.citations import Citation
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.git import Git
from stigmergy.repo.layout import Layout, classify
from stigmergy.settings import Settings

AUDITED_RULES = ("source-immutable", "cited-line-lost", "attribution-lost", "contradiction-altered")
_GATES = (source_immutable, cited_line_lost, attribution_lost, contradiction_altered)
_FS, _RS = "\x1f", "\x1e"
_TRAILERS = ("Stigmergy-Operation", "Stigmergy-Kind", "Stigmergy-Capture", "Stigmergy-Target", "Stigmergy-Move")
WRITING_KINDS = ("capture", "file")  # may add contradiction blocks and resolve them
CHECKED_MARK = "history.checked"  # under .stigmergy/: the HEAD of the last clean audit


@dataclass(frozen=True)
class HistoryFinding:
    commit: str
    author: str
    kind: str | None  # the kind the commit's trailer claims; None for a commit without one
    path: str
    rule: str
    message: str
    lines: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit, "author": self.author, "kind": self.kind, "path": self.path, "rule": self.rule,
            "message": self.message, "lines": list(self.lines),
        }

    def render(self) -> str:
        who = f"{self.kind} operation" if self.kind else "commit without an operation trailer"
        shown = "".join(f"\n      | {line}" for line in self.lines[:5])
        return f"{self.commit[:10]} by {self.author} ({who}): {self.path} [{self.rule}] {self.message}{shown}"


@dataclass(frozen=True)
class HistoryAudit:
    since: str | None
    head: str | None
    commits: int
    findings: tuple[HistoryFinding, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "since": self.since, "head": self.head, "commits": self.commits,
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class _TreeContext(GateContext):
    """A GateContext whose 'disk' is a commit's parent tree, read through git."""

    read_tree: Callable[[str], str | None] | None = None

    def disk_text(self, relpath: str) -> str | None:
        if relpath not in self._disk:
            self._disk[relpath] = self.read_tree(relpath) if self.read_tree else None
        return self._disk[relpath]


@dataclass(frozen=True)
class _Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    trailers: dict[str, list[str]]

    @property
    def kind(self) -> str | None:
        if not self.trailers.get("Stigmergy-Operation"):
            return None
        kinds = self.trailers.get("Stigmergy-Kind") or ["unknown"]
        return kinds[0]


def _commits(git: Git, shas: list[str]) -> list[_Commit]:
    if not shas:
        return []
    fields = ["%H", "%P", "%an <%ae>", *(f"%(trailers:key={k},valueonly,separator=%x1d)" for k in _TRAILERS)]
    out = []
    for i in range(0, len(shas), 500):
        raw = git.run("show", "-s", "--no-walk=unsorted", f"--format={_FS.join(fields)}{_RS}", *shas[i : i + 500])
        for record in raw.split(_RS):
            record = record.strip("\n")
            if not record:
                continue
            parts = record.split(_FS)
            trailers = {k: [v.strip() for v in parts[3 + n].split("\x1d") if v.strip()] for n, k in enumerate(_TRAILERS)}
            out.append(_Commit(parts[0], tuple(parts[1].split()), parts[2], trailers))
    return out


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogateescape")


def audit_commits(git: Git, shas: Iterable[str], settings: Settings) -> list[HistoryFinding]:
    """Judge each commit (oldest first is best: findings read in history order) against its first parent."""
    commits = [c for c in _commits(git, list(shas)) if len(c.parents) <= 1]
    changes = git.raw_changes([c.sha for c in commits])
    wanted: list[str] = []
    for c in commits:
        for e in changes.get(c.sha, []):
            if _watched(str(e["path"])):
                wanted.extend(str(oid) for oid in (e["before"], e["after"]) if oid)
    blobs = git.blobs(sorted(set(wanted)))
    findings: list[HistoryFinding] = []
    with tempfile.TemporaryDirectory(prefix="stigmergy-audit-") as empty:
        for c in commits:
            entries = [e for e in changes.get(c.sha, []) if _watched(str(e["path"]))]
            if entries:
                findings.extend(_judge(git, c, entries, blobs, settings, Path(empty)))
    return findings


def _watched(path: str) -> bool:
    kind = classify(path)
    if kind is not None:
        return True
    parts = path.split("/")
    if parts[0] == "layers" and len(parts) > 2:
        parts = parts[2:]
    return parts[0] in ("sources", "wiki")


def _judge(
    git: Git, c: _Commit, entries: list[dict[str, Any]], blobs: dict[str, bytes], settings: Settings, empty: Path
) -> list[HistoryFinding]:
    parent = c.parents[0] if c.parents else None
    kind = c.kind
    added_sources = [e for e in entries if e["action"] == "add" and (classify(e["path"]) or ("", ""))[0] == "source"]
    deleted = [e["path"] for e in entries if e["action"] == "delete"]
    new_texts = {e["path"]: _text(blobs.get(e["after"])) if e["after"] else None for e in entries}
    old_texts = {e["path"]: _text(blobs.get(e["before"])) if e["before"] else None for e in entries}
    capture_id = (c.trailers.get("Stigmergy-Capture") or [None])[0]  # type: ignore[list-item]
    source_path = None
    if kind == "capture" and added_sources:
        source_path = next((e["path"] for e in added_sources if capture_id and e["path"].endswith(f"/{capture_id}.md")),
                           added_sources[0]["path"])
    op = OperationInfo(
        op_id=(c.trailers.get("Stigmergy-Operation") or ["human"])[0],
        kind=kind or "human",
        timestamp="",
        capture_id=capture_id,
        source_path=source_path,
        targets=tuple(c.trailers.get("Stigmergy-Target") or (deleted if kind == "delete" else ())),
        moves=_moves(c, kind, entries, old_texts, new_texts),
    )

    def read_tree(rel: str) -> str | None:
        if rel in old_texts:
            return old_texts[rel]
        if parent is None:
            return None
        got = git.blobs([f"{parent}:{rel}"])
        return _text(got.get(f"{parent}:{rel}"))

    ctx = _TreeContext(root=empty, settings=settings, op=op, read_tree=read_tree)
    ctx.changes.update(new_texts)
    if kind in WRITING_KINDS:
        filed = source_path if kind == "capture" else _source_of(git, parent, capture_id)
        _credit_blocks(ctx, filed, read_tree)
    violations: list[Violation] = []
    # A source page is written only by a capture, one per capture operation.
    for e in added_sources:
        if kind != "capture" or e["path"] != source_path:
            violations.append(Violation("source-immutable", e["path"], "a source page is added only by a capture"))
    for gate in _GATES:
        try:
            violations.extend(gate(ctx))
        except ContractError as exc:  # a page so broken the gate cannot read it: that is the finding
            violations.append(Violation("contract", exc.message.split(":", 1)[0], exc.message))
    return [
        HistoryFinding(c.sha, c.author, kind, v.path, v.rule, v.message, v.lines)
        for v in dict.fromkeys(violations)
    ]


def _moves(
    c: _Commit, kind: str | None, entries: list[dict[str, Any]], old: dict[str, str | None], new: dict[str, str | None]
) -> tuple[tuple[str, str], ...]:
    """A merge or rename's (old, new) page moves: from its Stigmergy-Move trailers, else the page that
    received most of each removed page's lines."""
    claimed = []
    for value in c.trailers.get("Stigmergy-Move") or ():
        a, sep, b = value.partition(" -> ")
        if sep:
            claimed.append((a.strip(), b.strip()))
    if claimed or kind not in ("merge", "rename"):
        return tuple(claimed)
    moves = []
    for e in entries:
        if e["action"] != "delete" or (classify(e["path"]) or ("source", ""))[0] == "source":
            continue
        lines = set((old.get(e["path"]) or "").split("\n"))
        best, score = None, 0
        for path, text in new.items():
            if text is None or path == e["path"]:
                continue
            n = len(lines & set(text.split("\n")))
            if n > score:
                best, score = path, n
        if best:
            moves.append((e["path"], best))
    return tuple(moves)


def _credit_blocks(ctx: _TreeContext, page_path: str | None, read_tree: Callable[[str], str | None]) -> None:
    """What a capture or filing may do to contradiction blocks: open new canonical ones, and resolve the
    one its capture names (a capture's `--resolves`, read from its source page `page_path`)."""
    resolves = None
    text = (ctx.changes.get(page_path) or read_tree(page_path)) if page_path else None
    if text:
        try:
            page = parse_source_page(text, page_path or "")
            resolves = page.resolution.resolves if page.resolution else None
        except ContractError:
            resolves = None
    for rel, new in ctx.changes.items():
        if new is None or (classify(rel) or ("source", ""))[0] == "source":
            continue
        old = ctx.disk_text(rel)
        old_blocks = {b.record.id: b for b in _v(ctx, rel, old).blocks} if old is not None else {}
        for block in _v(ctx, rel, new).blocks:
            before = old_blocks.get(block.record.id)
            if before is None:
                ctx.created_blocks[block.record.id] = rel
            elif (
                before.text != block.text and block.record.id == resolves and block.record.status == "resolved"
                and before.record.status != "resolved"
            ):
                ctx.resolved_blocks[block.record.id] = rel
                for cl in before.record.claims:
                    ctx.resolved_claims.append((block.record.id, Citation(cl.source, cl.path, cl.start, cl.end)))


def _source_of(git: Git, commit: str | None, capture_id: str | None) -> str | None:
    """Path of the source page of `capture_id` in `commit`'s tree, in any layer."""
    if not commit or not capture_id:
        return None
    names = git.run("ls-tree", "-r", "--name-only", commit, "--", "sources", "layers", check=False).split("\n")
    return next((n for n in names if n.endswith(f"/{capture_id}.md") and (classify(n) or ("", ""))[0] == "source"), None)


# ---------------------------------------------------------------- since the last clean check


def audit_range(root: Path, settings: Settings, since: str | None, until: str = "HEAD") -> HistoryAudit:
    """Audit the commits in `since..until` (the whole history when `since` is None or unknown)."""
    git = Git(root)
    head = git.run("rev-parse", "--verify", "-q", until, check=False).strip() or None
    if head is None:
        return HistoryAudit(since, None, 0)
    if since and not git.ok("merge-base", "--is-ancestor", since, head):
        since = None  # rewritten history: check it all again
    rng = f"{since}..{head}" if since else head
    shas = [s for s in git.run("rev-list", "--reverse", "--no-merges", rng).split() if s]
    return HistoryAudit(since, head, len(shas), tuple(audit_commits(git, shas, settings)))


def last_checked(root: Path) -> str | None:
    try:
        value = (Layout(root).state_dir / CHECKED_MARK).read_text().strip()
    except OSError:
        return None
    return value or None


def mark_checked(root: Path, commit: str) -> None:
    """Remember that history up to `commit` was audited clean (or reviewed by a person)."""
    path = Layout(root).state_dir / CHECKED_MARK
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(commit + "\n")
    tmp.replace(path)


def audit_since_last_check(root: Path, settings: Settings, *, record: bool = True) -> HistoryAudit:
    """Audit the commits since the last clean check; a clean audit moves the mark to HEAD."""
    audit = audit_range(root, settings, last_checked(root))
    if record and audit.ok and audit.head:
        mark_checked(root, audit.head)
    return audit


_ZERO = "0" * 40


def audit_push(git: Git, updates: Iterable[str], settings: Settings) -> tuple[int, list[HistoryFinding]]:
    """For a `pre-receive` hook: every commit a push brings that the repository does not have yet, judged
    by the gates. `updates` are the hook's stdin lines (`old new ref`). Returns (commits, findings)."""
    shas: list[str] = []
    for line in updates:
        parts = line.split()
        if len(parts) != 3 or parts[1] == _ZERO:
            continue  # a ref deletion changes no page
        new = git.run("rev-list", "--reverse", "--no-merges", parts[1], "--not", "--all").split()
        shas.extend(s for s in new if s not in shas)
    return len(shas), audit_commits(git, shas, settings)


__all__ = [
    "AUDITED_RULES", "HistoryAudit", "HistoryFinding", "audit_commits", "audit_push", "audit_range", "audit_since_last_check",
    "last_checked", "mark_checked",
]
