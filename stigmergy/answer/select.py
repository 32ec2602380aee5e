"""The deterministic answerer's scoring: which evidence line answers a part of the question, and how well.

A line's score is `(MEANING_WEIGHT · meaning + (1 − MEANING_WEIGHT) · words) · fill`, where
- **meaning** is the cosine between the question part and the line (with its page title and heading),
  both through the packaged embedder (`meaning.LineVectors`);
- **words** is the share of the question's weight (idf over the reader's fragments) the line supports: in
  full when the line says the word, or any name of the entity the word names ("Tomek" is Tomasz
  Wieczorek), at `CONTEXT_CREDIT` when only its context does (page title, heading trail, for a source
  sentence the sentence before it, for a table row its header row); a name the line does not say counts
  half when it is one of the wiki's recurring subjects (in ≥ 5% of the reader's fragments);
- **fill** is how well the line fills the part's slot (`slots.fill`): 0 for a line that only shares the
  question's topic.
A line is eligible when it fills the slot, holds every figure of the question (Q1, 2026, 4.0: constraints,
not weight) in itself or its context, and is on topic: it says a question word that is neither a name nor
a figure, or its meaning is at least `MEANING_ON_TOPIC` close. The part is answered when the best eligible
line scores at least the threshold (`[answer] threshold`), a value calibrated on the calibration half of the held-out
question sets (bench/ask.py; docs/agents.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from stigmergy.answer import platforms
from stigmergy.answer.clauses import CAUSE_VERBS
from stigmergy.answer.cues import OUTPUT_ASKED_RE, OUTPUT_WORDS
from stigmergy.answer.defining import defines
from stigmergy.answer.evidence import Line
from stigmergy.answer.heads import VERSION_HEADS
from stigmergy.answer.kind_fill import CHOICE_ASKED_RE, CHOICE_NOUNS, CHOICE_VERBS, STREET_WORDS
from stigmergy.answer.kind_meaning import of_kind
from stigmergy.answer.names import Entity, Names, words
from stigmergy.answer.otherwise import (
    agents,
    aliases,
    clock,
    context_text,
    domains,
    misspelt,
    negated,
    numerals,
    plainly,
    posts,
    quarters,
    same_as,
    with_initials,
)
from stigmergy.answer.periods import another_period, said_on
from stigmergy.answer.question import Part, Slot
from stigmergy.answer.saying import blended, clipped, option_in_words, says
from stigmergy.answer.shorthand import whole_words
from stigmergy.answer.slots import (
    fill,
)
from stigmergy.answer.terms import (
    STOPWORDS,
    YEAR_RE,
    Term,
    stem,
    stems,
)
from stigmergy.answer.values import CLOCK_RE, Asked, day_months, question_days
from stigmergy.answer.what_forms import FLAG_FIRST_RE, LINK_ASKED_RE
from stigmergy.answer.which import WEAK, names_in

MEANING_WEIGHT = 0.5
MEANING_ON_TOPIC = 0.45
CONTEXT_CREDIT = 0.7
MAX_EMBED = 64  # candidate lines embedded per part (the best by words first): bounds a cold answer's cost
POOL_RATIO = 0.5  # the LLM answerer's pool: eligible lines scoring at least this share of the best
# The planner's section headings say where a line sits, not what it is about.
_GENERIC_HEADINGS = frozenset((
    "key points", "figures", "decisions", "mentioned", "summary", "timeline", "related", "notes", "details",
    "figures that differ from earlier sources", "open questions", "action items"))


@dataclass(frozen=True)
class Scored:
    line: Line
    score: float
    words: float
    meaning: float
    fill: float
    via_context: bool  # the slot's value is in the line's context, not in the line
    on_topic: bool
    matched: tuple[str, ...]
    said_topic: bool = False  # on topic by words alone

    @property
    def eligible(self) -> bool:
        return self.fill > 0 and self.on_topic


def combine(meaning: float, words: float, fill: float, weight: float = MEANING_WEIGHT) -> float:
    """A line's score from its features (bench/ask.py --fit calibrates `weight` and the threshold with it)."""
    return (weight * max(meaning, 0.0) + (1 - weight) * words) * fill


