"""Counting: what a line may call the counted noun instead ("headcount" is people), and whether a count in a
line counts the asked noun ("room for 55 people") or something else ("two members of the maintainers team")."""

from __future__ import annotations

import re

from stigmergy.answer.heads import PERSON_HEADS, PLURAL_RE
from stigmergy.answer.names import words
from stigmergy.answer.terms import NUMERALS, STOPWORDS, fold, stem
from stigmergy.answer.values import Asked, figures_in
from stigmergy.answer.which import singular

# What a line may call the asked quantity instead ("headcount" is people, "revenue" sales), and the few plain
# synonyms of a qualifier or a question word the words score reads with them (otherwise.same_as): "retention" is
# said by "kept", "ground" by "floor".
SAME_AS = {"headcount": "people staff employees team hire hires",
            "people": "staff employees headcount persons members users respondents participants hires",
            "folks": "people staff employees persons members users respondents participants",
            "staff": "people employees headcount team", "employee": "people staff headcount",
            "response": "answers respondents submissions", "answer": "responses respondents submissions", "revenue": "sales turnover income",
            "price": "cost costs priced pricing fee", "cost": "price costs spend spent fee", "rent": "lease",
            "size": "large big", "limit": "maximum max cap most threshold", "delay": "late latency lag",
            "latency": "delay delayed lag", "lag": "delay delayed latency",
            "duration": "takes lasts", "box": "unit units device devices",
            "fee": "price cost charge", "salary": "pay paid compensation", "budget": "spend allocated",
            "call": "requests request", "client": "customer customers", "customer": "client clients",
            "account": "customer customers client clients",
            "final": "last", "last": "final", "latest": "newest", "newest": "latest",
            # "the first pip release that understood constraints files": "support was added in pip 7.1"
            "first": "added introduced earliest", "earliest": "first added introduced",
            # plain words for what a document says formally ("on the payroll", "max", "disappear", "permanent")
            "payroll": "headcount staff employees", "max": "cap capped maximum limit",
            "maximum": "cap capped max limit", "disappear": "removed retired deleted", "permanent": "standing",
            # a period said by its unit ("worth £410k a year" for "the annual value")
            "annual": "year yearly annually", "yearly": "year annual annually", "monthly": "month",
            "weekly": "week", "daily": "day", "value": "worth valued",
            # shops are stores, a site a location (plain English, either way)
            "store": "shop shops outlet outlets", "shop": "store stores outlet outlets",
            "site": "location locations", "location": "site sites",
            # a shop sells retail; what is retained is kept ("retention period": "kept for 35 days")
            "retail": "shop shops store stores", "retention": "kept keep keeps retained stored",
            # "how high off the ground": "at least 1.5 m above the floor"
            "ground": "floor", "floor": "ground",
            # "which pip release switched the default": "This was changed in pip 10.0"
            "switched": "changed change",
            # "our biggest customer": "our largest customer"; "dropped completely": "No alerts were lost"
            "biggest": "largest", "largest": "biggest", "dropped": "lost", "lost": "dropped"}


def says_head(head: str, text: str) -> bool:
    said = {stem(w) for w in words(text)}
    return stem(head) in said or any(stem(w) in said for w in SAME_AS.get(head, "").split())


NUMBER_WORDS = frozenset(NUMERALS[2:]) | frozenset("thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
                                                    "twenty thirty forty fifty hundred dozen dozens hundreds "
                                                    "thousands".split())


def _kin(head: str) -> set[str]:
    """The stems a line may count the asked noun by: the noun, its singular, and what the wiki calls it instead."""
    return {stem(head), stem(singular(head))} | {stem(w) for w in SAME_AS.get(head, SAME_AS.get(singular(head), "")).split()}


def says_counted(head: str, text: str) -> bool:
    """ "How many X": the line (or its context) speaks of X, or of what the wiki may call X instead."""
    return says_head(head, text) or says_head(singular(head), text)



_APART = frozenset("of for in at from with among than per".split())


