"""Fusing the two text arms by their scores, not only their ranks.

Reciprocal rank fusion throws the scores away: a page that the lexical arm found far ahead of everything
else (a rare exact term) and a page that it found barely ahead of the next one both get 1/(k + 1), and a
page at rank 2 in one arm and absent from the other loses to every page that both arms found in the
twenties. The blend keeps the magnitudes (a convex combination of normalised scores, the fusion that
Bruch, Gai and Ingber found to beat RRF in "An Analysis of Fusion Functions for Hybrid Retrieval", 2023):

- lexical: a fragment's bm25 over the best bm25 of this query (1 for the best match, 0 for none);
- vector: a fragment's cosine, min-max normalised between the best one and the cosine of the page at
  the arm's depth (the floor of what the arm would have listed), clipped at 0. Fragments that only the
  lexical arm found get their exact cosine too (their stored vectors), so a page is never scored as if
  the model had not seen it;
- a page scores ALPHA * its best vector score + (1 - ALPHA) * its best lexical score, each taken over its
  own fragments (the two arms may like different fragments of a long page); its best fragment is the one
  whose own blend is highest (the snippet and `read PATH#n`).

Scores come back in RRF units (a page first in both arms scores what it would have under RRF), so the
entity and graph arms, which rank whole pages and stay rank-fused, keep their weight beside it.
Measured on the three public sets and bench/questions.json (docs/index.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ALPHA = 0.5  # the vector arm's share; 0.5 is the unweighted mean (not tuned: see docs/index.md)
# The vector side of a page: its best fragment, its centroid, its lead (see `blend`).
CENTROID = 0.3
LEAD = 0.3
# A page of a few fragments is what its best fragment says (its centroid and lead are that fragment, or a
# neighbour that dilutes it: a note whose first fragment is its list and whose second its contradiction).
DESCRIBE_MIN_FRAGMENTS = 4
# A page's best window is the best of its n windows, and the best of n draws rises with n: a 385-window guide
# has a window near almost any question. So the best window's share (1 - CENTROID - LEAD at
# DESCRIBE_MIN_FRAGMENTS windows) falls as (DESCRIBE_MIN_FRAGMENTS / n) ** BEST_WINDOW_DECAY, and the centroid
# and lead take what it gives up in their own proportion (0.40 : 0.30 : 0.30 at 4 windows, 0.32 : 0.34 : 0.34
# at 35, 0.25 : 0.37 : 0.37 at 385). 0.1: the middle of the calibration halves' plateau (0.05-0.15 score alike;
# docs/index.md, issue 20, seventh pass); 0 gives fixed shares at every length.
BEST_WINDOW_DECAY = 0.1

Row = tuple[int, int, float]  # (fragment, page, score): bm25 negated, or cosine similarity


@dataclass(frozen=True)
class Blend:
    pages: dict[int, float]  # page -> text score, in RRF units
    fragments: dict[int, float]  # fragment -> its own blend, in RRF units
    fragment_page: dict[int, int]


def _page_order(rows: Sequence[Row]) -> list[int]:
    seen: dict[int, None] = {}
    for _, pid, _ in rows:
        seen.setdefault(pid)
    return list(seen)


def _normalised(values: dict[int, float], depth: int) -> dict[int, float]:
    """Min-max between the best value and the `depth`-th best (clipped at 0)."""
    if not values:
        return {}
    ranked = sorted(values.values(), reverse=True)
    top, floor = ranked[0], ranked[min(depth, len(ranked)) - 1]
    span = top - floor
    return {k: (min(1.0, max(0.0, (v - floor) / span)) if span > 1e-9 else 1.0) for k, v in values.items()}


def describe(page_cosines: dict[int, tuple[float, float, int]], depth: int) -> list[int]:
    """The candidate pages ranked by what each one is about as a whole, best first: the mean of the query's
    cosine with the page's centroid (the mean of its fragment vectors) and with its lead (its first fragment:
    a man page's NAME line, a guide's introduction). `page_cosines`: page -> (cosine with its centroid, with
    its lead, its fragments). The vector arm ranks a page by its one window nearest the query, and a long
    guide has a window near almost any question; the short page that answers is about the question from its
    first line (docs/index.md, issue 20, fourth pass)."""
    score = {pid: (cent + lead) / 2 for pid, (cent, lead, _) in page_cosines.items()}
    return sorted(score, key=lambda pid: (-score[pid], pid))[:depth]


def _pooled(best: float, centroid: float, lead: float, windows: int) -> float:
    """A described page's vector side: its best window, centroid and lead (each normalised), the best window's
    share falling with the page's length (BEST_WINDOW_DECAY)."""
    fixed = 1.0 - CENTROID - LEAD
    share = fixed * min(1.0, (DESCRIBE_MIN_FRAGMENTS / max(1, windows)) ** BEST_WINDOW_DECAY)
    whole = CENTROID + LEAD
    if whole <= 0:
        return best
    given = fixed - share
    return share * best + (CENTROID + given * CENTROID / whole) * centroid + (LEAD + given * LEAD / whole) * lead


