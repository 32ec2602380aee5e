"""What a question asks for: its parts ("How large was the Series A and who led it?" is two), and for each
part the slot an answer must fill: a person for *who*, a date for *when*, a figure (with its unit) for *how
many / much / long*, a place for *where*, a reason for *why*, a thing of the named kind for *which X*, what
X is or does for *what is X / what does X do*; a statement for a yes/no question.

Plain rules over the question's words (English): no model, so the same question always asks for the same
thing, and each rule is a line to read when an answer surprises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stigmergy.answer.asked_post import role
from stigmergy.answer.asked_slot import Slot
from stigmergy.answer.clauses import (
    AUX_OR_WH_FIRST_RE,
    CASE_AUX_RE,
    CASE_CLAUSE_RE,
    CASE_WHEN_RE,
    EXAMPLE_KIND_RE,
    FRAME_RE,
    KNOW_BEFORE_RE,
    LANDED_RE,
    LATER_AUX_RE,
    MANNER,
    MID_WHEN_RE,
    OPTION_VALUE_RE,
    PIECE_RE,
    RELATIVE_WHERE_RE,
    SHARE_FIRST_RE,
    WHEN_NEEDED_RE,
)
from stigmergy.answer.function_words import ASKING_VERBS, FRAME_OPENERS, PREPOSITIONS
from stigmergy.answer.function_words import AUX as _AUX
from stigmergy.answer.function_words import DETERMINERS as _DETERMINERS
from stigmergy.answer.function_words import VERBISH as _VERBISH
from stigmergy.answer.function_words import WH as _WH
from stigmergy.answer.head_noun import HOW_WORDS
from stigmergy.answer.heads import (
    ING_NOUNS,
    MEASURE_FIRST,
    QUANTITY_HEADS,
    SINGLED_OUT,
)
from stigmergy.answer.splits import (
    AND_NAMED_RE,
    ASIDE_RE,
    BARE_PART_RE,
    COMMA_WH_RE,
    DASH_ASIDE_RE,
    HAVE_DONE_RE,
    LEAD_TOPIC_RE,
    SETUP_RE,
    SPLIT_RE,
    TYPED_ASIDE_RE,
    UNIT_ONLY_RE,
)
from stigmergy.answer.terms import WH_RE, month_index
from stigmergy.answer.typed import clean as _clean
from stigmergy.answer.wh_slots import how_slot, what_slot
from stigmergy.answer.what_forms import (
    ANOTHER_NAME_RE,
    CASE_FIRST_RE,
    COMMAND_FIRST_RE,
    CURRENCY_SIGN_RE,
    DO_VERBS,
    EMAIL_ASKED_RE,
    ENV_VAR_ASKED_RE,
    EXISTS_ASKED_RE,
    FLAG_FIRST_RE,
    FULL_NAME_RE,
    IT_DOES_WHAT_RE,
    LABEL_END_RE,
    LINK_ASKED_RE,
    LITERAL_RE,
    MEANING_END_RE,
    NAME_OF_RE,
    OK_ASKED_RE,
    OLDEST_NAMED_RE,
    OPERATOR_RE,
    OTHER_NAME_RE,
    PATH_ASKED_RE,
    PRECEDENCE_ASKED_RE,
    QUOTED_IT_RE,
    ROLE_OF_RE,
    SAID_IT_RE,
    TELL_RE,
    THE_ONE_THAT_RE,
    TOPIC_IT_RE,
    TOPIC_KIND_RE,
    WANT_TO_RE,
    pasted,
)

# A question passed on ("pharma prospect asking if we're iso 27001 certified — are we?", "customer wants to know
# whether we support SSO"): the question is what follows "if"; who asks it is no part of it.
_ASKING_IF_RE = re.compile(r"^(?:(?!\b(?:who|whom|whose|what|when|where|which|why|how)\b)[^?]){0,60}?\b(?:"
                           + "|".join(ASKING_VERBS) + r")\s+"
                           r"(?:us\s+|me\s+|him\s+|her\s+|them\s+)?(?:if|whether)\s+(?P<q>.+)$", re.I)
# A person typed first ("tomek", "sam"), maybe where they work ("from the leeds lab", "at norrland"), then a dash, a
# colon or a comma before what is asked of them (pronouns.py reads the same)
PERSON_FIRST = r"(?P<x>[\w.'-]+(?: [\w.'-]+)?)"
WORKS_AT = r"(?: (?:from|at|in|on|of) [^—–:,]{2,30}?)"
TYPED_APART = r"\s*(?:[—–:,]|\s-)\s*"
# "tomek — real name", "sam from the leeds lab - title": a person typed first, then the other name or the post asked
_NAMED_THEN_RE = re.compile(r"^" + PERSON_FIRST + WORKS_AT + "?" + TYPED_APART +
                            r"(?:(?:his|her|their) )?(?:(?P<name>(?:full|real|whole|proper|legal) name)|"
                            r"(?P<post>title|role|job title|position|post))$", re.I)
# "When and where is the offsite?": two slots over one predicate.
_TWO_WH_RE = re.compile(r"^\s*(who|what|when|where|why|how many|how much|how long)\s+and\s+"
                        r"(who|what|when|where|why|how many|how much|how long)\b\s*(.*)$", re.I)

@dataclass(frozen=True)
class Part:
    text: str  # the part as asked (a second part carries the first one's subject: "who led the Series A")
    slot: Slot
    carried: str = ""  # the first part's subject a later part's pronoun stands for ("it": "the Series A")


# Slots that name no kind of value: a part asking one of these is no named thing ("can I put --hash on one line and
# leave the rest unhashed" asks one thing, whether)
_NOT_NAMED = ("value", "definition", "procedure", "yesno")


def _named_pair(q: str) -> list[Part] | None:
    """Two things asked by name and joined by "and" ("new lisbon office — street address and monthly rent"): a part
    for each, the second with the topic before a colon or dash, or the first's words before its noun ("pellucid pilot
    fee and pilot length": the Pellucid pilot's length); None unless the second names a kind of value of its own, in
    at most five words and with no verb ("list and remove cached wheels", "difference between X and Y" ask one thing)."""
    m = AND_NAMED_RE.match(q.strip())
    if not m or re.search(r"\b(?:between|both)\b", m.group("a"), re.I):
        return None
    a, b = m.group("a").strip(), m.group("b").strip()
    said = b.lower().split()
    if not 1 <= len(said) <= 5 or any(w in _VERBISH or w in _WH for w in said):
        return None
    topic = LEAD_TOPIC_RE.match(a)
    second = slot(f"what is the {b}")
    if second.kind == "value" and topic:
        second = slot(f"{topic.group('topic')}: {b}")  # "sam from the leeds lab - full name and title": Sam's post
    if second.kind in _NOT_NAMED:
        return None
    first_slot = slot(a)
    if first_slot.kind == "value" and topic:
        first_slot = slot(f"what is the {a[topic.end():]}")  # "new lisbon office — street address": the address
    if first_slot.kind in _NOT_NAMED:
        return None
    if topic:
        b = f"{topic.group('topic')}: {b}"
    else:
        # "what is the Q2 revenue and headcount": the Q2 headcount (the first part's subject, less its noun)
        subject = [w for w in _subject_words(a).split() if w.lower() not in _DETERMINERS]
        b = " ".join([*(w for w in subject[:-1] if w.lower() not in said), b])
    return [Part(a, first_slot), Part(b, second)]


def _dated(text: str) -> bool:
    """Whether a remark gives a figure or a date: a digit, a month (terms.month_index) or a quarter."""
    return any(ch.isdigit() for ch in text) or any(
        month_index(w) is not None or re.fullmatch(r"q[1-4]", w) for w in re.findall(r"[a-z]+", text.casefold()))


def parts(question: str) -> list[Part]:
    """The question's parts, each with its slot; one part for most questions."""
    q = _clean(question)
    aside = ASIDE_RE.match(q)
    if aside and not _dated(q[aside.end(1):]):
        # "what's MKT? pharma folks keep saying it": the asker's aside asks nothing. One that gives a figure or a
        # date ("… wasn't it supposed to be end of may") says which claim the answer should correct: kept.
        q = aside.group(1)
    reported = _ASKING_IF_RE.match(q)
    if reported:
        q = reported.group("q")  # "pharma prospect asking if we're iso 27001 certified": whether we are
    full = FULL_NAME_RE.search(q)
    if full and (full.group(2) or full.group(1).lower() not in _DETERMINERS):
        # "grace said 'leeds backup is sam' — whats sam's full name": another name of the person, the remark kept
        # for its words (which Sam)
        return [Part(q.rstrip(" ?"), Slot("alias", subject=full.group(1) or full.group(2).lower()))]
    other = OTHER_NAME_RE.match(q) or ANOTHER_NAME_RE.match(q.rstrip(" ?"))
    if other:
        thing = (other.groupdict().get("x") or other.groupdict().get("y") or "").strip()
        return [Part(f"what else is {thing} called", Slot("alias", subject=thing))]
    topic_it = TOPIC_IT_RE.match(q.rstrip(" ?"))
    term = TOPIC_KIND_RE.sub("", topic_it.group("term").strip()) if topic_it else ""
    if topic_it and not WH_RE.match(term) and len(term.split()) <= 4 and (
            topic_it.group("sep") != "," or LITERAL_RE.match(term)):
        return [Part(q.rstrip(" ?"), Slot("definition", subject=term))]
    quoted = QUOTED_IT_RE.match(q) or SAID_IT_RE.match(q)
    if quoted:
        term, wh, aux, rest = quoted.groups()
        said = f"{wh.lower()} {aux.lower()} {term} {rest or ''}".rstrip(" ?")
        return [Part(said, slot(said))]
    setup = SETUP_RE.match(q)
    if setup and not WH_RE.search(setup.group(1)) and setup.group(1).split()[0].lower() not in _AUX:
        # "the week 35 update had ~2k pilot shipments; what was the final number": what the asker knows, then the
        # question; one part, its words kept (asides.claimed reads the figure as the earlier state)
        return [Part(q.rstrip(" ?"), slot(setup.group(2)))]
    m = _TWO_WH_RE.match(q)
    if m:
        rest = m.group(3)
        return [Part(f"{m.group(1)} {rest}", slot(f"{m.group(1)} {rest}")),
                Part(f"{m.group(2)} {rest}", slot(f"{m.group(2)} {rest}"))]
    pieces = [p.strip(" ,;?") for p in SPLIT_RE.split(q)]
    if len(pieces) == 1 and (re.match(rf"(?:{'|'.join(_AUX)})\b", q, re.I) or COMMA_WH_RE.match(f", {q}")):
        # "is our iso 27001 still valid, when was it last renewed": a question, then a comma and another one, each a
        # question word with its verb ("when i hack on pip, what does --debug change" opens with a case)
        split = [p.strip(" ,;?") for p in COMMA_WH_RE.split(q)]
        # "whats the capacity of the new lisbon office, how many people fit?": the same kind asked again says the
        # question over in other words
        pieces = split if len({slot(p).kind for p in split}) == len(split) else pieces
    # "what is build isolation and why": a question word alone asks its question of the first part's subject
    pieces = [p for i, p in enumerate(pieces) if len(p.split()) >= 2 or (i and BARE_PART_RE.match(p))]
    if len(pieces) == 2 and any(w.lower() in _AUX for w in pieces[0].split()[:5]) and HAVE_DONE_RE.match(pieces[1]):
        # "can I put $TOKEN in requirements.txt and have pip fill it in", "in requirements.txt can i write $MY_TOKEN and
        # have pip expand it": one thing asked, to have it done
        pieces = [f"{pieces[0]} and {pieces[1]}"]
    if len(pieces) <= 1:
        named = _named_pair(q)
        if named:
            return named
        dashed = DASH_ASIDE_RE.match(q)
        if dashed:
            # "so what exactly is a telemetry gap — chart shows hatching": the remark after the dash says where the
            # asker met it, and asks nothing (its words kept: "which office is our HQ — wharf street one?")
            return [Part(q.rstrip(" ?"), slot(dashed.group(1)))]
        typed = TYPED_ASIDE_RE.match(q)
        if typed and not WH_RE.search(typed.group(1)):
            # "driftwood M2 date? plan had 10 april": a noun phrase typed alone asks; the remark after it gives the
            # figure the asker was told (kept for its words: asides.claimed reads it as the earlier plan)
            return [Part(q.rstrip(" ?"), slot(typed.group(1)))]
        return [Part(q.rstrip(" ?"), slot(q))]
    out = [Part(pieces[0], slot(pieces[0]))]
    subject = _subject_words(pieces[0])
    clause = _clause_subject(pieces[0])
    thing = _subject_words(_FRAMED_RE.sub("", pieces[0])).split()
    head = thing[-1] if thing and thing[-1].lower() not in _VERBISH else ""
    for p in pieces[1:]:
        if UNIT_ONLY_RE.match(p) and out[0].slot.kind == "quantity":
            continue  # "what's the default timeout? how many seconds": the first part's unit, not a question of its own
        if BARE_PART_RE.match(p):
            p = f"{p} {_predicate(pieces[0])}".strip()
        # "…and who led it": the second part's pronoun is the first part's subject.
        # "how many votes does it take": an "it" that only opens "it takes" stands for nothing.
        # "is there a setting for json instead": a "there" that only says something exists stands for nothing.
        pronoun = _PRONOUN_RE.search(p) if subject else None
        ref = _referent(pronoun.group(0), subject, clause) if pronoun else ""
        carried = f"{p[:pronoun.start()]}{ref}{p[pronoun.end():]}" if pronoun and ref else p
        bare = _BARE_HEAD_RE.fullmatch(p) if subject and not pronoun else None
        if bare and _NOUN_SUBJECT_RE.match(subject):
            # "where's the leadership offsite this year and whats the budget": the offsite's budget, not any budget
            ref = subject
            carried = f"{p} of {subject}"
        if head:  # "where's my per-user pip.conf and where's the machine-wide one": "one" is the first part's thing
            carried = re.sub(r"\b(the|a|an) ([\w-]+) one\b", lambda mm: f"{mm.group(1)} {mm.group(2)} {head}", carried,
                             count=1, flags=re.I)
        out.append(Part(carried, slot(p), ref if carried != p else ""))
    return out


