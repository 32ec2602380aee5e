"""Does a line fill a question's slot? It does only when it holds a value of the asked kind that the
question does not already hold: a person's or organisation's name for *who*, a date for *when*, a figure
with the right unit for *how many / much / long*, a place for *where*, a reason for *why*, a name of the
asked kind for *which X*; for *what is X*, a statement about X. Otherwise the line is context: it may be
about the question's subject, it does not answer it ("one component has a 16-week lead time" does not say
which component).

`fill` returns how well the line fills the slot: 1.0 (a value of the asked kind), WEAK (a value the rules
can only guess at: a "why" answered without a causal word, a capitalised word that may be a name), or 0.
Whether a line names the asked thing (which X, who, which organisation) is which.py's; how well the line alone
holds a value of each kind is kind_fill.py's, which `fill` reads first and then weighs by the question's qualifiers,
the period it asks about and the line's context.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from stigmergy.answer.counts import (
    NUMBER_WORDS,
    SAME_AS,
    count_beside,
    counted_right_before,
    says_counted,
    says_head,
)
from stigmergy.answer.cues import (
    DATA_RE,
    DONE_TO_RE,
)
from stigmergy.answer.defining import defined_in_context
from stigmergy.answer.frames import framed, planned_only
from stigmergy.answer.head_noun import OF_NOW, modifiers
from stigmergy.answer.heads import ANY_PERSON, EXTENTS, PERSON_HEADS, VERSION_HEADS
from stigmergy.answer.kind_fill import (
    AKA_RE,
    CONTACT_ASKED_RE,
    FUTURE_ASKED_RE,
    MEANS_ASKED_RE,
    content_words,
    kind_fill,
    placed,
    placement_asked,
    stems_of,
    writes_to,
)
from stigmergy.answer.names import Names, words
from stigmergy.answer.polarity import NEGATION_RE, affirms_denied, denies
from stigmergy.answer.question import Slot
from stigmergy.answer.roles import (
    WHO_IS_RE,
    identifies,
    only_names,
    role_head,
    says_role,
    says_role_here,
)
from stigmergy.answer.series import percentile_said
from stigmergy.answer.spelling import slipped
from stigmergy.answer.terms import STOPWORDS, stem
from stigmergy.answer.ties import elsewhere, role_apart, speaker_only, speaks_of_role, version_tied
from stigmergy.answer.values import (
    DAY_OF_MONTH_RE,
    RATE_NAMED_RE,
    VERSION_RE,
    Asked,
    dates_in,
    figures_in,
    is_new,
    outside_month,
)
from stigmergy.answer.what_forms import (
    REMOVAL_ASKED_RE,
    REMOVAL_RE,
    pasted,
)
from stigmergy.answer.which import (
    VAGUE,
    WEAK,
    known_kind,
    name_beside,
    qualified,
    unnamed,
)

CONTEXT = 0.9  # the value is in the line's context (title, heading, previous sentence), not in the line

# A line that says its event has no date yet: a date in its heading ("Deprecations (2020)") is not the event's.
_UNDATED_RE = re.compile(r"\b(?:in a (?:future|later|coming|subsequent|upcoming) (?:release|version|update)|"
                         r"(?:at some point|eventually|some ?day|in the future|at a later (?:date|time|point)|"
                         r"not yet (?:decided|scheduled|known|set|planned|dated)|no (?:fixed |set )?date|"
                         r"tb[cda]|to be (?:decided|announced|confirmed|scheduled))\b)", re.I)
_CAUSE_HEAD_RE = re.compile(r"\b(cause|causes|why|reason|reasons|rationale|background|motivation|context)\b", re.I)


# An identifier: code in backticks or a SETTING_NAME (a dotted name may be a web address: "pypi.org").
_IDENTIFIER_RE = re.compile(r"`[^`]+`|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def _said_as(word: str, said: set[str] | frozenset[str]) -> bool:
    """`word` is said in other words (counts.SAME_AS): "the final version" by "the last version"."""
    return any(stem(w) in said for w in SAME_AS.get(word, "").split())


def _slipped(word: str, said: set[str] | frozenset[str]) -> bool:
    """`word` is one typing slip from a word the line says ("tidmark": Tidemark); a word of six letters or more, so
    that a short word is not read as another."""
    if len(word) < 6 or not word.isalpha():
        return False
    typed = stem(word)
    return any(slipped(typed, w) for w in said)


def _other_qualifier(head: str, text: str, q: Asked) -> bool:
    """The line names its X with a word of its own before it, past the question's words ("*Hardware* gross
    margin" for "gross margin on software")."""
    hs = stem(head)
    ws = words(text)
    for i, w in enumerate(ws):
        if stem(w) != hs:
            continue
        for x in reversed(ws[max(0, i - 3) : i]):
            if stem(x) in q.stems or _said_as(x, q.stems):
                continue
            if x.casefold() == "percentile" and any(percentile_said(s, text) for s in q.stems if s[:1] == "p"):
                continue  # "p99 delay": "99th percentile delay" qualifies the delay as the asker does
            if x.isalpha() and x not in STOPWORDS and x not in VAGUE and x not in NUMBER_WORDS:
                return True
            break
    return False




