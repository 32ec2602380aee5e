"""Is a line's value tied to what the question asks about? A line may name two things and give a value for
one of them ("Leeds has 30 desks; Lisbon has room for 55 people"), give a role's holder in one clause and
another person in the next ("Hannah stays the contact until the new manager starts"), or give a version of
another product than the one asked ("pip vendors requests since version 20.2"), or be said by a speaker who
is not the one it speaks of ("Priya: the blog post is with marketing"). The slot check (slots.py) asks these
questions of the clause that holds the value, not of the whole line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from stigmergy.answer.heads import ANY_PERSON, PERSON_HEADS
from stigmergy.answer.names import Entity, Names, words
from stigmergy.answer.terms import fold, stem

# Where one statement ends and another begins, inside a line: a sentence end, a dash between clauses, a table
# cell, a contrasting or temporal conjunction ("…, while Lisbon has…", "… until the new manager starts").
_CLAUSE_RE = re.compile(r"[.;!?](?:\s|$)|\s[—–]\s|\s\|\s|,?\s+(?:while|whereas|but|although|though|until|unless|"
                        r"before|after|once|when)\s+", re.I)
# The kinds of entity a value may belong to: the question's place, product, organisation, project or person.
_SUBJECT_KINDS = frozenset(("place", "product", "organisation", "organization", "project", "person"))
_VERSION_WORDS = frozenset(("version", "versions", "release", "releases", "v", "ver"))


def clauses(text: str, fine: bool = False) -> list[str]:
    """The line's clauses; `fine` splits at commas too (a value's nearest name, not a name's apposition)."""
    got = [c for c in _CLAUSE_RE.split(text) if c and c.strip()]
    return [p for c in got for p in re.split(r",\s+", c) if p.strip()] if fine else got


def _whose(ent: Entity, entities: frozenset[int], kinds: frozenset[str], said: frozenset[str]) -> str:
    """ "mine" for one of the question's entities (on whichever page, one per layer, its title is found),
    "theirs" for another entity of the same kind, "" for any other."""
    if ent.page in entities or all(stem(w) in said for w in words(ent.title)):
        return "mine"
    return "theirs" if ent.kind in kinds and ent.kind in _SUBJECT_KINDS else ""


def elsewhere(text: str, context: str, names: Names, entities: frozenset[int], kinds: frozenset[str],
              said: frozenset[str], holds: Callable[[str], bool]) -> bool:
    """The line's value belongs to another place, product, organisation or person than the question's. The
    value belongs to what is named nearest it: in the clause that holds it, else in the line's context (its
    page title and headings: the page's subject), else elsewhere in the line. "The new office has room for 55
    people, … with Leeds on the screen" on the Lisbon office's page is Lisbon's count."""
    if not entities:
        return False

    def naming(t: str) -> tuple[bool, bool]:
        got = {_whose(ent, entities, kinds, said) for _, _, ent in names.found(t)}
        return "mine" in got, "theirs" in got

    def subject(t: str) -> tuple[bool, bool]:
        """The context's first name: its page title's, before its headings and the previous sentence."""
        got = [w for w in (_whose(ent, entities, kinds, said) for _, _, ent in names.found(t)) if w]
        return bool(got) and got[0] == "mine", bool(got) and got[0] == "theirs"

    if not any(naming(text)) and not any(naming(context)):
        return False
    held = [c for c in clauses(text, fine=True) if holds(c)] or [""]
    for clause in held:
        mine, theirs = naming(clause)
        if not mine and not theirs:
            mine, theirs = subject(context)
        if not mine and not theirs:
            mine, theirs = naming(text)
        if mine or not theirs:
            return False
    return True


_AND_OTHER_RE = re.compile(r"\s+and\s+(?=(?:the|a|an|our|their|his|her|its|[\w-]+'s)\s)", re.I)


def role_apart(text: str, says_role: Callable[[str], bool], names_someone: Callable[[str], bool]) -> bool:
    """The line says the role and names a person, never in one clause: the name is not the role's holder."""
    # "Erik Sandberg and Norrland's CFO attended": a role joined to a name by "and" and its own determiner or
    # possessive is a second person ("Maya Okafor, CEO and co-founder" is one).
    if text.lstrip().startswith("|"):
        return False  # "| First aid | Kitchen | Grace Nakamura |": a table row's cells are one record, its holder in it
    parts = [p for c in clauses(text) for p in _AND_OTHER_RE.split(c) if p.strip()]
    if len(parts) < 2 or not says_role(text) or not names_someone(text):
        return False
    # "Marcus Hale — partner at Greywater Ventures": a full name alone, then a dash and its post, is one clause
    # ("Erik Sandberg and Norrland's CFO" are two people; "Hannah — Customer Success Manager" says only a first name)
    named_alone = any(2 <= len(a.split()) <= 4 and names_someone(a) and says_role(b) and re.search(
        re.escape(a.strip()) + r"\s+[—–-]\s", text) for a, b in zip(parts, parts[1:], strict=False))
    return not named_alone and not any(says_role(c) and names_someone(c) for c in parts)


