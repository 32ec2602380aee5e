"""A commit of exactly some paths through git's plumbing, the trees built here: what `git add` + `git commit
--only` did for every operation, in three short processes instead of two long ones.

Why: `git commit --only` rebuilds a temporary index from HEAD's whole tree, refreshes both indexes (a stat
of every file) and writes every tree again, so its cost grows with the wiki: on a 1,058-file wiki it cost
20 ms of CPU a commit plus 6 ms for `git add`, a third of a Slack export's capture (issue 24). Here:

- the blobs and the trees are written as loose objects from this process; the trees from a model of
  HEAD's tree (one `git ls-tree` when HEAD is not the commit this process made last), changed only along
  the paths committed;
- `git update-index --add --remove` stages the paths in the real index (with their stat data), so the
  working tree reads clean after the commit, as it did, and what else a person staged stays staged;
- `git commit-tree` writes the commit (identity, dates and commit.gpgSign as `git commit` has them), and
  `git update-ref` moves HEAD from the parent we built on (refused if HEAD moved meanwhile).

`Git.commit_paths` uses it only where it is equivalent to `git commit`: a plain `.git` folder, a parent
commit, no hook that `git commit` would run (prepare-commit-msg, post-commit: `stigmergy hooks install`
indexes from one), no attributes or settings that make git store other bytes than the file's
(.gitattributes, core.autocrlf, filters, core.attributesFile) and no commit message settings of its own
(commit.cleanup, core.commentChar, i18n.commitEncoding, commit.template). Anything else takes the porcelain.
`tests/test_plumbing.py` holds both ways equal: the same tree, message and index state."""

from __future__ import annotations

import hashlib
import os
import stat
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stigmergy.repo.git import GitError

if TYPE_CHECKING:
    from stigmergy.repo.git import Git

# Settings under which `git add` would store other bytes than the file's, or `git commit` would write
# another message, or run something: any one of them sends a commit through the porcelain.
_PORCELAIN_SETTINGS = ("core.autocrlf", "core.attributesfile", "core.commentchar", "core.hookspath",
                       "commit.cleanup", "commit.template", "i18n.commitencoding", "core.eol")
_PORCELAIN_PREFIXES = ("filter.",)
_HOOKS = ("prepare-commit-msg", "post-commit")
_TREE_MODE = b"40000"
_NEW_FILE_MODE = b"100644"
_EXEC_FILE_MODE = b"100755"


@dataclass
class _Model:
    """HEAD's tree, as folders of entries: folder (b'' is the root) -> name -> (mode, object id bytes)."""

    commit: str
    folders: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = field(default_factory=dict)


