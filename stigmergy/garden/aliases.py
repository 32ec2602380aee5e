"""Aliases learned from the wiki itself, and likely duplicate entities (reported, never merged).

An alias is learned from a link label (`[[Oliver Brandt|Olly]]` teaches "Olly") or an "also known as"
line (`[[Tidemark]], also known as ColdTrace`), when the name looks like a name (capitalised, at most five
words, no digits) and no other page answers to it or could (another entity whose title or alias starts
with it: "Maya" is not learned while there are two Mayas)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.gates.context import readers_allow
from stigmergy.pages.paths import normalise_title, stem_of
from stigmergy.pages.wikilinks import WIKILINK_RE, fold_name, parse_wikilinks
from stigmergy.repo.layout import classify

_AKA_RE = re.compile(
    r"(?:\[\[(?P<target>[^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]|(?P<name>\b[A-Z][\w'’&.-]*(?: [A-Z][\w'’&.-]*){0,4}))"
    r"\s*,?\s*\(?(?:also known as|a\.k\.a\.|aka|formerly known as|formerly)\s+[\"“']?"
    r"(?P<alias>[A-Z][\w'’&.-]*(?: [A-Z][\w'’&.-]*){0,4})"
)
_MAX_WORDS = 5


@dataclass(frozen=True)
class LearnedAlias:
    entity: str  # entity page path
    alias: str
    evidence: str  # "page:line" where it was seen

    def to_dict(self) -> dict[str, str]:
        return {"entity": self.entity, "alias": self.alias, "evidence": self.evidence}


@dataclass(frozen=True)
class MergeProposal:
    page: str
    into: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"page": self.page, "into": self.into, "why": self.why,
                "command": f'stigmergy merge "{self.page}" INTO "{self.into}"'}


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _name_like(text: str) -> bool:
    words = text.split()
    return (
        0 < len(words) <= _MAX_WORDS
        and text[:1].isupper()
        and not any(ch.isdigit() for ch in text)
        and not any(ch in text for ch in "[]|#()`*_<>")
    )


def _taken(snap: Snapshot) -> dict[str, set[str]]:
    """{folded name: pages} of every title, stem and alias in the wiki."""
    out: dict[str, set[str]] = defaultdict(set)
    for rel, page in snap.pages().items():
        for name in (page.title, stem_of(rel), *page.aliases):
            out[fold_name(name)].add(rel)
    return out


def learn_aliases(snap: Snapshot) -> list[LearnedAlias]:
    """New aliases the wiki's own lines attest, at most one owner each, in a stable order."""
    taken = _taken(snap)
    entity_names = {rel: [fold_name(n) for n in (p.title, *p.aliases)] for rel, p in snap.pages().items() if p.type == "entity"}
    seen: dict[str, set[str]] = defaultdict(set)  # folded alias -> entities it was seen for
    evidence: dict[tuple[str, str], tuple[str, str]] = {}
    for rel, page in sorted(snap.pages().items()):
        layer = layer_of(rel)
        for n, line in enumerate(page.body.split("\n"), start=1):
            if "[[" in line:
                for link in parse_wikilinks(line):
                    if link.label:
                        _candidate(snap, link.target, link.label, layer, f"{rel}:{n}", seen, evidence)
            if "known as" in line or "a.k.a" in line or "aka " in line or "formerly" in line:
                for m in _AKA_RE.finditer(line):
                    target = m.group("target") or m.group("name")
                    if m.group("name") and page.type == "entity" and fold_name(m.group("name")) not in entity_names.get(rel, []):
                        continue  # a bare name only counts on its own entity page
                    _candidate(snap, target.strip(), m.group("alias"), layer, f"{rel}:{n}", seen, evidence)
    out = []
    for key, owners in sorted(seen.items()):
        if len(owners) != 1:
            continue
        entity = next(iter(owners))
        # Only pages its layer's readers may all read weigh on an alias: whether a public page learns one
        # must not depend on a board-only name (that would tell everyone the board holds it).
        layer = layer_of(entity)

        def seen_from(page: str, layer: str = layer) -> bool:
            return readers_allow(snap.settings, layer, layer_of(page))

        if any(seen_from(p) for p in taken.get(key, ())):
            continue
        # "Maya" is not an alias while another entity's name starts with it.
        if any(other != entity and seen_from(other) and any(nm == key or nm.startswith(key + " ") for nm in names)
               for other, names in entity_names.items()):
            continue
        alias, where = evidence[(key, entity)]
        out.append(LearnedAlias(entity, alias, where))
    return out


