"""The nouns that say what kind of value a question asks for: "which *partner*" a person or a firm, "what *revenue*"
a figure, "which *release*" a version. question.py reads a question's head noun against them; slots.py, which.py and
roles.py read a line's words against the same lists."""

from __future__ import annotations

import re

# A person of no particular post: "the logistics guy" is the head of logistics, "the new customer success person" the
# new manager a line speaks of (ties.speaks_of_role).
ANY_PERSON = frozenset("person persons people guy guys gal lady woman man folks someone".split())
PERSON_HEADS = frozenset(
    "person people persons engineer engineers manager managers lead leads owner owners author authors employee "
    "employees developer developers maintainer maintainers ceo cto cfo coo vp founder founders cofounder "
    "co-founder director head member members colleague colleagues contact sponsor sponsors chair reviewer "
    "reviewers approver signatory partner partners investor investors researcher researchers designer designers "
    "writer writers".split()) | ANY_PERSON
ORG_HEADS = frozenset(
    "customer customers client clients company companies organisation organisations organization "
    "organizations firm firms vendor vendors supplier suppliers carrier "
    "carriers distributor distributors fund funds bank banks provider providers competitor competitors "
    "team teams agency".split())
PLACE_HEADS = frozenset(
    "city cities country countries town place places location locations region regions office offices site "
    "sites venue address building depot depots warehouse street".split())
PROJECT_HEADS = frozenset("project projects initiative programme program".split())
PRODUCT_HEADS = frozenset("product products".split())
DATE_HEADS = frozenset("date day year month week time quarter deadline".split())
# A measure asked by name ("what activation energy") wants a figure of it, not a name; a credit, a refund or a
# deposit is an amount of money
QUANTITY_HEADS = frozenset(
    "percentage percent share proportion fraction number amount price cost size count total rate ratio figure "
    "value version budget revenue burn spend headcount arr mrr fee fees salary capacity timeout interval duration threshold "
    "nps growth churn margin valuation temperature limit quota speed latency delay lag lateness score maximum minimum max min "
    "length weight height population age rent energy power voltage pressure humidity distance depth width volume period window "
    "money credit refund discount penalty bonus deposit".split())
# a measure of size or time: its figure carries a unit ("72 characters", "3 hours"), not the measure's name
EXTENTS = frozenset("length duration width height depth distance period window lateness".split())
VERSION_HEADS = frozenset("version versions release releases".split())
HEAD_VOCAB = (PERSON_HEADS | ORG_HEADS | PLACE_HEADS | PROJECT_HEADS | PRODUCT_HEADS | DATE_HEADS | QUANTITY_HEADS
               | VERSION_HEADS)
MONEY_HEADS = frozenset("price cost costs budget revenue burn fee fees salary valuation arr mrr rent spend money credit "
                        "refund discount penalty bonus deposit".split())


FLAG_WORDS = frozenset(("flag", "flags", "switch", "switches"))
COMMAND_LINE = frozenset(("cli", "command-line", "commandline", "line"))  # "command line option": its last word
# Nouns in -ing, which would otherwise end the head as a verb does ("what text *encoding* does pip assume").
ING_NOUNS = frozenset("encoding encodings setting settings string strings thing things warning warnings heading "
                      "headings mapping mappings listing listings logging naming padding pricing funding packaging "
                      "tooling".split())


# A plural noun of five letters or more, not a word ending in "ss" ("users", "managers"; not "process", "this")
PLURAL_RE = re.compile(r"[a-z]{3,}[^s]s")


def singular_head(word: str) -> str:
    return word[:-1] if word.endswith("s") and word[:-1] in HEAD_VOCAB else word


def kind_of_head(head: str) -> str:
    if head in VERSION_HEADS:
        return "quantity"
    if head in PERSON_HEADS:
        return "person"
    if head in ORG_HEADS:
        return "org"
    if head in PLACE_HEADS:
        return "place"
    if head in PROJECT_HEADS:
        return "project"
    if head in PRODUCT_HEADS:
        return "product"
    if head in DATE_HEADS:
        return "date"
    if head in QUANTITY_HEADS:
        return "quantity"
    if head and head.isalpha() and len(head) > 2:
        return "thing"
    return ""


def rate_unit(head: str, low: str) -> str:
    """ "What is the error rate": a share or a figure per something, not a count ("a rate limit" is a cap)."""
    rate = head in ("rate", "rates") or re.search(r"\b" + re.escape(head) + r" rates?\b", low)
    return "rate" if rate and not re.search(r"\brates? limits?\b", low) else ""


# "what's the reason for …", "what effect does X have": an account of what happens, which no line names as a thing
REASON_HEADS = frozenset("reason reasons reasoning rationale motivation".split())
ACCOUNT_HEADS = REASON_HEADS | frozenset("effect effects impact consequence consequences purpose point difference "
                                        "differences benefit benefits advantage advantages downside downsides "
                                        "drawback drawbacks behaviour behavior outcome".split())
# "default pip cache folder on windows?", "last pip release that still worked on python 2.7?": a value typed with no
# question word, named by what sets it apart
SINGLED_OUT = frozenset("default min max minimum maximum last latest first oldest newest earliest current".split())
# "number of customers in the harbor beta before it went GA", "longest a take-home is allowed to be", "reason M2 went
# live late": a noun phrase typed alone, opened by the measure or the account it asks for, whatever verbs follow it
MEASURE_FIRST = DATE_HEADS | QUANTITY_HEADS | REASON_HEADS | frozenset(
    "longest shortest highest lowest largest smallest biggest fastest slowest most fewest worst-case".split())