# What used to be so is not what is so: "Previously this cache was stored in a directory called http".
# "formerly known as ColdTrace" gives an old name, not an old value: the figure beside it is today's.
_PAST_RE = re.compile(r"\b(?:(?:previously|formerly|originally)(?!,?\s+(?:known as|called|named|branded)\b)|"
                      r"(?<!is )(?<!are )(?<!be )(?<!been )(?<!was )(?<!were )used to|in the past|until recently)\b", re.I)
# "The legacy 'per-user' configuration file" for "where's my per-user config": the asked thing's old form. A
# legacy system the question does not ask about ("on the legacy poller") dates nothing.
_LEGACY_RE = re.compile(r"\blegacy\s+((?:[\"“']?[\w-]+[\"”']?\s*){1,3})", re.I)


def _legacy(text: str, q: Asked) -> bool:
    # "is ~/.pip/pip.conf still the place for it": a legacy thing is the old one when the asker asks what holds now;
    # not when the asker asks what happened on a day ("april 22 poller incident - what was the worst delay": the poller
    # was what it was that day, legacy since)
    if DAY_OF_MONTH_RE.search(q.text) and _PAST_TENSE_RE.search(q.text):
        return False
    return any(stem(w) in q.stems for m in _LEGACY_RE.finditer(text) for w in words(m.group(1))) or bool(
        _LEGACY_RE.search(text) and _STILL_RE.search(q.text))


_PAST_TENSE_RE = re.compile(r"\b(?:was|were|did|had)\b", re.I)
_STILL_RE = re.compile(r"\b(?:still|anymore|any more|any longer|nowadays|these days)\b", re.I)


_PAST_ASKED_RE = re.compile(r"\b(?:before|previous\w*|used to|legacy|original\w*|old|older|former\w*|earlier|first|prior|"
                            r"no longer|past|until|stopp?\w*|drop\w*|remov\w*)\b", re.I)




# A line whose first sentence is a question
_ASKS_FIRST_RE = re.compile(r"^[^.!?]{8,}\?(?:\s|$)")


