"""Contradiction assembly for a deterministic filing: the cited lines of the pages it touches read back
as claims (a table row with its cells and header from the cited source), compared with the new source's
claims (see `contradictions`), and each disagreement written up as a `ContradictionProposal` with both
claims and their dates; and the `ResolutionProposal` of a capture that resolves a recorded
contradiction. `ContradictionAssembly` is a mixin of the planner's `_Filing`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from stigmergy.errors import ContractError
from stigmergy.pages.citations import parse_line, strip_citations
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.paths import stem_of
from stigmergy.plan.context import read_source
from stigmergy.plan.deterministic.analysis import (
    MEASURES,
    NameIndex,
    declares_revision,
    find_known,
    split_units,
)
from stigmergy.plan.deterministic.contradictions import CitedClaim, Conflict, claim_measures, find_conflicts
from stigmergy.plan.deterministic.page_bodies import _BLOCK_START
from stigmergy.plan.schema import Claim, ContradictionProposal, ResolutionProposal

if TYPE_CHECKING:
    from stigmergy.plan.deterministic.planner import _Entity


class ContradictionAssembly:
    """Claims read back from touched pages, the disagreements among them, and resolutions."""

    # -- contradictions and resolutions -----------------------------------------------------------

    def _old_claims(
        self, page_path: str, body: str, exclude: dict[str, str], words: set[str] | None = None
    ) -> list[CitedClaim]:
        """The cited lines of an existing page that name none of `exclude`, as claims (a table row
        gets its cells and header back from the cited source)."""
        lines = body.split("\n")
        out: list[CitedClaim] = []
        wanted = None if words is None else [w for m in words for w in MEASURES.get(m, (m,))]
        for _n, line in enumerate(lines, start=1):
            if "[source](" not in line:
                continue
            if wanted is not None and not any(w in line.lower() for w in wanted) and "|" not in line and " — " not in line:
                continue
            try:
                cites = parse_line(line, page_path)
            except ContractError:
                continue
            text = _claim_text(line)
            if not text or text.startswith("People:") or any(h[1] != page_path for h in find_known(text, exclude)):
                continue
            for c in cites:
                if c.capture_id == self.cid:
                    continue
                cells, header = self._row_context(c.path, c.end)
                out.append(CitedClaim(text, c.capture_id, c.path, c.start, c.end, cells, header))
        return out

    def _row_context(self, source_path: str, n: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        raw = self.__dict__.setdefault("_raw", {})
        if source_path not in raw:
            try:
                raw[source_path] = (self.ctx.root / source_path).read_text(encoding="utf-8").split("\n")
            except (OSError, UnicodeDecodeError):
                raw[source_path] = []
        lines = raw[source_path]
        if not 0 < n <= len(lines) or not lines[n - 1].lstrip().startswith("|"):
            return (), ()  # not a table row: no need to parse the source page
        doc = self._source_doc(source_path)
        if doc is None or not 0 < n <= len(doc.file_lines) or not doc.file_lines[n - 1].lstrip().startswith("|"):
            return (), ()
        first = doc.page.body_start_line
        lines = list(doc.file_lines[first - 1 :])
        units, _ = split_units(lines, first)
        for u in units:
            if u.end == n and u.kind == "row":
                return u.cells, u.header
        return (), ()

    def _source_doc(self, source_path: str):  # noqa: ANN202
        cache = self.__dict__.setdefault("_docs", {})
        if source_path not in cache:
            try:
                cache[source_path] = read_source(self.ctx.root, source_path)
            except (OSError, ContractError, UnicodeDecodeError):
                cache[source_path] = None
        return cache[source_path]

    def _claim(self, i: int) -> CitedClaim:
        u = self.units[i]
        return CitedClaim(u.text, self.cid, self.src.relpath, u.start, u.end, u.cells, u.header)

    def _contradictions(
        self, path: str, subject_title: str, old_body: str, new_claims: list[CitedClaim], ent: _Entity | None
    ) -> None:
        # Only a line that could state one of the new measures is worth parsing: pages grow, filing must not.
        words = {m.measure.split()[0] for c in new_claims for m in claim_measures(c, path)}
        if not words:
            return
        old = self._old_claims(path, old_body, self.names, words)
        if not old:
            return
        for conflict in find_conflicts(path, new_claims, old, self._recorded()):
            self.contradictions.append(self._proposal(path, subject_title, conflict))

    def _note_conflicts(self) -> list[Conflict]:
        """Figures with no named subject (the team's own revenue, headcount...) against the cited lines
        of the notes selected as candidates."""
        extra = dict(self.names)
        for e in self.entities.values():
            extra.update(dict.fromkeys(getattr(e, "surfaces_local", e.surfaces), e.path))
        named = NameIndex(extra)
        new = [self._claim(i) for i, u in enumerate(self.units) if not find_known(u.text, named)]
        old: list[CitedClaim] = []
        for cand in self.ctx.candidates:
            if cand.type == "note" and self.cid not in (cand.meta.get("sources") or []):
                old += self._old_claims(cand.path, cand.body, named)
        if not new or not old:
            return []
        return find_conflicts("", new, old, self._recorded())

    def _recorded(self) -> frozenset[tuple[str, int, int]]:
        """Claims already in a contradiction block on a candidate page: a later source that agrees with
        one side adds no second record of the same disagreement."""
        if not hasattr(self, "_recorded_claims"):
            out: set[tuple[str, int, int]] = set()
            for cand in self.ctx.candidates:
                if _BLOCK_START not in cand.body:
                    continue
                try:
                    blocks, _ = scan_blocks(cand.body, cand.path)
                except ContractError:
                    continue
                for b in blocks:
                    out |= {(c.source, c.start, c.end) for c in b.record.claims}
            self._recorded_claims = frozenset(out)
        return self._recorded_claims

    def _proposal(self, path: str, subject_title: str, c: Conflict) -> ContradictionProposal:
        old_date, old_title = self._source_date(c.old.source_path)
        new_date = self.date
        m = c.measure
        what = f"{m.measure}{' for ' + m.period if m.period else ''}"
        subject_title = subject_title or "the reported"
        explanation = (
            f"Sources disagree on {subject_title} {what}: {c.old_raw} in \u201c{old_title}\u201d ({old_date}) "
            f"versus {m.raw} in \u201c{self.page.title}\u201d ({new_date})."
        )
        if declares_revision(self.page.title, self.units) or self.page.resolution is not None:
            newer = "the later source" if new_date >= old_date else "the source filed later"
            explanation += (
                f" \u201c{self.page.title}\u201d ({new_date}) presents itself as a revision or correction, so it is "
                f"{newer}; both claims stay until a capture resolves this."
            )
        else:
            explanation += " Both claims are kept until a capture resolves this."
        claims = (
            Claim(c.old.text, old_date, c.old.capture_id, c.old.start, c.old.end),
            Claim(c.new.text, new_date, c.new.capture_id, c.new.start, c.new.end),
        )
        return ContradictionProposal(page=path, subject=f"{subject_title} {what}", explanation=explanation, claims=claims)

    def _source_date(self, source_path: str) -> tuple[str, str]:
        for e in self.ctx.evidence:
            if e.path == source_path:
                return e.occurred_at[:10], e.title
        try:
            doc = read_source(self.ctx.root, source_path)
        except (OSError, ContractError, UnicodeDecodeError):
            return "1970-01-01", stem_of(source_path)
        return doc.page.occurred_at[:10], doc.page.title

    def _resolutions(self) -> list[ResolutionProposal]:
        res = self.page.resolution
        if res is None or not res.resolves:
            return []
        marker = f"{_BLOCK_START}{res.resolves} -->"
        # Rare (only a capture that names a contradiction), so a scan of this layer's pages is affordable.
        for paths in self.cat.pages.values():
            for path in paths:
                try:
                    text = (self.ctx.root / path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if marker in text:
                    rationale = res.rationale.strip() or f"Resolved by capture {self.cid} ({self.page.title})."
                    return [ResolutionProposal(res.resolves, rationale, path, self.cid)]
        return []


def _claim_text(line: str) -> str:
    text = strip_citations(line).strip()
    text = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", text)
    text = re.sub(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?\|([^\[\]]+)\]\]", r"\2", text)
    text = re.sub(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?\]\]", r"\1", text)
    return " ".join(text.split())
