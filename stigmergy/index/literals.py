"""Exact literals in a query: an option (`--force-with-lease`), a config key (`core.excludesFile`,
`pytest.ini`), an identifier (`pytest_collection_modifyitems`, `GIT_DIR`, `PytestReturnNotNoneWarning`), a
version or a figure (`2.39.5`, `£1.88M`), or anything the user quoted. FTS5's tokenizer breaks each into
words (`--force-with-lease` -> force, with, lease), so the lexical arm scores a page that says "force" and
"lease" anywhere like one that names the option. The literal arm finds the fragments that hold the literal
itself: a phrase match of its words, then the literal's exact characters in the fragment's text (case
folded); it ranks pages by how many of the query's literals they hold, then by the phrase's bm25.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from stigmergy.index.store import IndexStore, Selection

MAX_LITERALS = 6  # a query that pastes a whole log still costs a bounded number of queries
PHRASE_DEPTH = 60  # phrase matches checked per literal
_QUOTED_RE = re.compile(r"[\"“`']([^\"”`']{3,80})[\"”`']")
_WORD_RE = re.compile(r"\w+")
_EDGE = "\"'“”`()[]{}<>,;!?"


def _is_literal(token: str) -> bool:
    """A token a person types exactly: punctuation inside a word, a leading dash, inner capitals, or
    letters and digits mixed with punctuation."""
    if len(token) < 3 or not _WORD_RE.search(token):
        return False
    if re.match(r"^--?[A-Za-z]", token):
        return True  # an option
    core = token.rstrip(".:")
    if re.search(r"\w[._/=:]\w", core) and not re.fullmatch(r"\d+([.,]\d+)?", core):
        return True  # a config key, a file or module name, a path, a version (but not a number: 3.5)
    if "_" in core.strip("_"):
        return True  # snake_case, GIT_DIR
    if re.search(r"[a-z][A-Z]", core) and (sum(c.isupper() for c in core) >= 3 or re.search(
            r"(Error|Warning|Exception)$", core)):
        return True  # an identifier in CamelCase (not a brand name such as GitHub or NumPy)
    # A figure with its unit or currency (£1.88M); "e-books" and "command-line" are words, not literals.
    return bool(re.search(r"[^\w\s-]", core) and re.search(r"\d", core) and re.search(r"[A-Za-z]", core))


def query_literals(query: str) -> list[str]:
    """The literals of `query`, in order, at most MAX_LITERALS."""
    out: list[str] = []
    for m in _QUOTED_RE.finditer(query):
        text = m.group(1).strip()
        if len(_WORD_RE.findall(text)) >= 1 and text not in out:
            out.append(text)
    for raw in query.split():
        token = raw.strip(_EDGE).rstrip(".:")
        if _is_literal(token) and token not in out and not any(token in o for o in out):
            out.append(token)
    return out[:MAX_LITERALS]


def literal_pages(store: IndexStore, literals: Sequence[str], sel: Selection,
                  weights: tuple[float, float, float]) -> list[tuple[int, int, float]]:
    """(fragment, page, weight of the literals it holds) of the pages holding `literals` exactly, best first:
    a page's fragment is its one holding the most."""
    found: dict[int, dict[int, set[int]]] = {}  # page -> fragment -> literals it holds
    phrase_score: dict[int, float] = {}
    for n, lit in enumerate(literals):
        words = _WORD_RE.findall(lit)
        if not words:
            continue
        rows = store.lexical([" ".join(words)], sel, weights, PHRASE_DEPTH)
        if not rows:
            continue
        texts = store.fragment_texts([fid for fid, _, _ in rows])
        needle = lit.casefold()
        for fid, pid, score in rows:
            if needle in texts.get(fid, "").casefold():
                found.setdefault(pid, {}).setdefault(fid, set()).add(n)
                phrase_score[pid] = max(phrase_score.get(pid, 0.0), score)
    # A literal that many pages hold (conf.py in a Sphinx manual) says little: each counts by its rarity,
    # log(N / holders) / log(N) over the N pages in scope (1 for a literal only one page holds).
    holders = [sum(1 for frags in found.values() if any(n in h for h in frags.values())) for n in range(len(literals))]
    total = max(2, store.count_pages(sel))
    rarity = [math.log(total / h) / math.log(total) if h else 0.0 for h in holders]
    ranked = []
    for pid, frags in found.items():
        held = set().union(*frags.values())
        fid = max(frags, key=lambda f: len(frags[f]))
        ranked.append((fid, pid, sum(rarity[n] for n in held)))
    ranked.sort(key=lambda r: (-r[2], -phrase_score[r[1]]))
    return ranked
