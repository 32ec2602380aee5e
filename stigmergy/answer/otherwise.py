"""How a question's word may be said otherwise by a line: an entity's other names ("Tomek" is Tomasz Wieczorek),
the same count or figure in words ("two", "2"), a quarter's months, a phrase's initials ("PR" for "pull requests"),
a clock time, a plain word for an idiom ("pulled the plug": switched off), a post's title for "role", a typo of a
word the evidence says. `select.alternatives` gathers them for one part; each maps a term's stem to the stem sets
that say it."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from stigmergy.answer.counts import SAME_AS
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names, words
from stigmergy.answer.question import Slot
from stigmergy.answer.roles import TITLE_ACRONYMS, TITLE_WORDS
from stigmergy.answer.spelling import slipped
from stigmergy.answer.terms import (
    NUMERALS,
    STOPWORDS,
    Term,
    fold,
    month_index,
    stem,
)
from stigmergy.gates.figures import MONTH_NAMES


def context_text(line: Line) -> str:
    """What a line is read with: its page title, heading trail, the sentence before it, its list's lead-in and its
    release note."""
    return " ".join([line.title, *line.headings, line.before, *([line.lead] if line.lead else []),
                     *([line.note] if line.note != line.before else [])])


def aliases(terms: list[Term], part_text: str, names: Names) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the stem sets of every name of the entity that term is a word of."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for _, _, ent in names.found(part_text):
        forms = [frozenset(stem(w) for w in n.split()) for n in ent.names]
        if ent.kind == "person":
            forms.append(frozenset({stem(words(ent.title)[0])}))
        for n in ent.names:
            for w in n.split():
                for t in terms:
                    if t.stem == stem(w):
                        out[t.stem] = tuple(dict.fromkeys([*out.get(t.stem, ()), *forms]))
    return out


WORD_RE = re.compile(r"[A-Za-z][\w'-]*")


def same_as(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the words the wiki may use instead of it ("staff" is said by "headcount", "price" by
    "cost"): the slot rules' own short list of quantity nouns (slots.SAME_AS), so that the words score and the
    slot check agree on what a line speaks of."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        if t.name or t.figure:
            continue
        low = t.word.casefold()
        others = (SAME_AS.get(low) or SAME_AS.get(low[:-1] if low.endswith("s") else low, "")).split()
        # Both ways: a salary may be called pay, so "what was Maya paid" is said by "a salary of £185,000".
        others += [k for k in _CALLED_BY.get(stem(low), ()) if k not in others]
        if others:
            out[t.stem] = tuple(frozenset({stem(w)}) for w in others)
    return out


# "if a G2 loses power, how long can it keep running": on its battery backup
_LOSES_POWER_RE = re.compile(r"\blos(?:e|es|t|ing)\s+(?:its\s+|their\s+|all\s+)?(?:power|mains)\b", re.I)


# "the general naming rule for these env vars", "a naming convention": the format names take
_NAMING_RE = re.compile(r"\bnaming\s+(?:rule|convention|scheme|pattern)s?\b", re.I)


# What a line says in plain words: to stop, prevent, turn or switch off a behaviour is to disable it; "out of
# the box" is "by default"; to sign off is to approve or accept; to fall behind is to lag; to fly is to take a
# flight; how long people spend on a task is what it takes them; each is per, a company corporate, ancient old. (the
# question's word, the phrase it must stand
# in (None: the word alone), the words that say it)
_PLAIN = (
    ("stop", None, ("disable", "disables", "opt-out")), ("prevent", None, ("disable", "disables")),
    ("turn", re.compile(r"\bturn\w*\s+(?:\S+\s+){0,3}?off\b", re.I), ("disable", "disables")),
    ("switch", re.compile(r"\bswitch\w*\s+(?:\S+\s+){0,3}?off\b", re.I), ("disable", "disables")),
    ("box", re.compile(r"\bout of the box\b", re.I), ("default", "defaults")),
    ("sign", re.compile(r"\bsign\w*\s+off\b", re.I), ("approve", "approval", "accept", "acceptance")),
    ("behind", re.compile(r"\bfall\w*\s+behind\b", re.I), ("lag", "lags", "lagging", "backlog")),
    ("fly", None, ("flight", "flights")),
    ("spend", re.compile(r"\bhow long\b.*\bspen[dt]\b", re.I), ("take", "takes", "took")),
    ("count", re.compile(r"\bcount\w*\s+towards?\b", re.I), ("satisfy", "satisfies", "meet", "meets")),
    ("wrote", None, ("author", "authors", "authored")), ("write", re.compile(r"\bwrites?\s+up\b", re.I), ("author", "authors")),
    ("written", None, ("author", "authors", "authored")),
    ("write", re.compile(r"\b(?:write|writes|wrote|written|writing)\s+out\b", re.I),
     ("emit", "emits", "output", "outputs", "generate", "generates", "produce", "produces", "create", "creates")),
    ("ship", None, ("release", "releases", "released", "releasing")),
    ("outage", None, ("incident", "incidents", "downtime")),
    ("under", None, ("less", "fewer", "below")),
    ("each", None, ("per", "every", "apiece")), ("company", None, ("corporate", "corporation", "firm")),
    ("ancient", None, ("old", "older", "oldest")),
    ("turn", re.compile(r"\bturn\w*\s+(?:(?!off\b)\S+\s+){0,3}?on\b", re.I), ("enable", "enables", "activate", "activates")),
    ("switch", re.compile(r"\bswitch\w*\s+(?:(?!off\b)\S+\s+){0,3}?on\b", re.I), ("enable", "enables", "activate", "activates")),
    ("land", None, ("release", "releases", "released", "ship", "ships", "shipped")),
    ("end", re.compile(r"\bend(?:s|ed)?\s+up\b", re.I), ("final", "finally")),
    ("page", re.compile(r"\bpage[sd]?\s+(?:us|me|them|you|him|her|someone|anyone|anybody|the\s+on-?call)\b", re.I),
     ("alert", "alerts", "alerted", "alerting")),
    ("plug", re.compile(r"\bpull\w*\s+the\s+plug\b", re.I), ("switched", "shut", "turned", "decommissioned", "retired")),
    ("hang", re.compile(r"\bhang\w*\s+on(?:to|\s+to)?\b", re.I),
     ("hold", "holds", "held", "keep", "keeps", "kept", "retain", "retains", "retained", "store", "stores", "stored")),
    ("aside", re.compile(r"\b(?:set|put|kept|keep)s?\s+aside\b", re.I), ("budget", "budgeted", "allocated", "reserved")),
    # To get into a building is to use its entrance or a door.
    ("building", re.compile(r"\b(?:get|gets|got|getting)\s+(?:in|into|inside)\s+(?:the\s+)?building\b", re.I),
     ("entrance", "entrances", "door", "doors", "entry")),
    ("back", re.compile(r"\b(?:get|gets|got|getting|come|comes|came|write|writes|call|calls)\s+back\s+to\b", re.I),
     ("respond", "responds", "reply", "replies", "answer", "answers")),
    # A folder is what docs call a directory; a command that prints a value shows it.
    ("folder", None, ("directory", "directories", "dir")), ("folders", None, ("directory", "directories")),
    ("print", None, ("show", "shows", "display", "displays", "output", "outputs")),
    # Customers hit by an outage were affected by it; an orange light is the amber one; quicker is faster.
    ("hit", None, ("affected", "affects", "impacted")), ("orange", None, ("amber",)),
    ("flashing", None, ("blinks", "blinking", "blink")), ("flashes", None, ("blinks", "blinking", "blink")),
    ("quicker", None, ("faster",)),
    # A truck or a lorry is a vehicle; to link a device to a site is to assign or pair it. A box that keeps going
    # when the power drops runs on its backup.
    ("truck", None, ("vehicle", "vehicles")), ("trucks", None, ("vehicle", "vehicles")), ("lorry", None, ("vehicle",)),
    ("link", None, ("assign", "assigned", "pair", "paired", "connect", "register")),
    ("power", re.compile(r"\b(?:power|mains)\s+(?:drops|dropped|dies|died|fails|failed|cuts|cut|goes|went|is lost|outage|loss|"
                         r"failure)\b", re.I), ("backup", "outage")),
    ("keep", re.compile(r"\bkeep\w*\s+(?:going|running|working)\b", re.I), ("backup", "last", "lasts")),
    ("power", _LOSES_POWER_RE, ("backup", "outage")), ("loses", _LOSES_POWER_RE, ("backup",)),
    # To kill off a feature is to remove it, after warning of it (deprecating it) for a while.
    ("kill", re.compile(r"\bkill\w*\s+(?:\S+\s+){0,3}?off\b", re.I), ("remove", "removes", "removed", "deprecate", "deprecated")),
    ("warn", None, ("deprecated", "deprecation", "warning", "warnings")),
    # To wipe, nuke or clean out a store is to clear or remove what it holds.
    ("wipe", None, ("clear", "clears", "remove", "removes", "delete", "deletes", "purge", "purges", "erase")),
    ("nuke", None, ("clear", "clears", "remove", "removes", "delete", "deletes", "purge", "purges")),
    # Run without an option ("if i run pip download without -d"): what happens by default. Work spread over
    # all the cores is done in parallel.
    ("without", re.compile(r"\bwithout\s+(?:passing\s+|giving\s+|setting\s+|specifying\s+|using\s+)?(?:an?\s+|the\s+|any\s+)?"
                           r"-{1,2}\w", re.I), ("default", "defaults", "defaulting")),
    # To hear from someone is to be informed or told by them; a visitor is a guest.
    ("hear", re.compile(r"\bhear\w*\s+(?:from|back|about)\b", re.I), ("informed", "notified", "told", "contacted")),
    ("visitor", None, ("guest", "guests")), ("visitors", None, ("guest", "guests")),
    # Caught up in an incident is affected by it; a pile-up of data is a backlog.
    ("caught", re.compile(r"\bcaught\s+up\s+in\b", re.I), ("affected", "impacted")),
    ("pile-up", None, ("backlog",)), ("pileup", None, ("backlog",)),
    # To ignore a file is to disable its loading or skip it; every one of them is all of them.
    ("ignore", None, ("disable", "disables", "skip", "skips")), ("every", None, ("all",)),
    # An extra one is an additional one; a key of a JSON output is one of its fields.
    ("extra", None, ("additional",)),
    ("key", re.compile(r"\bjson\b.{0,60}\bkeys?\b|\bkeys?\b.{0,60}\bjson\b", re.I), ("field", "fields")),
    # A naming rule or scheme is the format names take.
    ("rule", _NAMING_RE, ("format",)), ("naming", _NAMING_RE, ("format", "name", "names")),
    # To go back to the old behaviour is to opt out of the new one.
    ("back", re.compile(r"\b(?:go|goes|going|went|switch)\s+back\s+to\b", re.I), ("opt-out", "legacy")),
    # What reaches the build of a dependency is passed to it.
    ("reach", None, ("passed", "pass", "passes")),
    # What holds for the whole file or all of them holds globally.
    ("whole", None, ("global", "globally", "entire", "all")),
    # To hold onto something is what a line says it holds, held or keeps.
    ("hold", None, ("held", "holds", "keep", "keeps", "kept", "retain", "retains", "retained", "store", "stores", "stored")),
    ("cores", re.compile(r"\b(?:all|multiple|many|several|my|the|every)\s+(?:\w+\s+)?cores\b", re.I), ("parallel",)),
)


def quarters(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> its quarter, for a month: "the end of September" is said by "Q3" in a report's table; and a
    month typed short ("sept") -> the month's name as lines write it, and its quarter."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        month = month_index(t.word)
        if month is None or (t.name and fold(t.word) not in MONTH_NAMES) or fold(t.word) == "may":
            continue  # "may" is as often the verb
        quarter = frozenset({f"q{month // 3 + 1}"})
        out[t.stem] = (quarter,) if fold(t.word) in MONTH_NAMES else (frozenset({stem(MONTH_NAMES[month])}), quarter)
    return out


def with_initials(terms: list[Term], text: str) -> list[Term]:
    """The terms, each with the initialisms of the runs of two to four plain question words it is in: a line may
    abbreviate what the asker spells out ("pull requests": "PRs", "operating system": "OS"). Said only in
    capitals (`saying.says`): in lower case a two-letter initialism is a word ("sign off": "so")."""
    plain = {t.stem for t in terms if not (t.name or t.figure)}
    found: dict[str, list[str]] = {}
    run: list[str] = []

    def close() -> None:
        for n in range(2, min(4, len(run)) + 1):
            for i in range(len(run) - n + 1):
                short = "".join(w[0] for w in run[i : i + n]).upper()
                for w in run[i : i + n]:
                    found.setdefault(stem(w), []).append(short)
        run.clear()

    for tok in WORD_RE.findall(text.replace("-", " ")):
        low = tok.casefold()
        if low in STOPWORDS or not tok.isalpha() or stem(low) not in plain:
            close()
        else:
            run.append(low)
    close()
    return [replace(t, initials=tuple(dict.fromkeys(found[t.stem]))) if t.stem in found else t for t in terms]


@lru_cache(maxsize=256)
def initials_re(shorts: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for a term's initialisms: `saying.says` reads every evidence line with it (one search, not one per
    initialism)."""
    return re.compile(r"(?<![A-Za-z])(?:" + "|".join(map(re.escape, shorts)) + r")s?(?![A-Za-z])")


