"""Hybrid search: four arms fused with reciprocal rank fusion (a page's lexical and vector share averages
its page ranks in those arms and its best fragment's fused score), then explainable factors
(`page_paths`, the lexical page search filing asks, is in `page_lookup` and re-exported here).

Arms (each one restricted to the reader's layers inside its SQL, never filtered afterwards):
- lexical: FTS5 bm25 over (title + aliases, heading trail, body) weighted 1 : 1 : 1 by default;
- vector: sqlite-vec nearest fragments, one vec0 table per layer (exact float scan on small layers,
  1-bit prefilter + float rerank on large ones);
- entity: entity names and aliases found in the query -> those entity pages, then the pages about them;
- describe: the vector arm's page view, the two text arms' candidate pages ranked by what each whole page
  is about (its centroid and its lead fragment), rank-fused beside the page arms;
- graph: pages linked from and to the best hits of the other arms.
Factors: page status, freshness of the sources the best fragment cites, citation support, and focus
(how much of a wiki page's citations go to the source its best fragment is about).

The state a search runs over is a `session.SearchScope`; the arm queries are plain functions in `arms`.
This module holds the fusion (`run_search`), the factors, snippets and the public entry points (`Searcher`,
a warm handle on a scope, and the one-shot `search`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from stigmergy.index import arms as arms_q
from stigmergy.index import fusion
from stigmergy.index.analysis import has_cjk, query_extra
from stigmergy.index.arms import ARM_DEPTH, query_terms
from stigmergy.index.embedder import Embedder
from stigmergy.index.freshness import Freshness
from stigmergy.index.literals import literal_pages, query_literals
from stigmergy.index.page_kinds import asks_about_a_release, release_notes
from stigmergy.index.page_lookup import index_info, page_paths
from stigmergy.index.scope import readable_layers
from stigmergy.index.session import (
    SearchScope,
    index_fingerprint,
    open_scope,
    scope_embedder,
    scope_freshness,
    scope_languages,
    scope_trust,
)
from stigmergy.index.store import CitationRow, Filters, IndexStore, PageInfo, Selection
from stigmergy.repo.git import Git
from stigmergy.settings import Settings, TrustSettings
from stigmergy.trust.book import PageFacts, TrustBook
from stigmergy.trust.model import confidence_factor, now_days, status_factor
from stigmergy.trust.records import passage_shas

# `page_paths` and `index_info` live in `page_lookup`; callers have always imported them from here.
__all__ = ["ARMS", "Filters", "Hit", "SearchResult", "Searcher", "index_info", "make_snippet", "page_paths",
           "run_search", "search"]

ARMS = ("lexical", "vector", "literal", "entity", "graph")
# Factors are gentle on purpose: RRF scores of neighbouring ranks differ by a few percent, and a factor
# should reorder near-ties, not lift a page that only one weak arm found over one that every arm found.
STATUS_FACTOR = {"seed": 0.97, "developing": 1.0, "mature": 1.02, "evergreen": 1.03}
# The graph arm only echoes the other arms' best hits, and the entity arm ranks whole pages by a name
# (coarser than a matching fragment), so each counts half; on bench/questions.json this moved fused
# strict R@1 from 0.575 to 0.60 and lenient from 0.75 to 0.775.
ARM_WEIGHTS = {"lexical": 1.0, "vector": 1.0, "literal": 1.0, "entity": 0.5, "graph": 0.5}
# The vector arm's page view (fusion.describe): its candidates re-ranked by what each whole page is about,
# rank-fused at this weight, that of the other page-level arms (not tuned: 0.3-1.0 measured, docs/index.md;
# 0 switches it off).
DESCRIBE = 0.5
LITERALS = True  # ablation switch: the literal arm (literals.py)
GRAPH_SEEDS = 5
# Fragments, not pages, are what the lexical and vector arms rank. A page's share of those two arms is the
# mean of two rules: page level (Σ 1/(k + the page's rank in each arm): a long page whose lexical and vector
# matches land on different fragments gets both arms' credit) and best fragment (the best fused score of
# one fragment: a passage both arms agree on is stronger evidence, and each of a long page's many windows
# is another lottery ticket at page level). Measured (docs/index.md): page level alone lost MRR on the
# public Sphinx set (0.775 against 0.799 for best fragment), the mean scored 0.805; on bench/questions.json
# the three are within 0.002 (strict MRR).
FRAGMENT_ARMS = ("lexical", "vector")
# Ablation switches, measured by bench/public_search.py and bench/search.py --quality (docs/index.md).
# How the text arms fuse: "blend", by their scores (fusion.py); "rrf", by their ranks (the rules below);
# "both": the ranks plus BLEND_WEIGHT times the blend.
FUSION = "both"
BLEND_WEIGHT = 1.0
NAMED_SCALE = True
# The pages whose next best fragments a search asked for them returns (Hit.runners): the best page only. The second and
# third pages' too gained `ask` 7 right answers on pip's read sets and lost 9 more to wrong ones (docs/agents.md, issue
# 19, forty-ninth session).
RUNNER_PAGES = 1
PAGE_LEVEL_FUSION = 2  # 2: both averaged; 1: page ranks only; 0: a page's best fragment only
QUOTED_SOURCE_FIRST = True
QUOTED_PULL_IN = True  # a quoted source no arm found is added
NAMED_ANSWER_COVERAGE = 0.0  # a named entity page covering more than this share of the query is the answer itself
# Focus: the share of a wiki page's citations that go to the sources its best fragment cites. A note about
# one source scores 1; an entity page citing thirty documents, whose matching paragraph summarises one of
# them, scores little: the reader asking about that document wants the note or the source first.
FOCUS_FLOOR = 0.85
ENTITY_MIN_WEIGHT = 0.5
# A changelog or release note outranks the page that documents what it announces (page_kinds.py): weighed
# down unless the query asks about a release. Measured on the public sets (docs/index.md, issue 20, tenth look).
RELEASE_NOTES_FACTOR = 0.7
_CITATION_RE = re.compile(r" ?\(\[source\]\([^()\s]*\)(?:, \[source\]\([^()\s]*\))*\)")


@dataclass(frozen=True)
class Hit:
    path: str
    title: str
    type: str
    layer: str
    status: str | None
    score: float
    fragment: int  # 1-based; `stigmergy read PATH#n`
    lines: tuple[int, int]
    snippet: str
    arms: dict[str, int | None]  # each arm's rank of this page (1-based), None when absent
    factors: dict[str, float]
    rrf: float
    trust: dict[str, Any] = field(default_factory=dict)  # confidence, tier, lifecycle status (trust/)
    page_id: str | None = None
    # The page's next best fragments after `fragment` (1-based, best first): what `ask` reads of a long page beside
    # its best window; not part of the hit's JSON
    runners: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "title": self.title, "type": self.type, "layer": self.layer,
            "status": self.status, "score": round(self.score, 6), "fragment": self.fragment,
            "lines": list(self.lines), "snippet": self.snippet, "rrf": round(self.rrf, 6),
            "arms": self.arms, "factors": {k: round(v, 4) for k, v in self.factors.items()},
            "trust": self.trust, "page_id": self.page_id,
        }


@dataclass(frozen=True)
class SearchResult:
    query: str
    reader: str
    hits: tuple[Hit, ...]
    index: Freshness
    arms: tuple[str, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query, "reader": self.reader, "index": self.index.to_dict(), "arms": list(self.arms),
            "hits": [h.to_dict() for h in self.hits],
        }

def _arm_weight(arm: str, entity_weight: float) -> float:
    """A page-ranking arm's weight in the rank fusion (the entity arm's scaled by how much of the query
    its names are)."""
    if arm == "describe":
        return DESCRIBE
    return ARM_WEIGHTS[arm] * (entity_weight if arm == "entity" else 1.0)


def _rank_pages(rows: list[tuple[int, int]]) -> tuple[dict[int, int], dict[int, int]]:
    """From (fragment id, page id) rows in rank order: page -> rank, page -> best fragment id."""
    ranks: dict[int, int] = {}
    best: dict[int, int] = {}
    for fid, pid in rows:
        if pid not in ranks:
            ranks[pid] = len(ranks) + 1
            best[pid] = fid
    return ranks, best


def run_search(
    scope: SearchScope,
    query: str,
    reader: str,
    *,
    k: int | None = None,
    filters: Filters | None = None,
    arms: tuple[str, ...] = ARMS,
    check_freshness: bool = True,
    runners: int = 0,
) -> SearchResult:
    """`runners`: how many of the best page's next best fragments its hit names (Hit.runners; `ask` reads them)."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    k = k or scope.settings.search.k
    filters = filters or Filters()
    layers = readable_layers(scope.settings, reader)
    if filters.layer:
        # A layer filter narrows the reader's layers before any arm cuts its depth: filtered after the cut,
        # another layer's better matches filled the depth and the filtered layer's pages were never seen.
        # A layer the reader cannot see answers exactly like an empty one.
        layers = (filters.layer,) if filters.layer in layers else ()
    sel = scope.store.select(layers, filters)
    terms = query_terms(query)
    # The full text's `extra` column: CJK bigrams and other languages' stems (index/analysis.py).
    lex_terms = terms + [t for t in query_extra(query, scope_languages(scope)) if t not in terms]
    rrf_k = scope.settings.search.rrf_k
    page_ranks: dict[str, dict[int, int]] = {}
    entity_weight = 1.0
    named_entities: dict[int, float] = {}  # entity pages the query names -> the share of the query they cover
    frag_scores: dict[int, float] = {}  # fragment-level fusion: each page's best fragment's share of its score
    pick_scores: dict[int, float] = {}  # the same with the lexical arm at arms.PICK_WEIGHTS: the fragment shown
    frag_page: dict[int, int] = {}

    rows: dict[str, list[tuple[int, int, float]]] = {}
    picks: dict[str, list[tuple[int, int, float]]] = {}  # an arm's rows in the order that chooses fragments
    by_rank = FUSION in ("rrf", "both")

    def take(name: str, found: list[tuple[int, int, float]], picked: list[tuple[int, int, float]] | None = None) -> None:
        rows[name] = found
        picks[name] = found if picked is None else picked
        ranks, _ = _rank_pages([(fid, pid) for fid, pid, _ in found])
        page_ranks[name] = dict(list(ranks.items())[:ARM_DEPTH])
        if not by_rank:
            return
        # Fragment-level fusion picks each page's best fragment (the snippet and `read PATH#n`), and that
        # fragment's score is half of the page's (PAGE_LEVEL_FUSION).
        for scores, order in ((frag_scores, found), (pick_scores, picks[name])):
            for i, (fid, pid, _) in enumerate(order):
                if pid in page_ranks[name]:
                    scores[fid] = scores.get(fid, 0.0) + ARM_WEIGHTS[name] / (rrf_k + i + 1)
                    frag_page[fid] = pid

    qvec = None
    if layers and "lexical" in arms:
        lex_rows, lex_picked = arms_q.lexical_views(scope, lex_terms, sel, arms_q.bm25_weights(scope.settings))
        take("lexical", lex_rows, lex_picked)
        timings["lexical"] = (time.perf_counter() - t0) * 1000
    literal_rows: list[tuple[int, int, float]] = []
    literal_lift: dict[int, float] = {}
    if layers and "literal" in arms and LITERALS:
        t1 = time.perf_counter()
        wanted = query_literals(query)
        if wanted:
            literal_rows = literal_pages(scope.store, wanted, sel, arms_q.bm25_weights(scope.settings))[:ARM_DEPTH]
            page_ranks["literal"] = {pid: i + 1 for i, (_, pid, _) in enumerate(literal_rows)}
            # Every page holding a literal gets the same lift (what the others made of it orders them;
            # the phrase's bm25 among three pages that name `--allow-empty` says little), as much as the
            # share of the query's literals it holds; the fragment that holds them is the one shown.
            for fid, pid, held in literal_rows:
                literal_lift[pid] = ARM_WEIGHTS["literal"] * held / len(wanted) / (rrf_k + 1)
                frag_scores[fid] = frag_scores.get(fid, 0.0) + literal_lift[pid]
                pick_scores[fid] = pick_scores.get(fid, 0.0) + literal_lift[pid]
                frag_page[fid] = pid
        timings["literal"] = (time.perf_counter() - t1) * 1000
    if layers and "vector" in arms and query.strip():
        t1 = time.perf_counter()
        qvec = scope_embedder(scope).embed([query])[0]
        timings["embed"] = (time.perf_counter() - t1) * 1000
        t1 = time.perf_counter()
        take("vector", arms_q.vector(scope, qvec, sel))
        timings["vector"] = (time.perf_counter() - t1) * 1000
    # What each candidate page is about as a whole (its centroid and lead vectors, read once): the page view
    # ranks by it, the blend mixes it into the vector side of pages of a few fragments or more.
    page_cos: dict[int, tuple[float, float, int]] = {}
    if qvec is not None and rows and (DESCRIBE or (FUSION != "rrf" and (fusion.CENTROID or fusion.LEAD))):
        t1 = time.perf_counter()
        cand = list(dict.fromkeys(pid for arm_rows in rows.values() for _, pid, _ in arm_rows))
        page_cos = {pid: (float(c @ qvec), float(lead @ qvec), n)
                    for pid, (c, lead, n) in scope.store.page_vectors(cand).items()}
        if DESCRIBE and rows.get("vector"):
            page_ranks["describe"] = {pid: i + 1 for i, pid in enumerate(fusion.describe(page_cos, ARM_DEPTH))}
        timings["describe"] = (time.perf_counter() - t1) * 1000
    text_rrf: dict[int, float] = {}  # page -> its lexical + vector share, for the entity arm's ordering
    if by_rank:
        # Page level: each text arm ranks pages by their best fragment.
        for arm in FRAGMENT_ARMS:
            for pid, r in page_ranks.get(arm, {}).items():
                text_rrf[pid] = text_rrf.get(pid, 0.0) + ARM_WEIGHTS[arm] / (rrf_k + r)
    blended: dict[int, float] = {}
    blend_frags: dict[int, float] = {}
    if FUSION != "rrf" and rows:
        t1 = time.perf_counter()
        extra: dict[int, float] = {}
        if qvec is not None and rows.get("lexical"):
            have = {fid for fid, _, _ in rows.get("vector", ())}
            missing = list(dict.fromkeys(fid for fid, _, _ in (*rows["lexical"], *picks["lexical"]) if fid not in have))
            got = scope.store.fragment_vectors(missing, index_fingerprint(scope))
            extra = {fid: float(v @ qvec) for fid, v in got.items()}
        weight = BLEND_WEIGHT if by_rank else 1.0
        scale = weight * sum(ARM_WEIGHTS[a] for a in rows) / (rrf_k + 1)
        described = ({pid: cos for pid, cos in page_cos.items() if cos[2] >= fusion.DESCRIBE_MIN_FRAGMENTS}
                     if fusion.CENTROID or fusion.LEAD else {})
        mixed = fusion.blend(rows.get("lexical"), rows.get("vector"), extra, ARM_DEPTH, scale,
                             page_cosines=described)
        blended = mixed.pages
        blend_frags = mixed.fragments
        frag_page.update(mixed.fragment_page)
        if picks.get("lexical") is not rows.get("lexical"):
            # The fragments' side of the blend as the fragment-choosing weights score them (pages as before).
            chosen = fusion.blend(picks["lexical"], rows.get("vector"), extra, ARM_DEPTH, scale,
                                  page_cosines=described)
            blend_frags = chosen.fragments
            frag_page.update(chosen.fragment_page)
        timings["blend"] = (time.perf_counter() - t1) * 1000
    # The entity arm orders the pages about a name by what the text arms made of them.
    relevance = {pid: text_rrf.get(pid, 0.0) + blended.get(pid, 0.0) for pid in set(text_rrf) | set(blended)}

    if layers and "entity" in arms:
        t1 = time.perf_counter()
        ranked, n_named, coverage = arms_q.entity(scope, query, sel, terms, relevance)
        # The arm counts as much as the names are the query: "Tomek" is all about Tomasz; in "what did
        # Tomek decide during the SMS incident" the name is one term in five.
        entity_weight = ENTITY_MIN_WEIGHT + (1.0 - ENTITY_MIN_WEIGHT) * coverage
        named_entities = dict.fromkeys(ranked[:n_named], coverage)
        page_ranks["entity"] = {pid: i + 1 for i, pid in enumerate(ranked)}
        timings["entity"] = (time.perf_counter() - t1) * 1000

    def fuse() -> dict[int, float]:
        if not by_rank:
            fused = dict(blended)
            for arm in ("entity", "graph", "describe"):
                weight = _arm_weight(arm, entity_weight)
                for pid, r in page_ranks.get(arm, {}).items():
                    fused[pid] = fused.get(pid, 0.0) + weight / (rrf_k + r)
            for pid, lift in literal_lift.items():
                fused[pid] = fused.get(pid, 0.0) + lift
            return fused
        fused = {}
        if PAGE_LEVEL_FUSION != 1:  # a page's best fragment's fused score (the earlier rule), measurable
            for fid, sc in frag_scores.items():
                fused[frag_page[fid]] = max(fused.get(frag_page[fid], 0.0), sc)
        if PAGE_LEVEL_FUSION == 2:  # both rules, averaged
            fused = {pid: (fused.get(pid, 0.0) + text_rrf.get(pid, 0.0)) / 2 for pid in set(fused) | set(text_rrf)}
        for pid, lift in literal_lift.items():
            fused[pid] = fused.get(pid, 0.0) + lift
        for arm, ranks in page_ranks.items():
            if arm == "literal" or (arm in FRAGMENT_ARMS and PAGE_LEVEL_FUSION != 1):
                continue
            weight = _arm_weight(arm, entity_weight)
            for pid, r in ranks.items():
                fused[pid] = fused.get(pid, 0.0) + weight / (rrf_k + r)
        for pid, sc in blended.items():
            # An entity page the query names matches its own name in both arms: that match is the answer
            # as much as the name is the query ("who is Tomek?": all of it; "what did Tomek decide during
            # the SMS incident": a fifth), as the entity arm weighs it.
            fused[pid] = fused.get(pid, 0.0) + sc * (named_entities.get(pid, 1.0) if NAMED_SCALE else 1.0)
        return fused

    if layers and "graph" in arms:
        t1 = time.perf_counter()
        fused_now = fuse()
        seeds = [pid for pid, _ in sorted(fused_now.items(), key=lambda kv: -kv[1])[:GRAPH_SEEDS]]
        # The graph arm adds what the other arms missed; re-boosting pages they already found would let
        # every hub linked from the top hits overtake the hits themselves (measured: bench/search.py).
        found = set(fused_now)
        neighbours = [pid for pid in arms_q.graph(scope, seeds, sel) if pid not in found]
        page_ranks["graph"] = {pid: i + 1 for i, pid in enumerate(neighbours)}
        timings["graph"] = (time.perf_counter() - t1) * 1000
    fused = fuse()
    top = sorted(fused.items(), key=lambda kv: -kv[1])[: max(3 * k, 20)]
    for fid, sc in blend_frags.items():  # each page's best fragment: both rules' view of it
        pick_scores[fid] = pick_scores.get(fid, 0.0) + sc
    t1 = time.perf_counter()
    book = scope_trust(scope)
    timings["trust"] = (time.perf_counter() - t1) * 1000
    hits = _hits(scope.store, top, page_ranks, pick_scores, frag_page, lex_terms, arms, k, sel, named_entities,
                 book=book, trust=scope.settings.trust, query=query, runners=runners)
    t1 = time.perf_counter()
    fresh = scope_freshness(scope, layers) if check_freshness else Freshness(
        scope.store.meta("commit") or None, None, False)
    timings["freshness"] = (time.perf_counter() - t1) * 1000
    timings["total"] = (time.perf_counter() - t0) * 1000
    return SearchResult(query, reader, tuple(hits), fresh, tuple(a for a in ARMS if a in arms), timings)


