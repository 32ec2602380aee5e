"""The deterministic planner: no network, no key, the same plan for the same repository and source.

It writes only lines copied (or closely derived) from cited source lines, and it only ever inserts into
an existing page — a dated section placed in date order — so it never drops a cited line, an
attribution, a contradiction block or a person's line. See docs/planning.md for the filing rules.

A filing is a small state object (`state.Filing`) passed to plain functions. This module orchestrates
it (`run`) and holds the core steps (the entities, aliases and mentions it finds, the ranking of key
lines, the summary); the page bodies and their lines are built in `page_bodies` and the contradiction
proposals assembled in `contradiction_assembly`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from stigmergy.pages.paths import page_relpath, stem_of
from stigmergy.plan.catalogue import catalogue
from stigmergy.plan.context import PlannerContext
from stigmergy.plan.deterministic import contradiction_assembly as assembly
from stigmergy.plan.deterministic import page_bodies as bodies
from stigmergy.plan.deterministic.analysis import (
    COMMON,
    ORG_KEYS,
    PRODUCT_SUFFIX,
    EntityCandidate,
    alias_statements,
    detect_entities,
    is_decision,
    mentions,
    project_mentions,
    proper_name_runs,
    score_unit,
    source_links,
)
from stigmergy.plan.deterministic.concepts import spelled_out
from stigmergy.plan.deterministic.layout import insert_section
from stigmergy.plan.deterministic.names import ORG_SUFFIX, short_forms
from stigmergy.plan.deterministic.state import Entity, Filing, already_cites, existing, source_definitions
from stigmergy.plan.deterministic.titles import note_target
from stigmergy.plan.planner import PlannerReply
from stigmergy.plan.schema import (
    AliasProposal,
    CreatePage,
    Plan,
    UpdatePage,
)

MAX_KEY_LINES = 8
MAX_DECISIONS = 8
# New contradictions one capture may record on one page (see `_capped`).
MAX_CONFLICTS_PER_PAGE = 5
MIN_KEY_SCORE = 2.0
MAX_ALIASES = 12  # aliases an entity page holds; filing proposes no more past it
_PARTICIPANT_KEYS = ("participants", "attendees", "people", "authors", "author", "present")
# Front matter fields that name the entities a document is about or mentions.
_LISTED_KEYS = ("entity", "entities", "mentions", "organisations", "organizations", "companies", "products")


class DeterministicPlanner:
    kind = "deterministic"
    repairs = False

    def plan(self, context: PlannerContext, feedback: Sequence[str] = ()) -> PlannerReply:
        plan, stats = run(Filing.start(context))
        return PlannerReply(plan, {"planner": self.kind, "stats": stats})


# -- the filing ------------------------------------------------------------------------------

# A page that has moved says where it went and nothing else: "This page has moved … You should be redirected
# automatically in 3 seconds" (pip's docs keep 17 such stubs), "Redirecting… If you are not redirected, follow this
# link". Its source page keeps what it says; the wiki files nothing from it. Only a page speaking of itself counts:
# "the site has moved to Building 4" is news, and so are "after paying you will be redirected to the confirmation page"
# and a chat's "The page has moved to Notion".
_MOVED = re.compile(
    r"\b(?:this (?:page|document|article|documentation) (?:has )?(?:been )?(?:moved|relocated)"
    r"|(?:should|will) be redirected (?:automatically|shortly|momentarily|in \d+ seconds?)"
    r"|if you are not (?:being )?redirected)|^redirecting\b", re.I)
_STUB_STATEMENTS = 3  # a stub says it moved, where, and perhaps how to get there


def _moved_stub(st: Filing) -> bool:
    # Markup is not said: reStructuredText's ":orphan:" and ".. meta::" around the redirect.
    said = [u.text for u in st.units if u.kind != "meta" and not u.text.startswith((":", ".."))
            and len(re.findall(r"[^\W\d_]{2,}", u.text)) >= 2]
    heads = [h for _, h, _ in st.headings]
    return len(said) <= _STUB_STATEMENTS and any(_MOVED.search(t) for t in [*said, *heads])


def run(st: Filing) -> tuple[Plan, dict[str, Any]]:
    units = st.units
    if _moved_stub(st):
        summary = f"Nothing to file from \u201c{st.page.title}\u201d ({st.date}): the page has moved, and says only where."
        return Plan(summary=summary), {"units": len(units), "moved": True}
    participants = _participants(st.page.metadata)
    links = source_links(st.page.text)
    project = st.page.project or _meta_str(st.page.metadata, "project")
    orgs = [_proper(st, o) for key in ORG_KEYS for o in _meta_names(st.page.metadata, key)]
    st.listed = [_proper(st, n) for key in _LISTED_KEYS for n in _meta_names(st.page.metadata, key)]
    for o in folder_names(st.page.locator):  # listed by the document's place: cited to its locator line
        orgs += [o] if o not in orgs else []
        st.listed += [o] if o not in st.listed else []
    cands = detect_entities(units, st.page.title, participants, links, st.names, orgs, st.listed,
                            [h for _, h, _ in st.headings])
    terms = spelled_out(source_definitions(st))
    cands = [c for c in cands if not _spelled_term(c, terms, orgs)]
    entities = _entities(st, cands, participants, project)
    st.entities = entities
    for path, variant in st.pending_aliases:
        if path in entities:
            evidence = next((u.text for u in units if variant in u.text), variant)
            _add_alias(st, entities[path], variant, evidence)
    _alias_statements(st, entities)
    _link_aliases(st, links, entities)
    _mentions(st, entities)
    st.entities = entities

    key_units, decision_units = _key_units(st, entities)
    note_path, note_title = note_target(st)
    concepts = bodies.concepts(st, entities)
    if note_path is not None and (key_units or decision_units):
        st.planned_stems[stem_of(note_path).casefold()] = note_path
    else:
        note_path = None
    heading = _section_heading(st, note_path)

    found = _capped(st, assembly.conflicts(st, note_path))
    if note_path is not None:
        on_note = [c for page, _, c in found if page == note_path]
        bodies.note(st, note_path, note_title, key_units, decision_units, entities, concepts, on_note)
    for page, subject_title, conflict in found:
        st.contradictions.append(assembly.proposal(st, page, subject_title, conflict))
    for ent in sorted(entities.values(), key=lambda e: e.path):
        bodies.entity_page(st, ent, heading)
    for term, (path, idxs, defining) in sorted(concepts.items(), key=lambda kv: kv[1][0]):
        bodies.concept_page(st, term, path, idxs, defining, heading)
    if project:
        bodies.project_page(st, project, key_units, decision_units, entities, heading)
    resolutions = assembly.resolutions(st)
    _entities_with_pages(st)
    plan = Plan(
        mutations=tuple(st.mutations),
        aliases=tuple(sorted(st.aliases, key=lambda a: (a.entity, a.alias))),
        contradictions=tuple(st.contradictions),
        resolutions=tuple(resolutions),
        summary=_summary(st, note_path),
    )
    stats = {
        "units": len(units),
        "key_lines": len(key_units),
        "decisions": len(decision_units),
        "entities_new": sorted(e.title for e in entities.values() if e.new),
        "entities_known": sorted(e.title for e in entities.values() if not e.new),
        "concepts": sorted(concepts),
    }
    if plan.is_empty:
        plan = Plan(summary=plan.summary)
    return plan, stats


# -- entities --------------------------------------------------------------------------------

def _spelled_term(c: EntityCandidate, terms: set[str], orgs: list[str]) -> bool:
    """Whether a new name is a term the source spells out ("Attention Deficit Hyperactivity Disorder (ADHD)",
    "a Stringprep Profile for Internationalized Domain Names (IDN)"), which its concept page holds, and not an
    identity too. A person, place or product stays one, and so does an organisation its own name or the front
    matter says is one ("World Health Organization (WHO)"); "for Internationalized Domain Names" is no such sign."""
    if c.known_path is not None or c.name.casefold() not in terms or c.entity_type in ("person", "place", "product"):
        return False
    words = c.name.split()
    return not (c.entity_type == "organisation" and (
        words[-1] in ORG_SUFFIX or "&" in words or "and" in words or c.name in orgs))


def _entities(
    st: Filing, cands: list[EntityCandidate], participants: list[str], project: str | None
) -> dict[str, Entity]:
    out: dict[str, Entity] = {}
    # A project is filed on its project page, never as an entity too ("Project Driftwood", "Driftwood"):
    # the capture's project, the project pages of the layer, and every "Project X" this source writes.
    named = {project} if project else set()
    named |= {f"Project {n}" for n in project_mentions(st.page.title + "\n" + st.page.text)}
    named |= {stem_of(p) for p in st.cat.pages.get("project", [])}
    project_names: set[str] = set()
    for n in named:
        n = " ".join(n.split())
        project_names |= {n, n.removeprefix("Project ").strip()}
    project_names.discard("")
    st.project_names = project_names
    st.project_stems = {n.casefold() for n in project_names}
    st.project_paths = {}
    for n in sorted(named):
        n = " ".join(n.split())
        path = page_relpath("project", n, st.layer)
        if st.all_stems.get(stem_of(path).casefold()) == path:  # link only to a page that exists
            for variant in (n, n.removeprefix("Project ").strip()):
                if variant:
                    st.project_paths.setdefault(variant, path)
    for c in cands:
        if c.known_path is not None:
            head = st.heads.get(c.known_path)
            if (head.title if head else stem_of(c.known_path)).casefold() in st.project_stems:
                continue  # an entity page made before the project was known: the project page is its home
            ent = out.get(c.known_path)
            head = st.heads.get(c.known_path)
            if ent is None:
                title = head.title if head else stem_of(c.known_path)
                surfaces = {n for n, p in st.names.items() if p == c.known_path}
                ent = out[c.known_path] = Entity(
                    c.known_path, title, head.entity_type if head else "other", surfaces, [], False, "known"
                )
            ent.units = sorted(set(ent.units) | set(c.units))
            continue
        if c.name.casefold() in st.project_stems:
            continue
        short = _short_owner(st, c.name)
        if short is not None:
            # "Pellucid" for a known Pellucid Pharma Logistics, or "Pellucid Pharma Logistics" for a
            # known Pellucid: one identity, the other spelling its alias.
            head = st.heads[short]
            ent = out.get(short)
            if ent is None:
                ent = out[short] = Entity(short, head.title, head.entity_type,
                                           {n for n, p in st.names.items() if p == short}, [], False, "known")
            ent.units = sorted(set(ent.units) | set(c.units))
            st.pending_aliases.append((short, c.name))
            continue
        folded = _folded_names(st).get(_fold(c.name))
        if folded is not None and folded[0] == c.name:
            folded = None
        if folded is not None and folded[1] in out:
            out[folded[1]].units = sorted(set(out[folded[1]].units) | set(c.units))
            st.pending_aliases.append((folded[1], c.name))
            continue
        if folded is not None:
            # "Ines Carvalho" for "Inês Carvalho": the same name without its accents.
            head = st.heads.get(folded[1])
            if head is not None:
                out[folded[1]] = Entity(
                    folded[1], head.title, head.entity_type,
                    {n for n, p in st.names.items() if p == folded[1]}, list(c.units), False, "known",
                )
                st.pending_aliases.append((folded[1], c.name))
                continue
        name, etype = c.name, c.entity_type
        public = _public_entity(st, c.name)
        if public is not None:
            # A restricted layer names someone the public wiki already knows ("Orbis" for Orbis
            # Freight): its page in this layer takes the public title, so it shadows that page
            # (links written in the layer resolve to it) instead of founding a second identity.
            name, etype = public
        path = page_relpath("entity", name, st.layer)
        clash = st.all_stems.get(stem_of(path).casefold())
        if clash is not None and clash != path:
            continue  # a note, concept or project already owns this name
        if path in out:
            out[path].units = sorted(set(out[path].units) | set(c.units))
            continue
        new = clash is None
        ent = Entity(path, name, etype, {c.name, name}, list(c.units), new, c.evidence)
        if not new:
            got = existing(st, path)
            if got is not None:
                ent.title = str(got[0].get("title") or c.name)
                ent.entity_type = str(got[0].get("entity_type") or c.entity_type)
        out[path] = ent
    # Participants listed in the front matter: cite the line that lists them.
    # Names the front matter lists (`entity:`, `mentions:`) are cited the same way.
    front_end = st.page.body_start_line - 2
    listed = set(participants) | set(st.listed)
    for ent in out.values():
        if ent.entity_type == "person" or ent.title in listed or ent.surfaces & listed:
            for n in range(1, front_end):
                line = st.src.file_lines[n - 1].strip()
                if line.startswith("- "):
                    item = line[2:]
                elif ":" in line and line.split(":", 1)[0].strip() in _LISTED_KEYS:
                    item = line.split(":", 1)[1]
                else:
                    continue
                item = item.strip().strip("'\"")
                if item and _SLUG.fullmatch(item):
                    item = _proper(st, item)  # `customer: aurora-systems` names Aurora Systems
                if item and (item in ent.surfaces or item == ent.title or item.split(" (")[0] in ent.surfaces):
                    ent.participant_lines.append(n)
            for n in range(1, front_end):  # "locator: Clients/2. Initech/…": the folder names it
                line = st.src.file_lines[n - 1]
                if line.startswith("locator:") and ent.surfaces & set(folder_names(line[8:].strip().strip("'\""))):
                    ent.participant_lines.append(n)
    return out


def _short_owner(st: Filing, name: str) -> str | None:
    """The known organisation or product `name` is a short or long form of, if exactly one."""
    if st.shorts is None:
        kinds = {p: h.entity_type for p, h in st.heads.items()}
        st.shorts = short_forms(st.names, kinds)
        st.kinds = kinds
    words = name.split()
    if len(words) == 1:
        return st.shorts.get(name)
    owner = st.names.get(words[0])
    head = st.heads.get(owner) if owner else None
    if head is not None and " " not in head.title and head.entity_type in ("organisation", "product", "other") \
            and words[0] == head.title and words[-1] not in PRODUCT_SUFFIX and not any(c.isdigit() for c in name):
        return owner
    return None


def _entities_with_pages(st: Filing) -> None:
    """A page's `entities` names only entities that have a page, on disk or created by this plan (an
    entity with nothing to file gets no page, and a name without a page is refused by the gates)."""
    have = {h.title for h in st.heads.values()}
    have |= {m.title for m in st.mutations if isinstance(m, CreatePage) and m.type == "entity"}
    for i, m in enumerate(st.mutations):
        if isinstance(m, CreatePage) and m.entities and not set(m.entities) <= have:
            st.mutations[i] = replace(m, entities=tuple(t for t in m.entities if t in have))


def _public_entity(st: Filing, name: str) -> tuple[str, str] | None:
    """(title, entity type) of the public entity page that `name` (title or alias) names, for a
    capture of a restricted layer; None in the public layer or when no public page owns the name.
    Only names cross layers here: nothing of the restricted source is written outside its layer."""
    if st.layer == "public":
        return None
    if st.public is None:
        cat = catalogue(st.ctx.root, "public")
        heads = {e.path: e for e in cat.entities()}
        st.public = {_fold(n): (heads[p].title, heads[p].entity_type) for n, p in cat.names().items() if p in heads}
    return st.public.get(_fold(name))


def _folded_names(st: Filing) -> dict[str, tuple[str, str]]:
    if st.folded is None:
        st.folded = {_fold(n): (n, p) for n, p in sorted(st.names.items())}
    return st.folded


def _alias_statements(st: Filing, entities: dict[str, Entity]) -> None:
    """'X (formerly Y)', 'X, also known as Y': Y becomes an alias of X when nobody else owns it."""
    by_name = {s: e for e in entities.values() for s in e.surfaces}
    for u in st.units:
        for a, b in alias_statements(u.text):
            owner_a = by_name.get(a) or (entities.get(st.names[a]) if a in st.names else None)
            owner_b = by_name.get(b) or (entities.get(st.names[b]) if b in st.names else None)
            if owner_b is not None and not owner_b.new and (owner_a is None or owner_a.new):
                # The known entity was renamed: the new name is its alias; no second page.
                target, variant, drop = owner_b, a, owner_a
            elif owner_a is not None:
                target, variant, drop = owner_a, b, owner_b if owner_b is not owner_a else None
            elif owner_b is not None and owner_b.new and " " in a and a not in st.names and _name_words(a):
                # "Tomasz Wieczorek, also known as Tomek": the statement names the identity; the
                # nickname found first becomes its alias, not a page of its own.
                path = page_relpath("entity", a, st.layer)
                if path in entities or st.all_stems.get(stem_of(path).casefold()) is not None:
                    continue
                target = entities[path] = Entity(path, a, "person" if owner_b.entity_type in ("person", "other") else owner_b.entity_type,
                                                  {a}, [], True, "named with its alias")
                variant, drop = b, owner_b
            else:
                continue
            if drop is not None and drop is not target and drop.new:
                target.units = sorted(set(target.units) | set(drop.units))
                entities.pop(drop.path, None)
            _add_alias(st, target, variant, u.text)
            by_name[variant] = target


def _link_aliases(st: Filing, links: list, entities: dict[str, Entity]) -> None:
    for lk in links:
        if not lk.label or lk.label == lk.target:
            continue
        path = st.names.get(lk.target)
        if path is None and _fold(lk.target) in _folded_names(st):
            path = _folded_names(st)[_fold(lk.target)][1]
        if path is None:
            for e in entities.values():
                if lk.target in e.surfaces or stem_of(e.path) == lk.target:
                    path = e.path
                    break
        ent = entities.get(path) if path else None
        if ent is None and path is not None:
            head = st.heads.get(path)
            if head is None:
                continue
            ent = entities[path] = Entity(
                path, head.title, head.entity_type, {n for n, p in st.names.items() if p == path}, [], False, "linked"
            )
        if ent is not None:
            evidence = next((u.text for u in st.units if lk.label in u.text), lk.label)
            _add_alias(st, ent, lk.label, evidence)


def _add_alias(st: Filing, ent: Entity, variant: str, evidence: str) -> None:
    variant = " ".join(variant.split())
    if not variant or variant == ent.title or variant in COMMON or len(variant) > 80:
        return
    if mentions(variant, ent.surfaces):
        return  # "Lanternfish Labs Tidemark" already names Tidemark; it is a phrase, not a variant
    owner = st.names.get(variant)
    if owner is not None:
        return  # already an alias of this entity, or another entity owns it
    head = st.heads.get(ent.path)
    if len(ent.aliases) + (len(head.aliases) if head is not None and not ent.new else 0) >= MAX_ALIASES:
        return  # bounded: more spellings than this is a planner misreading names, not one identity
    if any(variant in e.aliases or (variant in e.surfaces and e is not ent) for e in _entities_view(st)):
        return
    ent.surfaces.add(variant)
    if ent.new:
        if variant not in ent.aliases:
            ent.aliases.append(variant)
    elif not already_cites(st, ent.path):
        prop = AliasProposal(ent.path, variant, evidence[:500])
        if prop not in st.aliases:
            st.aliases.append(prop)


def _entities_view(st: Filing) -> list[Entity]:
    return list(st.entities.values())


def _mentions(st: Filing, entities: dict[str, Entity]) -> None:
    """Which statements speak of each entity: its names and aliases, and — within this source only —
    a person's first name when no other person here shares it."""
    firsts: dict[str, list[Entity]] = {}
    for e in entities.values():
        if e.entity_type == "person" and " " in e.title:
            firsts.setdefault(e.title.split()[0], []).append(e)
    local = {f: es[0] for f, es in firsts.items() if len(es) == 1 and f not in COMMON and f not in st.names}
    for e in entities.values():
        names = set(e.surfaces)
        names |= {f for f, owner in local.items() if owner is e}
        e.surfaces_local = names
        e.units = [i for i, u in enumerate(st.units) if u.kind != "heading" and mentions(u.text, names)]


