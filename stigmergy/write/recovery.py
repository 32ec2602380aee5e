"""Bookkeeping comes back from Git (DESIGN §9): `.stigmergy/state.sqlite` is a cache of what the commits
already say. Every operation commit carries trailers (operation id, kind, and for captures and filings the
capture id and how its filing ended); a source page holds the capture's provenance (id, sha256 of the
original bytes, layer, locator, time). From those this module rebuilds the operations, the capture
catalogue (so re-capturing a known file answers "exists"), refused and unfiled captures, change records
with their exact patches, and the readable-text objects (a source page's body is the readable text).

It runs after a crash (a commit landed but its record did not), on first use in a clone, and after
`.stigmergy/` was deleted. Original bytes cannot come back from Git: a capture rebuilt here is marked so,
and `fsck`/`status` say its original is "not present here" rather than corrupt. Pending captures are
finished by `write.capture.resume`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from stigmergy.errors import EXIT_REFUSED, ContractError, LockTimeoutError, StigmergyError
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.evidence import sha256_hex
from stigmergy.repo.git import blob_sha
from stigmergy.repo.layout import classify
from stigmergy.repo.lock import WriterLock
from stigmergy.repo.operations import Repository, restore
from stigmergy.repo.state import CaptureRow, OperationRow
from stigmergy.repo.trailers import TRAILER_CAPTURE, TRAILER_FILING, TRAILER_OP, TRAILERS, commit_message
from stigmergy.repo.trailers import trailer_format as _trailer_fmt

_FS, _RS = "\x1f", "\x1e"
_MARK = "\x1estigmergy-commit "
_ZERO = "0" * 40


@dataclass(frozen=True)
class OpCommit:
    sha: str
    op_id: str
    kind: str
    capture_id: str
    filing: str  # filed | refused | archived | failed | waiting | "" (older commits)
    subject: str
    body: str
    date: str


def operation_commits(repo: Repository, since: str | None) -> list[OpCommit]:
    """Stigmergy's operation commits after `since` (all when None), oldest first."""
    if repo.git.fast_head() is None:
        return []
    fields = ["%H", *(_trailer_fmt(k) for k in TRAILERS), "%s", "%b", "%cI"]
    fmt = _FS.join(fields) + _RS
    rng = f"{since}..HEAD" if since else "HEAD"
    out = repo.git.run("log", "--reverse", f"--format={fmt}", f"--grep=^{TRAILER_OP}: ", rng, check=False)
    result = []
    for record in out.split(_RS):
        record = record.strip("\n")
        if not record:
            continue
        parts = (record.split(_FS) + [""] * 8)[:8]
        sha, op_id, kind, capture_id, filing, subject, body, date = (p.strip() for p in parts)
        if op_id and "," not in op_id:
            result.append(OpCommit(sha, op_id, kind, capture_id, filing, subject, body, date))
    return result


def _changes(repo: Repository, shas: list[str]) -> dict[str, list[dict[str, Any]]]:
    return repo.git.raw_changes(shas)


def _patches(repo: Repository, shas: list[str]) -> dict[str, bytes]:
    """Each commit's exact patch (what `git diff-tree -p --binary` prints), from one process per 200."""
    out: dict[str, bytes] = {}
    mark = _MARK.encode()
    for i in range(0, len(shas), 200):
        chunk = shas[i : i + 200]
        raw = repo.git.run_bytes(
            "show", "-p", "--binary", "--no-renames", "--root", f"--format={_MARK}%H", *chunk
        )
        for block in raw.split(mark)[1:]:
            sha, _, patch = block.partition(b"\n")
            patch = patch.strip(b"\n")
            out[sha.decode().strip()] = patch + b"\n" if patch else b""
    return out


def _blobs(repo: Repository, oids: list[str]) -> dict[str, bytes]:
    return repo.git.blobs(oids)


_REFUSED = re.compile(r"^refused by gate ", re.M)


def _filing(c: OpCommit, entries: list[dict[str, Any]]) -> str:
    if c.filing:
        return c.filing
    # Commits from before the Stigmergy-Filing trailer: the summary in the body says how filing ended.
    if _REFUSED.search(c.body):
        return "refused"
    return "filed" if len(entries) > 1 else "archived"


def _summary(c: OpCommit) -> str:
    """What apply_and_commit recorded: the message body (trailers aside), else the title."""
    body = "\n".join(line for line in c.body.split("\n") if not line.startswith(TRAILERS)).strip()
    return body or (c.subject.split(": ", 1)[1] if ": " in c.subject else c.subject)


