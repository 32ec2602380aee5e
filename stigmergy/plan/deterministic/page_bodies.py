"""The page bodies a deterministic filing writes: the note of the capture (key points, decisions,
figures, figures that differ from earlier sources, the entities it mentions), and the dated sections it
adds to entity, concept and project pages, with `insert_section`, which places a dated section in date
order without touching an existing line; and the lines themselves (a cited source statement, linked
to the other pages it names). Plain functions over the filing's state (`state.Filing`): they read its
units, entities and catalogue and append to its mutations.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.citations import append_citation
from stigmergy.pages.contradictions import START_PREFIX as _BLOCK_START
from stigmergy.pages.paths import page_relpath, stem_of
from stigmergy.plan.deterministic.analysis import (
    PERIOD,
    Unit,
    find_known,
    measures_in,
    mentions,
    row_measures,
)
from stigmergy.plan.deterministic.contradictions import Conflict
from stigmergy.plan.deterministic.layout import (
    MAX_ARCHIVE_LINES,
    archive_base,
    archive_body,
    archive_key,
    archive_title,
    block_year,
    insert_section,
    split_archive,
    split_blocks,
)
from stigmergy.plan.deterministic.lead import MAX_ARCHIVE_LINKS, lead_lines
from stigmergy.plan.deterministic.state import (
    Entity,
    Filing,
    already_cites,
    count_on_disk,
    existing,
    source_definitions,
)
from stigmergy.plan.schema import CreatePage, UpdatePage

MAX_ENTITY_LINES = 6
MAX_CONCEPT_LINES = 4
MAX_PROJECT_LINES = 5
MAX_FIGURES = 12
_STATUS = re.compile(
    r"^status\b|\b(?:on track|off track|delayed|slipp(?:ed|ing)|blocked|behind schedule|ahead of schedule|"
    r"cancel(?:l)?ed|paused|on hold)\b",
    re.I,
)


# -- pages: the note, and a dated section on each entity, concept and project page --------------

def note(
    st: Filing,
    path: str,
    title: str,
    keys: list[int],
    decisions: list[int],
    entities: dict[str, Entity],
    concepts: dict[str, tuple[str, list[int], int | None]],
    conflicts: list[Conflict],
) -> None:
    body = [f"# {title}", ""]
    if keys:
        body += ["## Key points", ""] + [_line(st, path, st.units[i]) for i in keys] + [""]
    if decisions:
        body += ["## Decisions", ""] + [_line(st, path, st.units[i]) for i in decisions] + [""]
    taken = set(keys) | set(decisions)
    figures = [i for i in _figure_units(st) if i not in taken][:MAX_FIGURES]
    if figures:
        body += ["## Figures", ""] + [_line(st, path, st.units[i]) for i in figures] + [""]
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
    body = _unique_lines(body)
    written = "\n".join(body)
    related = []
    for e in sorted(entities.values(), key=lambda e: e.title):
        stem = stem_of(e.path)
        if f"[[{stem}]]" in written or f"[[{stem}|" in written:
            continue
        ref = _first_ref(st, e)
        if ref is not None:
            related.append(append_citation(f"- [[{stem}]]", path, [ref]))
    if related:
        body += ["## Mentioned", ""] + related + [""]
    ents = tuple(sorted(e.title for e in entities.values()))
    st.mutations.append(
        CreatePage(
            type="note", title=title, body="\n".join(body).rstrip("\n") + "\n", status="seed",
            entities=ents, layer=st.layer, reason=f"key lines of capture {st.cid}",
        )
    )


def _figure_units(st: Filing) -> list[int]:
    """Statements that give a measured figure (an amount, a percentage, a count with its period)."""
    out = []
    for i, u in enumerate(st.units):
        if u.kind == "meta":
            continue
        ms = row_measures(u.cells, u.header, "") if u.cells and u.header else measures_in(u.text, [""])
        if any(m.period or m.kind == "date" for m in ms):
            out.append(i)
    return out


def _first_ref(st: Filing, e: Entity) -> tuple[str, int, int] | None:
    if e.units:
        u = st.units[e.units[0]]
        return (st.src.relpath, u.start, u.end)
    if e.participant_lines:
        n = e.participant_lines[0]
        return (st.src.relpath, n, n)
    return None


def entity_page(st: Filing, e: Entity, heading: str) -> None:
    if not e.new and already_cites(st, e.path):
        return
    idxs = _top(st, e.units, MAX_ENTITY_LINES)
    lines = [_line(st, e.path, st.units[i]) for i in idxs]
    if not lines and e.participant_lines:
        n = e.participant_lines[0]
        said = "Listed as a participant." if e.entity_type == "person" else "Named in the document's front matter."
        lines = [append_citation(f"- {said}", e.path, [(st.src.relpath, n, n)])]
    if not lines:
        return
    section = [heading, "", *lines]
    if e.new:
        body = _shaped(st, e.path, e.title, e.entity_type, e.aliases, new_page_body(e.title, section))
        st.mutations.append(
            CreatePage(
                type="entity", title=e.title, body=body, status="seed", layer=st.layer,
                entity_type=e.entity_type, aliases=tuple(e.aliases),
                reason=f"named in capture {st.cid} ({e.evidence})",
            )
        )
        return
    got = existing(st, e.path)
    if got is None:
        return
    meta, old_body = got
    st.mutations.append(
        UpdatePage(
            path=e.path, body=_shaped(st, e.path, e.title, e.entity_type, list(meta.get("aliases") or []),
                                           insert_section(old_body, st.date, section)),
            status=_grown_status(meta), reason=f"named in capture {st.cid}",
        )
    )


def _shaped(st: Filing, path: str, title: str, kind: str, aliases: list[str], body: str) -> str:
    """A page body as filing leaves it: bounded (its oldest dated sections, its resolved contradiction
    blocks and its oldest open ones past a bound moved to the archive pages of their year, created or
    updated in this plan) and opening with a fresh lead."""
    body, moved = split_archive(body)
    planned = [c.subject for c in st.contradictions if c.page == path]
    resolving = st.page.resolution.resolves if st.page.resolution is not None else None
    body, leaving = split_blocks(body, path, len(planned), frozenset({resolving} if resolving else ()))
    blocks: dict[str, list[str]] = {}
    for b in leaving:
        blocks.setdefault(block_year(b, st.date[:4]), []).append(b.text)
    folder, stem = path.rsplit("/", 1)[0], path.rsplit("/", 1)[1][:-3]
    archives = _archives(st, folder, stem)
    for year in sorted(set(moved) | set(blocks)):
        sections, texts = moved.get(year, []), blocks.get(year, [])
        incoming = sum(len(sec) + 1 for sec in sections) + sum(t.count("\n") + 1 for t in texts)
        parts = sorted(k for k in archives if k[0] == year)
        part = parts[-1][1] if parts else 1
        apath = archives.get((year, part))
        got = existing(st, apath) if apath is not None else None
        if got is not None and got[1].count("\n") + incoming > MAX_ARCHIVE_LINES:
            part, got = part + 1, None  # this year's archive is full: the next part continues it
        atitle = archive_title(title, year, part)
        apath = f"{folder}/{archive_title(stem, year, part)}.md"
        pending = next((m for m in st.mutations if isinstance(m, CreatePage | UpdatePage)
                        and (getattr(m, "path", None) == apath or getattr(m, "title", None) == atitle)), None)
        if pending is not None:  # a second page of this plan moving into the same archive: never here
            continue
        # Each archive page links the newest one before it, so the lead links only the newest few.
        previous = stem_of(archives[max(archives)]) if archives and got is None else None
        reason = f"oldest dated sections and contradictions of {stem} moved out of the page"
        if got is None:
            ptype = path.split("/")[-2]
            mtype = {"entities": "entity", "concepts": "concept", "projects": "project"}.get(ptype, "note")
            st.mutations.append(CreatePage(
                type=mtype, title=atitle, body=archive_body(atitle, stem, year, sections, None, texts, previous),
                status="seed", layer=st.layer, entity_type=kind if mtype == "entity" else None, reason=reason,
            ))
        else:
            st.mutations.append(UpdatePage(
                path=apath, body=archive_body(atitle, stem, year, sections, got[1], texts), reason=reason,
            ))
        if st.all_stems.setdefault(stem_of(apath).casefold(), apath) == apath:
            st.added_stems.append(apath)
        archives[(year, part)] = apath
    newest = [stem_of(p) for _, p in sorted(archives.items(), reverse=True)]
    open_here = _open_subjects(body, path) + planned
    return lead_lines(path, title, kind, aliases, body, newest, open_here, _archived_open(st, newest))


def _archives(st: Filing, folder: str, stem: str) -> dict[tuple[str, int], str]:
    """(year, part) -> path of the archive pages of the page `folder/stem.md`: among the pages of that
    folder (the catalogue's listing, and the archives this plan adds), never a pass over every page."""
    out: dict[tuple[str, int], str] = {}
    listed = next((ps for ps in st.cat.pages.values() if ps and ps[0].startswith(folder + "/")), [])
    added = [p for p in st.added_stems if p.startswith(folder + "/")]
    prefix = f"{folder}/{stem} ("
    # The listing is sorted, so the paths with the prefix are one run of it, found by bisection: a pass
    # over the folder's every page for each page filed grew with the folder.
    at = end = bisect_left(listed, prefix)
    while end < len(listed) and listed[end].startswith(prefix):
        end += 1
    for p in (*listed[at:end], *added):
        # The prefix is necessary for archive_base(...) == stem; the stem map decides, as ever, which of
        # several pages with one casefolded stem is the page.
        if p.startswith(prefix) and p.count("/") == folder.count("/") + 1 \
                and st.all_stems.get(stem_of(p).casefold()) == p and archive_base(stem_of(p)) == stem:
            key = archive_key(stem_of(p))
            if key is not None:
                out[key] = p
    return out


def _open_subjects(body: str, path: str) -> list[str]:
    """Subjects of the open contradictions on the page body."""
    if _BLOCK_START not in body:
        return []
    from stigmergy.pages.contradictions import scan_blocks

    try:
        blocks, _ = scan_blocks(body, path)
    except ContractError:
        return []
    return [b.record.subject for b in blocks if b.record.status == "open"]


_OPEN_MARK = "> **Contradiction (open):**"


def _archived_open(st: Filing, archives: list[str]) -> list[tuple[str, int]]:
    """(archive page, open blocks on it) for the newest archive pages (at most MAX_ARCHIVE_LINKS, so the
    lead and its cost stay bounded), counted from the page text."""
    out = []
    for title in archives[:MAX_ARCHIVE_LINKS]:
        path = st.all_stems.get(title.casefold())
        n = 0
        if path is not None and path in st.pages_read:
            got = st.pages_read[path]
            n = got[1].count(_OPEN_MARK) if got is not None else 0
        elif path is not None:
            n = count_on_disk(st.ctx.root, path, _OPEN_MARK)  # only counted: no front matter parsed
        pending = next((m for m in st.mutations if isinstance(m, CreatePage | UpdatePage)
                        and (getattr(m, "path", None) == path or getattr(m, "title", None) == title)), None)
        if pending is not None:
            n = pending.body.count(_OPEN_MARK)
        if n:
            out.append((title, n))
    return out


def concepts(st: Filing, entities: dict[str, Entity]) -> dict[str, tuple[str, list[int], int | None]]:
    """term -> (path, units mentioning it, defining unit). Defined here, or already a concept page."""
    ent_names = {s.casefold() for e in entities.values() for s in e.surfaces} | {
        n.casefold() for n in st.names
    }
    out: dict[str, tuple[str, list[int], int | None]] = {}
    concept_stems = {stem_of(p): p for p in st.cat.pages.get("concept", [])}
    for d in source_definitions(st):
        if d.term.casefold() in ent_names or d.term.casefold() in st.project_stems:
            continue
        # An acronym a concept page already spells out ("Mean kinetic temperature (MKT)") is that page,
        # and so is a page named by the bare acronym when the spelled-out form comes later.
        spelled = next((p for st, p in concept_stems.items() if st.endswith(f"({d.term})") or (
            d.page_title != d.term and st == d.term) or (st.isupper() and d.page_title.endswith(f"({st})"))), None)
        path = spelled or page_relpath("concept", d.page_title, st.layer)
        clash = st.all_stems.get(stem_of(path).casefold())
        if clash is not None and clash != path:
            continue
        short = d.page_title.rsplit(" (", 1)[1][:-1] if d.page_title.endswith(")") and " (" in d.page_title else d.term
        if _LABEL.fullmatch(d.term):
            idxs = [i for i, u in enumerate(st.units) if _marked(d.term).search(u.text)]
        else:
            idxs = [i for i, u in enumerate(st.units) if mentions(u.text, [d.term, short])]
        title = stem_of(spelled) if spelled else d.page_title
        if title in out:
            continue
        if spelled:
            out[title] = (spelled, sorted(set(idxs) | {d.unit}), None)
            continue
        out[title] = (path, sorted(set(idxs) | {d.unit}), d.unit)
    text = st.page.title + "\n" + st.page.text
    for path in st.cat.pages.get("concept", []):
        got_title = stem_of(path)
        if any(v[0] == path for v in out.values()):
            continue
        # A term recurs in running text in lower case and plural ("custody events"); an acronym only as is.
        rx = _marked(got_title) if _LABEL.fullmatch(got_title) else _term_pattern(got_title)
        if rx.search(text):
            idxs = [i for i, u in enumerate(st.units) if rx.search(u.text)]
            if idxs:
                out[got_title] = (path, idxs, None)
    st.concept_paths = {t: v[0] for t, v in out.items()}
    for t, v in out.items():
        if t.endswith(")") and " (" in t:
            st.concept_paths.setdefault(t.rsplit(" (", 1)[1][:-1], v[0])
    for t, v in list(out.items()):
        if not t.isupper() and t.lower() != t:
            st.concept_paths.setdefault(t[0].lower() + t[1:], v[0])
    for _t, v in out.items():
        st.planned_stems.setdefault(stem_of(v[0]).casefold(), v[0])
    return out


def concept_page(st: Filing, term: str, path: str, idxs: list[int], defining: int | None, heading: str) -> None:
    exists = st.all_stems.get(stem_of(path).casefold()) == path
    if exists and already_cites(st, path):
        return
    chosen = _top(st, [i for i in idxs if i != defining], MAX_CONCEPT_LINES - (defining is not None))
    order = ([defining] if defining is not None else []) + chosen
    lines = [_line(st, path, st.units[i]) for i in order]
    if not lines:
        return
    section = [heading, "", *lines]
    if not exists:
        st.mutations.append(
            CreatePage(
                type="concept", title=term, body=_shaped(st, path, term, "concept", [], new_page_body(term, section)),
                status="seed", layer=st.layer, reason=f"defined in capture {st.cid}",
            )
        )
        return
    got = existing(st, path)
    if got is None:
        return
    st.mutations.append(
        UpdatePage(path=path, body=_shaped(st, path, term, "concept", [], insert_section(got[1], st.date, section)),
                   status=_grown_status(got[0]), reason=f"used in capture {st.cid}")
    )


def project_page(
    st: Filing, project: str, keys: list[int], decisions: list[int], entities: dict[str, Entity], heading: str
) -> None:
    path = page_relpath("project", project, st.layer)
    clash = st.all_stems.get(stem_of(path).casefold())
    if clash is not None and clash != path:
        return
    exists = clash == path
    if exists and already_cites(st, path):
        return
    picked = _top(st, sorted(set(keys) | set(decisions)), MAX_PROJECT_LINES)
    status = [i for i, u in enumerate(st.units) if _STATUS.search(u.text) and i not in picked][:2]
    lines = [_line(st, path, st.units[i]) for i in picked]
    lines += [
        _line(st, path, st.units[i], prefix="" if st.units[i].text.lower().startswith("status") else "Status: ")
        for i in status
    ]
    people = [e for e in sorted(entities.values(), key=lambda e: e.title) if e.entity_type == "person"]
    refs = [r for r in (_first_ref(st, e) for e in people) if r is not None]
    if people and refs:
        names = ", ".join(f"[[{stem_of(e.path)}]]" for e in people if _first_ref(st, e) is not None)
        lines.append(append_citation(f"- People: {names}", path, sorted(set(refs), key=lambda r: (r[1], r[2], r[0]))))
    if not lines:
        return
    section = [heading, "", *lines]
    if not exists:
        st.mutations.append(
            CreatePage(
                type="project", title=" ".join(project.split()), status="seed", layer=st.layer,
                body=_shaped(st, path, " ".join(project.split()), "project", [],
                                  new_page_body(" ".join(project.split()), section)),
                entities=tuple(sorted(e.title for e in people)),
                reason=f"project of capture {st.cid}",
            )
        )
        return
    got = existing(st, path)
    if got is None:
        return
    st.mutations.append(
        UpdatePage(path=path, body=_shaped(st, path, " ".join(project.split()), "project", [],
                                                insert_section(got[1], st.date, section)),
                   status=_grown_status(got[0]), reason=f"timeline entry from capture {st.cid}")
    )


# -- choosing lines (by the key-line scores `planner` ranks) -----------------------------------

def _top(st: Filing, idxs: Sequence[int], limit: int) -> list[int]:
    ranked = sorted(idxs, key=lambda i: (-st.scores.get(i, 0.0), i))
    return sorted(i for i in ranked[:limit] if st.scores.get(i, 0.0) > 0)


# -- lines -----------------------------------------------------------------------------------

def _line(st: Filing, page_path: str, u: Unit, prefix: str = "") -> str:
    text = _linkify(st, page_path, u.text)
    refs = [(st.src.relpath, u.start, u.end)]
    heading = None if prefix else _period_heading(st, u)
    if heading is not None:
        # "ARR was $1.2M" under "## Q1 2026 results" says nothing alone: the line carries its heading,
        # cited too, so that every word it shows is in the cited lines.
        prefix = f"{heading[1]}: "
        refs.insert(0, (st.src.relpath, heading[0], heading[0]))
    return append_citation(f"- {prefix}{text}", page_path, refs)


def _period_heading(st: Filing, u: Unit) -> tuple[int, str] | None:
    """(file line, text) of the heading that gives a statement's figures their period, when the
    statement states a figure that needs one and does not say it."""
    if u.kind == "row" or not u.section or len(u.section) > 60 or not PERIOD.search(u.section):
        return None
    ms = measures_in(u.text, [""])
    if not ms or not all(m.kind != "date" and " " not in m.measure and not m.period for m in ms):
        return None
    line = max((ln for ln, text, _ in st.headings if ln < u.start and text == u.section), default=None)
    return None if line is None else (line, u.section)


def _linkify(st: Filing, page_path: str, text: str) -> str:
    """Each other entity's (and concept's) first mention in the line becomes a wikilink."""
    targets: dict[str, str] = {}
    for e in st.entities.values():
        if e.path == page_path:
            continue
        for s in e.surfaces if e.surfaces_local is None else e.surfaces_local:
            targets[s] = e.path
    for term, path in st.concept_paths.items():
        if path != page_path:
            targets.setdefault(term, path)
    for name, path in st.project_paths.items():
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


def _unique_lines(body: list[str]) -> list[str]:
    """No line twice on a page: a key point that is also a differing figure is written once, and a section
    left with no line goes."""
    once: set[str] = set()
    kept = []
    for line in body:
        if line.startswith("- "):
            if line in once:
                continue
            once.add(line)
        kept.append(line)
    out: list[str] = []
    for n, line in enumerate(kept):
        if line.startswith("## "):
            nxt = next((x for x in kept[n + 1 :] if x.strip()), "")
            if not nxt.startswith("- "):
                continue
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return out


def new_page_body(title: str, section: list[str]) -> str:
    """The body of a page created with its first dated section."""
    return "\n".join([f"# {title}", "", *section]) + "\n"


# A term defined as one word in lower case ("**type**: the role or flavor of an issue", "**triage**: default label")
# is a label or an identifier: in prose the same word is ordinary ("three user types"), so only a line that writes it
# as the term (bold, code, a wikilink) speaks of it.
_LABEL = re.compile(r"[a-z][a-z-]*")


@lru_cache(maxsize=1024)
def _marked(term: str) -> re.Pattern[str]:
    t = re.escape(term)
    return re.compile(rf"\*\*{t}\*\*|__{t}__|`{t}`|\[\[{t}(?:\]\]|\|)")


@lru_cache(maxsize=1024)
def _term_pattern(title: str) -> re.Pattern[str]:
    if title.isupper() or "(" in title:
        return re.compile(rf"(?<![\w]){re.escape(title)}(?![\w])")
    head, rest = re.escape(title[0]), re.escape(title[1:])
    return re.compile(rf"(?<![\w])(?i:{head}){rest}(?:s|es)?(?![\w])")


def _grown_status(meta: dict[str, Any]) -> str | None:
    status = meta.get("status")
    n = len(meta.get("sources") or []) + 1
    if status == "seed" and n >= 3:
        return "developing"
    return None
