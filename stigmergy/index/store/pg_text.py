"""Full text for the PostgreSQL index, tokenised as the SQLite index's FTS5 `porter unicode61` does, and
ranked by the same BM25 (FTS5's `bm25()`: k1 1.2, b 0.75, per-column weights, idf over every row).

Why not PostgreSQL's own `to_tsvector('english')`: its parser and Snowball English stemmer split and stem
differently from FTS5 (stop words dropped, e-mail addresses and versions kept whole), so the same question
would match other fragments on each backend. Here the text is tokenised once, in Python, and PostgreSQL
stores the lexemes as a `tsvector` literal (title positions weighted A, heading trail B, body D) that its
GIN index serves; queries are `tsquery` literals of the same lexemes. `ts_rank` picks a deep first cut
of the matches inside the database and `bm25` re-scores that cut exactly.

No SQL here (the statements are in `pg_search.py` and `pg_write.py`); only text to lexemes, the scores,
and the literals statements bind (`ids_literal`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

MAX_POSITION = 16383  # tsvector positions stop here (later tokens keep the last position)
MAX_POSITIONS_PER_LEXEME = 255
MAX_LEXEME_BYTES = 2000
PORTER_MIN, PORTER_MAX = 3, 64  # FTS5's porter leaves shorter and longer tokens as they are
K1, B = 1.2, 0.75
COLUMN_LETTER = ("A", "B", "D", "C")  # title (+ aliases), heading trail, body, extra (index/analysis.py)
EXTRA_WEIGHT = 1.0  # bm25 weight of the extra column, as on SQLite


_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]+")  # unicode61's token characters among ASCII ones


@lru_cache(maxsize=4096)
def _is_token_char(ch: str) -> bool:
    # unicode61's default token characters: letters, numbers and private-use (categories L*, N*, Co).
    cat = unicodedata.category(ch)
    return cat[0] in "LN" or cat == "Co"


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def _fold(token: str) -> str:
    """Lower case without diacritics (unicode61 `remove_diacritics 1`), then the Porter stem."""
    low = token.lower()
    if not low.isascii():
        low = "".join(c for c in unicodedata.normalize("NFD", low) if not unicodedata.combining(c))
        low = unicodedata.normalize("NFC", low)
    if PORTER_MIN <= len(low.encode("utf-8")) <= PORTER_MAX:
        return str(_stemmer().stemWord(low))
    return low


def tokenize(text: str) -> list[str]:
    """The lexemes of `text`, in order."""
    if text.isascii():  # most text: one regular expression instead of a category lookup per character
        return [t for t in map(_fold, _ASCII_TOKEN.findall(text)) if t and len(t) <= MAX_LEXEME_BYTES]
    out: list[str] = []
    start = -1
    for i, ch in enumerate(text):
        if _is_token_char(ch):
            if start < 0:
                start = i
        elif start >= 0:
            out.append(_fold(text[start:i]))
            start = -1
    if start >= 0:
        out.append(_fold(text[start:]))
    return [t for t in out if t and len(t.encode("utf-8")) <= MAX_LEXEME_BYTES]


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def document(columns: Sequence[str]) -> tuple[str, int, list[str]]:
    """(tsvector literal, token count, distinct lexemes) of a fragment's title, trail, body and extra."""
    positions: dict[str, list[str]] = {}
    pos = 0
    for letter, text in zip(COLUMN_LETTER, columns, strict=True):
        for lexeme in tokenize(text):
            pos += 1
            at = positions.setdefault(lexeme, [])
            if len(at) < MAX_POSITIONS_PER_LEXEME:
                p = min(pos, MAX_POSITION)
                at.append(f"{p}{letter}" if letter != "D" else str(p))
    literal = " ".join(f"{_quote(lx)}:{','.join(ps)}" for lx, ps in positions.items())
    return literal, pos, list(positions)


def phrases(terms: Iterable[str]) -> list[tuple[str, ...]]:
    """Each query term as the phrase of lexemes FTS5 makes of it (a term of two words is a phrase; a term
    given twice is kept twice and counts twice, as in an FTS5 OR query)."""
    out: list[tuple[str, ...]] = []
    for term in terms:
        lexemes = tuple(tokenize(term))
        if lexemes:
            out.append(lexemes)
    return out


def tsquery(phrase_list: Sequence[tuple[str, ...]], column: str | None = None) -> str:
    """A tsquery literal matching any of the phrases (in one column when `column` is its weight letter)."""
    mark = f":{column}" if column else ""
    parts = []
    for phrase in dict.fromkeys(phrase_list):
        words = [f"{_quote(w)}{mark}" for w in phrase]
        parts.append(words[0] if len(words) == 1 else "(" + " <-> ".join(words) + ")")
    return " | ".join(parts)


def ids_literal(ids: Iterable[int]) -> str:
    """A `bigint[]` parameter's text, `{1,2,3}`, for a statement that binds it as `%s::bigint[]`. psycopg
    dumps a Python list element by element in Python: 0.57 against 0.29 ms of the client's CPU for the ~390
    ids a search's lexical check sends (and 0.94 against 0.84 ms of the server's), per statement."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


def weights_array(weights: tuple[float, float, float]) -> list[float]:
    """ts_rank's weights {D, C, B, A} for column weights (title, headings, body) and the extra column,
    scaled into [0, 1]."""
    title, headings, body = weights
    top = max(title, headings, body, EXTRA_WEIGHT, 1e-9)
    return [body / top, EXTRA_WEIGHT / top, headings / top, title / top]


def phrase_hits(occurrences: Mapping[str, tuple[str, Sequence[int] | None]], phrase: tuple[str, ...]) -> dict[str, int]:
    """How often `phrase` occurs in each column (weight letter), from its lexemes' occurrences: the letter of
    each position, in position order, and the positions (needed only for a phrase of several words)."""
    first = occurrences.get(phrase[0])
    if first is None:
        return {}
    letters, positions = first
    if len(phrase) == 1:
        return {c: letters.count(c) for c in COLUMN_LETTER if c in letters}
    later = []
    for word in phrase[1:]:
        letters_w, positions_w = occurrences.get(word, ("", None))
        later.append(dict(zip(positions_w or (), letters_w, strict=True)))
    hits: dict[str, int] = {}
    for pos, letter in zip(positions or (), letters, strict=True):
        if all(later[i].get(pos + i + 1) == letter for i in range(len(later))):
            hits[letter] = hits.get(letter, 0) + 1
    return hits


def idf(rows: int, matching: int) -> float:
    """FTS5's idf: log((N - n + 0.5) / (n + 0.5)), never below a small positive floor."""
    value = math.log((rows - matching + 0.5) / (matching + 0.5))
    return value if value > 0 else 1e-6


def bm25(per_phrase: Sequence[dict[str, int]], idfs: Sequence[float], weights: tuple[float, float, float],
         length: int, avg_length: float) -> float:
    """FTS5's bm25 (positive: higher is better) of one row from each phrase's hits per column."""
    by_letter = dict(zip(COLUMN_LETTER, (*weights, EXTRA_WEIGHT), strict=True))
    score = 0.0
    norm = K1 * (1 - B + B * length / (avg_length or 1.0))
    for hits, w_idf in zip(per_phrase, idfs, strict=True):
        freq = sum(by_letter.get(letter, 0.0) * n for letter, n in hits.items())
        if freq:
            score += w_idf * (freq * (K1 + 1)) / (freq + norm)
    return score
