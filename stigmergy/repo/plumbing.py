"""A commit of exactly some paths through git's plumbing, the trees built here: what `git add` + `git commit
--only` did for every operation, in one short process (`update-index`) instead of two long ones.

Why: `git commit --only` rebuilds a temporary index from HEAD's whole tree, refreshes both indexes (a stat
of every file) and writes every tree again, so its cost grows with the wiki: on a 1,058-file wiki it cost
20 ms of CPU a commit plus 6 ms for `git add`, a third of a Slack export's capture (issue 24). Here:

- the blobs and the trees are written as loose objects from this process; the trees from a model of
  HEAD's tree (one `git ls-tree` when HEAD is not the commit this process made last), changed only along
  the paths committed;
- `git update-index --add --remove` stages the paths in the real index (with their stat data), so the
  working tree reads clean after the commit, as it did, and what else a person staged stays staged;
- the commit object is written here and HEAD moved from the parent we built on as `git update-ref` moves it
  (under the ref's lock, refused if HEAD moved meanwhile, reflogs for the branch and HEAD), where this
  process can write the bytes git would (`_stamps`); with commit.gpgSign, a reflog setting or an identity or
  date it cannot write exactly, `git commit-tree` and `git update-ref` do those two steps.

`Git.commit_paths` uses it only where it is equivalent to `git commit`: a plain `.git` folder, a parent
commit, no hook that `git commit` would run (prepare-commit-msg, post-commit: `stigmergy hooks install`
indexes from one), no attributes or settings that make git store other bytes than the file's
(.gitattributes, core.autocrlf, filters, core.attributesFile) and no commit message settings of its own
(commit.cleanup, core.commentChar, i18n.commitEncoding, commit.template). Anything else takes the porcelain.
`tests/test_plumbing.py` holds both ways equal: the same tree, message and index state."""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import stat
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from stigmergy.errors import GitError
from stigmergy.repo import watch

try:
    # ISA-L's deflate: the zlib format git reads, as small at level 1 (within 1%), five times as fast. A commit
    # after 2,000 notes writes two trees of 120-170 KB whole (`wiki/notes/`, a month of `sources/`): 1.7 ms a
    # commit at zlib's level 1, 0.3 ms at ISA-L's, and the busy pages' blobs beside them.
    from isal import isal_zlib as _deflate
except ImportError:  # a platform without its wheel: the standard library's zlib, same bytes on read
    _deflate = zlib  # type: ignore[misc]


class _Git(Protocol):
    """What plumbing needs of `repo.git.Git` (which holds a `Plumbing`: an import back would be a cycle)."""

    root: Path

    @property
    def env(self) -> dict[str, str]: ...
    def run(self, *args: str, input: bytes | None = None, check: bool = True,
            env: dict[str, str] | None = None) -> str: ...
    def run_bytes(self, *args: str, input: bytes | None = None, check: bool = True,
                  env: dict[str, str] | None = None) -> bytes: ...
    def fast_head(self) -> str | None: ...

# Settings under which `git add` would store other bytes than the file's, or `git commit` would write
# another message, or run something: any one of them sends a commit through the porcelain.
_PORCELAIN_SETTINGS = ("core.autocrlf", "core.attributesfile", "core.commentchar", "core.hookspath",
                       "commit.cleanup", "commit.template", "i18n.commitencoding", "core.eol")
_PORCELAIN_PREFIXES = ("filter.",)
_HOOKS = ("prepare-commit-msg", "post-commit", "reference-transaction")
_TREE_MODE = b"40000"
_NEW_FILE_MODE = b"100644"
_EXEC_FILE_MODE = b"100755"


