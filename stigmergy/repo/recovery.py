"""Crash recovery for bookkeeping: a commit that landed but whose change record did not is rebuilt from
its trailers (DESIGN §9). Pending captures are finished by `write.capture.resume`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stigmergy.repo.state import OperationRow

if TYPE_CHECKING:
    from stigmergy.repo.operations import Repository

_FS, _RS = "\x1f", "\x1e"


def operation_commits(repo: Repository, since: str | None) -> list[tuple[str, str, str, str, str]]:
    """(commit, op id, kind, subject, date) for stigmergy commits after `since` (all when None), oldest first."""
    head = repo.git.head()
    if head is None:
        return []
    fmt = f"%H{_FS}%(trailers:key=Stigmergy-Operation,valueonly,separator=%x2c){_FS}%(trailers:key=Stigmergy-Kind,valueonly,separator=%x2c){_FS}%s{_FS}%cI{_RS}"
    rng = f"{since}..HEAD" if since else "HEAD"
    out = repo.git.run("log", "--reverse", f"--format={fmt}", rng, check=False)
    result = []
    for record in out.split(_RS):
        record = record.strip("\n")
        if not record:
            continue
        sha, op_id, kind, subject, date = (record.split(_FS) + ["", "", "", ""])[:5]
        if op_id.strip():
            result.append((sha.strip(), op_id.strip(), kind.strip(), subject, date))
    return result


def rebuild_bookkeeping(repo: Repository) -> list[str]:
    """Rebuild change records for operation commits the state database does not know. Returns op ids."""
    state = repo.state
    head = repo.git.head()
    last = state.meta("last_commit")
    if head is None or head == last:
        return []
    if last is not None:
        known = repo.git.run("cat-file", "-t", last, check=False).strip() == "commit"
        is_ancestor = known and repo.git.ok("merge-base", "--is-ancestor", last, "HEAD")
        if not (known and is_ancestor):
            last = None  # history was rewritten (erase, rebase): scan it all
    rebuilt = []
    pending = {op_id: env for _cid, op_id, env, _ in state.pending()}
    for sha, op_id, kind, subject, date in operation_commits(repo, last):
        if state.has_operation(op_id):
            continue
        patch = repo.git.run_bytes("diff-tree", "-p", "--binary", "--root", "-r", "--no-commit-id", sha)
        names = repo.git.run("diff-tree", "--root", "-r", "--no-commit-id", "--name-status", sha)
        entries = []
        for line in names.splitlines():
            action, _, path = line.partition("\t")
            entries.append({"path": path, "action": {"A": "add", "D": "delete"}.get(action[:1], "modify")})
        env = pending.get(op_id)
        capture = None
        if env is not None:
            source = next((e["path"] for e in entries if e["path"].endswith(f"/{env['capture_id']}.md")), "")
            capture = {
                "capture_id": env["capture_id"],
                "content_sha": env["content_sha"],
                "layer": env["layer"],
                "source_path": source,
                "op_id": op_id,
                "captured_at": env["captured_at"],
                "locator": env["locator"],
                "filed": 1 if len(entries) > 1 else 0,
            }
        row = OperationRow(
            id=op_id,
            kind=kind or "unknown",
            status="recovered",
            commit_sha=sha,
            started_at=date,
            finished_at=date,
            summary=subject,
            manifest={"paths": entries, "reasons": ["bookkeeping rebuilt from the commit trailer after a crash"]},
            patch_sha=repo.evidence.put(patch),
        )
        state.record_operation(row, capture=capture, done_capture_id=env["capture_id"] if env else None)
        rebuilt.append(op_id)
    state.set_meta("last_commit", head)
    return rebuilt
