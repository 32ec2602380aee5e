"""What a question opened by "what" or "how" asks for, read from the words after it (question.py reads the rest):
"how long" a duration or a length, "how much did X cost" a sum, "how many X" a count of X, "what is the burn" a
sum, "what does X do" what X is, "what's the point of --no-build-isolation" what the option is for."""

from __future__ import annotations

import re
from collections.abc import Callable

from stigmergy.answer.asked_slot import Slot
from stigmergy.answer.clauses import (
    CAUSE_VERBS,
    VERSION_NOUN_RE,
)
from stigmergy.answer.cues import OUTPUT_ASKED_RE
from stigmergy.answer.function_words import SPEED_WORDS
from stigmergy.answer.function_words import VERBISH as _VERBISH
from stigmergy.answer.head_noun import TIME_NOUNS, asked_head, counted_noun
from stigmergy.answer.heads import (
    ACCOUNT_HEADS,
    EXTENTS,
    HEAD_VOCAB,
    MONEY_HEADS,
    QUANTITY_HEADS,
    REASON_HEADS,
    VERSION_HEADS,
    kind_of_head,
    rate_unit,
    singular_head,
)
from stigmergy.answer.series import PERCENTILE_RE
from stigmergy.answer.shorthand import TIME_SHORT
from stigmergy.answer.what_forms import (
    AGAINST,
    COMMAND_ASKED_RE,
    FLAG_ASKED_RE,
    IN_WHOSE_WORDS_RE,
    LATER_ONE_RE,
    LINK_ASKED_RE,
    MEAN_BY_RE,
    MEANS_RE,
    MEANT_BY_RE,
    PATH_NOUN_ASKED_RE,
    PRONOUN_POST_RE,
    ROLE_OF_RE,
    SECRET_RE,
    SET_AGAINST,
    UTMOST_CLAUSE_RE,
    UTMOST_OF_RE,
)

_QUANTITY_OF_RE = re.compile(
    r"\bwhat(?:'s| is| was| are| were| will be)? (?:the |our |their |its |his |her |a |an )?(?:[\w\-']+ ){0,3}?"
    r"(" + "|".join(sorted(QUANTITY_HEADS)) + r")\b", re.I)
# "What was the burn that quarter": a date word after "that", "in", "each" says which period, not that a date is
# asked.
_DATE_OF_RE = re.compile(
    r"\bwhat(?:'s| is| was| are| were| will be)? (?:the |our |their |its |his |her |a |an )?"
    r"(?:(?!(?:that|this|in|of|for|during|per|each|every|same) )[\w\-']+ ){0,3}?"
    r"(date|day|deadline|year|month|week|quarter)\b", re.I)


# A percentile as engineers write it (series.py), then what it is of ("p99 latency")
_PERCENTILE_OF_RE = re.compile(rf"^{PERCENTILE_RE.pattern}\b(?:\s+([a-z]+))?", re.I)
# "the 'trivial' label", "the `eager` strategy": a thing named in quotes, then the kind of thing it is
_QUOTED_KIND_RE = re.compile(r"^(?:'s|is|are|was|were)\s+the\s+['\"‘“`]([^'\"’”`]{2,40})['\"’”`](?:\s+[\w-]+){1,3}$")
_VERSUS_TAIL_RE = re.compile(rf"\s+(?:{AGAINST})\s+\S.*$")  # what a term is set against (SET_AGAINST)