class _Folder:
    """One folder of HEAD's tree: its entries, and the same entries in git's tree order, each already in
    its tree-object form, kept in step by bisection. A commit changes a few entries of a folder that may
    hold thousands (`sources/YYYY/MM/`, `wiki/notes/`): re-sorting and re-encoding every entry of it on
    each commit made the commit's cost grow with the wiki."""

    __slots__ = ("entries", "keys", "encoded")

    def __init__(self) -> None:
        self.entries: dict[bytes, tuple[bytes, bytes]] = {}  # name -> (mode, object id bytes)
        self.keys: list[bytes] = []  # tree order: a tree's name sorts as name + "/"
        self.encoded: list[bytes] = []  # b"<mode> <name>\0<id>", aligned with keys

    def set(self, name: bytes, mode: bytes, oid: bytes) -> None:
        old = self.entries.get(name)
        if old is not None and (old[0] == _TREE_MODE) != (mode == _TREE_MODE):
            self.remove(name)  # a file became a folder (or back): its place in the order moves
            old = None
        self.entries[name] = (mode, oid)
        key = _order_key(name, mode)
        i = bisect.bisect_left(self.keys, key)
        if old is None:
            self.keys.insert(i, key)
            self.encoded.insert(i, mode + b" " + name + b"\0" + oid)
        else:
            self.encoded[i] = mode + b" " + name + b"\0" + oid

    def remove(self, name: bytes) -> None:
        old = self.entries.pop(name, None)
        if old is None:
            return
        i = bisect.bisect_left(self.keys, _order_key(name, old[0]))
        del self.keys[i]
        del self.encoded[i]

    def body(self) -> bytes:
        return b"".join(self.encoded)


def _order_key(name: bytes, mode: bytes) -> bytes:
    return name + b"/" if mode == _TREE_MODE else name


@dataclass
class _Model:
    """HEAD's tree, as folders (b'' is the root): changed in place by a commit, and dropped by one that
    fails part-way (the next commit reads HEAD's tree again)."""

    commit: str
    tree: bytes  # the root tree's id
    folders: dict[bytes, _Folder] = field(default_factory=dict)


# What `git status` reads besides HEAD and the files: the index, and the settings and attributes that change how a
# tracked file compares (core.autocrlf, filters, eol). Each is replaced whole when written (git writes a lock file
# and renames it into place), so its inode, size and times tell whether anything wrote it.
_STATE_FILES = (".git/index", ".git/config", ".gitattributes", ".git/info/attributes")

Stamp = tuple[tuple[int, int, int, int, int] | None, ...]


def state_stamp(root: Path) -> Stamp | None:
    """(device, inode, size, mtime, ctime) of each of _STATE_FILES (None for one absent); None when one cannot be read."""
    out: list[tuple[int, int, int, int, int] | None] = []
    for rel in _STATE_FILES:
        try:
            st = os.stat(root / rel)
        except FileNotFoundError:
            out.append(None)
            continue
        except OSError:
            return None
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


@dataclass(frozen=True)
class Landed:
    """What one plumbing commit knows of the working tree it committed (gates/worktree.py reads it): marks of the
    committed paths' folders taken as the commit began (after the operation wrote its files, before the commit
    read them), and the repository's state stamp just before and just after `update-index`."""

    commit: str
    marks: dict[str, watch.Mark | None]
    before: Stamp | None
    after: Stamp | None


