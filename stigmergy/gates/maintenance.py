"""What the gates allow a maintenance operation (delete, garden, merge, rename, recompile), and how they
verify it. Nothing here relaxes a gate for a kind as a whole: each allowance names the line, block, source
or alias it accounts for, and is recorded.

- A line may change only in where its wikilinks point and whether they link: its *visible* text (what a
  reader sees, wikilinks replaced by their label or target) must survive on the same page, or, for a page
  a merge or rename moves (`op.moves`), on the page it moves to. A line whose new links do not resolve is
  refused.
- `delete` may drop a line, a contradiction claim, an attribution or an alias only when it rests on a source
  the operation removes, and may drop a page only when the user named it (`op.targets`) or nothing but its
  heading is left. It may remove only the source pages it names.
- A contradiction block a page loses must reappear byte-identical on the page it moves to, or be the same
  record less the claims (and resolution) that rest on a removed source.
- `recompile` rebuilds derived pages: a cited line it no longer writes is retired and recorded (the
  report lists every one); blocks, aliases and human lines are kept as for any other operation."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from functools import lru_cache

from stigmergy.gates.context import GateContext, Violation, line_counter
from stigmergy.gates.view import _v
from stigmergy.pages.citations import Citation
from stigmergy.pages.contradictions import Block
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wikilinks import WIKILINK_RE, parse_wikilinks
from stigmergy.pages.wikilinks import fold_name as fold
from stigmergy.repo.layout import classify

MAINTENANCE_KINDS = ("delete", "garden", "merge", "rename", "recompile")
MOVING_KINDS = ("merge", "rename")


def is_maintenance(ctx: GateContext) -> bool:
    return ctx.op.kind in MAINTENANCE_KINDS


@lru_cache(maxsize=1 << 14)
def visible(line: str) -> str:
    """The line as a reader sees it: each wikilink replaced by its label (or its target)."""
    if "[[" not in line:
        return line
    return WIKILINK_RE.sub(lambda m: m.group(3) if m.group(3) else m.group(1).strip(), line)


def successor(ctx: GateContext, rel: str) -> str | None:
    for old, new in ctx.op.moves:
        if old == rel:
            return new
    return None


def removed_sources(ctx: GateContext) -> set[str]:
    """Capture ids of the source pages this operation removes (delete only)."""
    if ctx.op.kind != "delete":
        return set()
    return {
        stem_of(rel) for rel, text in ctx.changes.items()
        if text is None and (classify(rel) or ("", ""))[0] == "source" and rel in ctx.op.targets
    }


def source_removal_allowed(ctx: GateContext, rel: str) -> bool:
    return ctx.op.kind == "delete" and rel in ctx.op.targets


def visible_counter(text: str | None) -> Counter[str]:
    out: Counter[str] = Counter()
    for line, n in line_counter(text).items():
        out[visible(line)] += n
    return out


class LineLedger:
    """Accounts, page by page, for the old lines a maintenance operation does not keep verbatim."""

    def __init__(self, ctx: GateContext, rel: str) -> None:
        self.ctx = ctx
        self.rel = rel
        new = ctx.changes.get(rel)
        self.exact = line_counter(new)
        self.remaining = visible_counter(new)
        succ = successor(ctx, rel)
        self.moved_to = set(visible_counter(ctx.new_text(succ)).keys()) if succ else set()
        self.removed = removed_sources(ctx)
        self.named = ctx.op.kind == "delete" and rel in ctx.op.targets

    def account(self, line: str, cites: tuple[Citation, ...] = ()) -> str | None:
        """Why losing `line` (verbatim) is allowed, as a record; None when it is not."""
        key = visible(line)
        if self.exact[line] > 0 and self.remaining[key] > 0:
            self.exact[line] -= 1
            self.remaining[key] -= 1
            return "kept"
        if self.remaining[key] > 0:
            self.remaining[key] -= 1
            return f"links rewritten on {self.rel}: {line}"
        if key in self.moved_to:
            return f"moved to {successor(self.ctx, self.rel)}: {line}"
        if self.named:
            return f"retired cited line (delete) {self.rel}: {line}"
        if cites and any(c.capture_id in self.removed for c in cites):
            return f"retired cited line (delete: cites a deleted source) {self.rel}: {line}"
        if self.ctx.op.kind == "recompile" and cites:
            return f"retired cited line (recompile) {self.rel}: {line}"
        if self.ctx.op.kind == "recompile" and self.ctx.changes.get(self.rel, "") is None:
            return f"listed, not re-applied (recompile no longer derives {self.rel}): {line}"
        return None


def page_removal_reason(ctx: GateContext, rel: str) -> str | None:
    """Why removing the wiki page `rel` is allowed in this operation, or None."""
    if ctx.op.kind == "delete":
        if rel in ctx.op.targets:
            return f"deleted as asked: {rel}"
        if _only_heading_left(ctx, rel):
            return f"left with nothing but its heading: {rel}"
        return None
    succ = successor(ctx, rel)
    if succ is not None and ctx.new_text(succ) is not None:
        return f"moved to {succ}: {rel}"
    if ctx.op.kind == "recompile":
        return f"no longer derived from any source: {rel}"
    return None


def _only_heading_left(ctx: GateContext, rel: str) -> bool:
    """Whether the page on disk is a placeholder once the lines and blocks resting on removed sources go."""
    from stigmergy.pages.wiki import is_placeholder

    text = ctx.disk_text(rel)
    if text is None:
        return False
    removed = removed_sources(ctx)
    pv = _v(ctx, rel, text)
    keep = []
    for n in range(pv.body_first_line, len(pv.lines) + 1):
        if n in pv.block_lines:
            block = next(b for b in pv.blocks if b.start_line <= n <= b.end_line)
            if sum(1 for c in block.record.claims if c.source not in removed) >= 2:
                keep.append(pv.lines[n - 1])
            continue
        if any(c.capture_id in removed for c in pv.cites.get(n, ())):
            continue
        keep.append(pv.lines[n - 1])
    return is_placeholder("\n".join(keep))


def block_accounted(ctx: GateContext, rel: str, block: Block, new_blocks: dict[str, Block]) -> str | None:
    """Why the page `rel` may lose or change `block`; `new_blocks` are the page's blocks after the plan."""

    succ = successor(ctx, rel)
    if succ is not None:
        text = ctx.new_text(succ)
        if text is not None and any(b.text == block.text for b in _v(ctx, succ, text).blocks):
            return f"contradiction {block.record.id} moved to {succ}"
    if ctx.op.kind == "recompile" and ctx.changes.get(rel, "") is None:
        return f"contradiction {block.record.id} lost: recompile no longer derives {rel}"
    removed = removed_sources(ctx)
    if not removed and not (ctx.op.kind == "delete" and rel in ctx.op.targets):
        return None
    if ctx.op.kind == "delete" and rel in ctx.op.targets:
        return f"contradiction {block.record.id} retired with the deleted page {rel}"
    rec = block.record
    claims = tuple(c for c in rec.claims if c.source not in removed)
    resolution = rec.resolution if rec.resolution is None or rec.resolution.source not in removed else None
    if claims == rec.claims and resolution is rec.resolution:
        return None
    now = new_blocks.get(rec.id)
    if now is None:
        return f"contradiction {rec.id} retired: fewer than two claims rest on kept sources" if len(claims) < 2 else None
    expected = replace(rec, claims=claims, resolution=resolution, status="open" if resolution is None else rec.status)
    if now.record == expected:
        return f"contradiction {rec.id}: claims resting on a deleted source removed"
    return None


