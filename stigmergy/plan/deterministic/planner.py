"""The deterministic planner: no network, no key, the same plan for the same repository and source.

It writes only lines copied (or closely derived) from cited source lines, and it only ever inserts into
an existing page — a dated section placed in date order — so it never drops a cited line, an
attribution, a contradiction block or a person's line. See docs/planning.md for the filing rules.

This module holds the planner and the core of a filing (the entities, aliases and mentions it finds,
the ranking of key lines, the wiki lines it writes); the page bodies are built in `page_bodies` and the
contradiction proposals assembled in `contradiction_assembly`, both mixins of `_Filing`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.citations import append_citation
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.paths import page_relpath, stem_of
from stigmergy.plan.context import PlannerContext, catalogue
from stigmergy.plan.deterministic.analysis import (
    COMMON,
    ORG_KEYS,
    PERIOD,
    PRODUCT_SUFFIX,
    EntityCandidate,
    NameIndex,
    Unit,
    alias_statements,
    detect_entities,
    find_known,
    is_decision,
    measures_in,
    mentions,
    project_mentions,
    score_unit,
    source_links,
    split_units,
)
from stigmergy.plan.deterministic.contradiction_assembly import ContradictionAssembly
from stigmergy.plan.deterministic.layout import insert_section
from stigmergy.plan.deterministic.names import short_forms
from stigmergy.plan.deterministic.page_bodies import PageBodyBuilders
from stigmergy.plan.planner import PlannerReply
from stigmergy.plan.schema import (
    AliasProposal,
    ContradictionProposal,
    CreatePage,
    Plan,
    UpdatePage,
)

MAX_KEY_LINES = 8
MAX_DECISIONS = 8
# New contradictions one capture may record on one page (see `_capped`).
MAX_CONFLICTS_PER_PAGE = 5
MIN_KEY_SCORE = 2.0
_PARTICIPANT_KEYS = ("participants", "attendees", "people", "authors", "author", "present")
# Front matter fields that name the entities a document is about or mentions.
_LISTED_KEYS = ("entity", "entities", "mentions", "organisations", "organizations", "companies", "products")


@dataclass
class _Entity:
    path: str
    title: str
    entity_type: str
    surfaces: set[str]
    units: list[int]
    new: bool
    evidence: str
    aliases: list[str] = field(default_factory=list)  # for a new page
    participant_lines: list[int] = field(default_factory=list)


class DeterministicPlanner:
    kind = "deterministic"
    repairs = False

    def plan(self, context: PlannerContext, feedback: Sequence[str] = ()) -> PlannerReply:
        plan, stats = _Filing(context).run()
        return PlannerReply(plan, {"planner": self.kind, "stats": stats})


class _Filing(PageBodyBuilders, ContradictionAssembly):
    """One filing: analysis of the source, then the pages, in a fixed order."""

    def __init__(self, ctx: PlannerContext) -> None:
        self.ctx = ctx
        self.src = ctx.source
        self.page = ctx.source.page
        self.layer = self.page.layer
        self.cid = self.page.id
        self.date = self.page.occurred_at[:10]
        self.cat = catalogue(ctx.root, self.layer)
        self.names = NameIndex(self.cat.names())
        self.heads = {e.path: e for e in self.cat.entities()}
        self.all_stems = {
            stem_of(p).casefold(): p for paths in self.cat.pages.values() for p in paths
        }
        self.units, self.headings = split_units(self.page.text.split("\n"), self.page.body_start_line)
        self._pages: dict[str, tuple[dict[str, Any], str] | None] = {}
        self.mutations: list[CreatePage | UpdatePage] = []
        self.aliases: list[AliasProposal] = []
        self.contradictions: list[ContradictionProposal] = []
        self.planned_stems: dict[str, str] = {}  # casefolded stem -> path created in this plan
        self.pending_aliases: list[tuple[str, str]] = []

    # -- reading pages the plan will touch ------------------------------------------------------

    def existing(self, path: str) -> tuple[dict[str, Any], str] | None:
        """(front matter, body) of a page on disk: from the context when it was selected, else read
        directly — an update is never written blind."""
        if path not in self._pages:
            cand = self.ctx.candidate(path)
            if cand is not None:
                self._pages[path] = (cand.meta, cand.body)
            else:
                try:
                    text = (self.ctx.root / path).read_text(encoding="utf-8")
                    meta, body, _ = split_front_matter(text)
                    self._pages[path] = (meta, body)
                except (OSError, UnicodeDecodeError, ContractError):
                    self._pages[path] = None
        return self._pages[path]

    def already_cites(self, path: str) -> bool:
        got = self.existing(path)
        return got is not None and self.cid in (got[0].get("sources") or [])

    # -- the filing ------------------------------------------------------------------------------

    def run(self) -> tuple[Plan, dict[str, Any]]:
        units = self.units
        participants = _participants(self.page.metadata)
        links = source_links(self.page.text)
        project = self.page.project or _meta_str(self.page.metadata, "project")
        orgs = [o for key in ORG_KEYS for o in _meta_names(self.page.metadata, key)]
        self.listed = [n for key in _LISTED_KEYS for n in _meta_names(self.page.metadata, key)]
        cands = detect_entities(units, self.page.title, participants, links, self.names, orgs, self.listed,
                                [h for _, h, _ in self.headings])
        entities = self._entities(cands, participants, project)
        self.entities = entities
        for path, variant in self.pending_aliases:
            if path in entities:
                evidence = next((u.text for u in units if variant in u.text), variant)
                self._add_alias(entities[path], variant, evidence)
        self._alias_statements(entities)
        self._link_aliases(links, entities)
        self._mentions(entities)
        self.entities = entities

        key_units, decision_units = self._key_units(entities)
        note_path, note_title = self._note_target()
        concepts = self._concepts(entities)
        if note_path is not None and (key_units or decision_units):
            self.planned_stems[stem_of(note_path).casefold()] = note_path
        else:
            note_path = None
        heading = self._section_heading(note_path)

        found = self._capped(self._conflicts(note_path))
        if note_path is not None:
            on_note = [c for page, _, c in found if page == note_path]
            self._note(note_path, note_title, key_units, decision_units, entities, concepts, on_note)
        for page, subject_title, conflict in found:
            self.contradictions.append(self._proposal(page, subject_title, conflict))
        for ent in sorted(entities.values(), key=lambda e: e.path):
            self._entity_page(ent, heading)
        for term, (path, idxs, defining) in sorted(concepts.items(), key=lambda kv: kv[1][0]):
            self._concept_page(term, path, idxs, defining, heading)
        if project:
            self._project_page(project, key_units, decision_units, entities, heading)
        resolutions = self._resolutions()
        self._entities_with_pages()
        plan = Plan(
            mutations=tuple(self.mutations),
            aliases=tuple(sorted(self.aliases, key=lambda a: (a.entity, a.alias))),
            contradictions=tuple(self.contradictions),
            resolutions=tuple(resolutions),
            summary=self._summary(note_path),
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

    def _entities(
        self, cands: list[EntityCandidate], participants: list[str], project: str | None
    ) -> dict[str, _Entity]:
        out: dict[str, _Entity] = {}
        # A project is filed on its project page, never as an entity too ("Project Driftwood", "Driftwood"):
        # the capture's project, the project pages of the layer, and every "Project X" this source writes.
        named = {project} if project else set()
        named |= {f"Project {n}" for n in project_mentions(self.page.title + "\n" + self.page.text)}
        named |= {stem_of(p) for p in self.cat.pages.get("project", [])}
        project_names: set[str] = set()
        for n in named:
            n = " ".join(n.split())
            project_names |= {n, n.removeprefix("Project ").strip()}
        project_names.discard("")
        self.project_names = project_names
        self.project_stems = {n.casefold() for n in project_names}
        self.project_paths = {}
        for n in sorted(named):
            n = " ".join(n.split())
            path = page_relpath("project", n, self.layer)
            if self.all_stems.get(stem_of(path).casefold()) == path:  # link only to a page that exists
                for variant in (n, n.removeprefix("Project ").strip()):
                    if variant:
                        self.project_paths.setdefault(variant, path)
        for c in cands:
            if c.known_path is not None:
                head = self.heads.get(c.known_path)
                if (head.title if head else stem_of(c.known_path)).casefold() in self.project_stems:
                    continue  # an entity page made before the project was known: the project page is its home
                ent = out.get(c.known_path)
                head = self.heads.get(c.known_path)
                if ent is None:
                    title = head.title if head else stem_of(c.known_path)
                    surfaces = {n for n, p in self.names.items() if p == c.known_path}
                    ent = out[c.known_path] = _Entity(
                        c.known_path, title, head.entity_type if head else "other", surfaces, [], False, "known"
                    )
                ent.units = sorted(set(ent.units) | set(c.units))
                continue
            if c.name.casefold() in self.project_stems:
                continue
            short = self._short_owner(c.name)
            if short is not None:
                # "Pellucid" for a known Pellucid Pharma Logistics, or "Pellucid Pharma Logistics" for a
                # known Pellucid: one identity, the other spelling its alias.
                head = self.heads[short]
                ent = out.get(short)
                if ent is None:
                    ent = out[short] = _Entity(short, head.title, head.entity_type,
                                               {n for n, p in self.names.items() if p == short}, [], False, "known")
                ent.units = sorted(set(ent.units) | set(c.units))
                self.pending_aliases.append((short, c.name))
                continue
            folded = self._folded_names().get(_fold(c.name))
            if folded is not None and folded[0] == c.name:
                folded = None
            if folded is not None and folded[1] in out:
                out[folded[1]].units = sorted(set(out[folded[1]].units) | set(c.units))
                self.pending_aliases.append((folded[1], c.name))
                continue
            if folded is not None:
                # "Ines Carvalho" for "Inês Carvalho": the same name without its accents.
                head = self.heads.get(folded[1])
                if head is not None:
                    out[folded[1]] = _Entity(
                        folded[1], head.title, head.entity_type,
                        {n for n, p in self.names.items() if p == folded[1]}, list(c.units), False, "known",
                    )
                    self.pending_aliases.append((folded[1], c.name))
                    continue
            name, etype = c.name, c.entity_type
            public = self._public_entity(c.name)
            if public is not None:
                # A restricted layer names someone the public wiki already knows ("Orbis" for Orbis
                # Freight): its page in this layer takes the public title, so it shadows that page
                # (links written in the layer resolve to it) instead of founding a second identity.
                name, etype = public
            path = page_relpath("entity", name, self.layer)
            clash = self.all_stems.get(stem_of(path).casefold())
            if clash is not None and clash != path:
                continue  # a note, concept or project already owns this name
            if path in out:
                out[path].units = sorted(set(out[path].units) | set(c.units))
                continue
            new = clash is None
            ent = _Entity(path, name, etype, {c.name, name}, list(c.units), new, c.evidence)
            if not new:
                got = self.existing(path)
                if got is not None:
                    ent.title = str(got[0].get("title") or c.name)
                    ent.entity_type = str(got[0].get("entity_type") or c.entity_type)
            out[path] = ent
        # Participants listed in the front matter: cite the line that lists them.
        # Names the front matter lists (`entity:`, `mentions:`) are cited the same way.
        front_end = self.page.body_start_line - 2
        listed = set(participants) | set(self.listed)
        for ent in out.values():
            if ent.entity_type == "person" or ent.title in listed or ent.surfaces & listed:
                for n in range(1, front_end):
                    line = self.src.file_lines[n - 1].strip()
                    if line.startswith("- "):
                        item = line[2:]
                    elif ":" in line and line.split(":", 1)[0].strip() in _LISTED_KEYS:
                        item = line.split(":", 1)[1]
                    else:
                        continue
                    item = item.strip().strip("'\"")
                    if item and (item in ent.surfaces or item == ent.title or item.split(" (")[0] in ent.surfaces):
                        ent.participant_lines.append(n)
        return out

    def _short_owner(self, name: str) -> str | None:
        """The known organisation or product `name` is a short or long form of, if exactly one."""
        if not hasattr(self, "_shorts"):
            kinds = {p: h.entity_type for p, h in self.heads.items()}
            self._shorts = short_forms(self.names, kinds)
            self._kinds = kinds
        words = name.split()
        if len(words) == 1:
            return self._shorts.get(name)
        owner = self.names.get(words[0])
        head = self.heads.get(owner) if owner else None
        if head is not None and " " not in head.title and head.entity_type in ("organisation", "product", "other") \
                and words[0] == head.title and words[-1] not in PRODUCT_SUFFIX and not any(c.isdigit() for c in name):
            return owner
        return None

    def _entities_with_pages(self) -> None:
        """A page's `entities` names only entities that have a page, on disk or created by this plan (an
        entity with nothing to file gets no page, and a name without a page is refused by the gates)."""
        have = {h.title for h in self.heads.values()}
        have |= {m.title for m in self.mutations if isinstance(m, CreatePage) and m.type == "entity"}
        for i, m in enumerate(self.mutations):
            if isinstance(m, CreatePage) and m.entities and not set(m.entities) <= have:
                self.mutations[i] = replace(m, entities=tuple(t for t in m.entities if t in have))

    def _public_entity(self, name: str) -> tuple[str, str] | None:
        """(title, entity type) of the public entity page that `name` (title or alias) names, for a
        capture of a restricted layer; None in the public layer or when no public page owns the name.
        Only names cross layers here: nothing of the restricted source is written outside its layer."""
        if self.layer == "public":
            return None
        if not hasattr(self, "_public"):
            cat = catalogue(self.ctx.root, "public")
            heads = {e.path: e for e in cat.entities()}
            self._public = {_fold(n): (heads[p].title, heads[p].entity_type) for n, p in cat.names().items() if p in heads}
        return self._public.get(_fold(name))

    def _folded_names(self) -> dict[str, tuple[str, str]]:
        if not hasattr(self, "_folded"):
            self._folded = {_fold(n): (n, p) for n, p in sorted(self.names.items())}
        return self._folded

    def _alias_statements(self, entities: dict[str, _Entity]) -> None:
        """'X (formerly Y)', 'X, also known as Y': Y becomes an alias of X when nobody else owns it."""
        by_name = {s: e for e in entities.values() for s in e.surfaces}
        for u in self.units:
            for a, b in alias_statements(u.text):
                owner_a = by_name.get(a) or (entities.get(self.names[a]) if a in self.names else None)
                owner_b = by_name.get(b) or (entities.get(self.names[b]) if b in self.names else None)
                if owner_b is not None and not owner_b.new and (owner_a is None or owner_a.new):
                    # The known entity was renamed: the new name is its alias; no second page.
                    target, variant, drop = owner_b, a, owner_a
                elif owner_a is not None:
                    target, variant, drop = owner_a, b, owner_b if owner_b is not owner_a else None
                elif owner_b is not None and owner_b.new and " " in a and a not in self.names and _name_words(a):
                    # "Tomasz Wieczorek, also known as Tomek": the statement names the identity; the
                    # nickname found first becomes its alias, not a page of its own.
                    path = page_relpath("entity", a, self.layer)
                    if path in entities or self.all_stems.get(stem_of(path).casefold()) is not None:
                        continue
                    target = entities[path] = _Entity(path, a, "person" if owner_b.entity_type in ("person", "other") else owner_b.entity_type,
                                                      {a}, [], True, "named with its alias")
                    variant, drop = b, owner_b
                else:
                    continue
                if drop is not None and drop is not target and drop.new:
                    target.units = sorted(set(target.units) | set(drop.units))
                    entities.pop(drop.path, None)
                self._add_alias(target, variant, u.text)
                by_name[variant] = target

    def _link_aliases(self, links: list, entities: dict[str, _Entity]) -> None:
        for lk in links:
            if not lk.label or lk.label == lk.target:
                continue
            path = self.names.get(lk.target)
            if path is None and _fold(lk.target) in self._folded_names():
                path = self._folded_names()[_fold(lk.target)][1]
            if path is None:
                for e in entities.values():
                    if lk.target in e.surfaces or stem_of(e.path) == lk.target:
                        path = e.path
                        break
            ent = entities.get(path) if path else None
            if ent is None and path is not None:
                head = self.heads.get(path)
                if head is None:
                    continue
                ent = entities[path] = _Entity(
                    path, head.title, head.entity_type, {n for n, p in self.names.items() if p == path}, [], False, "linked"
                )
            if ent is not None:
                evidence = next((u.text for u in self.units if lk.label in u.text), lk.label)
                self._add_alias(ent, lk.label, evidence)

    def _add_alias(self, ent: _Entity, variant: str, evidence: str) -> None:
        variant = " ".join(variant.split())
        if not variant or variant == ent.title or variant in COMMON or len(variant) > 80:
            return
        if mentions(variant, ent.surfaces):
            return  # "Lanternfish Labs Tidemark" already names Tidemark; it is a phrase, not a variant
        owner = self.names.get(variant)
        if owner is not None:
            return  # already an alias of this entity, or another entity owns it
        if any(variant in e.aliases or (variant in e.surfaces and e is not ent) for e in self.entities_view()):
            return
        ent.surfaces.add(variant)
        if ent.new:
            if variant not in ent.aliases:
                ent.aliases.append(variant)
        elif not self.already_cites(ent.path):
            prop = AliasProposal(ent.path, variant, evidence[:500])
            if prop not in self.aliases:
                self.aliases.append(prop)

    def entities_view(self) -> list[_Entity]:
        return list(getattr(self, "entities", {}).values())

    def _mentions(self, entities: dict[str, _Entity]) -> None:
        """Which statements speak of each entity: its names and aliases, and — within this source only —
        a person's first name when no other person here shares it."""
        firsts: dict[str, list[_Entity]] = {}
        for e in entities.values():
            if e.entity_type == "person" and " " in e.title:
                firsts.setdefault(e.title.split()[0], []).append(e)
        local = {f: es[0] for f, es in firsts.items() if len(es) == 1 and f not in COMMON and f not in self.names}
        for e in entities.values():
            names = set(e.surfaces)
            names |= {f for f, owner in local.items() if owner is e}
            e.surfaces_local = names  # type: ignore[attr-defined]
            e.units = [i for i, u in enumerate(self.units) if u.kind != "heading" and mentions(u.text, names)]

    # -- ranking ---------------------------------------------------------------------------------

    def _key_units(self, entities: dict[str, _Entity]) -> tuple[list[int], list[int]]:
        ent_hits = [0] * len(self.units)
        for e in entities.values():
            for i in e.units:
                ent_hits[i] += 1
        scored = [(score_unit(u, ent_hits[i], 0), i) for i, u in enumerate(self.units)]
        decisions = [i for i, u in enumerate(self.units) if is_decision(u)][:MAX_DECISIONS]
        dset = set(decisions)
        ranked = sorted((s, i) for s, i in scored if s >= MIN_KEY_SCORE and i not in dset)
        ranked.sort(key=lambda si: (-si[0], si[1]))
        keys = sorted(i for _, i in ranked[:MAX_KEY_LINES])
        self.scores = {i: s for s, i in scored}
        return keys, decisions

    def _top(self, idxs: Sequence[int], limit: int) -> list[int]:
        ranked = sorted(idxs, key=lambda i: (-self.scores.get(i, 0.0), i))
        return sorted(i for i in ranked[:limit] if self.scores.get(i, 0.0) > 0)

    # -- lines -----------------------------------------------------------------------------------

    def _line(self, page_path: str, u: Unit, prefix: str = "") -> str:
        text = self._linkify(page_path, u.text)
        refs = [(self.src.relpath, u.start, u.end)]
        heading = None if prefix else self._period_heading(u)
        if heading is not None:
            # "ARR was $1.2M" under "## Q1 2026 results" says nothing alone: the line carries its heading,
            # cited too, so that every word it shows is in the cited lines.
            prefix = f"{heading[1]}: "
            refs.insert(0, (self.src.relpath, heading[0], heading[0]))
        return append_citation(f"- {prefix}{text}", page_path, refs)

    def _period_heading(self, u: Unit) -> tuple[int, str] | None:
        """(file line, text) of the heading that gives a statement's figures their period, when the
        statement states a figure that needs one and does not say it."""
        if u.kind == "row" or not u.section or len(u.section) > 60 or not PERIOD.search(u.section):
            return None
        ms = measures_in(u.text, [""])
        if not ms or not all(m.kind != "date" and " " not in m.measure and not m.period for m in ms):
            return None
        line = max((ln for ln, text, _ in self.headings if ln < u.start and text == u.section), default=None)
        return None if line is None else (line, u.section)

    def _linkify(self, page_path: str, text: str) -> str:
        """Each other entity's (and concept's) first mention in the line becomes a wikilink."""
        targets: dict[str, str] = {}
        for e in getattr(self, "entities", {}).values():
            if e.path == page_path:
                continue
            for s in getattr(e, "surfaces_local", e.surfaces):
                targets[s] = e.path
        for term, path in getattr(self, "concept_paths", {}).items():
            if path != page_path:
                targets.setdefault(term, path)
        for name, path in getattr(self, "project_paths", {}).items():
            if path != page_path:
                targets.setdefault(name, path)
        if not targets:
            return text
        protected = [(m.start(), m.end()) for m in re.finditer(r"\[[^\]]*\]\([^)]*\)|`[^`]*`", text)]
        out, last, done = [], 0, set()
        for surface, path, start, end in find_known(text, targets):
            if path in done or any(a <= start < b for a, b in protected):
                continue
            done.add(path)
            stem = stem_of(path)
            link = f"[[{stem}]]" if stem == surface else f"[[{stem}|{surface}]]"
            out.append(text[last:start] + link)
            last = end
        out.append(text[last:])
        return "".join(out)

    def _section_heading(self, note_path: str | None) -> str:
        if note_path is not None:
            return f"## {self.date} · [[{stem_of(note_path)}]]"
        title = re.sub(r"[\[\]<>|#]", " ", self.page.title)
        return f"## {self.date} · {' '.join(title.split())}"

    def _capped(self, found: list[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
        """At most MAX_CONFLICTS_PER_PAGE new contradictions per page from one capture: more is the planner
        misreading the source (a changelog's release dates), not a source disagreeing that often. The
        rest are dropped and the summary says how many."""
        per_page: dict[str, int] = {}
        kept = []
        for item in found:
            per_page[item[0]] = per_page.get(item[0], 0) + 1
            if per_page[item[0]] <= MAX_CONFLICTS_PER_PAGE:
                kept.append(item)
        self.conflicts_dropped = len(found) - len(kept)
        return kept

    def _summary(self, note_path: str | None) -> str:
        created = [m for m in self.mutations if isinstance(m, CreatePage)]
        updated = [m for m in self.mutations if isinstance(m, UpdatePage)]
        if not self.mutations and not self.aliases:
            return f"Nothing new to file from \u201c{self.page.title}\u201d ({self.date}); it is already filed or says nothing durable."
        parts = [f"Filed \u201c{self.page.title}\u201d ({self.date})"]
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
        if self.contradictions:
            parts.append(f"{len(self.contradictions)} contradiction(s) recorded")
        if getattr(self, "conflicts_dropped", 0):
            parts.append(
                f"{self.conflicts_dropped} more contradiction(s) not recorded: over {MAX_CONFLICTS_PER_PAGE} on one "
                "page from one capture is a planner misreading, not a disagreement"
            )
        if self.aliases:
            parts.append(f"{len(self.aliases)} alias(es) proposed")
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


def _meta_str(metadata: dict[str, Any], key: str) -> str | None:
    value = metadata.get(key) if isinstance(metadata, dict) else None
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


__all__ = ["DeterministicPlanner", "insert_section"]