def _hits(store: IndexStore, top: list[tuple[int, float]], page_ranks: dict[str, dict[int, int]],
          frag_scores: dict[int, float], frag_page: dict[int, int], terms: list[str],
          arms: tuple[str, ...], k: int, sel: Selection, named: dict[int, float] | None = None, *,
          book: TrustBook | None = None, trust: TrustSettings | None = None, query: str = "",
          runners: int = 0) -> list[Hit]:
    if not top:
        return []
    pids = [pid for pid, _ in top]
    best_frag: dict[int, int] = {}
    by_score = sorted(frag_scores, key=lambda fid: -frag_scores[fid])
    for fid in by_score:
        best_frag.setdefault(frag_page[fid], fid)
    # Each wiki page's citations (line, source, its date, cited source line), to weigh the sources its
    # best fragment cites.
    cited: dict[int, list[CitationRow]] = {}
    for c in store.citations_of(pids):
        cited.setdefault(c.src, []).append(c)
    frag_ids = [best_frag[pid] for pid in pids if pid in best_frag]
    frag_lines = {f.id: (f.start_line, f.end_line) for f in store.fragment_rows(frag_ids).values()}
    rrfs = dict(top)
    # An entity page whose name is the whole query is the answer itself ("who is Tomek?"); asked for
    # more than the name ("Harbor API launch date"), the source its matching line quotes is.
    answers = {pid for pid, coverage in (named or {}).items() if coverage > NAMED_ANSWER_COVERAGE}
    quoted = _quoted_sources(store, [t for t in top if t[0] not in answers], cited, best_frag, frag_lines, sel, terms)
    if not QUOTED_PULL_IN:
        quoted = {hub: q for hub, q in quoted.items() if q[0] in rrfs}
    for spid, _, at in quoted.values():
        if spid not in rrfs:
            rrfs[spid] = 0.0
            fid = store.fragment_at(spid, at)
            if fid is not None:
                best_frag[spid] = fid
    info = store.page_infos(list(rrfs))
    now = datetime.now(UTC)
    ts = trust or TrustSettings()
    book = book or TrustBook()
    today = now_days()
    posteriors = {pid: book.posterior(_facts(page), today, ts) for pid, page in info.items()}
    # A rejected page feeds no search and no answer (`read` still shows it, and says why).
    rrfs = {pid: r for pid, r in rrfs.items() if posteriors[pid].status != "rejected"}
    # Ranked by its whole-page feedback and that of the passage this query matched, judged from any search or
    # from one like this query (TrustBook.rank_posterior): the texts of the matched passages are read only for pages with passage or claim-line feedback.
    judged = {pid: best_frag[pid] for pid in rrfs if pid in best_frag and info[pid].page_id in book.line_pages}
    texts = store.fragment_texts(list(judged.values())) if judged else {}
    ranked = {pid: book.rank_posterior(_facts(info[pid]), today, ts,
                                       passage_shas(texts.get(judged[pid], "")) if pid in judged else (), query)
              for pid in rrfs}
    scores: dict[int, tuple[float, dict[str, float]]] = {}
    about_release = asks_about_a_release(query)
    for pid, rrf in rrfs.items():
        page = info[pid]
        ptype = page.type
        factors = {"status": STATUS_FACTOR.get(page.status or "", 1.0) if ptype != "source" else 1.0}
        focus, date = _focus([(c.line, c.capture_id, c.occurred_at) for c in cited.get(pid, [])],
                             frag_lines.get(best_frag.get(pid, -1)))
        date = page.occurred_at if ptype == "source" else date
        factors["freshness"] = _freshness_factor(date, now, page.decay, ts.freshness_amplitude)
        factors["support"] = (1.0 if ptype == "source" or not page.n_claims
                              else 0.97 + 0.05 * min(1.0, page.n_cited / page.n_claims))
        if ptype == "source" or focus is None:
            factors["focus"] = 1.0
        else:
            # An entity page the query names is about the question as much as the name is the query
            # ("Tomek": all of it), however many sources it cites.
            floor = FOCUS_FLOOR + (1 - FOCUS_FLOOR) * (named or {}).get(pid, 0.0)
            factors["focus"] = floor + (1 - floor) * focus
        factors["confidence"] = confidence_factor(ranked[pid], ts)
        factors["lifecycle"] = status_factor(posteriors[pid].status, ts)
        factors["kind"] = RELEASE_NOTES_FACTOR if not about_release and release_notes(page.title, page.locator) else 1.0
        scores[pid] = (rrf * factors["status"] * factors["freshness"] * factors["support"] * factors["focus"]
                       * factors["confidence"] * factors["lifecycle"] * factors["kind"], factors)
    # The most specific page first: a hub whose matching fragment quotes one source puts that source
    # right above itself (the hub stays one step below, the way to the other sources it cites).
    for hub, (spid, _, _) in sorted(quoted.items() if QUOTED_SOURCE_FIRST else (), key=lambda kv: -scores[kv[0]][0]):
        lifted = scores[hub][0] * (1 + 1e-6)
        if scores[spid][0] < lifted:
            scores[spid] = (lifted, scores[spid][1])
    scored = [(sc, pid, rrfs[pid], factors) for pid, (sc, factors) in scores.items()]
    scored.sort(key=lambda t: (-t[0], info[t[1]].path))
    hits = []
    top = scored[:k]
    shown: dict[int, int | None] = {}
    for _, pid, _, _ in top:
        fid = best_frag.get(pid)
        shown[pid] = fid if fid is not None else store.first_fragment(pid)
    wanted = [fid for fid in shown.values() if fid is not None]
    # The best pages' next best fragments, in the order the fusion scored them (only when `ask` asks for them)
    runner_ids = {pid: [f for f in by_score if frag_page[f] == pid and f != shown[pid]][:runners]
                  for _, pid, _, _ in top[:RUNNER_PAGES]} if runners else {}
    # One statement each for the hits' rows (the runners' too) and texts (a round trip per hit on a shared index).
    rows = store.fragment_rows([*wanted, *(f for fs in runner_ids.values() for f in fs)])
    texts = store.fragment_texts(wanted)
    for score, pid, rrf, factors in top:
        page = info[pid]
        fid = shown[pid]
        seq, lines, snippet = 1, (1, 1), ""
        if fid is not None:
            row = rows[fid]
            seq, lines = row.seq, (row.start_line, row.end_line)
            snippet = make_snippet(texts[fid], terms)
        hits.append(Hit(
            path=page.path, title=page.title, type=page.type, layer=page.layer, status=page.status, score=score,
            fragment=seq, lines=lines, snippet=snippet, rrf=rrf, factors=factors,
            arms={a: page_ranks.get(a, {}).get(pid) for a in ARMS if a in arms},
            trust=_trust_dict(book, posteriors[pid], page), page_id=page.page_id,
            runners=tuple(rows[f].seq for f in runner_ids.get(pid, []) if f in rows),
        ))
    return hits


