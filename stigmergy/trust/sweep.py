"""What `maintain` and `garden --check` find from the feedback, the pages and the access counts (nothing
here writes): pages to mark stale, contradictions open too long, pages read often but never examined, and
pages whose feedback keeps contradicting their posterior (a prior reset). Read from the working tree."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.repo.ids import id_ms
from stigmergy.repo.layout import classify
from stigmergy.settings import TrustSettings
from stigmergy.trust.book import PageFacts, TrustBook
from stigmergy.trust.model import days, decay_class


@dataclass(frozen=True)
class PageRow:
    path: str
    title: str
    facts: PageFacts
    sources: tuple[str, ...]  # capture ids it cites
    opened: tuple[tuple[str, float], ...]  # (contradiction id, the day it was recorded) of its open blocks


@dataclass
class TrustReport:
    stale: list[dict[str, Any]] = field(default_factory=list)  # pages the sweep marks stale (and why)
    contradictions: list[dict[str, Any]] = field(default_factory=list)  # open longer than allowed
    popular: list[dict[str, Any]] = field(default_factory=list)  # accesses >= N, confidence < c
    resets: list[dict[str, Any]] = field(default_factory=list)  # feedback keeps contradicting the posterior
    refused_records: int = 0
    hidden: int = 0  # findings in layers the caller cannot read (counted, never named)

    @property
    def findings(self) -> int:
        return len(self.stale) + len(self.contradictions) + len(self.popular) + len(self.resets)

    def to_dict(self) -> dict[str, Any]:
        return {"stale": self.stale, "contradictions": self.contradictions, "popular": self.popular,
                "resets": self.resets, "refused_records": self.refused_records, "hidden": self.hidden}


def ulid_days(ulid: str) -> float | None:
    """The day a ULID was made (its 48-bit millisecond prefix), or None (repo/ids reads every id's time)."""
    ms = id_ms(ulid)
    return None if ms is None else ms / 86_400_000


def scan_pages(root: Path, paths: Collection[str]) -> tuple[list[PageRow], dict[str, float]]:
    """Every wiki page among `paths` (repository-relative, tracked), and {capture id: the day its source
    says it happened} for every source page."""
    rows: list[PageRow] = []
    dates: dict[str, float] = {}
    for rel in sorted(paths):
        kind = classify(rel)
        if kind is None:
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8")
            meta, _body, _ = split_front_matter(text)
        except (OSError, UnicodeDecodeError, ContractError):
            continue
        if kind[0] == "source":
            when = meta.get("occurred_at") or meta.get("captured_at")
            try:
                dates[str(meta.get("id"))] = days(str(when))
            except (TypeError, ValueError):
                pass
            continue
        blocks, _bad = scan_blocks(text, rel)
        opened = tuple((b.record.id, ulid_days(b.record.id[4:]) or 0.0) for b in blocks if b.record.status == "open")
        sources = tuple(str(s) for s in meta.get("sources") or [] if isinstance(s, str))
        facts = PageFacts(str(meta.get("id") or ""), kind[0], kind[1], meta.get("decay"), len(set(sources)), len(opened))
        rows.append(PageRow(rel, str(meta.get("title") or rel), facts, sources, opened))
    return rows, dates


def judge(rows: list[PageRow], dates: Mapping[str, float], book: TrustBook, accesses: Mapping[str, int],
          now: float, s: TrustSettings, readable: Collection[str] | None = None) -> TrustReport:
    report = TrustReport(refused_records=book.refused)
    for row in rows:
        f = row.facts
        if not f.page_id:
            continue
        shown = readable is None or f.layer in readable
        found: list[tuple[str, dict[str, Any]]] = []
        post = book.posterior(f, now, s)
        entry = book.entry(f.page_id, f.layer)
        status = entry.status if entry else "candidate"
        confirmed = bool(entry and (entry.counts.get("useful") or status == "verified"))
        base = {"path": row.path, "title": row.title, "page_id": f.page_id, "layer": f.layer,
                "confidence": round(post.mean, 4), "tier": post.tier}
        if status in ("candidate", "verified"):
            cls = decay_class(f.type, f.decay)
            limit = {"ephemeral": s.ephemeral_days, "stable": s.stable_days}.get(cls)
            newest = max((dates[c] for c in row.sources if c in dates), default=None)
            if post.feedback and post.mean < s.stale_confidence:
                found.append(("stale", {**base, "reason": f"confidence {post.mean:.2f} below {s.stale_confidence}"}))
            elif (limit is not None and newest is not None and now - newest > limit and not confirmed
                  and status == "candidate"):
                found.append(("stale", {**base, "reason": f"every source older than {limit} days ({cls}) and "
                                                          "never confirmed"}))
        for con_id, opened in row.opened:
            if opened and now - opened > s.contradiction_days:
                found.append(("contradictions", {**base, "contradiction": con_id, "open_days": int(now - opened)}))
        if accesses.get(f.page_id, 0) >= s.popular_accesses and post.mean < s.popular_confidence \
                and status != "verified":
            found.append(("popular", {**base, "accesses": accesses[f.page_id]}))
        if post.errors >= s.reset_errors and post.errors * 2 >= post.feedback:
            found.append(("resets", {**base, "errors": post.errors, "feedback": post.feedback}))
        for kind, item in found:
            if shown:
                getattr(report, kind).append(item)
            else:
                report.hidden += 1
    return report
