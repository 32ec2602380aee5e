"""Whom a question's pronoun stands for. "sam in the leeds lab - whats his official title" asks Sam's post, and
"sending a calendar invite to tomek, what's his full surname?" asks Tomek's other name: the parser (question.py)
keeps the pronoun as the slot's subject, and the wiki's names say who it is. "what does Olly actually do here"
asks the post of someone the wiki knows, not what a word means. And "norrland renewal — what day did they sign, and
what's the total contract value?" asks both of Norrland's renewal."""

from __future__ import annotations

import re
from dataclasses import replace

from stigmergy.answer.function_words import FRAME_OPENERS, WH
from stigmergy.answer.names import Names, words
from stigmergy.answer.question import PERSON_FIRST, TYPED_APART, WORKS_AT, Part, Slot
from stigmergy.answer.terms import PERSONAL
from stigmergy.answer.what_forms import NAME_QUALIFIERS

PRONOUNS = PERSONAL
# "his full name", "her surname": another name of someone the asker knows by one
_NAME_KIND_RE = re.compile(rf"\b(?:(?:{NAME_QUALIFIERS}) name|surname)\b", re.I)
# "what does Olly actually do": the words around the name that are no part of it
_HEDGES_RE = re.compile(r"\b(?:actually|really|exactly|even|here|there|all day|for (?:us|a living))\b", re.I)


def resolved(part: Part, names: Names) -> Part:
    """`part`, a pronoun subject replaced by the person the question names (as typed), and a question of what a
    person "does" read as a question of their post."""
    s = part.slot
    if s.kind in ("role", "alias") and s.subject.lower() in PRONOUNS:
        who = _person(part.text, names)
        if not who and s.kind == "alias" and not _NAME_KIND_RE.search(part.text):
            # "Pellucid's QD, what's her name": no one named and no other name asked ("his full name" is of someone
            # the asker knows by one), so the name is of whoever holds the post
            return replace(part, slot=Slot("person"))
        return replace(part, slot=replace(s, subject=who))
    if s.kind == "definition" and s.subject:
        who = " ".join(_HEDGES_RE.sub(" ", s.subject).split())
        if who.lower() in PRONOUNS:
            # "saw 'Olly' in the team directory, what does he actually do here?"
            who = _person(part.text, names)
            return replace(part, slot=Slot("role", subject=who)) if who else part
        ent = names.entity(who) if who else None
        if ent is not None and ent.kind == "person":
            return replace(part, slot=Slot("role", subject=who))
    return part


def _person(text: str, names: Names) -> str:
    """The first person `text` names, as it names them ("tomek"); "" when it names none, so that any line that
    gives a post or another name may answer."""
    ws = words(text)
    known = next((" ".join(ws[i:j]) for i, j, e in names.found(text) if e.kind == "person"), "")
    if known:
        return known
    # "erik at norrland, what's his title": a person the wiki has no page for, named before where they work
    at = _WHO_AT_RE.match(text)
    return at.group("x") if at else ""


# A name typed before where someone works, then the question: "erik at norrland, …", "sam from hardware - …"
_WHO_AT_RE = re.compile(r"^\W*" + PERSON_FIRST + WORKS_AT + TYPED_APART, re.I)


# A topic typed before a colon or a dash and the first question ("norrland renewal — what day …", "lisbon office:
# what are the rooms called …"); a frame ("on a linux box: …") is none.
_TOPIC_RE = re.compile(r"^(?!(?:" + "|".join(FRAME_OPENERS) + r")\b)([^:?—–]{2,40}?)(?::|\s[—–-])\s+(?=(?:"
                       + "|".join(WH) + r")\b)", re.I)


def topic_carried(asked: list[Part], names: Names) -> list[Part]:
    """Later parts of no subject of their own (no pronoun carried one) asked about the topic typed before the first
    question, where the topic names something the wiki knows ("norrland renewal", "lisbon office") and no figure:
    "what's the total contract value" is Norrland's, and a line about Pellucid's pilot answers another question. A
    topic of plain words ("bit of history: …", "pip download for a different platform: …") or with a figure ("pip
    20.2 - how did you opt in, and in which release did the old resolver stop being supported") says how the asker
    came to the question, not what every part is about."""
    topic = _TOPIC_RE.match(asked[0].text) if len(asked) > 1 else None
    said = topic.group(1).strip() if topic else ""
    if not said or any(ch.isdigit() for ch in said) or not names.found(said):
        return asked
    return [asked[0], *(replace(p, text=f"{said}: {p.text}", carried=said) if not p.carried and not p.text.startswith(
        said) else p for p in asked[1:])]