def _facts(page: PageInfo) -> PageFacts:
    return PageFacts(page.page_id or "", page.type, page.layer, page.decay, page.sources, page.open_contradictions)


def _trust_dict(book: TrustBook, post: Any, page: PageInfo) -> dict[str, Any]:
    out = post.to_dict()
    entry = book.entry(page.page_id, page.layer)
    if entry is not None and entry.status != "candidate":
        out["reason"] = entry.reason
    return out


def _quoted_sources(store: IndexStore, top: list[tuple[int, float]], cited: dict[int, list[CitationRow]],
                    best_frag: dict[int, int], frag_lines: dict[int, tuple[int, int]],
                    sel: Selection, terms: list[str]) -> dict[int, tuple[int, str, int]]:
    """Hub -> (the source page its best fragment quotes, capture id, the quoted line): entity, concept
    and project pages whose best fragment quotes a source that holds less than half of the page's
    citations. Notes keep their place (a note is about its captures: as specific as they are, and a
    note weighing two sources that disagree is a better answer than either). Only sources the reader
    may see under the same filters."""
    want: dict[int, tuple[str, int]] = {}
    hubs = store.hubs([p for p, _ in top])
    for pid, _ in top:
        if pid not in hubs:  # a note is about its captures: as specific as they are, it keeps its place
            continue
        cites, lines = cited.get(pid), frag_lines.get(best_frag.get(pid, -1))
        if not cites or not lines:
            continue
        here = [(c.line, c.capture_id, c.start_line) for c in cites if lines[0] <= c.line <= lines[1]]
        if not here:
            continue
        # The quoted source is the one cited on the fragment's line that holds most query terms.
        text = store.fragment_text(best_frag[pid]).split("\n")
        pattern = _terms_pattern(terms)

        def weight(item: tuple[int, str, int], text: list[str] = text, pattern: Any = pattern,
                   first: int = lines[0]) -> int:
            i = item[0] - first
            return len(set(pattern.findall(text[i].casefold()))) if pattern and 0 <= i < len(text) else 0

        line, main, at = max(here, key=weight)
        if weight((line, main, at)) and sum(c.capture_id == main for c in cites) * 2 < len(cites):
            want[pid] = (main, at)
    if not want:
        return {}
    found = store.sources_of_captures(sorted({cap for cap, _ in want.values()}), sel)
    return {pid: (found[cap], cap, at) for pid, (cap, at) in want.items() if cap in found}