class Plumbing:
    """The plumbing commit for one repository (kept by its `Git`): whether it may be used, and HEAD's tree."""

    def __init__(self, git: _Git) -> None:
        self.git = git
        self.gitdir = git.root / ".git"
        self._usable: bool | None = None
        self._settings: dict[str, str] = {}
        self._model: _Model | None = None
        self.landed: Landed | None = None  # the last commit made here

    def usable(self, parent: str | None) -> bool:
        if parent is None or not self.gitdir.is_dir() or self.gitdir.is_symlink():
            return False
        if self._usable is None:
            self._usable = self._probe()
        # A .gitattributes written since (by a person or a capture) changes what `git add` stores; in a
        # merge, `git commit --only` refuses (a partial commit), and so must we.
        return (self._usable and not (self.git.root / ".gitattributes").exists()
                and not (self.gitdir / "MERGE_HEAD").exists())

    def takes(self, paths: Sequence[str], removed: Sequence[str]) -> bool:
        """Whether each path is what plumbing writes: one regular file a path (or one entry to remove), named
        literally. `git add` also takes a folder (every file below it), a symlink (stored as a link) and
        pathspec magic (`*`, `?`, `[`, a leading `:`); those commits take the porcelain, as before plumbing."""
        for rel in (*paths, *removed):
            if rel.startswith(":") or any(ch in rel for ch in "*?[\\"):
                return False
        for rel in paths:
            full = self.git.root / rel
            if full.is_symlink() or not full.is_file():
                return False
        return not any((self.git.root / rel).is_dir() for rel in removed)

    def _probe(self) -> bool:
        """Once per process: the settings and hooks that `git commit` would honour and we would not."""
        if (self.gitdir / "info" / "attributes").exists():
            return False
        if any((self.gitdir / "hooks" / hook).exists() for hook in _HOOKS):
            return False
        out = self.git.run_bytes("config", "--list", "-z", check=False)
        for entry in out.split(b"\0"):
            key, _, value = entry.decode("utf-8", "replace").partition("\n")
            key = key.lower()
            if key in _PORCELAIN_SETTINGS or key.startswith(_PORCELAIN_PREFIXES):
                return False
            self._settings[key] = value
        return True

    def tracked(self, head: str, paths: Sequence[str]) -> list[bool] | None:
        """For each path, whether HEAD's tree holds it as a file, from the model the last commit of this
        process kept (no git process); None when there is no model of `head`."""
        model = self._model
        if model is None or model.commit != head:
            return None
        out = []
        for rel in paths:
            folder, name = _split(rel)
            got = model.folders.get(folder)
            entry = got.entries.get(name) if got is not None else None
            out.append(entry is not None and entry[0] != _TREE_MODE)
        return out

    def commit(self, parent: str, paths: Sequence[str], removed: Sequence[str], message: str,
               env: dict[str, str], msg_path: Path, after_stage: object = None) -> str:
        """Commit exactly `paths` (as they are on disk) and `removed` on top of `parent`; the new commit.
        `message` is already in `msg_path`, as `cleanup` leaves it."""
        model = self._model if self._model is not None and self._model.commit == parent else self._load(parent)
        self._model = None  # until this commit lands: a failure part-way leaves the model half changed
        self.landed = None
        marks = {f: watch.mark(self.git.root / f) for f in sorted({watch.folder_of(p) for p in [*paths, *removed]})}
        written = {p: self._blob_entry(p) for p in paths}
        staged = "".join(f"{p}\0" for p in [*paths, *removed]).encode("utf-8", "surrogateescape")
        before = state_stamp(self.git.root)
        self.git.run_bytes("update-index", "--add", "--remove", "-z", "--stdin", input=staged)
        after = state_stamp(self.git.root)
        if callable(after_stage):
            after_stage()  # crash tests stop here: staged, not committed
        folders = model.folders
        dirty: set[bytes] = {b""}
        for rel, (mode, oid) in written.items():
            folder, name = _split(rel)
            _folder(folders, folder).set(name, mode, oid)
            dirty.update(_ancestors(folder))
        for rel in removed:
            folder, name = _split(rel)
            got = folders.get(folder)
            if got is not None and name in got.entries and got.entries[name][0] != _TREE_MODE:
                got.remove(name)
                dirty.update(_ancestors(folder))
        tree = self._write_trees(folders, dirty)
        if tree == model.tree:
            self._model = model  # nothing changed: the model still is HEAD's tree
            raise GitError("git commit failed: nothing to commit (the paths are as HEAD has them)")
        text = msg_path.read_text(encoding="utf-8")  # `message` as `cleanup` left it (Git.commit_paths)
        subject = text.split("\n", 1)[0]
        stamp = self._stamps(env)
        if stamp is None:
            commit = self.git.run("commit-tree", "-p", parent, "-F", str(msg_path), tree.hex(), env=env).strip()
            self.git.run("update-ref", "-m", f"commit: {subject}", "HEAD", commit, parent)
        else:
            author, committer = stamp
            body = (f"tree {tree.hex()}\nparent {parent}\nauthor {author}\ncommitter {committer}\n\n"
                    f"{text}")
            commit = self._write_object(b"commit", body.encode("utf-8", "surrogateescape")).hex()
            self._update_head(parent, commit, committer, f"commit: {subject}")
        model.commit, model.tree = commit, tree
        self._model = model
        self.landed = Landed(commit, marks, before, after)
        return commit

    # --- the commit and HEAD, written here -----------------------------------------------------------
    def _stamps(self, env: dict[str, str]) -> tuple[str, str] | None:
        """The author and committer lines `git commit-tree` would write, when this process can write them
        exactly: no signing, plain names and emails, and dates it can read (none, or `@<seconds> +0000`).
        None: `git commit-tree` and `git update-ref` write the commit and move HEAD."""
        if _true(self._settings.get("commit.gpgsign", "false")) or not self._reflogs_as_git():
            return None
        merged = {**self.git.env, **env}
        now = int(time.time())  # one clock reading for both, as git takes
        out = []
        for who in ("AUTHOR", "COMMITTER"):
            name, email = merged.get(f"GIT_{who}_NAME", ""), merged.get(f"GIT_{who}_EMAIL", "")
            if not _plain(name) or not _plain(email):
                return None
            when = _seconds(merged.get(f"GIT_{who}_DATE"), now)
            if when is None:
                return None
            out.append(f"{name} <{email}> {when[0]} {when[1]}")
        return out[0], out[1]

    def _reflogs_as_git(self) -> bool:
        value = self._settings.get("core.logallrefupdates", "true").lower()
        return value in ("true", "yes", "on", "1", "")

    def _update_head(self, old: str, new: str, committer: str, message: str) -> None:
        """Move HEAD (its branch, when it names one) from `old` to `new` as `git update-ref` does: under the
        ref's lock file, refused when the ref no longer holds `old`, with a reflog entry for both."""
        head = (self.gitdir / "HEAD").read_text(encoding="utf-8").strip()
        ref = head[5:].strip() if head.startswith("ref: ") else "HEAD"
        if ref != "HEAD" and (not ref.startswith("refs/heads/") or ".." in ref or ref.endswith(".lock")):
            raise GitError(f"git update-ref failed: HEAD names {ref!r}")
        target = self.gitdir / ref
        lock = target.with_name(target.name + ".lock")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            raise GitError(f"git update-ref failed: cannot lock ref '{ref}': {lock} exists") from None
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(new + "\n")
            current = self.git.fast_head()
            if current != old:
                raise GitError(f"git update-ref failed: cannot lock ref '{ref}': is at {current} but expected {old}")
            entry = f"{old} {new} {committer}\t{_reflog_message(message)}\n"
            for log in {ref, "HEAD"}:
                path = self.gitdir / "logs" / log
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "a", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write(entry)
            os.replace(lock, target)
        except BaseException:
            lock.unlink(missing_ok=True)
            raise

    # --- the model of HEAD's tree --------------------------------------------------------------------
    def _load(self, commit: str) -> _Model:
        out = self.git.run_bytes("ls-tree", "-r", "-t", "-z", "--full-tree", commit)
        root = self.git.run("rev-parse", f"{commit}^{{tree}}").strip()
        folders: dict[bytes, _Folder] = {b"": _Folder()}
        for line in out.split(b"\0"):
            if not line:
                continue
            meta, path = line.split(b"\t", 1)
            mode, _kind, oid = meta.split(b" ")
            folder, _, name = path.rpartition(b"/")
            mode = mode.lstrip(b"0") if mode.startswith(b"04") else mode
            _folder(folders, folder).entries[name] = (mode, bytes.fromhex(oid.decode()))
            if mode == _TREE_MODE:
                _folder(folders, path)
        for got in folders.values():  # the tree order once; commits keep it by bisection
            pairs = sorted((_order_key(n, m), m + b" " + n + b"\0" + o) for n, (m, o) in got.entries.items())
            got.keys = [k for k, _ in pairs]
            got.encoded = [e for _, e in pairs]
        return _Model(commit, bytes.fromhex(root), folders)

    def _write_trees(self, folders: dict[bytes, _Folder], dirty: set[bytes]) -> bytes:
        """Write the dirty folders' trees, deepest first, each into its parent; the root tree's id."""
        root = b""
        for folder in sorted(dirty, key=lambda f: (-f.count(b"/") - (1 if f else 0), f)):
            got = _folder(folders, folder)
            parent, _, name = folder.rpartition(b"/")
            if folder and not got.entries:
                # git keeps no empty trees: an emptied folder leaves its parent
                _folder(folders, parent).remove(name)
                folders.pop(folder, None)
                continue
            oid = self._write_object(b"tree", got.body())
            if folder:
                _folder(folders, parent).set(name, _TREE_MODE, oid)
            else:
                root = oid
        return root

    # --- loose objects -------------------------------------------------------------------------------
    def _blob_entry(self, rel: str) -> tuple[bytes, bytes]:
        """The file's tree entry as `git add` makes it (core.fileMode: the owner's execute bit), its blob written."""
        path = self.git.root / rel
        if path.is_symlink() or not path.is_file():
            raise GitError(f"git add failed: {rel} is not a regular file")
        mode = _EXEC_FILE_MODE if os.stat(path).st_mode & stat.S_IXUSR else _NEW_FILE_MODE
        return mode, self._write_object(b"blob", path.read_bytes())

    def _write_object(self, kind: bytes, body: bytes) -> bytes:
        """Store a loose object as git does (zlib, read-only, renamed into place); its id."""
        raw = kind + b" " + str(len(body)).encode() + b"\0" + body
        oid = hashlib.sha1(raw).digest()
        hexid = oid.hex()
        folder = self.gitdir / "objects" / hexid[:2]
        target = folder / hexid[2:]
        if target.exists():
            return oid
        folder.mkdir(exist_ok=True)
        tmp = folder / f"tmp_obj_stigmergy_{os.getpid()}_{hexid[2:10]}"
        with open(tmp, "wb") as fh:
            fh.write(_deflate.compress(raw, 1))
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)
        return oid


