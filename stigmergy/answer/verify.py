"""The verifier: a sentence stands only when every figure, date and name it states is in the lines it
cites. Used on every LLM sentence (a sentence that fails is withheld, with the reason) and by the bench on
every answer (figures not traceable to a cited line must be 0)."""

from __future__ import annotations

import re

from stigmergy.answer.terms import STOPWORDS, stems, tokens
from stigmergy.gates.figures import missing_figures

# Capitalised by grammar at the start of a sentence, not names.
_STARTERS = STOPWORDS | frozenset(
    "overall however according both yes no there this these in on at as after before since during then also "
    "based while although because so".split()
)
# Dates are checked as figures (normalised), so their month and day names are not names.
_CALENDAR = frozenset(
    "january february march april may june july august september october november december jan feb mar apr "
    "jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday".split()
)


def unsupported(sentence: str, cited_text: str) -> list[str]:
    """What `sentence` states that `cited_text` does not: figures and dates (normalised as the citation
    gate does), and names (capitalised words, matched by stem). Empty when the sentence stands."""
    problems = [f"figure {raw!r}" for raw in missing_figures(sentence, cited_text)]
    support = stems(cited_text)
    for i, tok in enumerate(tokens(sentence)):
        if not tok[:1].isupper() or any(ch.isdigit() for ch in tok):
            continue
        if (i == 0 and tok.casefold() in _STARTERS) or tok.casefold() in _CALENDAR:
            continue
        if not (stems(tok) <= support):
            problems.append(f"name {tok!r}")
    return problems


_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])")
_CITE_RE = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")


def split_cited(prose: str) -> list[tuple[str, list[int]]]:
    """Sentences of model prose with the evidence numbers each one cites (`[2]`, `[1, 3]`)."""
    out: list[tuple[str, list[int]]] = []
    for para in prose.replace("\r", "").split("\n"):
        para = para.strip().lstrip("-*• ").strip()
        if not para:
            continue
        for sent in _SENTENCE_RE.split(para):
            nums = [int(n) for group in _CITE_RE.findall(sent) for n in re.split(r"\s*,\s*", group)]
            text = _CITE_RE.sub("", sent).strip()
            if text:
                out.append((text, nums))
    return out
