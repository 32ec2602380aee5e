"""The four arm queries of hybrid search, each one restricted to the reader's layers inside its SQL:
lexical (FTS5 bm25 over title + aliases, heading trail and body), vector (sqlite-vec nearest fragments,
exact scan on small layers, 1-bit prefilter + float rerank on large ones), entity (names and aliases
found in the query -> those entity pages, then the pages about them) and graph (pages linked from and
to the best hits of the other arms); with the query terms and depths they share. Each arm is a plain function of a
`session.SearchScope` returning its ranked fragments or pages for one query; `search` fuses them.
"""

from __future__ import annotations

import math
import re

import numpy as np

from stigmergy.index.session import SearchScope, index_fingerprint
from stigmergy.index.store import Selection
from stigmergy.pages.paths import sanitise_stem
from stigmergy.pages.wikilinks import link_key
from stigmergy.settings import Settings

ARM_DEPTH = 50  # pages each arm contributes to the fusion
# Title (+ aliases), headings, body. The title is copied into every fragment of its page, so a higher title
# weight lets one title word outrank the body that answers ("merge base" for a rebase question). 4:2:1 ranks
# pages better on the search sets, and with PICK_WEIGHTS keeps each page's fragment, but it surfaces pages the
# answerer then answers an unanswerable question from (bench/ask.py user s-u09), so the default stays 1:1:1
# (docs/index.md, issue 20, fifth and sixth passes). `[search] title_weight, headings_weight`.
BM25_WEIGHTS = (1.0, 1.0, 1.0)
# The weights that choose each page's fragment (the one shown, read and handed to `ask`) when the ranking
# weights differ. A title weight lifts every fragment of a page alike, and bm25 saturates, so the page's
# shortest fragment wins over the one whose body answers: a concept page's definition lost to a timeline line
# (bench/ask.py a23 under 4:2:1). None: the ranking weights choose too.
PICK_WEIGHTS: tuple[float, float, float] | None = (1.0, 1.0, 1.0)
ENTITY_ABOUT_DEPTH = 500
# Fragments each text arm fetches; they collapse to at most ARM_DEPTH pages. The vector arm's exact scan
# (layers up to EXACT_SCAN_MAX_ROWS) fetches 3x deeper so that one long file (a 130 KB manual is ~150
# fragments) cannot fill its candidates by itself; the scan costs the same at any depth there. Large layers
# keep the 1-bit prefilter's 2 x ARM_DEPTH candidates: 150 deep doubled p50 at 100k fragments (measured,
# docs/index.md), and neither question set moved with depth.
LEXICAL_DEPTH = 100
VECTOR_DEPTH = 150
# At most PAGE_CAP fragments of one page among a text arm's candidates, from FETCH_FACTOR times as many.
PAGE_CAP = 3
FETCH_FACTOR = 4
VECTOR_CAP = False
SOURCE_MENTIONS = True  # the entity arm lists sources that name the entity (ablation switch, docs/index.md)
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have how i if in into is it its of on or our "
    "so than that the their them then there these they this to was we were what when where which who whom "
    "why will with would you your about after before can could should".split()
)
_WORD_RE = re.compile(r"\w+")
_NAME_TOKEN_RE = re.compile(r"\w[\w'&.+-]*\w|\w")


def query_terms(query: str) -> list[str]:
    seen: list[str] = []
    for w in _WORD_RE.findall(query.casefold()):
        if w not in STOPWORDS and w not in seen:
            seen.append(w)
    return seen


def bm25_weights(settings: Settings) -> tuple[float, float, float]:
    """The lexical arm's column weights from `[search]`."""
    search = settings.search
    return (search.title_weight, search.headings_weight, 1.0)

def per_page(rows: list[tuple[int, int, float]], cap: int, depth: int) -> list[tuple[int, int, float]]:
    """The first `depth` rows, at most `cap` of them from one page (a 900-fragment changelog would
    otherwise fill an arm's candidates by itself and hide the short page that answers)."""
    seen: dict[int, int] = {}
    out = []
    for row in rows:
        n = seen.get(row[1], 0)
        if n < cap:
            seen[row[1]] = n + 1
            out.append(row)
            if len(out) == depth:
                break
    return out


def lexical(scope: SearchScope, terms: list[str], sel: Selection,
            weights: tuple[float, float, float] = BM25_WEIGHTS) -> list[tuple[int, int, float]]:
    """(fragment, page, bm25 negated) of the best full-text matches, best first."""
    if not PAGE_CAP:
        return scope.store.lexical(terms, sel, weights, LEXICAL_DEPTH)
    return per_page(scope.store.lexical(terms, sel, weights, LEXICAL_DEPTH * FETCH_FACTOR), PAGE_CAP, LEXICAL_DEPTH)

def lexical_views(scope: SearchScope, terms: list[str], sel: Selection, weights: tuple[float, float, float],
                  ) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]]]:
    """`lexical`'s rows (pages ranked by `weights`) and the same matches as PICK_WEIGHTS order them, from one
    query: the second only chooses each page's fragment. Both are the first rows when the weights agree."""
    pick = PICK_WEIGHTS
    if pick is None or tuple(map(float, pick)) == tuple(map(float, weights)):
        rows = lexical(scope, terms, sel, weights)
        return rows, rows
    depth = LEXICAL_DEPTH * FETCH_FACTOR if PAGE_CAP else LEXICAL_DEPTH
    both = scope.store.lexical_both(terms, sel, weights, pick, depth)
    ranked = [(fid, pid, s) for fid, pid, s, _ in both]
    # A stable sort: fragments the second weights tie keep the first's order.
    picked = sorted(((fid, pid, s2) for fid, pid, _, s2 in both), key=lambda r: -r[2])
    if not PAGE_CAP:
        return ranked, picked
    return per_page(ranked, PAGE_CAP, LEXICAL_DEPTH), per_page(picked, PAGE_CAP, LEXICAL_DEPTH)

