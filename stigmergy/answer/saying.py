"""Whether a text says a question's term, in the forms people write a word that a page spells otherwise.

A question says "config", "zipapp", "per-user", "a 3-month deprecation", "p99", "--upgrade-strategy" or "(b)"; the
line that answers says "configuration", "zip application", "user", "a deprecation period of 3 months", "99th
percentile", "upgrade strategy" in its heading, "(b)ackup". `select.word_score` asks `says` of a line's own words
and of its context (title, headings, the sentence before), and `clipped` of its context only (`says` reads a
blend in either).
"""

from __future__ import annotations

import re
from functools import lru_cache

from stigmergy.answer import files
from stigmergy.answer.evidence import Line
from stigmergy.answer.otherwise import WORD_RE, initials_re
from stigmergy.answer.series import in_bound, in_series, percentile_said
from stigmergy.answer.slots import UTMOST, UTMOST_RE
from stigmergy.answer.terms import Term, fold, period_forms, spelled_out, stem, stems
from stigmergy.answer.what_forms import OPERATOR_RE

CLIPPED = (5, 6)  # the lengths of a clipped word ("retro", "config"): shorter ones start too many words


def clipped(term: Term, said: frozenset[str]) -> bool:
    """ "retro" is said by "retrospective", "config" by "configuration": people clip long words, a page's
    title and headings spell them out. A plain word of five or six letters, the start of a word at least two
    letters longer (stems: "configur"); a longer word that starts another ("inspect", "InspectReportItem") is
    a compound's part, not a clip. Read in a line's context only: in a line's own words the start of a word
    is as often a compound ("trust" in "--use-feature=truststore")."""
    w = term.stem
    if term.name or term.figure or not CLIPPED[0] <= len(w) <= CLIPPED[1] or not w.isalpha():
        return False
    return any(len(s) >= len(w) + 2 and s.startswith(w) for s in said)


def blended(term: Term, text: str) -> bool:
    """ "zipapp" is said by "zip application", "sysadmin" by "system administrator": a word of at least six
    letters made of the starts (three letters or more) of two words that stand together in the text, in a
    line's own words or its context ("virtualenv": "virtual environments", "pentest": "penetration test")."""
    w = term.word.casefold()
    if term.figure or term.name or len(w) < 6 or not w.isalpha():
        return False
    ws = [x.casefold() for x in WORD_RE.findall(text)]
    if any("_" in x and x.replace("_", "") == w for x in ws):
        return True  # "$VIRTUAL_ENV" says "virtualenv": an identifier's parts run together
    return any(a.startswith(w[:cut]) and b.startswith(w[cut:]) and len(a) + len(b) > len(w)
               for a, b in zip(ws, ws[1:], strict=False) for cut in range(3, len(w) - 2))


def says(term: Term, said: frozenset[str], alts: dict[str, tuple[frozenset[str], ...]], text: str) -> bool:
    if " " in term.stem:  # a figure of two words ("q4 2026", "june 2025"): said together
        folded = _COMMA_YEAR_RE.sub("", " ".join(fold(text).replace("-", " ").split()))
        return any(form in folded for form in period_forms(term.stem))
    if term.option:
        return _option_re(term.word).search(text) is not None
    if _CHOICE_RE.fullmatch(term.word):
        return term.word in text.casefold()  # "(b)": the prompt's label, as in "(b)ackup"
    if OPERATOR_RE.fullmatch(term.word):
        return term.word in text  # "~=": as a version specifier writes it
    kind = files.kind_word(term.word) if "." in term.word else ""
    if kind and stem(kind) in said and _kind_file_re(kind).search(text):
        return True  # "constraints.txt": "Including a package in a constraints file does not trigger installation"
    if term.series and in_series(term.word, term.series, text):
        return True  # "the last pip that worked on python 2.7": "the last version of pip that supported Python 2"
    if term.figure and percentile_said(term.word, text):
        return True  # "p99": "99th percentile delay: 19 seconds"
    if term.bounded and in_bound(term.word, term.bounded, text):
        return True  # "on python 3.12, does pip use the OS trust store": "On Python 3.10 or later, by default …"
    measured = _MEASURED_RE.fullmatch(term.word.casefold()) if term.figure else None
    if measured and _measure_re(*measured.groups()).search(text):
        return True  # "a shortened 3-month deprecation": "a deprecation period of 3 months"
    head = prefixed(term.word) or (compound_head(term.word) if term.absent else "")
    if head and stem(head) in said:
        return True  # "my per-user pip config": "User : $HOME/.config/pip/pip.conf"
    if ("-" in term.word or "_" in term.word) and "." not in term.word and files.file_named(term.word).search(text):
        return True  # "where do i download get-pip": "Download the script, from <https://bootstrap.pypa.io/get-pip.py>"
    if term.figure and (apart := _LETTERS_DIGITS_RE.fullmatch(term.word)) and _apart_re(*apart.groups()).search(text):
        return True  # "pep517": "{pep}`517`", "PEP 517"; "python3": "Python 3"
    return (term.stem in said or any(form <= said for form in alts.get(term.stem, ()))
            or spelled_out(term.word, text) or _bound(term, text) or blended(term, text)
            or bool(term.initials and initials_re(term.initials).search(text)))


