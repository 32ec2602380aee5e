"""Scoped reads: `read PATH[#n]`, `list`, `describe ENTITY`.

A page the reader may not see and a page that does not exist give the very same answer (NotFoundError
with the same message), and links, backlinks, evidence and timelines only ever name readable pages.
Page text comes from the working tree (so a read is exact even when the index is behind); links,
backlinks and entities come from the index, whose freshness every answer reports.
"""

from __future__ import annotations

import functools
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stigmergy.errors import NotFoundError, UsageError
from stigmergy.index.embedder import fragment_tokens
from stigmergy.index.freshness import freshness, index_building
from stigmergy.index.pagedoc import PageDoc, parse_page
from stigmergy.index.scope import readable_layers
from stigmergy.index.store import Filters, IndexStore, PageInfo, index_location, open_index
from stigmergy.pages.citations import strip_citations
from stigmergy.pages.paths import sanitise_stem
from stigmergy.pages.source import CAPTURE_ID_RE
from stigmergy.pages.wikilinks import WIKILINK_RE, link_key
from stigmergy.repo.containment import read_contained
from stigmergy.repo.git import Git
from stigmergy.repo.layout import Layout, classify
from stigmergy.settings import IndexSettings, Settings
from stigmergy.trust.book import PageFacts, TrustBook, load_book, trust_dict
from stigmergy.trust.model import now_days
from stigmergy.trust.records import line_sha

MAX_READS = 5
MAX_LINKS = 20


@dataclass
class _Ctx:
    root: Path
    settings: Settings
    reader: str
    layers: tuple[str, ...]
    store: IndexStore
    git: Git
    own: bool = True  # False: a store the caller lent (a server's warm session); it stays open

    def close(self) -> None:
        if self.own:
            self.store.close()


def _open(root: Path, settings: Settings, reader: str, git: Git | None = None,
          store: IndexStore | None = None) -> _Ctx:
    """`store`: an open store to read through (a long-lived server's, whose connection to a shared index
    each read would otherwise open and close again); else one is opened for this read."""
    layout = Layout(root)
    own = store is None
    if store is None:
        loc = index_location(layout, settings)
        if not loc.exists():
            raise NotFoundError("this repository has no index yet", hint="run `stigmergy index`")
        store = open_index(loc)
    if store.meta("fingerprint") is None:
        busy = store.writer_busy()
        if own:
            store.close()
        if busy or index_building(layout):
            raise NotFoundError("the index is being built (`stigmergy index` is running)", hint="try again when it finishes")
        raise NotFoundError("this repository has no complete index yet", hint="run `stigmergy index`")
    return _Ctx(root, settings, reader, readable_layers(settings, reader), store, git or Git(root), own)


def _not_found(path: str) -> NotFoundError:
    # One message for "absent" and "not yours to read": the answer must not tell them apart.
    return NotFoundError(f"no page at {path}", hint="`stigmergy list` shows the pages you can read")


def parse_ref(ref: str) -> tuple[str, int | None]:
    path, sep, frag = ref.rpartition("#")
    if not sep:
        return _norm(ref), None
    if not (frag.isascii() and frag.isdigit()):
        # "no page at PATH#abc" would send them looking for a page; the path is fine, the number is not.
        raise UsageError(f"{ref}: bad fragment number {frag!r} (PATH#n, n a whole number from 1)")
    return _norm(path), int(frag)


def _norm(path: str) -> str:
    p = posixpath.normpath(path.strip().replace("\\", "/"))
    return p[2:] if p.startswith("./") else p


def _load(ctx: _Ctx, path: str) -> PageDoc:
    return load_doc(ctx.root, ctx.settings, ctx.layers, path)


