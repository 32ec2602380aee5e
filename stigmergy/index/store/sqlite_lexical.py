"""The SQLite lexical arm's statements: the best full-text matches of a reader's selection by FTS5's bm25,
and the entity arm's source mentions. Both ask `sqlite_postings` first (the same answers, counted in process
over what it holds between searches) and check what it picked against the tables.

The full text's `layer` column is UNINDEXED, so testing it inside the full-text query reads every match's
stored row (title, headings and body with it): half of the arm's CPU (17 -> 8 ms a search at 30,839
fragments, docs/team.md). Neither statement here reads it where it can be avoided: the reader's layers are
tested on the pages of the rows a cut keeps (the selection's condition holds them already).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stigmergy.index.store.protocol import Selection
from stigmergy.index.store.sqlite_schema import marks

# The unfiltered arm's first cut over every layer, in multiples of its depth (`_scoped`).
LEXICAL_OVERFETCH = 2

Row = tuple[int, int, float, float]  # (fragment, page, score, score at the fragment-choosing weights)


def ranked(conn: Any, match: str, sel: Selection, rank: str, also: str, depth: int,
           terms: list[str] | None = None, warm: bool = False) -> list[Row]:
    """The best `depth` matches of the FTS5 query `match` in `sel`, best first: `rank` and `also` are the
    two bm25 expressions (`also` "0.0" when one score is enough). With `match`'s `terms`, the unfiltered
    first cut may be counted in process (sqlite_postings: the same rows and scores, for a `rank` whose
    columns all weigh 1 and `also` "0.0"); `warm`: a long-lived session."""
    where, params = sel.condition
    if not sel.filtered:
        return _scoped(conn, match, sel, rank, also, depth, terms, warm)
    # With filters every match is checked against them before the cut, so none is lost to the LIMIT.
    # CROSS JOIN pins the order: the MATCH drives and pages are looked up by key. The reader's layers are
    # the page's (`where`), not the full text's layer column (the same value).
    sql = (
        f"SELECT f.id, f.page, -{rank} AS s, -{also} FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p "
        f"ON p.id = f.page WHERE fts MATCH ? AND {where} ORDER BY s DESC LIMIT ?"
    )
    return conn.execute(sql, (match, *params, depth)).fetchall()  # type: ignore[no-any-return]


def _scoped(conn: Any, match: str, sel: Selection, rank: str, also: str, depth: int,
            terms: list[str] | None = None, warm: bool = False) -> list[Row]:
    """The best `depth` matches in the reader's layers, then those of them that meet the selection (a layer
    filter given here does not narrow the cut; `index.search` narrows the reader's layers to it before it
    asks, so a search's filtered layer is cut on its own). The best LEXICAL_OVERFETCH x `depth` of all matches are cut
    first and the reader's layers tested on those rows alone, through their pages; when fewer than `depth`
    of them are readable and more matches remain, the statement that tests the layer column inside the
    full-text query runs, as it always did. Exact: both cuts rank by (score, FTS5's rowid order), so the
    readable rows among the first of every match are the first readable rows (ties included). With `terms`,
    all of this is first asked of `sqlite_postings`, which gives the same rows (the readable ones, cut)."""
    where, params = sel.condition
    layers: Sequence[str] = sel.layers
    over = depth * LEXICAL_OVERFETCH
    if terms:
        from stigmergy.index.store import sqlite_postings  # numpy: searches only

        # The same cut counted in process, the reader's layers applied before it (sqlite_postings). Its rows'
        # pages and layers come from a map held with the lists, so they are checked here against the tables:
        # a row that is not as the map says drops the map, and the statements below answer.
        best = sqlite_postings.cut(conn, terms, depth, warm, tuple(layers))
        if best is not None:
            ok = dict(conn.execute(
                f"SELECT f.id, f.page FROM json_each(?) j JOIN fragments f ON f.id = j.value JOIN pages p "
                f"ON p.id = f.page WHERE {where}", (json.dumps([fid for fid, _, _ in best]), *params)).fetchall())
            if all(ok.get(fid) == pid for fid, pid, _ in best):
                return [(fid, pid, -s, -0.0) for fid, pid, s in best]
            sqlite_postings.forget(conn)
    rows = conn.execute(
        f"SELECT f.id, f.page, -h.s, -h.s2, p.layer IN ({marks(layers)}), p.id IS NOT NULL AND {where} "
        f"FROM (SELECT rowid, {rank} AS s, {also} AS s2 FROM fts WHERE fts MATCH ? ORDER BY s LIMIT ?) h "
        f"LEFT JOIN fragments f ON f.id = h.rowid LEFT JOIN pages p ON p.id = f.page ORDER BY h.s",
        (*layers, *params, match, over)).fetchall()
    readable = [row for row in rows if row[4]]
    if len(readable) >= depth or len(rows) < over:
        return [(fid, pid, s, s2) for fid, pid, s, s2, _, ok in readable[:depth] if ok]
    # Scope inside the full-text query itself (the layer column); the best rows are then joined.
    sql = (
        f"SELECT f.id, f.page, -h.s, -h.s2 FROM (SELECT rowid, {rank} AS s, {also} AS s2 FROM fts WHERE fts MATCH ? "
        f"AND layer IN ({marks(layers)}) ORDER BY s LIMIT ?) h "
        f"CROSS JOIN fragments f ON f.id = h.rowid CROSS JOIN pages p ON p.id = f.page WHERE {where} ORDER BY h.s"
    )
    return conn.execute(sql, (match, *layers, depth, *params)).fetchall()  # type: ignore[no-any-return]


def mentions(conn: Any, match: str, sel: Selection, depth: int, warm: bool = False) -> list[int]:
    """The first `depth` source pages of `sel` by path that hold a row matching `match` (the entity arm's
    source mentions). Unfiltered, the matches' pages are looked up in process (`sqlite_postings`), not
    joined row by row, and what that picks is checked here against the tables."""
    where, params = sel.condition
    if not sel.filtered:
        from stigmergy.index.store import sqlite_postings  # numpy: searches only

        found = sqlite_postings.mentions(conn, match, tuple(sel.layers), depth, warm)
        if found is not None:
            if {r[0] for r in conn.execute(
                    f"SELECT p.id FROM pages p WHERE p.id IN ({marks(found)}) AND p.type = 'source' AND {where}",
                    (*found, *params))} == set(found):
                return found
            sqlite_postings.forget(conn)
    return [r[0] for r in conn.execute(
        f"SELECT p.id FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p "
        f"ON p.id = f.page WHERE fts MATCH ? AND p.type = 'source' "
        f"AND {where} GROUP BY p.id, p.path ORDER BY p.path LIMIT ?", (match, *params, depth))]
