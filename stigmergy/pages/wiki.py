"""Wiki pages (DESIGN §5): note, concept, entity, project. Render and parse side by side; the parser
refuses any page that does not re-render to the same bytes. See docs/pages.md."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.citations import cited_sources
from stigmergy.pages.frontmatter import (
    MAX_FRONT_MATTER_BYTES,
    line_round_trips,
    render_front_matter,
    split_front_matter,
)
from stigmergy.pages.paths import normalise_title
from stigmergy.repo.ids import encode_ulid
from stigmergy.repo.layout import PAGE_TYPES

STATUSES = ("seed", "developing", "mature", "evergreen")
ENTITY_TYPES = ("person", "organisation", "product", "place", "other")
PAGE_ID_RE = re.compile(r"^pg_[0-9A-HJKMNP-TV-Z]{26}$")
CAPTURE_ID_RE = re.compile(r"^cap_[0-9A-HJKMNP-TV-Z]{26}$")
TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_KEYS = ("id", "type", "title", "status", "created", "updated", "layer", "entities", "sources")
_ENTITY_KEYS = ("entity_type", "aliases")
# Optional, last, set by a person: how fast readers' confirmations of the page fade (docs/trust.md).
DECAY_KEY = "decay"
DECAY_CLASSES = ("ephemeral", "stable", "permanent")
PLACEHOLDERS = frozenset({"todo", "tbd", "tbc", "lorem ipsum", "...", "…", "placeholder", "fixme", "xxx", "n/a", "-"})


def derived_ulid(timestamp: str, seed: str) -> str:
    """A ULID whose time part is `timestamp` and whose random part is a hash of `seed`.

    Plans must be reproducible byte for byte, so ids come from the operation, never from the clock."""
    if not TIMESTAMP_RE.match(timestamp):
        raise ValueError(f"timestamp {timestamp!r} is not UTC YYYY-MM-DDTHH:MM:SSZ")
    ms = _epoch_ms(timestamp)
    rand = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:10], "big")
    return encode_ulid(ms, rand)


def _epoch_ms(timestamp: str) -> int:
    from calendar import timegm
    from time import strptime

    return timegm(strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ")) * 1000


def new_page_id(timestamp: str, seed: str) -> str:
    return f"pg_{derived_ulid(timestamp, seed)}"


@dataclass(frozen=True)
class WikiPage:
    id: str
    type: str
    title: str
    status: str
    created: str
    updated: str
    layer: str
    body: str  # starts with `# Title`
    entities: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    entity_type: str | None = None
    aliases: tuple[str, ...] = field(default=())
    decay: str | None = None  # ephemeral | stable | permanent; None: the page kind's class

    def front_matter(self) -> dict[str, Any]:
        return _meta(self.fields())

    def fields(self) -> tuple[Any, ...]:
        """What the front matter is made of, in its order (every field but the body)."""
        return (self.id, self.type, self.title, self.status, self.created, self.updated, self.layer,
                self.entities, self.sources, self.entity_type, self.aliases, self.decay)

    @property
    def body_first_line(self) -> int:
        """1-based file line number of the body's first line (the H1)."""
        return render_front_matter(self.front_matter()).count("\n") + 1

    def with_body(self, body: str, relpath: str) -> WikiPage:
        """This page with a new body and `sources` recomputed from the body's citations."""
        return replace(self, body=body, sources=tuple(cited_sources(body, relpath)))


def h1(title: str) -> str:
    return f"# {normalise_title(title)}"


def render_wiki_page(page: WikiPage) -> str:
    # Exactly one trailing newline: trailing blank lines would be invisible non-canonical bytes.
    body = page.body.rstrip("\n") + "\n"
    return _front(page) + body


def _front(page: WikiPage) -> str:
    # The front matter is a pure function of the page's fields but its body: a page rendered once and then
    # parsed (the parse re-renders to check canonical form) renders it once. A recompile's curation replay
    # renders each relinked page and parses it again on the next entry.
    fields = page.fields()
    try:
        return _front_cached(fields)
    except TypeError:  # a field that is not hashable (a list where a tuple belongs): rendered as it is
        return render_front_matter(page.front_matter())