def fill(slot: Slot, text: str, context: str, names: Names, q: Asked) -> tuple[float, bool]:
    """(how well the line fills the slot, whether the value is only in its context)."""
    if slot.kind == "secret":
        return 0.0, False  # capture refuses a page that holds a secret: "password in 1Password" is a pointer
    if text.rstrip().endswith(":") and slot.kind != "alias" and not figures_in(text, q, "") and not dates_in(text, q):
        # "Instead of `python setup.py develop`, use:": a lead-in holds no value, what it introduces does (the
        # code line or list item after it, which reads the lead-in as its context). One that gives a figure
        # ("… "almost never" (65.6%):"), a date ("… disabled (as of 1st Jan, 2021) … the command:") or another
        # name ("… (AKA Installation Bundles):") holds its own.
        return 0.0, False
    if _REPORTS_ASKING_RE.search(text) and not _REPORTS_ASKING_RE.search(q.text):
        return 0.0, False  # "[10:12] Hannah: Erik asks whether their beta key still works": a question, no answer
    got, via = _fill(slot, text, context, names, q)
    if got and slot.kind == "yesno" and _ASKS_FIRST_RE.match(text):
        # "is a telemetry gap the same as an excursion": "How do we show a telemetry gap inside an excursion: as
        # unknown, or as out of range? Pellucid's quality team wants …" asks it again before it says anything
        got *= WEAK
    if got and slot.kind == "date" and slot.unit != "day" and _named_date_asked(q.text) and not dates_in(
            text, q, day=True) and not via:
        got *= WEAK  # "renewal date for norrland?": "signed … on 19 September" says the date; "due in September", its month
    if got and slot.kind == "date" and not via and outside_month(text, q):
        return 0.0, False  # "the demo for norrland in october": "a launch date of 15 September" is another month's
    if got and slot.kind == "place" and placement_asked(q) and not placed(text, q):
        got = min(got, WEAK)  # "where should i put it": "Written by Samuel Achterberg, Hardware Lead, Leeds" is a town
    if got and slot.kind == "place" and CONTACT_ASKED_RE.search(q.text) and not writes_to(text, q):
        got = min(got, WEAK)  # "where do i report it": "provisioned in the Leeds hardware lab" is where, not whither
    if got and slot.unit in ("percent", "count") and not NEGATION_RE.search(q.text) and denies(text, q):
        got *= WEAK  # "what share of users audit the code": "82% do not (rarely or never) do a code audit"
    if got and slot.unit in ("percent", "count") and affirms_denied(text, q):
        got *= WEAK  # "what share thought it should not upgrade": "43% thought it should upgrade" counts the others
    if got and (_PAST_RE.search(text) or _legacy(text, q)) and not _PAST_ASKED_RE.search(q.text):
        got *= WEAK
    if got and planned_only(slot.kind, text, q.text):
        return 0.0, False  # "what did Q4 revenue actually come in at": "Expect revenue of about £3.0M" is a forecast
    if got and not framed(slot.kind, slot.unit, text, context, q.text):
        # a default, what comes next, a total or what came to pass asked, and a line that gives another; a plan where
        # none is asked (answer/frames.py)
        got *= WEAK
    if got and slot.kind in ("quantity", "date") and REMOVAL_ASKED_RE.search(q.text) and not REMOVAL_RE.search(
            f"{text} {context}"):
        got *= WEAK  # "in which version was the legacy resolver deleted": "pip 20.1: an alpha of the new one" is another event
    if got and slot.kind in ("date", "quantity") and _SINCE_ASKED_RE.search(q.text) and not _START_RE.search(text):
        got *= WEAK  # "since which version does pip skip pre-releases": the line must say when it started
    if got and slot.kind == "date" and _END_ASKED_RE.search(q.text) and not _END_RE.search(text):
        got *= WEAK  # "when does the certificate run out": "renewed in November 2025" is another event's date
    if got and slot.kind in ("quantity", "date") and _EXAMPLE_RE.search(text) and not kind_fill(
            slot, _EXAMPLE_RE.sub(" ", text), names, q) and not _example_asked(text, q):
        got *= WEAK  # "(for example 72 hours between 8 °C and 25 °C)": an illustration, not the asked figure
    if got and slot.kind == "date" and _WAS_ASKED_RE.search(q.text) and _DUE_RE.search(text) and not _DUE_RE.search(
            q.text) and not kind_fill(slot, _DUE_RE.sub(" ", _STAMP_RE.sub("", text)), names, q):
        # "when was the postmortem published": "[14:20] …: postmortem owner: me, due 26 Aug" dates a plan (the
        # stamp says when it was said); "planned for 10 April and went live on 14 April" also dates what happened
        got *= WEAK
    before = _event_before(q.text) if slot.kind == "value" else ""
    if got and before and before in stems_of(text) and not (_PAST_RE.search(text) or _EARLIER_RE.search(text)):
        got *= WEAK  # "what did grace do before she joined": "who joined us last week as SRE lead" is the joining
    if got and DATA_RE.match(text) and not _DATA_ASKED_RE.search(q.text):
        # "do I need the actual git program installed …": '"metadata_version": "2.1", "name": "pip", …' is a sample
        # of a report, which answers only a question about the report
        return 0.0, False
    if got and slot.kind in ("value", "definition") and _echoes(text, q):
        return 0.0, False  # "pip prints 'INFO: pip is looking at multiple versions …' - what's going on": the message
    done = DONE_TO_RE.search(q.text) if slot.kind in ("procedure", "value") else None
    if got and done and stem(done.group(1)) not in stems_of(f"{text} {context}"):
        return 0.0, False  # "how do webhook payloads get signed": a line about their retries does not say how
    alone = _ALONE_RE.search(q.text) if slot.kind == "quantity" else None
    if got and alone and re.search(r"\b(?:including|includes|inclusive of|covering|covers)\b[^.;]*\b" + re.escape(
            alone.group(1)) + r"\w*\b[^.;]*(?:,|\band\b)", text, re.I):
        got *= WEAK  # "costing us just for the venue": "£14,500 including venue, meals and travel" is more than that
    own = _OWN_RE.search(q.text)
    if got and own and stem(own.group(1)) not in stems_of(f"{text} {context}"):
        return 0.0, False  # "Pellucid's own spreadsheet": a line that does not speak of the spreadsheet is ours
    if got and _STAT_ASKED_RE.search(q.text) and not _STAT_RE.search(f"{text} {context}"):
        return 0.0, False  # "the median experience": "55% had 5-20 years" is a share, not the median
    return got, via


