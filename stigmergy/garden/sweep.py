"""The reference sweep: what must change across the wiki when pages or source pages go away.

Given the paths being removed (wiki pages and/or source pages), every page that can no longer resolve
what it pointed at is rewritten:

- a wikilink that resolved only to a removed page becomes its plain text (what a reader saw stays);
- a line citing a removed source goes, and a section heading left with nothing under it goes with it;
- a contradiction block loses the claims citing a removed source (fewer than two left: the block goes),
  and a resolution resting on one is withdrawn (the contradiction is open again);
- an entity loses the aliases that only a removed source attested, and `entities:` loses removed entities;
- a page left with nothing but its heading is removed in turn, and the sweep runs again for it.

`sweep_references` only computes the new texts; the caller (delete, erase) runs them through the gates
and commits them. It never writes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from stigmergy.errors import ContractError
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.pages.citations import parse_line
from stigmergy.pages.contradictions import Contradiction, render_block, scan_blocks
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wiki import WikiPage, is_placeholder
from stigmergy.pages.wikilinks import LinkResolver, link_key, parse_wikilinks, unlink
from stigmergy.pages.wikilinks import fold_name as fold
from stigmergy.repo.layout import classify
from stigmergy.settings import Settings

_HEADING_RE = re.compile(r"^(#{2,6})\s")


@dataclass(frozen=True)
class SweepResult:
    changes: dict[str, str | None]  # path -> new text; None = removed (the inputs and the cascade)
    cascaded: tuple[str, ...]  # pages removed because only their heading was left
    records: tuple[str, ...]  # one line per thing retired, for the change record
    skipped: tuple[tuple[str, str], ...]  # (page, why): pages that point at a removed path but are not canonical

    @property
    def ok(self) -> bool:
        return not self.skipped


class _Sweeper:
    def __init__(self, base: Snapshot, removed_pages: set[str], removed_sources: set[str], timestamp: str) -> None:
        self.base = base
        self.removed_pages = set(removed_pages)
        self.removed_caps = {stem_of(p) for p in removed_sources}
        self.removed_source_text = "\n".join(fold(_read(base.root, p)) for p in sorted(removed_sources))
        self.timestamp = timestamp
        self.records: list[str] = []
        self.skipped: dict[str, str] = {}
        # dead_targets' answers for one resolver and one set of removed pages (it only grows: a cascade);
        # a page names the same targets on many lines, and the next pages name them again.
        self._dead: dict[tuple[str, str], bool] = {}
        self._dead_for: tuple[LinkResolver, int] | None = None

    def dead_targets(self, post: LinkResolver, target: str, layer: str) -> bool:
        state = (post, len(self.removed_pages))
        if self._dead_for is None or self._dead_for[0] is not post or self._dead_for[1] != state[1]:
            self._dead, self._dead_for = {}, state
        hit = self._dead.get((target, layer))
        if hit is None:
            hit = self._dead[(target, layer)] = self._dead_target(post, target, layer)
        return hit

    def _dead_target(self, post: LinkResolver, target: str, layer: str) -> bool:
        before = self.base.resolver.resolve(target, from_layer=layer)
        if not before or not all(p in self.removed_pages for p in before):
            return False
        return not post.resolve(target, from_layer=layer)

    def keeps_entity(self, post: LinkResolver, title: str, layer: str) -> bool:
        before = self.base.resolver.resolve(title, from_layer=layer)
        if not before or not all(p in self.removed_pages for p in before):
            return True
        return any((classify(p) or ("", ""))[0] == "entity" for p in post.resolve(title, from_layer=layer))

    def sweep_page(self, rel: str, page: WikiPage, post: LinkResolver, cited_text: dict[str, str]) -> WikiPage | None:
        """The page after the sweep (the same object when nothing changed); None when only its heading is left."""
        layer = layer_of(rel)
        lines = page.body.split("\n")
        blocks, _ = scan_blocks(page.body, rel)
        block_at = {b.start_line - 1: b for b in blocks}
        out: list[str] = []
        touched: set[int] = set()  # indexes in `out` of headings whose section lost a line
        heading_stack: list[tuple[int, int]] = []  # (level, index in out)
        changed = False
        i = 0
        while i < len(lines):
            line = lines[i]
            block = block_at.get(i)
            if block is not None:
                span = block.end_line - block.start_line + 1
                record = self.sweep_record(block.record, rel)
                if record is block.record:
                    out.extend(lines[i : i + span])
                elif record is None:
                    changed = True
                    self.records.append(f"contradiction {block.record.id} removed from {rel}: fewer than two claims left")
                    if out and not out[-1].strip():
                        out.pop()
                    touched.update(idx for _, idx in heading_stack[-1:])
                else:
                    changed = True
                    out.extend(render_block(record, rel).rstrip("\n").split("\n"))
                i += span
                continue
            m = _HEADING_RE.match(line)
            if m:
                level = len(m.group(1))
                while heading_stack and heading_stack[-1][0] >= level:
                    heading_stack.pop()
                heading_stack.append((level, len(out)))
                out.append(line)
                i += 1
                continue
            if _may_cite(line, self.removed_caps):
                try:
                    cites = parse_line(line, rel)
                except ContractError:
                    cites = ()
            else:
                cites = ()
            if any(c.capture_id in self.removed_caps for c in cites):
                changed = True
                self.records.append(f"line removed from {rel} (cites a removed source): {line}")
                touched.update(idx for _, idx in heading_stack[-1:])
                i += 1
                continue
            if "[[" in line:
                dead = [raw for target, raw in _links_on(line) if self.dead_targets(post, target, layer)]
                if dead:
                    changed = True
                    line = unlink(line, dead)
                    self.records.append(f"link(s) to removed pages made plain text on {rel}: {', '.join(dead)}")
            out.append(line)
            i += 1
        if changed:
            out = _drop_empty_sections(out, touched)
        entities = tuple(t for t in page.entities if self.keeps_entity(post, t, layer))
        aliases = page.aliases
        if page.type == "entity" and self.removed_source_text and set(page.sources) & self.removed_caps:
            kept = cited_text.get(rel, "")
            aliases = tuple(
                a for a in page.aliases
                if not (_mentions(self.removed_source_text, a) and not _mentions(kept, a))
            )
            for a in page.aliases:
                if a not in aliases:
                    self.records.append(f"alias {a!r} removed from {rel}: only a removed source attested it")
        if not changed and entities == page.entities and aliases == page.aliases:
            return page
        body = "\n".join(out).rstrip("\n") + "\n"
        if is_placeholder(body):
            return None
        if entities != page.entities:
            self.records.append(f"entities of {rel} no longer list {', '.join(sorted(set(page.entities) - set(entities)))}")
        new = replace(page.with_body(body, rel), entities=entities, aliases=aliases)
        return replace(new, updated=self.timestamp) if new != page else page

    def sweep_record(self, record: Contradiction, rel: str) -> Contradiction | None:
        claims = tuple(c for c in record.claims if c.source not in self.removed_caps)
        resolution = record.resolution
        if resolution is not None and resolution.source in self.removed_caps:
            resolution = None
            self.records.append(f"contradiction {record.id} on {rel} reopened: its resolving source is removed")
        if claims == record.claims and resolution is record.resolution:
            return record
        if len(claims) < 2:
            return None
        if len(claims) != len(record.claims):
            self.records.append(f"contradiction {record.id} on {rel}: {len(record.claims) - len(claims)} claim(s) removed")
        return replace(record, claims=claims, resolution=resolution, status="open" if resolution is None else record.status)


def _may_cite(line: str, caps: set[str]) -> bool:
    """False when `line` cannot cite any of `caps`: a citation's capture id is the file stem of its link
    target (pages/citations.py), which the line holds verbatim. Most sweeps remove no source at all."""
    return bool(caps) and "[source](" in line and any(c in line for c in caps)


@lru_cache(maxsize=1 << 14)
def _links_on(line: str) -> tuple[tuple[str, str], ...]:
    """(target, raw text) of each wikilink on one line; a line recurs on every sweep of its page."""
    return tuple((lk.target, lk.raw) for lk in parse_wikilinks(line))


def _read(root: Path, rel: str) -> str:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _mentions(folded_text: str, name: str) -> bool:
    key = fold(name)
    return bool(key) and re.search(rf"(?<!\w){re.escape(key)}(?!\w)", folded_text) is not None


def _drop_empty_sections(lines: list[str], touched: set[int]) -> list[str]:
    """Drop headings in `touched` whose section is now empty (bottom-up, so a parent emptied by its
    children goes too), then collapse the blank lines the removals left behind."""
    keep = [True] * len(lines)
    levels = {i: len(m.group(1)) for i, ln in enumerate(lines) if (m := _HEADING_RE.match(ln))}
    for h in sorted(levels, reverse=True):
        if h not in touched:
            continue
        j = h + 1
        empty = True
        while j < len(lines):
            if j in levels and levels[j] <= levels[h]:
                break
            if keep[j] and lines[j].strip():
                empty = False
                break
            j += 1
        if empty:
            keep[h] = False
            parents = [p for p in levels if p < h and levels[p] < levels[h] and keep[p]]
            if parents:
                touched.add(max(parents))
    out: list[str] = []
    for i, line in enumerate(lines):
        if not keep[i]:
            continue
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return out


def sweep_references(
    root: Path,
    settings: Settings,
    removed: Iterable[str],
    *,
    timestamp: str,
    snapshot: Snapshot | None = None,
) -> SweepResult:
    """The changes that removing `removed` (repository-relative wiki page and source page paths) implies
    for every other page. Source pages must still be on disk (their text tells which aliases rest on them).
    `timestamp` becomes `updated` of every rewritten page. Never writes."""
    base = snapshot or Snapshot.load(Path(root), settings)
    removed = sorted(set(removed))
    removed_pages = {p for p in removed if (classify(p) or ("", ""))[0] not in ("", "source")}
    removed_sources = {p for p in removed if (classify(p) or ("", ""))[0] == "source"}
    sweeper = _Sweeper(base, removed_pages, removed_sources, timestamp)
    changes: dict[str, str | None] = {p: None for p in removed}
    cascaded: list[str] = []
    caps = sweeper.removed_caps
    while True:
        post = base.with_changes(changes)
        cited_text = _entity_cited_text(post, caps) if removed_sources else {}
        names = _names(base, sweeper.removed_pages)
        grew = False
        for rel, text in post.texts.items():
            if not (any(c in text for c in caps) or (names and _mentions_any(text, names))):
                continue  # nothing on this page can point at what is removed
            page = post.page(rel)
            if page is None:
                if any(c in text for c in caps) or any(stem_of(p) in text for p in sweeper.removed_pages):
                    sweeper.skipped[rel] = f"not canonical ({post.parsed[rel]}); run `stigmergy garden` first"
                continue
            new = sweeper.sweep_page(rel, page, post.resolver, cited_text)
            if new is None:
                changes[rel] = None
                cascaded.append(rel)
                sweeper.removed_pages.add(rel)
                sweeper.records.append(f"page removed: {rel} (nothing but its heading was left)")
                grew = True
            elif new is not page:
                changes[rel] = post.render(new)
        if not grew:
            break
        # A cascaded removal can make more links dead: sweep again from the pages as they now stand.
    return SweepResult(
        changes=changes,
        cascaded=tuple(cascaded),
        records=tuple(dict.fromkeys(sweeper.records)),
        skipped=tuple(sorted(sweeper.skipped.items())),
    )


def _names(base: Snapshot, removed_pages: set[str]) -> list[str]:
    """Casefolded names a link or an `entities:` entry could use for a removed page: stem, title, aliases."""
    from stigmergy.pages.wikilinks import aliases_from_text

    out: set[str] = set()
    for rel in removed_pages:
        text = base.texts.get(rel, "")
        out.add(stem_of(rel).casefold())
        title = text.split("\ntitle: ", 1)[1].split("\n", 1)[0] if "\ntitle: " in text else ""
        out.update(n.strip("'\"").casefold() for n in (title, *aliases_from_text(text)) if n)
    return sorted(n for n in out if n)


def _mentions_any(text: str, names: list[str]) -> bool:
    # A cheap filter before a page is parsed: a link or entry naming a removed page contains its name.
    folded = _casefolded(text)
    return any(n in folded for n in names)


@lru_cache(maxsize=1024)
def _casefolded(text: str) -> str:
    # Each deletion a recompile replays folds every page of the wiki, most of them unchanged since the last.
    return text.casefold()


def _entity_cited_text(post: Snapshot, removed_caps: set[str]) -> dict[str, str]:
    """{entity page: folded text of the sources it still cites} (for aliases that rest on a removed source)."""
    out: dict[str, str] = {}
    cache: dict[str, str] = {}
    for rel, text in post.texts.items():
        # Only entity pages with aliases that cite a removed source can lose an alias.
        if "\ntype: entity\n" not in text or "\naliases: []\n" in text or not any(c in text for c in removed_caps):
            continue
        page = post.page(rel)
        if page is None or page.type != "entity" or not page.aliases:
            continue
        parts = []
        for cap in page.sources:
            if cap in removed_caps:
                continue
            if cap not in cache:
                path = _source_path(post, cap)
                cache[cap] = fold(_read(post.root, path)) if path else ""
            parts.append(cache[cap])
        out[rel] = "\n".join(parts)
    return out


def _source_path(snap: Snapshot, capture_id: str) -> str | None:
    from stigmergy.repo.layout import layer_prefix

    for layer in snap.settings.layer_names():
        base = snap.root / f"{layer_prefix(layer)}sources"
        for hit in base.glob(f"*/*/{capture_id}.md") if base.is_dir() else []:
            return hit.relative_to(snap.root).as_posix()
    return None


__all__ = ["SweepResult", "fold", "link_key", "sweep_references"]
