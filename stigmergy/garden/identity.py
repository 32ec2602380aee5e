"""`merge A INTO B` and `rename PAGE "New title"`: identity changes made by code, never by a planner.

Both keep every line (a merge moves A's dated sections and cited lines into B; a rename moves the page to
its new path with the same id), record the old title as an alias (entities), and rewrite every link and
`entities:` entry that named the old page. Rewritten links keep what the reader sees: `[[Old]]` becomes
`[[New|Old]]`, so no line's words change. Both refuse across layers; the gates verify each move."""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from stigmergy.errors import UsageError
from stigmergy.garden.delete import readable, refresh_maps, resolve_target
from stigmergy.garden.proposal import Proposal
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.gates.engine import OperationInfo
from stigmergy.pages.citations import cited_sources
from stigmergy.pages.paths import normalise_title, page_relpath, sanitise_stem
from stigmergy.pages.wiki import WikiPage, h1, render_wiki_page
from stigmergy.pages.wikilinks import WIKILINK_RE, link_key
from stigmergy.repo.layout import classify
from stigmergy.settings import Settings

_SECTION_RE = re.compile(r"^## ")
_DATE_RE = re.compile(r"^## (\d{4}-\d{2}-\d{2})")


def _page_at(snap: Snapshot, root: Path, settings: Settings, name: str, reader: str | None,
             what: str) -> tuple[str, WikiPage]:
    rel = resolve_target(root, settings, name, snap, reader)
    if (classify(rel) or ("", ""))[0] == "source":
        raise UsageError(f"{what} {name!r} is a source page; {what}s are wiki pages")
    page = snap.page(rel)
    if page is None:
        raise UsageError(f"{rel} is not canonical; run `stigmergy garden` first")
    if reader is not None and not readable(settings, reader, layer_of(rel)):
        raise UsageError(f"{rel} belongs to layer {layer_of(rel)!r}, which {reader or 'this reader'} may not read",
                         hint="changing a restricted page needs a reader of its layer (--as EMAIL)")
    return rel, page


def _relink_text(snap: Snapshot, old: str, new_target: str, body: str, layer: str,
                 cache: dict[tuple[str, str], bool] | None = None) -> str:
    """`body` with each wikilink that resolved to `old` (in `snap`) pointing at `new_target`, words kept.
    `cache`: (target, layer) -> resolves to `old`, shared across the pages of one operation."""
    return _relink_lines(snap, old, new_target, body, layer, cache)[0]


