"""The noun a question asks about: what "how many X" counts, the head of "which X", and the words that say which X
("how many *nordic* customers", "the margin on *software subscriptions*"). Split from question.py, which reads the
question's form; this reads the words of the thing it asks for."""

from __future__ import annotations

from stigmergy.answer.function_words import AUX as _AUX
from stigmergy.answer.function_words import DETERMINERS as _DETERMINERS
from stigmergy.answer.function_words import PREPOSITIONS as _PREPOSITIONS
from stigmergy.answer.function_words import VERBISH as _VERBISH
from stigmergy.answer.function_words import WH as _WH
from stigmergy.answer.heads import COMMAND_LINE, FLAG_WORDS, HEAD_VOCAB, ING_NOUNS, PLURAL_RE, singular_head
from stigmergy.answer.shorthand import whole_form
from stigmergy.answer.terms import NUMERALS
from stigmergy.answer.typed import clean as _clean

TIME_NOUNS = frozenset("seconds minutes hours days weeks months years quarters sprints nights".split())
_COUNT_STOP = frozenset(_AUX) | _VERBISH | frozenset(
    "of in for to on at from with by that who which about into over under than as a an the per each every "
    "across among amongst between around through throughout within without after before during since until via "
    "beyond near inside outside against towards toward including excluding "
    "actually really still now currently roughly exactly approximately typically usually altogether".split())


def counted_noun(after: list[str]) -> str:
    """What "how many X" counts: the last word of X before a verb or a preposition ("how many SMS alerts
    were", "how many people on the team", "how many shipment events a week"), "" when none ("how many
    of the 164")."""
    taken: list[str] = []
    for i, w in enumerate(after[:5]):
        lw = w.lower().strip(",.?;:")
        if not lw or lw in _COUNT_STOP or not any(ch.isalpha() for ch in lw):
            break  # a preposition, a verb, or a sign ("how many stores across Sweden & Norway")
        if lw in ("right", "just") and i + 1 < len(after) and after[i + 1].lower().strip(",.?;:") == "now":
            break  # "how many verbosity levels right now": when, not what is counted
        taken.append(lw.split("/")[-1])
    # "how many people fit in the office": a word the rules know as a kind of thing wins over the word after
    # it, which is most likely the verb.
    known = [w for w in taken if singular_head(w) in HEAD_VOCAB]
    if known and known[-1] != taken[-1]:
        return known[-1]
    if len(taken) >= 2 and PLURAL_RE.fullmatch(taken[-2]) and not taken[-1].endswith("s"):
        # "what fraction of users head to the docs": a plural and then a word in its base form is the counted
        # thing and what it does, not a compound ("SMS alerts", "shipment events" end in the plural)
        return taken[-2]
    return taken[-1] if taken else ""


def modifiers(text: str, head: str) -> tuple[list[str], list[str]]:
    """The words the question puts right before the asked X ("how many *nordic* customers", "the *monthly*
    rent"), and those of a phrase right after it ("the margin on *software subscriptions*"): they say which
    X, so a line about X without them is about another X."""
    raw = [w.lower().strip(",.?;:") for w in _clean(text).split()]
    ws = [w.strip("'") for w in raw]
    for i, w in enumerate(ws):
        if w == head or singular_head(w) == head:
            out: list[str] = []
            after: list[str] = []
            for j in range(i - 1, max(-1, i - 3), -1):
                x = ws[j]
                if (not x.isalpha() or x in _COUNT_STOP or x in _DETERMINERS or x in _WH or x in HOW_WORDS
                        or raw[j].endswith(("'", "'s"))):
                    break  # "Lanternfish Labs' revenue", "pip's timeout": whose, not which
                if singular_head(x) not in HEAD_VOCAB:  # "version number": the kind, not which one
                    out.append(x)
            # "the margin on software subscriptions", "the rent for the lisbon office"
            if i + 2 < len(ws) and ws[i + 1] in ("on", "for", "of", "in"):
                j, end = i + 2, i + 4
                while j < min(end, len(ws)):
                    x = ws[j]
                    j += 1
                    if x in _DETERMINERS:
                        continue
                    if x in _AGE_WORDS:
                        end += 1  # "the delay on the old poller": which poller by the asker's time, not the page's word
                        continue
                    if not x.isalpha() or x in _COUNT_STOP or x in _WH or x in _VERBISH:
                        break
                    after.append(x)
            return out, after
    return [], []


# Which of a thing's figures or forms over time: "the most recent share", "the delay on the old poller". The asker's
# word, not one the line must say.
OF_NOW = frozenset("recent latest current newest present".split())
_AGE_WORDS = OF_NOW | frozenset("old new former previous existing".split())
HOW_WORDS = frozenset("many much long large big old often far late early soon".split())


# "what command gives me that": a pronoun after the verb ends the head ("command"), it is no noun of it.
_OBJECTS = frozenset("me us you him them it all any every each".split())


_COUNT_WORDS = frozenset((*NUMERALS[2:], "both"))


def asked_head(after: list[str]) -> str:
    """The head noun of "which X …": "which Beacon G2 component has" -> component, "which pip release added"
    -> release, "which Greywater partner sits on" -> partner (a word the rules know as a kind of thing
    wins over a word that may be the verb)."""
    taken: list[str] = []
    at_verb = False  # the words stopped at a verb ("which hash algorithms *are* too weak"): the last is the noun
    for i, w in enumerate(after[:5]):
        lw = w.lower().strip(",.?;:")
        if lw in ("kind", "sort", "type") and not taken:
            continue
        nxt = after[i + 1].lower().strip(",.?;:") if i + 1 < len(after) else ""
        if not taken and lw.endswith(("ing", "ed")) and nxt.isalpha() and not (
                nxt in _VERBISH or nxt in _PREPOSITIONS or nxt in _DETERMINERS or nxt.endswith(("ed", "ing"))):
            taken.append(lw)  # "which programming language", "which failed jobs": a modifier, not the verb
            continue
        if lw in _COUNT_WORDS and not taken:
            continue  # "which two ways": two of the ways
        if lw in FLAG_WORDS or (lw in ("option", "options") and taken and taken[-1] in COMMAND_LINE):
            return "flag"  # "what cli option tells pip to use a proxy": a command-line option, whatever follows
        if lw in _VERBISH or lw in _PREPOSITIONS or lw in _DETERMINERS or (
                lw.endswith(("ed", "ing")) and lw not in ING_NOUNS) or not lw or lw in _OBJECTS or lw.endswith("n't"):
            # "which hash algos won't pip accept": a negated auxiliary is a verb too
            at_verb = lw in _VERBISH or lw.endswith("n't")
            break
        taken.append(lw)
    # "what temps can a g2 operate in": the short form of a kind the rules know ("temperature")
    taken = [w if singular_head(w) in HEAD_VOCAB or singular_head(whole_form(w)) not in HEAD_VOCAB else whole_form(w)
             for w in taken]
    known = [w for w in taken if singular_head(w) in HEAD_VOCAB]
    if len(known) >= 2 and known[-1] == "number":
        return singular_head(known[-2])  # "what version number": a version
    if known and len(taken) - taken.index(known[-1]) > 2:
        # "which version control systems": two more nouns after the known word make it a modifier of the last
        # one (a single word after it is most likely the verb, "which partner sits on").
        return singular_head(taken[-1])
    if known:
        return singular_head(known[-1])
    if len(taken) >= 2 and taken[-1].endswith("s") and not at_verb and not taken[-2].endswith(("ing", "ed")):
        return taken[-2]  # "which partner sits": most likely the verb ("which meeting rooms": the noun)
    return taken[-1] if taken else ""
