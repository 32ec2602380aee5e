"""Which lines of a page a person wrote (gate 8, `human-line`).

Stigmergy's commits carry the trailer `Stigmergy-Operation: <op-id>`. A line is human when `git blame`
attributes it to a commit without that trailer, or to the working tree (an uncommitted edit); every line
of a file git does not track is human.

The common case is cheap: when every commit that ever touched the file carries the trailer and the
working file equals HEAD, no line can be human and blame is skipped. `prefetch` answers that for many
files with two git processes in total (`git status` and one `git log`), whatever their number.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from stigmergy.repo.git import Git, GitError

TRAILER = "Stigmergy-Operation"
KIND_TRAILER = "Stigmergy-Kind"
_ZERO = "0" * 40
_TRAILER_FMT = f"%(trailers:key={TRAILER},valueonly,separator=%x2C)"


class Authorship:
    def __init__(self, root: Path, git: Git | None = None) -> None:
        self.root = Path(root)
        self.git = git or Git(self.root)
        self._status: dict[str, str] = {}  # relpath -> porcelain XY ('??' untracked); absent = clean
        self._commits: dict[str, list[str]] = {}  # relpath -> commits that touched it
        self._ours: dict[str, bool] = {}  # commit -> carries the trailer
        self._known: set[str] = set()
        self._cache: dict[str, frozenset[int]] = {}
        self._is_repo: bool | None = None
        self.blame_runs = 0
        self.fast_hits = 0

    def _repo(self) -> bool:
        if self._is_repo is None:
            self._is_repo = self.git.run("rev-parse", "--is-inside-work-tree", check=False).strip() == "true"
        return self._is_repo

    def prefetch(self, relpaths: Iterable[str]) -> None:
        """Learn status and commit history for these files in one batch."""
        paths = [p for p in dict.fromkeys(relpaths) if p not in self._known and (self.root / p).is_file()]
        if not paths or not self._repo():
            self._known.update(paths)
            return
        out = self.git.run_bytes(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching", "--", *paths
        )
        for entry in out.split(b"\0"):
            if len(entry) > 3:
                self._status[entry[3:].decode("utf-8", "surrogateescape")] = entry[:2].decode()
        if self.git.head() is not None:
            log = self.git.run(
                "-c", "core.quotePath=false", "log", f"--format=%x1e%H%x1f{_TRAILER_FMT}%x1f", "--name-only",
                "--no-renames", "--", *paths,
            )
            wanted = set(paths)
            for chunk in log.split("\x1e")[1:]:
                sha, trailers, names = chunk.split("\x1f", 2)
                self._ours[sha] = bool(trailers.strip())
                for name in names.split("\n"):
                    if name in wanted:
                        self._commits.setdefault(name, []).append(sha)
        self._known.update(paths)

    def _load_trailers(self, shas: Iterable[str]) -> None:
        missing = [s for s in set(shas) if s not in self._ours and s != _ZERO]
        if not missing:
            return
        out = self.git.run("show", "-s", f"--format=%H%x1f{_TRAILER_FMT}%x1e", *missing)
        for chunk in out.split("\x1e"):
            chunk = chunk.strip("\n")
            if "\x1f" in chunk:
                sha, trailers = chunk.split("\x1f", 1)
                self._ours[sha] = bool(trailers.strip())

    def human_lines(self, relpath: str) -> frozenset[int]:
        """1-based line numbers of the working file `relpath` last written by a person (empty if absent)."""
        if relpath in self._cache:
            return self._cache[relpath]
        path = self.root / relpath
        if not path.is_file():
            return frozenset()
        self.prefetch([relpath])
        if not self._repo():
            # No history to tell people from stigmergy: every line is treated as a person's.
            result = frozenset(range(1, _line_count(path) + 1))
        elif self._status.get(relpath) in ("??", "!!") or not self._commits.get(relpath):
            result = frozenset(range(1, _line_count(path) + 1))
        elif relpath not in self._status and all(self._ours.get(c, False) for c in self._commits[relpath]):
            self.fast_hits += 1
            result = frozenset()
        else:
            result = self._blame(relpath)
        self._cache[relpath] = result
        return result

    def _blame(self, relpath: str) -> frozenset[int]:
        self.blame_runs += 1
        try:
            out = self.git.run("blame", "--porcelain", "--", relpath)
        except GitError:
            return frozenset(range(1, _line_count(self.root / relpath) + 1))
        owners: dict[int, str] = {}
        for line in out.split("\n"):
            if not line or line[0] == "\t":
                continue
            parts = line.split(" ")
            if len(parts) >= 3 and len(parts[0]) == 40 and parts[1].isdigit() and parts[2].isdigit():
                # Porcelain gives every final line its own header line.
                owners[int(parts[2])] = parts[0]
        self._load_trailers(owners.values())
        return frozenset(n for n, sha in owners.items() if sha == _ZERO or not self._ours.get(sha, False))


def _line_count(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
