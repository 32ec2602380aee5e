"""The shape of a page the deterministic planner keeps: a lead after the title, then dated sections in
date order, then contradiction blocks; bounded in size by moving its oldest dated sections to an archive
page per year.

- `insert_section` places a new dated section in date order without touching an existing line, and
  leaves out any line the page already has (no line twice on a page).
- `with_lead` regenerates the lead: the lines between `LEAD_START` and `LEAD_END` right after the title.
  A cited lead line is always a verbatim copy of a body line, so dropping it loses nothing (the gates
  accept exactly that).
- `split_archive` keeps the newest `KEEP_SECTIONS` dated sections once a page has more than
  `MAX_SECTIONS`, and hands the older ones, by year, to the archive pages `<Title> (<year>).md` beside
  the page. Only a section made entirely of lines filing writes (its heading, cited list lines, blank
  lines) moves: a line a person wrote is never moved.
- `split_blocks` does the same for contradiction blocks: resolved ones always, and the oldest open ones
  once more than `MAX_OPEN_BLOCKS` are open, down to `KEEP_OPEN_BLOCKS`; they move verbatim (a block's
  links are relative to its folder, and an archive page is in the same folder).
- An archive page holds at most about `MAX_ARCHIVE_LINES` lines: past that, the year continues on
  `<Title> (<year>, 2).md`, then `, 3`, so no page of the wiki grows without bound.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stigmergy.errors import ContractError
from stigmergy.pages.contradictions import START_PREFIX, Block, scan_blocks
from stigmergy.pages.wiki import LEAD_END, LEAD_START

MAX_SECTIONS = 24  # dated sections a page holds before its oldest move to the archive pages
KEEP_SECTIONS = 12  # dated sections left on the page after a move (moves are batched, not per filing)
MAX_OPEN_BLOCKS = 8  # open contradiction blocks a page holds before its oldest move to the archive pages
KEEP_OPEN_BLOCKS = 4  # open blocks left on the page after a move
MAX_ARCHIVE_LINES = 400  # body lines of an archive page before its year continues on the next part
BLOCK_START = START_PREFIX
_DATED = re.compile(r"^## (\d{4})-\d{2}-\d{2}\b")
_FILED_HEADING = re.compile(r"^## \d{4}-\d{2}-\d{2} · ")
ARCHIVE = re.compile(r"^(?P<base>.+) \((?P<year>\d{4})(?:, (?P<part>[2-9]|[1-9]\d+))?\)$")


def archive_title(title: str, year: str, part: int = 1) -> str:
    return f"{title} ({year})" if part <= 1 else f"{title} ({year}, {part})"


def archive_base(title: str) -> str | None:
    """The page an archive page belongs to ('Harbor API' for 'Harbor API (2026)' or 'Harbor API (2026,
    2)'), else None."""
    m = ARCHIVE.match(title)
    return m.group("base") if m else None


def archive_key(title: str) -> tuple[str, int] | None:
    """(year, part) of an archive page's title, else None."""
    m = ARCHIVE.match(title)
    return (m.group("year"), int(m.group("part") or 1)) if m else None


def _section_end(lines: Sequence[str], start: int) -> int:
    """Index just past the dated section that starts at `start`."""
    n = start + 1
    while n < len(lines):
        line = lines[n]
        if line.startswith(("## ", "# ")) or line.startswith((BLOCK_START, LEAD_START)):
            break
        n += 1
    return n


def _movable(section: Sequence[str]) -> bool:
    if not _FILED_HEADING.match(section[0]):
        return False
    return all(not line.strip() or (line.startswith("- ") and "([source](" in line) for line in section[1:])


def insert_section(body: str, date: str, section: list[str]) -> str:
    """`body` with a dated section inserted: before the first dated section that is later, else after the
    last dated section (before the contradiction blocks and any text a person wrote after it), else at
    the end. Existing lines are never touched; lines the page already has are not written again."""
    lines = body.rstrip("\n").split("\n")
    have = set(lines)
    section = [section[0], *[line for line in section[1:] if not line.strip() or line not in have]]
    if not any(line.strip() for line in section[1:]):
        return body.rstrip("\n") + "\n"
    at = None
    last = None
    for n, line in enumerate(lines):
        if line.startswith("## ") and _DATED.match(line):
            if line[3:13] > date:
                at = n
                break
            last = n
    if at is None:
        # Only the last dated section's end is wanted: walking every section to its end walked the page
        # a second time (most filings add the newest section, after every other).
        at = _section_end(lines, last) if last is not None else len(lines)
        if last is None:
            for n, line in enumerate(lines):
                if line.startswith(BLOCK_START):
                    at = n
                    break
    block = [*section, ""]
    before = lines[:at]
    while before and before[-1] == "":
        before.pop()
    after = lines[at:]
    while after and after[0] == "":
        after.pop(0)
    return "\n".join([*before, "", *block, *after]).rstrip("\n") + "\n"