# A later part that asks for one thing by "the" alone ("and what's the budget", "and what was the rent")
_BARE_HEAD_RE = re.compile(r"(?:what|how much|when|where|who)\s+(?:is|was|are|were)\s+the\s+[\w-]+\W*", re.I)
# A first part's subject that is a thing or a name ("the leadership offsite this year", "driftwood"), not a clause
# of its own ("we sign with norrland")
_NOUN_SUBJECT_RE = re.compile(r"(?:the|our|my)\s+\w|(?!(?:we|i|you|they)\b)[\w-]+(?:\s+[\w-]+)?$", re.I)


_PRONOUN_RE = re.compile(r"\b(it(?! (?:take|takes|took|cost|costs)\b)|its|they|them|their|this|that|he|she|him|her|"
                         r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )there(?! (?:is|are|was|were)\b))\b", re.I)


def _referent(pronoun: str, subject: str, clause: str) -> str:
    """What a later part's pronoun stands for: the first part's subject, or for "it", "this" or "that" the
    subject of its clause when the first part asks a value of something ("what date did the pilot start, and
    what's it worth": the pilot, not the date)."""
    return clause if clause and pronoun.lower() in ("it", "its", "this", "that") else subject


# Nouns that name a value of something rather than a thing of its own ("what date did the pilot start").
_VALUE_HEADS = frozenset("date day time year month week quarter format version release number amount figure size "
                         "value price cost name type kind status share percentage rate total".split())
