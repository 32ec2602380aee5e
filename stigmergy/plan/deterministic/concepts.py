"""Concepts a source defines: "X is a ...", "X means ...", glossary entries and spelled-out acronyms
("Mean kinetic temperature (MKT)"), each as a `Definition` naming the statement that defines it, with
the checks that keep pronouns, events, generic acronyms and descriptions from reading as terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stigmergy.plan.deterministic.names import COMMON, CONNECTORS, SENTENCE_ADVERBS
from stigmergy.plan.deterministic.statements import Unit

# --------------------------------------------------------------------------------------------- concepts

_DEFINE = re.compile(
    r"^(?P<bold>\*\*|__)?(?:(?:An?|The)\s+)?(?P<term>[A-Za-z][\w/-]*(?:\s+[\w/-]+){0,3}?)(?:\*\*|__)?\s+"
    r"(?:\([^)]{1,60}\)\s+)?(?P<verb>is|are|means|refers to|is defined as|describes)\s+"
    r"(?P<rest>(?:a|an|the|when|how|what|our|any|one)\b.*)$"
)
# "X is an example", "X is a lot of…": a description of a case, not the meaning of a term.
_NOT_A_DEFINITION = re.compile(
    r"^(?:a|an)\s+(?:example|instance|case|part|result|reminder|sign|lot|bit|number|couple|first|second|third|"
    r"few|little|good|great|big)\b"
    # "Tidemark is a product of Lanternfish Labs": an identity, filed as an entity, not an idea.
    r"|^(?:a|an|the)\s+(?:[\w-]+\s+)?(?:product|company|brand|subsidiary|division|startup|firm|trademark|service|"
    r"platform|customer|partner|supplier|vendor|spin-off|spinout)\s+(?:of|from|by|at)\b",
    re.I,
)
# Acronyms of common technology and institutions: not a team's glossary term.
GENERIC_ACRONYMS = set(
    """
    API APIs SDK SMS MMS URL URI HTTP HTTPS REST SQL CSV PDF JSON XML HTML CSS UI UX AI ML LLM IT HR PR QA
    IoT GPS USB LTE SIM CPU GPU RAM SSD VPN DNS TLS SSL SSO MFA SaaS PaaS IaaS B2B B2C ERP CRM KPI OKR ROI SLA
    SLO NDA GDPR EU UK US USA UN NHS FAQ ETA ASAP CEO CTO CFO COO CPO VP SRE DevOps PM EMEA APAC
    """.split()
)
_MONTH_OR_YEAR = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December|(?:19|20)\d{2})\b"
)
_GLOSSARY = re.compile(r"^(?:\*\*|__)(?P<term>[^*_]{2,60})(?:\*\*|__)\s*[:—–-]\s+(?P<rest>.+)$|^(?P<term2>[A-Z][\w /-]{1,50}?)\s*[:—–]\s+(?P<rest2>[A-Z].+)$")
# "**Total number of participants** — Number of responses: **164**", "**Response rate**: 38%": a figure under a bold
# label is a measure's value, not what the label means.
_FIGURE_ONLY = re.compile(r"^(?:[^:.]{0,60}:\s*)?[\d][\d.,]*\s*%?$")
_ACRONYM = re.compile(r"\b(?P<long>[A-Z][a-z]+(?:[ -][A-Za-z][a-z]+){1,5})\s+\((?P<short>[A-Z][A-Z0-9]{1,7})\)")
_PRONOUNS = {"it", "this", "that", "these", "those", "there", "he", "she", "they", "we", "i", "you", "which",
             "what", "who", "here", "everything", "nothing", "something", "everyone", "one", "each", "all"}
GLOSSARY_SECTIONS = ("glossary", "definitions", "terms", "terminology", "key terms", "vocabulary")


@dataclass(frozen=True)
class Definition:
    term: str
    unit: int
    how: str  # 'defined' | 'glossary' | 'acronym'
    title: str = ""  # the page title when it is not the term: an acronym's spelled-out form, "Long form (LF)"

    @property
    def page_title(self) -> str:
        return self.title or self.term


# A clause's opening, not a term's: "If the argument is a …", "Because Rust is an …", "Since Python is a …",
# "Note that offset is …", "Returns a logger which is …" (reference pages and books open sentences this way).
_CLAUSE_OPENERS = frozenset(
    "if when whenever while since because but and or so although though unless until after before as once in on "
    "at by to from under over with without for any each every some no note return returns test check see "
    "provided given also then now only even just whether neither either formally whilst their its his her our "
    "your my".split())  # and SENTENCE_ADVERBS
# Inside a term these make it a clause ("Calling a function", "Any function object that", "Test whether the set").
_CLAUSE_WORDS = frozenset("a an the this that these those which who whom whose whether if when neither either any "
                          "each its their".split())


def _term_ok(term: str) -> bool:
    words = term.split()
    if not words or len(words) > 4 or len(term) > 60:
        return False
    if words[0].lower() in _PRONOUNS or all(w in COMMON or w.lower() in {c.lower() for c in COMMON} for w in words):
        return False
    if words[0].lower() in _CLAUSE_OPENERS or words[0].lower() in SENTENCE_ADVERBS or any(
            w.lower() in _CLAUSE_WORDS and words[i].lower() != "of" for i, w in enumerate(words[1:])):
        return False
    if any(re.match(r"--?\w", w) or "`" in w for w in words):
        return False  # "The --exclude-existing form": an option is code, not a term
    if any(w.lower() in {"is", "are", "was", "were", "will", "has", "have", "our", "my", "your"} for w in words):
        return False
    if _MONTH_OR_YEAR.search(term):
        return False  # "April 2026 ingestion backlog" is an event, not an idea
    return any(c.isalpha() for c in term)


def _acronym_of(long: str, short: str) -> bool:
    """'Mean kinetic temperature' spells 'MKT': the initials of the long form are the acronym."""
    words = [w for w in re.split(r"[ -]+", long) if w and w.lower() not in CONNECTORS]
    return len(words) >= len(short) and "".join(w[0] for w in words[-len(short):]).upper() == short.upper()


def _spelling(long: str, short: str) -> str:
    """The words of `long` that spell `short`, from the first of them: "Return the daylight saving time (DST)" is
    titled "Daylight saving time (DST)", "Under the file allocation table" "File allocation table"."""
    words = long.split(" ")
    need, start = len(short), len(words)
    while start > 0 and need > 0:
        start -= 1
        need -= sum(1 for w in words[start].split("-") if w and w.lower() not in CONNECTORS)
    return " ".join(words[start:])


def definitions(units: Sequence[Unit]) -> list[Definition]:
    out: list[Definition] = []
    seen: set[str] = set()
    for idx, u in enumerate(units):
        if u.kind == "meta":
            continue
        in_glossary = u.section.lower().strip(" :") in GLOSSARY_SECTIONS
        text = u.text
        term, how, title = None, "", ""
        g = _GLOSSARY.match(text)
        if g and (in_glossary or g.group("term")) and not _FIGURE_ONLY.match(
                (g.group("rest") or g.group("rest2") or "").replace("*", "").replace("_", "").strip()):
            term, how = (g.group("term") or g.group("term2") or "").strip(), "glossary"
        if term is None:
            d = _DEFINE.match(text)
            if d and u.kind in ("sentence", "item"):
                t = d.group("term").strip()
                rest, verb = d.group("rest"), d.group("verb")
                # Outside a glossary, "X is a/an …" (or "X means …") defines X; "X is the fastest-growing
                # line" or "X is an example" describes it. A lowercase term is a glossary's or a bold one.
                defining = in_glossary or (
                    verb not in ("is", "are") or re.match(r"(?:a|an)\s", rest) is not None
                ) and not _NOT_A_DEFINITION.match(rest)
                shaped = in_glossary or bool(d.group("bold")) or (t[0].isupper() and not any(c.isdigit() for c in t))
                if defining and shaped and _term_ok(t) and t not in GENERIC_ACRONYMS:
                    term, how = t, "defined"
        if term is None:
            a = _ACRONYM.search(text)
            if a and a.group("short") not in COMMON and a.group("short") not in GENERIC_ACRONYMS \
                    and _acronym_of(a.group("long"), a.group("short")):
                term, how = a.group("short"), "acronym"
                long = _spelling(a.group("long"), term)
                title = f"{long[0].upper()}{long[1:]} ({term})"
        if term and _term_ok(term):
            key = term.lower()
            if key not in seen:
                seen.add(key)
                out.append(Definition(term, idx, how, title))
    return out


def spelled_out(defs: Sequence[Definition]) -> set[str]:
    """The long forms, case-folded, of the acronyms a source spells out: "Attention Deficit Hyperactivity Disorder" for
    "Attention Deficit Hyperactivity Disorder (ADHD)"."""
    return {d.page_title.rsplit(" (", 1)[0].casefold() for d in defs if d.how == "acronym"}