class Searcher:
    """A warm search session over one repository's index: a handle on a `SearchScope` (the connection and
    the embedder stay open between queries) whose `search` is `run_search`."""

    def __init__(self, root: Path, settings: Settings, embedder: Embedder | None = None,
                 freshness_ttl: float = 2.0, git: Git | None = None) -> None:
        """`freshness_ttl`: a warm session re-reads HEAD and the git index on every query but re-scans the
        working tree for uncommitted page edits at most this often, or 50 scans' time where that is longer
        (0: on every query)."""
        self.scope = open_scope(root, settings, embedder, freshness_ttl, git)
        self.root, self.settings, self.store = self.scope.root, settings, self.scope.store

    def close(self) -> None:
        self.store.close()

    @property
    def embedder(self) -> Embedder:
        return scope_embedder(self.scope)

    def freshness(self, layers: tuple[str, ...]) -> Freshness:
        return scope_freshness(self.scope, layers)

    def search(self, query: str, reader: str, *, k: int | None = None, filters: Filters | None = None,
               arms: tuple[str, ...] = ARMS, check_freshness: bool = True, runners: int = 0) -> SearchResult:
        return run_search(self.scope, query, reader, k=k, filters=filters, arms=arms,
                          check_freshness=check_freshness, runners=runners)


