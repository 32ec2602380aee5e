"""Polarity: whether a line's figures count those who do or those who do not ("82% do not audit the code" for
"what share audit the code"), and whether a line affirms what the question denies ("43% thought it should upgrade"
for "what share thought it should not upgrade")."""

from __future__ import annotations

import re

from stigmergy.answer.names import words
from stigmergy.answer.terms import STOPWORDS, stem
from stigmergy.answer.values import Asked

NEGATION_RE = re.compile(r"\b(?:not|never|no|none|nobody|neither|nor|without|cannot)\b|n't\b", re.I)
_NEGATIONS = frozenset("not never no none nobody neither nor without cannot don't doesn't didn't won't isn't aren't "
                       "wasn't weren't haven't hasn't can't".split())


def denies(text: str, q: Asked) -> bool:
    """The line's figures count those who do not ("82% do not (rarely or never) do a code audit" for "what share
    audit the code"): every figure in it is followed by a negation before its clause ends, and the question's
    words it says are said under a negation. A word said both ways ("did not ship on 3 May; it shipped on 9 May")
    is affirmed. A figure the line affirms ("302 responses …, 62 of them not knowing the command existed") keeps
    the line a count of those who do, whatever a side clause negates."""
    figures = list(_FIGURE_RE.finditer(text))
    if not figures or not all(NEGATION_RE.search(" ".join(_CLAUSE_END_RE.split(text[m.end():], 1)[0].split()[:4]))
                              for m in figures):
        return False
    negated, affirmed = _polarity(text, q.stems)
    return bool(negated - affirmed)


def _polarity(text: str, asked: frozenset[str]) -> tuple[set[str], set[str]]:
    """The stems of `asked` that `text` says under a negation (within four words after it), and those it says
    plainly."""
    # Emphasis is no word: "should _not_ implicitly upgrade"
    ws = [w for w in words(re.sub(r"[_*]+", " ", text.replace("’", "'"))) if w not in STOPWORDS or w in _NEGATIONS]
    negated: set[str] = set()
    affirmed: set[str] = set()
    for i, w in enumerate(ws):
        st = stem(w)
        if w in _NEGATIONS or st not in asked or not w.isalpha():
            continue
        (negated if any(x in _NEGATIONS for x in ws[max(0, i - 4) : i]) else affirmed).add(st)
    return negated, affirmed


# What a question denies: the word right after "not" ("should not upgrade"); "never" and "rarely" ask how often
# ("almost never use it"), which a line answers with its own words.
_DENIED_RE = re.compile(r"\b(?:not|no longer)\s+(\w+)|n't\s+(\w+)", re.I)


def affirms_denied(text: str, q: Asked) -> bool:
    """The question counts those who do not ("what share thought it should not upgrade"); the line says only
    that they do ("43% thought it should implicitly upgrade")."""
    denied = frozenset(stem(m.group(1) or m.group(2)) for m in _DENIED_RE.finditer(q.text)) & q.stems
    negated, affirmed = _polarity(text, denied)
    return bool(affirmed - negated)


_FIGURE_RE = re.compile(r"\d[\d,.]*\s*%?")
_CLAUSE_END_RE = re.compile(r"[.;:]\s|\d")  # a figure's clause ends at a full stop, a semicolon or the next figure
