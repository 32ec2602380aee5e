"""The human-line gate's kept `git status` answers (gates/worktree.py, issue 27): kept across plans of one
process while nothing wrote the page, the index, HEAD or the settings, and asked of git again the moment
anything did. Each answer is checked against a fresh `git status` of the same paths."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from stigmergy.gates.authorship import Authorship, CommitHistory
from stigmergy.repo import watch
from stigmergy.repo.git import Git

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

PAGES = ("wiki/entities/acme.md", "wiki/entities/globex.md", "wiki/notes/one.md", "wiki/notes/two.md")


@pytest.fixture(autouse=True)
def fresh_watcher(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "_WATCHER", None)
    monkeypatch.setattr(watch, "_MADE_IN", None)


class Wiki:
    """A repository, stigmergy's Git and kept history over it, and a trace of the git commands it starts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for rel in PAGES:
            self.write(rel, f"# {rel}\n\nfirst\n")
        self.trace = root.parent / "trace.txt"
        self.git = Git(root, env={"GIT_TRACE": str(self.trace)})
        self.git.commit_paths(list(PAGES), "first", "S", "s@e")
        self.history = CommitHistory()

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def ask(self, paths: tuple[str, ...] = PAGES) -> tuple[dict[str, str], int]:
        """What a plan's Authorship says of `paths`, and how many `git status` it ran."""
        self.trace.unlink(missing_ok=True)
        a = Authorship(self.root, self.git, self.history)
        a.prefetch(paths, also_status=paths)
        runs = self.trace.read_text().count(" status ") if self.trace.exists() else 0
        return {p: a._status.get(p, "") for p in paths}, runs

    def truth(self, paths: tuple[str, ...] = PAGES) -> dict[str, str]:
        """A fresh Authorship with no kept history: git asked."""
        a = Authorship(self.root, Git(self.root), CommitHistory())
        a.prefetch(paths, also_status=paths)
        return {p: a._status.get(p, "") for p in paths}

    def commit(self, paths: list[str]) -> None:
        """Stigmergy's commit, told to the history as the write path tells it."""
        parent = self.git.fast_head()
        sha = self.git.commit_paths(paths, "stigmergy", "S", "s@e")
        self.history.record_commit(parent, sha, paths)
        self.history.record_worktree(self.root, parent, self.git.landed(sha), paths)


def test_answers_are_kept_between_plans_and_after_stigmergys_own_commit(tmp_path: Path) -> None:
    w = Wiki(tmp_path / "wiki")
    assert w.ask() == ({p: "" for p in PAGES}, 1)
    assert w.ask() == ({p: "" for p in PAGES}, 0)  # nothing written since: git is not asked
    w.write("wiki/entities/acme.md", "# acme\n\nsecond\n")
    w.write("wiki/notes/three.md", "# three\n")
    w.commit(["wiki/entities/acme.md", "wiki/notes/three.md"])
    got, runs = w.ask((*PAGES, "wiki/notes/three.md"))
    assert runs == 0 and got == w.truth((*PAGES, "wiki/notes/three.md"))


@pytest.mark.parametrize("move", ["edit", "delete", "rm-cached", "add", "commit", "reset", "attributes", "config"])
def test_what_a_person_does_between_plans_is_seen(tmp_path: Path, move: str) -> None:
    w = Wiki(tmp_path / "wiki")
    w.ask()
    page = w.root / "wiki/entities/acme.md"
    if move == "edit":
        page.write_text("# acme\n\na person's line\n")
    elif move == "delete":
        page.unlink()
    elif move == "rm-cached":
        git(w.root, "rm", "-q", "--cached", "wiki/entities/acme.md")  # the index alone changes
    elif move == "add":
        page.write_text("# acme\n\nstaged\n")
        w.ask()  # seen as edited; now only the index changes
        git(w.root, "add", "wiki/entities/acme.md")
    elif move == "commit":
        page.write_text("# acme\n\ncommitted by a person\n")
        git(w.root, "-c", "user.name=P", "-c", "user.email=p@e", "commit", "-qam", "person")
    elif move == "reset":
        w.write("wiki/entities/acme.md", "# acme\n\nsecond\n")
        w.commit(["wiki/entities/acme.md"])
        w.ask()
        git(w.root, "reset", "-q", "HEAD~1", "--", "wiki/entities/acme.md")  # index back, file and HEAD kept
    elif move == "attributes":
        (w.root / ".gitattributes").write_text("*.md text eol=crlf\n")
    elif move == "config":
        git(w.root, "config", "core.autocrlf", "true")
    got, runs = w.ask()
    assert runs >= 1 and got == w.truth()
    if move not in ("attributes", "config", "commit"):  # a person's commit leaves the page clean
        assert got["wiki/entities/acme.md"] != ""


def test_without_the_kernels_word_git_is_asked_every_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STIGMERGY_WATCH", "0")
    w = Wiki(tmp_path / "wiki")
    assert w.ask()[1] == 1 and w.ask()[1] == 1


def test_untracked_answers_are_not_kept(tmp_path: Path) -> None:
    """Whether an untracked page is ignored reads .gitignore files, which nothing watches: asked each time."""
    w = Wiki(tmp_path / "wiki")
    w.write("wiki/notes/loose.md", "# loose\n")
    paths = (*PAGES, "wiki/notes/loose.md")
    assert w.ask(paths)[0]["wiki/notes/loose.md"] == "??"
    (w.root / ".gitignore").write_text("wiki/notes/loose.md\n")
    got, runs = w.ask(paths)
    assert runs >= 1 and got == w.truth(paths)


def test_a_random_run_of_plans_commits_and_peoples_moves_always_answers_as_git(tmp_path: Path) -> None:
    w = Wiki(tmp_path / "wiki")
    rng = random.Random(27)
    kept = 0
    for step in range(60):
        page = rng.choice(PAGES)
        roll = rng.random()
        if roll < 0.35:
            w.write(page, f"# {page}\n\nstigmergy {step}\n")
            if w.truth((page,))[page] in ("", " M", "M ", "MM"):
                w.commit([page])
        elif roll < 0.5:
            w.write(page, f"# {page}\n\nperson {step}\n")
        elif roll < 0.6:
            git(w.root, "add", "--", page)
        elif roll < 0.65:
            git(w.root, "checkout", "-q", "--", page)
        elif roll < 0.7:
            git(w.root, "-c", "user.name=P", "-c", "user.email=p@e", "commit", "-qam", f"person {step}", "--allow-empty")
        got, runs = w.ask()
        kept += runs == 0
        assert got == w.truth(), step
    assert kept >= 10  # the answers were kept at times, not asked afresh every step

