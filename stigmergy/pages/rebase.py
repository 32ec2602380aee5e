"""A page body's citation links written again for another path (a page that moves a folder deeper or up).

A citation's target is relative to the citing page (pages/citations.py), and so is every link in a
contradiction block (pages/contradictions.py). When a rename or a merge moves lines between folders of
different depths (a note filed flat before notes were sharded, into its shard: repo/layout.py), the same
citation is written differently. `rebase_body` renders each canonical citation group and each block again
for the new path; `anchored` is the form of a line in which its citation targets are repository paths, so
the gates can tell a line that moved from one that changed."""

from __future__ import annotations

import posixpath
import re

from stigmergy.errors import ContractError
from stigmergy.pages.citations import cite_many, parse_line
from stigmergy.pages.contradictions import END_MARKER, START_PREFIX, render_block, scan_blocks
from stigmergy.pages.markdown import code_lines

_GROUP_RE = re.compile(r"(?:^| )(\(\[source\]\([^\n]*\))$")


def same_folder(from_rel: str, to_rel: str) -> bool:
    return posixpath.dirname(from_rel) == posixpath.dirname(to_rel)


def rebase_body(body: str, from_rel: str, to_rel: str) -> str:
    """`body` (of the page at `from_rel`) with its citation groups and contradiction blocks written
    relative to `to_rel`. A line whose citations do not parse is left as it was, for the gates to judge."""
    if same_folder(from_rel, to_rel) or "[source](" not in body:
        return body
    blocks, _ = scan_blocks(body, from_rel)
    for block in blocks:
        body = body.replace(block.text, render_block(block.record, to_rel), 1)
    lines = body.split("\n")
    code = code_lines(body)
    in_block = False
    for n, line in enumerate(lines):
        if line.startswith(START_PREFIX):
            in_block = True  # rendered again above, for `to_rel`
        if in_block:
            in_block = not line.startswith(END_MARKER)
            continue
        if n in code or "[source](" not in line:
            continue
        lines[n] = rebase_line(line, from_rel, to_rel)
    return "\n".join(lines)


def rebase_line(line: str, from_rel: str, to_rel: str) -> str:
    """One line's citation group written relative to `to_rel` (the line itself when it has none)."""
    if "[source](" not in line:
        return line
    try:
        cites = parse_line(line, from_rel)
    except ContractError:
        return line
    m = _GROUP_RE.search(line)
    if not cites or m is None:
        return line
    return line[: m.start(1)] + cite_many(to_rel, [(c.path, c.start, c.end) for c in cites])


def anchored(line: str, page_rel: str) -> str:
    """The line with its citation group's targets as repository paths: equal for the same line on pages of
    any depth. A line without a canonical group is itself."""
    if "[source](" not in line:
        return line
    try:
        cites = parse_line(line, page_rel)
    except ContractError:
        return line
    m = _GROUP_RE.search(line)
    if not cites or m is None:
        return line
    return line[: m.start(1)] + "(" + ", ".join(f"@{c.path}#L{c.start}-L{c.end}" for c in cites) + ")"