def vector(scope: SearchScope, qvec: np.ndarray, sel: Selection) -> list[tuple[int, int, float]]:
    """(fragment, page, cosine similarity) nearest the query's vector, nearest first."""
    want = VECTOR_DEPTH * (3 if sel.filtered else 1)
    prefilter = ARM_DEPTH * (6 if sel.filtered else 1) * 2
    if not PAGE_CAP or not VECTOR_CAP:
        return scope.store.nearest(qvec, sel, want, prefilter, index_fingerprint(scope))
    return per_page(scope.store.nearest(qvec, sel, want * FETCH_FACTOR, prefilter, index_fingerprint(scope)),
                    PAGE_CAP, want)

def entity(scope: SearchScope, query: str, sel: Selection, terms: list[str] | None = None,
           relevance: dict[int, float] | None = None) -> tuple[list[int], int, float]:
    """(entity pages named in the query followed by the pages about them, how many of those are named
    entity pages, the share of the query's terms that their names cover)."""
    tokens = _NAME_TOKEN_RE.findall(query.casefold())
    grams = set()
    for n in range(1, 7):
        for i in range(len(tokens) - n + 1):
            gram = " ".join(tokens[i : i + n])
            grams.add(gram)
            grams.add(gram.rstrip("."))
            if gram.endswith("'s"):
                grams.add(gram[:-2])
    grams = {g for g in grams if len(g) >= 2 and g not in STOPWORDS}
    if not grams:
        return [], 0, 0.0
    store = scope.store
    found = store.entity_names_in(sorted(grams), sel.layers)
    if not found:
        return [], 0, 0.0
    terms = query_terms(query) if terms is None else terms
    named = {w for name, _ in found for w in _WORD_RE.findall(name)}
    coverage = sum(t in named for t in terms) / len(terms) if terms else 1.0
    found.sort(key=lambda r: (-len(r[0]), r[1]))
    entity_pages: list[int] = []
    for _, pid in found:
        if pid not in entity_pages:
            entity_pages.append(pid)
    keys = sorted({name for name, _ in store.names_of(entity_pages)})
    allowed = store.allowed(entity_pages, sel)
    ranked = [pid for pid in entity_pages if pid in allowed]
    n_named = len(ranked)
    about = store.pages_about(keys, sel, ENTITY_ABOUT_DEPTH)
    # Among the pages about those entities, the ones the lexical and vector arms liked come first: the
    # arm says "about Tomasz", the text arms say which of Tomasz's pages is about the question.
    # Sources have no `entities` front matter: the ones whose text names the entity are about it too.
    listed = {pid for pid, _ in about}
    about.extend((pid, 1) for pid in mentions(scope, keys, sel) if pid not in listed)
    relevance = relevance or {}
    about.sort(key=lambda r: (-r[1], -relevance.get(r[0], 0.0)))
    ranked.extend(pid for pid, _ in about if pid not in ranked)
    return ranked[:ARM_DEPTH], n_named, coverage

def mentions(scope: SearchScope, names: list[str], sel: Selection) -> list[int]:
    """Source pages whose text contains one of `names` as a phrase (readable layers, filters applied)."""
    if not SOURCE_MENTIONS:
        return []
    return scope.store.source_mentions(names, sel, ENTITY_ABOUT_DEPTH)

def graph(scope: SearchScope, seeds: list[int], sel: Selection) -> list[int]:
    if not seeds:
        return []
    store = scope.store
    weight = {pid: 1.0 / (i + 1) for i, pid in enumerate(seeds)}
    score: dict[int, float] = {}
    # Outgoing: the seeds' wikilink targets, resolved by stem (raw or sanitised) or by entity name.
    targets: dict[str, set[int]] = {}
    for src, target in store.links_from(seeds):
        targets.setdefault(target, set()).add(src)
        targets.setdefault(link_key(sanitise_stem(target)), set()).add(src)
    if targets:
        keys = sorted(targets)
        for pid, stem in store.pages_with_stems(keys, sel):
            for src in targets.get(stem, ()):
                score[pid] = score.get(pid, 0.0) + weight[src]
        for pid, name in store.entities_named(keys, sel):
            for src in targets.get(name, ()):
                score[pid] = score.get(pid, 0.0) + weight[src]
    # Incoming: pages whose wikilinks name a seed by stem, title or alias.
    names: dict[str, int] = {}
    for pid, stem, title in store.stems_and_titles(seeds):
        names.setdefault(stem, pid)
        names.setdefault(link_key(title), pid)
    for name, pid in store.names_of(seeds):
        names.setdefault(name, pid)
    if names:
        for src, target in store.linking(sorted(names), sel):
            score[src] = score.get(src, 0.0) + weight[names[target]]
    for pid in seeds:
        score.pop(pid, None)
    if score:
        # Hubs (a company page every note links to) neighbour everything; like IDF, a link to a page
        # with many links says little about this query.
        cand = sorted(score)
        degree = dict.fromkeys(cand, 0)
        for pid, n in store.out_degrees(cand):
            degree[pid] += n
        known: dict[str, list[int]] = {}
        for pid, stem, title in store.stems_and_titles(cand):
            for name in {stem, link_key(title)}:
                known.setdefault(name, []).append(pid)
        for name, pid in store.names_of(cand):
            known.setdefault(name, []).append(pid)
        for target, n in store.in_degrees(sorted(known)):
            for pid in set(known[target]):
                degree[pid] += n
        score = {pid: v / math.log2(2 + degree[pid]) for pid, v in score.items()}
    return [pid for pid, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))][:ARM_DEPTH]