_CLAUSE_AUX = frozenset("did does do is was are were will can could should has have".split())
_PRONOUN_SUBJECTS = frozenset("it they this that he she we you i".split())


def _clause_subject(text: str) -> str:
    """The subject after the auxiliary of a first part that asks a value of it: "what format does pip inspect spit
    out" -> "pip inspect"; "for the Pellucid pilot: what date did it kick off" -> "the Pellucid pilot" (the topic
    its own pronoun stands for). "" when the part is not shaped so."""
    topic = _FRAMED_RE.match(text) or _LEAD_FRAME_RE.match(text)
    ws = text[topic.end():].split() if topic else text.split()
    if len(ws) < 4 or ws[0].lower() not in ("what", "which"):
        return ""
    i = 1
    while i < len(ws) and ws[i].lower() not in _VERBISH and ws[i].lower() not in _WH:
        i += 1
    if i == 1 or i >= len(ws) or ws[i].lower() not in _CLAUSE_AUX or ws[i - 1].lower() not in _VALUE_HEADS:
        return ""  # "what backend does pip fall back to, and what setuptools does it need": the backend needs it
    out = _subject_words(" ".join(ws[i + 1:])).split()  # the words after the auxiliary, up to the next verb
    if not out:
        return ""
    if out[0].lower() in _PRONOUN_SUBJECTS:
        frame = topic.group(0).rstrip().rstrip(":,").strip() if topic else ""
        return re.sub(r"^(?:for|on|in|about|re|regarding|with)\s+", "", frame, flags=re.I)
    # The clause's subject ends before its verb, which the rules cannot always tell: a determiner and its noun
    # (with the capitalised words of a name: "the Series A"), or two words ("pip inspect").
    if out[0].lower() in _DETERMINERS and len(out) > 1:
        n = 2
        while n < len(out) and out[n][:1].isupper():
            n += 1
        return " ".join(out[:n])
    return " ".join(out[:2])


