"""Who holds a post: the titles a line gives a person ("CTO", "Head of Logistics", "SRE lead"), whether a line says
the post a question asks about ("who is the head of marketing"), and who a person the question names is ("who is
tomek": their other name, their post). slots.py asks these for a *who* slot."""

from __future__ import annotations

import re
from collections.abc import Callable

from stigmergy.answer.counts import says_head
from stigmergy.answer.heads import PERSON_HEADS
from stigmergy.answer.names import Names, words
from stigmergy.answer.terms import STOPWORDS, spelled_out, stem
from stigmergy.answer.values import Asked
from stigmergy.answer.which import VAGUE

# The titles of a post a person holds: "CTO", "Head of Logistics", "SRE lead", "customer success manager"
# (select.posts reads the same words as what says the question's "role" or "job").
TITLE_WORDS = (
    "chief founder cofounder co-founder chair chairman chairwoman chairperson president director manager lead engineer "
    "developer maintainer designer researcher analyst accountant officer administrator architect consultant advisor "
    "adviser intern recruiter scientist specialist coordinator owner sponsor editor secretary treasurer controller "
    "counsel lawyer technician executive partner").split()
TITLE_ACRONYMS = "ceo cto cfo coo cpo cio cmo cro cso cdo cco vp svp evp sre pm".split()
_TITLE_RE = re.compile(r"\b(?:head of|" + "|".join(map(re.escape, TITLE_WORDS)) + r")s?\b", re.I)
_TITLE_ACRONYM_RE = re.compile(r"\b(?:" + "|".join(a.upper() for a in TITLE_ACRONYMS) + r")\b")


def titles(text: str) -> list[re.Match[str]]:
    return [*_TITLE_RE.finditer(text), *_TITLE_ACRONYM_RE.finditer(text)]


_FILLER = frozenset("exactly actually really again even".split())
WHO_IS_RE = re.compile(r"^\W*who(?:'s| is| was| are| were)\s+([^-—–?]+)", re.I)  # up to an aside after a dash


def only_names(text: str, names: Names) -> bool:
    """Whether `text` says nothing but the names of people the wiki knows ("tomek exactly")."""
    ws = [w for w in words(text) if w not in _FILLER]
    found = names.found(" ".join(ws))
    return bool(ws) and all(e.kind == "person" for _, _, e in found) and sum(b - a for a, b, _ in found) == len(ws)


def identifies(text: str, names: Names, q: Asked) -> bool:
    """ "who is tomek": the line names the person the question names by another of their names ("Tomasz
    Wieczorek"), or gives their post beside the name ("Tomek, CTO")."""
    ws = words(text)
    said = [" ".join(ws[a:b]) for a, b, e in names.found(text) if e.page in q.entities and e.kind == "person"]
    return bool(said) and (bool(titles(text)) or any(n not in q.text for n in said))


def says_subject(subject: str, text: str, names: Names) -> bool:
    """The line names the person a role question asks about: their words, or any name of theirs the wiki
    knows ("Tomek" is said by "Tomasz Wieczorek")."""
    said = {stem(w) for w in words(text)}
    if {stem(w) for w in words(subject) if w not in STOPWORDS} <= said:
        return True
    ent = names.entity(subject)
    return ent is not None and any(e.page == ent.page for e in names.entities(text))



def only_owner(subject: str, text: str, names: Names) -> bool:
    """Every time the line names the person it names them as an owner ("A firmware engineer for Samuel Achterberg's
    team"): the title the line gives is someone else's."""
    ent = names.entity(subject)
    forms = {" ".join(words(subject))} | (set(ent.names) if ent is not None else set())
    said = [m for f in forms if f for m in re.finditer(r"(?<!\w)" + r"\W+".join(map(re.escape, f.split())) + r"(?!\w)",
                                                         text, re.I)]
    return bool(said) and all(re.match(r"['’]s?\b", text[m.end():]) for m in said)


def others_post(subject: str, text: str, names: Names) -> bool:
    """Every post the line gives belongs to another person the wiki knows ("what's rory's job": "Prepared by Leila
    Haddad (Head of People) with Rory MacAllister" gives Leila's): a title is the post of the nearest person named
    before it, or after it where none is."""
    ent = names.entity(subject)
    if ent is None:
        return False
    people = [(a, b, e) for a, b, e in names.found(text) if e.kind == "person"]
    owners = []
    for m in titles(text):
        at = len(words(text[: m.start()]))
        before = [e for _, b, e in people if b <= at]
        after = [e for a, _, e in people if a >= at]
        owners.append(before[-1] if before else after[0] if after else None)
    return bool(owners) and all(o is not None and o.page != ent.page for o in owners)


# A post given beside a name: "Marcus Hale — partner at …", "Aoife Brennan, Quality Director", "Erik Sandberg (Head of"
_POST_AFTER_RE = re.compile(r"\s*(?:—|–|-|,|\(|is|was)\s*(?:the |our |their |a |an )?((?:[\w-]+\s+){0,2}[\w-]+)")


def posted(name: str, text: str) -> bool:
    """The line gives `name` a post right after it ("Marcus Hale — partner at Greywater Ventures")."""
    at = text.find(name)
    after = _POST_AFTER_RE.match(text, at + len(name)) if at >= 0 else None
    return after is not None and bool(titles(after.group(1)))


def says_role(role: str, text: str) -> bool:
    """ "Who is the head of marketing": the line (or its context) says the role's own words (marketing);
    a role of person words only ("the CTO") is said when one of them is."""
    said = {stem(w) for w in words(text)}
    whose, _, function = role.rpartition("'s ")
    if whose:
        # "norrland fresh's CFO": the owner names whose role, the rest which role; a line that says Norrland
        # Fresh and no CFO speaks of someone else there.
        return all(stem(w) in said for w in words(whose) if w not in STOPWORDS) and says_role(function, text)
    own = [w for w in words(role) if w not in STOPWORDS and w not in VAGUE]
    qualifiers = [w for w in own if w not in PERSON_HEADS]
    typed = {w.casefold(): w for w in role.split() if w.isupper()}  # an acronym the asker typed ("CSM")
    if qualifiers:
        return all(stem(w) in said or (w in typed and spelled_out(typed[w], text)) for w in qualifiers)
    return not own or any(says_head(w, text) for w in own)


def role_head(role: str) -> str:
    """The person noun of a role ("head" of "head of logistics", "lead" of "Oslo support lead")."""
    ws = words(role)
    return next((w for w in ws if w in PERSON_HEADS), ws[-1] if ws else "")


def says_role_here(role: str, line: str) -> Callable[[str], bool]:
    """Whether a clause of `line` says the role as the line does: the role's words the line says, all of them
    (the page title may say the rest: "Norrland's CFO" on the Norrland Fresh page says "norrland fresh's CFO")."""
    line_stems = {stem(w) for w in words(line)}
    own = [stem(w) for w in words(role) if w not in STOPWORDS and stem(w) in line_stems]
    if not own:
        return lambda t: says_role(role, t)
    return lambda t: all(x in {stem(w) for w in words(t)} for x in own)