def _candidate(snap: Snapshot, target: str, label: str, layer: str, where: str,
               seen: dict[str, set[str]], evidence: dict[tuple[str, str], tuple[str, str]]) -> None:
    label = normalise_title(WIKILINK_RE.sub("", label))
    if not _name_like(label):
        return
    found = [p for p in snap.resolver.resolve(target, from_layer=layer)
             if (classify(p) or ("", ""))[0] == "entity" and readers_allow(snap.settings, layer, layer_of(p))]
    if len(found) != 1 or layer_of(found[0]) != layer:
        return  # an alias is learned within one layer: a restricted page's words stay out of a public page
    page = snap.page(found[0])
    key = fold_name(label)
    if page is None or not key or key in {fold_name(page.title), *(fold_name(a) for a in page.aliases)}:
        return
    seen[key].add(found[0])
    evidence.setdefault((key, found[0]), (label, where))


def _initials_match(a: str, b: str) -> bool:
    """`J. Okafor` ~ `Jane Okafor`: same last word, and each other word of one is an initial of the other's."""
    wa, wb = fold_name(a).split(), fold_name(b).split()
    if len(wa) < 2 or len(wa) != len(wb) or wa[-1] != wb[-1] or wa == wb:
        return False
    return all(x == y or (len(x) == 1 and y.startswith(x)) or (len(y) == 1 and x.startswith(y))
               for x, y in zip(wa[:-1], wb[:-1], strict=True))


def duplicate_entities(snap: Snapshot) -> list[MergeProposal]:
    """Entity pages that are probably one identity: the same name up to case and accents, initials of the
    same name, or one's title is the other's alias. Only within one layer and one entity type for
    initials. Candidates are bucketed (folded name, last word), so this stays linear in the wiki's size."""
    entities = sorted((rel, p) for rel, p in snap.pages().items() if p.type == "entity")
    by_name: dict[tuple[str, str], list[str]] = defaultdict(list)  # (layer, folded title or alias) -> pages
    by_last: dict[tuple[str, str], list[str]] = defaultdict(list)  # (layer, folded last word) -> people
    titles = {}
    for rel, page in entities:
        layer = layer_of(rel)
        title = fold_name(page.title)
        titles[rel] = title
        by_name[(layer, title)].append(rel)
        if page.entity_type == "person" and title:
            by_last[(layer, title.split()[-1])].append(rel)
    pairs: dict[tuple[str, str], str] = {}
    for rel, page in entities:
        layer = layer_of(rel)
        for other in by_name[(layer, titles[rel])]:
            if other != rel:
                pairs.setdefault(_pair(rel, other), "the same name up to case, accents or punctuation")
        for alias in page.aliases:
            for other in by_name.get((layer, fold_name(alias)), []):
                if other != rel:
                    pairs.setdefault(_pair(rel, other), "one's title is the other's alias")
    for group in by_last.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if _initials_match(titles[a], titles[b]):
                    pairs.setdefault(_pair(a, b), "initials of the same name")
    pages = dict(entities)
    out = []
    for (ra, rb), why in sorted(pairs.items()):
        a_page, b_page = pages[ra], pages[rb]
        # Keep the page more cited; the other one merges into it.
        keep, drop = (ra, rb) if (len(a_page.sources), rb) >= (len(b_page.sources), ra) else (rb, ra)
        out.append(MergeProposal(drop, keep, why))
    return out