# A frame typed before the question word without a colon ("on windows where does pip keep its cache").
_LEAD_FRAME_RE = re.compile(r"^(?:in|on|at|for|with|under|during)\s+(?:[\w.'-]+\s+){1,3}(?=(?:" + "|".join(_WH) + r")\b)",
                            re.I)


def _predicate(text: str) -> str:
    """The first part less its question word: "who ran the lodestar retro" -> "ran the lodestar retro" (and less a
    topic before a colon: "norrland after the Q3 review: who ran the retro" -> "ran the retro")."""
    topic = _TOPIC_RE.match(text)
    ws = text[topic.end(1) + 1 :].split() if topic else text.split()
    i = 0
    while i < len(ws) and (ws[i].lower() in _WH or ws[i].lower() in HOW_WORDS):
        i += 1
    return " ".join(ws[i:])


# A topic typed before a colon and the question ("norrland after the Q3 review: how many …").
_TOPIC_RE = re.compile(r"^(?!(?:" + "|".join(FRAME_OPENERS) + r")\b)([^:?]{2,60}):\s+(?:" + "|".join(_WH) + r")\b",
                       re.I)  # "on a linux box:" is a frame


# Anything typed before a colon and the question, topic or frame: the asked thing's words come after it.
_FRAMED_RE = re.compile(r"^[^:?]{2,60}:\s+(?=(?:" + "|".join(_WH) + r")\b)", re.I)


