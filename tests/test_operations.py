"""Operations: one commit per change, and the stored patch reproduces that commit exactly."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from conftest import git

from stigmergy.repo.git import GitError
from stigmergy.repo.ids import new_id
from stigmergy.repo.operations import CommitRequest, Repository, apply_and_commit, utc_now
from stigmergy.repo.patch import FileChange, git_patch, quote_path
from stigmergy.settings import load_settings


def _op(repo: Repository, changes: dict[str, str | None], **kw):
    listeners = kw.pop("listeners", ())
    return apply_and_commit(repo, CommitRequest(op_id=new_id("op"), kind="test", title="t", changes=changes,
                                                started_at=utc_now(), **kw), listeners)


def test_stored_patch_reproduces_the_commit(wiki: Path) -> None:
    repo = Repository(wiki, load_settings(wiki))
    _op(repo, {"wiki/notes/Old.md": "one\ntwo\nthree\n", "wiki/notes/Gone.md": "bye\n", "wiki/notes/Tail.md": "no newline"})
    row = _op(
        repo,
        {
            "wiki/notes/Old.md": "one\n2\nthree\nfour\n",
            "wiki/notes/Gone.md": None,
            "wiki/notes/Q2 — final \"draft\".md": "new page\nwith two lines\n",
            "wiki/notes/Tail.md": "no newline, edited",
        },
    )
    patch = repo.evidence.get(row.patch_sha)
    assert b"\\342\\200\\224" in patch  # non-ASCII paths are quoted as git quotes them
    # Reverse-applying the patch to the commit gives back its parent, byte for byte.
    subprocess.run(["git", "apply", "-R", "--index"], cwd=wiki, input=patch, check=True)
    assert subprocess.run(["git", "diff", "--cached", "--quiet", "HEAD~1"], cwd=wiki).returncode == 0
    git(wiki, "reset", "-q", "--hard", "HEAD")
    # And forward-applying it to the parent gives the commit.
    git(wiki, "checkout", "-q", "HEAD~1")
    subprocess.run(["git", "apply", "--index"], cwd=wiki, input=patch, check=True)
    assert subprocess.run(["git", "diff", "--cached", "--quiet", row.commit_sha], cwd=wiki).returncode == 0


def test_binary_change_falls_back_to_git() -> None:
    assert git_patch([FileChange("a.bin", None, b"\0\1")]) is None
    assert quote_path("plain name.md") == "plain name.md"
    assert quote_path("tab\there") == '"tab\\there"'


def test_failed_commit_restores_files(wiki: Path) -> None:
    repo = Repository(wiki, load_settings(wiki))
    _op(repo, {"wiki/notes/Keep.md": "original\n"})
    before = git(wiki, "log", "--format=%H")
    # A stale index lock (another git process crashed) makes git refuse to commit: a real failure.
    (wiki / ".git" / "index.lock").write_text("")
    with pytest.raises(GitError):
        _op(repo, {"wiki/notes/Keep.md": "changed\n", "wiki/notes/New.md": "new\n"})
    (wiki / ".git" / "index.lock").unlink()
    assert (wiki / "wiki/notes/Keep.md").read_text() == "original\n"
    assert not (wiki / "wiki/notes/New.md").exists()
    assert git(wiki, "log", "--format=%H") == before
    assert git(wiki, "status", "--porcelain") == ""


def test_authorship_follows_our_commits_and_a_persons_in_one_process(wiki: Path) -> None:
    from stigmergy.gates.authorship import Authorship

    repo = Repository(wiki, load_settings(wiki))
    page = "wiki/notes/Shared.md"
    _op(repo, {page: "# Shared\n\nfrom stigmergy\n"})
    assert Authorship(wiki).human_lines(page) == frozenset()
    (wiki / page).write_text("# Shared\n\nfrom stigmergy\nfrom a person\n")
    git(wiki, "commit", "-qam", "hand edit")
    assert Authorship(wiki).human_lines(page) == frozenset({4})
    _op(repo, {page: "# Shared\n\nfrom stigmergy\nfrom a person\nstigmergy again\n"})
    assert Authorship(wiki).human_lines(page) == frozenset({4})
    (wiki / page).write_text("# Shared\n\nfrom stigmergy\nfrom a person\nstigmergy again\nuncommitted\n")
    assert Authorship(wiki).human_lines(page) == frozenset({4, 6})


def test_the_commit_history_is_kept_with_the_repository_and_told_of_our_commits(wiki: Path) -> None:
    # No module-global cache: the write path keeps one history per Repository object, and each commit it
    # makes is recorded through the listener seam (HEAD moves in the history without a `git log`).
    from stigmergy.write.operation import Operation, authorship, commit, commit_history

    repo = Repository(wiki, load_settings(wiki))
    page = "wiki/notes/Kept.md"
    commit(repo, Operation.start("test"), "t", {page: "# Kept\n\nfrom stigmergy\n"})
    history = commit_history(repo)
    assert history is commit_history(repo) and history.head is None  # nothing read yet
    first = authorship(repo)
    assert first.human_lines(page) == frozenset() and first.fast_hits == 1
    assert history.head == git(wiki, "rev-parse", "HEAD").strip()
    row = commit(repo, Operation.start("test"), "t", {page: "# Kept\n\nfrom stigmergy\nagain\n"})
    assert history.head == row.commit_sha and history.ours[row.commit_sha] is True
    # No person's commit touched the page: its own commit list was never needed (nor read).
    assert history.human is not None and page not in history.human and page not in history.commits
    (wiki / page).write_text("# Kept\n\nfrom stigmergy\nagain\nfrom a person\n")
    git(wiki, "commit", "-qam", "hand edit")  # not ours: the next plan reads just this commit
    later = authorship(repo)
    assert later.human_lines(page) == frozenset({5}) and later.blame_runs == 1
    assert page in history.human and history.head in history.commits[page]
    assert history.head == git(wiki, "rev-parse", "HEAD").strip()
    other = Repository(wiki, load_settings(wiki))
    assert commit_history(other) is not history and commit_history(other).head is None


def test_ids_made_in_one_millisecond_sort_in_the_order_they_were_made() -> None:
    # Capture order is id order (export replays by it); a directory capture makes many ids per millisecond,
    # and random bits alone would order those by chance (the export round trip flaked on it).
    ids = [new_id("cap") for _ in range(5000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def _synchronous(repo: Repository) -> int:
    return repo.state.conn.execute("PRAGMA synchronous").fetchone()[0]  # type: ignore[attr-defined]


def test_relaxed_bookkeeping_commits_and_then_syncs_fully_again(wiki: Path) -> None:
    """A committed operation's row is written without syncing the WAL (resume rebuilds it from Git), yet
    it is committed (another connection reads it), and the connection is back to FULL afterwards, also
    when the relaxed transaction fails: an acknowledgement after it is synced as before."""
    import sqlite3

    from stigmergy.repo.state.sqlite import StateDB

    repo = Repository(wiki, load_settings(wiki))
    assert _synchronous(repo) == 2  # FULL
    row = _op(repo, {"wiki/notes/Kept.md": "kept\n"})
    assert row.commit_sha and _synchronous(repo) == 2
    other = StateDB(repo.layout.state_db, readonly=True)
    assert other.operation(row.id) is not None and other.operation(row.id).commit_sha == row.commit_sha  # type: ignore[union-attr]
    state = repo.state
    assert isinstance(state, StateDB)
    with pytest.raises(sqlite3.IntegrityError), state.tx(durable=False) as c:
        c.execute("INSERT INTO meta VALUES ('k', 'v')")
        c.execute("INSERT INTO meta VALUES ('k', 'again')")  # primary key: the transaction rolls back
    assert _synchronous(repo) == 2 and state.meta("k") is None


def _myers_line_by_line(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """The change record's diff as it was before it walked runs: one line per step, forward and back."""
    n, m = len(a), len(b)
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    for d in range(n + m + 1):
        trace.append(v[:])
        for k in range(-d, d + 1, 2):
            x = v[offset + k + 1] if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]) else v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[offset + k] = x
            if x >= n and y >= m:
                moves: list[tuple[str, int, int]] = []
                for dd in range(d, 0, -1):
                    w, kk = trace[dd], x - y
                    pk = kk + 1 if kk == -dd or (kk != dd and w[offset + kk - 1] < w[offset + kk + 1]) else kk - 1
                    px = w[offset + pk]
                    while x > px and y > px - pk:
                        x, y = x - 1, y - 1
                        moves.append(("equal", x, y))
                    if x == px:
                        y -= 1
                        moves.append(("insert", x, y))
                    else:
                        x -= 1
                        moves.append(("delete", x, y))
                while x > 0 and y > 0:
                    x, y = x - 1, y - 1
                    moves.append(("equal", x, y))
                ops: list[tuple[str, int, int, int, int]] = []
                for tag, i, j in reversed(moves):
                    di, dj = (1, 1) if tag == "equal" else ((1, 0) if tag == "delete" else (0, 1))
                    if ops and ops[-1][0] in (tag, "replace") or (ops and {ops[-1][0], tag} == {"delete", "insert"}):
                        t, i1, i2, j1, j2 = ops[-1]
                        if t == tag or (t != "equal" and tag != "equal"):
                            if i2 == i and j2 == j:
                                ops[-1] = (t if t == tag else "replace", i1, i2 + di, j1, j2 + dj)
                                continue
                    ops.append((tag, i, i + di, j, j + dj))
                return ops
    raise AssertionError("unreachable")