# A question about a report's data, which a sample of it may answer
_DATA_ASKED_RE = re.compile(r"\b(?:json|field|fields|key|keys|report|output|format|schema|metadata|example)\b", re.I)
# What someone did before an event of their own ("before she joined", "before joining us"): the verb of the event
_BEFORE_ASKED_RE = re.compile(r"\b(?:do|did|does|doing)\b.*\bbefore (?:(?:she|he|they|we|you|i) )?"
                              r"(join|joined|joining|start|started|starting|arrive|arrived|came|moved)\b", re.I)
# A line that speaks of what came first: a past state (`_PAST_RE`), or these
_EARLIER_RE = re.compile(r"\b(?:before|prior|earlier|former|spent|until|was at|worked (?:at|for))\b", re.I)


@lru_cache(maxsize=256)
def _event_before(question: str) -> str:
    """The stem of the event what is asked came before ("join" for "what did grace do before she joined"), or ""; the
    question's, read once for every line weighed."""
    m = _BEFORE_ASKED_RE.search(question)
    return stem(m.group(1)) if m else ""


@lru_cache(maxsize=256)
def _pasted_said(question: str) -> str:
    """The message the asker pasted, folded, or "" (read once for every line weighed)."""
    message = pasted(question)
    return " ".join(message.group(1).casefold().split()) if message else ""


def _echoes(text: str, q: Asked) -> bool:
    """The line is the message the asker pasted, and little more: it says what they saw, not what it means."""
    said = _pasted_said(q.text)
    if not said:
        return False
    low = " ".join(text.casefold().split())
    return said in low and len(low.replace(said, " ").split()) < 8


# "what's the number that stood after the close": the figure asked about, named by what it is about ("q2 revenue"),
# not by the word "number", which no line that gives it says; "orbis volume through harbor per week": how much of
# something, a count as often as a size.
_ANY_FIGURE = frozenset(("number", "figure", "numbers", "figures", "value", "values", "volume", "volumes"))
# "just for the venue", "only on hardware": one part of what a figure may cover
_ALONE_RE = re.compile(r"\b(?:just|only|alone)\s+(?:for|on|in)\s+(?:the\s+|our\s+)?([a-z]+)", re.I)
# "renewal date for norrland", "the harbor launch date": a date named by what fell on it, which a day says (a month
# alone says less; "when" asks either)
_NAMED_DATE_ASKED_RE = re.compile(r"\b(?!(?:what|which|exact|due|end|start|the|a|any)\b)[a-z]{3,} date\b(?! range)", re.I)


@lru_cache(maxsize=256)
def _named_date_asked(question: str) -> bool:
    # the question's, read once for every line weighed
    return _NAMED_DATE_ASKED_RE.search(question) is not None


