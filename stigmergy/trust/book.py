"""The fold of every feedback record in the working tree into per-page and per-line evidence, and the
posterior of a page as the index describes it. Derived state: rebuilt from the batch files whenever one of
them changes (a warm search checks their sizes and times, a few directory reads). A cold process starts from
the fold an earlier one saved in .stigmergy/ while every batch it read still holds the bytes it read (local
derived state, never in Git; an erase removes it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.repo.files import write_atomic
from stigmergy.repo.layout import STATE_DIR
from stigmergy.settings import TrustSettings
from stigmergy.trust.model import Event, Posterior, days, decay_class, posterior, prior
from stigmergy.trust.records import (
    FEEDBACK,
    BatchFile,
    ReadResult,
    Record,
    batch_files,
    change_key,
    like,
    query_terms,
    read_batch,
)

# Lifecycle record -> the status it leaves. `reinstate` puts a rejected or stale page back to candidate.
STATUS_OF = {"verify": "verified", "invalidate": "rejected", "reinstate": "candidate", "stale": "stale"}
MAX_NOTES = 5


@dataclass
class Entry:
    """What the records say of one page (or one claim line)."""

    layer: str
    path: str
    events: list[Event] = field(default_factory=list)
    status: str = "candidate"
    reason: str = ""  # the note of the lifecycle record that set the status
    status_by: str = ""
    status_at: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[dict[str, str]] = field(default_factory=list)  # the newest few, for `read`
    last_feedback: str = ""
    path_order: tuple[str, str] = ("", "")  # (time, id) of the record that named the path
    status_order: tuple[str, str] = ("", "")  # ... and of the one that set the status


@dataclass(frozen=True)
class PageFacts:
    """What the index knows of a page that its posterior needs."""

    page_id: str
    type: str
    layer: str
    decay: object = None  # front matter `decay:` (None: the kind's class)
    sources: int = 0  # distinct sources it cites
    open_contradictions: int = 0


@dataclass
class TrustBook:
    pages: dict[str, Entry] = field(default_factory=dict)
    lines: dict[tuple[str, str], Entry] = field(default_factory=dict)
    refused: int = 0
    records: int = 0
    line_pages: set[str] = field(default_factory=set)  # pages with feedback on a claim line or passage
    _terms: dict[str, frozenset[str]] = field(default_factory=dict)  # query -> its terms (a memo, not saved)

    @classmethod
    def fold(cls, records: Iterable[Record], s: TrustSettings, refused: int = 0) -> TrustBook:
        book = cls(refused=refused)
        for r in records:
            book.add(r, s)
        return book

    def add(self, r: Record, s: TrustSettings) -> None:
        """One record, in any order: events are replayed in time order by the model, the status is the
        latest lifecycle record's (by time, then id), so a batch read late folds the same."""
        entry = self.pages.setdefault(r.page, Entry(r.layer, r.path))
        if entry.layer != r.layer:
            self.refused += 1  # a record naming the page in another layer than the first one said: ignored
            return
        self.records += 1
        order = (r.at, r.id)
        if order >= entry.path_order:
            entry.path, entry.path_order = r.path, order
        t = days(r.at)
        if r.kind in FEEDBACK:
            wa = s.useful_weight if r.kind == "useful" else 0.0
            wb = s.wrong_weight if r.kind == "wrong" else s.outdated_weight if r.kind == "outdated" else 0.0
            share = r.line_sha is not None
            if share:
                line = self.lines.setdefault((r.page, r.line_sha), Entry(r.layer, r.path))  # type: ignore[arg-type]
                _feedback(line, r, Event(t, r.kind, wa, wb, False, r.query or ""))
                self.line_pages.add(r.page)
                wa, wb = wa * s.line_share, wb * s.line_share
            _feedback(entry, r, Event(t, r.kind, wa, wb, share))
        elif r.kind == "reset":
            entry.events.append(Event(t, "reset", 0.0, 0.0))
        elif order >= entry.status_order:
            entry.status, entry.reason, entry.status_by, entry.status_at = STATUS_OF[r.kind], r.note, r.by, r.at
            entry.status_order = order

    def entry(self, page_id: str | None, layer: str) -> Entry | None:
        e = self.pages.get(page_id or "")
        return e if e is not None and e.layer == layer else None

    def status(self, page_id: str | None, layer: str) -> str:
        e = self.entry(page_id, layer)
        return e.status if e else "candidate"

    def posterior(self, facts: PageFacts, now: float, s: TrustSettings) -> Posterior:
        cls = decay_class(facts.type, facts.decay)
        e = self.entry(facts.page_id, facts.layer)
        confirmations = max(0, facts.sources - 1)
        if e is None and not confirmations and not facts.open_contradictions:
            return prior(cls, s)
        return posterior(e.events if e else (), cls, now, s, status=e.status if e else "candidate",
                         confirmations=confirmations, challenges=facts.open_contradictions)

    def rank_posterior(self, facts: PageFacts, now: float, s: TrustSettings, passage: Iterable[str] = (),
                       query: str = "") -> Posterior:
        """The posterior search ranks a page by for one query: its whole-page feedback, and at full weight the
        feedback on the passage the query matched (`passage`: its identities, records.passage_shas) — never
        the feedback on its other passages. A reader who found one passage wrong said nothing about the page's
        other passages, which may answer other questions (bench/feedback.py measured exactly that). A passage
        judged from a search (a record with a `query`) counts only for queries like that one (records.like):
        the passage was off-topic for that question, which says nothing of the questions it answers."""
        cls = decay_class(facts.type, facts.decay)
        e = self.entry(facts.page_id, facts.layer)
        events = [ev for ev in e.events if not ev.share] if e else []
        if facts.page_id in self.line_pages:
            asked: frozenset[str] | None = None
            for sha in passage:
                line = self.lines.get((facts.page_id, sha))
                if line is None or line.layer != facts.layer:
                    continue
                for ev in line.events:
                    if ev.query:
                        if asked is None:
                            asked = self.terms(query)
                        if not like(asked, self.terms(ev.query)):
                            continue
                    events.append(ev)
        confirmations = max(0, facts.sources - 1)
        if not events and not confirmations and not facts.open_contradictions:
            return prior(cls, s, e.status if e else "candidate")
        return posterior(events, cls, now, s, status=e.status if e else "candidate",
                         confirmations=confirmations, challenges=facts.open_contradictions)

    def terms(self, query: str) -> frozenset[str]:
        got = self._terms.get(query)
        if got is None:
            if len(self._terms) > 4096:  # a long-lived server sees many queries: keep the memo bounded
                self._terms.clear()
            got = self._terms[query] = query_terms(query)
        return got

    def line_posteriors(self, facts: PageFacts, now: float, s: TrustSettings) -> dict[str, Posterior]:
        """{line identity: posterior} for the page's claim lines that have feedback of their own."""
        cls = decay_class(facts.type, facts.decay)
        return {sha: posterior(e.events, cls, now, s) for (pid, sha), e in self.lines.items()
                if pid == facts.page_id and e.layer == facts.layer}