def block_arrived(ctx: GateContext, rel: str, block: Block) -> bool:
    """Whether a block new to `rel` came, byte-identical, from a page this operation moves into `rel`."""

    if ctx.op.kind == "recompile":
        return True  # rendered by code from a planner's proposal, judged when the work tree filed it
    for old, new in ctx.op.moves:
        if new != rel:
            continue
        text = ctx.disk_text(old)
        if text is not None and any(b.text == block.text for b in _v(ctx, old, text).blocks):
            return True
    return False


def attribution_accounted(ctx: GateContext, rel: str, lost: list[str]) -> str | None:
    removed = removed_sources(ctx)
    if ctx.op.kind == "delete" and (rel in ctx.op.targets or set(lost) <= removed):
        return f"attribution retired (delete) {rel}: {', '.join(lost)}"
    succ = successor(ctx, rel)
    if succ is not None and ctx.changes.get(rel, "") is None:

        text = ctx.new_text(succ)
        if text is not None and set(lost) <= _v(ctx, succ, text).sources():
            return f"attribution moved to {succ}: {', '.join(lost)}"
    if ctx.op.kind == "recompile":
        return f"attribution retired (recompile) {rel}: {', '.join(lost)}"
    return None


def alias_removal_accounted(ctx: GateContext, rel: str, dropped: set[str]) -> bool:
    """`delete` may drop an alias that a source it removes attests (the sweep drops only those)."""
    if ctx.op.kind != "delete":
        return False
    old = ctx.old_page(rel)
    if old is None or isinstance(old, Exception) or not set(old.sources) & removed_sources(ctx):
        return False  # only an entity that cited a removed source can lose an alias that rested on it
    texts = " ".join(ctx.disk_text(p) or "" for p, t in ctx.changes.items() if t is None and (classify(p) or ("",))[0] == "source")
    folded = fold(texts)
    return all(re.search(rf"(?<!\w){re.escape(fold(a))}(?!\w)", folded) for a in dropped)


def dead_links_introduced(ctx: GateContext, rel: str, new: str) -> list[str]:
    """Wikilinks on lines this maintenance operation wrote anew that resolve to no page."""
    old_lines = line_counter(ctx.disk_text(rel))
    layer = (classify(rel) or ("", ""))[1]
    dead = []
    for line in new.split("\n"):
        if "[[" not in line or old_lines[line] > 0:
            continue
        for link in parse_wikilinks(line):
            if not ctx.resolver.resolve(link.target, from_layer=layer):
                dead.append(link.raw)
    return dead


def map_violations(ctx: GateContext, rel: str, layer: str, new: str | None) -> list[Violation]:
    """A map of content (written only by maintenance operations) links only to pages of its own layer."""
    if new is None:
        return []
    from stigmergy.pages.moc import map_targets

    bad = [f"line {n}: {target}" for n, target in map_targets(rel, new)
           if (classify(target) or ("", ""))[1] != layer or ctx.new_text(target) is None]
    if bad:
        return [Violation("layer-flow", rel, "a map of content links only to existing pages of its own layer", tuple(bad[:5]))]
    return []


def recanonicalised(ctx: GateContext, rel: str, page: object) -> bool:
    """`garden` may re-render a page that is not canonical, keeping what is stable for a page's life."""
    if ctx.op.kind != "garden":
        return False
    from stigmergy.errors import ContractError
    from stigmergy.pages.frontmatter import split_front_matter

    try:
        meta = split_front_matter(ctx.disk_text(rel) or "")[0]
    except ContractError:
        return False
    return all(str(meta.get(k)) == str(getattr(page, k)) for k in ("id", "type", "title", "layer"))
