"""Thin wrapper over the git CLI. Subprocess git is faster than GitPython's index commits (22 ms vs 56–93 ms
per commit measured here) and behaves exactly like the user's own git."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from stigmergy.errors import StigmergyError


class GitError(StigmergyError):
    pass


class Git:
    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.root = Path(root)
        self._env = dict(os.environ)
        # Our own commits must never trigger interactive editors or pagers.
        self._env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat"})
        if env:
            self._env.update(env)

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> str:
        return self.run_bytes(*args, input=input, check=check, env=env).decode("utf-8", "surrogateescape")

    def run_bytes(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> bytes:
        full_env = self._env if not env else {**self._env, **env}
        proc = subprocess.run(
            ["git", *args],
            cwd=self.root,
            input=input,
            capture_output=True,
            env=full_env,
        )
        if check and proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise GitError(f"git {' '.join(args[:3])} failed: {err}")
        return proc.stdout

    def ok(self, *args: str) -> bool:
        """True when the git command exits 0 (for predicates such as `merge-base --is-ancestor`)."""
        return subprocess.run(["git", *args], cwd=self.root, capture_output=True, env=self._env).returncode == 0

    def fast_head(self) -> str | None:
        """HEAD's commit id read from the files under .git (no subprocess); anything unusual (a worktree's
        .git file, a detached state we cannot parse) asks git."""
        gitdir = self.root / ".git"
        try:
            ref = (gitdir / "HEAD").read_text().strip()
            if not ref.startswith("ref: "):
                return ref if len(ref) == 40 else self.head()
            name = ref[5:]
            loose = gitdir / name
            if loose.is_file():
                return loose.read_text().strip()
            for line in (gitdir / "packed-refs").read_text().splitlines():
                if line.endswith(" " + name):
                    return line.split(" ", 1)[0]
            return None  # unborn branch
        except OSError:
            return self.head()

    def head(self) -> str | None:
        out = subprocess.run(
            ["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=self.root, capture_output=True, env=self._env
        )
        return out.stdout.decode().strip() or None

    def ls_files(self, *pathspec: str) -> list[str]:
        out = self.run_bytes("ls-files", "-z", "--", *pathspec)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def status_porcelain(self, *pathspec: str) -> list[str]:
        out = self.run_bytes("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *pathspec)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def commit_paths(
        self,
        paths: Sequence[str],
        message: str,
        author_name: str,
        author_email: str,
        removed: Sequence[str] = (),
    ) -> str:
        """Commit exactly `paths` (added or modified) and `removed`, leaving anything else the user staged alone."""
        env = {
            "GIT_AUTHOR_NAME": author_name,
            "GIT_AUTHOR_EMAIL": author_email,
            "GIT_COMMITTER_NAME": author_name,
            "GIT_COMMITTER_EMAIL": author_email,
        }
        all_paths = [*paths, *removed]
        if paths:
            self.run("add", "-f", "--", *paths)
        if removed:
            self.run("rm", "-q", "--cached", "--ignore-unmatch", "--", *removed)
        self.run(
            "commit", "-q", "--no-verify", "--allow-empty-message", "-F", "-", "--only", "--", *all_paths,
            input=message.encode("utf-8"), env=env,
        )
        head = self.fast_head()
        assert head is not None
        return head


def blob_sha(data: bytes) -> str:
    """The object id git gives `data` as a blob: lets us tell 'this file is exactly what we wrote' cheaply."""
    import hashlib

    h = hashlib.sha1(f"blob {len(data)}\0".encode())
    h.update(data)
    return h.hexdigest()
