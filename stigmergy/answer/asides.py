"""What the asker brings beside the question: a figure to check or an example (`claimed`), and a motive or a
situation around what is asked (`motive`, `without_motive`). Such words are not what the answering line must say:
a claimed figure is credited where a line says it and required of none, a motive's words weigh less."""

from __future__ import annotations

import re
from dataclasses import replace

from stigmergy.answer import platforms
from stigmergy.answer.function_words import ASKING_VERBS, AUX
from stigmergy.answer.terms import (
    STOPWORDS,
    WH_RE,
    Term,
    month_index,
    near_month,
    stem,
    tokens,
)

# A figure given as an example: a pin's version ("requests==2.31", "something like foo[extra]==1.2", "a pin like
# ~=3.1.2"), which the docs explain with their own.
_PIN_RE = re.compile(r"(?:[=~<>!]=|===)\s*([\w.*+!-]+)")
# A value, not a name with a digit in it ("md5", "G2", "utf-8"): a figure first, or after a hyphen ("under-2-minute").
_VALUE_RE = re.compile(r"(?:^|-)[£$€]?[0-9]")


# "a version number like 24.3", "e.g. 3.12": an example the asker makes up, which the docs explain with their own.
_LIKE = r"\b(?:like|e\.g\.?|eg|say|such as)\s+"  # what the asker's example follows
_LIKE_RE = re.compile(_LIKE + r"v?(\d[\w.]*\w)", re.I)
_LIKE_MORE_RE = re.compile(_LIKE + r"v?\d[\w.]*\w((?:\s*(?:,|or|and|/)\s*v?\d[\w.]*\w)+)", re.I)
# "pip options like --index-url", "a python lib like pygit2": an option or a name the asker gives as one of a kind,
# which the line that answers for the kind need not name.
_LIKE_THING_RE = re.compile(_LIKE + r"[`'\"]?(--?[a-z][\w-]*|[a-z][\w.-]*\d[\w.-]*)", re.I)
# "requirement strings like 'foo>=1.0; python_version<3.8'": an example the asker quotes, every word and figure of it
_LIKE_QUOTED_RE = re.compile(_LIKE + r"(['\"`‘“])([^'\"`‘’“”]{3,120})['\"`’”]", re.I)
_VAR_REFERENCE_RE = re.compile(r"(?:\$\{?|%)([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+)\}?%?")
# A measure typed with its unit ("3gb", "40-char", "500mb"), and what a number the asker gives is the number of.
_OWN_MEASURE_RE = re.compile(r"\d+(?:\.\d+)?-?(?:[kmgt]i?b|bytes?|k|ms|s|secs?|mins?|h|hrs?|chars?|characters?|lines?|"
                             r"digits?|px|x)", re.I)
_OWN_ID = r"(?:\bissues?|\bprs?|\bpull requests?|\btickets?|\bbugs?|#)"
_EXPECTED_RE = re.compile(r"\b(?:expect\w*|supposed to|plan(?:ned|s)?|scheduled|due|promised|meant to|targett?ed|forecast\w*|"
                          r"estimated)\b(?:[^.?!;,]|(?<=\d)[.,](?=\d))*", re.I)  # (a figure's point is no full stop)
# "the may call said 412", "I remember it being 14% or so": a figure the asker recalls, which the answer may correct
_SAID_RE = re.compile(r"\b(?:said|says|showed|shows|listed|lists|quoted|quotes|stated|states|mentioned|mentions|reported|"
                      r"reports|claimed|claims|remember|remembered|recall|recalled|thought)\s+(?:it\s+(?:was|is|'s|"
                      r"being|as)\s+|about\s+|around\s+|roughly\s+)?([£$€]?\d[\w.,]*\w|\d)", re.I)
_NOW_RE = re.compile(r"\b(?:now|currently|today|these days|nowadays|any ?more|at the moment|at present)\b", re.I)
# … or a date or figure asked again in doubt of it ("the blog says the 16th but … what day did it actually go GA?")
# "what did we actually book", "when did it really happen": what came to pass, against what was said or planned
DOUBT_RE = re.compile(r"\b(?:actually|actual|really|in fact|truly|in the end|in reality)\b", re.I)
# … or the figure it came to in the end ("had ~2k pilot shipments; what was the final number", "was like 14% of ARR
# at end of last year - what's the most recent share")
_SETTLED_RE = re.compile(r"\b(?:final|finally|in the end|ended up|end up|eventually|most recent|latest|newest)\b", re.I)
_WHICH_ONE_RE = re.compile(r"\bwhich (?:one|ones|of (?:them|the two|these|those))\b", re.I)
_CLAUSE_END_RE = re.compile(r"[.,;:!—–-]\s*$")
_MAJOR_OF_RE = re.compile(r"\b([a-z][\w-]*)\s+v?(\d{1,3})\b(?![.\d%])", re.I)
_VERSION_OF_RE = re.compile(r"\b([a-z][\w-]*)\s+v?(\d+\.\d+(?:\.\d+)*)\b(?![.\d%])", re.I)


