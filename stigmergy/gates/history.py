"""The gates, run over history: each commit is judged against its first parent with the same gate code
a plan passes, so an edit that bypassed stigmergy (a hand commit, a push) cannot slip past them.

A commit without an operation trailer is a person's: it may add or edit uncited lines, and nothing the
gates protect (a source page, a cited line, an attribution, a contradiction block). A commit with a
trailer is judged by the rules of the kind it claims (gates/maintenance.py): the trailer is a claim to
verify, never a pass. What each kind may do is re-checked on the commit itself (`_claims`): a `capture`
adds one source page, whose text is the text its artifact records; a `delete` removes a source page only
with every line that cites it; a `recompile` retires cited lines only where its retirements can be
verified (this repository's operation log made that commit, or a server that trusts recompiles). Rules
checked: source-immutable, cited-line-lost, attribution-lost, contradiction-altered, and zone for a
symbolic link or submodule under `wiki/`, `sources/` or `layers/`.

A merge commit is judged by its own changes: against the tree Git's automatic merge of its parents
writes, and, for a file Git cannot merge, against each parent (a finding stands when it holds against
every one). `lint` (and `garden --check`) audit the commits since the last clean check; the `pre-receive`
hook (gates/push.py) audits every pushed commit and every branch tip a push replaces.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.gates.context import GateContext, OperationInfo, Violation
from stigmergy.gates.feedback_batches import feedback_batch_edits
from stigmergy.gates.rules import (
    MAX_LINES_SHOWN,
    attribution_lost,
    cited_line_lost,
    contradiction_altered,
    source_immutable,
)
from stigmergy.gates.trees import LINK_MODES, auto_merge, tree_changes
from stigmergy.gates.view import _v
from stigmergy.pages.citations import Citation
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.git import Git
from stigmergy.repo.gitpython import close_walker, walker
from stigmergy.repo.layout import Layout, classify
from stigmergy.settings import Settings

AUDITED_RULES = ("source-immutable", "cited-line-lost", "attribution-lost", "contradiction-altered", "zone",
                 "feedback-append-only")
FEEDBACK_RULE = "feedback-append-only"
_GATES = (source_immutable, cited_line_lost, attribution_lost, contradiction_altered)
_FS, _RS = "\x1f", "\x1e"
_TRAILERS = ("Stigmergy-Operation", "Stigmergy-Kind", "Stigmergy-Capture", "Stigmergy-Target", "Stigmergy-Move")
WRITING_KINDS = ("capture", "file")  # may add contradiction blocks and resolve them
# Kinds whose allowances the history gates cannot re-check on the commit alone: granted only to commits
# the caller trusts (this repository's operation log made them; a server configured to trust them).
UNVERIFIABLE_KINDS = ("recompile",)
_UNVERIFIED_RECORDS = (  # the records gates/maintenance.py writes for what only a recompile may retire
    (re.compile(r"^retired cited line \(recompile\) (.+?): (.*)$", re.S), "cited-line-lost"),
    (re.compile(r"^listed, not re-applied \(recompile no longer derives (.+?)\): (.*)$", re.S), "cited-line-lost"),
    (re.compile(r"^attribution retired \(recompile\) (.+?): (.*)$", re.S), "attribution-lost"),
)
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


def audit_commits(
    git: Git, shas: Iterable[str], settings: Settings, trusted: Callable[[_Commit], bool] | None = None
) -> list[HistoryFinding]:
    """Judge each commit (oldest first is best: findings read in history order) against its first parent;
    a merge by its own changes. `trusted(commit)` says whether an unverifiable kind's claim (recompile) is
    taken; by default it is not."""
    all_commits = _commits(git, list(shas))
    commits = [c for c in all_commits if len(c.parents) <= 1]
    changes = git.raw_changes([c.sha for c in commits])
    wanted: list[str] = []
    for c in commits:
        for e in changes.get(c.sha, []):
            if _watched(str(e["path"])):
                wanted.extend(str(oid) for oid in (e["before"], e["after"]) if oid)
    blobs = git.blobs(sorted(set(wanted)))
    findings: list[HistoryFinding] = []
    trust = trusted or (lambda _c: False)
    with tempfile.TemporaryDirectory(prefix="stigmergy-audit-") as empty:
        for c in all_commits:
            if len(c.parents) > 1:
                findings.extend(judge_merge(git, c, settings, Path(empty), trust(c)))
                continue
            entries = changes.get(c.sha, [])
            findings.extend(_links(c, entries))
            findings.extend(_own_repository_files(c, entries, settings))
            findings.extend(_feedback_edits(git, c, entries))
            entries = [e for e in entries if _watched(str(e["path"])) and not _is_link(e)]
            if entries:
                findings.extend(_judge(git, c, entries, blobs, settings, Path(empty),
                                       base=c.parents[0] if c.parents else None, trusted=trust(c)))
    return findings


def _judge_tree(
    git: Git, c: _Commit, entries: list[dict[str, Any]], settings: Settings, empty: Path, base: str | None,
    trusted: bool, label: str = "",
) -> list[HistoryFinding]:
    """Judge `entries` (changes from `base` to `c`) with their blobs read now; links are zone findings."""
    found = (_links(c, entries, label) + _own_repository_files(c, entries, settings, label)
             + _feedback_edits(git, c, entries, label))
    entries = [e for e in entries if _watched(str(e["path"])) and not _is_link(e)]
    if not entries:
        return found
    blobs = git.blobs(sorted({str(oid) for e in entries for oid in (e["before"], e["after"]) if oid}))
    return found + _judge(git, c, entries, blobs, settings, empty, base=base, trusted=trusted, label=label)


def judge_merge(git: Git, c: _Commit, settings: Settings, empty: Path, trusted: bool) -> list[HistoryFinding]:
    """A merge's own changes: against Git's automatic merge of its two parents where that merge is clean,
    and against each parent for a file Git cannot merge (or for an octopus merge)."""
    auto = auto_merge(git, c.parents[0], c.parents[1]) if len(c.parents) == 2 else None
    found: list[HistoryFinding] = []
    conflicted: frozenset[str] | None = None
    if auto is not None:
        own = [e for e in tree_changes(git, auto.tree, c.sha) if e["path"] not in auto.conflicted]
        found += _judge_tree(git, c, own, settings, empty, auto.tree, trusted, "the merge's own change")
        conflicted = auto.conflicted
        if not conflicted:
            return found
    per_parent = []
    for parent in c.parents:
        entries = [e for e in tree_changes(git, parent, c.sha) if conflicted is None or e["path"] in conflicted]
        per_parent.append(_judge_tree(git, c, entries, settings, empty, parent, trusted, "the merge's own change"))
    return found + common_findings(per_parent)


def common_findings(per_side: list[list[HistoryFinding]]) -> list[HistoryFinding]:
    """The findings of the first side that hold against every other side too: same rule and path, and a
    line in common (or the same message, for findings without lines). A side whose lines were cut at
    MAX_LINES_SHOWN counts as holding every line."""
    if not per_side:
        return []
    out = []
    for f in per_side[0]:
        lines = set(f.lines)
        holds = True
        for other in per_side[1:]:
            same = [g for g in other if (g.rule, g.path) == (f.rule, f.path)]
            if not f.lines:
                holds = any(g.message == f.message for g in same)
            else:
                if any(len(g.lines) >= MAX_LINES_SHOWN for g in same):
                    continue
                lines &= {line for g in same for line in g.lines}
                holds = bool(lines)
            if not holds:
                break
        if holds:
            kept = tuple(line for line in f.lines if line in lines) if f.lines else ()
            out.append(HistoryFinding(f.commit, f.author, f.kind, f.path, f.rule, f.message, kept))
    return out


def _is_link(e: dict[str, Any]) -> bool:
    return e.get("mode") in LINK_MODES


def _links(c: _Commit, entries: list[dict[str, Any]], label: str = "") -> list[HistoryFinding]:
    """A symbolic link or submodule added under wiki/, sources/ or layers/: never served, never taken."""
    out = []
    for e in entries:
        path = str(e["path"])
        if _is_link(e) and path.split("/", 1)[0] in ("wiki", "sources", "layers") and e["action"] != "delete":
            what = "a symbolic link" if e.get("mode") == "120000" else "a submodule"
            out.append(HistoryFinding(c.sha, c.author, c.kind, path, "zone",
                                      _labelled(label, f"{what} inside the wiki is refused (pages are files; a link could "
                                                       "show one layer's pages in another)")))
    return out


def _own_repository_files(c: _Commit, entries: list[dict[str, Any]], settings: Settings,
                          label: str = "") -> list[HistoryFinding]:
    """A file added or changed under `layers/<l>/` for a layer that lives in a repository of its own: its
    bytes would reach everyone who can clone this one (the hosting's permissions guard only its own)."""
    own = {layer.name for layer in settings.layers if layer.repository}
    out = []
    for e in entries:
        parts = str(e["path"]).split("/")
        if e["action"] != "delete" and len(parts) > 2 and parts[0] == "layers" and parts[1] in own:
            out.append(HistoryFinding(c.sha, c.author, c.kind, str(e["path"]), "zone", _labelled(
                label, f"layer {parts[1]} lives in its own repository; its files are never taken by this one")))
    return out


def _feedback_edits(git: Git, c: _Commit, entries: list[dict[str, Any]], label: str = "") -> list[HistoryFinding]:
    return [HistoryFinding(c.sha, c.author, c.kind, path, FEEDBACK_RULE, _labelled(label, message))
            for path, message in feedback_batch_edits(git, c.trailers, entries)]


def _labelled(label: str, message: str) -> str:
    return f"{label}: {message}" if label else message


def _watched(path: str) -> bool:
    kind = classify(path)
    if kind is not None:
        return True
    parts = path.split("/")
    if parts[0] == "layers" and len(parts) > 2:
        parts = parts[2:]
    return parts[0] in ("sources", "wiki")


def _judge(
    git: Git, c: _Commit, entries: list[dict[str, Any]], blobs: dict[str, bytes], settings: Settings, empty: Path,
    *, base: str | None, trusted: bool = False, label: str = "",
) -> list[HistoryFinding]:
    """Judge `entries`, the changes from `base` (a commit or tree; None: nothing) to `c`, by the rules of
    the kind `c` claims."""
    parent = base
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
    violations.extend(_claims(git, c, kind, entries, new_texts, ctx, trusted))
    return [
        HistoryFinding(c.sha, c.author, kind, v.path, v.rule, _labelled(label, v.message), v.lines)
        for v in dict.fromkeys(violations)
    ]


def _claims(
    git: Git, c: _Commit, kind: str | None, entries: list[dict[str, Any]], new_texts: dict[str, str | None],
    ctx: _TreeContext, trusted: bool,
) -> list[Violation]:
    """What the claimed kind may do, re-checked on the commit: a trailer is a claim, never a pass."""
    out: list[Violation] = []
    if kind in UNVERIFIABLE_KINDS and not trusted:
        # The gates allowed what a recompile may retire; nothing here can re-run the recompile to see
        # that it would, so each retirement is a finding.
        why = (f"a {kind} claim cannot be verified here (no operation log here made this commit): what it retires "
               "is judged as a person's edit")
        for record in ctx.records:
            for pattern, rule in _UNVERIFIED_RECORDS:
                m = pattern.match(record)
                if m:
                    out.append(Violation(rule, m.group(1), why, (m.group(2),)))
    if kind == "delete":
        out.extend(_dangling(git, c, entries))
    if kind == "capture":
        for e in entries:
            if e["action"] == "add" and (classify(str(e["path"])) or ("", ""))[0] == "source":
                why = _capture_claim(str(e["path"]), new_texts.get(str(e["path"])), c)
                if why:
                    out.append(Violation("source-immutable", str(e["path"]), why))
    return out


def _dangling(git: Git, c: _Commit, entries: list[dict[str, Any]]) -> list[Violation]:
    """A delete removes a source page with every line that cites it (the reference sweep): a page of the
    commit's tree still naming the removed capture means it was not a delete."""
    removed = [str(e["path"]) for e in entries
               if e["action"] == "delete" and (classify(str(e["path"])) or ("", ""))[0] == "source"]
    out = []
    for rel in removed:
        capture_id = rel.rsplit("/", 1)[-1].removesuffix(".md")
        hits = git.run("grep", "-l", "-F", "-e", capture_id, c.sha, "--", "wiki", ":(glob)layers/*/wiki/**",
                       check=False).split("\n")
        pages = sorted({h.partition(":")[2] for h in hits if h.strip()})
        if pages:
            out.append(Violation(
                "source-immutable", rel,
                f"a delete removes a source page only with the lines that cite it; {len(pages)} page(s) still cite "
                f"{capture_id}",
            ))
    return out


def _capture_claim(rel: str, text: str | None, c: _Commit) -> str | None:
    """Why the source page a `capture` commit adds is not what a capture writes, or None."""
    if text is None:
        return None
    try:
        page = parse_source_page(text, rel)
    except ContractError as exc:
        return f"not a source page a capture writes: {exc.message}"
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    claimed = (c.trailers.get("Stigmergy-Capture") or [stem])[0]
    if page.id != stem or claimed != stem:
        return f"the source page's id ({page.id}) is not its file name or the capture the commit names ({claimed})"
    body = page.text.encode("utf-8")
    digests = {hashlib.sha256(body).hexdigest(), hashlib.sha256(body.removesuffix(b"\n")).hexdigest()}
    if page.artifacts and not any(a.readable_sha256 in digests for a in page.artifacts):
        return "its readable text is not the text its capture recorded (artifact readable_sha256)"
    return None


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
    names = git.tree_names(commit, "sources", "layers")
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
    shas = [s for s in git.run("rev-list", "--reverse", rng).split() if s]
    walk = walker(root, len(shas))  # GitPython's persistent reader for a long walk (repo/gitpython.py)
    try:
        return HistoryAudit(since, head, len(shas), tuple(audit_commits(walk, shas, settings, _ran_here(root))))
    finally:
        close_walker(walk)


def _ran_here(root: Path) -> Callable[[_Commit], bool]:
    """Trust an unverifiable kind's commit when this repository's operation log says it made it."""
    from stigmergy.repo.state import StateDB

    made: set[str] = set()
    path = Layout(root).state_dir / "state.sqlite"
    if path.is_file():
        try:
            db = StateDB(path, readonly=True)
        except Exception:  # noqa: BLE001 - no readable log: nothing is trusted
            db = None
        if db is not None:
            try:
                for kind in UNVERIFIABLE_KINDS:
                    made |= {op.commit_sha for op in db.operations(limit=1_000_000, kind=kind)
                             if op.commit_sha and op.status == "committed"}
            finally:
                db.close()
    return lambda c: c.sha in made


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


__all__ = [
    "AUDITED_RULES", "UNVERIFIABLE_KINDS", "HistoryAudit", "HistoryFinding", "audit_commits", "audit_range",
    "audit_since_last_check", "common_findings", "judge_merge", "last_checked", "mark_checked",
]
