"""Contradiction assembly for a deterministic filing: the cited lines of the pages it touches read back
as claims (a table row with its cells and header from the cited source), compared with the new source's
claims (see `contradictions`), and each disagreement written up as a `ContradictionProposal` with both
claims and their dates; and the `ResolutionProposal` of a capture that resolves a recorded
contradiction. Plain functions over the filing's state (`state.Filing`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path

from stigmergy.errors import ContractError
from stigmergy.pages.citations import parse_line
from stigmergy.pages.contradictions import START_PREFIX as _BLOCK_START
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.paths import stem_of
from stigmergy.plan.context import read_source
from stigmergy.plan.deterministic.analysis import MEASURES, declares_revision
from stigmergy.plan.deterministic.contradictions import CitedClaim, Conflict
from stigmergy.plan.deterministic.facts import (
    Fact,
    SourceReading,
    SubjectResolver,
    facts_of,
    read_units,
    source_canonical,
    source_reading,
)
from stigmergy.plan.deterministic.names import short_forms
from stigmergy.plan.deterministic.state import Filing, existing
from stigmergy.plan.schema import Claim, ContradictionProposal, ResolutionProposal
from stigmergy.repo import page_memo, watch

# -- claims read back, the disagreements among them, and resolutions ----------------------------

def conflicts(st: Filing, note_path: str | None) -> list[tuple[str, str, Conflict]]:
    """(page for the record, subject title, conflict) for every fact of this source that an earlier
    cited source states differently. Both sides are read the same way (`facts`): their own line and
    context, so the verdict does not depend on which was filed first."""
    resolver = _resolver(st)
    new_facts: dict[tuple[str, str, str, str], list[tuple[Fact, CitedClaim]]] = {}
    reading = _reading(st)
    for i, u in enumerate(st.units):
        for f in facts_of(u, reading.contexts[i], resolver):
            new_facts.setdefault(f.key, []).append((f, _claim(st, i)))
    if not new_facts:
        return []
    words = set()
    for _subject, measure, _, _ in new_facts:
        words |= set(MEASURES.get(measure, ())) | set(measure.split())
    recorded: frozenset[tuple[str, int, int]] | None = None
    out: list[tuple[str, str, Conflict]] = []
    seen: set[tuple] = set()
    for old_fact, old in _old_facts(st, words, resolver):
        differ = [(f, c) for f, c in new_facts.get(old_fact.key, []) if f.measure.value != old_fact.measure.value]
        if not differ:
            continue
        # The claims on record cost a stat of every page of the layer where the kernel cannot say which
        # changed (repo/watch.py): asked only once a fact disagrees, which most captures of a corpus whose
        # figures agree never reach.
        if recorded is None:
            recorded = _recorded(st)
        if (old.capture_id, old.start, old.end) in recorded:
            continue  # this claim is already in a contradiction on record
        for fact, claim in differ:
            page, title = _record_page(st, fact.subject, note_path, resolver)
            if page is None:
                continue
            # One record per disagreement: "$1.2M, up 40%" against "$1.3M, up 45%" is one.
            key = (page, fact.key[:3])
            if key in seen:
                continue
            if not source_canonical(st.ctx.root, old.source_path):
                continue  # a source page edited by hand states nothing filing relies on
            seen.add(key)
            m = replace(fact.measure, period=fact.period)
            out.append((page, title, Conflict(m, old_fact.measure.value, old, claim, old_fact.measure.raw)))
    return out


def _old_facts(st: Filing, words: set[str], resolver: SubjectResolver) -> list[tuple[Fact, CitedClaim]]:
    """Facts of the earlier sources cited on the pages this filing reads (its candidates and the pages
    it updates), each re-read from its own source. Only a line that could state one of the new
    measures is worth reading: pages grow, filing must not."""
    pages: dict[str, str] = {c.path: c.body for c in st.ctx.candidates}
    for e in st.entities.values():
        if not e.new and e.path not in pages:
            got = existing(st, e.path)
            if got is not None:
                pages[e.path] = got[1]
    done: set[tuple[str, int, int]] = set()
    out: list[tuple[Fact, CitedClaim]] = []
    names_a_word = _any_of(words)
    for path in sorted(pages):
        for line in pages[path].split("\n"):
            if "[source](" not in line or line.startswith(_BLOCK_START):
                continue
            if not names_a_word(line.lower()) and " — " not in line:
                continue
            try:
                cites = parse_line(line, path)
            except ContractError:
                continue
            for c in cites:
                key = (c.path, c.start, c.end)
                if c.capture_id == st.cid or key in done:
                    continue
                done.add(key)
                src = source_reading(st.ctx.root, c.path)
                idxs = () if src is None else src.by_range.get((c.start, c.end), ())
                if src is None or not idxs:
                    continue
                # Sentences sharing a line: the one the wiki line copies, else each of them.
                plain = _plain(line)
                copied = [i for i in idxs if src.units[i].text in plain] or list(idxs)
                for idx in copied:
                    u = src.units[idx]
                    claim = CitedClaim(u.text, c.capture_id, c.path, u.start, u.end, u.cells, u.header)
                    out += [(f, claim) for f in facts_of(u, src.contexts[idx], resolver)]
    return out


def _any_of(words: set[str]) -> Callable[[str], bool]:
    """`any(w in text for w in words)` as one pass of a regular expression over the text: busy pages hold
    hundreds of cited lines, each tested against every measure word of the new source."""
    if "" in words:
        return lambda text: True
    if not words:
        return lambda text: False
    search = re.compile("|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))).search
    return lambda text: search(text) is not None


def _claim(st: Filing, i: int) -> CitedClaim:
    u = st.units[i]
    return CitedClaim(u.text, st.cid, st.src.relpath, u.start, u.end, u.cells, u.header)


def _resolver(st: Filing) -> SubjectResolver:
    names = dict(st.names)
    kinds = {e.path: e.entity_type for e in st.heads.values()}
    for e in st.entities.values():
        kinds[e.path] = e.entity_type
        for s in e.surfaces if e.surfaces_local is None else e.surfaces_local:
            names.setdefault(s, e.path)
    for short, path in short_forms(names, kinds).items():
        names.setdefault(short, path)
    return SubjectResolver(names, kinds)


def _reading(st: Filing) -> SourceReading:
    if st.own_reading is None:
        st.own_reading = read_units(st.units, st.headings, st.page.title, st.page.metadata)
    return st.own_reading


def _record_page(st: Filing, subject: str, note_path: str | None, resolver: SubjectResolver) -> tuple[str | None, str]:
    """Where a disagreement is recorded: the subject's own page when it exists, else this capture's
    note (None: nowhere to record it, as when the capture was filed before)."""
    if subject and not subject.startswith("name:") and st.all_stems.get(stem_of(subject).casefold()) == subject:
        ent = st.entities.get(subject)
        head = st.heads.get(subject)
        return subject, ent.title if ent else (head.title if head else stem_of(subject))
    return note_path, resolver.display.get(subject, subject.removeprefix("name:"))


def _recorded(st: Filing) -> frozenset[tuple[str, int, int]]:
    """Claims already in a contradiction block on any page of this layer: a later source that agrees
    with one side adds no second record of the same disagreement."""
    if st.recorded_cache is None:
        paths = [p for ps in st.cat.pages.values() for p in ps]
        st.recorded_cache = recorded_claims(st.ctx.root, paths, st.layer, folders=st.cat.folders)
    return st.recorded_cache


def proposal(st: Filing, path: str, subject_title: str, c: Conflict) -> ContradictionProposal:
    old_date, old_title = _source_date(st, c.old.source_path)
    new_date = st.date
    m = c.measure
    what = f"{m.measure}{' for ' + m.period if m.period else ''}"
    subject_title = subject_title or "the reported"
    explanation = (
        f"Sources disagree on {subject_title} {what}: {c.old_raw} in \u201c{old_title}\u201d ({old_date}) "
        f"versus {m.raw} in \u201c{st.page.title}\u201d ({new_date})."
    )
    if declares_revision(st.page.title, st.units) or st.page.resolution is not None:
        newer = "the later source" if new_date >= old_date else "the source filed later"
        explanation += (
            f" \u201c{st.page.title}\u201d ({new_date}) presents itself as a revision or correction, so it is "
            f"{newer}; both claims stay until a capture resolves this."
        )
    else:
        explanation += " Both claims are kept until a capture resolves this."
    claims = (
        Claim(c.old.text, old_date, c.old.capture_id, c.old.start, c.old.end),
        Claim(c.new.text, new_date, c.new.capture_id, c.new.start, c.new.end),
    )
    return ContradictionProposal(page=path, subject=f"{subject_title} {what}", explanation=explanation, claims=claims)


def _source_date(st: Filing, source_path: str) -> tuple[str, str]:
    for e in st.ctx.evidence:
        if e.path == source_path:
            return e.occurred_at[:10], e.title
    try:
        doc = read_source(st.ctx.root, source_path)
    except (OSError, ContractError, UnicodeDecodeError):
        return "1970-01-01", stem_of(source_path)
    return doc.page.occurred_at[:10], doc.page.title


def resolutions(st: Filing) -> list[ResolutionProposal]:
    res = st.page.resolution
    if res is None or not res.resolves:
        return []
    marker = f"{_BLOCK_START}{res.resolves} -->"
    # Rare (only a capture that names a contradiction), so a scan of this layer's pages is affordable.
    for paths in st.cat.pages.values():
        for path in paths:
            try:
                text = (st.ctx.root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if marker in text:
                rationale = res.rationale.strip() or f"Resolved by capture {st.cid} ({st.page.title})."
                return [ResolutionProposal(res.resolves, rationale, path, st.cid)]
    return []


class _Recorded:
    """Per process, per repository: each page's (mtime, size) and the claims in its blocks, and how many
    pages hold each claim. A page is read again only when its stamp changed (or the kernel named it), and the
    answer is made again only when some page's claims did. Which pages to stat: those the kernel names
    (repo/watch.py), else every one; either way nothing more per unchanged page."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[tuple[int, int], frozenset[tuple[str, int, int]]]] = {}
        self.count: Counter[tuple[str, int, int]] = Counter()
        self.answer: frozenset[tuple[str, int, int]] | None = frozenset()
        self.marks: dict[str, watch.Mark | None] = {}  # the kernel's word on each folder (repo/watch.py)

    def set(self, path: str, entry: tuple[tuple[int, int], frozenset[tuple[str, int, int]]] | None) -> None:
        old = self.pages.pop(path, None)
        if entry is not None:
            self.pages[path] = entry
        before = old[1] if old is not None else frozenset()
        after = entry[1] if entry is not None else frozenset()
        if before != after:
            self.count.subtract(before)
            self.count.update(after)
            self.answer = None