@lru_cache(maxsize=256)
def _kind_file_re(kind: str) -> re.Pattern[str]:
    """ "a constraints file", "the requirements files": a file named by its kind (`files.kind_word`)."""
    return re.compile(rf"\b{re.escape(kind)}\s+files?\b", re.I)


# The comma some write between a month or a quarter and its year ("782 as of November, 2020")
_COMMA_YEAR_RE = re.compile(r"(?<=[a-z0-9]),(?= \d{4}\b)")

# A name run together with its number ("pep517", "python3"), which a page writes apart
_LETTERS_DIGITS_RE = re.compile(r"([a-z]{2,})(\d+)", re.I)


@lru_cache(maxsize=256)
def _apart_re(letters: str, digits: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(letters)}[\s`{{}}:_-]{{1,3}}{digits}(?![\w.])", re.I)


# A figure written with its unit as one word ("3-month", "16-week", "10-minute")
_MEASURED_RE = re.compile(r"(\d+(?:\.\d+)?)-([a-z]{2,})")


@lru_cache(maxsize=256)
def _measure_re(figure: str, unit: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.])" + re.escape(figure) + r"[\s-]?" + re.escape(unit) + r"s?\b", re.I)


@lru_cache(maxsize=256)
def _option_re(word: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])--?" + re.escape(word) + r"(?![\w-])", re.I)


def option_in_words(word: str, own: frozenset[str], context: frozenset[str], line: Line) -> bool:
    """ "why did pip stop using eager as the default --upgrade-strategy": "The default strategy is only-if-needed.
    This was changed in pip 10.0 due to …", under the heading "Recursive Upgrade", speaks of the option by its words.
    An option of two words or more, its last word said by the line or the sentence before it, the rest by them or
    the page's title and headings."""
    ws = [stem(w) for w in word.casefold().split("-") if w and w != "no"]
    return len(ws) >= 2 and (ws[-1] in own or ws[-1] in stems(line.before)) and all(w in own or w in context for w in ws)


def _bound(term: Term, text: str) -> bool:
    """ "worst case", "the longest delay" are said by "a maximum delay of 11 seconds", "up to 47 minutes": the
    utmost value said as a bound, the way the slot rules already read it (slots.UTMOST), so that the words score
    credits the line whose bound is the answer instead of only the line that repeats the question's adjective."""
    return term.word.casefold() in UTMOST and bool(UTMOST_RE.search(text))


# A prompt's choice by its label ("(b)"), said as the prompt writes it ("(b)ackup")
_CHOICE_RE = re.compile(r"\([a-z]\)")


_PREFIXES = frozenset("per non re pre post multi self co sub cross un anti inter intra semi".split())


@lru_cache(maxsize=4096)
def prefixed(word: str) -> str:
    """The head of a word made with a prefix and a hyphen ("per-user": "user", "non-root": "root"), else ""."""
    first, _, rest = word.casefold().partition("-")
    return rest if first in _PREFIXES and rest.isalpha() and len(rest) >= 3 else ""


@lru_cache(maxsize=4096)
def compound_head(word: str) -> str:
    """The last word of a compound the asker made up, which no page writes ("temp-excursion": "excursion")."""
    ws = word.casefold().split("-")
    return ws[-1] if len(ws) >= 2 and all(w.isalpha() for w in ws) and len(ws[-1]) >= 4 else ""