def _subject_words(text: str) -> str:
    """The first part's subject: "How large was the Series A" -> "the Series A", "how many verbosity levels
    does pip have" -> "verbosity levels" (the words after the question word, up to the next verb)."""
    topic = _TOPIC_RE.match(text)
    if topic:
        return topic.group(1)  # "norrland after the Q3 review: how many gateways are they running": norrland's
    frame = _FRAMED_RE.match(text) or _LEAD_FRAME_RE.match(text)
    ws = text[frame.end() :].split() if frame else text.split()  # "on a linux box: where is pip's cache": the cache
    i = 0
    while i < len(ws) and (ws[i].lower() in _WH or ws[i].lower() in HOW_WORDS):
        i += 1
    if i == 1 and ws[0].lower() == "who" and i < len(ws) and ws[i].lower() not in _VERBISH:
        i += 1  # "who wrote the april postmortem, and what sev was it": "who" is followed by its verb; "it" is the postmortem
    while i < len(ws) and ws[i].lower() in _VERBISH:
        i += 1
    out: list[str] = []
    for w in ws[i:]:
        if w.lower() in _VERBISH or (out and (w in ("—", "–", "-") or w.lower() in _WH)):
            break  # "get-pip.py — where do i grab it from": the dash ends the subject
        out.append(w)
    return " ".join(out)


_LATER_WH_RE = re.compile(r",\s*((?:" + "|".join(_WH) + r")\b.+)$", re.I)


def slot(text: str) -> Slot:
    """The slot of one question part: decided by its first question word (the one a question starts
    with, or the first one it holds: "of those users, how many…"); a part that opens with an auxiliary
    ("is", "does", "should") asks yes or no. "what does the ~= operator mean": the operator's definition."""
    got = _slot(text)
    if got.kind == "value" and _HEDGE_TAIL_RE.search(text.rstrip(" ?")):
        # "what does --ignore-installed do exactly": asked as plainly without the hedge
        plain = _slot(_HEDGE_TAIL_RE.sub("", text.rstrip(" ?")))
        got = plain if plain.kind == "definition" else got
    op = OPERATOR_RE.search(text) if got.kind == "definition" else None
    if op:
        return Slot("definition", subject=op.group(0))
    example = EXAMPLE_KIND_RE.search(text.lower()) if got.kind == "definition" and PIECE_RE.match(got.subject) else None
    if example:
        # "pip versions look like 24.2 - what does the 2 part mean": a piece of the asker's example is defined where
        # the kind of thing the example is, is ("The version number of pip is YY.N, where … N identifies the quarter")
        kind = example.group(1)
        # (a version's parts are its number's: "versions look like 24.2" asks how the version number is made)
        return Slot("definition", subject=f"{kind.rstrip('s')} number" if kind.rstrip("s") in ("version", "release")
                    else kind)
    if got.kind == "definition" and got.subject:
        # "what does IQ/OQ stand for": a word typed in capitals keeps them (defining.acronyms: a line may spell it);
        # "what is MKT actually": the asker's hedge is no word of the term
        subject = _HEDGE_TAIL_RE.sub("", got.subject) or got.subject
        return Slot("definition", subject=" ".join(w.upper() if re.search(rf"\b{re.escape(w.upper())}\b", text) else w
                                                   for w in subject.split()))
    return got