# A question about when something ends, and a line that speaks of an end.
_END_ASKED_RE = re.compile(r"\b(?:runs? out|expir\w*|lapses?|valid until|end date|stops? being valid)\b", re.I)
_END_RE = re.compile(r"\b(?:expir\w*|until|valid (?:to|through|thru|till)|runs? out|lapse\w*|ends?|ending|end date|"
                     r"due|through)\b", re.I)
# A value given as an illustration, and a date given as what is due rather than what happened.
# A line that opens with "Example:" is an illustration whole ("Example: nox -s test-3.10" gives no version of nox).
_EXAMPLE_RE = re.compile(r"(?:^\s*(?:an? )?examples?(?:\s*:|\s+[—–-]\s)|\b(?:for example|for instance|e\.g\.|such as|"
                         r"as an example))[^;)\]]*", re.I)
_STAMP_RE = re.compile(r"^\s*\[[^\]]{1,20}\]")


def _example_asked(text: str, q: Asked) -> bool:
    """The example is what the question asks about: it says two or more of the question's names ("what temp range
    is the dublin to cork hospitals lane": 'for example "Dublin hub to Cork hospitals, 2–8 °C"')."""
    said = {stem(w) for m in _EXAMPLE_RE.finditer(text) for w in re.findall(r"[A-Z][\w'-]+", m.group(0))}
    return len(said & q.stems) >= 2


_WAS_ASKED_RE = re.compile(r"\bwhen (?:was|were|did|had)\b", re.I)
_DUE_RE = re.compile(r"\b(?:due|deadline|planned|scheduled|target(?:ed)?|expected)\b(?:\s+[^\s,;]+){0,3}", re.I)
# "The longest delay" is said by "delayed by up to 47 minutes": the utmost value, said as a bound.
UTMOST = frozenset("longest largest biggest highest most worst peak maximum max greatest".split())
UTMOST_RE = re.compile(r"\b(?:up to|at most|at worst|at the worst|at (?:its|the) peak|peak(?:ed)?|max(?:imum)?|"
                        r"as (?:long|much|many|high|late) as)\b", re.I)
# "X's own Y": Y as against someone else's.
_OWN_RE = re.compile(r"\b\w+(?:'s|s') own ([a-z][\w-]+)", re.I)
# A statistic asked by name (the median, the average) and a line that gives one.
_STAT_ASKED_RE = re.compile(r"\b(?:median|average|averages|the mean)\b", re.I)
_STAT_RE = re.compile(r"\b(?:median|averag\w*|mean|avg|typical\w*|on the whole)\b", re.I)


# "the oldest python version pip still works with": a list of the versions ("CPython 3.9, 3.10, 3.11, …") gives its
# first and last.
_LIST_ENDS = frozenset("oldest earliest lowest minimum min newest latest highest maximum max".split())
# A line that reports a question ("Erik asks whether their beta key still works") answers none.
_REPORTS_ASKING_RE = re.compile(r"\b(?:asks?|asked|asking|wonders?|wondered|wondering|wants? to know|wanted to know|"
                                r"checking)\s+(?:us\s+|me\s+|you\s+)?(?:whether|if)\b", re.I)


# Words before "version" that say which of a product's versions, not which product ("the minimum version").
_WHICH_VERSION = frozenset("minimum maximum min max latest current newest oldest earliest first last final supported "
                           "required recommended default stable next new old previous exact specific lowest highest "
                           "major minor patch release lts".split())


_SINCE_ASKED_RE = re.compile(r"\bsince (?:which|what|when)\b|\bstarting (?:with|from|in) (?:which|what)\b|"
                             r"\bfrom (?:which|what) (?:version|release)\b", re.I)
_START_RE = re.compile(r"\b(?:since|starting|as of|introduced|added|new in|began|beginning|onwards?|became|becomes|"
                       r"prior to|before|or later|and later|"
                       r"from (?:version |release |v)?\d|first (?:released|shipped|added|introduced))\b", re.I)


_SHARE_HEADS = frozenset("share shares percentage percent proportion fraction".split())