def _focus(cites: list[tuple[int, str, str | None]], lines: tuple[int, int] | None) -> tuple[float | None, str | None]:
    """(the share of a page's citations that go to the main source of its best fragment, the date of the
    sources that fragment cites). A note about one source scores 1, a page spreading its citations over
    many sources little, even when one short fragment holds them all. A fragment that cites nothing stands
    for the page's most cited source. (None, None) when the page cites nothing."""
    if not cites:
        return None, None
    counts: dict[str, int] = {}
    for _, cap, _ in cites:
        counts[cap] = counts.get(cap, 0) + 1
    here = {cap for line, cap, _ in cites if lines and lines[0] <= line <= lines[1]} or set(counts)
    dates = [d for _, cap, d in cites if cap in here and d]
    return max(counts[c] for c in here) / len(cites), max(dates) if dates else None


# The freshness factor's half-life by the decay class a page declares (`decay:` in its front matter); a
# page that declares none keeps the one every page had before classes (a year), so a repository without
# `decay:` ranks exactly as it did.
FRESHNESS_HALF_LIFE = {None: 365.0, "ephemeral": 90.0, "stable": 4 * 365.0, "permanent": None}


def _freshness_factor(date: str | None, now: datetime, declared: str | None = None,
                      amplitude: float = 0.04) -> float:
    half_life = FRESHNESS_HALF_LIFE.get(declared, 365.0) if declared is None or isinstance(declared, str) else 365.0
    if not date or half_life is None:
        return 1.0 if not date else 1 - amplitude / 2 + amplitude
    try:
        when = datetime.fromisoformat(str(date).replace("Z", "+00:00"))
    except ValueError:
        return 1.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    age_days = max(0.0, (now - when).total_seconds() / 86400)
    return 1 - amplitude / 2 + amplitude * 0.5 ** (age_days / half_life)