_REFERS_BACK_RE = re.compile(r"\b(?:it|its|they|them|their|these|those|he|she|him|his|her|this|that|the former|the "
                             r"latter)\b", re.I)


def named_context(line: Line, slot: Slot) -> str:
    """What may name the asked who or which firm for a line: its title, headings and note, and the sentence before only
    when the line refers back to it. "An external penetration test of Tidemark … is performed every year" is whole
    in itself; the sentence before it ("Lanternfish Labs holds ISO/IEC 27001 certification") names the company
    certified, not who tested it."""
    if slot.kind not in ("person", "org") or not line.before or _REFERS_BACK_RE.search(line.text):
        return context_text(line)
    return " ".join([line.title, *line.headings, *([line.note] if line.note and line.note != line.before else [])])


def fill_text(line: Line, slot: Slot) -> str:
    """What the slot check reads: the line, for *where* with the addresses its links point at, and for *which
    version* with the release note it sits in. Sphinx renders a version directive's label and body as one
    paragraph ("Changed in version 22.1: The --use-deprecated=out-of-tree-build option has been removed."), so the
    note's version is the line's own, not a heading's figure."""
    if slot.kind == "place" and line.links:
        return f"{line.text} {' '.join(line.links)}"
    if slot.unit == "version" and line.note and line.note not in line.text:
        return f"{line.note}: {line.text}"
    return line.text


def embed_text(line: Line) -> str:
    """What the embedder reads for a line: its page title, its last heading unless it is a planner
    section, a table row's header or a short sentence's predecessor, then the line."""
    parts = [line.title]
    if line.headings and line.headings[-1].casefold() not in _GENERIC_HEADINGS:
        parts.append(line.headings[-1])
    head = " — ".join(p for p in parts if p)
    before = line.before if line.before and (line.before.startswith("|") or len(line.text.split()) < 8) else ""
    return f"{head}: {before + ' ' if before else ''}{line.text}"


# Kinds of thing a line names by spelling one (an option, a command, a web address), not by the kind's word.
_SPELLED_KINDS = frozenset(("flag", "switch", "command", "link", "url"))
_SPELLED_KIND_STEMS = frozenset(stem(w) for w in ("flag", "flags", "switch", "option", "options", "command", "cmd",
                                                  "link", "url", "cli"))


# "what did the ColdTrace 4.0 release remove?": what a change did is asked by its verb
_CHANGE_ASKED_RE = re.compile(r"^what (?:did|does|will|has|have) .{2,60}? (remove|add|drop|deprecate|introduce|rename|"
                              r"replace|break|fix)\??$", re.I)
_CHOICE_WORDS = frozenset(stem(w) for w in (*CHOICE_NOUNS, *CHOICE_VERBS))
_MEANING_ASKED = frozenset(stem(w) for w in ("mean", "means", "meaning", "meant", "intended"))
_OPTION_KIND_RE = re.compile(r"(?<![\w-])--?[a-z][\w-]*(?:=\S+)?\s+(flags?|switch(?:es)?|options?)\b", re.I)


def _kind_first(text: str) -> bool:
    """The question opens with the kind of thing it asks, as the parser reads it ("flag to skip installing deps?",
    "direct download link for the zipapp?")."""
    low = text.lower().lstrip()
    return bool(FLAG_FIRST_RE.match(low) or LINK_ASKED_RE.match(low))


def kind_words(slot: Slot) -> frozenset[str]:
    """The question's words that name the kind of value it asks for, not what it is about: "which pip
    *release* added the lock command" is not answered by a line about pre-releases for saying "release",
    any more than a date question by a line for saying "date". Versions only: the noun of "how many
    gateways" or "what is the monthly rent" is the topic too."""
    return frozenset(stem(w) for w in VERSION_HEADS) if slot.unit == "version" else frozenset()


