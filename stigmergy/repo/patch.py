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


_MYERS_MAX_EDITS = 2000


def _myers(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]] | None:
    """Opcodes of a shortest edit script (Myers, O((N+M)·D)); None past _MYERS_MAX_EDITS edits. A planner
    changes a few lines of a long page (front matter and an inserted section), where this is linear."""
    n, m = len(a), len(b)
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    for d in range(min(n + m, _MYERS_MAX_EDITS) + 1):
        trace.append(v[offset - d - 1 : offset + d + 2])  # the diagonals -d-1..d+1 are all it reads back
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            if x < n and y < m and a[x] == b[y]:
                x = _snake(a, b, x, y)
                y = x - k
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(trace, v, a, b, d, offset)
    return None


def _snake(a: list[str], b: list[str], x: int, y: int) -> int:
    """The end of the run of equal lines from a[x], b[y]: the line-by-line walk, in doubling slices.

    The first diagonal of a page filed again runs through every line before the first change (hundreds on
    a page at its bound); comparing slices does that walk in C, and a run ends at the same line."""
    step = 8
    while True:
        if x + step <= len(a) and y + step <= len(b) and a[x : x + step] == b[y : y + step]:
            x += step
            y += step
            step *= 2
        elif step > 1:
            step //= 2
        else:
            return x


def _backtrack(trace: list[list[int]], v_end: list[int], a: list[str], b: list[str], d_end: int, offset: int):  # noqa: ANN202
    # Walked back a run at a time (a page at its bound is ~460 lines, nearly all in a few equal runs), not a
    # line at a time; the opcodes are the path's maximal runs: equal, or changed (delete, insert, or
    # replace where both occur).
    x, y = len(a), len(b)
    runs: list[tuple[str, int, int, int, int]] = []  # from the end back
    for d in range(d_end, 0, -1):
        v = trace[d]  # diagonal k at v[d + 1 + k]
        k = x - y
        if k == -d or (k != d and v[d + k] < v[d + k + 2]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = v[d + 1 + prev_k]
        prev_y = prev_x - prev_k
        if x > prev_x and y > prev_y:
            s = min(x - prev_x, y - prev_y)
            runs.append(("equal", x - s, x, y - s, y))
            x, y = x - s, y - s
        if x == prev_x:
            y -= 1
            runs.append(("insert", x, x, y, y + 1))
        else:
            x -= 1
            runs.append(("delete", x, x + 1, y, y))
    if x > 0 and y > 0:
        s = min(x, y)
        runs.append(("equal", x - s, x, y - s, y))
    ops: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in reversed(runs):
        if ops and (ops[-1][0] == "equal") == (tag == "equal"):
            t = ops[-1][0]
            ops[-1] = (t if t == tag else "replace", ops[-1][1], i2, ops[-1][3], j2)
        else:
            ops.append((tag, i1, i2, j1, j2))
    return ops


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    ops = _myers(a, b)
    if ops is None:  # a rewrite of most of a long page: difflib copes better with many edits
        ops = [(str(t), i1, i2, j1, j2) for t, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]
    return ops or [("equal", 0, 0, 0, 0)]


def _grouped(ops: list[tuple[str, int, int, int, int]], n: int = 3) -> list[list[tuple[str, int, int, int, int]]]:
    """difflib.SequenceMatcher.get_grouped_opcodes, over precomputed opcodes."""
    codes = list(ops)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    nn = n + n
    groups, group = [], []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > nn:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _range(start: int, stop: int) -> str:
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _line(prefix: str, line: str) -> str:
    return f"{prefix}{line}" if line.endswith("\n") else f"{prefix}{line}\n\\ No newline at end of file\n"


def _hunks(before: list[str], after: list[str]) -> list[str]:
    out = []
    for group in _grouped(_opcodes(before, after)):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_line(" ", x) for x in before[i1:i2])
                continue
            if tag in ("replace", "delete"):
                out.extend(_line("-", x) for x in before[i1:i2])
            if tag in ("replace", "insert"):
                out.extend(_line("+", x) for x in after[j1:j2])
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