def _term_regex(terms: list[str], suffix: str) -> str:
    """Alternation of `terms`, longest first: a word's prefix (porter stems match their inflections:
    "price" -> "prices"), or anywhere for a CJK term (no spaces delimit CJK words)."""
    return "|".join(re.escape(t) if has_cjk(t) else rf"\b{re.escape(t)}{suffix}"
                    for t in sorted(terms, key=len, reverse=True))


def _terms_pattern(terms: list[str]) -> re.Pattern[str] | None:
    return re.compile(f"({_term_regex(terms, '')})", re.I) if terms else None


def make_snippet(text: str, terms: list[str], width: int = 240) -> str:
    """About `width` characters of `text` around the first query term, terms marked **like this**."""
    flat = " ".join(_CITATION_RE.sub("", text).split())
    pattern = re.compile("(" + _term_regex(terms, r"\w*") + ")", re.I) if terms else None
    m = pattern.search(flat) if pattern else None
    start = 0
    if m and m.start() > width // 3:
        space = flat.rfind(" ", 0, m.start() - width // 3)
        # Text without spaces (Chinese, Japanese) starts a third of the width before the match.
        start = space + 1 if space >= 0 and m.start() - space < width else m.start() - width // 3
    piece = flat[start : start + width]
    if start + width < len(flat):
        cut = piece.rfind(" ")
        piece = (piece[:cut] if cut > width // 2 else piece) + " …"
    if start > 0:
        piece = "… " + piece
    # Adjacent marks (a CJK word's overlapping bigrams) read as one.
    return pattern.sub(lambda mm: f"**{mm.group(0)}**", piece).replace("****", "") if pattern else piece


def search(root: Path, settings: Settings, query: str, reader: str, *, k: int | None = None,
           filters: Filters | None = None, embedder: Embedder | None = None) -> SearchResult:
    """One-shot search (opens and closes the index)."""
    searcher = Searcher(root, settings, embedder)
    try:
        return searcher.search(query, reader, k=k, filters=filters)
    finally:
        searcher.close()