def _without(on: frozenset[str], kind: frozenset[str]) -> frozenset[str]:
    """The topical stems less the kind's, unless the kind is all the question says ("what version is this")."""
    return (on - kind) or on


def topical(terms: list[Term]) -> frozenset[str]:
    """The stems of the question's words that put a line on its topic: plain words (an acronym too: CI, GA,
    MKT name a kind of thing), except the words the whole wiki is about (on a third of the reader's
    fragments: "pip" in pip's documentation; "which pip release added the lock command" is not answered by a
    line about pre-releases because it says "pip"); when that leaves none, every plain word does."""
    plain = [t for t in terms if (not t.figure or t.claim == "example") and (not t.name or t.word.isupper())]
    keep = frozenset(t.stem for t in plain if not t.everywhere)
    return keep or frozenset(t.stem for t in plain)


def _rare_names(terms: list[Term]) -> frozenset[str]:
    """A rare proper name the line itself says is what the question is about ("which *CPython* versions does
    current pip work on"), now that the wiki's own subject no longer puts a line on topic. Only in the line:
    a page titled "Beacon G2 installation guide" does not put its version line on "how much does a Beacon G2
    weigh"."""
    return frozenset(t.stem for t in terms if t.proper and not t.common and not t.figure)


# What a line does without is not what it says: "To run tests without parallelization, run:" is no way to run
# them in parallel.
_WITHOUT_RE = re.compile(r"\bwithout\s+(?:(?:any|the|a|an)\s+)?[\w-]+", re.I)


def said_anywhere(term: Term, lines: tuple[Line, ...]) -> bool:
    """Whether a line of the evidence, or its page's title and headings, says `term`."""
    for line in lines:
        ctx = context_text(line)
        if says(term, stems(line.text), {}, line.text) or says(term, stems(ctx), {}, ctx):
            return True
    return False


# A name with a digit ("md5", "sha256"): what the question is about, weighed as a word as well as required. Not a
# letter and a figure ("M1", "G2"): a milestone or a model is as often the asker's label as the page's.
_NAMED_FIGURE_RE = re.compile(r"[a-z]{2,}\d+", re.I)


def _worded(t: Term) -> bool:
    """Whether a term counts in the words score: a plain word, or a figure that is a name ("md5")."""
    return not t.figure or bool(_NAMED_FIGURE_RE.fullmatch(t.word))


def _figures(terms: list[Term]) -> frozenset[str]:
    """The labels the question names ("q3", "q2", "2026"), which a line that names one of them speaks of."""
    return frozenset(w for t in terms if t.figure for w in t.word.casefold().split(" "))


