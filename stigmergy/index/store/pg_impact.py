"""The lexical arm's first cut without touching every match: an impact-ordered posting table, walked with a
threshold (Fagin's threshold algorithm), each fragment met re-scored exactly.

At 247,762 fragments a five-word question matches 30,000-170,000 fragments, and ranking them all with
`ts_rank` was most of a search's database CPU. `postings` holds one row per (lexeme, fragment) with the
fragment's layer and an *impact*: the lexeme's BM25 term factor in that fragment at a reference average
length R (`meta.impact_avg`),

    impact = tf / (tf + k1 (1 - b + b len / R))

with tf the lexeme's positions in the fragment (every column counted once) and len its token count. A
B-tree on (lexeme, layer, impact, id) lists each lexeme's fragments in one layer best first.

**Why the walk is exact although impacts go stale.** A fragment's true term score at query time is
c x wf (k1 + 1) / (wf + k1 (1 - b + b len / A)), with c the lexeme's idf (x its copies in the query; read
from `terms` at query time, so document frequencies never go stale), wf its column-weighted count and A
the current average length. With W the largest column weight (at least 1), wf <= W tf and the factor
is at most W x its value at tf; moving the average from R to A scales it by at most max(1, A / R) (the
denominator's length part is the only thing A changes). So every fragment's term score is at most
c (k1 + 1) W max(1, A / R) x impact, whatever has changed since its posting was written: the bound
`scale` below. The walk reads each (lexeme, layer) list best first in rounds; every fragment met is
scored exactly (`pg_rank`'s statement over its `fts` row, the reader's layers and the selection's
condition inside it); a fragment not yet met scores at most the sum over lexemes of c x scale x the
impact last read in its lists; once the depth-th exact score is above that sum, no unmet fragment can
enter the top, and the top is the exact BM25 top (ties included: the stop is strict, with a margin for
float rounding). Staleness costs only depth of walk (A / R far above 1 loosens the bound), never rows.

R is set from the full-text table when the postings are first written (the migration's backfill, or the
first pages after a `clear`), and kept: a posting is written with the same R whenever it is written.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from stigmergy.index.store import pg_text

# The first round reads this many postings from each list per `depth` row wanted; the second reads the
# non-essential lists GROWTH x deeper (and the essential ones to their end). A lone lexeme's first round
# reads past the depth, so that it can settle there (its theta is the depth-th floor of its own list):
# at 30,839 fragments "fixture" read 500 of its 6,611 postings, where 200 left theta at 0 and the second
# round read them all.
FIRST_ROUND = 0.5
ONE_LEXEME_ROUND = 1.25
GROWTH = 3
ALL = 2**31 - 1  # a list read to its end
MARGIN = 1e-6  # impacts are float4 (relative rounding ~6e-8); the stop keeps a margin over the bound

_IMPACT = (f"(coalesce(cardinality(u.positions), 1)::float8 / (coalesce(cardinality(u.positions), 1) "
           f"+ {pg_text.K1!r} * (1 - {pg_text.B!r} + {pg_text.B!r} * t.ntok / {{ref}})))::real")

# The migration that creates the table and fills it from an existing full-text table (a new schema has none).
MIGRATION = f"""
    CREATE TABLE postings(
        lexeme TEXT COLLATE "C" NOT NULL,
        layer TEXT COLLATE "C" NOT NULL,
        impact REAL NOT NULL,
        id BIGINT NOT NULL
    );
    INSERT INTO meta(key, value) SELECT 'impact_avg', coalesce(avg(ntok), 0)::text FROM fts;
    INSERT INTO postings(lexeme, layer, impact, id)
        SELECT u.lexeme, t.layer, {_IMPACT.format(ref="(SELECT nullif(value::float8, 0) FROM meta WHERE key = 'impact_avg')")}, t.id
        FROM fts t, unnest(t.tsv) u;
    CREATE INDEX postings_walk ON postings(lexeme, layer, impact, id);
    CREATE INDEX postings_id ON postings(id);
    """


def reference(conn: Any) -> float:
    """R: the average length impacts are written at (0.0 when none is set yet)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'impact_avg'").fetchone()
    return float(row[0]) if row else 0.0


