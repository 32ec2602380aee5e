"""Real-path containment: a path the tool reads or lists is the file it names, inside its own tree.

A check of the last component is not enough: `wiki/projects -> ../layers/board/wiki/entities` makes every
board entity readable as a public project page, and a link to `/` makes the whole machine readable. So a
repository-relative path is accepted only when no component on the way is a symbolic link and its real
path is exactly `<real root>/<path>`: the layer the path names is then the layer the bytes live in.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def contained_file(root: Path, rel: str) -> Path | None:
    """`root/rel` when it is a regular file reached without any symbolic link and inside `root`; else None."""
    if not rel or rel.startswith("/") or "\\" in rel:
        return None
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    base = _real_root(str(root))
    full = os.path.join(base, *parts)
    try:
        st = os.lstat(full)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or os.path.realpath(full) != full:
        return None
    return Path(full)


def read_contained(root: Path, rel: str, errors: str = "strict") -> str | None:
    """The UTF-8 text of a contained file (see `contained_file`), or None."""
    path = contained_file(root, rel)
    if path is None:
        return None
    try:
        return path.read_bytes().decode("utf-8", errors)
    except (OSError, UnicodeDecodeError):
        return None


def symlinks_under(root: Path, rel_dir: str) -> list[str]:
    """Repository-relative paths of symbolic links at or below `rel_dir` (not followed), sorted."""
    out: list[str] = []
    top = root / rel_dir
    if top.is_symlink():
        return [rel_dir]
    if not top.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(top):
        rel_base = Path(dirpath).relative_to(root).as_posix()
        for name in (*dirnames, *filenames):
            if os.path.islink(os.path.join(dirpath, name)):
                out.append(f"{rel_base}/{name}")
    return sorted(out)