def word_score(line: Line, terms: list[Term], alts: dict[str, tuple[frozenset[str], ...]],
               kind: frozenset[str] = frozenset(), lacking: bool = False,
               days: dict[str, tuple[int, int]] | None = None,
               opening: dict[str, set[tuple[int, int] | str]] | None = None) -> tuple[float, bool, bool, tuple[str, ...]]:
    """(the share of the question's weight the line supports, on topic by words, every figure held, matched);
    `kind`: the stems that name the kind of value asked, which put no line on topic (`kind_words`); `lacking`:
    the question asks about doing without something, so a line's "without X" says X; `days`: the day figures of
    the question with their (day, month), which a line said on that day holds, or a line of a page that opens with
    that day or year (`opening`: "during the 22 apr mess" is the incident the postmortem opens with, "Incident on
    22 April 2026", not a day every line of it repeats)."""
    opening = opening or {}
    on = _without(topical(terms), kind) | _rare_names(terms)
    ctx_text = context_text(line)
    own = stems(line.text if lacking else _WITHOUT_RE.sub(" ", line.text))
    context = stems(ctx_text if lacking else _WITHOUT_RE.sub(" ", ctx_text))
    # An example of the asker's own that no page says ("a PR for issue 4321", "a cache eating like 3gb") weighs
    # nothing: the docs explain the case with their own figure ("news/1234.bugfix.rst")
    counted = [_worded(t) or (t.claim == "example" and not t.absent) for t in terms]
    total = sum(t.weight for t, c in zip(terms, counted, strict=True) if c)
    got = 0.0
    matched: list[str] = []
    topic = False
    for t, count in zip(terms, counted, strict=True):
        if says(t, own, alts, line.text):
            matched.append(t.word)
            if count:
                got += t.weight
                topic = topic or t.stem in on
        elif t.constraint and t.figure and another_period(t.word, line.text, _figures(terms)) and says(
                t, context, alts, ctx_text):
            # "notify customers about a sev-3": "Customers affected by a SEV-1 or SEV-2 incident are informed within
            # one hour", after "Incidents are classified SEV-1 to SEV-3", speaks of the other levels
            return 0.0, False, False, ()
        elif says(t, context, alts, ctx_text) or clipped(t, context) or blended(t, " ".join([line.title, *line.headings])) or (
                t.option and option_in_words(t.word, own, context, line)):
            matched.append(t.word)
            if count:
                got += CONTEXT_CREDIT * t.weight
        elif days and t.stem in days and (said_on(line.date, days[t.stem]) or days[t.stem] in opening.get(line.page, ())):
            matched.append(t.word)
        elif t.constraint and t.figure and t.stem in opening.get(line.page, ()):
            matched.append(t.word)  # "the ux research back in 2020": the report that opens "Over the course of 2020"
        elif t.constraint:
            # A figure the question names (Q1, 2026) or a rare proper name (Hull, Asia) is a constraint, not
            # a hint: a line that does not say it is about something else.
            return 0.0, False, False, ()
        elif t.name and t.common:
            total -= t.weight / 2
    if not any(not (t.name or t.figure) for t in terms):
        topic = bool(matched)  # a question of names only ("Who is Tomek?"): saying one is on topic
    return (got / total if total > 0 else 1.0), topic, True, tuple(matched)


# The words that ask for a cause ("what kicked off …"), which a line that gives the cause need not say.
_CAUSE_ASKED_RE = re.compile(r"\b(?:" + "|".join(CAUSE_VERBS) + r")\b", re.I)
_PROPOSALS_RE = re.compile(r"(?:recommendations?|proposals?|suggestions?|next steps|future work|ideas|wish ?list|"
                           r"future research suggestions)$", re.I)
# A line that proposes: it opens with what to do, in the base form of the verb.
_PROPOSED_RE = re.compile(r"^\W*(?:\w+ly\s+)?(?:create|add|provide|include|make|remove|improve|consider|use|build|"
                          r"introduce|offer|allow|support|change|update|document|write|display|show|investigate|explore|"
                          r"review|design|define|rename|deprecate|publish|run|test|continue|establish|focus|encourage|"
                          r"reduce|simplify|clarify|ensure|develop|implement|adopt|drop|expand|prioriti[sz]e)\b", re.I)
# "… we recommend that the pip team display a clear error message": what a report asks a team to do, anywhere in it
_RECOMMENDS_RE = re.compile(r"\bwe (?:would )?(?:strongly )?(?:recommend|suggest|propose|advise)s? (?:that )?(?:the )?"
                            r"[\w-]+ (?:team|maintainers|developers|project|community)\b", re.I)
_PROPOSAL_ASKED_RE = re.compile(r"\b(?:recommend\w*|propos\w*|suggest\w*|ideas?|next steps?|future|plan\w*|should)\b",
                                re.I)
_RULED_OUT_RE = re.compile(r"\bnot (?:the|that|this|my|our|a|an) ([^,;:()?]{2,40}?) ones?\b", re.I)


_RULED_OUT_KIN = {"old": ("legacy", "deprecated"), "legacy": ("old",), "deprecated": ("legacy", "old")}


