"""The wiki's names, as the reader may see them: every title and alias of an entity page (and the title of
a project page), what kind of thing it names, and every other name of the same thing. A question's "Tomek"
is Tomasz Wieczorek; "Which project…" wants the name of a project; "Who…" wants a person or an
organisation, never a product or a place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stigmergy.answer.terms import PROMPT_LABEL_RE, fold

MAX_NAME_WORDS = 5
_WORD_RE = re.compile(r"[\w][\w.\-&']*[\w]|[\w]")


def words(text: str) -> list[str]:
    """Folded words (accents dropped), keeping `eu-west-2` and `4.0` whole."""
    return list(_words(text))


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[str, ...]:
    # Every slot rule reads a line's words again; an answer asks them of the same ~100 lines hundreds of times.
    out = []
    for w in _WORD_RE.findall(PROMPT_LABEL_RE.sub(r"\1", fold(text))):
        w = w.strip(".-'")
        if w.endswith("'s"):
            w = w[:-2]  # "Olly's" is Olly
        if w:
            out.append(w)
    return tuple(out)


@dataclass(frozen=True)
class Entity:
    page: int
    title: str
    kind: str  # person | organisation | product | place | project | … (the page's entity_type)
    names: frozenset[str]  # folded names, each a space-joined word sequence


@dataclass
class Names:
    by_name: dict[str, Entity] = field(default_factory=dict)

    def entity(self, name: str) -> Entity | None:
        return self.by_name.get(" ".join(words(name)))

    def found(self, text: str) -> list[tuple[int, int, Entity]]:
        """(first word, end word, entity) of each name `text` says, longest first, not overlapping."""
        ws = words(text)
        out: list[tuple[int, int, Entity]] = []
        i = 0
        while i < len(ws):
            for n in range(min(MAX_NAME_WORDS, len(ws) - i), 0, -1):
                ent = self.by_name.get(" ".join(ws[i : i + n]))
                if ent is not None:
                    out.append((i, i + n, ent))
                    i += n
                    break
            else:
                i += 1
        return out

    def entities(self, text: str) -> list[Entity]:
        return list({e.page: e for _, _, e in self.found(text)}.values())


def load(store: Any, layers: tuple[str, ...]) -> Names:
    """Every name of the entity and project pages in `layers`; a name two different things share (a first
    name) is kept for neither, since it does not say which one is meant."""
    if not layers:
        return Names()
    names_of: dict[int, set[str]] = {}
    info: dict[int, tuple[str, str]] = {}
    owners: dict[str, set[str]] = {}
    for row in store.name_rows(layers):
        key = " ".join(words(row.name))
        if not key:
            continue
        names_of.setdefault(row.page, set()).add(key)
        info[row.page] = (row.title, row.kind)
        # The same entity under two pages (a restricted layer's copy) is one owner: its title.
        owners.setdefault(key, set()).add(fold(row.title))
    out = Names()
    for pid, keys in names_of.items():
        title, kind = info[pid]
        ent = Entity(pid, title, kind, frozenset(keys))
        for key in keys:
            if len(owners[key]) == 1 and (key not in out.by_name or out.by_name[key].kind == ""):
                out.by_name[key] = ent
    return out


_LABEL_RE = re.compile(r"^[\w ]{1,24}:\s+")
_NAME_ITEM_RE = re.compile(r"(?:[A-ZÀ-Þ][\w'’.-]*\s?){1,4}")


def roster(text: str) -> bool:
    """A line that only lists names ("Priya Raghunathan, Inês Carvalho, Daniel Ferreira, …", "People: …"): three
    or more, each one to four capitalised words."""
    items = [i.strip() for i in re.split(r",\s*|\s+and\s+", _LABEL_RE.sub("", text.strip().rstrip(".")))]
    return len(items) >= 3 and all(_NAME_ITEM_RE.fullmatch(i) for i in items)
