"""What a capture command was given: files, directories (with include/exclude globs), stdin, --text."""

from __future__ import annotations

import fnmatch
import os
import stat
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import InputError


@dataclass(frozen=True)
class InputItem:
    locator: str  # the original file name or path, as recorded in the source page
    read: Callable[[], bytes]
    size: int | None = None
    media_type: str | None = None
    origin_name: str | None = None  # name used for type detection when the locator has none


@dataclass(frozen=True)
class Skipped:
    """An entry of a captured directory that was not taken, and why (it is not an error)."""

    locator: str
    reason: str  # symlink | not-a-regular-file


def _unprintable(ch: str) -> bool:
    # Cc: controls (a newline would break an output line or a front-matter field); Cf: invisible format
    # characters, among them the bidirectional overrides and isolates (U+202E makes `txt.exe` print as
    # `exe.txt`) and zero-width ones; Zl/Zp: line and paragraph separators.
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")


def printable(name: str) -> str:
    """A file name as it may be printed and recorded: control and invisible format characters written as
    escapes (`\\n`, `\\x1b`, `\\u202e`), so what is printed is what the name holds."""
    if name.isascii() and name.isprintable():
        return name
    return "".join(ch.encode("unicode_escape").decode("ascii") if _unprintable(ch) else ch for ch in name)


def _matches(rel: str, patterns: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _file_item(path: Path, locator: str) -> InputItem:
    return InputItem(locator=printable(locator), read=path.read_bytes, size=path.stat().st_size)


# Left out of a directory whatever `[capture]` says: the repository's file is anyone's who can push, and a
# committed `include = ["*"], exclude = []` must not make `capture project/` take `.bash_history` or
# `.git/config`. Only the person running the command can take hidden files (`hidden=True`); `.git/`
# is never taken.
HIDDEN = (".*", "*/.*")


def _git_ignored(folder: Path, rels: list[str]) -> set[str]:
    """Which of `rels` (relative to `folder`) the user's Git ignore rules exclude, when `folder` lies in a
    Git working tree. `--no-index` reads no index (so no fsmonitor or other program the folder's own
    configuration could name runs); a tracked file that matches a rule counts as ignored too."""
    if not rels:
        return set()
    from stigmergy.repo.git import Git

    out = Git(folder).run_bytes("-c", "core.fsmonitor=false", "check-ignore", "--no-index", "--stdin", "-z",
                                input=b"\0".join(r.encode("utf-8", "surrogateescape") for r in rels) + b"\0",
                                check=False)
    return {r.decode("utf-8", "surrogateescape") for r in out.split(b"\0") if r}


def gather(
    paths: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    stdin: Callable[[], bytes] | None = None,
    text: str | None = None,
    skipped: list[Skipped] | None = None,
    hidden: bool = False,
) -> tuple[list[InputItem], list[InputError]]:
    """Expand the arguments into capture items, in a stable order; missing paths become errors.

    A directory yields the regular files under it only: a symbolic link (to a file or a folder, inside
    the tree or out of it) is never followed, and is appended to `skipped` with anything else that is
    not a regular file (sockets, fifos, devices), so the caller can say what it left out. Dot-files,
    dot-folders and what the user's Git ignore rules exclude are left out unless `hidden`; `.git/` always."""
    skipped = skipped if skipped is not None else []
    if not hidden:
        exclude = (*exclude, *HIDDEN)
    items: list[InputItem] = []
    errors: list[InputError] = []
    if text is not None:
        data = text.encode("utf-8")
        items.append(InputItem(locator="text", read=lambda: data, size=len(data), origin_name="text.txt"))
    for arg in paths:
        if arg == "-":
            if stdin is None:
                errors.append(InputError("-", "missing", "standard input is not available"))
                continue
            cache: list[bytes] = []

            def read_stdin(cache: list[bytes] = cache) -> bytes:
                if not cache:
                    cache.append(stdin())
                return cache[0]

            items.append(InputItem(locator="stdin", read=read_stdin, origin_name="stdin.txt"))
            continue
        path = Path(arg)
        if path.is_symlink() and not path.exists():
            errors.append(InputError(printable(arg), "missing", "is a broken symbolic link"))
        elif path.is_file():
            items.append(_file_item(path, os.path.normpath(arg)))
        elif path.is_dir():
            found = []
            # Locators name the file from the captured folder down (`corpus/meetings/x.md`), so they
            # stay meaningful on other machines and do not leak where the folder lived.
            base = os.path.basename(os.path.normpath(os.path.abspath(arg)))
            for dirpath, dirnames, filenames in os.walk(path):  # followlinks=False: linked folders stay shut
                rel_dir = os.path.relpath(dirpath, path)
                kept = []
                for d in sorted(dirnames):
                    rel = os.path.normpath(os.path.join(rel_dir, d))
                    if d == ".git" or _matches(rel + "/", exclude) or _matches(rel, exclude):
                        continue
                    if os.path.islink(os.path.join(dirpath, d)):
                        skipped.append(Skipped(printable(f"{base}/{rel}"), "symlink"))
                        continue
                    kept.append(d)
                dirnames[:] = kept
                for name in sorted(filenames):
                    rel = os.path.normpath(os.path.join(rel_dir, name))
                    if _matches(rel, exclude) or not _matches(rel, include):
                        continue
                    full = Path(dirpath) / name
                    try:
                        mode = full.lstat().st_mode
                    except OSError:
                        continue
                    if stat.S_ISLNK(mode):
                        skipped.append(Skipped(printable(f"{base}/{rel}"), "symlink"))
                    elif not stat.S_ISREG(mode):
                        skipped.append(Skipped(printable(f"{base}/{rel}"), "not-a-regular-file"))
                    else:
                        found.append((rel, full))
            if not hidden:
                ignored = _git_ignored(path, [rel for rel, _ in found])
                found = [(rel, full) for rel, full in found if rel not in ignored]
            for rel, full in sorted(found):
                items.append(_file_item(full, f"{base}/{rel}"))
            if not found:
                errors.append(InputError(printable(arg), "empty", "directory holds no file that matches the include globs"))
        elif path.exists():
            errors.append(InputError(printable(arg), "unsupported-type", "is neither a file nor a directory"))
        else:
            errors.append(InputError(printable(arg), "missing", "no such file or directory"))
    return items, errors
