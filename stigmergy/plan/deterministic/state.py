"""The state of one deterministic filing: what it reads (the context, the source's statements, the
layer's catalogue and names), what it finds along the way (entities, concepts, projects, key-line scores)
and what it builds (mutations, alias and contradiction proposals). The filing's steps are plain
functions over it: orchestration in `planner`, page bodies in `page_bodies`, contradictions in
`contradiction_assembly`; this module sits below all three so none of them imports another's state.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.source import SourcePage
from stigmergy.plan.catalogue import Catalogue, catalogue
from stigmergy.plan.context import PlannerContext, SourceDoc
from stigmergy.plan.deterministic.analysis import NameIndex, Unit, split_units
from stigmergy.plan.deterministic.concepts import Definition, definitions
from stigmergy.plan.deterministic.facts import SourceReading
from stigmergy.plan.schema import AliasProposal, ContradictionProposal, CreatePage, UpdatePage


@dataclass
class Entity:
    """An entity this filing speaks of: known (its page exists) or new (its page is created)."""

    path: str
    title: str
    entity_type: str
    surfaces: set[str]
    units: list[int]
    new: bool
    evidence: str
    aliases: list[str] = field(default_factory=list)  # for a new page
    participant_lines: list[int] = field(default_factory=list)
    surfaces_local: set[str] | None = None  # its names within this source (a first name too), once found


@dataclass
class Filing:
    """One filing: analysis of the source, then the pages, in a fixed order."""

    ctx: PlannerContext
    src: SourceDoc
    page: SourcePage
    layer: str
    cid: str
    date: str
    cat: Catalogue
    names: NameIndex
    heads: dict[str, Any]
    all_stems: dict[str, str]
    units: list[Unit]
    headings: list[tuple[int, str, int]]
    # What the filing builds.
    mutations: list[CreatePage | UpdatePage] = field(default_factory=list)
    aliases: list[AliasProposal] = field(default_factory=list)
    contradictions: list[ContradictionProposal] = field(default_factory=list)
    planned_stems: dict[str, str] = field(default_factory=dict)  # casefolded stem -> path created in this plan
    pending_aliases: list[tuple[str, str]] = field(default_factory=list)
    # What it finds along the way, set by the step that finds it.
    listed: list[str] = field(default_factory=list)
    entities: dict[str, Entity] = field(default_factory=dict)
    project_names: set[str] = field(default_factory=set)
    project_stems: set[str] = field(default_factory=set)
    project_paths: dict[str, str] = field(default_factory=dict)
    concept_paths: dict[str, str] = field(default_factory=dict)
    scores: dict[int, float] = field(default_factory=dict)
    conflicts_dropped: int = 0  # new contradictions over the per-page cap, named in the summary
    # Read once, on first use.
    pages_read: dict[str, tuple[dict[str, Any], str] | None] = field(default_factory=dict)
    shorts: dict[str, str] | None = None
    kinds: dict[str, str] | None = None
    public: dict[str, tuple[str, str]] | None = None
    folded: dict[str, tuple[str, str]] | None = None
    slugs: dict[str, str] | None = None  # slug -> known name, for front matter that names an entity by slug
    own_reading: SourceReading | None = None
    recorded_cache: frozenset[tuple[str, int, int]] | None = None
    defs: list[Definition] | None = None  # the terms the source defines (source_definitions)
    added_stems: list[str] = field(default_factory=list)  # pages this plan adds to `all_stems`

    @classmethod
    def start(cls, ctx: PlannerContext) -> Filing:
        page = ctx.source.page
        cat = ctx.catalogue
        if cat is None or cat.layer != page.layer:
            cat = catalogue(ctx.root, page.layer)
        units, headings = split_units(page.text.split("\n"), page.body_start_line)
        return cls(
            ctx=ctx,
            src=ctx.source,
            page=page,
            layer=page.layer,
            cid=page.id,
            date=page.occurred_at[:10],
            cat=cat,
            names=NameIndex(cat.names()),
            heads={e.path: e for e in cat.entities()},
            all_stems=cat.all_stems(),
            units=units,
            headings=headings,
        )


# -- reading pages the plan will touch ------------------------------------------------------------

def source_definitions(st: Filing) -> list[Definition]:
    """The terms the source defines, read once a filing: the entities (a spelled-out acronym is a term) and the
    concepts both ask."""
    if st.defs is None:
        st.defs = definitions(st.units)
    return st.defs


def existing(st: Filing, path: str) -> tuple[dict[str, Any], str] | None:
    """(front matter, body) of a page on disk: from the context when it was selected, else read
    directly — an update is never written blind."""
    if path not in st.pages_read:
        cand = st.ctx.candidate(path)
        if cand is not None:
            st.pages_read[path] = (cand.meta, cand.body)
        else:
            try:
                text = (st.ctx.root / path).read_text(encoding="utf-8")
                meta, body, _ = split_front_matter(text)
                st.pages_read[path] = (meta, body)
            except (OSError, UnicodeDecodeError, ContractError):
                st.pages_read[path] = None
    return st.pages_read[path]


def already_cites(st: Filing, path: str) -> bool:
    got = existing(st, path)
    return got is not None and st.cid in (got[0].get("sources") or [])


# Per process: (root, path, text) -> (the file's stamp, how often `text` occurs in it). Each filing that
# touches a page counts the open blocks on its newest archive pages; those pages change rarely, and
# reading each of them on every filing made a busy page's filing cost grow with its archive. A stamp
# (inode, mtime, ctime, size) that moved reads the file again; every write of filing replaces the inode.
_COUNTS: dict[tuple[str, str, str], tuple[tuple[int, int, int, int], int]] = {}
_COUNTS_MAX = 4096


def count_on_disk(root: Path, path: str, text: str) -> int:
    """How often `text` occurs in the file `root/path` (0 when it cannot be read as UTF-8)."""
    full = os.path.join(root, path)
    try:
        st = os.stat(full)
    except OSError:
        return 0
    stamp = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)
    key = (str(root), path, text)
    got = _COUNTS.get(key)
    if got is not None and got[0] == stamp:
        return got[1]
    try:
        with open(full, encoding="utf-8") as fh:
            n = fh.read().count(text)
    except (OSError, UnicodeDecodeError):
        n = 0
    if len(_COUNTS) >= _COUNTS_MAX:
        _COUNTS.clear()  # bounded: a wiki with more archive pages than this reads some of them again
    _COUNTS[key] = (stamp, n)
    return n