MOTIVE_WEIGHT = 0.5  # a word of the asker's motive, which the answering line need not say
# The asker recalling what they had, heard or were told: "I remember …", "I had 412 in my notes" (and, by _SAID_RE,
# what a report said: "the draft said 58")
_RECALLED_RE = re.compile(r"\b(?:i|we)\s+(?:remember(?:ed)?|recall(?:ed)?|thought|had|heard|saw|read|noted|wrote down|"
                          r"(?:was|were) told)\b", re.I)
# A remark that opens a clause with an auxiliary asks too ("wasn't it the end of may", "did that change").
_ASKING_OPEN_RE = re.compile(r"(?:^|[.!;:,]\s)\s*(?:and|also|or|but|so)?\s*(?:" + "|".join(AUX) + r")(?:n['’]?t)?\b|"
                             r"(?:^|[.!;:,]\s)\s*can['’]?t\b", re.I)


def without_motive(text: str) -> str:
    """The question up to its question mark when what follows it is a remark that asks nothing (`motive`)."""
    at = text.rfind("?")
    tail = text[at + 1 :] if at >= 0 else ""
    if len(tail.split()) < 2 or WH_RE.search(tail) or _ASKING_OPEN_RE.search(tail):
        return text
    return text[: at + 1]


# "sending a calendar invite to tomek, what's his full surname": what the asker is doing, before what they ask
# ("need to email Sam from the hardware lab, …"), and before a case the question puts ("for a customer call tomorrow —
# if their G2 box loses mains power, how long …")
_SITUATION_RE = re.compile(r"^\s*(?:[a-z]+ing|for|before|while|prepping|prep|(?:i )?(?:need|want|have|got) to|"
                           r"(?:i |we )?just [a-z]+ed|"
                           # who asks ("pharma prospect asking: do you store patient data?")
                           r"(?:[\w'-]+\s+){1,4}(?:" + "|".join(ASKING_VERBS) + r"))\b"
                           r"[^?,;:—–]{0,80}?(?:,|;|:|\s[—–-])\s*"
                           r"(?=(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|did|do|can|will|"
                           r"if)\b)", re.I)


# A guess put after the question ("… - was it tomek?", "…, or was it Sam?", "… is it Maya?").
_GUESS_RE = re.compile(r"(?:,|\s[-—–])\s*(?:or\s+)?(?:was|is)\s+it\s+(?:really\s+|actually\s+)?([\w .'-]{2,40}?)\s*\??\s*$",
                       re.I)


# A document by its writer: a person's update, email, memo or write-up (not a report or a review, which are as often
# about whom they name)
_WROTE_RE = re.compile(r"\b((?:[\w-]+ )?[\w-]+)'s (?:[\w-]+ ){0,2}?(?:update|email|e-mail|memo|message|notes|note|"
                       r"post-?mortem|write-?up|letter|post|deck|slides|talk|presentation|announcement)s?\b", re.I)