_CLOCK_RE = re.compile(r"^(\d{1,2})(?:[:.](\d{2}))?(am|pm)$")


def clock(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the same time as a line writes it: "after 8pm" is said by "after 20:00", "20.00" and "8 pm"."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        m = _CLOCK_RE.match(fold(t.word)) if t.figure else None
        if not m or not 1 <= int(m.group(1)) <= 12:
            continue
        hour, minutes = int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0), m.group(2) or "00"
        out[t.stem] = (frozenset({f"{hour:02d}" if hour < 10 else str(hour), minutes}), frozenset({f"{hour}.{minutes}"}),
                       frozenset({m.group(1), m.group(3)}))
    return out


def numerals(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the same small number the other way: "under two years" is said by "less than 2 years", "3
    reviewers" by "three reviewers"."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        low = fold(t.word)
        if low in NUMERALS[2:]:
            out[t.stem] = (frozenset({str(NUMERALS.index(low))}),)
        elif low.isdigit() and 2 <= int(low) < len(NUMERALS):
            out[t.stem] = (frozenset({stem(NUMERALS[int(low)])}),)
    return out


_DOMAIN_RE = re.compile(r"^(?:www\.)?([a-z][a-z0-9-]+)\.(?:org|com|io|net|dev|co|ai|app)$", re.I)


def domains(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the name a web domain is of ("pypi.org" is said by "PyPI", "coldtrace.io" by "ColdTrace")."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        m = _DOMAIN_RE.match(t.word)
        if m:
            out[t.stem] = (frozenset({stem(m.group(1))}),)
    return out


# "unassigned", "non-editable": a word the asker negates with a prefix, which a line says with "not"
_NEGATED_RE = re.compile(r"(?:un|non-?)([a-z]{4,})")


def agents(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the stem of the thing that does it, or of what that thing does: "why did polling slow down" is
    said by "The poller processes gateways in a fixed order"; "the poller" by "polling". (Where the stemmer already
    folds them, "resolver" and "resolve", nothing is added.)"""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        low = t.word.casefold()
        if t.name or t.figure or not low.isalpha() or len(t.stem) < 4:
            continue
        other = stem(low[:-2]) if low.endswith("er") and len(low) >= 6 else stem(t.stem + "er")
        if other != t.stem:
            out[t.stem] = (frozenset({other}),)
    return out


def negated(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> "not" and the word without its prefix ("an unassigned G2": "a gateway not assigned to a site")."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        m = None if t.figure or t.name else _NEGATED_RE.fullmatch(t.word.casefold())
        if m:
            out[t.stem] = (frozenset({"not", stem(m.group(1))}),)
    return out


def plainly(terms: list[Term], text: str) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the plain words that say it ("stop" caching: "disabled"; "box" of "out of the box": "default")."""
    have = {t.stem for t in terms if not (t.name or t.figure)}
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for word, phrase, plain in _PLAIN:
        if stem(word) in have and (phrase is None or phrase.search(text)):
            # a word two idioms share ("get back to" a customer, "go back to" certifi): what each says, both
            out[stem(word)] = (*out.get(stem(word), ()), *(frozenset({stem(w)}) for w in plain))
    return out


# A post is said by its title: "what is Tomek's role" by "Tomasz Wieczorek, CTO and co-founder".
_POST_WORDS = ("role", "job", "title", "position", "post")
_TITLE_WORDS = tuple(dict.fromkeys(stem(w) for w in (*TITLE_WORDS, *TITLE_ACRONYMS, "head")))


def posts(slot: Slot) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the titles that say it, for a question about the post someone holds."""
    if slot.kind != "role":
        return {}
    return {stem(w): tuple(frozenset({t}) for t in _TITLE_WORDS) for w in _POST_WORDS}


def misspelt(terms: list[Term], lines: tuple[Line, ...]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the evidence's words one typing slip away ("relase": release, "novmber": November, two
    for a word of eight letters or more: "enviroment"), for a plain word no fragment of the reader's says.
    The slip is not in the first letter, and the evidence is what the search found for the question."""
    wanted = [t for t in terms if t.absent and not (t.name or t.figure) and len(t.word) >= 4 and t.word.isalpha()]
    if not wanted:
        return {}
    vocab: set[str] = set()
    for line in lines:
        vocab.update(words(line.text))
        vocab.update(words(context_text(line)))
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in wanted:
        low = fold(t.word)
        most = 1 if len(low) < 8 else 2
        near = sorted(w for w in vocab if slipped(low, w, most))
        if near:
            out[t.stem] = tuple(dict.fromkeys(frozenset({stem(w)}) for w in near))
    return out


def _called_by() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for key, others in SAME_AS.items():
        for w in others.split():
            out.setdefault(stem(w), []).append(key)
    return {k: tuple(v) for k, v in out.items()}


_CALLED_BY = _called_by()