def load_doc(root: Path, settings: Settings, layers: tuple[str, ...], path: str, *,
             fragments: bool = True) -> PageDoc:
    """The page at `path` if one of `layers` holds it; else the one answer for absent and unreadable."""
    if path.startswith("/"):
        # An absolute path inside the repository is read by its repository-relative path.
        try:
            path = Path(path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            raise _not_found(path) from None
    kind = classify(path)
    if kind is None or kind[1] not in layers or path.startswith(("/", "..")) or "/../" in path:
        raise _not_found(path)
    # Real-path containment: a symlink anywhere on the way (a folder linked into another layer, a link
    # out of the repository) would serve bytes of a layer other than the one the path names.
    text = read_contained(root, path, errors="replace")
    if text is None:
        raise _not_found(path)
    doc = (_parsed(path, text, settings.index, *fragment_tokens(settings.embedder)) if fragments
           else parse_page(path, text, settings.index, fragments=False))
    if doc is None:
        raise _not_found(path)
    return doc


def read_neighbours(settings: Settings) -> int:
    """The fragments on each side that `read PATH#n` shows with fragment n: about the model's window of text
    whatever the fragment length (IndexSettings.read_neighbours)."""
    return settings.index.read_neighbours(fragment_tokens(settings.embedder)[1])


def _neighbours_said(n: int) -> str:
    return "one neighbour" if n == 1 else f"{n} neighbours"


@functools.lru_cache(maxsize=256)
def _parsed(path: str, text: str, params: IndexSettings, tokens: Any, window: int) -> PageDoc | None:
    """A page split into fragments, remembered by its path and its whole text (so an edit is a new entry):
    a warm server (MCP, serve) answering `ask` reads the same pages again and again, and splitting a page
    (markdown parse and tokenizer offsets) was most of a warm answer's time. PageDoc is frozen and no reader
    changes it, so sharing one is safe; the containment check and the layer check above run on every read."""
    return parse_page(path, text, params, tokens, window)


def page_facts(doc: PageDoc) -> PageFacts:
    """What a page's posterior needs, read from the page itself."""
    sources = len(doc.strings("sources")) if doc.type != "source" else 1
    open_blocks = sum(1 for c in doc.contradictions if c.status == "open")
    return PageFacts(str(doc.meta.get("id") or ""), doc.type, doc.layer, doc.meta.get("decay"), sources, open_blocks)


def page_trust(book: TrustBook, doc: PageDoc, settings: Settings, now: float) -> dict[str, Any]:
    """A page's `trust` for `read`: its posterior and tier, its status (and why, when rejected or stale),
    the newest reader notes, and each claim line with feedback of its own."""
    facts = page_facts(doc)
    out = trust_dict(book, facts, now, settings.trust)
    entry = book.entry(facts.page_id, facts.layer)
    out["notes"] = list(entry.notes) if entry else []
    lines = book.line_posteriors(facts, now, settings.trust)
    claims = []
    if lines:
        for n, text in enumerate(doc.text.split("\n"), 1):
            if n >= doc.body_first_line and text.strip():
                post = lines.get(line_sha(text))
                if post is not None:
                    claims.append({"line": n, **post.to_dict()})
    out["claims"] = claims
    return out


def _resolve_link(ctx: _Ctx, target: str, from_layer: str = "public") -> tuple[str, str] | None:
    """(path, title) of the readable page a wikilink target names, by stem, sanitised stem, or alias;
    when several layers hold it, the linking page's own layer first, then public (pages.wikilinks)."""
    keys = sorted({link_key(target), link_key(sanitise_stem(target))})
    ref = ctx.store.resolve_link(keys, ctx.layers, from_layer)
    return (ref.path, ref.title) if ref else None


def _links(ctx: _Ctx, doc: PageDoc, limit: int = MAX_LINKS) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for link in doc.links:
        key = link_key(link.target)
        if key in seen:
            continue
        seen.add(key)
        hit = _resolve_link(ctx, link.target, doc.layer)
        out.append({"target": link.target, "path": hit[0] if hit else None, "title": hit[1] if hit else None,
                    "line": link.line})
        if len(out) >= limit:
            break
    return out


def _names(doc: PageDoc) -> list[str]:
    return sorted({link_key(doc.path.rsplit("/", 1)[-1][:-3]), link_key(doc.title), *(link_key(a) for a in doc.aliases)})


def _backlinks(ctx: _Ctx, doc: PageDoc) -> list[dict[str, Any]]:
    return [{"path": b.path, "title": b.title, "line": b.line}
            for b in ctx.store.backlinks(_names(doc), ctx.layers, doc.path, MAX_LINKS)]


def _source_lines(ctx: _Ctx, path: str, start: int, end: int) -> str | None:
    kind = classify(path)
    if kind is None or kind[0] != "source" or kind[1] not in ctx.layers:
        return None
    text = read_contained(ctx.root, path, errors="replace")
    if text is None:
        return None
    lines = text.split("\n")
    return "\n".join(lines[start - 1 : end]) if start <= len(lines) else None


def _evidence(ctx: _Ctx, doc: PageDoc, first: int, last: int) -> list[dict[str, Any]]:
    lines = doc.text.split("\n")
    out = []
    for lineno in sorted(doc.citations):
        if not first <= lineno <= last:
            continue
        cites = []
        for c in doc.citations[lineno]:
            text = _source_lines(ctx, c.path, c.start, c.end)
            cites.append({"path": c.path if text is not None else None, "capture_id": c.capture_id if text is not None else None,
                          "lines": [c.start, c.end], "text": text})
        out.append({"line": lineno, "text": lines[lineno - 1], "cites": cites})
    return out


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# How far a read of whole paragraphs reaches past its fragments for the paragraph's first and last line.
PARAGRAPH_REACH = 600


def whole_paragraphs(text: str, start: int, end: int, reach: int = PARAGRAPH_REACH) -> tuple[int, int]:
    """`text[start:end]` widened to whole paragraphs: overlapping windows start and end inside a sentence
    ("… do *not* | go through the finder, and are merged …"), which read alone says something else. Within
    `reach` characters on each side; past it, to whole lines at least."""
    a = text.rfind("\n\n", max(0, start - reach), start)
    if a >= 0:
        start = a + 2
    elif start <= reach:
        start = 0
    else:
        start = text.rfind("\n", start - reach, start) + 1 or start  # a line longer than the reach stays cut
    b = text.find("\n\n", end, end + reach)
    if b >= 0:
        end = b
    elif len(text) - end <= reach:
        end = len(text)
    else:
        nl = text.find("\n", end, end + reach)
        end = end if nl < 0 else nl
        end = _rest_of_table(text, end)
    return start, end


# How far past the reach a read cut inside a table goes on, row by row, to the table's end.
TABLE_REACH = 4000


def _rest_of_table(text: str, end: int) -> int:
    """`end` (a line's end) moved past the Markdown table rows that follow it when the line is one: a wide table
    of padded rows ("| `~=` | Any compatible version. | … |") is longer than the reach, and a read cut inside it
    lost the rows under the cut. At most TABLE_REACH characters further."""
    line_start = text.rfind("\n", 0, end) + 1
    if not text.startswith("|", line_start):
        return end
    limit = end + TABLE_REACH
    while end < len(text) and text.startswith("\n|", end):
        nl = text.find("\n", end + 1)
        nxt = len(text) if nl < 0 else nl
        if nxt > limit:
            break
        end = nxt
    return end


def read_pages(
    root: Path, settings: Settings, reader: str, refs: list[str], *, evidence: bool = False,
    head_chars: int | None = None, check_freshness: bool = True, book: TrustBook | None = None,
    max_links: int = MAX_LINKS,
    git: Git | None = None, store: IndexStore | None = None, paragraphs: bool = False,
) -> dict[str, Any]:
    """The `read` answer for up to 5 `PATH` or `PATH#n` references (see docs/index.md for the shape).
    `check_freshness=False` (ask, which has its search's answer already) leaves `index` None: the check
    runs git twice, most of a warm read's time. `max_links`: how many of a page's links are resolved (a
    viewer rendering the whole page wants every one). `paragraphs` (ask): a fragment's read is widened to
    whole paragraphs (`whole_paragraphs`), so that no sentence is read cut."""
    if not refs:
        raise UsageError("name at least one page to read")
    if len(refs) > MAX_READS:
        raise UsageError(f"read takes at most {MAX_READS} pages per call, got {len(refs)}")
    head_chars = head_chars or settings.search.read_head_chars
    parsed = [parse_ref(ref) for ref in refs]  # a malformed reference is a usage error before any index work
    around = read_neighbours(settings)
    ctx = _open(root, settings, reader, git, store)
    book = book if book is not None else load_book(root, settings.trust)
    now = now_days()
    try:
        pages = []
        for path, n in parsed:
            doc = _load(ctx, path)
            total = len(doc.fragments)
            if n is None:
                content = doc.text[:head_chars]
                truncated = len(doc.text) > head_chars
                first_line, last_line = 1, _line_of(doc.text, len(content))
                shown = [f.seq for f in doc.fragments if f.start_char < len(content)]
                note = (f"{total} fragments; read fragment n with `stigmergy read {path}#n` "
                        f"(it comes with {_neighbours_said(around)} on each side)")
                if truncated:
                    note = f"showing the first {head_chars} of {len(doc.text)} characters; " + note
            else:
                if not 1 <= n <= total:
                    raise NotFoundError(f"{path} has {total} fragments, not #{n}",
                                        hint=f"read {path}#1 … {path}#{total}")
                chosen = doc.fragments[max(0, n - 1 - around) : min(total, n + around)]
                a, b = chosen[0].start_char, chosen[-1].end_char
                if paragraphs:
                    a, b = whole_paragraphs(doc.text, a, b)
                content = doc.text[a:b]
                truncated = False
                first_line, last_line = chosen[0].start_line, chosen[-1].end_line
                if paragraphs:
                    first_line, last_line = _line_of(doc.text, a), _line_of(doc.text, max(a, b - 1))
                shown = [f.seq for f in chosen]
                note = f"fragment {n} of {total} with its neighbours (fragments {shown[0]}–{shown[-1]})"
            page: dict[str, Any] = {
                "path": doc.path, "title": doc.title, "type": doc.type, "layer": doc.layer,
                "front_matter": doc.meta, "fragment": n, "fragments_total": total,
                "fragments": [
                    {"n": f.seq, "lines": [f.start_line, f.end_line], "headings": list(f.trail)}
                    for f in doc.fragments if f.seq in shown
                ],
                "lines": [first_line, last_line], "content": content, "truncated": truncated,
                "chars": len(doc.text), "note": note, "links": _links(ctx, doc, max_links), "backlinks": _backlinks(ctx, doc),
                "contradictions": [c.to_dict() for c in doc.contradictions if c.status == "open"],
                "trust": page_trust(book, doc, settings, now),
            }
            if page["trust"]["status"] == "rejected":
                page["note"] = (f"REJECTED by {page['trust'].get('status_by') or 'a maintainer'}: "
                                f"{page['trust'].get('reason') or 'no reason given'}; search and ask leave it out. "
                                + page["note"])
            if evidence:
                page["evidence"] = _evidence(ctx, doc, first_line, last_line)
            pages.append(page)
        fresh = freshness(ctx.store, ctx.git, ctx.layers).to_dict() if check_freshness else None
        return {"index": fresh, "reader": reader, "pages": pages}
    finally:
        ctx.close()


def list_pages(root: Path, settings: Settings, reader: str, filters: Filters | None = None,
               limit: int = 200, git: Git | None = None, book: TrustBook | None = None,
               store: IndexStore | None = None) -> dict[str, Any]:
    """The pages in the reader's layers, each with its trust (tier, confidence, lifecycle status)."""
    filters = filters or Filters()
    ctx = _open(root, settings, reader, git, store)
    book = book if book is not None else load_book(root, settings.trust)
    try:
        layers = ctx.layers if not filters.layer or filters.layer in ctx.layers else ()
        sel = ctx.store.select(layers, filters)
        total = ctx.store.count_pages(sel)
        rows = ctx.store.list_pages(sel, limit)
        trust = _trust_of(ctx.store.page_infos([r.id for r in rows]), book, settings)
        pages = [{"path": r.path, "title": r.title, "type": r.type, "layer": r.layer, "status": r.status,
                  "date": r.date, "fragments": r.fragments, "trust": trust[r.id]} for r in rows]
        return {"index": freshness(ctx.store, ctx.git, ctx.layers).to_dict(), "reader": reader, "total": total,
                "pages": pages}
    finally:
        ctx.close()


def _trust_of(infos: dict[int, PageInfo], book: TrustBook, settings: Settings) -> dict[int, Any]:
    """{index page id: its trust dict}, as every read surface shows it."""
    now = now_days()
    return {pid: trust_dict(book, PageFacts(i.page_id or "", i.type, i.layer, i.decay, i.sources,
                                            i.open_contradictions), now, settings.trust)
            for pid, i in infos.items()}


def _unlinked(text: str) -> str:
    """A line's words with each [[target|label]] read as its label (or target)."""
    return WIKILINK_RE.sub(lambda m: (m.group(3) or m.group(1)).strip(), text)


def describe_entity(root: Path, settings: Settings, reader: str, name: str, limit: int = 50,
                    book: TrustBook | None = None, git: Git | None = None,
                    store: IndexStore | None = None) -> dict[str, Any]:
    """Aliases, pages about the entity (each with its confidence tier), a dated timeline of the facts they
    cite, and contradictions."""
    ctx = _open(root, settings, reader, git, store)
    book = book if book is not None else load_book(root, settings.trust)
    try:
        lay = ctx.layers
        key = link_key(name)
        found = ctx.store.entity(key, lay)
        if found is None:
            raise NotFoundError(f"no entity called {name!r}", hint="`stigmergy list --type entity` shows the entities")
        eid, epath, etitle = found.id, found.path, found.title
        meta = json.loads(found.meta_json)
        keys = sorted({n for n, _ in ctx.store.names_of([eid])})
        about = ctx.store.about_entity(keys, lay, eid)
        page_ids = [eid, *(r.id for r in about)]
        paths = {eid: epath, **{r.id: r.path for r in about}}
        facts = [(f.src, f.line, f.source_path, f.start_line, f.end_line, f.occurred_at, f.source_title)
                 for f in ctx.store.facts(page_ids, lay)]
        texts: dict[int, list[str]] = {}
        timeline = []
        seen: set[tuple[int, int]] = set()
        facts_seen: set[tuple[str, str, int, int]] = set()
        for src, line, spath, a, b, occurred, stitle in facts:
            if (src, line) in seen:
                continue
            seen.add((src, line))
            if src not in texts:
                text = read_contained(ctx.root, paths[src], errors="replace")
                texts[src] = text.split("\n") if text is not None else []
            lines = texts[src]
            text = strip_citations(lines[line - 1]).strip().lstrip("-* ").strip() if line <= len(lines) else ""
            # The entity page and a note often state one fact from one source, one with [[links]], one
            # without: the timeline is of facts, so the same words from the same lines show once.
            fact_key = (" ".join(_unlinked(text).casefold().split()), spath, a, b)
            if fact_key in facts_seen:
                continue
            facts_seen.add(fact_key)
            timeline.append({"date": occurred, "fact": text, "page": paths[src], "line": line,
                             "source": spath, "source_title": stitle, "source_lines": [a, b]})
            if len(timeline) >= limit:
                break
        cons = [(c.page, c.data_json) for c in ctx.store.contradictions_on(page_ids)]
        infos = ctx.store.page_infos(page_ids)
        trust = _trust_of(infos, book, settings)
        return {
            "index": freshness(ctx.store, ctx.git, lay).to_dict(), "reader": reader,
            "entity": {"path": epath, "title": etitle, "entity_type": meta.get("entity_type"),
                       "aliases": list(meta.get("aliases") or []), "status": meta.get("status"),
                       "trust": trust.get(eid, {}), "page_id": meta.get("id")},
            "pages": [{"path": r.path, "title": r.title, "type": r.type, "status": r.status,
                       "trust": trust.get(r.id, {}), "page_id": infos[r.id].page_id if r.id in infos else None}
                      for r in about],
            "timeline": timeline,
            "contradictions": [{"page": paths[p], **json.loads(d)} for p, d in cons],
        }
    finally:
        ctx.close()


@dataclass(frozen=True)
class Target:
    """What feedback names: a readable page, and maybe one of its fragments or claim lines."""

    path: str
    page_id: str
    layer: str
    type: str
    title: str
    captures: tuple[str, ...]
    fragment: int | None = None
    line: int | None = None
    line_text: str | None = None
    doc: PageDoc | None = None
    passage: str | None = None  # a fragment's text, when the target is one (its identity: passage_sha)


def parse_target(ref: str) -> tuple[str, int | None, int | None]:
    """`PATH`, `PATH#n` (a fragment) or `PATH#Ln` (a line, as citations write it) -> (path, fragment, line)."""
    path, sep, frag = ref.rpartition("#")
    if not sep:
        return _norm(ref), None, None
    if frag[:1] == "L" and frag[1:].isascii() and frag[1:].isdigit():
        return _norm(path), None, int(frag[1:])
    if not (frag.isascii() and frag.isdigit()):
        raise UsageError(f"{ref}: bad target {frag!r} (PATH#n for fragment n, PATH#Ln for line n)")
    return _norm(path), int(frag), None


def feedback_target(root: Path, settings: Settings, reader: str, ref: str) -> Target:
    """Resolve `ref` for feedback as `reader` reads: a page they cannot read is absent."""
    path, fragment, line = parse_target(ref)
    doc = load_doc(root, settings, readable_layers(settings, reader), path, fragments=fragment is not None)
    page_id = str(doc.meta.get("id") or "")
    if not page_id.startswith(("pg_", "cap_")):
        raise UsageError(f"{doc.path} has no page id in its front matter; feedback needs one (`stigmergy lint`)")
    captures: list[str] = [page_id] if doc.type == "source" else list(doc.strings("sources"))
    line_text = None
    if fragment is not None and not 1 <= fragment <= len(doc.fragments):
        raise NotFoundError(f"{doc.path} has {len(doc.fragments)} fragments, not #{fragment}")
    if line is not None:
        lines = doc.text.split("\n")
        if not doc.body_first_line < line <= len(lines) or not lines[line - 1].strip() \
                or lines[line - 1].lstrip().startswith(("#", "<!--")):
            raise UsageError(f"{doc.path}#L{line} is not a claim line of the page's body",
                             hint=f"`stigmergy read {doc.path} --evidence` shows its cited lines")
        line_text = lines[line - 1]
        if doc.type != "source":
            cited = [c.capture_id for c in doc.citations.get(line, ()) if c.capture_id]
            captures = cited or captures
    passage = None
    if fragment is not None and line is None:
        # A passage judged, as search showed it: its first line and text (records.passage_sha names it).
        frag = doc.fragments[fragment - 1]
        line, passage = frag.start_line, frag.text
        if doc.type != "source":
            cited = sorted({c.capture_id for n in range(frag.start_line, frag.end_line + 1)
                            for c in doc.citations.get(n, ()) if c.capture_id})
            captures = cited or captures
    captures = [c for c in captures if CAPTURE_ID_RE.match(c)]
    return Target(doc.path, page_id, doc.layer, doc.type, doc.title, tuple(sorted(set(captures))), fragment, line,
                  line_text, doc, passage)