def motive(terms: list[Term], text: str) -> list[Term]:
    """ "where does pip stash its download cache? want to clear some disk space": a remark after the question mark
    that asks nothing says why the question is asked; its own words weigh half, since the line that answers speaks of
    the cache, not of disk space. So does what the asker says they are doing before the question ("sending a calendar
    invite to tomek, …"). A figure or a name in it keeps its weight (a claim to check, a hint)."""
    for wrote in _WROTE_RE.finditer(text):
        # "in dan ferreira's april update, what was the median delay": whose update it is says where the answer was
        # written, not a name the answering line says ("Median delay from gateway to Tidemark: 4.1 seconds")
        author = {stem(w) for w in tokens(wrote.group(1))}
        terms = [replace(t, claim="aside") if t.stem in author and t.proper and not t.figure and not t.claim else t
                 for t in terms]
    guess = _GUESS_RE.search(text)
    if guess:
        # "who actually led driftwood - was it tomek?": the asker's guess, a name the answer may confirm or correct
        guessed = {stem(w) for w in tokens(guess.group(1))} - {stem(w) for w in tokens(text[: guess.start()])}
        terms = [replace(t, claim="aside") if t.stem in guessed and t.proper and not t.figure and not t.claim else t
                 for t in terms]
    asking = without_motive(text)
    situation = _SITUATION_RE.match(asking)
    if situation and len(asking[situation.end() :].split()) < 3:
        situation = None  # "for a clean CI job i want pip to not read any config files, how?": the clause asks
    if asking == text and not situation:
        return terms
    remark = text[len(asking) :]
    said = remark + (" " + situation.group(0) if situation else "")
    asking = asking[situation.end() :] if situation else asking
    only = {stem(w) for w in tokens(said)} - {stem(w) for w in tokens(asking)}
    # "… in the end? I remember a number around 2.4M", "… now? I had 412 in my notes": what the asker recalls of an
    # earlier figure says nothing the answering line must (the figure itself stays a claim to check)
    weight = 0.0 if _RECALLED_RE.search(said) or _SAID_RE.search(said) else MOTIVE_WEIGHT
    # "when did the g2 stock actually show up in leeds? sam was hoping for early aug": a name said only in the remark
    # after the question says who hoped or who asks, not what the answering line is about (a hint, no constraint)
    after = {stem(w) for w in tokens(remark)} - {stem(w) for w in tokens(asking)}
    return [replace(t, weight=t.weight * weight) if t.stem in only and not (t.figure or t.name) else
            replace(t, claim="aside") if t.stem in after and t.proper and not t.figure and not t.claim else t
            for t in terms]


def _of_asked_kind(t: Term, toks: list[str], kind: str) -> bool:
    """Whether `t` is a value of the kind a date or quantity question asks: a day, or the month beside it ("the 15th of
    sept", which is then the date the asker was told), for a date; a figure that is no day of a month, for a
    quantity ("how long did the outage on 19 august last": the day says which outage, it is not the asker's
    guess at the answer)."""
    at = [i for i, tok in enumerate(toks) if tok == t.word]
    day = any(near_month(toks, i) for i in at)
    if kind == "date":
        return (t.figure and day) or month_index(t.word) is not None
    return t.figure and not day and not t.period and \
        bool(_VALUE_RE.search(t.word))