def counts_other(head: str, text: str, q: Asked) -> bool:
    """Every count in the line stands before a noun of its own, not the counted one ("two members"). Engineers
    and designers are people: any person noun is a count of "people", "staff" or a headcount."""
    kin = _kin(head)
    if kin & {stem(w) for w in SAME_AS["people"].split() + ["people"]}:
        kin |= {stem(w) for w in PERSON_HEADS}
    counts = {v.split()[0].lstrip("~") for v in figures_in(text, q, "count")}
    ws = [fold(w.strip(",:;()~*—-.!?")) for w in text.split()]
    found = [i for i, w in enumerate(ws) if w in counts or (w in NUMBER_WORDS and w not in q.text.split())]
    return bool(found) and all(i + 1 < len(ws) and ws[i + 1].isalpha() and ws[i + 1] not in STOPWORDS
                               and stem(ws[i + 1]) not in kin for i in found)


_OF_THEM_RE = re.compile(r"(?<![\w.])(\d[\d,]*|[a-z]+) of (?:them|those|these)\b", re.I)


def _modifies_next(word: str, after: str, kin: set[str]) -> bool:
    """A singular word before a plural noun of another kind ("depot managers") names that noun's kind."""
    return word.isalpha() and not word.endswith("s") and bool(PLURAL_RE.fullmatch(after)) and (
        stem(after) not in kin and after not in STOPWORDS)


def count_beside(head: str, text: str, q: Asked) -> bool:
    """A count of the counted noun (or what the wiki calls it instead), in one sentence: right before it with
    no preposition between ("room for 55 people", "seven levels of verbosity"), or after it with nothing
    counted between ("Headcount — Q2 2026: 56"). "Two members of the maintainers team" counts members."""
    kin = _kin(head)
    said = q.text.split()
    clauses = re.split(r"[.;!?](?:\s|$)", text)
    for k, clause in enumerate(clauses):
        them = _OF_THEM_RE.search(clause)
        if them and k and them.group(1) not in said and (
                them.group(1) in {v.split()[0] for v in figures_in(clause, q, "count")} or them.group(1) in NUMBER_WORDS) and any(
                stem(fold(w.strip(",:;()~*—-"))) in kin for c in clauses[:k] for w in c.split()):
            return True  # "G2 units arrived in Leeds … Sam's team shipped 180 of them": the units before
        ws = clause.split()
        # Judged on the whole clause ("47 minutes" is a duration even when the window ends at "47").
        counts = {v.split()[0].lstrip("~") for v in figures_in(clause, q, "count")}
        bare = [fold(w.strip(",:;()~*—-")) for w in ws]
        for i, w in enumerate(bare):
            if stem(w) not in kin:
                continue
            for j in range(max(0, i - 4), min(len(ws), i + 5)):
                if not (ws[j].strip(",:;()~*") in counts or (bare[j] in NUMBER_WORDS and bare[j] not in said)):
                    continue
                if j < i and any(b in _APART for b in bare[j + 1 : i]):
                    continue  # "two members of the maintainers": members are counted
                if j < i and _modifies_next(w, bare[i + 1] if i + 1 < len(bare) else "", kin):
                    # "two depot managers": the counted noun says what kind of managers are counted ("60 Beacon G2
                    # gateways" still counts G2s: a model's name is what the gateways are)
                    continue
                nxt = bare[j + 1] if j + 1 < len(bare) else ""
                if j > i and nxt.isalpha() and nxt not in STOPWORDS and stem(nxt) not in kin:
                    continue  # "maintainers: two members": what follows the count is what it counts
                return True
    return False


def counted_right_before(head: str, text: str, q: Asked) -> bool:
    """A count right before the counted noun, or one word before it ("42 lanes", "three pilot lanes"), not a
    number elsewhere in the sentence ("G2 units arrived … on 5 August, two days late")."""
    kin = _kin(head)
    said = q.text.split()
    ws = [fold(w.strip(",:;()~*—-.!?")) for w in text.split()]
    for i, w in enumerate(ws):
        if stem(w) in kin and any(j >= 0 and (re.fullmatch(r"\d[\d,]*", ws[j]) or ws[j] in NUMBER_WORDS)
                                  and ws[j] not in said for j in (i - 1, i - 2)):
            return True
    return False
