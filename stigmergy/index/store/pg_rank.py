"""FTS5's bm25 of a first cut, scored inside PostgreSQL (the statement's text; `pg_search.py` runs it).

The lexical arm ranks every match with `ts_rank` and re-scores the best FIRST_CUT x depth rows (1,600) with
FTS5's bm25. Re-scored in Python, each row's lexemes came back as rows (~3,900 a search) and were counted
and summed one by one: ~60 ms of the client's ~80 ms of CPU a search at 247,762 fragments. Here the same
sum runs in the database over each cut row's tsvector cut down to the query's lexemes, and only the best
`depth` rows come back, in one statement instead of two. Single words only: a phrase must find its words
at consecutive positions, which `pg_text.phrase_hits` does in Python. The sum is the same as
`pg_text.bm25`'s (per lexeme: idf x count of the phrase list's copies x wf (k1 + 1) / (wf + k1 (1 - b +
b len / avg)), wf the column-weighted count of its positions) in another order, so scores agree to ~1e-15;
`tests/test_shared_index.py` holds both equal on many queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stigmergy.index.store import pg_text

IN_DATABASE = True  # False: every cut re-scored in Python (the reference the tests compare with)

# Parameters, in order: the average length; the column weights of letters A (title), B (headings), C
# (extra), D (body); the query's lexemes twice and, for each, idf x its copies in the query.
_SCORE = (
    "CROSS JOIN LATERAL (SELECT coalesce(sum(q.c * x.wf * {k1p} / (x.wf + {k1} * (1 - {b} + {b} * {row}.ntok "
    "/ %s::float8))), 0) AS score FROM (SELECT u.lexeme, (SELECT sum(CASE l::text WHEN 'A' THEN %s::float8 "
    "WHEN 'B' THEN %s::float8 WHEN 'C' THEN %s::float8 ELSE %s::float8 END) FROM unnest(u.weights) l) AS wf "
    "FROM unnest(ts_delete({row}.tsv, tsvector_to_array(ts_delete({row}.tsv, %s::text[])))) u) x "
    "JOIN unnest(%s::text[], %s::float8[]) AS q(lexeme, c) ON q.lexeme = x.lexeme) {alias}")


def in_database(phrase_list: Sequence[tuple[str, ...]]) -> bool:
    """Whether this query's cut is scored in the database: single words only."""
    return IN_DATABASE and all(len(p) == 1 for p in phrase_list)


def score_join(row: str, alias: str = "s") -> str:
    """A lateral join giving `<alias>.score`, the bm25 of the row aliased `row` (with `tsv` and `ntok`)."""
    return _SCORE.format(k1p=repr(pg_text.K1 + 1), k1=repr(pg_text.K1), b=repr(pg_text.B), row=row, alias=alias)


def score_params(phrase_list: Sequence[tuple[str, ...]], idfs: Sequence[float], avg: float,
                 weights: tuple[float, float, float]) -> tuple[Any, ...]:
    """`score_join`'s parameters for single-word phrases and their idfs (a word given twice counts twice)."""
    coef: dict[str, float] = {}
    for phrase, w_idf in zip(phrase_list, idfs, strict=True):
        coef[phrase[0]] = coef.get(phrase[0], 0.0) + w_idf
    words = list(coef)
    title, headings, body = weights
    return (avg or 1.0, title, headings, pg_text.EXTRA_WEIGHT, body, words, words, [coef[w] for w in words])