def test_the_diff_walks_runs_and_finds_the_same_opcodes_as_a_line_by_line_walk() -> None:
    # The diff of a page at its bound walks hundreds of equal lines; it walks them as runs (slices compared
    # in C, the path read back a run at a time) and must find the same edit script, tie for tie.
    from stigmergy.repo.patch import _myers

    rnd = random.Random(27)
    page = [f"- fact {i} ([source](../../sources/2026/01/cap_{i % 7}.md#L{i}))\n" for i in range(460)]
    cases = [(page, page[:40] + ["## 2026-12\n", "\n"] + page[40:300] + page[301:] + ["new\n"]), (page, page), ([], page)]
    for _ in range(3000):
        alphabet = rnd.choice(["ab", "abc", "abcdefgh"])
        a = [rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))]
        b = list(a)
        for _ in range(rnd.randint(0, 8)):
            at = rnd.randint(0, len(b))
            if rnd.random() < 0.5 and b[at:]:
                del b[at]
            else:
                b.insert(at, rnd.choice(alphabet))
        cases.append((a, b if rnd.random() < 0.8 else [rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))]))
    for a, b in cases:
        ops = _myers(a, b)
        assert ops == _myers_line_by_line(a, b), (a, b)
        assert [line for t, i1, i2, j1, j2 in ops for line in (a[i1:i2] if t == "equal" else b[j1:j2])] == b