def rebuild_bookkeeping(repo: Repository) -> list[str]:
    """Rebuild change records and the capture catalogue for operation commits the state database does not
    know. Call with the writer lock held. Returns the op ids rebuilt."""
    state = repo.state
    head = repo.git.fast_head()
    last = state.meta("last_commit")
    if head is None or head == last:
        return []
    if last is not None:
        known = repo.git.run("cat-file", "-t", last, check=False).strip() == "commit"
        is_ancestor = known and repo.git.ok("merge-base", "--is-ancestor", last, "HEAD")
        if not (known and is_ancestor):
            last = None  # history was rewritten (erase, rebase): scan it all
    commits = [c for c in operation_commits(repo, last) if not state.has_operation(c.op_id)]
    if not commits:
        state.set_meta("last_commit", head)
        return []
    pending = {p.op_id: p.envelope for p in state.pending()}
    shas = [c.sha for c in commits]
    changes = _changes(repo, shas)
    patches = _patches(repo, shas)
    wanted = [
        e["after"] for c in commits if c.kind == "capture" for e in changes.get(c.sha, [])
        if e["action"] == "add" and e["after"] and (classify(e["path"]) or ("", ""))[0] == "source"
    ]
    blobs = _blobs(repo, wanted)
    rebuilt = []
    for c in commits:
        entries = changes.get(c.sha, [])
        env = pending.get(c.op_id)
        filing = _filing(c, entries)
        capture: CaptureRow | None = None
        if c.kind == "capture":
            capture = _capture_row(repo, c, entries, blobs, env, filing)
        elif c.kind == "file" and c.capture_id and filing == "filed":
            existing = state.capture(c.capture_id)
            if existing is not None:
                capture = dataclasses.replace(existing, filed=True)
        counts: dict[str, int] = {}
        for e in entries:
            counts[e["action"]] = counts.get(e["action"], 0) + 1
        reason = (
            "bookkeeping rebuilt from the commit trailer after a crash" if env is not None
            else "bookkeeping rebuilt from the commit (the local state was missing)"
        )
        manifest: dict[str, Any] = {"paths": entries, "counts": counts, "reasons": [reason], "rebuilt": True}
        if c.capture_id or (capture is not None):
            manifest["capture"] = c.capture_id or (capture.capture_id if capture is not None else None)
        patch = patches.get(c.sha)
        row = OperationRow(
            id=c.op_id,
            kind=c.kind or "unknown",
            status="refused" if filing == "refused" else ("recovered" if env is not None else "committed"),
            commit_sha=c.sha,
            started_at=c.date,
            finished_at=c.date,
            summary=_summary(c),
            manifest=manifest,
            patch_sha=repo.evidence.put(patch) if patch is not None else None,
        )
        done = env["capture_id"] if env else None
        state.record_operation(row, capture=capture, done_capture_id=done)
        rebuilt.append(c.op_id)
    state.set_meta("last_commit", head)
    return rebuilt


def _capture_row(
    repo: Repository, c: OpCommit, entries: list[dict[str, Any]], blobs: dict[str, bytes],
    env: dict[str, Any] | None, filing: str,
) -> CaptureRow | None:
    source = next(
        (e for e in entries if e["action"] == "add" and (classify(e["path"]) or ("", ""))[0] == "source"
         and (not c.capture_id or e["path"].endswith(f"/{c.capture_id}.md"))),
        None,
    )
    if source is None:
        return None
    filed = filing in ("filed", "duplicate")
    if env is not None:
        return CaptureRow(
            capture_id=env["capture_id"], content_sha=env["content_sha"], layer=env["layer"],
            source_path=source["path"], op_id=c.op_id, captured_at=env["captured_at"], locator=env["locator"],
            filed=filed,
        )
    data = blobs.get(source["after"])
    if data is None:
        return None
    try:
        page = parse_source_page(data.decode("utf-8"), source["path"])
    except (ContractError, UnicodeDecodeError):
        return None
    if not page.artifacts:
        return None
    art = page.artifacts[0]
    # The page body is the readable text: its object comes back byte for byte when the hash agrees.
    readable = page.text.encode("utf-8")
    if sha256_hex(readable) == art.readable_sha256 and not repo.evidence.has(art.readable_sha256):
        repo.evidence.put(readable)
    return CaptureRow(
        capture_id=page.id, content_sha=art.sha256, layer=page.layer, source_path=source["path"], op_id=c.op_id,
        captured_at=page.captured_at, locator=page.locator, filed=filed, rebuilt=True,
    )


class WorkPendingError(StigmergyError):
    """An operation that starts only on a repository at rest found work a crash left (exit 3)."""

    exit_code = EXIT_REFUSED


def refuse_while_pending(repo: Repository) -> None:
    """The recovery policy of an operation that finishes nothing itself (import): refuse while a capture or
    an erase is waiting for `stigmergy resume`."""
    pending = repo.state.pending()
    erasing = repo.layout.erase_journal.exists()
    if pending or erasing:
        raise WorkPendingError(
            f"this repository has pending work ({len(pending)} capture(s){', an erase' if erasing else ''})",
            hint="run `stigmergy resume` first",
        )