def split_archive(body: str) -> tuple[str, dict[str, list[list[str]]]]:
    """(the body left on the page, {year: [section lines, ...]}) when the page has more than
    MAX_SECTIONS dated sections; else (body, {})."""
    lines = body.rstrip("\n").split("\n")
    starts = [n for n, line in enumerate(lines) if _DATED.match(line)]
    if len(starts) <= MAX_SECTIONS:
        return body, {}
    to_move = len(starts) - KEEP_SECTIONS
    moved: dict[str, list[list[str]]] = {}
    drop: set[int] = set()
    for start in starts:  # oldest first: sections are in date order
        if to_move <= 0:
            break
        end = _section_end(lines, start)
        section = lines[start:end]
        if not _movable(section):
            continue
        while section and not section[-1].strip():
            section = section[:-1]
        moved.setdefault(lines[start][3:7], []).append(section)
        drop |= set(range(start, end))
        to_move -= 1
    kept = [line for n, line in enumerate(lines) if n not in drop]
    out: list[str] = []
    for line in kept:  # no run of blank lines where sections left
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return "\n".join(out).rstrip("\n") + "\n", moved


def archive_body(
    title: str, base_stem: str, year: str, sections: list[list[str]], old_body: str | None,
    blocks: Sequence[str] = (), previous: str | None = None,
) -> str:
    """The archive page of `base_stem` for `year` with `sections` added in date order and `blocks` (exact
    block texts) after them; `previous` is the archive part this one continues."""
    lead = f"Dated sections and contradictions of [[{base_stem}]] from {year}, moved here to keep that page short."
    if previous is not None:
        lead += f" Earlier: [[{previous}]]."
    body = old_body or "\n".join([f"# {title}", "", LEAD_START, lead, LEAD_END, ""])
    for section in sections:
        body = insert_section(body, section[0][3:13], section)
    for block in blocks:
        body = body.rstrip("\n") + "\n\n" + block.rstrip("\n") + "\n"
    return body


def split_blocks(body: str, path: str, planned_open: int, keep: frozenset[str] = frozenset()) -> tuple[str, list[Block]]:
    """(the body left on the page, the blocks that leave it, oldest first): every resolved block, and the
    oldest open ones when the page's open blocks with the `planned_open` this plan adds come to more than
    MAX_OPEN_BLOCKS (down to KEEP_OPEN_BLOCKS). Blocks whose id is in `keep` stay (one this plan
    resolves). A page whose blocks do not parse is left as it is: the gates report it."""
    if START_PREFIX not in body:
        return body, []
    try:
        blocks, errors = scan_blocks(body, path)
    except ContractError:
        return body, []
    if errors:
        return body, []
    movable = [b for b in blocks if b.record.id not in keep]
    leaving = [b for b in movable if b.record.status == "resolved"]
    open_blocks = [b for b in movable if b.record.status == "open"]
    total_open = sum(1 for b in blocks if b.record.status == "open") + planned_open
    if total_open > MAX_OPEN_BLOCKS:
        leaving += open_blocks[: total_open - KEEP_OPEN_BLOCKS]
    if not leaving:
        return body, []
    leaving.sort(key=lambda b: b.start_line)
    for b in leaving:
        body = body.replace(b.text, "", 1)
    out: list[str] = []
    for line in body.rstrip("\n").split("\n"):  # no run of blank lines where blocks left
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return "\n".join(out).rstrip("\n") + "\n", leaving


def block_year(block: Block, default: str) -> str:
    """The year a block belongs to: its newest claim's."""
    dates = [c.date[:4] for c in block.record.claims if c.date[:4].isdigit()]
    return max(dates) if dates else default


def split_lead(body: str) -> tuple[list[str], list[str], list[str]]:
    """(title lines, lead lines, the rest) of a body; the lead is empty when the page has none."""
    lines = body.rstrip("\n").split("\n")
    head = lines[:1]
    rest = lines[1:]
    if LEAD_START in rest:
        a = rest.index(LEAD_START)
        b = rest.index(LEAD_END, a) if LEAD_END in rest[a:] else a
        if all(not line.strip() for line in rest[:a]):
            return head, rest[a : b + 1], rest[b + 1 :]
    return head, [], rest


def with_lead(body: str, lead: list[str]) -> str:
    """`body` with its lead replaced by `lead` (lines without the markers); no lead when it is empty."""
    head, _, rest = split_lead(body)
    while rest and not rest[0].strip():
        rest = rest[1:]
    block = [LEAD_START, *lead, LEAD_END, ""] if lead else []
    return "\n".join([*head, "", *block, *rest]).rstrip("\n") + "\n"