def _ruled_out(text: str) -> frozenset[str]:
    """The stems of what the question rules out by "not the X one" ("not the legacy ~/.pip one": legacy), less what
    the rest of the question says too ("pip", in "my per user pip.conf")."""
    out = {stem(w) for m in _RULED_OUT_RE.finditer(text) for w in words(m.group(1)) if w not in STOPWORDS}
    out |= {stem(k) for w, kin in _RULED_OUT_KIN.items() if stem(w) in out for k in kin}  # "not the old one": legacy
    return frozenset(out - stems(_RULED_OUT_RE.sub(" ", text))) if out else frozenset()


OPENING_LINES = 3  # a page's first statements read: where a postmortem or a report says the day it is about


def openings(lines: tuple[Line, ...]) -> dict[str, set[tuple[int, int] | str]]:
    """page -> the (day, month) and the years its title and first `OPENING_LINES` statements name: the statements
    before any section of its own (under the title, or a note's "Key points"), as far as they were read."""
    first: dict[str, list[Line]] = {}
    for line in sorted(lines, key=lambda ln: (ln.page, ln.line)):
        opening = all(h.casefold() in _GENERIC_HEADINGS or h == line.title for h in line.headings)
        if opening and len(first.setdefault(line.page, [])) < OPENING_LINES:
            first[line.page].append(line)
    out: dict[str, set[tuple[int, int] | str]] = {}
    for page, got in first.items():
        said = " ".join([got[0].title, *(ln.text for ln in got)]) if got else ""
        out[page] = {*day_months(said), *YEAR_RE.findall(said)}
    return out


_STREETS = tuple(frozenset({stem(w)}) for w in STREET_WORDS)


def addressed(slot: Slot) -> dict[str, tuple[frozenset[str], ...]]:
    """ "the first working day at the new address": a line that gives a street ("we work from Rua do Alecrim 38")
    says the address, as a bound says "the longest". For *where* only when the address is asked by name ("what's
    the street address of"): a plain *where* is answered by any place, which the slot rules check."""
    if slot.kind == "place" and slot.head != "address":
        return {}
    return {stem(w): _STREETS for w in ("address", "addresses", "street")}


_EVENT_RE = re.compile(r"\b(?:after|since)\s+(?P<clause>[^,;:?!]+)", re.I)
_NO_EVENT_RE = re.compile(r"(?:all|each|every\w*|any\w*|the (?:others|rest)|others|that|this|which)\b", re.I)


def event_terms(text: str, terms: list[Term]) -> list[Term]:
    """The plain words of the event a question asks about what followed ("who took over as lead *after Ines
    moved*", "what changed *since the rename*"): a line that says none of them, in itself or its context,
    cannot tell what came after that event; it is only about the same subject ("Inês Carvalho, Harbor API
    lead"). Names and figures are constraints of their own already; a clause of them alone ("since 2024",
    "after Ines") names no event. Not "before" or "until": "how many calls before it gets throttled" sets a
    limit ("600 requests per minute"), not a moment the line must name."""
    wanted: set[str] = set()
    for m in _EVENT_RE.finditer(text):
        if _NO_EVENT_RE.match(m.group("clause")):
            continue  # "a config file that gets loaded after all the others": an order, no event
        if CLOCK_RE.search(m.group("clause")):
            continue  # "who had on-call after 2pm lisbon time": a time of day, no event a line must name
        wanted.update(stem(w) for w in re.findall(r"[\w'-]+", m.group("clause")))
    return [t for t in terms if t.stem in wanted and not (t.name or t.figure)]


def _says_event(event: list[Term], line: Line, alts: dict[str, tuple[frozenset[str], ...]]) -> bool:
    if not event:
        return True
    ctx = context_text(line)
    own, context = stems(line.text), stems(ctx)
    return any(says(t, own, alts, line.text) or says(t, context, alts, ctx) for t in event)


