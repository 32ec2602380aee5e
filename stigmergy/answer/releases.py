"""Release notes in documentation: a MyST version fence ("```{versionchanged} 22.1") or a reStructuredText
directive (".. versionadded:: 22.2"), said as Sphinx renders them ("Changed in version 22.1"), and the page
lines each one wraps (read by `evidence.source_units`)."""

from __future__ import annotations

import re

FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})\s*(.*)$")
_ROLE_RE = re.compile(r"\{[\w-]+\}")


# A MyST version directive wraps what changed in a release ("```{versionchanged} 22.1"): said as Sphinx
# renders it, it is the context of what it holds, as a tab's label is ("when did that option go?").
_VERSION_DIRECTIVES = {"versionadded": "New in version", "versionchanged": "Changed in version",
                       "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
_VERSION_DIRECTIVE_RE = re.compile(r"^\{(" + "|".join(_VERSION_DIRECTIVES) + r")\}\s+(\S+)\s*$")
_RST_VERSION_RE = re.compile(r"^(\s*)\.\.\s+(" + "|".join(_VERSION_DIRECTIVES) + r")::\s+(\S+)\s*(.*)$")


def rst_note(raw: str) -> tuple[str, str, int] | None:
    """ ".. versionchanged:: 22.1" (reStructuredText): (the note as Sphinx renders it, the text on its line,
    the directive's indent)."""
    m = _RST_VERSION_RE.match(raw)
    return (f"{_VERSION_DIRECTIVES[m.group(2)]} {m.group(3).rstrip('.,:')}", m.group(4).strip(), len(m.group(1))) if m else None


def version_notes(content: list[str], first: int, body_from: int) -> dict[int, tuple[str, int]]:
    """page line -> (the release note it sits in, the note's directive line): what a MyST fence
    ("```{versionchanged} 22.1") or a reStructuredText directive (".. versionadded:: 22.2" and its indented
    body) wraps. A change note is the documentation's own word on what a release changed in the text around it."""
    out: dict[int, tuple[str, int]] = {}
    fences: list[tuple[str, str, int]] = []  # (marker, note, its line)
    rst: tuple[str, int, int] | None = None  # (note, its line, its indent)
    for offset, raw in enumerate(content):
        if offset < body_from:
            continue
        n = first + offset
        fence = FENCE_RE.match(raw)
        if fence:
            marker, label = fence.group(1), fence.group(2).strip()
            if fences and not label and marker[0] == fences[-1][0][0] and len(marker) >= len(fences[-1][0]):
                fences.pop()
            else:
                m = _VERSION_DIRECTIVE_RE.match(label)
                outer = fences[-1][1:] if fences else ("", 0)
                fences.append((marker, *((fence_label(label), n) if m else outer)))
                if empty_version_note(content, offset, label):
                    out[n] = (fence_label(label), n)  # the note alone (source_units): about its section
            continue
        if rst is not None and raw.strip() and len(raw) - len(raw.lstrip()) <= rst[2]:
            rst = None
        note = rst_note(raw)
        if note is not None:
            rst = (note[0], n, note[2])
        if rst is not None:
            out[n] = (rst[0], rst[1])
        elif fences and fences[-1][1]:
            out[n] = (fences[-1][1], fences[-1][2])
    return out


def fence_label(info: str) -> str:
    """A fence's info string as the label a reader sees: a version directive as Sphinx renders it ("Changed in
    version 22.1"), another directive's braces dropped ("{tab} Windows": "Windows")."""
    m = _VERSION_DIRECTIVE_RE.match(info.strip())
    if m:
        return f"{_VERSION_DIRECTIVES[m.group(1)]} {m.group(2)}"
    return " ".join(_ROLE_RE.sub(" ", info).split())


def empty_version_note(content: list[str], offset: int, info: str) -> bool:
    """A MyST version fence whose next line closes it: a release note with no body."""
    if not _VERSION_DIRECTIVE_RE.match(info.strip()) or offset + 1 >= len(content):
        return False
    closing = FENCE_RE.match(content[offset + 1])
    return bool(closing and not closing.group(2).strip())