class Plumbing:
    """The plumbing commit for one repository (kept by its `Git`): whether it may be used, and HEAD's tree."""

    def __init__(self, git: Git) -> None:
        self.git = git
        self.gitdir = git.root / ".git"
        self._usable: bool | None = None
        self._model: _Model | None = None

    def usable(self, parent: str | None) -> bool:
        if parent is None or not self.gitdir.is_dir() or self.gitdir.is_symlink():
            return False
        if self._usable is None:
            self._usable = self._probe()
        # A .gitattributes written since (by a person or a capture) changes what `git add` stores; in a
        # merge, `git commit --only` refuses (a partial commit), and so must we.
        return (self._usable and not (self.git.root / ".gitattributes").exists()
                and not (self.gitdir / "MERGE_HEAD").exists())

    def _probe(self) -> bool:
        """Once per process: the settings and hooks that `git commit` would honour and we would not."""
        if (self.gitdir / "info" / "attributes").exists():
            return False
        if any((self.gitdir / "hooks" / hook).exists() for hook in _HOOKS):
            return False
        out = self.git.run_bytes("config", "--list", "-z", check=False)
        for entry in out.split(b"\0"):
            key = entry.split(b"\n", 1)[0].decode("utf-8", "replace").lower()
            if key in _PORCELAIN_SETTINGS or key.startswith(_PORCELAIN_PREFIXES):
                return False
        return True

    def commit(self, parent: str, paths: Sequence[str], removed: Sequence[str], message: str,
               env: dict[str, str], msg_path: Path, after_stage: object = None) -> str:
        """Commit exactly `paths` (as they are on disk) and `removed` on top of `parent`; the new commit.
        `message` is already in `msg_path`, as `cleanup` leaves it."""
        model = self._model if self._model is not None and self._model.commit == parent else self._load(parent)
        written = {p: self._blob_entry(p) for p in paths}
        staged = "".join(f"{p}\0" for p in [*paths, *removed]).encode("utf-8", "surrogateescape")
        self.git.run_bytes("update-index", "--add", "--remove", "-z", "--stdin", input=staged)
        if callable(after_stage):
            after_stage()  # crash tests stop here: staged, not committed
        folders = {k: dict(v) for k, v in model.folders.items()}
        dirty: set[bytes] = {b""}
        for rel, entry in written.items():
            folder, name = _split(rel)
            folders.setdefault(folder, {})[name] = entry
            dirty.update(_ancestors(folder))
        for rel in removed:
            folder, name = _split(rel)
            entries = folders.get(folder, {})
            if name in entries and entries[name][0] != _TREE_MODE:
                del entries[name]
                dirty.update(_ancestors(folder))
        tree = self._write_trees(folders, dirty)
        if tree == model.folders[b""][b""][1]:
            raise GitError("git commit failed: nothing to commit (the paths are as HEAD has them)")
        commit = self.git.run("commit-tree", "-p", parent, "-F", str(msg_path), tree.hex(), env=env).strip()
        subject = cleanup(message).split("\n", 1)[0]
        self.git.run("update-ref", "-m", f"commit: {subject}", "HEAD", commit, parent)
        folders[b""][b""] = (_TREE_MODE, tree)  # the root's own id, kept under the empty name
        self._model = _Model(commit, folders)
        return commit

    # --- the model of HEAD's tree --------------------------------------------------------------------
    def _load(self, commit: str) -> _Model:
        out = self.git.run_bytes("ls-tree", "-r", "-t", "-z", "--full-tree", commit)
        root = self.git.run("rev-parse", f"{commit}^{{tree}}").strip()
        folders: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = {b"": {b"": (_TREE_MODE, bytes.fromhex(root))}}
        for line in out.split(b"\0"):
            if not line:
                continue
            meta, path = line.split(b"\t", 1)
            mode, _kind, oid = meta.split(b" ")
            folder, _, name = path.rpartition(b"/")
            mode = mode.lstrip(b"0") if mode.startswith(b"04") else mode
            folders.setdefault(folder, {})[name] = (mode, bytes.fromhex(oid.decode()))
            if mode == _TREE_MODE:
                folders.setdefault(path, {})
        return _Model(commit, folders)

    def _write_trees(self, folders: dict[bytes, dict[bytes, tuple[bytes, bytes]]], dirty: set[bytes]) -> bytes:
        """Write the dirty folders' trees, deepest first, each into its parent; the root tree's id."""
        root = b""
        for folder in sorted(dirty, key=lambda f: (-f.count(b"/") - (1 if f else 0), f)):
            entries = {n: e for n, e in folders.get(folder, {}).items() if n}
            if folder and not entries:
                # git keeps no empty trees: an emptied folder leaves its parent
                parent, _, name = folder.rpartition(b"/")
                folders.get(parent, {}).pop(name, None)
                folders.pop(folder, None)
                continue
            body = b"".join(mode + b" " + name + b"\0" + oid for name, (mode, oid) in
                            sorted(entries.items(), key=lambda kv: kv[0] + b"/" if kv[1][0] == _TREE_MODE else kv[0]))
            oid = self._write_object(b"tree", body)
            if folder:
                parent, _, name = folder.rpartition(b"/")
                folders.setdefault(parent, {})[name] = (_TREE_MODE, oid)
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
            fh.write(zlib.compress(raw, 1))
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)
        return oid


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