def _relink_lines(snap: Snapshot, old: str, new_target: str, body: str, layer: str,
                  cache: dict[tuple[str, str], bool] | None = None) -> tuple[str, list[str], list[str]]:
    """(`_relink_text`'s body, the lines it rewrote as they were, the link targets it re-pointed)."""
    if "[[" not in body:
        return body, [], []
    known = cache if cache is not None else {}

    def names_old(target: str) -> bool:
        hit = known.get((target, layer))
        if hit is None:
            hit = known[(target, layer)] = old in snap.resolver.resolve(target, from_layer=layer)
        return hit

    hits = [t for t in _link_targets(body) if names_old(t)]
    if not hits:
        return body, [], []

    def sub(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        if not names_old(target):
            return m.group(0)
        shown = m.group(3) if m.group(3) else target
        heading = f"#{m.group(2)}" if m.group(2) is not None else ""
        return f"[[{new_target}{heading}|{shown}]]"

    # Line by line, and only the lines where a target that names `old` occurs: a wikilink never spans a
    # line (WIKILINK_RE refuses a newline), and a line without any such target holds no link to rewrite.
    # A relinked page has a few such lines among dozens of links (a replay relinks ~700 pages).
    lines = body.split("\n")
    rewritten = []
    for i, line in enumerate(lines):
        if "[[" in line and any(t in line for t in hits):
            lines[i] = WIKILINK_RE.sub(sub, line)
            if lines[i] != line:
                rewritten.append(line)
    return "\n".join(lines), rewritten, hits


# What a wikilink's target must not hold for re-pointing it to leave a page's citations as they were (see
# `_cites_the_same`): brackets (a `[source](` link, the end of a link), `<` and `>` (where an HTML block
# ends), a backtick (whether a fence's info string is one), a line break.
_MARKUP = frozenset("[]<>`\n")
# `[label]:`, the start of a link reference definition (its label holds no bracket but an escaped one; it may
# span lines): `[[Lane|lane]]:` is none. Searched from its end, in the reversed body: `]:` is rare where `[`
# starts every link and citation. The pattern is `\[(?:[^\[\]\\]|\\.)*\]:` read backwards (an escape pair
# `\x` is `x\` reversed); tests/test_replay_shortcuts.py compares the two.
_LABEL_END_RE = re.compile(r":\](?:[^\[\]\\]|.\\)*\[", re.S)


def _has_label(body: str) -> bool:
    return "]:" in body and _LABEL_END_RE.search(body[::-1]) is not None


def _cites_the_same(old_body: str, rewritten: list[str], new_target: str, hits: list[str]) -> bool:
    """Whether re-pointing the links `hits` at `new_target` on the lines `rewritten` leaves what the body
    cites (`cited_sources`) as it was, so the relinked page's `sources` need not be read again. What a body
    cites is read line by line, outside code blocks: a rewrite changes only text inside `[[...]]`, which
    holds no citation link and cannot reach the citation group at the line's end, so each line cites the
    same (tests/test_identity.py checks it on generated pages). Which lines are code depends on the start
    of each line but for a few constructs that read further: an HTML block (a line with `<`), a link
    reference definition (`[label]:`), a fence's info string (a backtick), an HTML block's end (`>`)."""
    if any(ch in _MARKUP for ch in new_target) or any(ch in _MARKUP for t in hits for ch in t):
        return False
    if _has_label(old_body):
        return False
    return not any("<" in line for line in rewritten)


@lru_cache(maxsize=4096)
def _link_targets(body: str) -> frozenset[str]:
    """The targets of the wikilinks in `body`, as `_relink_text` reads them."""
    return frozenset(map(str.strip, _TARGET_RE.findall(body)))


# WIKILINK_RE with its target the only group (findall then gives the targets without a match object each);
# tests/test_replay_shortcuts.py compares the two.
_TARGET_RE = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")


def _relink(snap: Snapshot, old: str, new_target: str, new_title: str, timestamp: str,
            skip: set[str]) -> dict[str, str]:
    """Every page (but `skip`) whose links or `entities:` name `old`, rewritten to name the new page."""
    out: dict[str, str] = {}
    cache: dict[tuple[str, str], bool] = {}

    def names_old(target: str, layer: str) -> bool:
        hit = cache.get((target, layer))
        if hit is None:
            hit = cache[(target, layer)] = old in snap.resolver.resolve(target, from_layer=layer)
        return hit

    pages = {rel: page for rel, page in snap.pages().items() if rel not in skip}
    # Most pages name neither the page nor anything that resolves to it: judged by the link targets on each
    # page (read once per body text) against those of the wiki that name it, not by rewriting every link.
    # (Filtering on the page's text before parsing it saves nothing in a replay: nearly every page text an
    # entry writes is parsed by a later entry anyway, once, as parse_wiki_page memoises by text.)
    everywhere = frozenset().union(*(_link_targets(p.body) for p in pages.values()))
    naming: dict[str, set[str]] = {}
    for rel, page in pages.items():
        layer = layer_of(rel)
        if layer not in naming:
            naming[layer] = {t for t in everywhere if names_old(t, layer)}
        links = not naming[layer].isdisjoint(_link_targets(page.body))
        if not links and not any(names_old(t, layer) for t in page.entities):
            continue
        body, rewritten, hits = _relink_lines(snap, old, new_target, page.body, layer, cache) if links else (
            page.body, [], [])
        entities = page.entities
        if any(names_old(t, layer) for t in page.entities):
            entities = tuple(dict.fromkeys(new_title if names_old(t, layer) else t for t in page.entities))
        if body != page.body or entities != page.entities:
            # `with_body` reads the body's citations again; a replay relinks ~700 pages, most of them
            # several times, and what a relinked body cites is what it cited before (`_cites_the_same`).
            folder = posixpath.dirname(rel)
            if body == page.body or _cites_the_same(page.body, rewritten, new_target, hits):
                sources = snap.cited.get((folder, page.body))
                if sources is None:
                    sources = tuple(cited_sources(page.body, rel))
                snap.cited[(folder, body)] = sources
                relinked = replace(page, body=body, sources=sources)
            else:
                relinked = page.with_body(body, rel)
            out[rel] = snap.render(replace(relinked, entities=entities, updated=timestamp))
    return out


def _link_target(snap: Snapshot, rel: str, title: str) -> str:
    stem = sanitise_stem(title)
    others = [p for p in snap.stems.get(link_key(stem), []) if p != rel]
    return rel[: -len(".md")] if others else title


def _sections(body: str) -> tuple[list[str], list[list[str]]]:
    """(lines between the H1 and the first `## ` heading, [section lines starting with their heading])."""
    lines = body.rstrip("\n").split("\n")[1:]
    pre: list[str] = []
    sections: list[list[str]] = []
    for line in lines:
        if _SECTION_RE.match(line):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
        else:
            pre.append(line)
    return pre, sections


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    return lines


def merged_body(into: WikiPage, other: WikiPage) -> str:
    """`into`'s body with `other`'s lines moved in: matching sections join (lines not already there are
    appended), dated sections go in date order, others at the end; nothing of `other` is dropped but exact
    duplicate lines of the same section."""
    pre_a, secs_a = _sections(into.body)
    pre_b, secs_b = _sections(other.body)
    pre = _trim(pre_a)
    extra = [ln for ln in _trim(pre_b) if not ln.strip() or ln not in pre]
    if _trim(extra):
        pre = pre + ([""] if pre else []) + _trim(extra)
    secs = [list(s) for s in secs_a]
    for sec in secs_b:
        same = next((s for s in secs if s[0] == sec[0]), None)
        if same is not None:
            body = _trim(same[1:])
            body += [ln for ln in _trim(sec[1:]) if ln not in body or not ln.strip()]
            same[1:] = [""] + _trim(body) + [""]
            continue
        date = _DATE_RE.match(sec[0])
        at = len(secs)
        if date:
            for i, s in enumerate(secs):
                d = _DATE_RE.match(s[0])
                if d and d.group(1) > date.group(1):
                    at = i
                    break
        secs.insert(at, list(sec))
    out = [h1(into.title), ""]
    if pre:
        out += pre + [""]
    for sec in secs:
        out += [sec[0], ""] + _trim(sec[1:]) + [""]
    return "\n".join(out).rstrip("\n") + "\n"


def plan_merge(root: Path, settings: Settings, page: str, into: str, *, reader: str | None, op_id: str,
               timestamp: str, snapshot: Snapshot | None = None) -> Proposal:
    """`reader` None: no reader check (a replay of the curation record, already allowed as a whole)."""
    snap = snapshot or Snapshot.load(root, settings)
    a_rel, a = _page_at(snap, root, settings, page, reader, "merge")
    b_rel, b = _page_at(snap, root, settings, into, reader, "merge")
    if a_rel == b_rel:
        raise UsageError(f"{a_rel} cannot be merged into itself")
    if layer_of(a_rel) != layer_of(b_rel):
        raise UsageError(f"{a_rel} (layer {layer_of(a_rel)}) and {b_rel} (layer {layer_of(b_rel)}) are in different layers; "
                         "a merge never moves content across layers")
    if a.type != b.type:
        raise UsageError(f"{a_rel} is a {a.type} page and {b_rel} a {b.type} page; only pages of one type merge")
    aliases = b.aliases
    if b.type == "entity":
        for name in (a.title, *a.aliases):
            if link_key(name) not in {link_key(b.title), *(link_key(x) for x in aliases)}:
                aliases = (*aliases, name)
    body = merged_body(b, a)
    entities = tuple(dict.fromkeys(t for t in (*b.entities, *a.entities) if link_key(t) not in (link_key(a.title), link_key(b.title))))
    merged = replace(b.with_body(body, b_rel), aliases=aliases, entities=entities, updated=timestamp)
    changes: dict[str, str | None] = {a_rel: None, b_rel: render_wiki_page(merged)}
    target = _link_target(snap.with_changes(changes), b_rel, b.title)
    # Links on the merged page that named the merged-away page now name the page they are on.
    merged = merged.with_body(_relink_text(snap, a_rel, target, merged.body, layer_of(b_rel)), b_rel)
    changes[b_rel] = snap.render(merged)
    changes.update(_relink(snap, a_rel, target, b.title, timestamp, skip={a_rel, b_rel}))
    refresh_maps(root, snap.with_changes(changes), changes, {layer_of(b_rel)})
    op = OperationInfo(op_id=op_id, kind="merge", timestamp=timestamp, targets=(a_rel, b_rel), moves=((a_rel, b_rel),))
    report = {"page": a_rel, "into": b_rel, "aliases_added": [x for x in aliases if x not in b.aliases],
              "pages_relinked": sorted(p for p in changes if p not in (a_rel, b_rel) and classify(p))}
    return Proposal(op, f"merge {a.title} into {b.title}", changes, report,
                    records=(f"merged {a_rel} into {b_rel}",) + tuple(f"links rewritten on {p}" for p in report["pages_relinked"]),
                    page_ids=(a.id, b.id))


def plan_rename(root: Path, settings: Settings, page: str, new_title: str, *, reader: str | None, op_id: str,
                timestamp: str, snapshot: Snapshot | None = None) -> Proposal:
    snap = snapshot or Snapshot.load(root, settings)
    rel, old = _page_at(snap, root, settings, page, reader, "rename")
    title = normalise_title(new_title)
    if not title:
        raise UsageError("the new title is empty")
    if len(title) > 200:
        raise UsageError("the new title is longer than 200 characters")
    if title == old.title:
        return Proposal(OperationInfo(op_id=op_id, kind="rename", timestamp=timestamp), f"rename {old.title}", {},
                        nothing=f"{rel} is already titled {title!r}")
    new_rel = page_relpath(old.type, title, old.layer)
    clash = [p for p in snap.resolver.resolve(title) if p != rel]
    if (new_rel != rel and snap.exists(new_rel)) or clash:
        raise UsageError(f"{title!r} already names {(clash or [new_rel])[0]}; merge the pages instead")
    body = h1(title) + old.body[len(h1(old.title)):]
    aliases = old.aliases
    if old.type == "entity" and link_key(old.title) not in {link_key(a) for a in aliases}:
        aliases = tuple(a for a in (*aliases, old.title) if link_key(a) != link_key(title))
    renamed = replace(old, title=title, body=body, aliases=aliases, updated=timestamp)
    target = _link_target(snap.with_changes({rel: None, new_rel: ""}), new_rel, title) if new_rel != rel else title
    renamed = renamed.with_body(_relink_text(snap, rel, target, renamed.body, old.layer), new_rel)
    changes: dict[str, str | None] = {rel: None} if new_rel != rel else {}
    changes[new_rel] = snap.render(renamed)
    relinked = _relink(snap, rel, target, title, timestamp, skip={rel})
    changes.update(relinked)
    refresh_maps(root, snap.with_changes(changes), changes, {old.layer})
    moves = ((rel, new_rel),) if new_rel != rel else ()
    op = OperationInfo(op_id=op_id, kind="rename", timestamp=timestamp, targets=(rel,), moves=moves)
    report = {"page": rel, "path": new_rel, "old_title": old.title, "title": title,
              "pages_relinked": sorted(relinked)}
    return Proposal(op, f"rename {old.title} to {title}", changes, report,
                    records=(f"renamed {rel} to {new_rel}",) + tuple(f"links rewritten on {p}" for p in sorted(relinked)),
                    page_ids=(old.id,))
