"""Thin wrapper over the git CLI. Subprocess git is faster than GitPython's index commits (22 ms vs 56–93 ms
per commit measured here) and behaves exactly like the user's own git.

The short-lived CLI stays on this wrapper: importing GitPython costs 100–200 ms per stigmergy process
(0.35–0.5 s at load 11; more than all of `repo/`), which a command that runs a handful of git processes
never earns back, and `bench/capture.py --n 80` with `git commit` through it measured 1.08x the time of
this wrapper (capture/bare-git ratio 2.87 vs 2.65, same run). Where a process lives long or walks many
commits, GitPython's persistent `cat-file` reader does earn it back: `repo/gitpython.LongLivedGit`, a
subclass of this class, serves the MCP server and history audits of `WALK_THRESHOLD` commits or more
(`bench/history_git.py` measures both side by side)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from stigmergy.errors import GitError

if TYPE_CHECKING:
    from stigmergy.repo.plumbing import Landed, Plumbing


# Loose objects after which a commit packs them (git's own `gc --auto` waits for 6,700; at a dozen objects
# a capture, that was a .git of 106 MB at 750 documents, most of it whole copies of pages rewritten).
PACK_LOOSE_AT = 768
# How `pack_loose` searches for deltas. A capture after 2,000 documents writes a new version of each flat
# folder's tree on every commit (`wiki/notes/` 174 KB, a burst month's `sources/YYYY/MM/` 123 KB): trees are
# three quarters of the bytes a repack reads, and git's default window tries each version against 10 others
# of its path where the one before or after it is nearly always the best. A window of 5 cut a repack's CPU
# by a sixth on the 2,000-document rigs (team 1.21 -> 0.99 CPU-s, varied 0.45 -> 0.38) for a new pack 1-2%
# larger; a window of 3 cut a little more on team but its blob deltas were a quarter larger, and a whole
# history filed with it packed 18% larger. One delta thread: the same CPU, and no split of the object list
# between threads, whose parts' deltas cannot see one another. A person's own `git gc` and `git repack`
# read their own settings (docs/planning.md, #27's tenth pass).
PACK_SETTINGS = ("-c", "pack.window=5", "-c", "pack.threads=1")
# The fan-out folders loose_estimate lists: eight of 256, spread over the range (object ids are uniform).
_LOOSE_SAMPLE = ("07", "27", "47", "67", "87", "a7", "c7", "e7")
BLOB_MEMO_BYTES = 16 << 20  # object contents one Git object keeps (see `blobs`)
_OID_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def is_oid(text: str) -> bool:
    """Whether `text` is a full object id as git prints it (SHA-1 or SHA-256, lower-case hex)."""
    return _OID_RE.fullmatch(text) is not None


class Git:
    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.root = Path(root)
        self._env = dict(os.environ)
        # Our own commits must never trigger interactive editors or pagers.
        self._env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat"})
        # No optional locks (git's switch for background tools; of the commands run here, `git status` reads
        # it): `git status` answers the same, but does not take index.lock to write back the stat data it
        # refreshed. That write is a whole index (534 KB, 4,347 entries after 2,000 documents, one SHA-1 of
        # it and the racy entries' files hashed again) on nearly every capture, since the pages the last
        # commit staged share its second; and holding index.lock while a person's git runs makes theirs
        # fail. A person's own `git status` refreshes their index as before.
        self._env["GIT_OPTIONAL_LOCKS"] = "0"
        if env:
            self._env.update(env)
        # (format, paths) -> (HEAD, walk) of `history_changes`; oid -> bytes of `blobs` (objects never change).
        self._walks: dict[tuple[str, tuple[str, ...]], tuple[str, list[tuple[str, bool, list[dict[str, str | None]]]]]] = {}
        self._blob_memo: dict[str, bytes] = {}
        self._blob_memo_bytes = 0

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

    @property
    def env(self) -> dict[str, str]:
        """The environment every git process of this wrapper runs with."""
        return self._env

    @cached_property
    def plumbing(self) -> Plumbing:
        """Commits through git's plumbing where that is the same as `git commit` (repo/plumbing.py)."""
        from stigmergy.repo.plumbing import Plumbing

        return Plumbing(self)

    def landed(self, commit: str) -> Landed | None:
        """What the plumbing commit knew of the working tree when it made `commit` (the gates' kept `git
        status` answers read it, gates/worktree.py); None when the porcelain made it or another commit came
        since."""
        made = self.__dict__.get("plumbing")  # the cached property, only where a commit went through it
        landed = made.landed if made is not None else None
        return landed if landed is not None and landed.commit == commit else None

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
        after_stage: Callable[[], None] | None = None,
        when: int | None = None,
    ) -> str:
        """Commit exactly `paths` (added or modified) and `removed`, leaving anything else the user staged alone.
        `when` (seconds since the epoch) dates the commit: an import replaying a person's commit keeps its time."""
        env = {
            "GIT_AUTHOR_NAME": author_name,
            "GIT_AUTHOR_EMAIL": author_email,
            "GIT_COMMITTER_NAME": author_name,
            "GIT_COMMITTER_EMAIL": author_email,
        }
        if when is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
        from stigmergy.repo.plumbing import cleanup

        all_paths = [*paths, *removed]
        parent = self.fast_head()
        plumbing = self.plumbing if self.plumbing.usable(parent) and self.plumbing.takes(paths, removed) else None
        # The whole message (trailers included) is in the file before git starts: a message piped through
        # stdin can be cut short by a kill, leaving a commit without its operation trailer. Written and
        # closed is enough against a kill; no fsync, as git writes the commit itself without one.
        fd, msg_path = tempfile.mkstemp(prefix="stigmergy-msg-", dir=self.git_dir() if self.git_dir().is_dir() else None)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write((cleanup(message) if plumbing is not None else message).encode("utf-8"))
            if plumbing is not None and parent is not None:
                head = plumbing.commit(parent, paths, removed, message, env, Path(msg_path), after_stage)
                self.pack_loose()
                return head
            if paths:
                self.run("add", "-f", "--", *paths)
            if removed:
                self.run("rm", "-q", "--cached", "--ignore-unmatch", "--", *removed)
            if after_stage is not None:
                after_stage()  # crash tests stop here: staged, not committed
            # No automatic maintenance after the commit (`gc --auto` checks, `maintenance run --auto`): it
            # cost each capture a process, and `pack_loose` below packs as filing goes.
            self.run("-c", "maintenance.auto=false", "-c", "gc.auto=0", "commit", "-q", "--no-verify", "-F", msg_path,
                     "--only", "--", *all_paths, env=env)
        finally:
            Path(msg_path).unlink(missing_ok=True)
        head = self.fast_head()
        assert head is not None
        self.pack_loose()
        return head

    def loose_estimate(self) -> int:
        """Loose objects, estimated from the entries of eight fan-out folders x 32 (eight directory listings
        of a few entries each, no subprocess). git's `gc --auto` reads one folder x 256; read that way the
        count at which a repack fired scattered from ~200 to ~1,600 objects (sd 446 around 768, simulated),
        so the number of repacks in a window of captures, and with it `.git`'s peak and every filing
        figure, moved more than the changes measured against it; eight folders bring the sd to ~155."""
        objects = self.root / ".git" / "objects"
        count = 0
        for name in _LOOSE_SAMPLE:
            try:
                count += sum(1 for _ in (objects / name).iterdir())
            except OSError:
                continue  # a folder git has not made yet holds no object
        return count * (256 // len(_LOOSE_SAMPLE))

    def pack_loose(self, threshold: int = PACK_LOOSE_AT) -> bool:
        """Pack the loose objects once there are about `threshold` of them, then keep the packs in a
        geometric sequence (each pack at least twice the size of the next smaller one, so every object is
        rewritten O(log n) times over a wiki's life, never once per capture). A filing rewrites its busiest
        pages on every capture; loose, each version is a whole zlib'd file, packed it is a delta.

        Two steps, not `repack --geometric` alone: that packs the loose objects without their paths (it
        walks no history), so a page's new versions are not tried against one another first; on a wiki of
        2,000 documents its pack of ~700 loose objects was twice the size and cost twice the CPU of the
        plain `repack -d`, which walks the history for names and packs only what is loose. The geometric
        step that follows then has no loose objects: it merges packs only when the sequence breaks,
        reusing their deltas. Best effort: packing never fails a write (the objects are safe loose)."""
        if self.loose_estimate() < threshold:
            return False
        try:
            self.run(*PACK_SETTINGS, "repack", "-d", "-q", check=False)
            self.run(*PACK_SETTINGS, "repack", "-d", "-q", "--geometric=2", check=False)
        except OSError:
            return False
        return True

    def raw_changes(self, shas: Sequence[str], against: str | None = None) -> dict[str, list[dict[str, str | None]]]:
        """Per commit, what it changed against its first parent (or `against`): path, action
        (add | delete | modify), and the blob ids before and after. One process per 200 commits."""
        out: dict[str, list[dict[str, str | None]]] = {}
        mark = "\x1estigmergy-commit "
        for i in range(0, len(shas), 200):
            chunk = list(shas[i : i + 200])
            args = ["-c", "core.quotePath=false", "show", "--raw", "--no-renames", "--no-abbrev", "-z", "--root",
                    "--diff-merges=first-parent", f"--format={mark}%H", *chunk]
            raw = self.run_bytes(*args).decode("utf-8", "surrogateescape")
            for block in raw.split(mark)[1:]:
                sha, _, rest = block.partition("\n")
                out[sha.strip("\0\n ")] = raw_entries(rest)
        return out

    def log_changes(self, fmt: str, *paths: str) -> list[tuple[str, list[dict[str, str | None]]]]:
        """Every commit (no merges) that touched `paths`, oldest first in topological order: (its `fmt`
        header, all it changed, as `raw_changes` gives it). One process, where `log` then `raw_changes` of
        the commits walk the history twice."""
        return [(head, entries) for head, merge, entries in reversed(self.history_changes(fmt, *paths)) if not merge]

    def history_changes(self, fmt: str, *paths: str) -> list[tuple[str, bool, list[dict[str, str | None]]]]:
        """Every commit that touched `paths`, newest first in topological order, merges included (with what
        they changed against their first parent): (its `fmt` header, whether it is a merge, all it changed,
        as `raw_changes` gives it). Read once per HEAD for this object: a recompile reads the curation
        record and which pages people wrote in from one walk (repo/trailers.HISTORY_FORMAT)."""
        head = self.fast_head()
        if head is None:
            return []
        key = (fmt, paths)
        kept = self._walks.get(key)
        if kept is not None and kept[0] == head:
            return kept[1]
        # The header ends at its own mark, not at a newline: a trailer value may span lines. The walk starts
        # at the commit id read above (not at HEAD), so what is kept is that commit's history.
        mark, end = "\x1estigmergy-commit ", "\x1estigmergy-raw"
        raw = self.run_bytes("-c", "core.quotePath=false", "log", "--topo-order", "--root", "--raw", "--no-renames",
                             "--no-abbrev", "-z", "--full-diff", "--diff-merges=first-parent",
                             f"--format={mark}%P%x1f{fmt}{end}", head, "--", *paths,
                             check=False).decode("utf-8", "surrogateescape")
        out = []
        for block in raw.split(mark)[1:]:
            parents, _, block = block.partition("\x1f")
            header, _, rest = block.partition(end)
            out.append((header, len(parents.split()) > 1, raw_entries(rest)))
        self._walks[key] = (head, out)
        return out

    def blobs(self, oids: Sequence[str], keep: bool = False) -> dict[str, bytes]:
        """Object contents for `oids` (blob ids or `rev:path`) from one `git cat-file --batch`; absent ones
        are left out. With `keep`, contents named by object id are kept for later calls with `keep` (up to
        BLOB_MEMO_BYTES): the curation record and the pages people wrote in read the same page versions
        in one recompile. Without it git is asked (an audit that an object is gone must ask git)."""
        out: dict[str, bytes] = {}
        wanted = []
        for oid in oids:
            kept = self._blob_memo.get(oid) if keep else None
            if kept is not None:
                out[oid] = kept
            else:
                wanted.append(oid)
        if not wanted:
            return out
        raw = self.run_bytes("cat-file", "--batch", input=("\n".join(wanted) + "\n").encode("utf-8", "surrogateescape"))
        pos = 0
        for oid in wanted:
            nl = raw.index(b"\n", pos)
            header = raw[pos:nl].split()
            pos = nl + 1
            if len(header) < 3 or header[-1] == b"missing" or header[1] == b"missing":
                continue
            size = int(header[2])
            out[oid] = data = raw[pos : pos + size]
            pos += size + 1
            # Only a full object id names the same bytes forever (`rev:path` moves with the branch).
            if keep and _OID_RE.fullmatch(oid) and self._blob_memo_bytes + size <= BLOB_MEMO_BYTES:
                self._blob_memo[oid] = data
                self._blob_memo_bytes += size
        return out

    def is_commit(self, oid: str) -> bool:
        return self.run("cat-file", "-t", oid, check=False).strip() == "commit"

    def tree_names(self, commit: str, *tops: str) -> list[str]:
        """Every file path under the folders `tops` in `commit`'s tree, sorted (none when it is no commit)."""
        out = self.run_bytes("-c", "core.quotePath=false", "ls-tree", "-r", "-z", "--name-only", commit, "--", *tops,
                             check=False)
        return sorted({p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p})

    def git_dir(self) -> Path:
        """The repository's git directory (`.git` at the root, else what git says)."""
        plain = self.root / ".git"
        if plain.is_dir():
            return plain
        out = self.run("rev-parse", "--absolute-git-dir", check=False).strip()
        return Path(out) if out else plain

    def clear_stale_locks(self, warn: Callable[[str], None], wait_seconds: float = 5.0) -> list[str]:
        """Remove git lock files (index, HEAD, the current branch) that no live process holds.

        Call with stigmergy's writer lock held: no other stigmergy writer can be inside git then, so a
        lock file nobody has open is the leftover of a killed process. A lock a live process holds (a
        person's `git commit`, say) is waited for briefly, then reported by name."""
        gitdir = self.git_dir()
        candidates = [gitdir / "index.lock", gitdir / "HEAD.lock", gitdir / "packed-refs.lock"]
        try:
            ref = (gitdir / "HEAD").read_text().strip()
            if ref.startswith("ref: "):
                candidates.append(gitdir / (ref[5:] + ".lock"))
        except OSError:
            pass
        cleared = []
        for lock in candidates:
            deadline = time.monotonic() + wait_seconds
            while lock.exists():
                holders = lock_holders(lock)
                if holders is None:
                    # Cannot see other processes' files here: judge by age (git holds these for milliseconds).
                    try:
                        young = time.time() - lock.stat().st_mtime < wait_seconds
                    except FileNotFoundError:
                        break
                    holders = [0] if young else []
                if not holders:
                    lock.unlink(missing_ok=True)
                    rel = os.path.relpath(lock, self.root)
                    warn(f"warning: removed a stale {rel} left by a killed git process")
                    cleared.append(rel)
                    break
                if time.monotonic() >= deadline:
                    who = ", ".join(f"pid {pid} ({_cmdline(pid)})" for pid in holders if pid) or "a running process"
                    raise GitError(
                        f"{os.path.relpath(lock, self.root)} is held by {who}",
                        hint="wait for that git command to finish, then try again",
                    )
                time.sleep(0.05)
        return cleared


def blob_sha(data: bytes) -> str:
    """The object id git gives `data` as a blob: lets us tell 'this file is exactly what we wrote' cheaply."""
    import hashlib

    h = hashlib.sha1(f"blob {len(data)}\0".encode())
    h.update(data)
    return h.hexdigest()


def lock_holders(path: Path) -> list[int] | None:
    """Pids of processes that have `path` open (Linux /proc); None when this cannot be told here."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return None
    target = os.path.realpath(path)
    holders = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue  # gone, or another user's process (git locks are ours to hold)
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    holders.append(int(entry.name))
                    break
            except OSError:
                continue
    return holders


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(p.decode("utf-8", "replace") for p in raw.split(b"\0") if p)[:80]


def raw_entries(rest: str) -> list[dict[str, str | None]]:
    """The entries of `--raw -z` output (one commit's, or one `diff-tree`'s): path, action (add | delete |
    modify), blob ids before and after, and the modes after and before (None where absent)."""
    tokens = rest.split("\0")
    entries: list[dict[str, str | None]] = []
    j = 0
    while j < len(tokens):
        meta = tokens[j].strip("\n")
        if not meta.startswith(":"):
            j += 1
            continue
        path = tokens[j + 1] if j + 1 < len(tokens) else ""
        j += 2
        mode_before, mode_after, before, after, status = meta[1:].split()[:5]
        entries.append({
            "path": path,
            "action": {"A": "add", "D": "delete"}.get(status[:1], "modify"),
            "status": status[:1],  # git's own letter (A, D, M, T, ...)
            "before": None if set(before) == {"0"} else before,
            "after": None if set(after) == {"0"} else after,
            "mode": None if set(mode_after) == {"0"} else mode_after,  # 120000: a symbolic link
            "mode_before": None if set(mode_before) == {"0"} else mode_before,
        })
    return entries