def _versions_of_another(before: list[str], text: str, q: Asked) -> bool:
    """Every version the line gives that the question does not is written after the name of another product the
    question names ("pip v22.2", "pip 24.2" for "which truststore version … with pip 25.1")."""
    asked = {stem(w) for w in before}
    owners = [_owner(text, v) for v in VERSION_RE.finditer(text) if is_new(v.group(0), q)]
    return bool(owners) and all(o and stem(o) in q.stems and stem(o) not in asked for o in owners)


def _owner(text: str, version: re.Match[str]) -> str:
    """The word right before a version's figure, where it names a product ("pip v22.2": pip); "" for a word that
    names none ("since version 20.2")."""
    digit = version.start() + next(i for i, ch in enumerate(version.group(0)) if ch.isdigit())
    m = re.search(r"([A-Za-z][\w-]*)\s+v?$", text[:digit])
    return m.group(1) if m and m.group(1).casefold() not in VERSION_HEADS | STOPWORDS else ""


# A threshold or a cut-off is said by the bound itself: "alert on poller lag over 2 minutes"
_BOUND_HEADS = frozenset(("threshold", "thresholds", "cutoff", "cut-off", "trigger"))
_BOUND_SAID_RE = re.compile(r"\b(?:over|above|exceeds?|exceeding|more than|at least|at most|below|under|beyond|"
                            r"greater than|less than|higher than|lower than)\s+[~≈]?[\d£$€]", re.I)


def _says_head(slot: Slot, text: str, q: Asked) -> bool:
    """The line speaks of the asked figure's noun; a share is spoken of by a percentage ("12% of ARR"), a rate by
    what it counts per what ("Excursions per 1,000 shipments fell from 6.8 to 5.1"), a temperature by its degrees
    ("Dublin hub to Cork hospitals, 2–8 °C"), a span by a figure of time or length ("the min deprecation window":
    "deprecated for a minimum of 6 months")."""
    return says_head(slot.head, text) or (slot.head in _BOUND_HEADS and bool(_BOUND_SAID_RE.search(text))) or (
        slot.head in _SHARE_HEADS and bool(re.search(r"\d\s*%|\bper ?cent\b", text))) or (
        slot.unit == "rate" and bool(RATE_NAMED_RE.search(text))) or (
        slot.head == "temperature" and bool(re.search(r"°\s?[CF]\b|\bdegrees\b|[-+−]?\d+(?:\.\d+)?\s?[CF]\b(?!\w)", text))) or (
        slot.head in EXTENTS and bool(figures_in(text, q, "length" if slot.head in _LENGTHS else "extent")))


_LENGTHS = frozenset("length height width depth distance".split())  # extents measured in space, not time




_VAGUE_RE = r"\b(?:some|several|a few|a handful|many|a number|others|a couple)(?: of (?:them|those|these|us|the \w+))?\s+"


def _untold(head: str, question: str, line: str) -> bool:
    """The line says the asked count only vaguely ("some unsubscribed"): the verb the question counts by, after "some",
    "several" or "a few"; any figure it gives counts something else."""
    m = re.search(rf"\b{re.escape(head)}\s+(?:\w+\s+)?([a-z]{{3,}}(?:ed|t))\b", question.lower()) if head else None
    vague = re.search(_VAGUE_RE + rf"(?:\w+\s+)?{re.escape(m.group(1))}\b", line.lower()) if m else None
    # ("Several customers churned, 12 in total" gives the count after all)
    return vague is not None and not re.search(r"\d", line[vague.end() :])


def _holds_head(slot: Slot, line: str, clause: str) -> bool:
    """The clause speaks of the asked X when the line does ("18 desks" is no count of the people it seats)."""
    return not slot.head or not says_counted(slot.head, line) or says_counted(slot.head, clause)


