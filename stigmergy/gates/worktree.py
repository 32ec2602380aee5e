"""What `git status` said of the pages a capture process asked about, kept while it still holds (issue 27).

The human-line gate asks `git status` of the pages each plan touches: a capture of 100 documents ran 100 of
them, and each reads the whole index and HEAD's trees along the asked paths (`wiki/notes/` has an entry per
note), 2.2 ms of CPU on a fresh wiki and 4.8 ms after 2,000 documents. Between two captures of one process the
answer for a page changes only when something writes the page, the index, HEAD or the settings that say how a
file compares; a page stigmergy itself just committed is clean. So an answer is kept while

- HEAD is the commit it was given for, or the commit stigmergy made on top of it;
- `.git/index`, `.git/config`, `.gitattributes` and `.git/info/attributes` are the same files, unwritten
  (`plumbing.state_stamp`; git replaces each whole, so a person's `git add`, `git rm --cached`, `git reset` or
  `git commit` gives a new stamp), stigmergy's own `update-index` excepted, which is stamped just before and
  just after it runs;
- the kernel names no write to the page since a mark taken before git looked at it (`repo/watch.py`; a page
  stigmergy committed is marked after the operation wrote it and before the commit read it).

Only tracked answers are kept (clean, or a status git gave a tracked file): whether an untracked file is
ignored also reads `.gitignore` files and `core.excludesFile`, which nothing here watches. Where the kernel's
word is not to be had (`watch.mark` None) nothing is kept and git is asked each time, as before.

Not seen, as with the watcher itself: a write through a shared memory mapping; a person's index write that
lands in the millisecond between stigmergy's stamp and its own `update-index` taking the index lock (the
two writes would be one to the stamp); and a change to the user's or the system's git configuration (a global
`core.autocrlf` set while a capture process runs), which lives outside the repository. Each would need a
person's git command at that instant, or a setting changed under a running capture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stigmergy.repo import watch
from stigmergy.repo.plumbing import Landed, Stamp
from stigmergy.repo.watch import folder_of

UNTRACKED = ("??", "!!")


def keepable(answer: str) -> bool:
    """An answer that holds while the page, the index and HEAD do: not untracked or ignored (those read
    .gitignore files too), and not gone from the index (`D `: on disk it is untracked, which the walk says)."""
    return answer not in UNTRACKED and not answer.startswith("D")


@dataclass
class Worktree:
    """Kept `git status` answers (relpath -> porcelain XY, "" when clean) and, per folder, the mark they hold from.

    A folder in `whole` was asked of git whole (`git status -- FOLDER`, tracked files only): every tracked page
    of it that git did not list is clean, so a page first asked about later (a page a new capture touches) is
    answered without git, unless it is in `stale` (written since) or on disk but not in HEAD (untracked, which a
    status of tracked files does not list: the caller asks)."""

    head: str
    stamp: Stamp
    answers: dict[str, str] = field(default_factory=dict)
    marks: dict[str, watch.Mark] = field(default_factory=dict)
    whole: set[str] = field(default_factory=set)
    stale: set[str] = field(default_factory=set)

    def advance(self, root: Path) -> None:
        """Forget the answers of every page the kernel names as written since its folder's mark; marks move to now."""
        for folder, mark in list(self.marks.items()):
            names, now = watch.changes(root / folder, mark)
            if names is None or now is None:
                self._forget_folder(folder)
                continue
            self.marks[folder] = now
            for name in names:
                self.forget(_join(folder, name))

    def forget(self, path: str) -> None:
        self.answers.pop(path, None)
        if folder_of(path) in self.whole:
            self.stale.add(path)

    def _forget_folder(self, folder: str) -> None:
        self.marks.pop(folder, None)
        self.whole.discard(folder)
        for path in [p for p in self.answers if folder_of(p) == folder]:
            del self.answers[path]
        self.stale = {p for p in self.stale if folder_of(p) != folder}

    def known(self, path: str, on_disk: bool, in_head: bool | None) -> str | None:
        """The kept answer for `path` (`in_head`: whether HEAD holds it, None when not known); None: ask git.
        A page of a whole folder that git did not list is clean if it is not on disk, or on disk and in HEAD:
        on disk and not in HEAD, it is untracked (or staged, which git would have listed)."""
        if path in self.answers:
            return self.answers[path]
        if folder_of(path) in self.whole and path not in self.stale and (not on_disk or in_head is True):
            return ""
        return None

    def keep(self, path: str, answer: str, mark: watch.Mark | None) -> None:
        """Keep git's answer for `path`, asked after `mark` was taken of its folder."""
        if mark is None:
            return
        self.marks.setdefault(folder_of(path), mark)
        if keepable(answer):
            self.answers[path] = answer
            self.stale.discard(path)
        else:
            self.forget(path)

    def keep_folder(self, folder: str, listed: dict[str, str], mark: watch.Mark | None) -> None:
        """Keep a status of the whole of `folder` (its tracked files; `listed`: those git named), asked after `mark`."""
        if mark is None or not folder:
            return
        self.marks.setdefault(folder, mark)
        self.whole.add(folder)
        self.stale = {p for p in self.stale if folder_of(p) != folder}
        for path, answer in listed.items():
            if folder_of(path) != folder:
                continue  # a page of a folder below it
            if keepable(answer):
                self.answers[path] = answer
            else:
                self.forget(path)


def after_commit(kept: Worktree | None, root: Path, parent: str | None, landed: Landed | None,
                 paths: list[str]) -> Worktree | None:
    """The answers that hold after stigmergy's commit `landed` of `paths` on `parent`: the kept ones when
    nothing else moved HEAD or wrote the index before the commit, and each committed page clean unless the
    kernel names a write to it since the commit began."""
    if landed is None or parent is None or landed.after is None:
        return None
    now = Worktree(landed.commit, landed.after)
    if kept is not None and kept.head == parent and kept.stamp == landed.before:
        kept.advance(root)  # first: a write after these marks is seen by the next ask
        now.answers, now.marks, now.whole, now.stale = kept.answers, kept.marks, kept.whole, kept.stale
    for path in paths:
        now.forget(path)
    for folder, mark in landed.marks.items():
        if mark is None:
            continue
        names, later = watch.changes(root / folder, mark)
        if names is None or later is None:
            continue
        if folder not in now.marks:
            now.marks[folder] = later
        for path in paths:
            if folder_of(path) == folder and path.rpartition("/")[2] not in names:
                now.answers[path] = ""
                now.stale.discard(path)
    return now


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