_LINKS = frozenset("since from in as of until before after at with by".split())


def version_tied(product: Iterable[str], text: str, versions: Iterable[re.Match[str]],
                 others: frozenset[str] = frozenset()) -> bool:
    """ "What version of requests": a version of requests stands right after its name ("requests 2.31",
    "requests version 2.31", "requests==2.31") or before "of/for requests"; "since version 20.2" in a line
    about pip vendoring requests is pip's. A line that does not say requests (its heading does) has a
    version of requests unless the version stands after another subject of the question (`others`, stems):
    "generated by pip since version 20.2"."""
    want = {stem(w) for w in product}
    says = any(stem(w) in want for w in words(text))
    for m in versions:
        lead = re.match(r"[a-z]+", m.group(0), re.I)
        named = [lead.group(0)] if lead and lead.group(0).lower() not in _VERSION_WORDS else []
        before = [w for w in words(text[: m.start()]) if w not in _VERSION_WORDS]
        nearest = (named or before[-1:] or [""])[0]
        after = re.match(r"\s+(?:of|for)\s+(?:the\s+)?([\w-]+)", text[m.end() :])
        if stem(nearest.lower()) in want or (after and stem(after.group(1).lower()) in want):
            return True
        if not says:
            near = (named or [w for w in before if w not in _LINKS][-1:] or [""])[0].lower()
            if not (stem(near) in others and not near.endswith(("ed", "ing"))):
                return True
    return False


# "[08:45] Priya Raghunathan: …", "Hannah Lindqvist: introduce …": a speaker or a task's owner, then what they say.
_SPEAKER_RE = re.compile(r"^\s*(?:\[?\d{1,2}:\d{2}\]?\s*)?[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){0,3}\s*:\s+(.*)$")
_THIRD_PERSON = frozenset("the a an our their new next this that".split())


def speaks_of_role(role: str, text: str, names_someone: Callable[[str], bool]) -> bool:
    """The line's only name is its speaker (or a task's owner), and what follows speaks of the role holder in
    the third person without naming them ("introduce the new Nordic customer success manager")."""
    m = _SPEAKER_RE.match(text)
    if not m or len(m.group(1).split()) < 5:
        return False  # "Maya Okafor: CEO" is a name and its role
    rest = m.group(1)
    heads = [w for w in words(role) if w in PERSON_HEADS] or words(role)[-1:]
    # "the new customer success person": a person of any post the line names ("the new … manager")
    said = {stem(h) for h in (PERSON_HEADS if set(heads) <= ANY_PERSON else heads)}
    ws = words(rest)
    spoken = any(stem(w) in said and any(x in _THIRD_PERSON for x in ws[max(0, i - 5) : i])
                 for i, w in enumerate(ws))
    return spoken and not names_someone(rest)


_SPOKEN_OF = frozenset("the a an this that these those it its there here he she they his her their".split())
_FIRST_PERSON_RE = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we've|we're|we'll|us|our)\b", re.I)


def speaker_only(text: str, names_someone: Callable[[str], bool]) -> bool:
    """ "Who wrote the checklist": in "Marta Silva: the checklist is in the shared drive" the only name is the
    speaker's, who speaks of the checklist, not of writing it. A speaker is the doer when they say so in the
    first person ("I wrote it") or the line is their task ("Marta Silva: write the checklist")."""
    m = _SPEAKER_RE.match(text)
    if not m or not m.group(1).split():
        return False
    rest = m.group(1)
    ws = [fold(w) for w in rest.split()]
    # "the checklist is …", "release notes are up …": a statement about things, not a task or what they did
    about = ws[0] in _SPOKEN_OF or any(w in ("is", "are", "was", "were") for w in ws[1:5])
    return (about and not ws[0].endswith("ed") and not _FIRST_PERSON_RE.search(rest)
            and not names_someone(rest))
