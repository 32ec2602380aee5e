"""The post a *who* question asks about: "who is the head of marketing" asks for whoever is head of marketing, "who
is Tomek" names someone and asks for no post (slots.py checks a line says the post: roles.says_role)."""

from __future__ import annotations

import re

from stigmergy.answer.function_words import DETERMINERS as _DETERMINERS
from stigmergy.answer.function_words import VERBISH as _VERBISH
from stigmergy.answer.heads import PERSON_HEADS
from stigmergy.answer.typed import clean as _clean

# "who is the quality director at X", "who was the leeds backup for on-call": the role the person holds.
_ROLE_OPEN_RE = re.compile(r"^(?:who|whom)(?:'s| is| was| are| were| will be)\s+(?:the |our |their |its |his |her |"
                           r"[\w-]+'s )?(?:new |current |actual |real |present )?(.*)$", re.I)
# "Who did we hire as the Leeds account exec": the role the hire fills is asked as plainly as "who is the …".
_ROLE_AS_RE = re.compile(r"^(?:who|whom) (?:did|do|does|have|has|had|will) (?:we|you|they|the company|the team|\w+) "
                         r"(?:hire|hired|appoint|appointed|name|named|pick|picked|choose|chosen|promote|promoted|"
                         r"bring in|brought in|take on|taken on|recruit|recruited) as (?:the |a |an |our |their |its )?"
                         r"(?:new )?(.*)$", re.I)
_ROLE_STOP = frozenset("and or at for on in over from with to who that behind when during since by as now these days "
                       "today currently".split())
# A pronoun typed in lower case starts a clause about the post ("the partner *we* deal with there"); "IT" is a post's.
_PRONOUNS = frozenset("we i I you they he she it".split())


# What someone in a post is doing, after the post: "the new CSM *starting* in November".
_DOING = frozenset("starting joining leaving arriving moving replacing covering coming".split())


def role(text: str) -> str:
    """The role a *who* part asks about ("head of marketing", "quality director", "leeds backup"), "" when
    it asks who did something ("who led it", "who pulled the plug") or names someone ("who is Tomek")."""
    m = _ROLE_OPEN_RE.match(_clean(text).rstrip(" ?")) or _ROLE_AS_RE.match(_clean(text).rstrip(" ?"))
    if not m:
        return ""
    taken: list[str] = []
    for w in m.group(1).split()[:5]:
        lw = w.lower().strip(",.?;:")
        if not lw or lw in _ROLE_STOP or lw in _VERBISH or lw in _DETERMINERS or lw in ("-", "—", "–") or (
                w.strip(",.?;:") in _PRONOUNS):
            break  # "who is tomek exactly - full name": the dash starts an aside
        if taken and lw in _DOING:
            break  # "the new nordic CSM starting in november": the post ends before what they are doing
        if taken and taken[-1].lower() == "of" and w[:1].isupper():
            taken.pop()  # "the CEO of Lanternfish": the organisation, not the role
            break
        if lw == "of" and not (taken and taken[-1].lower() in PERSON_HEADS):
            break  # "head of marketing" is a role; "the lead of the project" stops at "of"
        taken.append(w.strip(",.?;:"))
        if w.endswith((",", ";", ":")):
            break
    if not taken or taken[-1].lower() == "of":
        return ""
    # A post typed as an acronym ("the new nordic CSM") stays in capitals: a line may spell it out.
    acronym = [w.isupper() and 2 <= len(w) <= 5 and w.isalpha() for w in taken]
    if any(w[:1].isupper() and not a for w, a in zip(taken, acronym, strict=True)) and not any(
            w.lower() in PERSON_HEADS for w in taken):
        return ""  # a name ("who is Tomek"), not a role
    return " ".join(w if a else w.lower() for w, a in zip(taken, acronym, strict=True))
