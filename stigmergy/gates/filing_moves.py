"""What the gates allow filing to do with lines it wrote before, and how they verify it (docs/gates.md):

- A page's lead (the lines between `<!-- stigmergy:lead -->` and `<!-- /stigmergy:lead -->` right after
  its title) is regenerated on each filing. A cited line may leave the lead only when the same line, with
  the same citation, is still on the page outside the new lead.
- A page past its size moves its oldest dated sections to its archive pages `<Title> (<year>).md` (and
  `<Title> (<year>, <part>).md` once a year's page is full) in the same folder. A cited line may leave
  the page only when the same line arrives on one of its archive pages in the same plan; a source the
  page stops citing must be cited by the lines that moved.
- A contradiction block may leave the page only when the same block, byte for byte, arrives on one of
  its archive pages in the same plan; a block new to an archive page must be one that left its page.
  Whether a block was resolved or still open, it moves unchanged (the lead says where open ones went).

Nothing else is relaxed: every allowance names the line it accounts for and is recorded.
"""

from __future__ import annotations

import re
from collections import Counter

from stigmergy.gates.context import GateContext, line_counter, line_counts
from stigmergy.gates.view import _v
from stigmergy.pages.citations import parse_line
from stigmergy.pages.contradictions import Block
from stigmergy.pages.wiki import LEAD_END, LEAD_START

_ARCHIVE = re.compile(r"^(?P<base>.+) \((?P<year>\d{4})(?:, (?P<part>[2-9]|[1-9]\d+))?\)$")


def lead_range(lines: list[str]) -> range:
    """Indexes of the lead's lines (markers included), or an empty range."""
    try:
        a = lines.index(LEAD_START)
        b = lines.index(LEAD_END, a)
    except ValueError:
        return range(0)
    return range(a, b + 1)


def _base_of(rel: str) -> str | None:
    """The page an archive page `rel` belongs to (same folder), else None."""
    folder, name = rel.rsplit("/", 1)
    m = _ARCHIVE.match(name[:-3])
    return f"{folder}/{m.group('base')}.md" if m else None


def _block_texts(ctx: GateContext, rel: str, text: str | None) -> set[str]:
    if not text or "<!-- stigmergy:contradiction " not in text:
        return set()
    return {b.text for b in _v(ctx, rel, text).blocks}


def block_moved(ctx: GateContext, rel: str, block: Block) -> str | None:
    """Why `block` may leave the page `rel`: it arrives, byte for byte, on one of its archive pages in
    this plan (it was not there before). None when it does not."""
    for other in _archives_of(ctx, rel):
        if block.text in _block_texts(ctx, other, ctx.changes[other]) and block.text not in _block_texts(ctx, other, ctx.disk_text(other)):
            return f"contradiction {block.record.id} moved to the archive page {other}"
    return None


def block_from_base(ctx: GateContext, rel: str, block: Block) -> bool:
    """Whether a block new to the archive page `rel` left its page in this plan, byte for byte."""
    base = _base_of(rel)
    if base is None or base not in ctx.changes:
        return False
    return block.text in _block_texts(ctx, base, ctx.disk_text(base)) and block.text not in _block_texts(ctx, base, ctx.changes[base])


def _archives_of(ctx: GateContext, rel: str) -> list[str]:
    folder, name = rel.rsplit("/", 1)
    stem = name[:-3]
    out = []
    for other, text in ctx.changes.items():
        if text is None or other == rel or not other.startswith(folder + "/") or other.count("/") != rel.count("/"):
            continue
        m = _ARCHIVE.match(other.rsplit("/", 1)[1][:-3])
        if m and m.group("base") == stem:
            out.append(other)
    return out


class FilingMoves:
    """Accounts, for one page a filing changes, for old cited lines it does not keep where they were."""

    def __init__(self, ctx: GateContext, rel: str, old: str, new: str | None) -> None:
        self.rel = rel
        old_lines = old.split("\n")
        self.old_lead = Counter(old_lines[i] for i in lead_range(old_lines))
        new_lines = (new or "").split("\n")
        # The new body's count of a line is the page's shared count less the new lead's: no pass in Python
        # over every line of a page at its bound.
        self.new_all = line_counts(new) if new else Counter(new_lines)
        self.new_lead = Counter(new_lines[i] for i in lead_range(new_lines))
        self.arrived: Counter[str] = Counter()
        self.arrived_on: dict[str, str] = {}
        for other in _archives_of(ctx, rel):
            added = line_counter(ctx.changes[other]) - line_counter(ctx.disk_text(other))
            for line, n in added.items():
                self.arrived[line] += n
                self.arrived_on.setdefault(line, other)
        self.arrived_total = Counter(self.arrived)

    def account(self, line: str) -> str | None:
        """Why losing one copy of `line` from this page is allowed, as a record; None when it is not."""
        if self.old_lead[line] > 0 and self.new_all[line] - self.new_lead[line] > 0:
            self.old_lead[line] -= 1
            return f"lead line regenerated, kept in the body of {self.rel}: {line}"
        if self.arrived[line] > 0:
            self.arrived[line] -= 1
            return f"moved to the archive page {self.arrived_on[line]}: {line}"
        if self.old_lead[line] > 0 and self.arrived_total[line] > 0:
            # The lead copied a body line that this plan moves to the archive: the line is kept there.
            self.old_lead[line] -= 1
            return f"lead line regenerated, its body line moved to {self.arrived_on[line]}: {line}"
        return None


def moved_sources(ctx: GateContext, rel: str) -> set[str]:
    """Sources cited by the lines that left `rel` for its archive pages in this plan."""
    out: set[str] = set()
    for other in _archives_of(ctx, rel):
        added = line_counter(ctx.changes[other]) - line_counter(ctx.disk_text(other))
        removed = line_counter(ctx.disk_text(rel)) - line_counter(ctx.changes.get(rel))
        for line in added:
            if removed[line] > 0:
                try:
                    out |= {c.capture_id for c in parse_line(line, other)}
                except Exception:  # noqa: BLE001
                    continue
    return out
