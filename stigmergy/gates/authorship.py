"""Which lines of a page a person wrote (gate 8, `human-line`).

Stigmergy's commits carry the trailer `Stigmergy-Operation: <op-id>`. A line is human when `git blame`
attributes it to a commit without that trailer, or to the working tree (an uncommitted edit); every line
of a file git does not track is human.

The common case is cheap: when every commit that ever touched the file carries the trailer and the
working file equals HEAD, no line can be human and blame is skipped. `prefetch` answers that for many
files with a few git processes in total (`git rev-parse`, `git status`, and `git log`), whatever their
number.

Which commits touched a file is a function of the commit HEAD names (commits never change), so it is kept
in a `CommitHistory` the caller owns (the write path keeps one per `Repository`): when HEAD moves on, only
the new commits are read (`git log --boundary <new> ^<old>`, which also proves that the old HEAD is an ancestor; otherwise,
after a reset or an amend, everything is read again). Filing a folder of captures then costs a few
milliseconds per plan instead of a walk of the whole history. The working tree is asked afresh each time.

Between processes (a hook or a cron job files one document per process): which files people's commits touched,
complete as of a HEAD, is kept at the process's exit (repo/page_memo.py, `.stigmergy/memo/`), and the next
process starts from it as from its own last HEAD: the same `--boundary` walk of the commits since then, which
also proves that commit an ancestor of the new HEAD (else everything is read again). A new process after
2,000 commits then reads the commits since the last process, not all of them (`git log` over 2,000 commits:
~25 ms of git's CPU and as much of Python's). Not kept where the history can change under a commit id:
a shallow clone (a fetch adds older commits), grafts or replace refs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from stigmergy.gates.worktree import Worktree, after_commit
from stigmergy.repo import page_memo, watch
from stigmergy.repo.git import Git, GitError, is_oid
from stigmergy.repo.plumbing import Landed, state_stamp
from stigmergy.repo.trailers import HISTORY_FORMAT, TRAILER_KIND, TRAILER_OP, trailer_format
from stigmergy.repo.watch import folder_of

_ZERO = "0" * 40
_KEPT = "human-commits"  # what a process keeps for the next (repo/page_memo.py)
_KEPT_VERSION = 1  # raised whenever what counts as a person's commit changes
_TRAILER_FMT = trailer_format(TRAILER_OP)
_LOG_FMT = f"--format=%x1e%m%H%x1f{_TRAILER_FMT}%x1f"
RELINKING_KINDS = ("garden", "delete", "merge", "rename")


class CommitHistory:
    """The commits that touched each file (complete as of `head`) and which commits carry the trailer.

    Owned by whoever outlives one plan: the write path keeps one per `Repository` (a `CommitObserver`
    there, so each of stigmergy's own commits is recorded as it lands); an `Authorship` made without one
    starts afresh."""

    def __init__(self) -> None:
        self.head: str | None = None
        self.commits: dict[str, list[str]] = {}  # relpath -> commits that touched it ([] = none)
        self.ours: dict[str, bool] = {}  # commit -> carries the trailer
        # relpath -> the commits without the trailer (a person's) that touched it, complete as of `head`;
        # None until first needed. One walk of the commit list gives it for every file at once, so a
        # file seen for the first time costs a lookup, not a `git log -- <file>` over the whole history.
        self.human: dict[str, list[str]] | None = None
        self.human_complete = False  # `human` covers every file (not only the walk's folders): it may be kept
        # What `git status` said of the pages asked about, while it holds (gates/worktree.py); None: nothing kept.
        self.worktree: Worktree | None = None
        self.lock = threading.Lock()

    def record_commit(self, parent: str | None, commit: str, paths: Iterable[str]) -> None:
        """Stigmergy itself just committed `commit` on top of `parent`, touching `paths`, with the
        operation trailer: exactly what `git log` would report, so the next plan need not ask git.
        Ignored unless the history is at `parent` (otherwise the next plan reads the log)."""
        with self.lock:
            if parent is None or self.head != parent:
                return
            self.ours[commit] = True
            for path in paths:
                if path in self.commits:
                    self.commits[path].append(commit)
            self.head = commit

    def record_worktree(self, root: Path, parent: str | None, landed: Landed | None, paths: Iterable[str]) -> None:
        """Stigmergy committed `paths` on `parent` (`landed`: what the plumbing commit knew of it, None when the
        porcelain made it): keep the status answers that still hold."""
        with self.lock:
            self.worktree = after_commit(self.worktree, root, parent, landed, list(paths))


def _log_chunks(out: str) -> Iterable[tuple[str, str, bool, list[str]]]:
    """(mark, sha, carries the trailer, file names) per commit of `git log` run with _LOG_FMT."""
    for chunk in out.split("\x1e")[1:]:
        head, trailers, names = chunk.split("\x1f", 2)
        yield head[:1], head[1:], bool(trailers.strip()), names.split("\n")


class Authorship:
    def __init__(self, root: Path, git: Git | None = None, history: CommitHistory | None = None,
                 walk: tuple[str, ...] = ()) -> None:
        self.root = Path(root)
        self.git = git or Git(self.root)
        # Folders (`wiki`, `layers`) whose files' commit lists may be read from the walk of their history
        # that the curation record reads too (Git.history_changes), while every file asked about lies in
        # them and the history has no merge: see `_from_walk`.
        self._walk = walk
        self._walked = False
        self._status: dict[str, str] = {}  # relpath -> porcelain XY ('??' untracked); absent = clean
        self._history = history if history is not None else CommitHistory()
        self._commits = self._history.commits  # relpath -> commits that touched it
        self._ours = self._history.ours  # commit -> carries the trailer
        self._known: set[str] = set()
        self._asked: set[str] = set()  # paths `git status` was asked about (their XY, if any, in _status)
        self._cache: dict[str, frozenset[int]] = {}
        self._is_repo: bool | None = None
        self.blame_runs = 0
        self.fast_hits = 0

    def _repo(self) -> bool:
        if self._is_repo is None:
            self._is_repo = self.git.run("rev-parse", "--is-inside-work-tree", check=False).strip() == "true"
        return self._is_repo

    def _repo_and_head(self) -> str | None:
        """HEAD's commit (None without one), learning whether this is a work tree. A plain `.git` folder
        at the root answers both from files (no process per plan); anything else asks git once."""
        if (self.root / ".git").is_dir():
            self._is_repo = True
            return self.git.fast_head()
        lines = self.git.run("rev-parse", "--is-inside-work-tree", "--verify", "-q", "HEAD", check=False).split()
        if self._is_repo is None:
            self._is_repo = bool(lines) and lines[0] == "true"
        return lines[1] if len(lines) > 1 and self._is_repo else None

    def prefetch(self, relpaths: Iterable[str], also_status: Iterable[str] = ()) -> None:
        """Learn status and commit history for these files in one batch; `also_status` are paths (present
        or not) whose working-tree status is wanted too, asked in the same `git status` (see `changed`)."""
        paths = [p for p in dict.fromkeys(relpaths) if p not in self._known and (self.root / p).is_file()]
        if not paths:
            return
        head = self._repo_and_head()
        if not self._repo():
            self._known.update(paths)
            return
        asked = [p for p in dict.fromkeys([*paths, *also_status]) if p not in self._asked]
        if asked:
            self._ask_status(asked, head)
            self._asked.update(asked)
        if head is not None:
            with self._history.lock:
                history = self._history
                if history.head is None and history.human is None and not history.commits:
                    self._resume()
                self._advance(head)
                if self._walked and not all(self._in_walk(p) for p in paths):
                    # Read from the walk of `_walk` only: a file outside it needs the whole history.
                    self._history.human = None
                    self._history.commits.clear()
                    self._walked = False
                if self._history.human is None and all(self._in_walk(p) for p in paths):
                    self._from_walk(head)
                human = self._human_commits(head)
                # A file only stigmergy ever committed, unchanged since, needs no per-file history: its
                # lines are all stigmergy's. The others (a person's commit touched it, or it differs from
                # HEAD) get their commit list, for blame.
                self._log(head, [p for p in paths if p not in self._commits and (p in human or p in self._status)])
        self._known.update(paths)

    def _in_walk(self, relpath: str) -> bool:
        return any(relpath == top or relpath.startswith(top + "/") for top in self._walk)

    def _from_walk(self, head: str) -> None:
        """Which files people's commits touched, and every commit of each file, from one walk of the history
        of `_walk` (Git.history_changes, shared with the curation record), where `_human_commits` and `_log`
        run three walks: answers the same for files in those folders when no commit is a merge (then a
        file's commits are those whose changes list it; `git log -- FILE` simplifies merges otherwise)."""
        history = self._history
        if not self._walk or history.commits or history.head != head:
            return
        if self.git.run("rev-list", "--min-parents=2", "--max-count=1", head, check=False).strip():
            return
        human: dict[str, list[str]] = {}
        commits: dict[str, list[str]] = {}
        for header, _merge, entries in self.git.history_changes(HISTORY_FORMAT, *self._walk):
            fields = header.split("\x1f")
            sha, ours = fields[0], bool(fields[-2].strip()) if len(fields) > 2 else False
            history.ours[sha] = ours
            for e in entries:
                path = str(e["path"])
                commits.setdefault(path, []).append(sha)
                if not ours:
                    human.setdefault(path, []).append(sha)
        history.human = human
        history.human_complete = False  # the walk's folders only: never kept for another process
        history.commits.update(commits)
        self._walked = True

    def _advance(self, head: str) -> None:
        """Bring the per-file commit lists from the last HEAD seen to `head`, reading only new commits."""
        history = self._history
        if history.head == head:
            return
        old, history.head = history.head, head
        if old is None or (not history.commits and history.human is None):
            history.human = None
            return
        out = self.git.run(
            "-c", "core.quotePath=false", "log", _LOG_FMT, "--name-only", "--no-renames", "--boundary",
            head, f"^{old}", check=False,
        )
        chunks = list(_log_chunks(out))
        if not any(mark == "-" and sha == old for mark, sha, _, _ in chunks):
            history.commits.clear()  # the old HEAD is not an ancestor (reset, amend): start again
            history.human = None
            return
        for mark, sha, ours, names in chunks:
            if mark == "-":
                continue
            history.ours[sha] = ours
            for name in names:
                if name in history.commits:
                    history.commits[name].append(sha)
                if not ours and history.human is not None and name:
                    history.human.setdefault(name, []).append(sha)

    def _human_commits(self, head: str) -> dict[str, list[str]]:
        """Which files a person's commit (one without the trailer) touched, up to `head`: the commit list
        is walked once (no diffs), then only those commits' file names are read."""
        history = self._history
        if history.human is None:
            out = self.git.run("log", f"--format=%x1e%H%x1f{_TRAILER_FMT}", head, check=False)
            people = []
            for chunk in out.split("\x1e")[1:]:
                sha, _, trailers = chunk.partition("\x1f")
                ours = bool(trailers.strip())
                history.ours[sha] = ours
                if not ours:
                    people.append(sha)
            human: dict[str, list[str]] = {}
            for i in range(0, len(people), 200):
                names = self.git.run(
                    "-c", "core.quotePath=false", "show", "--format=%x1e%m%H%x1f%x1f", "--name-only", "--no-renames",
                    *people[i : i + 200],
                )
                for _, sha, _, files in _log_chunks(names):
                    for name in files:
                        if name:
                            human.setdefault(name, []).append(sha)
            history.human = human
            history.human_complete = True
            self._keep_at_exit()
        return history.human

    def _plain_history(self) -> bool:
        """Whether a commit id here always names the same history: no shallow clone, grafts or replace refs."""
        git_dir = self.root / ".git"
        if not git_dir.is_dir() or (git_dir / "shallow").exists() or (git_dir / "info" / "grafts").exists():
            return False
        replace = git_dir / "refs" / "replace"
        if replace.is_dir() and any(replace.iterdir()):
            return False
        try:
            return b"refs/replace/" not in (git_dir / "packed-refs").read_bytes()
        except FileNotFoundError:
            return True
        except OSError:
            return False

    def _resume(self) -> None:
        """Start from what an earlier process kept: which files people's commits touched, complete as of its
        last HEAD (`_advance` then reads only the commits since, and proves that HEAD an ancestor)."""
        kept = page_memo.read_value(self.root, _KEPT)
        if not (isinstance(kept, dict) and kept.get("v") == _KEPT_VERSION and self._plain_history()):
            return
        head, human = kept.get("head"), kept.get("human")
        if not (isinstance(head, str) and is_oid(head) and isinstance(human, dict)):
            return
        out: dict[str, list[str]] = {}
        for name, shas in human.items():
            if not (isinstance(name, str) and isinstance(shas, list) and all(isinstance(x, str) and is_oid(x) for x in shas)):
                return
            out[name] = list(shas)
        history = self._history
        history.head, history.human, history.human_complete = head, out, True
        self._keep_at_exit()

    def _keep_at_exit(self) -> None:
        history = self._history

        def produce() -> dict[str, object] | None:
            if history.head is None or history.human is None or not history.human_complete:
                return None
            if not self._plain_history():
                return None
            return {"v": _KEPT_VERSION, "head": history.head, "human": history.human}

        page_memo.keep_at_exit(self.root, _KEPT, produce)

    def _log(self, head: str, paths: list[str]) -> None:
        if not paths:
            return
        log = self.git.run(
            "-c", "core.quotePath=false", "log", _LOG_FMT, "--name-only", "--no-renames", head, "--", *paths
        )
        wanted = set(paths)
        for path in paths:
            self._commits[path] = []
        for _, sha, ours, names in _log_chunks(log):
            self._ours[sha] = ours
            for name in names:
                if name in wanted:
                    self._commits[name].append(sha)

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

    def _ask_status(self, asked: list[str], head: str | None) -> None:
        """`git status` of `asked` into `_status`, less what the kept answers still say (gates/worktree.py).
        Only a file on disk that the index lacks can be untracked or ignored, and finding those costs git a
        read of each folder asked about (`wiki/notes/` holds a page per capture); so where an asked file on
        disk is one HEAD's tree holds (the commit's kept model, `Plumbing.tracked`), git is asked without that
        walk, and again with it only for such a file the index no longer holds (status `D `: a person's `git
        rm --cached`), as one status would say. Without the preload threads either (one per 500 index
        entries): the answer is the same. Where the kernel can watch a page's folder, the first ask once this
        process holds HEAD's tree takes the folder whole, so that later pages of it need no git at all."""
        on_disk = {p for p in asked if os.path.lexists(self.root / p)}
        order = sorted(on_disk)
        tracked = self.git.plumbing.tracked(head, order) if head is not None else None
        in_head: dict[str, bool] = dict(zip(order, tracked, strict=True)) if tracked is not None else {}
        stamp = state_stamp(self.root) if head is not None and (self.root / ".git").is_dir() else None
        marks: dict[str, watch.Mark | None] = {}
        whole: list[str] = []
        with self._history.lock:
            kept = self._history.worktree
            if kept is not None and (stamp is None or kept.head != head or kept.stamp != stamp):
                kept = self._history.worktree = None
            if kept is not None:
                kept.advance(self.root)
                left = []
                for p in asked:
                    got = kept.known(p, p in on_disk, in_head.get(p))
                    if got is None:
                        left.append(p)
                    elif got:
                        self._status[p] = got
                asked = left
            if stamp is not None:
                # Marks before git looks: a write after them is named at the next ask.
                for folder in {folder_of(p) for p in asked}:
                    mark = kept.marks.get(folder) if kept is not None else None
                    marks[folder] = mark if mark is not None else watch.mark(self.root / folder)
                    if folder and marks[folder] is not None and (kept is None or folder not in kept.whole):
                        whole.append(folder)
        if not asked:
            return
        # Paths and folders as they are named: no glob, no `:(…)` magic in a page's name.
        status = ("--literal-pathspecs", "-c", "core.preloadIndex=false", "status", "--porcelain=v1", "-z")
        # Without this process's model of HEAD's tree (its first plan, before a commit of its own), which asked page
        # is tracked is not known here: one status with the untracked walk answers all of them, as before.
        walk = [p for p in order if p in asked and not in_head.get(p, False)] if tracked is not None else list(asked)
        tracked_asked = [p for p in asked if p not in walk]
        listed: dict[str, str] = {}
        if tracked_asked:
            specs = [*whole, *(p for p in tracked_asked if folder_of(p) not in whole)]
            listed = self._status_entries(*status, "--untracked-files=no", "--", *specs)
            for p in tracked_asked:
                if p in listed:
                    self._status[p] = listed[p]
            walk += [p for p in tracked_asked if p in on_disk and listed.get(p, " ")[0] == "D"]
        if walk:
            for p in walk:
                self._status.pop(p, None)
            self._status.update(self._status_entries(*status, "--untracked-files=all", "--ignored=matching", "--", *walk))
        if stamp is None or head is None or state_stamp(self.root) != stamp:
            return  # something wrote the index or a setting meanwhile: nothing asked now is kept
        with self._history.lock:
            kept = self._history.worktree
            if kept is None:
                kept = self._history.worktree = Worktree(head, stamp)
            if kept.head == head and kept.stamp == stamp:
                if tracked_asked:
                    for folder in whole:
                        kept.keep_folder(folder, listed, marks.get(folder))
                for p in asked:
                    kept.keep(p, self._status.get(p, ""), marks.get(folder_of(p)))

    def _status_entries(self, *args: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for entry in self.git.run_bytes(*args).split(b"\0"):
            if len(entry) > 3:
                out[entry[3:].decode("utf-8", "surrogateescape")] = entry[:2].decode()
        return out

    def changed(self, relpaths: Iterable[str]) -> list[str] | None:
        """Those of `relpaths` whose working file or index differs from HEAD (untracked ones included, ignored
        ones not: what `git status` without --ignored lists), as prefetch's `git status` saw them; None when
        one of them was not asked about there (the caller asks git itself)."""
        paths = list(dict.fromkeys(relpaths))
        if not all(p in self._asked for p in paths):
            return None
        return sorted(p for p in paths if self._status.get(p, "!!") != "!!")

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
        elif self._status.get(relpath) in ("??", "!!"):
            result = frozenset(range(1, _line_count(path) + 1))
        elif relpath not in self._status and self._history.human is not None and relpath not in self._history.human:
            # Clean and tracked, and no person's commit ever touched it (prefetch read its history only
            # otherwise): every line is stigmergy's.
            self.fast_hits += 1
            result = frozenset()
        elif not self._commits.get(relpath):
            result = frozenset(range(1, _line_count(path) + 1))
        elif relpath not in self._status and all(self._ours.get(c, False) for c in self._commits[relpath]):
            self.fast_hits += 1
            result = frozenset()
        else:
            result = self._blame(relpath)
        self._cache[relpath] = result
        return result

    def body_untouched_by_people(self, relpaths: Iterable[str]) -> set[str]:
        """Of these files, those where blame could give a person no line below the front matter: clean
        in the work tree, and every commit without the trailer that touched one (or a file blame follows
        it back to) changed front matter only, as a person's alias edit does. Answered with a few git
        processes for all of them (one log of the wiki's folders, one read of the blobs), where blame takes
        two per file; `carry.human_lines` wants body lines only, and skips blame for these.

        Conservative, so that what blame would say is never changed; a file is left out (and blamed) when
        a person's commit added or deleted it or changed its body, or when a commit that blame looks
        through (RELINKING_KINDS: it hands the lines that commit changed to nearby lines of its parent)
        came after a person's commit. Blame follows a file back through the commit that added it to any
        file that commit deleted (a rename): those files' commits are judged with it (and a file whose
        history leads out of `wiki/` and `layers/` is blamed)."""
        paths = [p for p in dict.fromkeys(relpaths) if (self.root / p).is_file()]
        self.prefetch(paths)
        paths = [p for p in paths if p not in self._status and self._commits.get(p)
                 and not all(self._ours.get(c, False) for c in self._commits[p])]
        if not paths:
            return set()
        commits = self._changes(["wiki", "layers"])  # every commit that touched a page, with all it changed
        touched: dict[str, list[int]] = {}
        added_with: dict[str, list[set[str]]] = {}  # path -> what each commit that added it deleted
        for i, c in enumerate(commits):
            for path, (status, _, _) in c.changed.items():
                touched.setdefault(path, []).append(i)
                if status == "A":
                    added_with.setdefault(path, []).append({q for q, v in c.changed.items() if v[0] == "D"})
        pairs: dict[str, list[tuple[str, str]]] = {}
        for rel in paths:
            names, todo = {rel}, [rel]
            while todo:  # the files blame may follow this one back to
                for deleted in added_with.get(todo.pop(), []):
                    todo += [q for q in deleted if q not in names]
                    names |= deleted
            if any(not n.startswith(("wiki/", "layers/")) for n in names):
                continue  # history outside the wiki's folders was not read
            touching = [commits[i] for i in sorted({i for n in names for i in touched.get(n, [])})]
            people = [i for i, c in enumerate(touching) if not c.ours]
            if not people or any(c.ours and c.kind in RELINKING_KINDS for c in touching[: max(people)]):
                continue
            changes = [touching[i].changed[n] for i in people for n in names & touching[i].changed.keys()]
            if all(status == "M" for status, _, _ in changes):
                pairs[rel] = [(before, after) for _, before, after in changes]
        blobs = self.git.blobs(sorted({oid for pair in pairs.values() for both in pair for oid in both}), keep=True)
        return {rel for rel, pair in pairs.items()
                if all(_body(blobs.get(a)) is not None and _body(blobs.get(a)) == _body(blobs.get(b)) for a, b in pair)}

    def _changes(self, paths: list[str]) -> list[_Change]:
        """Every commit that touched `paths`, newest first (parents after children), with all it changed
        (a merge: against its first parent). The walk the curation record is read from (HISTORY_FORMAT):
        a recompile reads both, and git walks the history once."""
        out = []
        for head, _merge, entries in self.git.history_changes(HISTORY_FORMAT, *paths):
            fields = head.split("\x1f")
            sha, op, kind = fields[0], fields[-2] if len(fields) > 2 else "", fields[-1] if len(fields) > 1 else ""
            changed = {str(e["path"]): (str(e["status"]), str(e["before"] or _ZERO), str(e["after"] or _ZERO))
                       for e in entries}
            out.append(_Change(sha.strip("\0\n "), bool(op.strip()), kind.strip(), changed))
        return out

    def _relinking_commits(self, relpath: str) -> list[str]:
        """Our commits to `relpath` that only re-point or unlink links and drop or move lines (garden,
        delete, merge, rename): blame looks through them, so a person's line whose dead link garden made
        plain text is still that person's line."""
        commits = [c for c in self._commits.get(relpath, []) if self._ours.get(c, False)]
        if not commits:
            return []
        out = self.git.run("show", "-s", f"--format=%H%x1f{trailer_format(TRAILER_KIND)}%x1e", *commits)
        picked = []
        for chunk in out.split("\x1e"):
            sha, _, kind = chunk.strip("\n").partition("\x1f")
            if kind.strip() in RELINKING_KINDS:
                picked.append(sha)
        return picked

    def _blame(self, relpath: str) -> frozenset[int]:
        self.blame_runs += 1
        try:
            ignore = [f"--ignore-rev={c}" for c in self._relinking_commits(relpath)]
            out = self.git.run("blame", "--porcelain", *ignore, "--", relpath)
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


@dataclass(frozen=True)
class _Change:
    sha: str
    ours: bool  # carries the operation trailer
    kind: str
    changed: dict[str, tuple[str, str, str]]  # path -> (status A|M|D|..., blob before, blob after)


def _body(data: bytes | None) -> bytes | None:
    """What follows the front matter of a page's bytes (None without front matter)."""
    if data is None or not data.startswith(b"---\n"):
        return None
    end = data.find(b"\n---\n", 3)
    return data[end + 5:] if end >= 0 else None


def _line_count(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


class MachineWritten(Authorship):
    """The authorship of a tree only stigmergy writes (recompile's work tree): no line is a person's."""

    def __init__(self) -> None:  # no repository to ask
        self.fast_hits = self.blame_runs = 0

    def prefetch(self, relpaths: Iterable[str], also_status: Iterable[str] = ()) -> None:
        return None

    def changed(self, relpaths: Iterable[str]) -> list[str] | None:
        return None  # never asked git: whoever wants a status asks it

    def human_lines(self, relpath: str) -> frozenset[int]:
        return frozenset()
