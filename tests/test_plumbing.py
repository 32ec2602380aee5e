"""Commits through git's plumbing (repo/plumbing.py) are the commits `git add` + `git commit --only` made:
two repositories, one taking each way, get the same commit ids, index and reflog for the same writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import git

from stigmergy.repo.git import Git, GitError
from stigmergy.repo.plumbing import cleanup

WHEN = 1767225600
IDENT = {"GIT_AUTHOR_NAME": "S", "GIT_AUTHOR_EMAIL": "s@e", "GIT_COMMITTER_NAME": "S", "GIT_COMMITTER_EMAIL": "s@e"}


def _pair(tmp_path: Path) -> tuple[Git, Git]:
    """Two repositories with the same first commit; the second takes the porcelain (commit.cleanup set
    to its default, a setting plumbing leaves to `git commit`)."""
    out = []
    for name in ("plumbing", "porcelain"):
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q")
        (root / "wiki" / "notes").mkdir(parents=True)
        (root / "wiki" / "notes" / "Old.md").write_text("old\n")
        (root / "wiki" / "notes" / "Gone.md").write_text("gone\n")
        (root / "README.md").write_text("readme\n")
        Git(root).commit_paths(["README.md", "wiki/notes/Gone.md", "wiki/notes/Old.md"], "first", "T", "t@e", when=WHEN)
        if name == "porcelain":
            git(root, "config", "commit.cleanup", "whitespace")
        out.append(Git(root))
    return out[0], out[1]


def _write(root: Path, rel: str, text: str, executable: bool = False) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if executable:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def _state(g: Git) -> tuple[str, ...]:
    return (git(g.root, "rev-parse", "HEAD"), git(g.root, "ls-files", "-s"),
            git(g.root, "status", "--porcelain=v1", "--untracked-files=all"),
            git(g.root, "log", "-g", "--format=%gs", "HEAD"),
            (g.root / ".git" / "logs" / "HEAD").read_text(), (g.root / ".git" / "logs" / "refs" / "heads" / "main").read_text())


def test_plumbing_and_porcelain_make_the_same_commits(tmp_path: Path) -> None:
    plumbing, porcelain = _pair(tmp_path)
    assert plumbing.plumbing.usable(plumbing.fast_head()) and not porcelain.plumbing.usable(porcelain.fast_head())
    assert plumbing.plumbing._stamps(IDENT) is not None  # the commit and HEAD are written by this process
    message = "\n\ncapture: Slack #eng, 2026-01-02  \n\n\n# a line that is not a comment\nbody\t\n\n\n\nStigmergy-Kind: capture\n\n"
    steps: list[tuple[dict[str, str | None], str]] = [
        # new folders three deep, a name git quotes, a modified page, a page removed (its folder stays)
        ({"sources/2026/01/cap_1.md": "one\n", "wiki/notes/Q2 — “draft” é.md": "ü\n", "wiki/notes/Old.md": "new\n",
          "wiki/notes/Gone.md": None}, message),
        # every page of a folder removed: the folder leaves the tree; an executable file; no trailing newline
        ({"wiki/notes/Old.md": None, "wiki/notes/Q2 — “draft” é.md": None, "tools/run.sh": "#!/bin/sh\n",
          "sources/2026/01/cap_2.md": "two, no newline"}, "second"),
    ]
    for changes, msg in steps:
        for g in (plumbing, porcelain):
            for rel, text in changes.items():
                if text is None:
                    (g.root / rel).unlink()
                else:
                    _write(g.root, rel, text, executable=rel.endswith(".sh"))
            g.commit_paths([r for r, t in changes.items() if t is not None], msg, "Stigmergy", "s@e",
                           removed=[r for r, t in changes.items() if t is None], when=WHEN + 60)
        assert _state(plumbing) == _state(porcelain)
    assert git(plumbing.root, "ls-tree", "HEAD", "tools/run.sh").startswith("100755")
    assert "wiki/notes" not in git(plumbing.root, "ls-tree", "-r", "-t", "--name-only", "HEAD").split("\n")
    git(plumbing.root, "fsck", "--strict", "--no-dangling")


def test_what_a_person_staged_stays_staged_and_a_commit_of_theirs_is_built_on(tmp_path: Path) -> None:
    plumbing, porcelain = _pair(tmp_path)
    for g in (plumbing, porcelain):
        _write(g.root, "wiki/notes/Mine.md", "a person's page\n")
        git(g.root, "add", "wiki/notes/Mine.md")
        _write(g.root, "wiki/notes/Ours.md", "ours\n")
        g.commit_paths(["wiki/notes/Ours.md"], "ours", "S", "s@e", when=WHEN + 1)
        # a person commits between two of ours: the next one builds on theirs, not on the tree it kept
        git(g.root, "-c", "user.name=P", "-c", "user.email=p@e", "commit", "-q", "-m", "person")
        _write(g.root, "wiki/notes/Ours.md", "ours, again\n")
        g.commit_paths(["wiki/notes/Ours.md"], "ours again", "S", "s@e", when=WHEN + 3)
    assert git(plumbing.root, "log", "--format=%s", "-3").split("\n")[:3] == ["ours again", "person", "ours"]
    assert git(plumbing.root, "ls-tree", "-r", "--name-only", "HEAD").count("Mine.md") == 1
    assert _state(plumbing)[1:3] == _state(porcelain)[1:3]  # the index and the status (a person's commit has its own time)


def test_nothing_to_commit_and_a_moved_head_are_refused(tmp_path: Path) -> None:
    plumbing, porcelain = _pair(tmp_path)
    for g in (plumbing, porcelain):
        with pytest.raises(GitError):
            g.commit_paths(["README.md"], "same bytes", "S", "s@e")
    head = plumbing.fast_head()
    assert head is not None
    _write(plumbing.root, "README.md", "changed\n")
    # HEAD moves after we read it (another writer): update-ref refuses to move it from the wrong parent
    git(plumbing.root, "commit", "-q", "--allow-empty", "-m", "elsewhere")
    with pytest.raises(GitError):
        plumbing.plumbing.commit(head, ["README.md"], [], "late", {}, _message(tmp_path, "late"))
    assert git(plumbing.root, "log", "-1", "--format=%s").strip() == "elsewhere"


def test_hooks_attributes_and_settings_take_the_porcelain(tmp_path: Path) -> None:
    plumbing, _ = _pair(tmp_path)
    head = plumbing.fast_head()
    (plumbing.root / ".gitattributes").write_text("*.md text eol=crlf\n")
    assert not plumbing.plumbing.usable(head)
    (plumbing.root / ".gitattributes").unlink()
    assert plumbing.plumbing.usable(head)
    hook = plumbing.root / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho hook >> ran.txt\n")
    os.chmod(hook, 0o755)
    fresh = Git(plumbing.root)  # the probe runs once per Git object
    assert not fresh.plumbing.usable(head)
    _write(fresh.root, "README.md", "changed\n")
    fresh.commit_paths(["README.md"], "with a hook", "S", "s@e")
    assert (fresh.root / "ran.txt").read_text() == "hook\n"  # git commit ran the hook, as before
    git(plumbing.root, "config", "filter.lfs.clean", "cat")
    hook.unlink()
    assert not Git(plumbing.root).plumbing.usable(head)


def _message(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "msg"
    path.write_text(text + "\n")
    return path


@pytest.mark.parametrize("message", ["plain", "\n\n a \n\n\n b  \n\n", "# only\n\n#x", "t\r\n\r\nbody", "x\n \n\t\ny"])
def test_cleanup_is_gits_whitespace_cleanup(tmp_path: Path, message: str) -> None:
    import subprocess

    expected = subprocess.run(["git", "stripspace"], input=message.encode(), capture_output=True, check=True).stdout
    assert cleanup(message).encode() == expected


def test_a_commit_dated_now_is_dated_as_git_dates_it_and_signing_takes_git(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "America/St_Johns")  # a zone half an hour off the hour
    time.tzset()  # git reads TZ when it starts; this process reads it again now
    try:
        _dated_now(tmp_path)
    finally:
        monkeypatch.undo()
        time.tzset()


def _dated_now(tmp_path: Path) -> None:
    plumbing, _ = _pair(tmp_path)
    _write(plumbing.root, "README.md", "now\n")
    head = plumbing.commit_paths(["README.md"], "dated now", "S", "s@e")
    ours = git(plumbing.root, "cat-file", "commit", head).split("\n")[2].rsplit(" ", 1)[1]
    theirs = git(plumbing.root, "var", "GIT_COMMITTER_IDENT").split()[-1]
    assert ours == theirs and ours.startswith(("-0230", "-0330"))
    git(plumbing.root, "config", "commit.gpgsign", "true")
    signing = Git(plumbing.root)
    assert signing.plumbing.usable(head) and signing.plumbing._stamps(IDENT) is None  # commit-tree signs
    git(plumbing.root, "config", "commit.gpgsign", "false")
    git(plumbing.root, "config", "core.logAllRefUpdates", "false")
    unlogged = Git(plumbing.root)
    assert unlogged.plumbing.usable(head) and unlogged.plumbing._stamps(IDENT) is None


def test_a_held_ref_lock_refuses_and_moves_nothing(tmp_path: Path) -> None:
    plumbing, _ = _pair(tmp_path)
    head = plumbing.fast_head()
    lock = plumbing.root / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("")
    _write(plumbing.root, "README.md", "blocked\n")
    with pytest.raises(GitError, match="cannot lock ref"):
        plumbing.commit_paths(["README.md"], "blocked", "S", "s@e")
    assert plumbing.fast_head() == head and lock.read_text() == ""
    assert git(plumbing.root, "log", "-g", "--format=%gs", "HEAD").count("\n") == 1


@pytest.mark.parametrize("kind", ["folder", "symlink", "glob"])
def test_a_folder_a_symlink_or_a_pathspec_is_committed_as_git_add_takes_it(tmp_path: Path, kind: str) -> None:
    # `git add` takes a folder (every file under it), a symlink (as a link) and pathspec magic; plumbing
    # writes one regular file's blob a path, so anything else must take the porcelain and commit what it did.
    plumbing, porcelain = _pair(tmp_path)
    for g in (plumbing, porcelain):
        _write(g.root, "sources/2026/01/a.md", "a\n")
        _write(g.root, "sources/2026/01/b.md", "b\n")
        if kind == "symlink":
            (g.root / "wiki" / "notes" / "Link.md").symlink_to("Old.md")
        paths = {"folder": ["sources"], "symlink": ["wiki/notes/Link.md"], "glob": ["sources/2026/01/*.md"]}[kind]
        g.commit_paths(paths, "second", "T", "t@e", when=WHEN + 60)
    assert _state(plumbing) == _state(porcelain)
    tracked = git(plumbing.root, "ls-files")
    assert ("wiki/notes/Link.md" in tracked) if kind == "symlink" else ("sources/2026/01/b.md" in tracked)


def test_a_kept_tree_model_commits_what_git_commits_over_many_commits(tmp_path: Path) -> None:
    # The model keeps each folder in git's tree order by bisection across commits: names that sort
    # differently as a file and as a folder ("a" < "a-b" < "a.b" < "a/"), a file that becomes a folder,
    # a folder emptied and made again, a refused commit in between (the model must stay HEAD's tree).
    import random

    plumbing, porcelain = _pair(tmp_path)
    rng = random.Random(27)
    names = ["a", "a-b", "a.b", "a0", "A", "é", "b c.md", "z", "a.md", "a_"]
    on_disk: dict[str, str] = {}
    for step in range(40):
        changes: dict[str, str | None] = {}
        for _ in range(rng.randint(1, 4)):
            rel = "wiki/notes/" + rng.choice(names) + (f"/{rng.choice(names)}" if rng.random() < 0.3 else "")
            if rel in on_disk and rng.random() < 0.4:
                changes[rel] = None
            elif not any(p.startswith(rel + "/") or rel.startswith(p + "/") for p in on_disk if p != rel):
                changes[rel] = f"step {step}\n"
        if not changes:
            continue
        for g in (plumbing, porcelain):
            for rel, text in changes.items():
                if text is None:
                    (g.root / rel).unlink()
                    if not any((g.root / rel).parent.iterdir()) and (g.root / rel).parent.name != "notes":
                        (g.root / rel).parent.rmdir()
                else:
                    _write(g.root, rel, text)
            g.commit_paths([r for r, t in changes.items() if t is not None], f"step {step}", "S", "s@e",
                           removed=[r for r, t in changes.items() if t is None], when=WHEN + step)
        on_disk.update({r: t for r, t in changes.items() if t is not None})
        for r, t in changes.items():
            if t is None:
                on_disk.pop(r, None)
        assert _state(plumbing) == _state(porcelain), step
        if step % 7 == 3:
            for g in (plumbing, porcelain):  # the same bytes again: refused, nothing moves
                with pytest.raises(GitError):
                    g.commit_paths(["README.md"], "same", "S", "s@e", when=WHEN + step)
    assert plumbing.plumbing._model is not None and plumbing.plumbing._model.commit == plumbing.fast_head()
    git(plumbing.root, "fsck", "--strict", "--no-dangling")


def test_a_status_through_git_takes_no_optional_lock_and_still_sees_a_persons_edit_and_staging(tmp_path: Path) -> None:
    """`Git` runs git without optional locks: the gates' `git status` after a commit answers as before (a
    person's edit in the working tree, a change they staged) but leaves the index as it was, where it
    rewrote all of it to store refreshed stat data (a file touched, its bytes the same); a person's own
    `git status` still refreshes it."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    for name in ("touched.md", "edited.md", "staged.md"):
        _write(root, f"wiki/{name}", f"{name}\n")
    ours = Git(root)
    ours.commit_paths(["wiki/touched.md", "wiki/edited.md", "wiki/staged.md"], "first", "T", "t@e", when=WHEN)
    touched = root / "wiki" / "touched.md"
    old = touched.stat().st_mtime_ns
    os.utime(touched, ns=(old - 10**10, old - 10**10))  # same bytes, another mtime: stat data to refresh
    _write(root, "wiki/edited.md", "a person's edit\n")
    _write(root, "wiki/staged.md", "a person's staged change\n")
    git(root, "add", "wiki/staged.md")
    index = root / ".git" / "index"
    before = index.read_bytes()
    out = ours.run_bytes("status", "--porcelain=v1", "-z", "--untracked-files=no", "--",
                         "wiki/touched.md", "wiki/edited.md", "wiki/staged.md")
    got = {e[3:].decode(): e[:2].decode() for e in out.split(b"\0") if e}
    assert got == {"wiki/edited.md": " M", "wiki/staged.md": "M "}
    assert index.read_bytes() == before
    git(root, "status", "--porcelain")  # a person's status, optional locks and all
    assert index.read_bytes() != before
    assert ours.status_porcelain() == [" M wiki/edited.md", "M  wiki/staged.md"]