def alternatives(lines: tuple[Line, ...], part: Part, terms: list[Term], names: Names,
                 ) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the other words that say it: a slip's right spelling, the wiki's word for a quantity, plain
    words for an idiom, a street for an address, a title for a post, a quarter for a month, an alias for a name.
    Where two give the same term, it has the words of both."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for alts in (misspelt(terms, lines), same_as(terms), plainly(terms, part.text),
                 addressed(part.slot), posts(part.slot), quarters(terms), numerals(terms), clock(terms),
                 aliases(terms, part.text, names), whole_words(terms), domains(terms), negated(terms), agents(terms),
                 _quarter_ends(question_days(part.text, terms))):
        for key, forms in alts.items():
            out[key] = tuple(dict.fromkeys((*out.get(key, ()), *forms)))
    return out


# Measures whose figures name them by their unit ("-30 C", "12%"): the line that gives one need not say the word.
_UNIT_SAYS = frozenset(("temperature", "percentage", "percent"))
# The last day of each quarter, (day, month 0-11).
_QUARTER_ENDS = frozenset({(31, 2), (30, 5), (30, 8), (31, 11)})


def _quarter_ends(days: dict[str, tuple[int, int]]) -> dict[str, tuple[frozenset[str], ...]]:
    """A quarter's last day is said by "quarter end" or the quarter: "how much cash did we have left at 30 sept" is
    "Cash at quarter end | £11.9M" under the Q3 report's heading."""
    return {s: (frozenset({"quarter", "end"}), frozenset({f"q{m // 3 + 1}"}))
            for s, (d, m) in days.items() if (d, m) in _QUARTER_ENDS}


# Kinds of which a question names one and a line may speak of another: an office, a person, a company.
_ONE_OF_KIND = frozenset({"place", "person", "organisation"})


def another_of_kind(named: list[Entity], line: Line, names: Names) -> bool:
    """Whether the line's page or section (its title and headings) is about another place, person or organisation
    than one the question names, and neither says that one: "what are the meeting rooms in the Leeds office" is
    not answered by the Lisbon office page's "Meeting rooms: Tejo, Douro, Mondego", though Leeds is too common
    in the wiki to be a constraint of its own. Only the title and headings: a line that names another ("Maya
    will reply that Lanternfish is not for sale") may still be about the asked one."""
    if not named:
        return False
    # By title: a restricted layer's copy of an entity page is another page of the same entity.
    about = {e.title: e for e in names.entities(context_text(line))}
    if not about:
        return False
    said = {e.title for e in names.entities(line.text)} | set(about)
    return any(e.title not in said and any(o.kind == e.kind for o in about.values()) for e in named)