def how_slot(nxt: str, rest: str) -> Slot:
    if nxt in SPEED_WORDS:
        # "how quick does the shipment list load", "how snappy is the shipment list": "in under a second"
        return Slot("quantity", unit="time")
    if nxt in ("long", "short", "brief"):
        # a duration or a length: a figure with its unit ("how short can the deprecation period be")
        return Slot("quantity", unit="extent")
    if nxt == "much" and re.match(r"much (?:time|longer|later|earlier|sooner|quicker)\b", rest):
        return Slot("quantity", unit="time")
    if nxt == "much" and re.search(r"\b(?:jump|jumped|rise|rose|risen|grow|grew|grown|increase|increased|go up|went up|gone "
                                   r"up|fall|fell|fallen|drop|dropped|decrease|decreased|climb|climbed|shrink|shrank|"
                                   r"change|changed)\b", rest):
        # "how much did beacon component costs jump": the change, as a share ("rose 11%") or an amount
        return Slot("quantity")
    if nxt == "much" and re.search(r"\b(?:cost|costs|costing|worth|pay|paid|paying|price|priced|budget|budgeted|spend|spent|"
                                   r"spending|raise|raised|raising|charge|charged|charging|fee|revenue|earn|earning|"
                                   r"bill|billed|invoice|sell|sold|selling|money|rent|arr|mrr|salary|cash|burn|burned|burnt|"
                                   r"pounds|dollars|euros|gbp|usd|eur)\b", rest):
        # "how much rent are we paying": the sum named after "much" is the one asked ("one-off cost of £65k" is another)
        named = re.match(r"much ([a-z]+)\b", rest)
        head = named.group(1) if named and named.group(1) in MONEY_HEADS - {"money"} else ""
        return Slot("quantity", unit="money", head=head)
    if nxt in ("often", "frequently"):
        return Slot("quantity", unit="frequency")
    if nxt == "many":
        head = counted_noun(rest.split()[1:])
        if head in TIME_NOUNS or head in TIME_SHORT:
            return Slot("quantity", unit="time", head=head)  # "how many months of runway", "how many hrs": a duration
        return Slot("quantity", unit="count", head=head)
    if nxt in ("large", "big", "small", "heavy", "tall", "wide", "deep"):
        return Slot("quantity", unit="size")  # a size, an amount or a count; not a duration
    if nxt in ("much", "old", "far", "fast", "high", "low", "expensive", "long", "strong", "bad", "close", "accurate",
               "precise", "near"):
        return Slot("quantity")
    if nxt in ("did", "does", "was", "were", "is", "are", "has", "have") and not re.match(
            r"\w+ (?:i|you|we|one|someone|somebody|people|anyone)\b", rest):
        # "how did the new path cope with the burst", "how does pip pick a version": what happened or how a
        # thing behaves, not a procedure to follow
        return Slot("value")
    return Slot("procedure")


_SAYS_RE = re.compile(r"(?:it|that|this|they) (?:telling|saying|trying to (?:tell|say))\b")
# "what was he doing instead", "what are they working on": what a person did, not the definition of a term
_DOING_RE = re.compile(r"(?:he|she|they|we|i|you) (?:\w+ing|up to)\b")
# A term of one to three words, then "in" and where it is used (a product, a tool, a document): no word that asks a
# judgement of a value ("a good timeout in pip", "a typical delay in driftwood" ask a figure)
_KIND_IN_RE = re.compile(r"^((?!(?:good|bad|typical|normal|usual|reasonable|acceptable|sensible|safe|decent|realistic|"
                         r"average|big|small|high|low|long|short)\b)[\w'-]+(?: [\w'-]+){0,2}) in (?:the )?[\w.'-]+"
                         r"(?: [\w.'-]+)?$")


# "what was Maya paid before the rise", "what's that deal worth annually": a sum of money, before any reading of
# the words as a term to define ("that deal worth annually")
_PAID_RE = re.compile(r"^(?:is|was|are|were|did|does|do) (?:[\w'-]+ ){1,5}(?:paid|pay|pays|earn|earns|earned|charge|"
                      r"charges|charged|priced|worth|cost|costs|spend|spends|spent|(?:end|ended|wind|wound) up "
                      r"(?:costing|paying|spending|charging)|[\w'-]+ in (?:revenue|sales|arr|mrr|fees|bookings))\b")


# "what does passing --report - (a dash) to pip install do": what the option does, however it is given.
_PASSING_DOES_RE = re.compile(r"^(?:does|do|did) (?:passing|using|setting|adding|specifying|giving|supplying|turning on|"
                              r"enabling) (?:the |a )?(-[\w-]+|`[^`]+`|[\w.-]+\.\w+)\b.{0,40} do$")


_TIMED_HEADS = frozenset(("delay", "latency", "downtime"))


def _duration(head: str, low: str) -> bool:
    """ "the minimum amount of time pip warns before …", "the typical lag between …": a duration, however a line names
    it ("Median time from the end of an excursion to the report: 74 seconds")."""
    # ("the worst delay on readings": a delay or a latency is a time too, never the count of what it held up)
    return head == "lag" or head in _TIMED_HEADS or re.search(rf"\b{head} of time\b", low) is not None


# A name the asker met before asking what it is ("saw something called X, what is that thing")
_CALLED_RE = re.compile(r"\b(?:called|named|labell?ed|titled)\s+['\"‘“]?([\w][\w .-]{1,40}?)['\"’”]?\s*(?:[,;:—–?]|\s-\s)")
_POINTER_RE = re.compile(r"(?:that|this|it)(?: thing| one)?")


