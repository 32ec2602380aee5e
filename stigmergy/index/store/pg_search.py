"""The PostgreSQL index's search arms: a reader's `Selection` (layers and filters as SQL on pages), the
lexical arm (in a warm session, counted over posting lists held per generation, `pg_postings.py`;
otherwise the impact walk, `pg_impact.py`, or a ts_rank first cut inside the database, each re-scored
exactly with FTS5's bm25: `pg_rank.py`, `pg_text.py`) and the vector arm (pgvector: a layer's own partial
HNSW index past `EXACT_SCAN_MAX_ROWS`, an exact scan below). Scope is inside every statement: the reader's
layers, and the selection's condition; the held cut applies the layers before it cuts and checks its rows
in SQL with the layers in the statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from stigmergy.index.store import pg_impact, pg_nearest, pg_postings, pg_rank, pg_text
from stigmergy.index.store.pg_reads import PgReads
from stigmergy.index.store.protocol import Filters, Selection

if TYPE_CHECKING:
    import numpy as np

EXACT_SCAN_MAX_ROWS = 20_000  # as on SQLite: smaller layers are scanned exactly, larger ones through HNSW
WALK = True  # False: every single-word cut by ts_rank over every match (the tests' reference)
FIRST_CUT = 4  # ts_rank keeps this many times the arm's depth for the exact BM25 re-score


class PgSearch(PgReads):
    """The arms, over `PgReads`' connection; the caches are per database version (`version()`)."""

    _counts: tuple[int, dict[str, int], dict[str, int]] | None
    _stats: tuple[int, tuple[int, float]] | None
    _phrase_df: dict[tuple[str, ...], int]
    _ef_search: int
    _ref: tuple[int, float] | None

    # ------------------------------------------------------------ scope

    def entity_keys(self, name: str, layers: tuple[str, ...]) -> tuple[list[int], list[str]]:
        from stigmergy.pages.wikilinks import link_key

        key = link_key(name)
        pages = [r[0] for r in self.conn.execute(
            "SELECT DISTINCT en.page FROM entity_names en JOIN pages p ON p.id = en.page "
            "WHERE en.name = %s AND p.layer = ANY(%s::text[])", (key, list(layers)))]
        keys = {key}
        if pages:
            keys.update(r[0] for r in self.conn.execute(
                "SELECT name FROM entity_names WHERE page = ANY(%s::bigint[])", (pages,)))
        return pages, sorted(keys)

    def select(self, layers: tuple[str, ...], filters: Filters) -> Selection:
        """The SQL condition on pages `p`: the reader's layers and the filters. Every search and read begins
        here, so the generation it answers at is read here too (what a warm session holds is keyed by it)."""
        self._gen = self.version()
        conds = ["p.layer = ANY(%s::text[])"]
        params: list[Any] = [list(layers)]
        if filters.type:
            conds.append("p.type = %s")
            params.append(filters.type)
        if filters.status:
            conds.append("p.status = %s")
            params.append(filters.status)
        if filters.layer:
            conds.append("p.layer = %s")
            params.append(filters.layer)
        if filters.since:
            conds.append("coalesce(p.updated, p.occurred_at, p.captured_at, '') >= %s")
            params.append(filters.since)
        if filters.entity:
            pages, keys = self.entity_keys(filters.entity, layers)
            # Sources carry no `entities` list: the ones whose text names the entity (a phrase match) belong.
            mention = pg_text.tsquery(pg_text.phrases(keys), column="D")
            conds.append("(p.id IN (SELECT page FROM page_entities WHERE entity = ANY(%s::text[])) "
                         "OR p.id = ANY(%s::bigint[])"
                         + (" OR (p.type = 'source' AND p.id IN (SELECT f.page FROM fts t JOIN fragments f "
                            "ON f.id = t.id WHERE t.tsv @@ %s::tsquery))" if mention else "") + ")")
            params.extend([keys, pages])
            if mention:
                params.append(mention)
        return Selection(layers, filters, (" AND ".join(conds), tuple(params)))

    # ------------------------------------------------------------ full text

    def _fts_stats(self) -> tuple[int, float]:
        """(rows, mean tokens per row) of the whole full-text table, once per database version. A warm
        session only searches, and every search begins with `select`, which has just read the version."""
        version = self._gen if self._warm and self._gen is not None else self.version()
        if self._stats is None or self._stats[0] != version:
            n, total = self.conn.execute("SELECT count(*), coalesce(sum(ntok), 0) FROM fts").fetchone()
            self._stats = (version, (int(n), float(total) / max(1, int(n))))
            self._phrase_df = {}
        return self._stats[1]

    def _dfs(self, phrase_list: Sequence[tuple[str, ...]]) -> dict[str, int]:
        """Document frequency of each single-word phrase's lexeme (absent: none)."""
        singles = sorted({p[0] for p in phrase_list if len(p) == 1})
        return {str(k): int(v) for k, v in self.conn.execute(
            "SELECT term, df FROM terms WHERE term = ANY(%s::text[])", (singles,)).fetchall()} if singles else {}

    def _idfs(self, phrase_list: Sequence[tuple[str, ...]], rows: int,
              df: dict[str, int] | None = None) -> list[float]:
        df = self._dfs(phrase_list) if df is None else df
        out = []
        for phrase in phrase_list:
            if len(phrase) == 1:
                n = int(df.get(phrase[0], 0))
            else:
                if phrase not in self._phrase_df:
                    self._phrase_df[phrase] = int(self.conn.execute(
                        "SELECT count(*) FROM fts WHERE tsv @@ %s::tsquery", (pg_text.tsquery([phrase]),)).fetchone()[0])
                n = self._phrase_df[phrase]
            out.append(pg_text.idf(rows, n))
        return out

    def _ranked(self, phrase_list: Sequence[tuple[str, ...]], layers: Sequence[str], where: str,
                params: Sequence[Any], weights: tuple[float, float, float], depth: int,
                filter_first: bool, pick: tuple[float, float, float] | None = None) -> list[tuple[int, int, float, float]]:
        """(fragment, page, bm25, bm25 at the weights `pick` or 0.0) of the best BM25 matches in `layers` of pages
        meeting `where`, best first (ties by id): a ts_rank cut of FIRST_CUT x `depth` inside the database (ties
        by id too, so that the cut is the same whatever the plan), re-scored exactly with FTS5's bm25 (inside the
        database for single words, `pg_rank`; here for phrases). Single words in a warm session are counted
        from held lists first (`_held_cut`), single words elsewhere by the impact walk."""
        query = pg_text.tsquery(phrase_list)
        w = pg_text.weights_array(weights)
        cut = max(depth * FIRST_CUT, 100)
        if filter_first:
            sql_text = (
                "SELECT t.id, f.page, t.ntok FROM fts t JOIN fragments f ON f.id = t.id JOIN pages p "
                f"ON p.id = f.page WHERE t.tsv @@ %s::tsquery AND t.layer = ANY(%s::text[]) AND {where} "
                "ORDER BY ts_rank(%s::float4[], t.tsv, %s::tsquery, 1) DESC, t.id LIMIT %s")
            args: tuple[Any, ...] = (query, list(layers), *params, w, query, cut)
        else:
            sql_text = (
                "SELECT c.id, f.page, c.ntok FROM (SELECT t.id, t.ntok, ts_rank(%s::float4[], t.tsv, "
                "%s::tsquery, 1) AS r FROM fts t WHERE t.tsv @@ %s::tsquery AND t.layer = ANY(%s::text[]) "
                f"ORDER BY r DESC, t.id LIMIT %s) c JOIN fragments f ON f.id = c.id JOIN pages p ON p.id = f.page WHERE {where}")
            args = (w, query, query, list(layers), cut, *params)
        if pg_rank.in_database(phrase_list):
            rows, avg = self._fts_stats()
            idfs = self._idfs(phrase_list, rows)
            both = pick is not None
            # The walk's floors hold for fragments in the reader's layers; a narrower selection (a type, a date)
            # keeps the ts_rank cut, whose statement filters first.
            held = self._held_cut(phrase_list, idfs, avg, layers, weights, depth, pick, filter_first)
            if held is not None:
                return held
            walked = (self._walked(phrase_list, idfs, avg, layers, where, params, weights, depth, pick)
                      if WALK and not filter_first else None)
            if walked is not None:
                return walked
            scored = self.conn.execute(
                f"SELECT c.id, c.page, s.score, {'s2.score' if both else '0.0'} FROM ({sql_text}) c JOIN fts t ON t.id = c.id "
                f"{pg_rank.score_join('t')} {pg_rank.score_join('t', 's2') if both else ''} "
                "ORDER BY s.score DESC, c.id LIMIT %s",
                (*args, *pg_rank.score_params(phrase_list, idfs, avg, weights),
                 *(pg_rank.score_params(phrase_list, idfs, avg, pick) if pick is not None else ()), depth))
            return [(fid, page, float(score), float(score2)) for fid, page, score, score2 in scored.fetchall()]
        cands = self.conn.execute(f"SELECT id, page, ntok FROM ({sql_text}) c", args).fetchall()
        return self._rescored(cands, phrase_list, weights, depth, pick)

    def _held_cut(self, phrase_list: Sequence[tuple[str, ...]], idfs: Sequence[float], avg: float,
                  layers: Sequence[str], weights: tuple[float, float, float], depth: int,
                  pick: tuple[float, float, float] | None, filter_first: bool) -> list[tuple[int, int, float, float]] | None:
        """The cut from the posting lists a long-lived session holds (`pg_postings`), checked in SQL; None where
        it does not answer: a session that is not warm, a selection narrower than the layers, column weights
        other than 1, or what is held not being the database's."""
        if not self._warm or filter_first or pick is not None or tuple(map(float, weights)) != (1.0, 1.0, 1.0):
            return None
        version = self._stats[0] if self._stats is not None else self.version()
        coef: dict[str, float] = {}
        for phrase, w_idf in zip(phrase_list, idfs, strict=True):
            coef[phrase[0]] = coef.get(phrase[0], 0.0) + w_idf
        rows = pg_postings.cut(self.conn, self.schema, version, coef, avg, layers, depth, self.url)
        if rows is None or not pg_postings.check(self.conn, self.schema, rows, layers):
            return None
        return rows

    def _walked(self, phrase_list: Sequence[tuple[str, ...]], idfs: Sequence[float], avg: float,
                layers: Sequence[str], where: str, params: Sequence[Any], weights: tuple[float, float, float],
                depth: int, pick: tuple[float, float, float] | None) -> list[tuple[int, int, float, float]] | None:
        """The exact bm25 top of single words by the impact walk (`pg_impact.walk`), or None where it gave up."""
        # _fts_stats has just read the version (this search's statistics); no second round trip for it.
        version = self._stats[0] if self._stats is not None else self.version()
        if self._ref is None or self._ref[0] != version:
            self._ref = (version, pg_impact.reference(self.conn))
        coef: dict[str, float] = {}
        for phrase, w_idf in zip(phrase_list, idfs, strict=True):
            coef[phrase[0]] = coef.get(phrase[0], 0.0) + w_idf
        both = pick is not None
        joins = f"{pg_rank.score_join('t')} {pg_rank.score_join('t', 's2') if both else ''}"
        fixed = (*pg_rank.score_params(phrase_list, idfs, avg, weights),
                 *(pg_rank.score_params(phrase_list, idfs, avg, pick) if pick is not None else ()))
        return pg_impact.walk(self.conn, coef, layers, pg_impact.factors(avg, self._ref[1], weights), depth,
                              (joins, where, fixed, params))

    def _rescored(self, cands: Sequence[tuple[int, int, int]], phrase_list: Sequence[tuple[str, ...]],
                  weights: tuple[float, float, float], depth: int,
                  pick: tuple[float, float, float] | None = None) -> list[tuple[int, int, float, float]]:
        """The best `depth` of (fragment, page, token count) rows by FTS5's bm25, best first (ties by id), each
        with its bm25 at the weights `pick` (0.0 without)."""
        if not cands:
            return []
        lexemes = sorted({x for p in phrase_list for x in p})
        in_phrases = sorted({x for p in phrase_list if len(p) > 1 for x in p})
        # A lexeme's column letters come as one string (counted here); positions only for the words of a
        # phrase, which need them to find the phrase (parsing every position of ~1,600 rows cost more
        # client CPU than the rest of a search). Each row's tsvector is cut down to the query's lexemes
        # (delete the others: the row's lexemes less the query's) before unnest, which otherwise made a
        # row with two arrays for each of a fragment's ~90 lexemes: 43 -> 19 ms of the database's CPU a
        # search at 31,000 fragments, the same rows.
        occ: dict[int, dict[str, tuple[str, list[int] | None]]] = {}
        for fid, lexeme, positions, letters in self.conn.execute(
                "SELECT t.id, u.lexeme, CASE WHEN u.lexeme = ANY(%s::text[]) THEN u.positions END, "
                "array_to_string(u.weights, '') FROM fts t, "
                "unnest(ts_delete(t.tsv, tsvector_to_array(ts_delete(t.tsv, %s::text[])))) u "
                "WHERE t.id = ANY(%s::bigint[])",
                (in_phrases, lexemes, [c[0] for c in cands])):
            occ.setdefault(fid, {})[lexeme] = (letters, positions)
        rows, avg = self._fts_stats()
        idfs = self._idfs(phrase_list, rows)
        scored = []
        for fid, page, ntok in cands:
            hits = [pg_text.phrase_hits(occ.get(fid, {}), p) for p in phrase_list]
            also = pg_text.bm25(hits, idfs, pick, ntok, avg) if pick is not None else 0.0
            scored.append((-pg_text.bm25(hits, idfs, weights, ntok, avg), fid, page, also))
        scored.sort()
        return [(fid, page, -neg, also) for neg, fid, page, also in scored[:depth]]

    # ------------------------------------------------------------ the search arms

    def lexical(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                depth: int) -> list[tuple[int, int, float]]:
        phrase_list = pg_text.phrases(terms)
        if not phrase_list:
            return []
        where, params = sel.condition
        return [(fid, pid, s) for fid, pid, s, _ in
                self._ranked(phrase_list, sel.layers, where, params, weights, depth, filter_first=sel.filtered)]

    def lexical_both(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                     pick: tuple[float, float, float], depth: int) -> list[tuple[int, int, float, float]]:
        phrase_list = pg_text.phrases(terms)
        if not phrase_list:
            return []
        where, params = sel.condition
        return self._ranked(phrase_list, sel.layers, where, params, weights, depth, filter_first=sel.filtered,
                            pick=pick)

    def _vec_rows(self) -> tuple[dict[str, int], dict[str, int]]:
        """(vectors a layer, the dimension of each layer's HNSW index), once per database version."""
        version = self._generation()
        if self._counts is None or self._counts[0] != version:
            self._counts = (version, dict(self.conn.execute("SELECT layer, count(*) FROM vec GROUP BY layer").fetchall()),
                            dict(self.conn.execute("SELECT layer, dimension FROM vec_indexes").fetchall()))
        return self._counts[1], self._counts[2]

    def nearest(self, query: np.ndarray, sel: Selection, want: int, prefilter: int,
                fingerprint: str) -> list[tuple[int, int, float]]:
        import numpy as np
        from psycopg import sql

        qvec = np.ascontiguousarray(query, dtype=np.float32)
        counts, graphs = self._vec_rows()
        indexes = graphs if any(counts.get(layer, 0) > EXACT_SCAN_MAX_ROWS for layer in sel.layers) else {}
        parts: list[Any] = []
        params: list[Any] = []
        held: list[tuple[float, int]] = []  # (distance, fragment) from the layers a warm session holds
        for layer in sel.layers:
            if not counts.get(layer):
                continue
            dim = indexes.get(layer)
            got = (pg_nearest.nearest(self.conn, self.url, self.schema, self._generation(), layer, qvec, prefilter)
                   if dim and self._warm else None)
            if got is not None:
                held.extend(got)
            elif dim:
                # The layer's own HNSW graph: the partial index's predicate is this literal layer. A graph's
                # candidates are `prefilter` deep, as SQLite's 1-bit prefilter's over a large layer (ef 100
                # for 100 rather than 150 for 150: 4.0 against 6.2 ms at 223,001 vectors).
                cast = sql.SQL("(v.embedding::vector({d})) <=> %s::vector({d})").format(d=sql.Literal(int(dim)))
                parts.append(sql.SQL("(SELECT v.id, {c} AS d FROM vec v WHERE v.layer = {l} ORDER BY {c} LIMIT %s)")
                             .format(c=cast, l=sql.Literal(layer)))
                params.extend([qvec, qvec, prefilter])
            else:
                parts.append(sql.SQL("(SELECT v.id, v.embedding <=> %s AS d FROM vec v WHERE v.layer = %s "
                                     "ORDER BY d LIMIT %s)"))
                params.extend([qvec, layer, want])
        if indexes and parts:
            ef = max(40, prefilter)
            if ef != self._ef_search:
                self.conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(int(min(ef, 1000)))))
                self._ef_search = ef
        where, cond = sel.condition
        if held:
            # The held layers' candidates and the statements' rows, nearest first, then the selection's
            # condition in SQL on the best `want` (as SQLite's large layers are answered).
            scored = sorted(held + ([(float(d), int(i)) for i, d in self.conn.execute(
                sql.SQL("SELECT id, d FROM ({u}) n ORDER BY d LIMIT %s").format(u=sql.SQL(" UNION ALL ").join(parts)),
                (*params, want)).fetchall()] if parts else []))[:want]
            ok = dict(self.conn.execute(
                f"SELECT f.id, f.page FROM fragments f JOIN pages p ON p.id = f.page WHERE f.id = ANY(%s::bigint[]) "
                f"AND {where}", (pg_text.ids_literal(i for _, i in scored), *cond)).fetchall())
            return [(fid, ok[fid], 1.0 - d) for d, fid in scored if fid in ok]
        if not parts:
            return []
        statement = sql.SQL(
            "SELECT c.id, f.page, 1.0 - c.d FROM (SELECT id, d FROM ({u}) n ORDER BY d LIMIT %s) c "
            "JOIN fragments f ON f.id = c.id JOIN pages p ON p.id = f.page WHERE {w} ORDER BY c.d"
        ).format(u=sql.SQL(" UNION ALL ").join(parts), w=sql.SQL(where))  # type: ignore[arg-type]
        return [(r[0], r[1], float(r[2])) for r in self.conn.execute(statement, (*params, want, *cond)).fetchall()]

    def page_matches(self, terms: Sequence[str], layer: str, weights: tuple[float, float, float],
                     depth: int) -> list[str]:
        phrase_list = pg_text.phrases(terms)
        if not phrase_list:
            return []
        ranked = self._ranked(phrase_list, [layer], "TRUE", (), weights, depth, filter_first=False)
        paths = dict(self.conn.execute("SELECT id, path FROM pages WHERE id = ANY(%s::bigint[]) AND type != 'source'",
                                       (sorted({p for _, p, _, _ in ranked}),)).fetchall())
        return [paths[p] for _, p, _, _ in ranked if p in paths]

