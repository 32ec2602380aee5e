"""The values a line holds, before any slot is asked of them: dates, figures with their units, releases and
frequencies, and what the question already holds (`Asked`), so that an echo of the question is no value.
slots.py decides whether such a value fills a question's slot; these are its raw readings."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from stigmergy.answer.names import Names, words
from stigmergy.answer.terms import STOPWORDS, Term, fold, month_index, stem
from stigmergy.gates.figures import NUMBER, SCALES

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# A day of a month ("22 April", "april 22nd, 2026", "the 3rd of May")
_DAY_OF_MONTH = (r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b(?:,?\s+\d{4})?|\b" + _MONTH +
                 r"\.?\s+\d{1,2}(?:st|nd|rd|th)?\b(?:,?\s+\d{4})?")
_DATE_RE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|" + _DAY_OF_MONTH + r"|\b" + _MONTH + r"\.?(?:\s+\d{4})?\b|\bq[1-4](?:\s+\d{4})?\b|"
    r"\b(?:19|20)\d\d\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b\d{1,2}:\d{2}\b|"
    r"\b(?:today|tomorrow|yesterday|tonight)\b|\b(?:next|last|this) (?:week|month|quarter|year)\b|"
    r"\bend of (?:the )?(?:week|month|quarter|year)\b|\b(?:early|mid|late)[- ](?:" + _MONTH + r"|\d{4})\b", re.I)
# A day of a month as a question names it ("april 22", "22nd of april"): a day something happened on
DAY_OF_MONTH_RE = re.compile(_DAY_OF_MONTH, re.I)
# "What time": an hour of the day ("09:30", "9am", "at noon"); the weekday or date it falls on does not say it.
CLOCK_RE = re.compile(r"\b\d{1,2}[:.]\d{2}\s?(?:[ap]\.?m\.?)?(?!\d|\.\d)|\b\d{1,2}\s?[ap]\.?m\b\.?|\b(?:noon|midday|midnight)\b", re.I)
_TIME_UNIT = (r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|"
              r"business days?|working days?|nights?|sprints?|quarters?)")
_WORD_DURATION_RE = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|sixty|ninety)"
    r"\s+(?:business |working |calendar )?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|quarters?|"
    r"sprints?|nights?)\b"
    # "loads in under a second", "within an hour": one of a unit, said with its article
    r"|\b(?:under|within|in|over|about|around|less than|more than|after|up to|inside)\s+(?:half\s+)?an?\s+(?:business |"
    r"working )?(?:second|minute|hour|day|week|month|year)\b", re.I)
_NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<cur>[£$€¥]|usd|eur|gbp)?\s?(?P<n>\d+(?:[.,]\d+)*(?:\s?(?:-|–|to)\s?\d+(?:[.,]\d+)*)?)(?P<scale>\s?(?:k|m|bn|b|million|billion|"
    r"thousand|x)\b)?(?P<pct>\s?%|\s?percent\b)?(?:[\s-]?(?P<unit>" + _TIME_UNIT + r"\b|[a-zA-Z]{2,}))?", re.I)
# How often: a period ("weekly", "every 6 hours", "3 times a day", "twice per sprint", "10/hour"), not any
# figure ("43.16%" of users is no frequency). "Once" and "every" alone are too common to say one.
_PERIOD = (r"(?:\d+\s*)?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|fortnights?|months?|quarters?|"
           r"years?|sprints?|releases?|runs?|builds?|deploys?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
           r"mornings?|evenings?|weekends?|business days?|working days?)")
FREQ_RE = re.compile(r"\b(?:hourly|daily|weekly|biweekly|fortnightly|monthly|quarterly|yearly|annually|nightly|"
                      r"twice|thrice|\d+\s*(?:times|x)\b|(?:once|twice|\d+\s*times)\s+(?:a|an|per|each|every)\b|"
                      r"(?:every|each|per)\s+(?:other\s+|few\s+|couple of\s+)?" + _PERIOD + r"\b|"
                      r"\d[\d.,]*\s+(?:[a-z]+\s+){0,2}(?:a|an)\s+" + _PERIOD + r"\b|"
                      r"on (?:mon|tues|wednes|thurs|fri|satur|sun)days\b|"
                      # how often, in words ("almost never", as a survey's answers put it); "never" and "always"
                      # alone say too much else
                      r"(?:almost|nearly|hardly)\s+(?:never|ever|always)|rarely|seldom)|"
                      r"\d\s*/\s*(?:s|sec|min|h|hr|hour|day|week|month)\b|"
                      # how often among a count ("excursions per 1,000 shipments", "3 per million requests")
                      r"\d[\d.,]*\s+(?:[a-z]+\s+){0,3}(?:per|in\s+every|out\s+of\s+every)\s+(?:1[,.]?000|100|1[,.]?000[,.]?000|"
                      r"a\s+(?:hundred|thousand|million)|hundred|thousand|million|10k|100k|1k|1m)\b|"
                      r"\bper\s+(?:1[,.]?000|100|1[,.]?000[,.]?000|hundred|thousand|million|10k|100k|1k|1m)"
                      r"\s+[a-z]+\b[^.;]*?\d",
                      re.I)
# A rate: a share, or a figure per something ("600 requests per minute", "3/day", "2 an hour").
_PER_RE = re.compile(r"\s*(?:/\s*\w|per\b|an?\s+" + _PERIOD + r"\b|each\b|every\b)", re.I)
RATE_NAMED_RE = re.compile(r"\b\w+s? per (?:[\d,.]+ |an? |each |every )?\w+", re.I)
_LENGTH_UNIT_RE = re.compile(r"characters?|chars?|words?|lines?|bytes?|[kmgt]i?b|km|miles?|metres?|meters?|m|cm|mm|"
                             r"inches|inch|feet|ft|pages?|columns?|digits?|letters?|sentences?|paragraphs?", re.I)
_SPATIAL_RE = re.compile(r"\s+(?:above|below|high|tall|long|wide|deep|away|apart|off the|clear of|"
                         r"in (?:height|length|width|depth))\b", re.I)  # not "from", "over": "1.5 m over two years"
_NAMED_VERSION_RE = re.compile(r"(?:\b(?:version|release|ver|v)\s?|\b[A-Z][a-z]+\s|\bpip\s)(\d+\.\d+(?:\.\d+)*)\b")
# "Python 3 environments", "pip 21": a major release named by its number alone is no amount either.
_NAMED_MAJOR_RE = re.compile(r"\b(?:python|pip|version|release|cpython|pypy)\s?(\d+)\b(?![.,]\d)", re.I)
RELEASE_RE = re.compile(r"\b(?:version|release|pip|v)\s?(\d+(?:\.\d+)+)\b", re.I)
_MONEY_UNITS = frozenset("pounds pound dollars dollar euros euro gbp usd eur sterling".split())
CALENDAR = frozenset("january february march april may june july august september october november december "
                      "monday tuesday wednesday thursday friday saturday sunday today".split())
VERSION_RE = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w])|\b(?:version|release|pip|python|v)\s?\d+(?:\.\d+)*\b", re.I)
# Words that stand for a thing without naming it: "one component", "another customer".
@dataclass(frozen=True)
class Asked:
    """What the question already holds, to tell a new value from an echo of the question."""

    text: str  # folded question text
    stems: frozenset[str]  # content stems of the question, with the stems of every name of its entities
    entities: frozenset[int]  # pages of the entities the question names
    kinds: frozenset[str] = frozenset()  # their kinds (place, product, person, …)
    everywhere: frozenset[str] = frozenset()  # stems the whole wiki is about ("pip" in pip's docs; terms.EVERYWHERE_SHARE)


def asked(question: str, names: Names, everywhere: frozenset[str] = frozenset()) -> Asked:
    ents = names.entities(question)
    st = {stem(w) for w in words(question) if w not in STOPWORDS}
    for e in ents:
        for n in e.names:
            st.update(stem(w) for w in n.split())
    return Asked(fold(question), frozenset(st), frozenset(e.page for e in ents), frozenset(e.kind for e in ents),
                 everywhere)


def is_new(value: str, q: Asked) -> bool:
    v = " ".join(words(value))
    return bool(v) and v not in q.text


def is_new_name(name: str, q: Asked) -> bool:
    """A name the question does not say, by any of its words (the question's "harbor" is "Harbor API")."""
    return any(stem(w) not in q.stems for w in words(name) if w not in STOPWORDS)


# A number as the figures gate reads one, its thousands grouped or not ("14,500", "14.5"; not "14,5").
_GROUPED_RE = re.compile(NUMBER)


def amount(number: str, scale: str | None) -> float | None:
    """The amount a figure writes ("14,500", and "14.5" with "k", are both 14,500); None for a range, a multiple
    ("3x") or a comma that need not group thousands ("14,5")."""
    if not _GROUPED_RE.fullmatch(number):
        return None
    factor = 1.0
    if scale:
        got = SCALES.get(scale.strip().lower())
        if got is None:
            return None
        factor = got
    return round(float(number.replace(",", "")) * factor, 6)


@lru_cache(maxsize=1024)
def _asked_amounts(question: str) -> frozenset[float]:
    out = set()
    for m in _NUMBER_RE.finditer(question):
        got = amount(m.group("n"), m.group("scale"))
        if got is not None:
            out.add(got)
    return frozenset(out)


def _echoed(number: str, scale: str | None, question: str) -> bool:
    """The figure is one the question already holds, written another way: "£14,500" in a line echoes the
    question's "£14.5k", as "1.2M" echoes "1,200,000"."""
    got = amount(number, scale)
    return got is not None and got in _asked_amounts(question)


_DAY_RE = re.compile(r"\d|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:today|tomorrow|yesterday|tonight)\b", re.I)


def dates_in(text: str, q: Asked, day: bool = False) -> list[str]:
    """Dates the question does not hold. A month named alone must be capitalised ("A future release may drop
    these options" names no month); with `day` ("what date", "which day"), only a date that names its day."""
    out = []
    for m in _DATE_RE.finditer(text):
        got = m.group(0)
        if text[m.start() - 1 : m.start()] in ("=", "_") or re.match(r"[-_][A-Za-z]", text[m.end() : m.end() + 2]):
            continue  # "--use-feature=2020-resolver", "build_2021": a name's digits, not a year
        if not any(ch.isdigit() for ch in got) and got[:1].islower() and fold(got) not in _RELATIVE_DATES:
            continue
        if day and not (_DAY_RE.search(got) and not re.fullmatch(r"(?:19|20)\d\d|q[1-4](?:\s+\d{4})?", got, re.I)):
            continue
        if is_new(got, q) and not (day_months(got) & day_months(q.text)):
            out.append(got)
    return out


# The month a question puts the asked date in ("the demo for norrland in october"), unless it asks what moved it.
_MONTH_ASKED_RE = re.compile(r"\b(?:in|during)\s+(?:early\s+|mid[- ]|late\s+)?(" + _MONTH + r")\b", re.I)
_MOVED_ASKED_RE = re.compile(r"\b(?:mov|postpon|push|slip|delay|resched|brought forward|bring forward|instead|"
                             r"originally|first planned|supposed|thought)", re.I)
_ISO_MONTH_RE = re.compile(r"\d{4}-(\d{2})-\d{2}")


def outside_month(text: str, q: Asked) -> bool:
    """Every new date of `text` names a month, and none the month the question puts the asked date in: "exact
    date of the lodestar demo for norrland in october" is not answered by "a launch date of 15 September"."""
    asked_in = _MONTH_ASKED_RE.search(q.text)
    if asked_in is None or _MOVED_ASKED_RE.search(q.text):
        return False
    want = month_index(asked_in.group(1))
    months: set[int] = set()
    for got in dates_in(text, q):
        iso = _ISO_MONTH_RE.search(got)
        named = {int(iso.group(1)) - 1} if iso else {i for w in re.findall(r"[a-z]+", got.lower())
                                                      if (i := month_index(w)) is not None}
        if not named:
            return False  # "by Tuesday", "2026": no month to set against the asked one
        months |= named
    return bool(months) and want not in months


_DAY_MONTH_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]{3,9})\b", re.I)  # "22 apr", "3rd of may"
_MONTH_DAY_RE = re.compile(r"\b([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.I)  # "aug 3", "sept. 15th"


@lru_cache(maxsize=4096)
def day_months(text: str) -> frozenset[tuple[int, int]]:
    """(day, month 0-11) of each date `text` names by its day, however the month is written: the question's "by 3
    aug" is the line's "by 3 August", an echo of the question and no new date. Memoised: `dates_in` reads the
    question's for every date of every evidence line."""
    out = set()
    found = [(m.group(1), m.group(2)) for m in _DAY_MONTH_RE.finditer(text)]
    for day, month in found + [(m.group(2), m.group(1)) for m in _MONTH_DAY_RE.finditer(text)]:
        at = month_index(month)
        if at is not None and 1 <= int(day) <= 31:
            out.add((int(day), at))
    return frozenset(out)


def question_days(text: str, terms: Iterable[Term]) -> dict[str, tuple[int, int]]:
    """The question's day figures ("22" of "during the 22 apr mess") -> (day, month 0-11)."""
    by_day = {d: (d, m) for d, m in day_months(text)}
    return {t.stem: by_day[int(t.stem)] for t in terms if t.figure and t.stem.isdigit() and int(t.stem) in by_day}


_RELATIVE_DATES = frozenset("today tomorrow yesterday tonight".split())


# "Of the people using pip in automation(,) how many…", "how many of those users…": how many of a group the
# question names, which a share of that group answers as well as a count ("only 9% having issues").
_PARTITIVE_RE = re.compile(r"^(?:\w+ )?of (?:the|those|these|all|our) [^,?]+,? how many\b|\bhow many of (?:the|those|these|"
                           r"them|all|our)\b")


def figures_in(text: str, q: Asked, unit: str) -> list[str]:
    """Figures of the asked unit that the question does not hold. Digits glued to letters name things
    (Q1, G2, M2, v0), so they are no figures; a year, a day of a month or a clock time is a date."""
    dates = [m.span() for m in _DATE_RE.finditer(text)]
    versions = [m.span(1) for r in (_NAMED_VERSION_RE, _NAMED_MAJOR_RE) for m in r.finditer(text)]
    out = []
    for m in _NUMBER_RE.finditer(text):
        a, b = m.span("n")
        if any(x <= a < y for x, y in versions) and not (m.group("pct") or m.group("cur") or m.group("scale")):
            continue  # "Pip 20.3:", "Python 3.10", "version 1.4": a release, not an amount
        if a > 0 and (text[a - 1].isalpha() or (text[a - 1] in "-." and a > 1 and text[a - 2].isalpha())):
            continue
        if b < len(text) and text[b : b + 1].isalpha() and not m.group("scale") and not m.group("unit"):
            continue
        in_date = any(x <= a < y for x, y in dates)
        u = (m.group("unit") or "").lower()
        is_time = bool(u) and re.fullmatch(_TIME_UNIT, u) is not None
        if unit == "time" and not is_time:
            continue
        # "at least 1.5 m above the floor": metres written apart from the figure, which the pattern reads as millions
        metres = not m.group("cur") and (m.group("scale") or "").lower() == " m" and bool(
            _SPATIAL_RE.match(text, m.end("scale")))
        if unit in ("extent", "length") and not ((is_time and unit == "extent") or metres or _LENGTH_UNIT_RE.fullmatch(
                u or "-")):
            continue  # a length is no time: "grew 1.5 m over two years" gives no height
        if unit == "size" and (is_time or in_date):
            continue  # "how big can the cache grow": "redirected in 3 seconds" is no size
        if unit == "money" and not (m.group("cur") or (m.group("scale") and (not u or u in _MONEY_UNITS))):
            continue  # "1.2 million events a week" is a count, not what anyone pays
        if unit == "percent" and not m.group("pct"):
            continue
        core = max(m.end(g) for g in ("n", "scale", "pct") if m.group(g))
        if unit == "rate" and not (m.group("pct") or _PER_RE.match(text, core) or _PER_RE.match(text, m.end())
                                   or RATE_NAMED_RE.search(text[:a])):
            # "what is the error rate": "412 errors" is a count, "0.4%" or "3 per hour" a rate, and so is a figure
            # after the rate it gives is named ("Excursions per 1,000 shipments fell from 6.8 to 5.1")
            continue
        if unit in ("count", "") and in_date and not (m.group("scale") or m.group("pct") or m.group("cur")):
            continue
        if unit == "count" and (is_time or m.group("cur") or (m.group("pct") and not _PARTITIVE_RE.search(q.text))):
            continue  # "delayed by up to 47 minutes" counts no alerts; "£46k", "12%" count nothing
        value = m.group(0).strip()
        if is_new(value, q) and is_new(m.group("n"), q) and not _echoed(m.group("n"), m.group("scale"), q.text):
            out.append(value)
    if unit in ("time", "extent", ""):
        # "within five working days": a duration spelled out is one too
        out += [m.group(0) for m in _WORD_DURATION_RE.finditer(text) if is_new(m.group(0), q)]
    return out