def blend(lexical: Sequence[Row] | None, vector: Sequence[Row] | None, extra_cosines: dict[int, float],
          depth: int, scale: float, alpha: float | None = None,
          page_cosines: dict[int, tuple[float, float, int]] | None = None) -> Blend:
    """The text arms' pages (each arm's first `depth` pages) scored by the blend. `lexical` / `vector`:
    an arm's rows best first, None when the arm did not run; `extra_cosines`: the cosine of lexical
    fragments the vector arm did not return; `scale`: what a page best in both arms scores; `page_cosines`:
    page -> (cosine with its centroid, with its lead, its fragments) for the pages described."""
    alpha = ALPHA if alpha is None else alpha  # read at call time: bench ablations set the constant
    lex: dict[int, float] = {}
    cos: dict[int, float] = dict(extra_cosines)
    page_of: dict[int, int] = {}
    keep: set[int] = set()
    if lexical:
        keep.update(_page_order(lexical)[:depth])
        top = max(lexical[0][2], 1e-12)
        for fid, pid, score in lexical:
            lex[fid] = max(0.0, score) / top
            page_of[fid] = pid
    floor = 0.0
    if vector:
        pages = _page_order(vector)
        keep.update(pages[:depth])
        best_cos: dict[int, float] = {}
        for fid, pid, c in vector:
            cos[fid] = c
            page_of[fid] = pid
            best_cos.setdefault(pid, c)
        cut = pages[min(depth, len(pages)) - 1]
        floor = best_cos[cut] if len(pages) > 1 else min(best_cos[cut], 0.0)
    top_cos = max(cos.values(), default=0.0)
    span = top_cos - floor
    vec = {fid: (min(1.0, max(0.0, (c - floor) / span)) if span > 1e-9 else 1.0) for fid, c in cos.items()}
    w_lex = (1.0 - alpha) if (lexical is not None and vector is not None) else (1.0 if lexical is not None else 0.0)
    w_vec = alpha if (lexical is not None and vector is not None) else (1.0 if vector is not None else 0.0)
    page_lex: dict[int, float] = {}
    page_vec: dict[int, float] = {}
    fragments: dict[int, float] = {}
    for fid, pid in page_of.items():
        if pid not in keep:
            continue
        lv, vv = lex.get(fid, 0.0), vec.get(fid, 0.0)
        page_lex[pid] = max(page_lex.get(pid, 0.0), lv)
        page_vec[pid] = max(page_vec.get(pid, 0.0), vv)
        fragments[fid] = scale * (w_lex * lv + w_vec * vv)
    if page_cosines:
        # What the whole page is about, beside its best passage: the mean of its fragment vectors and its
        # first fragment (a man page's NAME line, a guide's introduction). A long reference page whose one
        # window happens to resemble the query is, as a whole, about something else.
        cent = _normalised({pid: c for pid, (c, _, _) in page_cosines.items() if pid in keep}, depth)
        lead = _normalised({pid: c for pid, (_, c, _) in page_cosines.items() if pid in keep}, depth)
        page_vec = {pid: _pooled(page_vec.get(pid, 0.0), cent[pid], lead[pid], page_cosines[pid][2])
                    if pid in cent else page_vec.get(pid, 0.0) for pid in keep}
    pages_out = {pid: scale * (w_lex * page_lex.get(pid, 0.0) + w_vec * page_vec.get(pid, 0.0)) for pid in keep}
    return Blend(pages_out, fragments, {fid: page_of[fid] for fid in fragments})