def what_slot(w: str, rest: list[str], low: str, measure: Callable[[str], Slot | None]) -> Slot:
    """`measure`: the slot of the first measure the question names (question.measure_named, which reads the whole
    question again), for a clause that asks for its later one."""
    if rest and rest[0] in ("exactly", "precisely", "else"):
        rest = rest[1:]  # "… prints what exactly", "what else must i pass": no noun of what is asked
    nxt = rest[0] if rest else ""
    tail = " ".join(rest)
    if SECRET_RE.match(tail):
        return Slot("secret")
    if w == "what" and tail in ("now", "then", "next", "instead", "do i do", "do i do now", "should i do", "should i do now",
                                "can i do", "now then"):
        return Slot("procedure")  # "pip search stopped working against pypi - what now": what to do instead
    # ("prepping for the pellucid call - what's aoife's role there": the post asked after a remark)
    m = ROLE_OF_RE.match(low) or ROLE_OF_RE.match(f"{w} {tail}") or PRONOUN_POST_RE.search(low)
    if m:
        g = m.groupdict()
        return Slot("role", subject=g.get("x") or g.get("y") or g.get("z") or g.get("w") or g.get("p") or g.get("r") or "")
    if re.match(r"(?:(?:was|is|were|are) the (?:root |main |real )?(?:cause|reason)s?|caused|causes|(?:is|are) causing|"
                r"(?:could|would|might|can) cause|led to|"
                # "what made pellucid's QA reject our first report format": what had someone do something
                r"made (?!(?:it|up|of|from|by|in|into|for|sure)\b)[\w']+(?: [\w'.-]+){1,10}$|"
                + "|".join(CAUSE_VERBS) + r")\b|"
                r"(?:'s|is|was) the (?:reasoning|rationale|motivation|thinking|logic)(?: (?:behind|for)\b|\s*$)", tail):
        return Slot("reason")  # "what's the reasoning behind pip installing dependencies first"
    if nxt in ("percentage", "percent", "share", "proportion", "fraction"):
        # "what percentage of package maintainers audit code": a share of maintainers, when the rules know the
        # word as a kind of thing (a share of research participants is another share)
        of = re.match(r"\w+ of (?:the |our |all |those |these )?(.+)$", tail)
        head = counted_noun(of.group(1).split()) if of else ""
        return Slot("quantity", unit="percent", head=head if singular_head(head) in HEAD_VOCAB else "")
    if nxt == "time" and not re.match(r"time (?:frame|period|window|zone|of|range|span|line|scale)\b", tail):
        return Slot("date", unit="clock")  # "what time does the stand-up start": an hour, not the day it is on
    if nxt in ("time", "date", "day", "year", "month", "week", "quarter") and not re.match(r"\w+ rates?\b", tail):
        # ("what day rate did we charge": a sum of money a day, not a day)
        return Slot("date")
    if re.match(r"(?:(?:is|was|'s) )?(?:the |its |pip's )?(?:[\w-]+ )?(?:exit|return|status) codes?\b", tail):
        return Slot("quantity")  # "what exit code does pip give": a number ("exits with status 1"), not a code span
    if nxt in ("msg", "message", "output", "text") and OUTPUT_ASKED_RE.search(low):
        return Slot("value")  # "what msg does pip check show when nothing is broken": what the transcript shows
    # "what happened", "what changed", "what goes": a verb, not the kind of thing asked for.
    if nxt and nxt not in _VERBISH and not nxt.endswith("ed") and nxt not in ("happens", "goes", "means", "counts",
                                                                             "matters", "breaks", "if", "wins",
                                                                             "prevails", "overrides", "applies"):
        head = asked_head(rest)
        if head in ACCOUNT_HEADS:
            # "what effect does PIP_CONFIG_FILE=os.devnull have", "what's the point of --no-build-isolation": an
            # account of what happens, which no line names as a thing
            return Slot("reason") if head in REASON_HEADS else Slot("value")
        kind = kind_of_head(head)
        if kind == "quantity" and _duration(head, low):
            return Slot("quantity", unit="time")  # "the minimum amount of time pip warns before …": a duration
        if kind:
            unit = "money" if head in MONEY_HEADS else "version" if head in VERSION_HEADS else rate_unit(head, low)
            return Slot(kind, head="" if head == "money" else head, unit=unit)
    utmost = UTMOST_CLAUSE_RE.match(tail)
    if utmost:
        # "what's the biggest the http cache is allowed to grow": a measure, at most (a size, a length, a count)
        return Slot("quantity", unit="size" if utmost.group(1) in ("biggest", "largest", "smallest") else "")
    utmost = UTMOST_OF_RE.match(tail)
    if utmost and kind_of_head(singular_head(utmost.group(2).split()[-1])) in ("", "thing"):
        # "what's the longest line allowed in a requirements.txt file": a length, at most; a line that speaks of the
        # file and gives none ("A line ending in an unescaped \ is treated as a line continuation") is no answer
        extent, size = utmost.group(1) in ("longest", "shortest", "widest"), utmost.group(1) in ("biggest", "largest",
                                                                                                 "smallest")
        return Slot("quantity", unit="extent" if extent else "size" if size else "")
    if FLAG_ASKED_RE.match(tail):
        return Slot("thing", head="flag")  # "building docker images without a cache, what's the flag"
    if re.match(r"^(?:'s|is|are) ", tail) and LINK_ASKED_RE.match(tail.split(" ", 1)[1]):
        return Slot("thing", head="link")  # "what's the download link for get-pip.py"
    if PATH_NOUN_ASKED_RE.match(tail):
        return Slot("place")  # "what's pip's default cache folder on windows"
    if COMMAND_ASKED_RE.match(tail):
        return Slot("thing", head="command")  # "what's the cmd to wipe it completely": a command a line spells
    measured = measure(low) if LATER_ONE_RE.match(tail) else None
    if measured:
        return measured  # "q2 revenue — the july draft had one number, what's the final": the final revenue
    if _PAID_RE.match(tail):
        return Slot("quantity", unit="money")  # "what was Maya paid before the rise", "what's that deal worth"
    bare = IN_WHOSE_WORDS_RE.sub("", tail)  # "what's a 'lane' in tidemark speak": a definition still
    # "whats a 'telemetry gap' vs an excursion": the first term's definition, set against another
    bare = _VERSUS_TAIL_RE.sub("", bare)
    m = re.match(r"^(?:'s|is|are|was|were)\s+(an?\s+)?(.+)$", bare) or re.match(
        r"^what's\s+(an?\s+)?(.+)$", IN_WHOSE_WORDS_RE.sub("", low))
    article, said = (m.group(1), m.group(2)) if m else (None, "")
    if article and (where := _KIND_IN_RE.match(said)):
        # "what's an excursion budget in lodestar": a kind of thing (an article before it) and where it is used;
        # "in lodestar" says which product's term, not that a budget's sum is asked
        said = where.group(1)
    if m and (article or not said.startswith(("the ", "our ", "their ", "its ", "pip's ", "my "))) and len(
            said.split()) <= 4 and not re.search(r"\b(of|for|in|on|at|with|by|to|from|per)\b", said) and (
            said not in ("wrong", "up", "happening", "going on")) and not _SAYS_RE.match(said) and not (
            _DOING_RE.match(said)):
        # "led flashing amber — what's wrong", "… what's it telling me": what the situation means, no term's
        # definition; "what is that --debug flag doing": what the flag does
        pct = _PERCENTILE_OF_RE.match(said)
        if pct:
            # "what was p95 after the fix", "whats p99 latency now": a percentile's figure, a time unless another
            # measure is named
            return Slot("quantity", unit="time" if (pct.group(2) or "") in (
                "", "latency", "delay", "response", "lag", "duration", "after", "before", "now") else "")
        called = _CALLED_RE.search(low) if _POINTER_RE.fullmatch(said) else None
        if called:
            # "saw something called ingest health dashboard, what is that thing": the name said before
            return Slot("definition", subject=called.group(1))
        return Slot("definition", subject=re.sub(r"^(?:that|this|the) (.+) doing$", r"\1", said))
    m = _QUOTED_KIND_RE.match(tail)
    if m:
        return Slot("definition", subject=m.group(1))  # "what is the 'to-satisfy-only' upgrade strategy": that one
    m = MEAN_BY_RE.match(tail) or MEANS_RE.match(tail) or MEANT_BY_RE.match(tail)
    if m:
        # "what does mean kinetic temperature express": what X says or stands for, not X's figure.
        return Slot("definition", subject=m.group(1))
    m = _QUANTITY_OF_RE.search(low)
    if m:
        head = m.group(1)
        measured = re.match(r"\s+(retention|growth|churn|share|increase|decrease|rise|drop|change|multiple)\b",
                            low[m.end() :]) if head in MONEY_HEADS else None
        if measured:
            # "net revenue retention for 2025": a measure of the revenue (118%), not a sum of money
            return Slot("quantity", head=measured.group(1), unit="percent" if measured.group(1) == "share" else "")
        # "what's the lane count", "what is the number of lanes": how many lanes
        counted = (re.match(r"\s+of (?:the |our |their |all )?([a-z][\w-]+)", low[m.end() :])
                   if head == "number" and re.search(r"\b(?:the|a|total) $", low[: m.start(1)]) else
                   re.search(r"\b(?!(?:the|a|an|our|their|its|total)\b)([a-z][\w-]+) $", low[: m.start(1)])
                   if head == "count" else None)
        if counted:
            return Slot("quantity", head=counted.group(1), unit="count")
        later = re.match(r"\s+(?:[\w'-]+\s+){0,2}(" + "|".join(sorted(VERSION_HEADS)) + r")\b", low[m.end() :])
        if head in ("minimum", "maximum", "min", "max") and later:
            # "what is the minimum git version": the version is asked, "minimum" says which one
            return Slot("quantity", head=singular_head(later.group(1)), unit="version")
        measure = re.match(r"\s+(?:[\w'-]+\s+){0,1}(" + "|".join(sorted(QUANTITY_HEADS)) + r")\b", low[m.end() :])
        if head in ("minimum", "maximum", "min", "max", "total", "overall", "combined") and measure:
            # "what's the max length of a take-home exercise": a length, at most; "the total budget": a budget
            head = measure.group(1)
        elif head in ("total", "overall", "combined") and (counted := re.match(r"\s+(?:number of\s+)?([a-z]+s)\b",
                                                                                low[m.end() :])):
            return Slot("quantity", head=counted.group(1), unit="count")  # "total events served on launch day": how many
        if head == "money":
            return Slot("quantity", unit="money")  # "the total money set aside for X": any sum, named or not
        if _duration(head, low):
            # (a delay keeps its noun, so that "the longest delay" is still said by a bound: slots._fill)
            return Slot("quantity", head=head if head in _TIMED_HEADS else "", unit="time")
        if head == "size" and re.search(r"\b(?:backlog|team|queue|panel|sample|audience|waitlist|waiting list|"
                                        r"class|cohort|group|batch|headcount|staff|crew)s? size\b", low):
            return Slot("quantity", unit="count")  # "the issue backlog size": how many, not how big in bytes
        if head in VERSION_HEADS and (kind := VERSION_NOUN_RE.search(low)):
            return Slot("thing", head=kind.group(1))  # "version operator for 'anything except 3.1'": the operator
        return Slot("quantity", head=head, unit="money" if head in MONEY_HEADS else
                    "version" if head in VERSION_HEADS else "percent" if head in ("percentage", "percent", "share") else
                    "extent" if head in EXTENTS else rate_unit(head, low))
    if re.match(r"(?:is|was|are|were) (?:the |its |their |our |his |her )?(?:[\w'-]+ ){0,2}?address(?:es)?\b", tail):
        return Slot("place", head="address")  # "what is the street address of X": a place, not any value
    if _DATE_OF_RE.search(low):
        return Slot("date")  # "what's the first working day at the new address", "what is the deadline for…"
    m = re.match(r"^(?:does|do|did) ((?:\S+\s){0,2}?\S+) (?:actually |really |even |exactly )?(?:mean|stand for|do|does|refer to)"
                 r"(?: here| there| for a living| all day)?" + SET_AGAINST, tail) or re.search(
        r"\bwhat (?:is|are) (.+?) (?:actually |really |even )?(?:used |meant |intended |supposed to be |responsible |there )?"
        r"for$", low) or re.search(r"\bmeaning of (.+)$", low)
    if m:
        return Slot("definition", subject=m.group(1))
    m = _PASSING_DOES_RE.match(tail)
    if m:
        return Slot("definition", subject=m.group(1))  # "what does passing --report - to pip install do": --report
    # "whats the supported way to run pip from inside my python script": how, in the way the docs stand behind
    if re.search(r"\bwhat(?:'s| is) the (?:(?:best|right|recommended|supported|official|proper|correct|preferred|"
                 r"safest|standard|usual|easiest|simplest|quickest|cleanest) )?way to\b", low) or re.match(
            r"^(?:can|could|should|do|must|shall) (?:i|we|you) (?:try|do)\b", tail):
        return Slot("procedure")  # "what can i try", "what should we do": steps to take
    return Slot("value")