def _fill(slot: Slot, text: str, context: str, names: Names, q: Asked) -> tuple[float, bool]:
    if unnamed(slot, text, q.stems) and not any(is_new(m.group(0), q) for m in _IDENTIFIER_RE.finditer(text)):
        # "a configuration file that's loaded last" names no file, unless the line gives its identifier too
        # ("the environment variable PIP_CONFIG_FILE can specify a configuration file that's loaded last")
        return 0.0, False
    # "which greywater person sits on our board": a person of any post ("Marcus Hale — partner at Greywater Ventures")
    # ("who's our person at greywater": anyone there, no post)
    role = (slot.subject if slot.subject not in ANY_PERSON else "") or (
        slot.head if slot.head in PERSON_HEADS and slot.head not in ANY_PERSON else "")
    if slot.kind == "person" and role and slot.subject and only_names(role, names):
        role = ""  # "who is tomek", typed in lower case: a name, not a post
    who_is = WHO_IS_RE.match(q.text) if slot.kind == "person" and not role else None
    if who_is and only_names(who_is.group(1), names) and identifies(text, names, q):
        return 1.0, False  # "who is tomek exactly": "Tomasz Wieczorek, CTO and co-founder, also known as Tomek"
    if slot.kind == "person" and role and not says_role(role, f"{text} {context}"):
        return 0.0, False  # "who is the head of marketing": "Maya Okafor, CEO" names someone else's role
    if slot.kind == "person" and role and not slot.head and unnamed(Slot("thing", head=role_head(role)), text, q.stems):
        # "who did we hire as the Oslo lead": "an Oslo lead, for Project Kettle" names no one. The role's own
        # noun only: "Erik Sandberg (Head of Logistics) and two depot managers" names the head of logistics.
        return 0.0, False
    if slot.kind == "person" and role and speaks_of_role(role, text, lambda t: kind_fill(Slot("person"), t, names, q) > 0):
        return 0.0, False  # "Hannah: introduce the new customer success manager": Hannah is not the manager
    if slot.kind == "person" and not role and speaker_only(text, lambda t: kind_fill(Slot("person"), t, names, q) > 0):
        return 0.0, False  # a speaker is not the author of what they speak of
    if slot.kind == "person" and role and role_apart(
            text, says_role_here(role, text), lambda t: kind_fill(Slot("person"), t, names, q) > 0):
        return 0.0, False  # "Hannah stays the contact until the new manager starts": she is not the manager
    if slot.kind in ("quantity", "date") and elsewhere(
            text, context, names, q.entities, q.kinds, q.stems,
            lambda t: kind_fill(slot, t, names, q) > 0 and _holds_head(slot, text, t)):
        return 0.0, False  # "how many people fit in Leeds": "Lisbon has room for 55 people" is Lisbon's count
    if slot.kind == "quantity" and slot.head:
        before, after = modifiers(q.text, slot.head)
        # "the most recent share": which of the figures over time, not a word the line must say
        before = [m for m in before if m not in OF_NOW and not (m == "most" and "recent" in before)]
        if slot.unit == "version" and slot.subject and not after:
            after = [slot.subject.lower()]  # "the oldest Python": a version of Python, though "version" is not said
        said = stems_of(f"{text} {context}")
        # The wiki's own subject ("pip" on pip's pages) is whose X by default: a page need not say it.
        missing = [m for m in before if stem(m) not in said and not _said_as(m, said) and stem(m) not in q.everywhere
                   and not _slipped(m, said)
                   and not (m in UTMOST and UTMOST_RE.search(f"{text} {context}"))
                   and not (m in _LIST_ENDS and slot.unit == "version" and len(
                       [v for v in VERSION_RE.finditer(text) if is_new(v.group(0), q)]) >= 3)]
        if slot.unit == "count" and before and not missing:
            # "how many enterprise customers": "… for Enterprise customers. … with the three customers who were
            # told" counts customers in a sentence that does not say which.
            counting = [c for c in re.split(r"[.;!?](?:\s|$)", text) if count_beside(slot.head, c, q)]
            if counting and not any(all(stem(m) in stems_of(c) or _said_as(m, stems_of(c)) for m in before)
                                    for c in counting):
                missing = list(before)
        if after and not any(stem(m) in said or _slipped(m, said) for m in after):
            missing += after
        if missing and _other_qualifier(slot.head, text, q):
            return 0.0, False  # "software subscriptions' margin": "Hardware gross margin" is another margin
        if slot.unit == "version" and not after and _versions_of_another(before, text, q):
            # "which truststore version is bundled with pip 25.1": "with pip v22.2 or later" gives pip's versions,
            # another product the question names
            return 0.0, False
        if slot.unit == "version" and after and not version_tied(
                after, text, (v for v in VERSION_RE.finditer(text) if is_new(v.group(0), q)),
                q.stems - {stem(m) for m in after} - {stem(w) for w in before}):
            return 0.0, False  # "what version of requests does pip vendor": "since version 20.2" is pip's
        named = [m for m in missing if m not in _WHICH_VERSION]
        if slot.unit == "version" and named:
            return 0.0, False  # "the minimum git version": a version where git is not spoken of is another's
        if slot.unit == "version" and after and not any(stem(m) in said for m in after):
            return 0.0, False  # "what version of certifi": a version where certifi is not spoken of is another's
        if missing and slot.unit not in ("count", "time", "version", "extent") and not _says_head(slot, f"{text} {context}", q):
            return 0.0, False  # "the operating voltage": a figure where no voltage is spoken of, with or without "operating"
        if missing:
            got, via = _fill(replace(slot, head=""), text, context, names, q)
            return got * WEAK, via  # "how many nordic customers": a count of customers, not of the nordic ones
    if slot.kind == "quantity" and slot.unit == "count" and _untold(slot.head, q.text, text):
        return 0.0, False  # "how many people unsubscribed": "472 people signed up, although some unsubscribed"
    counted = slot.kind == "quantity" and slot.unit in ("count", "time") and slot.head
    if counted and slot.unit == "count" and not says_counted(slot.head, text) and counted_right_before(slot.head, context, q):
        # "how many lanes": "So far 1,310 pilot shipments have run" after "Pellucid's pilot covers 42 lanes": the
        # sentence before counts the lanes, this one counts something else.
        return 0.0, False
    if counted and slot.unit == "count" and not says_counted(slot.head, f"{text} {context}"):
        got, via = _fill(replace(slot, head=""), text, context, names, q)
        return got * WEAK, via  # "how many employees": a count of something the line does not name, weakly
    if not counted and slot.kind == "quantity" and slot.head and slot.unit not in ("version", "extent") and (
            slot.head not in _ANY_FIGURE) and not _says_head(slot, f"{text} {context}", q):
        return 0.0, False  # "what is the monthly rent": a figure where rent is not spoken of is another figure
    if (slot.kind == "alias" or (slot.kind == "definition" and MEANS_ASKED_RE.search(q.text))) and AKA_RE.search(
            text) and stems_of(slot.subject) <= stems_of(f"{text} {context}"):
        # "This approach … is also known as a 'development installation'": the thing is named in the sentence
        # before ("Editable installs …") or the heading, the other name in this one; what it means, by its other name
        return 1.0, False
    own = kind_fill(slot, text, names, q)
    if slot.kind == "definition" and own < 1.0 and context and defined_in_context(slot.subject, text, context):
        return 1.0, False
    if own >= 1.0 or not context or slot.kind in ("definition", "role", "yesno", "procedure", "value"):
        return own, False
    if slot.kind == "date" and (_UNDATED_RE.search(text) or FUTURE_ASKED_RE.search(q.text)):
        return own, False  # "dropped in a future release": the "(2020)" of its heading is not that release's date
    if slot.kind == "date" and dates_in(text, q):
        # "Maya: Lodestar demo with Priya, October" under "2026-09-24 · [[QBR]]": the line says when its event
        # is, less exactly than asked; the heading's date is when it was said.
        return own, False
    if slot.kind == "reason" and _CAUSE_HEAD_RE.search(context) and len(content_words(text, q)) >= 2:
        return 1.0, False
    if slot.kind == "thing":
        return own, False  # a title names what the page is about, not which X this line means
    if slot.named and slot.head and qualified(slot.head, text, q) and not name_beside(slot.head, text, q):
        return own, False  # "our fallback provider had been disabled": the line speaks of one X and names none
    if slot.kind == "quantity":
        return own, False  # a figure in a title or heading ("Page 1", "Q3 plan") is the page's, not the answer
    ctx = kind_fill(slot, context, names, q)
    if slot.named and not known_kind(slot, context, names, q):
        return own, False  # only a name the wiki knows to be of the asked kind counts from the context
    if ctx * CONTEXT > own:
        return ctx * CONTEXT, True
    return own, False