def _feedback(entry: Entry, r: Record, event: Event) -> None:
    entry.events.append(event)
    entry.counts[r.kind] = entry.counts.get(r.kind, 0) + 1
    entry.last_feedback = max(entry.last_feedback, r.at)
    if r.note:
        notes = [*entry.notes, {"at": r.at, "by": r.by, "kind": r.kind, "note": r.note}]
        entry.notes = sorted(notes, key=lambda n: n["at"])[-MAX_NOTES:]


@dataclass
class BookCache:
    """A warm session's book: kept while `records.change_key` is unchanged; when it changes, only the
    batches that are new or grew are read (from where the last read stopped), and the book is folded
    again from nothing only when a batch shrank or went (an erase, a checkout)."""

    key: tuple[object, ...] | None = None
    book: TrustBook | None = None
    settings: TrustSettings | None = None
    read_to: dict[str, tuple[int, int]] = field(default_factory=dict)  # batch -> (size seen, offset read to)


def load_book(root: Path, s: TrustSettings, cache: BookCache | None = None) -> TrustBook:
    key = change_key(root, root / STATE_DIR)
    if cache is not None and cache.key == key and cache.book is not None and cache.settings == s:
        return cache.book
    cache = cache if cache is not None else BookCache()
    batches = batch_files(root)
    seen = {b.relpath: b for b in batches}
    if cache.book is None or cache.settings != s:
        # A cold start (a CLI command, a server's first search): the fold saved by an earlier process, when
        # every batch it read still begins with the bytes it read (committed batches never change).
        saved = _load_saved(root, s, seen)
        if saved is not None:
            cache.book, cache.read_to, cache.settings = saved
    rebuild = (cache.book is None or cache.settings != s
               or any(rel not in seen or seen[rel].size < size for rel, (size, _) in cache.read_to.items()))
    if rebuild:
        cache.book, cache.read_to, cache.settings = TrustBook(), {}, s
    book = cache.book
    assert book is not None
    read = 0
    for batch in batches:
        size, offset = cache.read_to.get(batch.relpath, (0, 0))
        if batch.size == size and batch.relpath in cache.read_to:
            continue
        result = ReadResult()
        offset = read_batch(root, batch, result, offset)
        for record in result.records:
            book.add(record, s)
        read += len(result.records)
        book.refused += result.refused
        cache.read_to[batch.relpath] = (batch.size, offset)
    if read >= SAVE_AFTER:
        _save(root, s, book, cache.read_to)
    cache.key = key
    return book


