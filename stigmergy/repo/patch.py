"""The exact patch of an operation, in git's format, built in-process from the pre- and post-images the
operation already holds (one git process fewer per operation than `git diff-tree -p`). `git apply`
takes it; a test checks it reproduces the commit."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from stigmergy.repo.git import blob_sha

ZERO = "0" * 40


@dataclass(frozen=True)
class FileChange:
    path: str
    before: bytes | None  # None: the file did not exist
    after: bytes | None  # None: the file is deleted


def quote_path(path: str) -> str:
    """git's C-style quoting (core.quotePath=true): needed for bytes >= 0x80, controls, '"' and '\\'."""
    raw = path.encode("utf-8")
    if not any(b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) for b in raw):
        return path
    out = []
    for b in raw:
        if b == 0x22:
            out.append('\\"')
        elif b == 0x5C:
            out.append("\\\\")
        elif b == 0x09:
            out.append("\\t")
        elif b == 0x0A:
            out.append("\\n")
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def _name(prefix: str, path: str) -> str:
    quoted = quote_path(path)
    return f'"{prefix}{quoted[1:]}' if quoted.startswith('"') else f"{prefix}{path}"


def is_text(data: bytes | None) -> bool:
    if data is None:
        return True
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _hunks(before: list[str], after: list[str]) -> list[str]:
    out = []
    for line in difflib.unified_diff(before, after, n=3, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            out.append(line + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return out


def git_patch(changes: Iterable[FileChange]) -> bytes | None:
    """The patch, or None when a change is not UTF-8 text (the caller asks git for a binary patch)."""
    parts: list[str] = []
    for ch in sorted(changes, key=lambda c: c.path):
        if not (is_text(ch.before) and is_text(ch.after)):
            return None
        a, b = _name("a/", ch.path), _name("b/", ch.path)
        parts.append(f"diff --git {a} {b}\n")
        old_id = blob_sha(ch.before) if ch.before is not None else ZERO
        new_id = blob_sha(ch.after) if ch.after is not None else ZERO
        if ch.before is None:
            parts.append(f"new file mode 100644\nindex {old_id}..{new_id}\n")
        elif ch.after is None:
            parts.append(f"deleted file mode 100644\nindex {old_id}..{new_id}\n")
        else:
            parts.append(f"index {old_id}..{new_id} 100644\n")
        before_lines = ch.before.decode("utf-8").splitlines(keepends=True) if ch.before else []
        after_lines = ch.after.decode("utf-8").splitlines(keepends=True) if ch.after else []
        if not before_lines and not after_lines:
            continue  # an empty file added or removed: the header says it all
        parts.append("--- /dev/null\n" if ch.before is None else f"--- {a}\n")
        parts.append("+++ /dev/null\n" if ch.after is None else f"+++ {b}\n")
        parts.extend(_hunks(before_lines, after_lines))
    return "".join(parts).encode("utf-8")
