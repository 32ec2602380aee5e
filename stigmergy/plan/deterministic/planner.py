"""The deterministic planner: no network, no key, the same plan for the same repository and source.

It writes only lines copied (or closely derived) from cited source lines, and it only ever inserts into
an existing page — a dated section placed in date order — so it never drops a cited line, an
attribution, a contradiction block or a person's line. See docs/planning.md for the filing rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.citations import append_citation, parse_line, strip_citations
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.paths import page_relpath, stem_of
from stigmergy.plan.context import PlannerContext, catalogue, read_source
from stigmergy.plan.deterministic.analysis import (
    COMMON,
    MEASURES,
    ORG_KEYS,
    EntityCandidate,
    NameIndex,
    Unit,
    alias_statements,
    declares_revision,
    definitions,
    detect_entities,
    find_known,
    is_decision,
    measures_in,
    mentions,
    project_mentions,
    row_measures,
    score_unit,
    source_links,
    split_units,
)
from stigmergy.plan.deterministic.contradictions import CitedClaim, Conflict, claim_measures, find_conflicts
from stigmergy.plan.planner import PlannerReply
from stigmergy.plan.schema import (
    AliasProposal,
    Claim,
    ContradictionProposal,
    CreatePage,
    Plan,
    ResolutionProposal,
    UpdatePage,
)

MAX_KEY_LINES = 8
MAX_DECISIONS = 8
MAX_ENTITY_LINES = 6
MAX_CONCEPT_LINES = 4
MAX_PROJECT_LINES = 5
MAX_FIGURES = 12
MIN_KEY_SCORE = 2.0
_DATED = re.compile(r"^## (\d{4}-\d{2}-\d{2})\b")
_BLOCK_START = "<!-- stigmergy:contradiction "
_STATUS = re.compile(
    r"^status\b|\b(?:on track|off track|delayed|slipp(?:ed|ing)|blocked|behind schedule|ahead of schedule|"
    r"cancel(?:l)?ed|paused|on hold)\b",
    re.I,
)
_PARTICIPANT_KEYS = ("participants", "attendees", "people", "authors", "author", "present")


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


class _Filing:
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
        self.units, _ = split_units(self.page.text.split("\n"), self.page.body_start_line)
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
        cands = detect_entities(units, self.page.title, participants, links, self.names, orgs)
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

        if note_path is not None:
            conflicts = self._note_conflicts()
            self._note(note_path, note_title, key_units, decision_units, entities, concepts, conflicts)
            for conflict in conflicts:
                self.contradictions.append(self._proposal(note_path, "", conflict))
        for ent in sorted(entities.values(), key=lambda e: e.path):
            self._entity_page(ent, heading)
        for term, (path, idxs, defining) in sorted(concepts.items(), key=lambda kv: kv[1][0]):
            self._concept_page(term, path, idxs, defining, heading)
        if project:
            self._project_page(project, key_units, decision_units, entities, heading)
        resolutions = self._resolutions()
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
            path = page_relpath("entity", c.name, self.layer)
            clash = self.all_stems.get(stem_of(path).casefold())
            if clash is not None and clash != path:
                continue  # a note, concept or project already owns this name
            if path in out:
                out[path].units = sorted(set(out[path].units) | set(c.units))
                continue
            new = clash is None
            ent = _Entity(path, c.name, c.entity_type, {c.name}, list(c.units), new, c.evidence)
            if not new:
                got = self.existing(path)
                if got is not None:
                    ent.title = str(got[0].get("title") or c.name)
                    ent.entity_type = str(got[0].get("entity_type") or c.entity_type)
            out[path] = ent
        # Participants listed in the front matter: cite the line that lists them.
        front_end = self.page.body_start_line - 2
        for ent in out.values():
            if ent.entity_type == "person" or ent.title in participants or ent.surfaces & set(participants):
                for n in range(1, front_end):
                    line = self.src.file_lines[n - 1].strip()
                    item = line[2:].strip().strip("'\"") if line.startswith("- ") else ""
                    if item and (item in ent.surfaces or item == ent.title or item.split(" (")[0] in ent.surfaces):
                        ent.participant_lines.append(n)
        return out

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
        return append_citation(f"- {prefix}{text}", page_path, [(self.src.relpath, u.start, u.end)])

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

    # -- pages -----------------------------------------------------------------------------------

    def _note_target(self) -> tuple[str | None, str]:
        title = " ".join(self.page.title.split()) or self.cid
        for candidate in (title, f"{title} ({self.date})", f"{title} ({self.cid})"):
            path = page_relpath("note", candidate, self.layer)
            clash = self.all_stems.get(stem_of(path).casefold())
            if clash is None or clash in self.planned_stems.values():
                return path, candidate
            if clash == path and self.already_cites(path):
                return None, candidate  # filed before
        return None, title

    def _note(
        self,
        path: str,
        title: str,
        keys: list[int],
        decisions: list[int],
        entities: dict[str, _Entity],
        concepts: dict[str, tuple[str, list[int], int | None]],
        conflicts: list[Conflict],
    ) -> None:
        body = [f"# {title}", ""]
        if keys:
            body += ["## Key points", ""] + [self._line(path, self.units[i]) for i in keys] + [""]
        if decisions:
            body += ["## Decisions", ""] + [self._line(path, self.units[i]) for i in decisions] + [""]
        taken = set(keys) | set(decisions)
        figures = [i for i in self._figure_units() if i not in taken][:MAX_FIGURES]
        if figures:
            body += ["## Figures", ""] + [self._line(path, self.units[i]) for i in figures] + [""]
        if conflicts:
            # Both lines stay side by side on the narrowest page that can cite them both: this note.
            body += ["## Figures that differ from earlier sources", ""]
            seen: set[str] = set()
            for c in conflicts:
                for line in (
                    append_citation(f"- {c.new.text}", path, [(c.new.source_path, c.new.start, c.new.end)]),
                    append_citation(f"- {c.old.text}", path, [(c.old.source_path, c.old.start, c.old.end)]),
                ):
                    if line not in seen:
                        seen.add(line)
                        body.append(line)
            body.append("")
        written = "\n".join(body)
        related = []
        for e in sorted(entities.values(), key=lambda e: e.title):
            stem = stem_of(e.path)
            if f"[[{stem}]]" in written or f"[[{stem}|" in written:
                continue
            ref = self._first_ref(e)
            if ref is not None:
                related.append(append_citation(f"- [[{stem}]]", path, [ref]))
        if related:
            body += ["## Mentioned", ""] + related + [""]
        ents = tuple(sorted(e.title for e in entities.values()))
        self.mutations.append(
            CreatePage(
                type="note", title=title, body="\n".join(body).rstrip("\n") + "\n", status="seed",
                entities=ents, layer=self.layer, reason=f"key lines of capture {self.cid}",
            )
        )

    def _figure_units(self) -> list[int]:
        """Statements that give a measured figure (an amount, a percentage, a count with its period)."""
        out = []
        for i, u in enumerate(self.units):
            if u.kind == "meta":
                continue
            ms = row_measures(u.cells, u.header, "") if u.cells and u.header else measures_in(u.text, [""])
            if any(m.period or m.kind == "date" for m in ms):
                out.append(i)
        return out

    def _first_ref(self, e: _Entity) -> tuple[str, int, int] | None:
        if e.units:
            u = self.units[e.units[0]]
            return (self.src.relpath, u.start, u.end)
        if e.participant_lines:
            n = e.participant_lines[0]
            return (self.src.relpath, n, n)
        return None

    def _entity_page(self, e: _Entity, heading: str) -> None:
        if not e.new and self.already_cites(e.path):
            return
        idxs = self._top(e.units, MAX_ENTITY_LINES)
        lines = [self._line(e.path, self.units[i]) for i in idxs]
        if not lines and e.participant_lines:
            n = e.participant_lines[0]
            lines = [append_citation("- Listed as a participant.", e.path, [(self.src.relpath, n, n)])]
        if not lines:
            return
        section = [heading, "", *lines]
        if e.new:
            body = "\n".join([f"# {e.title}", "", *section]) + "\n"
            self.mutations.append(
                CreatePage(
                    type="entity", title=e.title, body=body, status="seed", layer=self.layer,
                    entity_type=e.entity_type, aliases=tuple(e.aliases),
                    reason=f"named in capture {self.cid} ({e.evidence})",
                )
            )
            return
        got = self.existing(e.path)
        if got is None:
            return
        meta, old_body = got
        # A line naming another entity may speak of that one's figures; only a count held by a named noun
        # ("Pellucid's pilot covers 42 lanes out of their Dublin hub") is specific enough to compare anyway.
        new_claims = [
            self._claim(i) for i in idxs
            if not self._mentions_other(self.units[i].text, e) or _generic_only(self.units[i].text, e.path)
        ]
        self._contradictions(e.path, e.title, old_body, new_claims, e)
        self.mutations.append(
            UpdatePage(
                path=e.path, body=insert_section(old_body, self.date, section),
                status=_grown_status(meta), reason=f"named in capture {self.cid}",
            )
        )

    def _mentions_other(self, text: str, e: _Entity) -> bool:
        for other in self.entities.values():
            if other is not e and mentions(text, getattr(other, "surfaces_local", other.surfaces)):
                return True
        return False

    def _concepts(self, entities: dict[str, _Entity]) -> dict[str, tuple[str, list[int], int | None]]:
        """term -> (path, units mentioning it, defining unit). Defined here, or already a concept page."""
        ent_names = {s.casefold() for e in entities.values() for s in e.surfaces} | {
            n.casefold() for n in self.names
        }
        out: dict[str, tuple[str, list[int], int | None]] = {}
        concept_stems = {stem_of(p): p for p in self.cat.pages.get("concept", [])}
        for d in definitions(self.units):
            if d.term.casefold() in ent_names or d.term.casefold() in self.project_stems:
                continue
            # An acronym a concept page already spells out ("Mean kinetic temperature (MKT)") is that page.
            spelled = next((p for st, p in concept_stems.items() if st.endswith(f"({d.term})")), None)
            path = spelled or page_relpath("concept", d.term, self.layer)
            clash = self.all_stems.get(stem_of(path).casefold())
            if clash is not None and clash != path:
                continue
            idxs = [i for i, u in enumerate(self.units) if mentions(u.text, [d.term])]
            if spelled:
                out[d.term] = (spelled, sorted(set(idxs) | {d.unit}), None)
                continue
            out[d.term] = (path, sorted(set(idxs) | {d.unit}), d.unit)
        text = self.page.title + "\n" + self.page.text
        for path in self.cat.pages.get("concept", []):
            got_title = stem_of(path)
            if any(v[0] == path for v in out.values()):
                continue
            # A term recurs in running text in lower case and plural ("custody events"); an acronym only as is.
            rx = _term_pattern(got_title)
            if rx.search(text):
                idxs = [i for i, u in enumerate(self.units) if rx.search(u.text)]
                if idxs:
                    out[got_title] = (path, idxs, None)
        self.concept_paths = {t: v[0] for t, v in out.items()}
        for t, v in list(out.items()):
            if not t.isupper() and t.lower() != t:
                self.concept_paths.setdefault(t[0].lower() + t[1:], v[0])
        for _t, v in out.items():
            self.planned_stems.setdefault(stem_of(v[0]).casefold(), v[0])
        return out

    def _concept_page(self, term: str, path: str, idxs: list[int], defining: int | None, heading: str) -> None:
        exists = self.all_stems.get(stem_of(path).casefold()) == path
        if exists and self.already_cites(path):
            return
        chosen = self._top([i for i in idxs if i != defining], MAX_CONCEPT_LINES - (defining is not None))
        order = ([defining] if defining is not None else []) + chosen
        lines = [self._line(path, self.units[i]) for i in order]
        if not lines:
            return
        section = [heading, "", *lines]
        if not exists:
            self.mutations.append(
                CreatePage(
                    type="concept", title=term, body="\n".join([f"# {term}", "", *section]) + "\n",
                    status="seed", layer=self.layer, reason=f"defined in capture {self.cid}",
                )
            )
            return
        got = self.existing(path)
        if got is None:
            return
        self.mutations.append(
            UpdatePage(path=path, body=insert_section(got[1], self.date, section), status=_grown_status(got[0]),
                       reason=f"used in capture {self.cid}")
        )

    def _project_page(
        self, project: str, keys: list[int], decisions: list[int], entities: dict[str, _Entity], heading: str
    ) -> None:
        path = page_relpath("project", project, self.layer)
        clash = self.all_stems.get(stem_of(path).casefold())
        if clash is not None and clash != path:
            return
        exists = clash == path
        if exists and self.already_cites(path):
            return
        picked = self._top(sorted(set(keys) | set(decisions)), MAX_PROJECT_LINES)
        status = [i for i, u in enumerate(self.units) if _STATUS.search(u.text) and i not in picked][:2]
        lines = [self._line(path, self.units[i]) for i in picked]
        lines += [
            self._line(path, self.units[i], prefix="" if self.units[i].text.lower().startswith("status") else "Status: ")
            for i in status
        ]
        people = [e for e in sorted(entities.values(), key=lambda e: e.title) if e.entity_type == "person"]
        refs = [r for r in (self._first_ref(e) for e in people) if r is not None]
        if people and refs:
            names = ", ".join(f"[[{stem_of(e.path)}]]" for e in people if self._first_ref(e) is not None)
            lines.append(append_citation(f"- People: {names}", path, sorted(set(refs), key=lambda r: r[1])))
        if not lines:
            return
        section = [heading, "", *lines]
        if not exists:
            self.mutations.append(
                CreatePage(
                    type="project", title=" ".join(project.split()), status="seed", layer=self.layer,
                    body="\n".join([f"# {' '.join(project.split())}", "", *section]) + "\n",
                    entities=tuple(sorted(e.title for e in people)),
                    reason=f"project of capture {self.cid}",
                )
            )
            return
        got = self.existing(path)
        if got is None:
            return
        new_claims = [self._claim(i) for i in picked if not self._mentions_other(self.units[i].text, None)]
        self._contradictions(path, " ".join(project.split()), got[1], new_claims, None)
        self.mutations.append(
            UpdatePage(path=path, body=insert_section(got[1], self.date, section), status=_grown_status(got[0]),
                       reason=f"timeline entry from capture {self.cid}")
        )

    # -- contradictions and resolutions -----------------------------------------------------------

    def _old_claims(
        self, page_path: str, body: str, exclude: dict[str, str], words: set[str] | None = None
    ) -> list[CitedClaim]:
        """The cited lines of an existing page that name none of `exclude`, as claims (a table row
        gets its cells and header back from the cited source)."""
        lines = body.split("\n")
        out: list[CitedClaim] = []
        wanted = None if words is None else [w for m in words for w in MEASURES.get(m, (m,))]
        for _n, line in enumerate(lines, start=1):
            if "[source](" not in line:
                continue
            if wanted is not None and not any(w in line.lower() for w in wanted) and "|" not in line and " — " not in line:
                continue
            try:
                cites = parse_line(line, page_path)
            except ContractError:
                continue
            text = _claim_text(line)
            if not text or text.startswith("People:") or any(h[1] != page_path for h in find_known(text, exclude)):
                continue
            for c in cites:
                if c.capture_id == self.cid:
                    continue
                cells, header = self._row_context(c.path, c.end)
                out.append(CitedClaim(text, c.capture_id, c.path, c.start, c.end, cells, header))
        return out

    def _row_context(self, source_path: str, n: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        raw = self.__dict__.setdefault("_raw", {})
        if source_path not in raw:
            try:
                raw[source_path] = (self.ctx.root / source_path).read_text(encoding="utf-8").split("\n")
            except (OSError, UnicodeDecodeError):
                raw[source_path] = []
        lines = raw[source_path]
        if not 0 < n <= len(lines) or not lines[n - 1].lstrip().startswith("|"):
            return (), ()  # not a table row: no need to parse the source page
        doc = self._source_doc(source_path)
        if doc is None or not 0 < n <= len(doc.file_lines) or not doc.file_lines[n - 1].lstrip().startswith("|"):
            return (), ()
        first = doc.page.body_start_line
        lines = list(doc.file_lines[first - 1 :])
        units, _ = split_units(lines, first)
        for u in units:
            if u.end == n and u.kind == "row":
                return u.cells, u.header
        return (), ()

    def _source_doc(self, source_path: str):  # noqa: ANN202
        cache = self.__dict__.setdefault("_docs", {})
        if source_path not in cache:
            try:
                cache[source_path] = read_source(self.ctx.root, source_path)
            except (OSError, ContractError, UnicodeDecodeError):
                cache[source_path] = None
        return cache[source_path]

    def _claim(self, i: int) -> CitedClaim:
        u = self.units[i]
        return CitedClaim(u.text, self.cid, self.src.relpath, u.start, u.end, u.cells, u.header)

    def _contradictions(
        self, path: str, subject_title: str, old_body: str, new_claims: list[CitedClaim], ent: _Entity | None
    ) -> None:
        # Only a line that could state one of the new measures is worth parsing: pages grow, filing must not.
        words = {m.measure.split()[0] for c in new_claims for m in claim_measures(c, path)}
        if not words:
            return
        old = self._old_claims(path, old_body, self.names, words)
        if not old:
            return
        for conflict in find_conflicts(path, new_claims, old, self._recorded()):
            self.contradictions.append(self._proposal(path, subject_title, conflict))

    def _note_conflicts(self) -> list[Conflict]:
        """Figures with no named subject (the team's own revenue, headcount...) against the cited lines
        of the notes selected as candidates."""
        extra = dict(self.names)
        for e in self.entities.values():
            extra.update(dict.fromkeys(getattr(e, "surfaces_local", e.surfaces), e.path))
        named = NameIndex(extra)
        new = [self._claim(i) for i, u in enumerate(self.units) if not find_known(u.text, named)]
        old: list[CitedClaim] = []
        for cand in self.ctx.candidates:
            if cand.type == "note" and self.cid not in (cand.meta.get("sources") or []):
                old += self._old_claims(cand.path, cand.body, named)
        if not new or not old:
            return []
        return find_conflicts("", new, old, self._recorded())

    def _recorded(self) -> frozenset[tuple[str, int, int]]:
        """Claims already in a contradiction block on a candidate page: a later source that agrees with
        one side adds no second record of the same disagreement."""
        if not hasattr(self, "_recorded_claims"):
            out: set[tuple[str, int, int]] = set()
            for cand in self.ctx.candidates:
                if _BLOCK_START not in cand.body:
                    continue
                try:
                    blocks, _ = scan_blocks(cand.body, cand.path)
                except ContractError:
                    continue
                for b in blocks:
                    out |= {(c.source, c.start, c.end) for c in b.record.claims}
            self._recorded_claims = frozenset(out)
        return self._recorded_claims

    def _proposal(self, path: str, subject_title: str, c: Conflict) -> ContradictionProposal:
        old_date, old_title = self._source_date(c.old.source_path)
        new_date = self.date
        m = c.measure
        what = f"{m.measure}{' for ' + m.period if m.period else ''}"
        subject_title = subject_title or "the reported"
        explanation = (
            f"Sources disagree on {subject_title} {what}: {c.old_raw} in \u201c{old_title}\u201d ({old_date}) "
            f"versus {m.raw} in \u201c{self.page.title}\u201d ({new_date})."
        )
        if declares_revision(self.page.title, self.units) or self.page.resolution is not None:
            newer = "the later source" if new_date >= old_date else "the source filed later"
            explanation += (
                f" \u201c{self.page.title}\u201d ({new_date}) presents itself as a revision or correction, so it is "
                f"{newer}; both claims stay until a capture resolves this."
            )
        else:
            explanation += " Both claims are kept until a capture resolves this."
        claims = (
            Claim(c.old.text, old_date, c.old.capture_id, c.old.start, c.old.end),
            Claim(c.new.text, new_date, c.new.capture_id, c.new.start, c.new.end),
        )
        return ContradictionProposal(page=path, subject=f"{subject_title} {what}", explanation=explanation, claims=claims)

    def _source_date(self, source_path: str) -> tuple[str, str]:
        for e in self.ctx.evidence:
            if e.path == source_path:
                return e.occurred_at[:10], e.title
        try:
            doc = read_source(self.ctx.root, source_path)
        except (OSError, ContractError, UnicodeDecodeError):
            return "1970-01-01", stem_of(source_path)
        return doc.page.occurred_at[:10], doc.page.title

    def _resolutions(self) -> list[ResolutionProposal]:
        res = self.page.resolution
        if res is None or not res.resolves:
            return []
        marker = f"{_BLOCK_START}{res.resolves} -->"
        # Rare (only a capture that names a contradiction), so a scan of this layer's pages is affordable.
        for paths in self.cat.pages.values():
            for path in paths:
                try:
                    text = (self.ctx.root / path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if marker in text:
                    rationale = res.rationale.strip() or f"Resolved by capture {self.cid} ({self.page.title})."
                    return [ResolutionProposal(res.resolves, rationale, path, self.cid)]
        return []

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
        if self.aliases:
            parts.append(f"{len(self.aliases)} alias(es) proposed")
        return "; ".join(parts) + "."


# ---------------------------------------------------------------------------------------- helpers


def insert_section(body: str, date: str, section: list[str]) -> str:
    """`body` with a dated section inserted: before the first dated section that is later, else before the
    contradiction blocks at the end, else at the end. Existing lines are never touched."""
    lines = body.rstrip("\n").split("\n")
    at = len(lines)
    for n, line in enumerate(lines):
        m = _DATED.match(line)
        if m and m.group(1) > date:
            at = n
            break
    else:
        for n, line in enumerate(lines):
            if line.startswith(_BLOCK_START):
                at = n
                break
    block = [*section, ""]
    before = lines[:at]
    while before and before[-1] == "":
        before.pop()
    after = lines[at:]
    return "\n".join([*before, "", *block, *after]).rstrip("\n") + "\n"


def _claim_text(line: str) -> str:
    text = strip_citations(line).strip()
    text = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", text)
    text = re.sub(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?\|([^\[\]]+)\]\]", r"\2", text)
    text = re.sub(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?\]\]", r"\1", text)
    return " ".join(text.split())


@lru_cache(maxsize=1024)
def _term_pattern(title: str) -> re.Pattern[str]:
    if title.isupper() or "(" in title:
        return re.compile(rf"(?<![\w]){re.escape(title)}(?![\w])")
    head, rest = re.escape(title[0]), re.escape(title[1:])
    return re.compile(rf"(?<![\w])(?i:{head}){rest}(?:s|es)?(?![\w])")


def _generic_only(text: str, subject: str) -> bool:
    ms = measures_in(text, [subject])
    return bool(ms) and all(" " in m.measure and m.measure.split()[0] not in MEASURES for m in ms)


def _name_words(text: str) -> bool:
    words = text.split()
    return 2 <= len(words) <= 4 and all(w[:1].isupper() and w not in COMMON for w in words)


def _fold(name: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def _grown_status(meta: dict[str, Any]) -> str | None:
    status = meta.get("status")
    n = len(meta.get("sources") or []) + 1
    if status == "seed" and n >= 3:
        return "developing"
    return None


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