# ------------------------------------------------------------------ the saved fold (derived, local state)

SAVED = "feedback-fold.json"  # in .stigmergy/: rebuilt from the batch files whenever it does not match them
SAVE_AFTER = 2000  # records read in one load before the fold is saved again (a click appends one: never saved)
_SAVED_VERSION = 3  # 3: an event carries the query it was judged from


def _prefix_sha(root: Path, rel: str, offset: int) -> str | None:
    try:
        with (root / rel).open("rb") as fh:
            return hashlib.sha256(fh.read(offset)).hexdigest()
    except OSError:
        return None


def _save(root: Path, s: TrustSettings, book: TrustBook, read_to: dict[str, tuple[int, int]]) -> None:
    """The fold, keyed by the sha256 of the bytes of each batch it read: a later process takes it only while
    every one of those batches still begins with exactly those bytes."""
    batches = {rel: [size, offset, _prefix_sha(root, rel, offset)] for rel, (size, offset) in read_to.items()}

    def entry(e: Entry) -> list[object]:
        return [e.layer, e.path, [list(v) for v in e.events], e.status, e.reason, e.status_by,
                e.status_at, e.counts, e.notes, e.last_feedback, list(e.path_order), list(e.status_order)]

    data = {"version": _SAVED_VERSION, "settings": repr(s), "batches": batches, "refused": book.refused,
            "records": book.records, "pages": {k: entry(e) for k, e in book.pages.items()},
            "lines": [[pid, sha, entry(e)] for (pid, sha), e in book.lines.items()]}
    try:
        write_atomic(root / STATE_DIR / SAVED, json.dumps(data, separators=(",", ":")).encode("utf-8"))
    except OSError:
        pass  # a read-only checkout folds again next time


def _load_saved(root: Path, s: TrustSettings, seen: dict[str, BatchFile]
                ) -> tuple[TrustBook, dict[str, tuple[int, int]], TrustSettings] | None:
    try:
        data = json.loads((root / STATE_DIR / SAVED).read_bytes())
        if data.get("version") != _SAVED_VERSION or data.get("settings") != repr(s):
            return None
        read_to: dict[str, tuple[int, int]] = {}
        for rel, (size, offset, sha) in data["batches"].items():
            batch = seen.get(rel)
            if batch is None or batch.size < size or _prefix_sha(root, rel, offset) != sha:
                return None  # a batch went, shrank or changed (an erase, a checkout): fold from nothing
            read_to[rel] = (size, offset)

        def entry(v: list[Any]) -> Entry:
            return Entry(v[0], v[1], [Event._make(ev) for ev in v[2]], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                         tuple(v[10]), tuple(v[11]))  # type: ignore[arg-type]

        lines = {(pid, sha): entry(v) for pid, sha, v in data["lines"]}
        book = TrustBook({k: entry(v) for k, v in data["pages"].items()}, lines, data["refused"], data["records"],
                         {pid for pid, _ in lines})
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return book, read_to, s


def trust_dict(book: TrustBook, facts: PageFacts, now: float, s: TrustSettings) -> dict[str, object]:
    """The `trust` object every read surface shows for a page."""
    p = book.posterior(facts, now, s)
    out = p.to_dict()
    e = book.entry(facts.page_id, facts.layer)
    if e is not None and e.status != "candidate":
        out["reason"] = e.reason
        out["status_by"] = e.status_by
        out["status_at"] = e.status_at
    return out


def facts_from_meta(page_type: str, layer: str, meta: Mapping[str, object], sources: int,
                    open_contradictions: int) -> PageFacts:
    return PageFacts(str(meta.get("id") or ""), page_type, layer, meta.get("decay"), sources, open_contradictions)
