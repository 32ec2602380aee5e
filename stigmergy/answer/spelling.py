"""British and American spellings of one word, read as one: a team that writes "organisation", "behaviour" and
"licence" is asked about the "organization", "behavior" and "license", and the other way round. Each word is brought
to its American spelling before it is stemmed (terms.stem), so the question's word and the line's meet. Only the
regular patterns, each with the words it must leave alone ("advise", "surprise", "four", "hour"), and a short list of
single words; a pattern that is not certain is not made."""

from __future__ import annotations

import re

# -ise / -isation → -ize / -ization ("organise", "prioritised", "customising", "normalisation"); the -ise words
# that are -ise in American English too are left alone.
_ISE_RE = re.compile(r"^(?P<root>[a-z]{3,})is(?P<end>e|es|ed|ing|er|ers|ation|ations|able)$")
_ISE_KEPT = frozenset(
    "adv dev rev superv telev improv compr comprom enterpr exerc expert franch prem prom surpr disgu merchand prec "
    "conc parad no ra pra po cru w otherw likew clockw r ar sunr dem exc inc chast circumc desp appr surm mart "
    "treat advert repr".split())
# -yse → -yze ("analyse", "paralysed", "catalysing")
_YSE_RE = re.compile(r"^(?P<root>anal|paral|catal|dial|electrol|hydrol)ys(?P<end>e|es|ed|ing|er|ers)$")
# -our → -or, for the words that have it ("behaviour", "colours", "favourite", "harbour"), not "four" or "hour"
_OUR_RE = re.compile(r"^(?P<root>behavi|col|fav|flav|hon|hum|lab|neighb|rum|harb|vap|arm|endeav|sav|val|vig|parl|od|"
                     r"tum|splend|ferv|cand|ard|ranc|rig)our(?P<end>|s|ed|ing|ite|ites|able|ably|ful|er|ers|hood)$")
_WORDS = {  # the stemmer already makes one word of "cancelled" and "canceled", "modelling" and "modeling"
    "centre": "center", "centres": "centers", "centred": "centered", "metre": "meter", "metres": "meters",
    "litre": "liter", "litres": "liters", "fibre": "fiber", "theatre": "theater", "licence": "license",
    "licences": "licenses", "defence": "defense", "offence": "offense", "catalogue": "catalog",
    "catalogues": "catalogs", "dialogue": "dialog", "dialogues": "dialogs", "analogue": "analog",
    "programme": "program", "programmes": "programs", "grey": "gray", "cheque": "check", "cheques": "checks",
    "tyre": "tire", "tyres": "tires", "aluminium": "aluminum", "judgement": "judgment",
}


def american(word: str) -> str:
    """`word` (lowercase) in its American spelling where it has a regular British one, else as it is."""
    if word in _WORDS:
        return _WORDS[word]
    m = _ISE_RE.match(word)
    if m and m.group("root") not in _ISE_KEPT and m.group("root")[-1] not in "aouw":  # praise, noise, cruise, wise
        return f"{m.group('root')}iz{m.group('end')}"
    m = _YSE_RE.match(word) or _OUR_RE.match(word)
    if m:
        middle = "yz" if m.re is _YSE_RE else "or"
        return f"{m.group('root')}{middle}{m.group('end')}"
    return word


def slipped(typed: str, word: str, most: int = 1) -> bool:
    """`typed` is `word` with at most `most` typing slips (a letter dropped, added, changed or two swapped), past the
    first letter, which a typist rarely gets wrong ("relase": release, "tidmark": Tidemark)."""
    if typed == word or typed[:1] != word[:1] or abs(len(typed) - len(word)) > most or not word.isalpha():
        return False
    from rapidfuzz.distance import OSA

    return OSA.distance(typed, word, score_cutoff=most) <= most