_HEDGE_TAIL_RE = re.compile(r"(?:\s+(?:actually|exactly|really|again|anyway|even|precisely|then|now))+$", re.I)


def _slot(text: str) -> Slot:
    q = CURRENCY_SIGN_RE.sub("money ", _clean(text))
    message = pasted(q)
    if message:
        # "pip prints 'INFO: pip is looking at multiple versions … which version is compatible' - what's going on":
        # what the message says is no part of what is asked; asked what it means, any line that explains it may
        # answer (no line defines a message)
        got = _slot(f"{q[: message.start()]}the message{q[message.end():]}")
        return Slot("value") if got.kind == "definition" and (got.subject in ("the message", "message") or re.match(
            r"(?:it|that|this)\b", got.subject)) else got
    person = _NAMED_THEN_RE.match(q.rstrip(" ?"))
    if person and person.group("x").split()[0].lower() not in _DETERMINERS and not WH_RE.match(person.group("x")):
        return Slot("alias" if person.group("name") else "role", subject=person.group("x").lower())
    if PRECEDENCE_ASKED_RE.search(q):
        return Slot("thing", head="one")  # which of the settings holds (which.thing_fill), not a figure or a name
    if EMAIL_ASKED_RE.match(q.rstrip(" ?")):
        return Slot("place", head="address")  # "email for Ines?": an address to write to (kind_fill: an email)
    frame = FRAME_RE.match(q)
    if frame:
        return slot(q[frame.end():])
    # "i fixed a bug for issue 4321, what should the news fragment file be named": the clause that asks
    asks = re.split(r"(?:[,;:.]|\s[—–-])\s+(?=(?:what|which)\b)", q.rstrip(" ?"))[-1]
    if re.fullmatch(r"what(?:'s| is| was) (?:their|its) (?:full |real |official |company )?name", asks, re.I):
        return Slot("thing", head="name")  # "the mid-sized account we lost in Q3 — what was their name": a name
    kind_named = re.match(r"^(?:what|which) ([a-z][\w-]+) names?\b", asks, re.I)
    if kind_named and kind_named.group(1).lower() not in ("their", "its", "his", "her", "the", "your", "our", "my"):
        return slot(f"which {kind_named.group(1)}{asks[kind_named.end():]}")  # "what room names can i book": which rooms
    named = NAME_OF_RE.match(asks)
    if named and not re.search(r"\bones?$", named.group(1) or named.group(2)):  # "the new one": the thing said before
        got = slot(f"which {named.group(1) or named.group(2)}")
        # "what's the name of the quinta we booked for the sintra offsite": a name, where the rules know no kind for
        # the thing; "a rented quinta outside Sintra" speaks of it and names none
        return Slot("thing", head="name") if got.kind == "value" else got
    the_one = THE_ONE_THAT_RE.match(q)
    if the_one:
        got = slot(f"which {the_one.group(1)}")
        if got.named and got.kind != "thing":
            return got  # "a payments company in Porto" speaks of the company and names none
    does = IT_DOES_WHAT_RE.match(q.lower())
    if does:
        return Slot("definition", subject=q[: len(does.group("x"))].strip())  # "pip hash - what does it give me"
    oldest = OLDEST_NAMED_RE.match(q)
    if oldest:
        # "What is the oldest Python on which …": a version of Python ("pip v22.2 or later" is pip's)
        return Slot("quantity", head="version", unit="version", subject=oldest.group("name") or oldest.group("runtime"))
    low = q.lower().rstrip(" ?")
    if OPTION_VALUE_RE.search(low):
        # "default value of --upgrade-strategy": the setting's value as the docs write it ("only-if-needed"), a word
        # as often as a figure
        return Slot("value")
    if ENV_VAR_ASKED_RE.search(low):
        return Slot("thing", head="variable")  # "what env var sets --find-links": a variable's name
    if re.search(r"(?:^|[:;,—–]\s*|\s-\s+)by how (?:much|many)\b", low):
        # "by how much does their ARR grow", after a topic too ("norrland renewal: by how much …"): the change, as a
        # share or an amount
        return Slot("quantity")
    later = _LATER_WH_RE.search(q)
    if later and WH_RE.search(q[: later.start()]) and not CASE_CLAUSE_RE.match(later.group(1)):
        # "pip list grows a column when i have editable installs, what's that column called": the clause before
        # the comma says when it happens; the question is what follows
        return slot(later.group(1))
    aux = LATER_AUX_RE.search(q)
    if aux and not WH_RE.search(q[: aux.start()]) and (low.split() or [""])[0] not in _AUX:
        return slot(aux.group(1) or aux.group(2) or aux.group(3))
    case = CASE_AUX_RE.match(q)
    if case and not WH_RE.search(q[q.index(" ") : case.start(1)]):
        return Slot("yesno")
    meant = MEANING_END_RE.match(q.rstrip(" ?"))
    if meant and not WH_RE.search(meant.group("x")) and not any(
            w in _VERBISH or w in PREPOSITIONS for w in meant.group("x").lower().split()):
        return Slot("definition", subject=meant.group("x").strip())
    words = re.findall(r"[\w'-]+", low)
    first = words[0] if words else ""
    if first in _AUX:
        if re.match(r"^(?:is|are) there (?:an?|any) (?:env(?:ironment)?[ -]?var(?:iable)?s?|envvars?)\b", low):
            return Slot("thing", head="variable")  # "is there an env var to stop …": the variable's name
        if EXISTS_ASKED_RE.match(low):
            return Slot("procedure")  # "is there a pip setting that …": the option a line names, and how
        return Slot("yesno")
    wish = WANT_TO_RE.match(low)
    if wish and not re.match(r"(?:know|understand|learn|find out|figure out|see|check|confirm)\b", low[wish.start("verb") :]):
        # "want pip to just tell me in json what it would install": a wish, whatever question word its clause holds
        return Slot("procedure")
    # "shorter timeout only when running pip freeze": "when" before a verb in -ing opens a case, not a question
    wh = next((i for i, w in enumerate(words) if (w in _WH or (w == "how" and i + 1 < len(words))) and not (
        w in ("when", "while", "where") and i + 1 < len(words) and words[i + 1].endswith("ing")
        and words[i + 1] not in ING_NOUNS)), None)
    if wh and words[wh] in ("who", "whom") and SHARE_FIRST_RE.match(low):
        # "share of pip users in the survey who speak a non-english first language": "who" opens a relative clause;
        # the share is asked
        return slot(f"what is the {SHARE_FIRST_RE.sub('', low, count=1)}")
    told = TELL_RE.match(low)
    if wh is None or (told and not WH_RE.match(low[told.end() :])):
        # "explain the effect of --ignore-installed when the package is already there": asked to tell, and the
        # question word is the case's, not the ask's ("tell me when the offsite is" still asks when)
        return _wordless(low, words)
    if words[wh] == "when" and MID_WHEN_RE.search(low):
        # "pip check when everything's fine prints what exactly": a "when" inside the clause says in which case;
        # the question word after it asks
        at = wh
        wh = next((i for i in range(wh + 1, len(words)) if words[i] in _WH and words[i] != "when" and (
            words[i] != "how" or i + 1 < len(words))), wh)
        case = CASE_WHEN_RE.search(low)
        if wh == at and case and not AUX_OR_WH_FIRST_RE.match(low) and not KNOW_BEFORE_RE.search(low[: case.start()]):
            # "skip the svn tests when i don't have subversion installed", "fallback build requires when project has
            # no pyproject.toml": no question word asks; the clause before "when" says what is wanted
            before = low[: case.start()].strip()
            return _wordless(before, re.findall(r"[\w'-]+", before))
    if words[wh] == "where" and RELATIVE_WHERE_RE.search(low):
        wh = next((i for i in range(wh + 1, len(words)) if words[i] in _WH and words[i] != "where" and (
            words[i] != "how" or i + 1 < len(words))), wh)
    w, rest = words[wh], words[wh + 1 :]
    nxt = rest[0] if rest else ""
    if w == "why" or (w == "how" and nxt == "come"):
        return Slot("reason")
    if w == "when" and WHEN_NEEDED_RE.search(low):
        # "editable install: when do i need to reinstall after changes": in which case, not on what date ("only if you
        # change the project metadata")
        return Slot("value")
    if w == "when":
        return Slot("date")
    if re.search(r"\b(?:what|which|exact|on what) (?:date|day)\b(?! rates?\b)|\bday of the (?:month|week)\b", low):
        return Slot("date", unit="day")  # "on what exact day of the month": a month alone does not say
    if w == "where":
        # "we guessed ~8.0M ARR for end of Q2. where did it land?": the ARR it came to, not a place
        return (measure_named(low) if LANDED_RE.search(low) else None) or Slot("place")
    if w in ("who", "whom", "whose"):
        at = re.search(r"\bwho", q, re.I)
        return Slot("person", subject=role(q[at.start():]) if at and w != "whose" else "")
    if w == "how":
        return how_slot(nxt, " ".join(rest))
    return what_slot(w, rest, low, measure_named)