def test_loose_objects_are_deflated_by_isal_and_git_reads_them(tmp_path: Path) -> None:
    """The declared compressor is the one used (where its wheel exists), and what it writes is what git's
    zlib reads: each loose object inflates to `kind size\\0body` under its own id, and fsck agrees."""
    import hashlib
    import platform
    import zlib

    from stigmergy.repo import plumbing as module

    if platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64"):
        assert module._deflate.__name__.endswith("isal_zlib")
    g, _ = _pair(tmp_path)
    body = "".join(f"- line {i} of a page long enough to be worth a compressor\n" for i in range(3000))
    _write(g.root, "wiki/notes/Long.md", body)
    g.commit_paths(["wiki/notes/Long.md"], "long", "S", "s@e", when=WHEN)
    oid = git(g.root, "rev-parse", "HEAD:wiki/notes/Long.md").strip()
    stored = (g.root / ".git" / "objects" / oid[:2] / oid[2:]).read_bytes()
    raw = zlib.decompress(stored)
    assert raw == f"blob {len(body)}\0{body}".encode() and hashlib.sha1(raw).hexdigest() == oid
    assert len(stored) < len(raw) // 4  # compressed, not stored
    assert git(g.root, "cat-file", "blob", oid) == body
    git(g.root, "fsck", "--strict", "--no-dangling")


def test_landed_names_only_the_plumbings_own_last_commit(tmp_path: Path) -> None:
    """`Git.landed` hands the gates what the plumbing commit knew of the files it committed (marks taken before it
    read them, the index stamped around its `update-index`), and nothing for a commit the porcelain made."""
    plumbing, porcelain = _pair(tmp_path)
    _write(plumbing.root, "wiki/notes/Old.md", "newer\n")
    sha = plumbing.commit_paths(["wiki/notes/Old.md"], "through the plumbing", "S", "s@e", when=WHEN)
    landed = plumbing.landed(sha)
    assert landed is not None and landed.commit == sha and set(landed.marks) == {"wiki/notes"}
    assert landed.before is not None and landed.after is not None and landed.before[0] != landed.after[0]  # the index
    assert plumbing.landed("0" * 40) is None
    _write(porcelain.root, "wiki/notes/Old.md", "newer\n")
    assert porcelain.landed(porcelain.commit_paths(["wiki/notes/Old.md"], "porcelain", "S", "s@e", when=WHEN)) is None
