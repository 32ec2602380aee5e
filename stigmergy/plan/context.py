"""The planner's context: the source, candidate pages chosen by relevance, the cited sources of those
candidates as evidence, and the known entities with their aliases. Every part has a byte budget
(settings.context); trimming drops whole objects, lowest-ranked first.

Selection never reads every page: it lists page paths (file stems) and entity front matter (titles and
aliases, cached per process by file size and mtime), matches them against the source, and reads only
the bodies of the pages it picks. When `.stigmergy/index.sqlite` exists its search adds candidates.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import zip_longest
from pathlib import Path
from typing import Any

import yaml

from stigmergy.errors import ContractError
from stigmergy.pages.citations import citations_by_line
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.source import SourcePage, parse_source_page
from stigmergy.plan.catalogue import Catalogue, EntityRef, catalogue
from stigmergy.plan.deterministic.analysis import find_known, terms
from stigmergy.repo import page_memo
from stigmergy.repo.layout import layer_prefix
from stigmergy.settings import Settings

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# ----------------------------------------------------------------------------------------- values


@dataclass(frozen=True)
class SourceDoc:
    relpath: str
    page: SourcePage
    file_lines: tuple[str, ...]  # the whole file, index 0 = line 1

    @property
    def capture_id(self) -> str:
        return self.page.id

    @property
    def body_lines(self) -> tuple[str, ...]:
        return self.file_lines[self.page.body_start_line - 1 :]


@dataclass(frozen=True)
class CandidatePage:
    path: str
    type: str
    title: str
    text: str  # the whole file
    body: str
    meta: dict[str, Any]
    score: float
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Evidence:
    capture_id: str
    path: str
    title: str
    occurred_at: str
    lines: tuple[tuple[int, str], ...]  # (file line, text) of the cited lines
    score: float


@dataclass(frozen=True)
class PlannerContext:
    root: Path
    settings: Settings
    source: SourceDoc
    source_lines: tuple[tuple[int, str], ...]  # body lines kept within the source budget
    candidates: tuple[CandidatePage, ...]
    evidence: tuple[Evidence, ...]
    entities: tuple[EntityRef, ...]
    trimmed: dict[str, int] = field(default_factory=dict)  # objects dropped per part
    # The layer's catalogue as this context was built from it: the deterministic planner reads the same
    # listing instead of listing and stat-ing every entity page a second time in the same filing.
    catalogue: Catalogue | None = field(default=None, compare=False, repr=False)

    def sizes(self) -> dict[str, int]:
        return {
            "source": sum(len(t.encode()) + 1 for _, t in self.source_lines),
            "candidates": sum(len(c.text.encode()) for c in self.candidates),
            "evidence": sum(len(t.encode()) + 1 for e in self.evidence for _, t in e.lines),
            "entities": sum(_entity_bytes(e) for e in self.entities),
        }

    def candidate(self, path: str) -> CandidatePage | None:
        for c in self.candidates:
            if c.path == path:
                return c
        return None


def _entity_bytes(e: EntityRef) -> int:
    return len(json.dumps([e.path, e.title, e.entity_type, list(e.aliases)], ensure_ascii=False).encode())


# ------------------------------------------------------------------------------------- building


def read_source(root: Path, relpath: str) -> SourceDoc:
    text = (root / relpath).read_text(encoding="utf-8")
    page = parse_source_page(text, relpath)
    return SourceDoc(relpath, page, tuple(text.split("\n")))


def build_context(
    root: Path,
    settings: Settings,
    source_relpath: str,
    *,
    search: Callable[[str, int, str], Sequence[str]] | None = None,
) -> PlannerContext:
    """Select and budget the context for filing one source. `search(query, k, layer)` -> wiki page
    relpaths, when given, adds index hits as candidates (filing passes the index's lexical search when
    the index exists)."""
    budgets = settings.context
    src = read_source(root, source_relpath)
    layer = src.page.layer
    cat = catalogue(root, layer)
    names = cat.names()
    text = src.page.title + "\n" + src.page.text

    # Known entities named in the source, by title or alias, whole word and case-aware.
    hits = Counter(path for _, path, _, _ in find_known(text, names))
    scores: dict[str, float] = {}
    reasons: dict[str, list[str]] = {}

    def add(path: str, score: float, why: str) -> None:
        scores[path] = scores.get(path, 0.0) + score
        reasons.setdefault(path, []).append(why)

    for path, n in hits.items():
        add(path, 10.0 + min(n, 10), f"entity named {n}x")
    project = src.page.project or _meta_project(src.page.metadata)
    if project:
        from stigmergy.pages.paths import page_relpath

        ppath = page_relpath("project", project, layer)
        if ppath in cat.pages.get("project", []):
            add(ppath, 20.0, "project of the capture")
    # Pages whose title (file stem) the source mentions, or that share its rare terms.
    src_terms = terms(text) + _period_terms(text)
    titled = [p for ptype in ("concept", "note", "project") for p in cat.pages.get(ptype, [])]
    # One multi-pattern pass over the source finds every page title it names: its cost grows with the
    # source, not with the number of pages (one regular expression per title did).
    for path in _titles_named(text, tuple(titled), (str(root), layer)):
        add(path, 6.0, "title named in the source")
    # The terms of every title, and how many titles hold each, come from the same index (updated by the
    # pages added or removed since the last capture): only titles sharing a term with the source are read.
    index = _TITLE_INDEXES[(str(root), layer)]
    total = max(len(titled), 1)
    scale = min(1.0, 50 / total + 0.5)
    # A term held by k titles adds at most 3 / (1 + k) to a title's weight, and a title has at most
    # index.max_terms terms: a title that shares only terms too common to reach 0.3 that way is never
    # added, so only the titles holding a rarer term are weighed (a term such as "sync" in 300 of 2,000
    # note titles made every capture weigh those 300).
    floor = 0.3 / (scale * 3 * max(index.max_terms, 1))
    sharing: set[str] = set()
    for t in src_terms:
        holders = index.by_term.get(t)
        if holders and 1.0 / (1 + len(holders)) >= floor * 0.999:
            sharing |= holders
    for path in sorted(sharing):
        ts = index.terms[path]
        shared = [t for t in set(ts) if t in src_terms]
        if shared:
            weight = sum(1.0 / (1 + len(index.by_term[t])) * min(src_terms[t], 3) for t in shared) * scale
            if weight >= 0.3:
                add(path, weight, "shares rare terms " + ",".join(sorted(shared)[:4]))
    if search is not None:
        query = " ".join(t for t, _ in sorted(src_terms.items(), key=lambda kv: (-kv[1], kv[0]))[:24])
        for rank, path in enumerate(search(query, budgets.max_candidates, layer)):
            if path.startswith(layer_prefix(layer) + "wiki/") and (root / path).is_file():
                add(path, 3.0 / (1 + rank), "index search")

    # Entity pages and pages that share terms compete for slots in turn, so that a source naming a dozen
    # entities still brings the notes it most resembles (where figures without a named subject live).
    by_score = sorted(scores, key=lambda p: (-scores[p], p))
    named = [p for p in by_score if "/entities/" in p or "/projects/" in p]
    others = [p for p in by_score if p not in set(named)]
    ranked = [p for pair in zip_longest(named, others) for p in pair if p is not None]
    candidates: list[CandidatePage] = []
    trimmed: dict[str, int] = {}
    used = 0
    for path in ranked:
        if len(candidates) >= budgets.max_candidates:
            trimmed["candidates"] = trimmed.get("candidates", 0) + 1
            continue
        page = _read_candidate(root, path, scores[path], tuple(reasons[path]))
        if page is None:
            continue
        size = len(page.text.encode())
        if used + size > budgets.candidate_bytes:
            trimmed["candidates"] = trimmed.get("candidates", 0) + 1
            continue
        used += size
        candidates.append(page)

    evidence = _evidence(root, candidates, src, budgets.max_evidence, budgets.evidence_bytes, trimmed)

    matched = set(hits)
    refs = sorted(cat.entities(), key=lambda e: (e.path not in matched, e.path))
    entities: list[EntityRef] = []
    used = 0
    for e in refs:
        size = _entity_bytes(e)
        if used + size > budgets.entity_bytes:
            trimmed["entities"] = trimmed.get("entities", 0) + 1
            continue
        used += size
        entities.append(replace(e, matched=e.path in matched))

    source_lines: list[tuple[int, str]] = []
    used = 0
    first = src.page.body_start_line
    for i, line in enumerate(src.body_lines):
        size = len(line.encode()) + 1
        if used + size > budgets.source_bytes:
            trimmed["source"] = len(src.body_lines) - i
            break
        used += size
        source_lines.append((first + i, line))
    while source_lines and source_lines[-1][1] == "":
        source_lines.pop()
    return PlannerContext(
        root, settings, src, tuple(source_lines), tuple(candidates), tuple(evidence), tuple(entities), trimmed, cat
    )


@lru_cache(maxsize=65536)
def _stem_terms(stem: str) -> list[str]:
    return list(terms(stem)) + list(_period_terms(stem))


class _TitleIndex:
    """Page titles by their first word (casefolded), kept across captures and updated by the difference
    between the page lists, so that finding the titles a source names costs a pass over the source plus
    the pages added or removed since the last capture, never a pass over every title."""

    def __init__(self, memo: page_memo.PageMemo | None = None) -> None:
        # A title's terms are a function of its file name alone, kept for the next process (repo/page_memo.py):
        # a new process after 2,000 documents made them again for every title (~20 ms).
        self.memo = memo
        self.paths: set[str] = set()
        self.by_first: dict[str, dict[str, str]] = {}  # first word -> {path: stem}
        self.terms: dict[str, list[str]] = {}  # path -> the terms of its title
        self.by_term: dict[str, set[str]] = {}  # term -> paths whose title holds it
        self.max_terms = 0  # the most distinct terms any title has held (an upper bound: never lowered)

    def update(self, paths: Sequence[str]) -> None:
        now = set(paths)
        for path in self.paths - now:
            stem = path.rsplit("/", 1)[-1][:-3]
            self.by_first.get(_first_word(stem), {}).pop(path, None)
            for t in set(self.terms.pop(path, ())):
                self.by_term.get(t, set()).discard(path)
        first = not self.paths
        for path in now - self.paths:
            stem = path.rsplit("/", 1)[-1][:-3]
            word = _first_word(stem) if len(stem) >= 3 else ""
            if word:
                self.by_first.setdefault(word, {})[path] = stem
            kept = self.memo.take(path, page_memo.NAME_ONLY) if self.memo is not None else None
            if isinstance(kept, list) and all(isinstance(t, str) for t in kept):
                self.terms[path] = kept
            else:
                self.terms[path] = _stem_terms(stem)
                if self.memo is not None:
                    self.memo.keep(path, page_memo.NAME_ONLY, self.terms[path], 0)
            distinct = set(self.terms[path])
            self.max_terms = max(self.max_terms, len(distinct))
            for t in distinct:
                self.by_term.setdefault(t, set()).add(path)
        self.paths = now
        if self.memo is not None:
            if first:
                self.memo.retain(now)
            self.memo.save_if_many()


_WORD_START = re.compile(r"\w+")
_TITLE_INDEXES: dict[tuple[str, str], _TitleIndex] = {}


def _first_word(stem: str) -> str:
    m = _WORD_START.search(stem)
    return m.group(0).casefold() if m and m.start() == 0 else ""


def _titles_named(text: str, paths: tuple[str, ...], key: tuple[str, str] = ("", "")) -> list[str]:
    """Pages whose title (file stem, 3+ characters, starting with a letter or digit) the text names as whole
    words: case-insensitively for a title of several words, exactly for one word. A token index of the
    titles by first word, kept per repository and layer (`key`)."""
    index = _TITLE_INDEXES.get(key)
    if index is None:
        memo = page_memo.memo(Path(key[0]), f"title-terms-v1-{key[1]}") if key[0] else None
        index = _TITLE_INDEXES[key] = _TitleIndex(memo)
    index.update(paths)
    if not text:
        return []
    found: dict[str, None] = {}
    folded = text.casefold()
    same = len(folded) == len(text)
    for m in _WORD_START.finditer(text):
        start = m.start()
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue
        for path, stem in index.by_first.get(m.group(0).casefold(), {}).items():
            if " " in stem:
                if same:
                    hit = folded.startswith(stem.casefold(), start)
                else:
                    hit = re.match(re.escape(stem), text[start:], re.I) is not None
            else:
                hit = text.startswith(stem, start)
            end = start + len(stem)
            if hit and not (end < len(text) and (text[end].isalnum() or text[end] == "_")):
                found[path] = None
    return [p for p in paths if p in found]


_PERIOD_TOKEN = re.compile(r"\b(?:Q[1-4]|H[12]|FY\d{2,4}|(?:19|20)\d{2})\b")


def _period_terms(text: str) -> Counter[str]:
    """Quarters and years are short or numeric, so `terms` skips them; in a title they matter."""
    return Counter(m.group(0).lower() for m in _PERIOD_TOKEN.finditer(text))


def _meta_project(metadata: dict[str, Any]) -> str | None:
    value = metadata.get("project") if isinstance(metadata, dict) else None
    return str(value).strip() or None if isinstance(value, str | int) else None


def _read_candidate(root: Path, path: str, score: float, reasons: tuple[str, ...]) -> CandidatePage | None:
    try:
        text = (root / path).read_text(encoding="utf-8")
        meta, body, _ = split_front_matter(text)
    except (OSError, ContractError, UnicodeDecodeError):
        return None
    return CandidatePage(
        path, str(meta.get("type", "")), str(meta.get("title", "")), text, body, meta, score, reasons
    )


def _evidence(
    root: Path,
    candidates: Sequence[CandidatePage],
    src: SourceDoc,
    max_evidence: int,
    budget: int,
    trimmed: dict[str, int],
) -> list[Evidence]:
    """The cited lines of the sources the candidates cite, ranked by how many candidates cite them
    (higher-ranked candidates weigh more) and by term overlap with the new source."""
    wanted: dict[str, dict[int, None]] = {}
    weight: dict[str, float] = defaultdict(float)
    for rank, c in enumerate(candidates):
        for cites in citations_by_line(c.body, c.path, errors=[]).values():
            for ci in cites:
                if ci.path == src.relpath:
                    continue
                lines = wanted.setdefault(ci.path, {})
                for n in range(ci.start, min(ci.end, ci.start + 20) + 1):
                    lines[n] = None
                weight[ci.path] += 1.0 / (1 + rank)
    # Read only as many cited sources as can be kept: ranking needs no file contents.
    ranked = sorted(wanted, key=lambda p: (-weight[p], p))
    kept: list[Evidence] = []
    used = 0
    for i, path in enumerate(ranked):
        if len(kept) >= max_evidence:
            trimmed["evidence"] = trimmed.get("evidence", 0) + len(ranked) - i
            break
        head = _source_head(root, path)
        if head is None:
            continue
        title, occurred_at, file_lines = head
        lines = tuple((n, file_lines[n - 1]) for n in sorted(wanted[path]) if 0 < n <= len(file_lines))
        size = sum(len(t.encode()) + 1 for _, t in lines)
        if used + size > budget:
            trimmed["evidence"] = trimmed.get("evidence", 0) + 1
            continue
        used += size
        kept.append(Evidence(posixpath.basename(path)[:-3], path, title, occurred_at, lines, weight[path]))
    return kept


def _source_head(root: Path, path: str) -> tuple[str, str, list[str]] | None:
    """(title, occurred_at, file lines) of a cited source page, without re-rendering it: evidence is
    read-only context, and the gates check citations against the real file anyway."""
    try:
        text = (root / path).read_text(encoding="utf-8")
        end = text.index("\n---\n", 3)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    head = _source_meta(text[4:end])
    if head is None:
        return None
    return head[0], head[1], text.split("\n")


@lru_cache(maxsize=4096)
def _source_meta(raw: str) -> tuple[str, str] | None:
    """(title, occurred_at) from a source page's front matter, keyed by its text: sources are cited
    again and again as evidence, and their YAML is the costly part of reading them."""
    try:
        meta = yaml.load(raw, Loader=_Loader) or {}
    except yaml.YAMLError:
        return None
    if not isinstance(meta, dict) or meta.get("type") != "source":
        return None
    return str(meta.get("title", "")), str(meta.get("occurred_at", ""))


def fit_total(ctx: PlannerContext, render: Callable[[PlannerContext], str], total: int) -> tuple[PlannerContext, str]:
    """Render, and while the rendering is over `total` bytes drop the lowest-ranked whole object
    (evidence first, then candidates, then entities not named in the source, then trailing source
    lines). The check is on the rendered bytes themselves, not on an estimate."""
    while True:
        rendered = render(ctx)
        if len(rendered.encode("utf-8")) <= total:
            return ctx, rendered
        trimmed = dict(ctx.trimmed)
        if ctx.evidence:
            ctx = replace(ctx, evidence=ctx.evidence[:-1])
            part = "evidence"
        elif ctx.candidates:
            ctx = replace(ctx, candidates=ctx.candidates[:-1])
            part = "candidates"
        elif any(not e.matched for e in ctx.entities):
            idx = max(i for i, e in enumerate(ctx.entities) if not e.matched)
            ctx = replace(ctx, entities=ctx.entities[:idx] + ctx.entities[idx + 1 :])
            part = "entities"
        elif ctx.entities:
            ctx = replace(ctx, entities=ctx.entities[:-1])
            part = "entities"
        elif ctx.source_lines:
            ctx = replace(ctx, source_lines=ctx.source_lines[:-1])
            part = "source"
        else:
            return ctx, rendered
        trimmed[part] = trimmed.get(part, 0) + 1
        ctx = replace(ctx, trimmed=trimmed)


def context_record(ctx: PlannerContext, rendered_bytes: int | None = None) -> dict[str, Any]:
    """What the change record keeps about the context: sizes per part, what was picked and dropped."""
    out: dict[str, Any] = {
        "bytes": ctx.sizes(),
        "candidates": [c.path for c in ctx.candidates],
        "evidence": [e.capture_id for e in ctx.evidence],
        "entities": len(ctx.entities),
        "trimmed": dict(sorted(ctx.trimmed.items())),
    }
    if rendered_bytes is not None:
        out["rendered_bytes"] = rendered_bytes
    return out