def _folder(folders: dict[bytes, _Folder], folder: bytes) -> _Folder:
    got = folders.get(folder)
    if got is None:
        got = folders[folder] = _Folder()
    return got


def _split(rel: str) -> tuple[bytes, bytes]:
    folder, _, name = rel.encode("utf-8", "surrogateescape").rpartition(b"/")
    return folder, name


def _ancestors(folder: bytes) -> list[bytes]:
    out = [b""]
    parts = folder.split(b"/") if folder else []
    for i in range(1, len(parts) + 1):
        out.append(b"/".join(parts[:i]))
    return out


def cleanup(message: str) -> str:
    """The message as `git commit -F` stores it (its default cleanup without an editor, "whitespace"):
    trailing spaces cut, runs of blank lines made one, none at either end, one newline at the end."""
    lines: list[str] = []
    for line in message.split("\n"):
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


# What git trims from a name or an email (ident.c's crud) and never allows inside one.
_CRUD = " .,:;<>\"\\'\t\n\r"


def _plain(value: str) -> bool:
    return bool(value) and value == value.strip(_CRUD) and not any(c in value for c in "<>\n")


def _true(value: str) -> bool:
    return value.lower() in ("true", "yes", "on", "1", "")


def _seconds(date: str | None, now: int) -> tuple[int, str] | None:
    """(seconds, zone) of a commit's date: `now` in the local zone, or `@<seconds> +0000` as the write
    pipelines set it; None for any other form (git reads many; commit-tree is left to read those)."""
    if date is None:
        offset = time.localtime(now).tm_gmtoff // 60
        sign = "-" if offset < 0 else "+"
        return now, f"{sign}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"
    head, _, zone = date.partition(" ")
    if head.startswith("@") and head[1:].isdigit() and zone == "+0000":
        return int(head[1:]), zone
    return None


def _reflog_message(message: str) -> str:
    """As git's copy_reflog_msg: each run of whitespace one space, none at either end."""
    return re.sub(r"[ \t\n\r\v\f]+", " ", message).strip(" ")