def score_part(lines: tuple[Line, ...], part: Part, terms: list[Term], names: Names, q: Asked,
               vectors: object, question_vector: np.ndarray | None,
               systems: frozenset[str] | None = None) -> list[Scored]:
    """Every line that holds the question's figures, scored for `part`, best first. `systems`: the operating
    systems the whole question names (a later part, "and the machine-wide one", asks about the same)."""
    from stigmergy.answer.meaning import cosine

    # "where's my per user pip.conf (the new location, not the legacy ~/.pip one)": a line that says what the asker
    # rules out is about that one
    avoided = _ruled_out(part.text)
    terms = [t for t in with_initials(terms, part.text) if t.stem not in avoided]
    if part.slot.kind == "thing" and part.slot.head in _SPELLED_KINDS and _kind_first(part.text):
        # "flag to skip installing deps": the question opens with the kind it asks, and the line that spells the
        # option ("--no-deps") need not say "flag"
        terms = [t for t in terms if t.stem not in _SPELLED_KIND_STEMS] or terms
    if part.slot.kind == "quantity" and part.slot.head in _UNIT_SAYS:
        # "what temperature range is the G2 rated for": "Operating range | -30 C to +60 C" says it by its unit
        terms = [t for t in terms if t.stem != stem(part.slot.head)] or terms
    # "what is pip's --debug switch for": the option's kind, said after it; the line that spells the option ("The
    # --debug flag disables …") need not call it a switch
    named_kind = {stem(m.group(1)) for m in _OPTION_KIND_RE.finditer(part.text)}
    terms = [t for t in terms if t.stem not in named_kind or t.option or t.figure]
    if part.slot.kind == "definition":
        # "what does the ~= operator mean": what a meaning is asked by, which the line that gives it need not say
        terms = [t for t in terms if t.stem not in _MEANING_ASKED] or terms
    if part.slot.kind == "definition" and CHOICE_ASKED_RE.fullmatch(part.slot.subject):
        # "what does the b choice do": the label is what the line says ("*(b)ackup* Rename …"), not "choice"
        terms = [t for t in terms if t.stem not in _CHOICE_WORDS] or terms
    cause = _CAUSE_ASKED_RE.search(part.text) if part.slot.kind == "reason" else None
    if cause:
        # "what kicked off the april backlog": the words that ask for a cause, which the line that gives it need not say
        terms = [t for t in terms if t.stem not in stems(cause.group(0))] or terms
    if part.slot.kind == "value" and OUTPUT_ASKED_RE.search(part.text):
        # "what does pip check print when everything is fine": the transcript that shows it need not say "print"
        terms = [t for t in terms if t.word.casefold() not in OUTPUT_WORDS] or terms
    alts = alternatives(lines, part, terms, names)
    kind = kind_words(part.slot)
    on = _without(topical(terms), kind)
    # Names only: "who took over … after Ines moved" is answered by a roster that names the lead, while a line
    # that gives a state, a figure or a date ("beta keys keep working" for "after it went live, did customers
    # swap keys?") carries its own value and may set the moment in other words ("went live": production).
    event = event_terms(part.text, terms) if part.slot.named else []
    lacking = bool(_WITHOUT_RE.search(part.text))  # "how do I install without internet access"
    # "people keep saying reefer in standup, what is it?": "it" is a word the asker said before the question, and a
    # line that defines one of those ("**Reefer** — a refrigerated truck …") speaks of all they said around it.
    defining = [t for t in terms if not (t.figure or t.everywhere or t.absent or t.name) and t.stem not in kind] if (
        part.slot.kind == "definition" and not [w for w in words(part.slot.subject) if w not in STOPWORDS]) else []
    # "what lib is pip's resolver built on": a research report's recommendation ("Prominently include virtual
    # environment creation …", "Create a pip outdated command …") says what someone proposes, not what is, unless
    # proposals are asked about; the facts its section states ("Right now there are seven levels") still answer.
    proposals_apart = not _PROPOSAL_ASKED_RE.search(part.text)
    # the date or figure such a line gives as known ("Given that the search API is disabled (as of 1st Jan, 2021), we
    # recommend …") is a fact, though what it asks of a team is not
    recommends_apart = part.slot.kind not in ("date", "quantity")
    # the asked term's own words, which a line that defines it says ("what does MKT stand for in the … reports"), or
    # the name of the person whose post is asked, which a line that gives the post says ("Olly — Head of Sales")
    subject = [t for t in terms if t.stem in stems(part.slot.subject) and t.weight > 0] if (
        part.slot.kind in ("definition", "role")) else []
    days = question_days(part.text, terms)
    changed = frozenset({stem(c.group(1))}) if (c := _CHANGE_ASKED_RE.search(part.text)) and part.slot.kind == "value" else frozenset()
    opening = openings(lines) if days or any(t.constraint and YEAR_RE.fullmatch(t.stem) for t in terms) else {}
    named = [e for e in names.entities(part.text) if e.kind in _ONE_OF_KIND]
    systems = platforms.named(part.text) if systems is None else systems
    pre = []
    for line in lines:
        w, topic, figures_ok, matched = word_score(line, terms, alts, kind, lacking, days, opening)
        if not figures_ok or not _says_event(event, line, alts) or another_of_kind(named, line, names):
            continue
        if avoided and avoided & stems(line.text):
            continue
        if proposals_apart and ((_PROPOSED_RE.match(line.text) and any(_PROPOSALS_RE.match(h.strip()) for h in line.headings))
                                or (recommends_apart and _RECOMMENDS_RE.search(line.text))):
            continue
        if platforms.for_another(systems, line.text, context_text(line)):
            continue
        if defining and w < 1.0 and any(defines(t.word, line.text) for t in defining):
            w, topic = 1.0, True
        f, via = fill(part.slot, fill_text(line, part.slot), named_context(line, part.slot), names, q)
        if changed and not changed & stems(line.text):
            f *= WEAK  # "what did the 4.0 release remove": a line that says no removal names none
        if subject and f == 1.0:
            # "what does MKT stand for in the lodestar reports": a line that defines MKT answers, whatever else the
            # question says about where the asker met the word; "what does Olly actually do here": one that gives
            # Olly's post
            w = max(w, sum(t.weight for t in subject if t.word in matched) / sum(t.weight for t in subject))
        pre.append((line, w, topic, f, via, matched))
    if part.slot.kind == "thing" and part.slot.head and vectors is not None:
        pre = _of_asked_kind(pre, part.slot.head, names, q, vectors)
    # The lines worth a vector: only those that fill the slot (a line that does not can never answer, so its
    # meaning would cost an embedding and change nothing), by words and search rank.
    order = sorted((i for i in range(len(pre)) if pre[i][3] > 0),
                   key=lambda i: (-pre[i][1], pre[i][0].rank, pre[i][0].line))
    chosen = order[:MAX_EMBED]
    meaning = np.zeros(len(pre), dtype=np.float32)
    if chosen and question_vector is not None and vectors is not None:
        vecs = vectors.vectors([embed_text(pre[i][0]) for i in chosen])  # type: ignore[attr-defined]
        meaning[chosen] = cosine(question_vector, vecs)
    # A figure, a date or a yes/no is on topic only by the question's words, in the line or its context: meaning
    # alone brings "Version 1.0, 20 May 2026" near "how much does a Beacon G2 weigh?".
    by_words = part.slot.kind in ("quantity", "date", "yesno") and any(not (t.name or t.figure) for t in terms)
    out = []
    for i, (line, w, topic, f, via, matched) in enumerate(pre):
        m = float(meaning[i])
        score = combine(m, w, f)
        if by_words:
            ctx = stems(context_text(line))
            on_topic = topic or bool(on & ctx)
        else:
            on_topic = topic or m >= MEANING_ON_TOPIC
        out.append(Scored(line, score, w, m, f, via, on_topic, matched, topic))
    # Ties go to the better search rank, then to page order: deterministic for the same index.
    out.sort(key=lambda s: (-s.eligible, -round(s.score, 6), s.line.rank, s.line.page, s.line.line))
    return out


