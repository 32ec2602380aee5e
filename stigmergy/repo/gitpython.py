"""GitPython where a process lives long enough to repay its import (repo/git.py says why the CLI does not).

`LongLivedGit` is a `Git` whose object reads go through GitPython's persistent `git cat-file --batch`
process (one per repository object, kept while it lives) and whose tree listings and HEAD are read by
GitPython in-process: a history walk that reads one blob or one tree listing per commit (the human-line
history audit, the pre-receive gate: `gates/history.py`'s `read_tree` and `_source_of`) pays one pipe
round trip per read instead of one `git` process. Everything else (commits, diffs, rev-list, merge-tree)
is the same `git` binary as `Git`, so both behave alike; `tests/test_gitpython.py` holds them equal.

Who uses it: the MCP server's service (`WikiService(..., long_lived=True)`), and `gates/history.walker`
for an audit of at least `WALK_THRESHOLD` commits. `bench/history_git.py` measures it beside the binary.
GitPython is imported on first use, never by `import stigmergy.repo.gitpython`."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stigmergy.repo.git import Git

# An audit of this many commits or more walks with GitPython: below it the import costs more than the
# processes it saves. bench/history_git.py, each walk in a fresh process: at load 2-3 the import cost 0.3 s
# and saved 3.4 ms a capture commit (break-even ~90 commits; 81 commits: 1.02x, 10 commits: 1.26x); at load
# 11 process starts cost more (10 ms saved a commit; 81 commits: 0.93x). Set from the quiet figure.
WALK_THRESHOLD = 100
# More objects than this in one `blobs` call go through one process of the binary instead.
BULK = 32


class LongLivedGit(Git):
    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        super().__init__(root, env)
        self._repo: Any = None
        # GitPython's persistent cat-file is one pipe: a server's threads take turns on it.
        self._lock = threading.RLock()

    @property
    def repo(self) -> Any:
        """The GitPython `Repo` (imported and opened on first use)."""
        if self._repo is None:
            import git as gitpython  # GitPython: deferred, it costs 0.1-0.2 s to import

            self._repo = gitpython.Repo(self.root)
            # The same environment as the binary's commands (no prompts, no pager), for its own processes too.
            self._repo.git.update_environment(**{k: self._env[k] for k in ("GIT_TERMINAL_PROMPT", "GIT_PAGER")})
        return self._repo

    def blobs(self, oids: Sequence[str], keep: bool = False) -> dict[str, bytes]:
        """As `Git.blobs`: a few objects through the persistent `cat-file --batch` process (no process per
        call); many at once through one `git cat-file --batch` of the binary, whose single pipe read beats
        GitPython's round trip per object (bench/history_git.py)."""
        if len(oids) > BULK:
            return super().blobs(oids, keep)
        out: dict[str, bytes] = {}
        with self._lock:
            return self._blobs(oids, out)

    def _blobs(self, oids: Sequence[str], out: dict[str, bytes]) -> dict[str, bytes]:
        cmd = self.repo.git
        for oid in oids:
            if "\n" in oid:
                continue  # one request a line: a name with a newline is no object (the binary finds none either)
            try:
                _sha, kind, _size, data = cmd.get_object_data(oid)
            except ValueError:  # missing: cat-file answered "<oid> missing" and the stream stays in step
                continue
            out[oid] = data  # GitPython answers bytes: (sha, type, size, data)
        return out

    def is_commit(self, oid: str) -> bool:
        if "\n" in oid:
            return False
        with self._lock:
            try:
                return bool(self.repo.git.get_object_header(oid)[1] == b"commit")
            except ValueError:
                return False

    def tree_names(self, commit: str, *tops: str) -> list[str]:
        """As `Git.tree_names`, read in-process from the commit's trees (one cat-file round trip a tree)."""
        if commit != commit.strip():
            return []  # GitPython would strip it; the binary names no such object
        with self._lock:
            from gitdb.exc import ODBError  # GitPython's object layer

            try:  # a full id is looked up lazily: a missing one fails on its first attribute
                obj = self.repo.rev_parse(commit)
                if obj.type == "commit":
                    tree = obj.tree
                elif obj.type == "tree":  # a bare tree id: give it the root path its entries are named from
                    tree = type(obj)(self.repo, obj.binsha, mode=0o40000, path="")
                else:
                    return []
                return self._names(tree, tops)
            except (ValueError, LookupError, ODBError):
                return []

    @staticmethod
    def _names(tree: Any, tops: tuple[str, ...]) -> list[str]:
        names: list[str] = []
        for top in tops:
            try:
                sub = tree / top
            except KeyError:
                continue
            if sub.type == "blob":
                names.append(sub.path)
                continue
            names.extend(item.path for item in sub.traverse() if item.type != "tree")  # type: ignore[union-attr]
        return sorted(set(names))

    def close(self) -> None:
        """End GitPython's persistent processes (also done when the object is collected)."""
        with self._lock:
            if self._repo is not None:
                self._repo.close()
                self._repo = None


def walker(root: Path, commits: int) -> Git:
    """The Git a walk over `commits` commits should use: GitPython's at or past `WALK_THRESHOLD`."""
    return LongLivedGit(root) if commits >= WALK_THRESHOLD else Git(root)


def close_walker(git: Git) -> None:
    if isinstance(git, LongLivedGit):
        git.close()


__all__ = ["WALK_THRESHOLD", "LongLivedGit", "close_walker", "walker"]