def add(conn: Any, fragments: Sequence[int]) -> None:
    """The postings of fragments whose `fts` rows are written (setting R from the full-text table when
    none is set: the first pages of a new or cleared index)."""
    if not fragments:
        return
    if reference(conn) <= 0:
        conn.execute("INSERT INTO meta(key, value) SELECT 'impact_avg', coalesce(avg(ntok), 0)::text FROM fts "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value")
    # In the walk's key order: a build's chunk of 4,000 fragments then fills its B-tree leaf by leaf instead
    # of at random (~4,850 fragments: 6.3-8.2 -> 5.7-7.3 s of server CPU a build; docs/team.md).
    conn.execute(
        "INSERT INTO postings(lexeme, layer, impact, id) SELECT u.lexeme, t.layer, "
        + _IMPACT.format(ref="%s::float8") + ", t.id FROM fts t, unnest(t.tsv) u WHERE t.id = ANY(%s::bigint[]) "
        "ORDER BY 1, 2, 3, 4",
        (reference(conn) or 1.0, list(fragments)))


def remove(conn: Any, pages: Sequence[int]) -> None:
    """The postings of these pages' fragments (before the pages go: no foreign key does it, whose check of
    every row inserted cost a build more than the rest of the postings' upkeep)."""
    conn.execute("DELETE FROM postings WHERE id IN (SELECT id FROM fragments WHERE page = ANY(%s::bigint[]))",
                 (list(pages),))


def clear(conn: Any) -> None:
    """Every posting gone and R unset (a rebuild sets it again from its own pages)."""
    conn.execute("DELETE FROM postings")
    conn.execute("DELETE FROM meta WHERE key = 'impact_avg'")


def factors(avg: float, ref: float, weights: tuple[float, float, float]) -> tuple[float, float]:
    """(low, high): a term's score lies between c x low x impact and c x high x impact (the module's
    docstring says why)."""
    column = (*weights, pg_text.EXTRA_WEIGHT)
    drift = avg / ref if ref > 0 else math.inf
    return ((pg_text.K1 + 1) * min(1.0, *column) * min(1.0, drift),
            (pg_text.K1 + 1) * max(1.0, *column) * max(1.0, drift))


def walk(conn: Any, coef: dict[str, float], layers: Sequence[str], bounds: tuple[float, float], depth: int,
         score: tuple[str, str, Sequence[Any], Sequence[Any]]) -> list[tuple[int, int, float, float]] | None:
    """The exact top `depth` (fragment, page, score, second score) by bm25, best first (ties by id), from the
    lists of `coef`'s lexemes in `layers`. `score` is (the exact score's lateral joins on `fts t`, the
    condition on pages `p`, the joins' parameters, the condition's): every fragment of the lists must be
    in the reader's scope (the caller walks only where nothing but the layers filters). None only if the
    second round did not settle (it cannot: see below); the caller then cuts another way.

    One statement a round, each list read from its top, `n` postings deep (its own `n`). A fragment met
    has a floor (its impacts read, at the low factor) and a ceiling (at the high factor, plus, for each
    lexeme it was not met under, that lexeme's last impact read); a fragment never met is under the sum
    of those last impacts (`unmet`). Once the depth-th best floor (theta) is above `unmet`, the fragments
    met whose ceiling reaches theta are scored exactly in the same statement and the best `depth` of them
    come back; otherwise one row (-1, 0, unmet, theta, the lists' highest impacts) says to read deeper."""
    low, high = bounds
    if not math.isfinite(high) or not coef:
        return None
    joins, where, join_params, where_params = score
    lists = [(w, layer, coef[w]) for w in coef for layer in layers]
    statement = (
        "WITH q AS (SELECT * FROM unnest(%s::text[], %s::text[], %s::float8[], %s::int[]) WITH ORDINALITY "
        "AS q(lx, ly, c, n, o)), "
        "r AS (SELECT q.o, q.lx, q.c, x.id, x.impact FROM q CROSS JOIN LATERAL (SELECT s.id, s.impact FROM postings s "
        "WHERE s.lexeme = q.lx AND s.layer = q.ly ORDER BY s.impact DESC, s.id DESC LIMIT q.n) x), "
        # A list read to its end has nothing left under it (head 0).
        "l AS (SELECT q.o, q.lx, q.c, CASE WHEN count(r.id) < q.n THEN 0 ELSE min(r.impact) END AS head, "
        "coalesce(max(r.impact), 0) AS top "
        "FROM q LEFT JOIN r ON r.o = q.o GROUP BY q.o, q.lx, q.c, q.n), "
        "w AS (SELECT lx, max(c) AS c, max(head) AS head FROM l GROUP BY lx), "
        "b AS (SELECT coalesce(sum(c * head), 0) * %s::float8 AS unmet, bool_or(head > 0) AS open FROM w), "
        "d AS (SELECT r.id, sum(r.c * r.impact) * %s::float8 AS lo, sum(r.c * (r.impact - w.head)) * %s::float8 "
        "AS lift FROM r JOIN w ON w.lx = r.lx GROUP BY r.id), "
        "k AS (SELECT b.unmet, b.open, coalesce((SELECT lo FROM d ORDER BY lo DESC OFFSET %s LIMIT 1), 0) "
        "AS theta FROM b) "
        "(SELECT c.id, f.page, s.score, " + ("s2.score" if "s2" in joins else "0.0::float8") + ", NULL::real[] FROM d c "
        "JOIN fts t ON t.id = c.id JOIN fragments f ON f.id = t.id JOIN pages p ON p.id = f.page " + joins + " "
        "CROSS JOIN k WHERE (k.unmet * %s < k.theta OR NOT k.open) AND (k.unmet + c.lift) * %s >= k.theta "
        f"AND t.layer = ANY(%s::text[]) AND {where} ORDER BY s.score DESC, c.id LIMIT %s) "
        # Not settled: (-1, 0, unmet, theta, each list's highest impact, in the lists' order).
        "UNION ALL (SELECT -1, 0, k.unmet, k.theta, (SELECT array_agg(top ORDER BY o) FROM l) FROM k "
        "WHERE k.unmet * %s >= k.theta AND k.open)")

    def run(n: list[int]) -> list[tuple[Any, ...]]:
        return list(conn.execute(statement, (
            [x[0] for x in lists], [x[1] for x in lists], [x[2] for x in lists], n, high, low * (1 - MARGIN),
            high, depth - 1, *join_params, 1 + MARGIN, 1 + MARGIN, list(layers), *where_params, depth,
            1 + MARGIN)).fetchall())

    def done(rows: list[tuple[Any, ...]]) -> list[tuple[int, int, float, float]] | None:
        if rows and rows[0][0] == -1:
            return None
        return [(int(fid), int(page), float(s), float(s2)) for fid, page, s, s2, _ in rows]

    first = max(16, int(depth * (FIRST_ROUND if len(coef) > 1 else ONE_LEXEME_ROUND)))
    rows = run([first] * len(lists))
    top = done(rows)
    if top is not None:
        return top
    # MaxScore's split: the lexemes whose highest possible terms together stay under theta (a floor the
    # first round proved) are non-essential: a fragment with none of the others cannot reach the top. The
    # essential lists are read to their end (a fragment not met in one has not that lexeme), the others
    # a little deeper than before; the unmet ceiling is then under theta and the round settles.
    theta = float(rows[0][3])
    tops = [float(x) for x in rows[0][4]]  # the first posting read of each list: its highest impact
    ceiling = {w: coef[w] * high * max(tops[i] for i, x in enumerate(lists) if x[0] == w) for w in coef}
    spare: set[str] = set()
    total = 0.0
    for w in sorted(coef, key=lambda w: ceiling[w]):
        total += ceiling[w]
        if total * (1 + MARGIN) >= theta:
            break
        spare.add(w)
    return done(run([first * GROWTH if x[0] in spare else ALL for x in lists]))