def _measure(phrase: str) -> Slot | None:
    """The slot of a noun phrase typed alone, read as "what is the …" would read it, where that names a kind of value
    ("harbor launch date", "total responses"); None where it names none."""
    named = slot(f"what is the {phrase}")
    return named if named.kind not in ("value", "definition", "procedure") else None


def _wordless(low: str, words: list[str]) -> Slot:
    role_of = ROLE_OF_RE.match(low)
    if role_of:
        return Slot("role", subject=role_of.group("z") or "")  # "Dan Ferreira's title?"
    if OK_ASKED_RE.search(low) or re.search(r"\bor not$", low):
        # "zipapp version of pip — ok for our production servers or not": whether one may; "quote version specifiers
        # inside requirements.txt or not": whether to
        return Slot("yesno")
    if PATH_ASKED_RE.match(low):
        return Slot("place")  # "linux: path of the per-virtualenv (site) pip config file": where, on a computer
    if FLAG_FIRST_RE.match(low):
        return Slot("thing", head="flag")  # "flag to skip installing deps?": an option a line spells
    if COMMAND_FIRST_RE.match(low):
        return Slot("thing", head="command")  # "command to spit out a pylock.toml …": a command a line spells
    if LINK_ASKED_RE.match(low):
        return Slot("thing", head="link")  # "direct download link for the standalone pip .pyz zipapp?": a web address
    label = LABEL_END_RE.search(low)
    if label and len(words) > 2:
        return slot(f"which {label.group(1)}")
    after_topic = low.split(": ", 1)[-1] if ": " in low and len(low.split(": ", 1)[0].split()) <= 4 else low
    dashed = re.split(r"\s[—–-]\s+", after_topic, maxsplit=1)
    if len(dashed) == 2 and len(dashed[0].split()) <= 6 and dashed[1].split() and dashed[1].split()[0] in MEASURE_FIRST:
        # "upgrade conflict survey (tea/coffee/water) - total responses?": a topic, then the measure asked of it
        measure = _measure(dashed[1])
        if measure is not None:
            return measure
    said = after_topic.split()
    if len(said) > 1 and said[0] in MANNER:
        said = said[1:]  # "completely empty pip's cache": something to do, done a certain way
    if (said and said[0] in DO_VERBS and (len(said) < 2 or said[1] not in ("of", "on", "per", "for"))) or WANT_TO_RE.match(
            after_topic):
        # "offline box: install everything from a folder of wheels", "want to cap package versions for the whole
        # org": something to do, after a topic typed before a colon or as a wish ("list of supported platforms",
        # "cap on calls per key" name a thing)
        return Slot("procedure")
    if words and words[0] in SINGLED_OUT:
        return slot(f"what {low}")
    if words and words[0] in MEASURE_FIRST and not TELL_RE.match(low):
        measure = _measure(low)
        if measure is not None:
            return measure
    if re.match(r"env(?:ironment)?[ -]?var(?:iable)?s?\b|envvars?\b", low):
        return Slot("thing", head="variable")  # "env var equivalent of running pip with -vvv?"
    if words and not TELL_RE.match(low) and not any(w in _VERBISH or w.endswith("'s") for w in words):
        # "harbor launch date?", "date of the board meeting after the september one", "q4 2026 revenue, final
        # number?": a noun phrase typed alone asks for what it names, as "what is the …" would, where that reading
        # names a kind of value; a label before a colon and a case said first are set aside ("lisbon office move:
        # first day at the new place", "in the pellucid pilot, typical lag between …"). Not a phrase with an
        # auxiliary or a possessive in it, which "what is the …" would misread.
        named = _measure(CASE_FIRST_RE.sub("", low.split(": ")[-1]))
        if named is not None:
            return named
    return Slot("value")


# The first measure a question names ("q2 revenue", "pellucid pilot lane count"), for a clause that asks for its later one
_MEASURE_NAMED_RE = re.compile(r"\b((?:(?!(?:the|a|an|one|had|has|have|but|and)\b)[a-z][\w-]* ){0,2}(?:" + "|".join(
    sorted(QUANTITY_HEADS - {"number", "figure", "value", "version", "total", "amount"})) + r"))\b")


def measure_named(low: str) -> Slot | None:
    """The slot of the first measure the question names, read as "what is the <measure>" would be; None when it names
    none or the reading is no quantity."""
    named = _MEASURE_NAMED_RE.search(low)
    got = slot(f"what is the {named.group(1)}") if named else None
    return got if got is not None and got.kind == "quantity" else None