def claimed(terms: list[Term], text: str, kind: str) -> list[Term]:
    """The terms, a figure the asker brings marked a claim: an example's version (`_PIN_RE`), and in a question
    that asks for a yes or no ("did it ship on the 15th?", "norrland still on 412 gateways?") every value but a
    period or a year; a name with a digit ("md5", "G2") stays what the question is about. The line that answers
    may give another figure ("No: 22 September", "455 gateways now"), so such a figure is credited where a line
    says it and required of none. A period or a year ("Q2 2026", "2025") stays the constraint it is: it says
    which figure is asked about, as does the version of a thing it names ("on python 3.9 will pip …")."""
    examples = {stem(m.group(1)).strip(".") for m in _PIN_RE.finditer(text)}
    examples |= {stem(m.group(1)).strip(".") for m in _LIKE_RE.finditer(text)}
    # "look like 24.2 or 25.1": every example the asker lists
    examples |= {stem(x).strip(".") for m in _LIKE_MORE_RE.finditer(text) for x in re.findall(r"\d[\w.]*\w", m.group(1))}
    kind_examples = {stem(m.group(1).lstrip("-")) for m in _LIKE_THING_RE.finditer(text)}
    quoted = {stem(w) for m in _LIKE_QUOTED_RE.finditer(text) for w in tokens(m.group(2))}
    # "can i write $MY_TOKEN or %MY_TOKEN% in requirements.txt": a variable of the asker's own, referenced as a shell
    # would, which the docs show with one of theirs ("${API_TOKEN}")
    kind_examples |= {stem(m.group(1)) for m in _VAR_REFERENCE_RE.finditer(text)}
    # "… now? the may call said 412": a figure the asker says an earlier report gave, which the answer may correct
    reported = {stem(m.group(1)).strip(".") for m in _SAID_RE.finditer(text)}
    # "on python 3.9 will pip …": the version of a thing the question names says which case is asked about.
    of = {m.group(2): m.group(1).casefold() for m in _VERSION_OF_RE.finditer(text) if m.group(1).casefold() not in STOPWORDS}
    versions = set(of)
    majors = {w.split(".")[0]: s for w, s in of.items()}
    # "im on pip 23": a major release of a thing the question names
    released = {m.group(2): m.group(1).casefold() for m in _MAJOR_OF_RE.finditer(text)
                if m.group(1).casefold() not in STOPWORDS}
    # "windows 10 - where should my personal pip.ini live": the asker's own release of their system, which the docs
    # that answer for every release never name; still what a yes-or-no question asks about ("does pip run on win 7")
    if kind != "yesno":
        examples |= {stem(m.group(1)) for m in platforms.RELEASE_RE.finditer(text)}
    confirm = kind == "yesno" or (kind == "value" and not WH_RE.search(text))
    # "PIP_TIMEOUT=30 … but my pip.conf says timeout = 60. which one does pip go with": the asker's own settings,
    # which the line that says which prevails need not repeat
    choosing = bool(_WHICH_ONE_RE.search(text))
    # "sam was expecting the stock by 3 aug - when did it actually turn up?": the date that was expected is the
    # one the answer may correct, not the one it must say; so is a figure ("q3 arr was forecast at 9.2M - what did
    # it land at")
    expected = " ".join(m.group(0) for m in _EXPECTED_RE.finditer(text)) if kind in ("date", "quantity", "value") else ""
    # "norrland had 412 gateways back in may, how many do they run now?": a figure said before a question about
    # what holds now is the earlier state, which the answer may correct
    wh = WH_RE.search(text)
    asking = text[wh.start() :] if wh else ""
    before = text[: wh.start()] if wh and (_NOW_RE.search(asking) or (kind in ("date", "quantity") and (
        DOUBT_RE.search(asking) or _SETTLED_RE.search(asking)))) and _CLAUSE_END_RE.search(text[: wh.start()]) else ""
    # "how many gateways does norrland run now? I had 412 in my notes": in a question that asks for a figure or a
    # date, one of that kind the asker states after the question, in a remark that asks nothing, is what they
    # believe or were told, which the answer may correct
    aside = text[len(without_motive(text)) :] if kind in ("date", "quantity") else ""
    toks = tokens(text) if aside or (before and kind == "date") else []
    out = []
    for t in terms:
        period = t.period or t.word in versions
        if t.word in of and re.fullmatch(r"\d+\.\d+", t.word):
            t = replace(t, series=of[t.word] if kind != "yesno" else "", bounded=of[t.word])
        elif t.figure and t.word.isdigit() and t.word in released:
            t = replace(t, bounded=released[t.word])  # "im on pip 23": "with pip v22.2 or later, you must opt in"
        elif t.figure and re.fullmatch(r"py\d\.\d+", t.word, re.I):
            t = replace(t, bounded="python")  # "pip on py3.12 now uses the OS trust store": "On Python 3.10 or later"
        elif t.figure and re.fullmatch(r"\d+\.\d+", t.word) and t.word.split(".")[0] in majors:
            t = replace(t, bounded=majors[t.word.split(".")[0]])  # "my python 3.9 venv … but the 3.11 one": Python's
        if t.figure and t.stem in examples:
            t = replace(t, claim="example")
        elif (t.figure or t.proper) and t.stem in quoted:
            t = replace(t, claim="example")
        elif (t.option or t.proper or t.figure) and t.stem in kind_examples and kind in ("yesno", "procedure"):
            t = replace(t, claim="example")  # "can i put pip options like --index-url in a dependency group"
        elif t.figure and t.word.isdigit() and any(t.word in e.split(".") for e in examples if "." in e):
            t = replace(t, claim="example")  # "versions look like 24.2 - what does the 2 part mean": a piece of it
        elif t.figure and t.stem in reported and not period:
            t = replace(t, claim="check")
        elif t.figure and expected and not period and _VALUE_RE.search(t.word) and re.search(
                rf"(?<![\w.]){re.escape(t.word)}(?![\w.])", expected):
            t = replace(t, claim="check")
        elif before and t.figure and not period and _VALUE_RE.search(t.word) and re.search(
                rf"(?<![\w.]){re.escape(t.word)}(?![\w.])", before):
            t = replace(t, claim="check")
        elif any(clause and _of_asked_kind(t, toks, kind) and re.search(rf"(?<![\w.]){re.escape(t.word)}(?![\w.])", clause)
                 for clause in (aside, before if kind == "date" else "")):
            t = replace(t, claim="check")  # … and the month of a date told before ("the 15th of sept — when, actually")
        elif t.figure and t.absent and not period and (_OWN_MEASURE_RE.fullmatch(t.word) or re.search(
                rf"{_OWN_ID}\s*{re.escape(t.word)}(?![\w.])", text, re.I)):
            # "a cache eating like 3gb", "a full 40-char sha", "a PR for issue 4521": the asker's own measure or
            # number, which no page says; the docs explain the case with their own
            t = replace(t, claim="example")
        elif t.figure and choosing and not period and _VALUE_RE.search(t.word):
            t = replace(t, claim="example")
        elif t.figure and confirm and not period and _VALUE_RE.search(t.word):
            t = replace(t, claim="check")
        out.append(t)
    return out