_RECORDED: dict[str, _Recorded] = {}


def recorded_claims(
    root: Path, paths: list[str], scope: str = "", folders: Collection[str] = ()
) -> frozenset[tuple[str, int, int]]:
    """Every (source, start, end) claim in a contradiction block on one of `paths` (the pages of one
    layer, named by `scope`). `folders`, when given, hold every one of `paths`: where the kernel says
    which names in each changed (repo/watch.py), only those pages are looked at, not all of them."""
    base = str(root)
    state = _RECORDED.setdefault(f"{base}\0{scope}", _Recorded())
    # Pages this process has not read yet may have been read by an earlier one (repo/page_memo.py).
    kept = page_memo.memo(root, f"claims-{scope or 'public'}")
    since = page_memo.now_ns()
    pages = state.pages
    first = not pages
    known: set[str] | None = set() if folders else None
    for folder in folders:
        changed, state.marks[folder] = watch.changes(f"{base}/{folder}", state.marks.get(folder))
        if changed is None and state.marks[folder] is None and not os.path.lexists(f"{base}/{folder}"):
            changed = set()  # no such folder (a wiki without concepts): none of `paths` is in it
        if changed is None:
            known = None
        elif known is not None:
            known.update(f"{folder}/{name}" for name in changed)
    if known is not None:
        now = set(paths)
        for gone in pages.keys() - now:
            state.set(gone, None)
            kept.forget(gone)
        check: Collection[str] = (known & now) | (now - pages.keys())
    else:
        check = paths
    stat = os.stat
    missing = 0
    for path in check:
        try:
            st = stat(f"{base}/{path}")  # a string path: pathlib would cost more than the stat
        except OSError:
            missing += 1
            kept.forget(path)
            if path in pages:
                state.set(path, None)
            continue
        stamp = (st.st_mtime_ns, st.st_size)
        got = pages.get(path)
        # A page the kernel named is read again even with its stamp unchanged (an edit in place of the
        # same size within the mtime's tick keeps it).
        if got is not None and got[0] == stamp and (known is None or path not in known):
            continue
        if got is None:
            earlier = _kept_claims(kept.take(path, stamp))
            if earlier is not None:
                state.set(path, (stamp, earlier))
                continue
        claims: frozenset[tuple[str, int, int]] = frozenset()
        try:
            text = (root / path).read_text(encoding="utf-8")
            if _BLOCK_START in text:
                blocks, _ = scan_blocks(text, path)
                claims = frozenset((c.source, c.start, c.end) for b in blocks for c in b.record.claims)
        except (OSError, UnicodeDecodeError, ContractError):
            pass
        state.set(path, (stamp, claims))
        kept.keep(path, stamp, sorted([list(c) for c in claims]), since)
    if first:
        kept.retain(pages.keys())  # entries of pages gone since an earlier process kept them
    kept.save_if_many()
    if known is None and len(pages) != len(paths) - missing:
        for gone in set(pages) - set(paths):
            state.set(gone, None)
            kept.forget(gone)
    if state.answer is None:
        state.answer = frozenset(k for k, n in state.count.items() if n > 0)
    return state.answer


def _kept_claims(value: object) -> frozenset[tuple[str, int, int]] | None:
    """The claims an earlier process kept for a page ([[source, start, end], ...]), None when there are none
    or the entry is not of that shape (a cache is never trusted further than its shape)."""
    if not isinstance(value, list):
        return None
    out = []
    for c in value:
        if not (isinstance(c, list) and len(c) == 3 and isinstance(c[0], str)
                and type(c[1]) is int and type(c[2]) is int):
            return None
        out.append((c[0], c[1], c[2]))
    return frozenset(out)


def _plain(line: str) -> str:
    """A wiki line as the source wrote it: wikilinks back to their words."""
    text = re.sub(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?\|([^\[\]]+)\]\]", r"\2", line)
    return re.sub(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?\]\]", r"\1", text)