def _of_asked_kind(pre: list[Any], head: str, names: Names, q: Asked, vectors: object) -> list[Any]:
    """Lines that fill a "which X" slot only weakly, with a name the wiki does not know, fill it whole where that
    name is of the kind X by meaning ("what timezone": "Timestamps are always UTC"; kind_meaning.py)."""
    weak = {i: names_in(item[0].text, names, q, None, apart=("person",))[1] for i, item in enumerate(pre)
            if item[3] == WEAK}
    found = of_kind(head, [n for ns in weak.values() for n in ns], vectors) if any(weak.values()) else frozenset()
    if not found:
        return pre
    return [(*item[:3], 1.0, *item[4:]) if i in weak and found & set(weak[i]) else item for i, item in enumerate(pre)]


def best(scored: list[Scored]) -> float:
    return next((s.score for s in scored if s.eligible), 0.0)


def pool(scored: list[Scored], limit: int, threshold: float, near: bool = True) -> list[Scored]:
    """The LLM answerer's numbered lines, one of each text: the eligible lines near the best (`near`), or the
    best `limit` eligible lines whatever they score; none when the best is under `threshold`."""
    top = best(scored)
    if top < threshold:
        return []
    out: list[Scored] = []
    said: set[str] = set()
    for s in scored:
        if not s.eligible or (near and s.score < POOL_RATIO * top) or len(out) >= limit:
            break
        key = " ".join(s.line.text.casefold().split())
        if key not in said:
            said.add(key)
            out.append(s)
    return out