@lru_cache(maxsize=4096)
def _front_cached(fields: tuple[Any, ...]) -> str:
    return render_front_matter(_meta(fields))


def _meta(fields: tuple[Any, ...]) -> dict[str, Any]:
    pid, ptype, title, status, created, updated, layer, entities, sources, entity_type, aliases, decay = fields
    meta: dict[str, Any] = {
        "id": pid,
        "type": ptype,
        "title": title,
        "status": status,
        "created": created,
        "updated": updated,
        "layer": layer,
        "entities": list(entities),
        "sources": list(sources),
    }
    if ptype == "entity":
        meta["entity_type"] = entity_type
        meta["aliases"] = list(aliases)
    if decay is not None:
        meta[DECAY_KEY] = decay
    return meta


def _strings(meta: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = meta.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def parse_wiki_page(text: str, relpath: str | None = None) -> WikiPage:
    """Parse a wiki page strictly: known keys in canonical order, valid values, `# Title` first, and the
    page must re-render byte for byte. `sources` is checked against the body's citations by the gates."""
    page, error = _parse_cached(text, relpath)
    if page is None:
        raise ContractError(error or "not a wiki page")
    return page


@lru_cache(maxsize=2048)
def _parse_cached(text: str, relpath: str | None) -> tuple[WikiPage | None, str | None]:
    # The same page text is parsed by the planner, by the gates for the page on disk, and again as the
    # plan's new text (which is the next plan's page on disk); WikiPage is frozen, so it is shared.
    try:
        return _parse(text, relpath), None
    except ContractError as exc:
        return None, exc.message


def _parse(text: str, relpath: str | None) -> WikiPage:
    where = relpath or "wiki page"
    meta, body, _ = split_front_matter(text)
    ptype = meta.get("type")
    if ptype not in PAGE_TYPES:
        raise ContractError(f"{where}: type must be one of {list(PAGE_TYPES)}")
    expected = _KEYS + (_ENTITY_KEYS if ptype == "entity" else ()) + ((DECAY_KEY,) if DECAY_KEY in meta else ())
    if tuple(meta) != expected:
        raise ContractError(f"{where}: front matter keys must be exactly {list(expected)} in that order"
                            f" ({DECAY_KEY!r}, when present, last)")
    if DECAY_KEY in meta and meta[DECAY_KEY] not in DECAY_CLASSES:
        raise ContractError(f"{where}: {DECAY_KEY} must be one of {list(DECAY_CLASSES)}")
    for key in ("id", "title", "status", "created", "updated", "layer"):
        if not isinstance(meta[key], str):
            raise ContractError(f"{where}: {key} must be a string")
    if not PAGE_ID_RE.match(meta["id"]):
        raise ContractError(f"{where}: id {meta['id']!r} is not a page id (pg_ + 26-character ULID)")
    if meta["status"] not in STATUSES:
        raise ContractError(f"{where}: status must be one of {list(STATUSES)}")
    for key in ("created", "updated"):
        if not TIMESTAMP_RE.match(meta[key]):
            raise ContractError(f"{where}: {key} must be UTC YYYY-MM-DDTHH:MM:SSZ")
    title = meta["title"]
    if not title.strip() or normalise_title(title) != title:
        raise ContractError(f"{where}: title must be one non-empty line of single-spaced NFC text")
    sources = _strings(meta, "sources", where)
    if list(sources) != sorted(set(sources)) or not all(CAPTURE_ID_RE.match(s) for s in sources):
        raise ContractError(f"{where}: sources must be sorted, unique capture ids")
    entity_type = None
    aliases: tuple[str, ...] = ()
    if ptype == "entity":
        entity_type = meta["entity_type"]
        if entity_type not in ENTITY_TYPES:
            raise ContractError(f"{where}: entity_type must be one of {list(ENTITY_TYPES)}")
        aliases = _strings(meta, "aliases", where)
    if not (body == h1(title) + "\n" or body.startswith(h1(title) + "\n")):
        raise ContractError(f"{where}: body must start with '# {title}'")
    page = WikiPage(
        id=meta["id"], type=ptype, title=title, status=meta["status"], created=meta["created"],
        updated=meta["updated"], layer=meta["layer"], body=body, entities=_strings(meta, "entities", where),
        sources=sources, entity_type=entity_type, aliases=aliases, decay=meta.get(DECAY_KEY),
    )
    if render_wiki_page(page) != text:
        raise ContractError(f"{where}: not in canonical form (front matter or trailing newline differ)")
    return page


def parses_back(page: WikiPage) -> bool:
    """True only where `parse_wiki_page(render_wiki_page(page))` is certain to return a page equal to `page`,
    so code that rendered `page` may use it as that text's parse (garden/snapshot.py `Snapshot.render`; a
    recompile's curation replay rewrites hundreds of pages, and each was parsed again by the next entry).
    Each check is one `_parse` makes, on the fields instead of on loaded YAML; the YAML is covered by
    `line_round_trips` for every value (the fast renderer writes it, the fast loader reads it back). False
    is no verdict: the text is parsed as before. tests/test_pages_contracts.py compares it with the parse."""
    strings = (page.id, page.type, page.title, page.status, page.created, page.updated, page.layer)
    lists = (page.entities, page.sources, page.aliases)
    if not all(type(v) is str for v in strings) or not all(type(v) is tuple and {*map(type, v)} <= {str} for v in lists):
        return False  # exact types: the cached checks below take an equal tuple of str subclasses for the same
    if page.type not in PAGE_TYPES or page.status not in STATUSES or not PAGE_ID_RE.fullmatch(page.id):
        return False
    if not (TIMESTAMP_RE.fullmatch(page.created) and TIMESTAMP_RE.fullmatch(page.updated)):
        return False
    if not page.title.strip() or normalise_title(page.title) != page.title:
        return False
    if page.decay is not None and page.decay not in DECAY_CLASSES:
        return False
    if not _sources_parse_back(page.sources):
        return False
    if page.type == "entity":
        if page.entity_type not in ENTITY_TYPES:
            return False
    elif page.entity_type is not None or page.aliases:  # not written for other pages: parsed as None and ()
        return False
    body, head = page.body, h1(page.title)
    if type(body) is not str or body.rstrip("\n") + "\n" != body or not (body == head + "\n" or body.startswith(head + "\n")):
        return False
    values = [*strings, page.entity_type] if page.type == "entity" else list(strings)
    values += [page.decay] if page.decay is not None else []
    if not all(map(line_round_trips, values)) or not _lines_round_trip(page.entities):
        return False
    if not _lines_round_trip(page.aliases):
        return False
    return len(_front(page)) < MAX_FRONT_MATTER_BYTES


# A page's sources, entities and aliases are the same tuples on every rewrite of it: checked once each.
@lru_cache(maxsize=4096)
def _sources_parse_back(sources: tuple[str, ...]) -> bool:
    return list(sources) == sorted(set(sources)) and all(
        CAPTURE_ID_RE.fullmatch(s) is not None and line_round_trips(s) for s in sources)


@lru_cache(maxsize=4096)
def _lines_round_trip(values: tuple[str, ...]) -> bool:
    return all(map(line_round_trips, values))


def content_lines(body: str) -> list[str]:
    """Body lines after the H1 that say something (not blank, not headings)."""
    return [ln for ln in body.split("\n")[1:] if ln.strip() and not ln.lstrip().startswith("#")]


# A page's lead (docs/planning.md): code writes it after the title on each filing; it summarises the body.
LEAD_START = "<!-- stigmergy:lead -->"
LEAD_END = "<!-- /stigmergy:lead -->"


def is_placeholder(body: str) -> bool:
    """True for a body that is only its H1 (and a lead, which only summarises a body), or only placeholder
    words ("TODO", "TBD", "lorem ipsum", "...")."""
    # content_lines, lazily: a real page answers on its first content line, so a long page is not
    # walked to the end. No content line at all is a placeholder too.
    in_lead = False
    for ln in body.split("\n")[1:]:
        if ln == LEAD_START or in_lead:
            in_lead = ln != LEAD_END
            continue
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        word = _PLACEHOLDER_PREFIX.sub("", ln).strip().strip(".:!").strip().lower() or "..."
        if not (word in PLACEHOLDERS or word.startswith("lorem ipsum")):
            return False
    return True


_PLACEHOLDER_PREFIX = re.compile(r"^[\s>*+\-\d.)]*")
