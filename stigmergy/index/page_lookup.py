"""`page_paths`, the lexical page search filing asks (read-only, never loads the model, never fails),
and `index_info`, the index's meta table.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from stigmergy.index import store
from stigmergy.index.arms import _WORD_RE, LEXICAL_DEPTH, STOPWORDS, _fts_query
from stigmergy.index.build import current_fingerprint
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
    db = Layout(root).index_db
    if k <= 0 or not db.is_file() or layer not in settings.layer_names():
        return []
    counts: dict[str, int] = {}
    for w in _WORD_RE.findall(query.casefold()):
        if w not in STOPWORDS and len(w) >= 2 and not (w.isdigit() and len(w) < 3):
            counts[w] = counts.get(w, 0) + 1
    if not counts:
        return []
    try:
        import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - pysqlite3 is a dependency; the stdlib build may still have FTS5
        import sqlite3
    try:
        # Read-only, no extension and no migration: a capture must never write to (or wait on) the index.
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=0.5, check_same_thread=False)
    except (sqlite3.Error, ValueError, OSError):
        return []
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != len(store.MIGRATIONS):
            return []
        terms = list(counts) if len(counts) <= 3 else _rarest_terms(conn, counts)
        if not terms:
            return []
        w1, w2, w3 = settings.search.title_weight, settings.search.headings_weight, 1.0
        rows = conn.execute(
            f"SELECT p.path FROM (SELECT rowid, bm25(fts, {w1}, {w2}, {w3}, 0.0) AS s FROM fts WHERE fts MATCH ? "
            f"AND layer = ? ORDER BY s LIMIT ?) h CROSS JOIN fragments f ON f.id = h.rowid "
            f"CROSS JOIN pages p ON p.id = f.page WHERE p.type != 'source' ORDER BY h.s",
            (_fts_query(terms), layer, max(4 * k, LEXICAL_DEPTH))).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    out: list[str] = []
    for (path,) in rows:
        if path not in out and (Path(root) / path).is_file():  # an index behind the tree may name gone pages
            out.append(path)
            if len(out) == k:
                break
    return out


def _rarest_terms(conn: Any, counts: dict[str, int]) -> list[str]:
    """The query's most specific terms: idf over the index's fragments times (capped) repetitions in the
    text, as many as fit in `PAGE_QUERY_POSTINGS` matching fragments (bm25 scores every match, so the common
    terms of a long text would cost far more than they tell). Terms the index has never seen are dropped."""
    # Longer and more repeated terms first when there are very many (a whole document), so probing stays cheap.
    cand = sorted(counts, key=lambda t: (-min(counts[t], 3), -len(t), t))[: 4 * PAGE_QUERY_TERMS]
    n = conn.execute("SELECT max(rowid) FROM fragments").fetchone()[0] or 1  # ~ the fragments df counts over
    scored = []
    for t in cand:
        df = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)", (_fts_query([t]), _DF_PROBE)).fetchone()[0]
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
    conn = store.connect(layout.index_db)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        meta["fingerprint_current"] = current_fingerprint(settings, layout)
        meta["dirty"] = json.loads(meta.get("dirty", "[]"))
        return meta
    finally:
        conn.close()
