"""Line-level citations (DESIGN §5): one canonical Markdown form, rendered and parsed side by side.

    - Aurora reached $1.3M ARR in Q1 2026. ([source](../../sources/2026/03/cap_01J….md#L31-L32))

The link target is the source page file relative to the citing page, with `#Lstart-Lend` (or `#L31` for
one line): 1-based line numbers of the source page FILE, so GitHub highlights them. Several citations
share one group at the end of the line: `([source](a.md#L3), [source](b.md#L7-L9))`. See docs/citations.md.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from stigmergy.errors import ContractError
from stigmergy.pages.markdown import code_lines

LABEL = "source"
_TARGET = r"[^()\s\[\]<>]+?\.md#L[1-9]\d*(?:-L[1-9]\d*)?"
_LINK = rf"\[{LABEL}\]\(({_TARGET})\)"
_LINK_RE = re.compile(_LINK)
# The group must end the line and be preceded by a space (or be the whole line).
_GROUP_RE = re.compile(rf"(?:^| )\(({_LINK}(?:, {_LINK})*)\)$")
_ANCHOR_RE = re.compile(r"^(?P<path>.+?\.md)#L(?P<start>[1-9]\d*)(?:-L(?P<end>[1-9]\d*))?$")
_LOOSE_RE = re.compile(rf"\[{LABEL}\]\(")


@dataclass(frozen=True)
class Citation:
    capture_id: str  # the source page's file stem (a capture id when the target is a source page)
    path: str  # repository-relative path of the cited file (normalised; may escape the repo if hostile)
    start: int
    end: int


def relative_target(from_page_relpath: str, source_relpath: str) -> str:
    start = posixpath.dirname(from_page_relpath) or "."
    if _climbs(source_relpath) or _climbs(start):
        return posixpath.relpath(source_relpath, start)  # the answer depends on the working directory
    return _relative(source_relpath, start)


def _climbs(path: str) -> bool:
    """True for a path whose relpath depends on the working directory: absolute, or with '..'."""
    return path.startswith("/") or ".." in path


# posixpath.relpath calls abspath (and so os.getcwd) twice; a page cites the same few sources on every
# line, and the gates re-check every cited line of each page they touch, so the answer is memoised.
_relative = lru_cache(maxsize=1 << 14)(posixpath.relpath)


def link(from_page_relpath: str, source_relpath: str, start: int, end: int) -> str:
    """`[source](rel.md#L3-L5)`: one citation link, relative to the citing page."""
    if start < 1 or end < start:
        raise ValueError(f"bad line range {start}-{end}")
    anchor = f"L{start}" if start == end else f"L{start}-L{end}"
    return f"[{LABEL}]({relative_target(from_page_relpath, source_relpath)}#{anchor})"


def cite_many(from_page_relpath: str, refs: Iterable[tuple[str, int, int]]) -> str:
    """`([source](a.md#L3), [source](b.md#L7-L9))` for (source_relpath, start, end) refs, in the order given."""
    links = [link(from_page_relpath, path, start, end) for path, start, end in refs]
    if not links:
        raise ValueError("no citation to render")
    return f"({', '.join(links)})"


def cite(from_page_relpath: str, source_relpath: str, start: int, end: int | None = None) -> str:
    """The citation group for one range, ready to end a line: `([source](../../sources/…/cap_X.md#L31-L32))`."""
    return cite_many(from_page_relpath, [(source_relpath, start, start if end is None else end)])


def append_citation(line: str, from_page_relpath: str, refs: Iterable[tuple[str, int, int]]) -> str:
    """`line` with a citation group appended after one space."""
    return f"{line.rstrip()} {cite_many(from_page_relpath, refs)}"


def _resolve(from_page_relpath: str, target: str) -> str:
    joined = posixpath.join(posixpath.dirname(from_page_relpath), target)
    return posixpath.normpath(joined)


def parse_line(line: str, from_page_relpath: str) -> tuple[Citation, ...]:
    """The citations a line carries. A `[source](` link anywhere but in the canonical end group is refused."""
    if "[source](" not in line:
        return ()
    page_dir = posixpath.dirname(from_page_relpath)
    cites, error, stable = _parse_cached(line, page_dir)
    if not stable:
        return _parse(line, from_page_relpath)
    if error is not None:
        raise ContractError(error)
    return cites


@lru_cache(maxsize=1 << 15)
def _parse_cached(line: str, page_dir: str) -> tuple[tuple[Citation, ...], str | None, bool]:
    # A line's citations depend only on the line and the citing page's folder. Pages are re-checked on
    # every plan that touches them, and most of their lines are unchanged, so the answer (or the
    # refusal) is memoised; Citation is frozen, so sharing it is safe. `stable` is False when a target
    # leaves the repository, where the canonical check depends on the working directory: those lines
    # are parsed afresh.
    stable = not _climbs(page_dir)
    try:
        cites = _parse(line, posixpath.join(page_dir, "_"))
    except ContractError as exc:
        targets = (_ANCHOR_RE.match(t) for t in _LINK_RE.findall(line))
        return (), exc.message, stable and not any(
            a is not None and _climbs(_resolve(posixpath.join(page_dir, "_"), a["path"])) for a in targets
        )
    return cites, None, stable and not any(_climbs(c.path) for c in cites)


def _parse(line: str, from_page_relpath: str) -> tuple[Citation, ...]:
    match = _GROUP_RE.search(line)
    if match is None:
        raise ContractError("citation is not in the canonical form '([source](path.md#Ln-Lm))' at the end of the line")
    head = line[: match.start()]
    if _LOOSE_RE.search(head):
        raise ContractError("a [source](…) link appears before the line's citation group")
    out = []
    for target in _LINK_RE.findall(match.group(1)):
        anchor = _ANCHOR_RE.match(target)
        assert anchor is not None  # _TARGET guarantees it
        start = int(anchor["start"])
        end = int(anchor["end"]) if anchor["end"] else start
        if anchor["end"] and end <= start:
            raise ContractError(f"citation range L{start}-L{end} is empty or reversed (one line is '#L{start}')")
        path = _resolve(from_page_relpath, anchor["path"])
        out.append(Citation(capture_id=posixpath.basename(path)[:-3], path=path, start=start, end=end))
    if len(set(out)) != len(out):
        raise ContractError("the same citation appears twice on one line")
    canonical = cite_many(from_page_relpath, [(c.path, c.start, c.end) for c in out])
    if canonical != f"({match.group(1)})":
        raise ContractError("citation link is not written relative to the citing page in canonical form")
    return tuple(out)


def strip_citations(line: str) -> str:
    """The line without its trailing citation group (for figure checks and copy detection)."""
    match = _GROUP_RE.search(line)
    return line[: match.start()] if match else line


def citations_by_line(
    text: str, from_page_relpath: str, *, first_line: int = 1, errors: list[tuple[int, str]] | None = None
) -> dict[int, tuple[Citation, ...]]:
    """{1-based line number: citations} for every line of `text` that carries one.

    With `errors` given, non-canonical lines are appended there as (line, message) instead of raising.
    `first_line` is the file line number of the first line of `text` (use it when passing a body)."""
    out: dict[int, tuple[Citation, ...]] = {}
    page_dir = posixpath.dirname(from_page_relpath)
    code = code_lines(text) if "[source](" in text else frozenset()
    for offset, line in enumerate(text.split("\n")):
        if "[source](" not in line or offset in code:  # a citation quoted in a code block cites nothing
            continue
        cites, error, stable = _parse_cached(line, page_dir)
        if not stable:
            try:
                cites, error = _parse(line, from_page_relpath), None
            except ContractError as exc:
                cites, error = (), exc.message
        if error is not None:
            if errors is None:
                raise ContractError(f"line {first_line + offset}: {error}")
            errors.append((first_line + offset, error))
            continue
        if cites:
            out[first_line + offset] = cites
    return out


def cited_sources(text: str, from_page_relpath: str) -> list[str]:
    """Sorted capture ids cited anywhere in `text` (non-canonical lines ignored)."""
    ids = _cited_sources(text, posixpath.dirname(from_page_relpath))
    if ids is None:  # a target leaves the repository: its canonical form depends on the working directory
        ids = _cited_sources.__wrapped__(text, posixpath.dirname(from_page_relpath), fresh=True)
    return list(ids or ())


@lru_cache(maxsize=64)
def _cited_sources(text: str, page_dir: str, fresh: bool = False) -> tuple[str, ...] | None:
    # Memoised: a plan's page body is read for its sources when it is provisional and again when final.
    found: list[tuple[Citation, ...]] = []
    code = code_lines(text) if "[source](" in text else frozenset()
    for offset, line in enumerate(text.split("\n")):
        if "[source](" not in line or offset in code:
            continue
        cites, error, stable = _parse_cached(line, page_dir)
        if not stable:
            if not fresh:
                return None
            try:
                cites, error = _parse(line, posixpath.join(page_dir, "_")), None
            except ContractError:
                continue
        if error is None:
            found.append(cites)
    return tuple(sorted({c.capture_id for cites in found for c in cites}))