def ensure_bookkeeping(repo: Repository) -> list[str]:
    """Readers call this first: when the state database is missing or behind HEAD, rebuild it from Git.
    Never waits: if a writer holds the lock, it rebuilds what it needs itself."""
    head = repo.git.fast_head()
    if head is None:
        return []
    if repo.layout.state_db.exists():
        ro = repo.reader_state()
        try:
            if ro.meta("last_commit") == head:
                return []
        finally:
            ro.close()
    lock = WriterLock(repo.layout.lock_file, 0.0)
    try:
        lock.acquire()
    except LockTimeoutError:
        return []
    try:
        return rebuild_bookkeeping(repo)
    finally:
        lock.release()


def _head_blobs(repo: Repository, paths: list[str]) -> dict[str, str]:
    """path -> blob id in HEAD, for those of `paths` HEAD has."""
    if not paths or repo.git.fast_head() is None:
        return {}
    out = repo.git.run_bytes("ls-tree", "-z", "HEAD", "--", *paths)
    blobs = {}
    for entry in out.split(b"\0"):
        if b"\t" in entry:
            meta, path = entry.split(b"\t", 1)
            blobs[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
    return blobs


def undo_uncommitted(repo: Repository, preimages: dict[str, str | None]) -> list[str]:
    """Put back what an interrupted operation wrote, but never what a commit holds: a path whose working
    file is exactly HEAD's is committed work and stays. What was staged for the interrupted commit is
    unstaged, so the index agrees with the files again. Returns the paths put back."""
    in_head = _head_blobs(repo, sorted(preimages))
    undo = {}
    for rel, before in preimages.items():
        try:
            now = blob_sha((repo.root / rel).read_bytes())
        except FileNotFoundError:
            now = None
        if now is not None and in_head.get(rel) == now:
            continue  # committed: never taken back
        undo[rel] = before
    if undo:
        restore(repo.root, undo)
        repo.git.run("reset", "-q", "--", *sorted(undo), check=False)
    return sorted(undo)


def adopt_landed_capture(repo: Repository, env: dict[str, Any], source_path: str) -> bool:
    """A pending capture whose source page is already committed landed without its bookkeeping. When that
    commit lacks the operation trailer (a message cut short by a kill, in versions that piped it), HEAD is
    re-made with the complete message (same tree, parent and author), so nothing committed is lost and
    the trailers tell the truth; then its bookkeeping is rebuilt. Returns True when the capture is adopted."""
    if source_path not in _head_blobs(repo, [source_path]):
        return False
    fmt = f"%H{_FS}{_trailer_fmt(TRAILER_OP)}"
    line = repo.git.run("log", "-1", f"--format={fmt}", "--diff-filter=A", "HEAD", "--", source_path).strip()
    sha, _, op = line.partition(_FS)
    if not op.strip() and sha == repo.git.fast_head():
        _reword_head(repo, env, sha)
    rebuild_bookkeeping(repo)
    if repo.state.has_operation(env["op_id"]):
        return True
    # Committed further back without a trailer: record it as it is (history is never rewritten there).
    entries = _changes(repo, [sha]).get(sha, [])
    row = OperationRow(
        id=env["op_id"], kind="capture", status="recovered", commit_sha=sha, started_at=env["captured_at"],
        finished_at=env["captured_at"], summary=env["title"],
        manifest={"paths": entries, "reasons": ["adopted a commit that lacked its operation trailer"]},
        patch_sha=None,
    )
    capture = CaptureRow(
        capture_id=env["capture_id"], content_sha=env["content_sha"], layer=env["layer"],
        source_path=source_path, op_id=env["op_id"], captured_at=env["captured_at"], locator=env["locator"],
        filed=len(entries) > 1,
    )
    repo.state.record_operation(row, capture=capture, done_capture_id=env["capture_id"])
    return True


def _reword_head(repo: Repository, env: dict[str, Any], sha: str) -> None:
    entries = _changes(repo, [sha]).get(sha, [])
    message = commit_message(
        "capture", env["title"], env["op_id"], "",
        {TRAILER_CAPTURE: env["capture_id"], TRAILER_FILING: "filed" if len(entries) > 1 else "archived"},
    )
    info = repo.git.run("show", "-s", "--format=%T%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI", sha).strip()
    tree, parents, an, ae, ad, cn, ce, cd = info.split(_FS)
    args = ["commit-tree", tree]
    for parent in parents.split():
        args += ["-p", parent]
    env_vars = {
        "GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae, "GIT_AUTHOR_DATE": ad,
        "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce, "GIT_COMMITTER_DATE": cd,
    }
    new = repo.git.run(*args, input=message.encode("utf-8"), env=env_vars).strip()
    repo.git.run("update-ref", "-m", "stigmergy resume: complete an interrupted commit message", "HEAD", new, sha)