# -- ranking ---------------------------------------------------------------------------------

def _key_units(st: Filing, entities: dict[str, Entity]) -> tuple[list[int], list[int]]:
    ent_hits = [0] * len(st.units)
    for e in entities.values():
        for i in e.units:
            ent_hits[i] += 1
    scored = [(score_unit(u, ent_hits[i], 0), i) for i, u in enumerate(st.units)]
    decisions = [i for i, u in enumerate(st.units) if is_decision(u)][:MAX_DECISIONS]
    dset = set(decisions)
    ranked = sorted((s, i) for s, i in scored if s >= MIN_KEY_SCORE and i not in dset)
    ranked.sort(key=lambda si: (-si[0], si[1]))
    keys = sorted(i for _, i in ranked[:MAX_KEY_LINES])
    st.scores = {i: s for s, i in scored}
    return keys, decisions


def _section_heading(st: Filing, note_path: str | None) -> str:
    if note_path is not None:
        return f"## {st.date} · [[{stem_of(note_path)}]]"
    title = re.sub(r"[\[\]<>|#]", " ", st.page.title)
    return f"## {st.date} · {' '.join(title.split())}"


def _capped(st: Filing, found: list[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
    """At most MAX_CONFLICTS_PER_PAGE new contradictions per page from one capture: more is the planner
    misreading the source (a changelog's release dates), not a source disagreeing that often. The
    rest are dropped and the summary says how many."""
    per_page: dict[str, int] = {}
    kept = []
    for item in found:
        per_page[item[0]] = per_page.get(item[0], 0) + 1
        if per_page[item[0]] <= MAX_CONFLICTS_PER_PAGE:
            kept.append(item)
    st.conflicts_dropped = len(found) - len(kept)
    return kept


def _summary(st: Filing, note_path: str | None) -> str:
    created = [m for m in st.mutations if isinstance(m, CreatePage)]
    updated = [m for m in st.mutations if isinstance(m, UpdatePage)]
    if not st.mutations and not st.aliases:
        return f"Nothing new to file from \u201c{st.page.title}\u201d ({st.date}); it is already filed or says nothing durable."
    parts = [f"Filed \u201c{st.page.title}\u201d ({st.date})"]
    if note_path:
        parts.append(f"note {stem_of(note_path)}")
    ents = sorted(m.title for m in created if m.type == "entity")
    if ents:
        parts.append("new entities: " + ", ".join(ents))
    if updated:
        parts.append(f"{len(updated)} page(s) updated")
    concepts = sorted(m.title for m in created if m.type == "concept")
    if concepts:
        parts.append("new concepts: " + ", ".join(concepts))
    if st.contradictions:
        parts.append(f"{len(st.contradictions)} contradiction(s) recorded")
    if st.conflicts_dropped:
        parts.append(
            f"{st.conflicts_dropped} more contradiction(s) not recorded: over {MAX_CONFLICTS_PER_PAGE} on one "
            "page from one capture is a planner misreading, not a disagreement"
        )
    if st.aliases:
        parts.append(f"{len(st.aliases)} alias(es) proposed")
    return "; ".join(parts) + "."


# ---------------------------------------------------------------------------------------- helpers

def _name_words(text: str) -> bool:
    words = text.split()
    return 2 <= len(words) <= 4 and all(w[:1].isupper() and w not in COMMON for w in words)


def _fold(name: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def _participants(metadata: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in _PARTICIPANT_KEYS:
        value = metadata.get(key) if isinstance(metadata, dict) else None
        items = value if isinstance(value, list) else ([value] if isinstance(value, str) else [])
        for item in items:
            if not isinstance(item, str):
                continue
            for part in item.split(",") if not isinstance(value, list) else [item]:
                name = re.sub(r"\s*\(.*?\)\s*$", "", part).strip()
                if name and len(name) <= 80:
                    out.append(name)
    return out


def _meta_names(metadata: dict[str, Any], key: str) -> list[str]:
    value = metadata.get(key) if isinstance(metadata, dict) else None
    items = value if isinstance(value, list) else ([value] if isinstance(value, str) else [])
    return [" ".join(v.split()) for v in items if isinstance(v, str) and v.strip() and len(v) <= 80]


_SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
# Folders whose subfolders are named after an organisation ("Clients/2. Initech/notes.md").
_ORG_FOLDERS = frozenset({"clients", "customers", "accounts", "companies", "partners", "vendors", "suppliers",
                          "organisations", "organizations", "investors"})
_NUMBERED = re.compile(r"^\d{1,3}[.)]?\s+")


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", _fold(name).lower()).strip("-")


def _proper(st: Filing, value: str) -> str:
    """The proper name a front matter value stands for: a slug ("aurora-systems", "initech") is the name
    the document writes whose slug it is, else a known entity's name with that slug, else its words
    capitalised; any other value is itself."""
    if not _SLUG.fullmatch(value):
        return value
    for u in st.units:
        for name, _ in proper_name_runs(u.text):
            if slug(name) == value:
                return name
    if st.slugs is None:
        st.slugs = {}
        for name, path in sorted(st.names.items()):
            head = st.heads.get(path)
            st.slugs.setdefault(slug(name), head.title if head is not None and slug(head.title) == slug(name) else name)
    known = st.slugs.get(value)
    if known is not None:
        return known
    return " ".join(w[:1].upper() + w[1:] for w in re.split(r"[-_]", value))


def folder_names(locator: str) -> list[str]:
    """Organisations a document's path names: the folder under a "Clients" (or "Customers", "Accounts",
    …) folder, its number dropped ("Clients/2. Initech/call.md" -> Initech)."""
    parts = [p for p in locator.replace("\\", "/").split("/") if p]
    out = []
    for parent, part in zip(parts, parts[1:-1], strict=False):
        if parent.casefold() in _ORG_FOLDERS:
            name = " ".join(_NUMBERED.sub("", part).split())
            if name and len(name) <= 80 and name[:1].isupper():
                out.append(name)
    return out


def _meta_str(metadata: dict[str, Any], key: str) -> str | None:
    value = metadata.get(key) if isinstance(metadata, dict) else None
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


__all__ = ["DeterministicPlanner", "insert_section"]
