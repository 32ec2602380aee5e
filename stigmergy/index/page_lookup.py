"""`page_paths`, the lexical page search filing asks (read-only, never loads the model, never fails),
and `index_info`, the index's meta table.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from stigmergy.errors import StigmergyError
from stigmergy.index.arms import _WORD_RE, LEXICAL_DEPTH, STOPWORDS
from stigmergy.index.freshness import current_fingerprint
from stigmergy.index.store import IndexStore, index_location, open_index, peek_index
from stigmergy.repo.layout import Layout
from stigmergy.settings import Settings

PAGE_QUERY_TERMS = 12  # the rarest terms of a long text make the lexical query of `page_paths`
_DF_PROBE = 2000  # document frequencies above this count as "common"; counting stops there
PAGE_QUERY_POSTINGS = 2500  # fragments the final query may score (~10 µs each, measured at 100k fragments)


def page_paths(root: Path, settings: Settings, query: str, k: int, *, layer: str = "public") -> list[str]:
    """Wiki pages of `layer` relevant to `query` (typically a new source's text), best first, as
    repository-relative paths: the planner's context asks this once per capture.

    Lexical only: a cold process would spend more on loading the embedding model than the whole budget,
    and the planner's context adds its own entity and title matches. A long text is reduced to its
    `PAGE_QUERY_TERMS` rarest terms in the index (weighted by how often the text repeats them), so that the
    query says what is specific about it. Scope: the pages of `layer` only, the layer a capture writes to
    (a public capture sees public pages). Never fails: a missing, old, locked or unreadable index answers
    [] and the caller falls back on what it finds without the index."""
    if k <= 0 or layer not in settings.layer_names():
        return []
    try:
        db = index_location(Layout(root), settings)
    except StigmergyError:
        return []
    if not db.shared and not db.path.is_file():
        return []
    counts: dict[str, int] = {}
    for w in _WORD_RE.findall(query.casefold()):
        if w not in STOPWORDS and len(w) >= 2 and not (w.isdigit() and len(w) < 3):
            counts[w] = counts.get(w, 0) + 1
    if not counts:
        return []
    store = peek_index(db)
    if store is None:
        return []
    try:
        terms = list(counts) if len(counts) <= 3 else _rarest_terms(store, counts)
        if not terms:
            return []
        weights = (settings.search.title_weight, settings.search.headings_weight, 1.0)
        rows = store.page_matches(terms, layer, weights, max(4 * k, LEXICAL_DEPTH))
    except store.errors:
        return []
    finally:
        store.close()
    out: list[str] = []
    for path in rows:
        if path not in out and (Path(root) / path).is_file():  # an index behind the tree may name gone pages
            out.append(path)
            if len(out) == k:
                break
    return out


def _rarest_terms(store: IndexStore, counts: dict[str, int]) -> list[str]:
    """The query's most specific terms: idf over the index's fragments times (capped) repetitions in the
    text, as many as fit in `PAGE_QUERY_POSTINGS` matching fragments (bm25 scores every match, so the common
    terms of a long text would cost far more than they tell). Terms the index has never seen are dropped."""
    # Longer and more repeated terms first when there are very many (a whole document), so probing stays cheap.
    cand = sorted(counts, key=lambda t: (-min(counts[t], 3), -len(t), t))[: 4 * PAGE_QUERY_TERMS]
    n = store.fragment_count() or 1  # ~ the fragments df counts over
    scored = []
    for t in cand:
        df = store.term_frequency(t, _DF_PROBE)
        if df:
            scored.append((math.log(1 + n / df) * (1 + math.log(min(counts[t], 3))), df, t))
    scored.sort(key=lambda x: (-x[0], x[2]))
    out: list[str] = []
    postings = 0
    for _, df, t in scored[:PAGE_QUERY_TERMS]:
        if out and postings + df > PAGE_QUERY_POSTINGS:
            break
        out.append(t)
        postings += df
    return out


def index_info(root: Path, settings: Settings) -> dict[str, Any]:
    layout = Layout(root)
    store = open_index(index_location(layout, settings))
    try:
        meta: dict[str, Any] = dict(store.all_meta())
        meta["fingerprint_current"] = current_fingerprint(settings, layout)
        meta["dirty"] = json.loads(meta.get("dirty", "[]"))
        return meta
    finally:
        store.close()
