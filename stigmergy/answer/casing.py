"""The question's identifiers in the wiki's own case. People type questions in lowercase ("what exit code does pip
return on resolutionimpossible"); the answerer reads "ResolutionImpossible" as a name a line must say, and
"resolutionimpossible" as a plain word any line may lack. So a lowercase word the evidence writes only with a capital
inside it (an identifier: "ResolutionImpossible", "PyPI") is read as the evidence writes it. A word the evidence
writes in capitals ("API") or only capitalises at its start ("Belfast") stays as typed: an acronym typed in capitals
weighs as a common name does, and a capital at a word's start is as often a sentence's or a heading's; reading those
as the evidence writes them cost more answers than it gave (docs/agents.md, issue 19, thirty-seventh session)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from stigmergy.answer.terms import STOPWORDS

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
MIN_SEEN = 2  # writings of a word in the evidence before its case is taken


def _marked(form: str) -> bool:
    """A capital after the first letter beside lowercase ones: an identifier ("ResolutionImpossible", "PyPI")."""
    return any(ch.isupper() for ch in form[1:]) and any(ch.islower() for ch in form)


def truecase(question: str, texts: Iterable[str]) -> str:
    """`question` with each lowercase word that the `texts` (the evidence lines) write at least `MIN_SEEN` times and
    never but as an identifier, written as they write it most often."""
    wanted = {w for w in _WORD_RE.findall(question) if w.islower() and len(w) >= 2 and w not in STOPWORDS}
    if not wanted:
        return question
    forms: dict[str, Counter[str]] = {}
    for text in texts:
        for m in _WORD_RE.finditer(text):
            low = m.group(0).casefold()
            if low in wanted:
                forms.setdefault(low, Counter())[m.group(0)] += 1
    cased = {low: c.most_common(1)[0][0] for low, c in forms.items()
             if sum(c.values()) >= MIN_SEEN and all(_marked(form) for form in c)}
    if not cased:
        return question
    return _WORD_RE.sub(lambda m: cased.get(m.group(0), m.group(0)), question)
