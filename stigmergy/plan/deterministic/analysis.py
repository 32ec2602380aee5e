"""Reading one source page the way a careful librarian would, with no model: statements with their line
ranges, the entities it names, the terms it defines, the figures it states, the lines that matter.

Everything here is a pure function of the source text and the catalogue of known names, so the same
input gives the same analysis byte for byte.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

# ---------------------------------------------------------------------------------------------- units

_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_WIKILINK = re.compile(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|([^\[\]]+))?\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]]*)\]\(([^()\s]*)(?:\s+\"[^\"]*\")?\)")
_COMMENT = re.compile(r"<!--.*?-->|<!--.*$")
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_RULE = re.compile(r"^\s*(?:[-=_*~]\s*){3,}$")
# A mail or chat header ("From: Priya <p@x>", "Cc: ...", "Subject: ..."): it names people but states nothing.
_MAIL_HEADER = re.compile(r"^\s*(?:From|To|Cc|Bcc|Date|Sent|Subject|Reply-To)\s*:\s", re.I)
_ABBREV = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|Inc|Ltd|Co|Corp|St|vs|etc|e\.g|i\.e|approx|No|Jr|Sr)\.$")

MAX_UNIT_CHARS = 420


@dataclass(frozen=True)
class Unit:
    """One statement of the source: cleaned text and the file lines it came from."""

    text: str
    start: int
    end: int
    section: str  # the nearest heading above it ('' at top)
    kind: str  # 'item' (list item), 'sentence' (paragraph text), 'row' (table row)
    order: int  # position in the source
    cells: tuple[str, ...] = ()  # table row cells
    header: tuple[str, ...] = ()  # the table's header cells


@dataclass(frozen=True)
class Link:
    target: str
    label: str | None


def clean_inline(text: str) -> str:
    """Markdown inline text made safe to copy onto a wiki line: links become their words (the builder
    re-links entities), HTML comments and tags go, whitespace collapses. Never adds a character that
    was not in the source line except ellipsis on an over-long line."""
    text = _COMMENT.sub(" ", text)
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)

    def md(m: re.Match[str]) -> str:
        label, url = m.group(1), m.group(2)
        if m.group(0).startswith("!"):
            return label
        if url.startswith(("http://", "https://")) and label.strip():
            return f"[{label}]({url})"
        return label

    text = _MDLINK.sub(md, text)
    text = _TAG.sub(" ", text)
    text = text.replace("[[", "[ [").replace("]]", "] ]")
    text = " ".join(text.split())
    if len(text) > MAX_UNIT_CHARS:
        cut = text[:MAX_UNIT_CHARS].rsplit(" ", 1)[0]
        text = cut.rstrip(",;:") + " …"
    return text


def source_links(text: str) -> list[Link]:
    return [Link(m.group(1).strip(), (m.group(2) or "").strip() or None) for m in _WIKILINK.finditer(text)]


def _split_sentences(joined: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(joined):
        piece = joined[start : m.start() + 1]
        if _ABBREV.search(piece.rstrip("\"')]")):
            continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(joined)))
    return spans


def split_units(lines: Sequence[str], first_line: int) -> tuple[list[Unit], list[tuple[int, str, int]]]:
    """Statements of a body whose first line sits at file line `first_line`.

    Returns (units, headings) where headings are (file line, text, level)."""
    units: list[Unit] = []
    headings: list[tuple[int, str, int]] = []
    section = ""
    in_fence = False
    para: list[tuple[int, str]] = []

    def flush() -> None:
        if not para:
            return
        joined = ""
        offsets: list[tuple[int, int]] = []  # (offset in joined, file line)
        for ln, raw in para:
            if joined:
                joined += " "
            offsets.append((len(joined), ln))
            joined += raw.strip()
        for a, b in _split_sentences(joined):
            piece = joined[a:b].strip()
            if not piece:
                continue
            s_line = max(ln for off, ln in offsets if off <= a)
            e_line = max(ln for off, ln in offsets if off < max(b - 1, a + 1))
            text = clean_inline(piece)
            if text:
                units.append(Unit(text, s_line, e_line, section, "sentence", len(units)))
        para.clear()

    header: tuple[str, ...] = ()
    header_line = 0
    item: list[tuple[int, str]] = []  # a list item and its indented continuation lines

    def flush_item() -> None:
        if item:
            text = clean_inline(" ".join(t.strip() for _, t in item))
            if text:
                units.append(Unit(text, item[0][0], item[-1][0], section, "item", len(units)))
            item.clear()

    for i, raw in enumerate(lines):
        ln = first_line + i
        if item and raw.strip() and raw[:1] in (" ", "\t") and not _LIST.match(raw) and not _FENCE.match(raw):
            item.append((ln, raw))
            continue
        flush_item()
        if _FENCE.match(raw):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not raw.strip():
            flush()
            continue
        h = _HEADING.match(raw)
        if h:
            flush()
            section = clean_inline(h.group(2))
            headings.append((ln, section, len(h.group(1))))
            continue
        if _RULE.match(raw) and not raw.lstrip().startswith("|"):
            flush()
            continue
        if _MAIL_HEADER.match(raw):
            flush()
            text = clean_inline(raw)
            if text:
                units.append(Unit(text, ln, ln, section, "meta", len(units)))
            continue
        if raw.lstrip().startswith("|"):
            flush()
            if _TABLE_SEP.match(raw):
                continue
            cells = tuple(clean_inline(c) for c in raw.strip().strip("|").split("|"))
            if i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]):
                header, header_line = cells, ln  # a header row states nothing by itself
                continue
            if header and len(header) == len(cells) and cells[0]:
                # "Revenue — Q2 2026: £2.41M; Q1 2026: £1.88M", cited from the header line down to the row,
                # so that every figure the line shows is in the cited lines.
                pairs = "; ".join(f"{h}: {c}" for h, c in zip(header[1:], cells[1:], strict=True) if c)
                text = f"{cells[0]} — {pairs}" if pairs else cells[0]
                units.append(Unit(text, header_line, ln, section, "row", len(units), cells, header))
                continue
            text = "; ".join(c for c in cells if c)
            if text:
                units.append(Unit(text, ln, ln, section, "row", len(units), cells, ()))
            continue
        header = ()
        if raw.lstrip().startswith(">"):
            raw = raw.lstrip()[1:]
        if _LIST.match(raw):
            flush()
            item.append((ln, _LIST.sub("", raw, count=1)))
            continue
        para.append((ln, raw))
    flush_item()
    flush()
    return units, headings


# ------------------------------------------------------------------------------------------- entities

WEEKDAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
MONTHS = {
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
}
# Capitalised words that are ordinary English when they open a sentence or a heading: never a name alone.
COMMON = set(
    """
    A An The This That These Those It Its We Our Us You Your They Their Them He She His Her I Me My Mine
    And But Or Nor So Yet For If Then Else When While Where Why How What Which Who Whom Whose Because
    Although Though Since Until Unless After Before During Between Among Across Over Under Above Below
    In On At By To From Of With Without Within Into Onto Upon About Around Per Via As Than Not No Yes
    All Any Each Every Some Most Many Much More Less Few Several Both Either Neither Other Another Such
    One Two Three Four Five Six Seven Eight Nine Ten First Second Third Last Next Previous Final Finally
    New Old Big Small High Low Good Bad Best Better Worse Early Late Full Half Key Main Major Minor
    Today Tomorrow Yesterday Now Later Soon Already Also Still Just Only Even Please Thanks Thank Hi Hello
    Dear Regards Cheers Note Notes Summary Overview Background Context Agenda Action Actions Item Items
    Decision Decisions Outcome Outcomes Follow Up Steps Step Open Questions Question Answer Answers Risks
    Risk Issues Issue Status Update Updates Plan Plans Goal Goals Next Team Teams Meeting Meetings Review
    Reviews Report Reports Weekly Daily Monthly Quarterly Annual Attendees Participants Present Absent
    Topic Topics Discussion Discussed Agreed Decided Proposed Approved Owner Owners Due Date Dates Time
    Project Projects Budget Revenue Sales Customer Customers User Users Product Products Company Results
    Q1 Q2 Q3 Q4 H1 H2 FY TBD TODO FYI OK ETA EOD EOW AM PM UTC CEO CTO CFO COO VP PR QA KPI
    Glossary Definitions Definition Terms Term Appendix Reference References Source Sources Introduction
    Conclusion Conclusions Recommendation Recommendations Findings Finding Highlights Lowlights Blockers
    Blocker Wins Learnings Lessons Feedback Changes Change Draft Revised Corrected Correction Final
    There Here Is Are Was Were Be Been Being Has Have Had Do Does Did Will Would Shall Should Can Could
    May Might Must Let Lets Let's Got Get Make Made Take Took Use Used Using Add Added Remove Removed
    Yes Maybe Overall Currently Recently Going Moving Looking Given Based Due Including Regarding
    Internal External Public Private General Special Standard Total Average Net Gross Growth Cost Costs
    End Start Begin Planned Resolved Investigating Monitoring Identified Operational Degraded Outage
    Incident Incidents Maintenance Cc Bcc Subject From To Sent Re Fwd Fw Attachment Attachments Posted
    Edited Joined Left Pinned Reply Replies Thread Channel Message Messages Welcome Congratulations
    """.split()
) | WEEKDAYS | MONTHS
CONNECTORS = {"of", "de", "van", "von", "der", "den", "la", "le", "du", "da", "&", "and"}
ORG_SUFFIX = {
    "Inc", "Inc.", "Ltd", "Ltd.", "LLC", "Corp", "Corp.", "Corporation", "Systems", "Labs", "Lab", "Group",
    "Technologies", "Technology", "Bank", "Partners", "Capital", "Ventures", "University", "Institute",
    "Foundation", "Agency", "Ministry", "Company", "GmbH", "AG", "SA", "plc", "PLC", "Holdings", "Solutions",
    "Software", "Networks", "Health", "Energy", "Analytics", "Council", "Committee", "Department", "Studio",
    "Studios", "Industries", "Media", "Robotics", "Logistics", "Therapeutics", "Pharma", "Bio", "AI",
    "Cloud", "Dynamics", "Works", "Co.", "Association", "Society", "Trust", "Fund", "Commission", "Board",
    "Freight", "Shipping", "Airlines", "Airways", "Motors", "Foods", "Pharmaceuticals", "Insurance",
}
PRODUCT_SUFFIX = {"API", "SDK", "App", "Platform", "Gateway", "Dashboard", "Portal", "Console", "Suite"}
# Organisation names given in a source's front matter (`customer: Norrland Fresh`).
ORG_KEYS = ("customer", "customers", "company", "organisation", "organization", "client", "partner", "vendor",
            "supplier", "account", "investor")
PLACE_SUFFIX = {"City", "County", "Street", "Park", "Valley", "Island", "Islands", "River", "Lake", "Bay",
                "Province", "State", "Region", "Airport", "Station", "Square", "Harbour", "Harbor"}
PLACES = set(
    """
    London Paris Berlin Madrid Rome Lisbon Dublin Amsterdam Brussels Vienna Zurich Geneva Munich Milan
    Stockholm Oslo Copenhagen Helsinki Warsaw Prague Budapest Athens Istanbul Moscow Kyiv Tokyo Osaka Seoul
    Beijing Shanghai Singapore Sydney Melbourne Toronto Montreal Vancouver Chicago Boston Seattle Austin
    Denver Atlanta Miami Dallas Houston Berkeley Oakland Brooklyn Manhattan Mumbai Bangalore Delhi Dubai Cairo
    Lagos Nairobi Johannesburg Mexico Brazil Argentina Chile Peru Canada France Germany Spain Italy Portugal
    Ireland Netherlands Belgium Switzerland Austria Sweden Norway Denmark Finland Poland Greece Turkey Japan
    China India Australia Kenya Nigeria Egypt Europe Asia Africa America Americas EMEA APAC LATAM
    Leeds Manchester Birmingham Liverpool Bristol Sheffield Newcastle Edinburgh Glasgow Cardiff Belfast Cork
    Galway Limerick Gothenburg Malmö Uppsala Umeå Jönköping Bergen Trondheim Aarhus Odense Porto Rotterdam
    Antwerp Hamburg Frankfurt Cologne Lyon Marseille Barcelona Valencia Seville Sintra Tallinn Riga Vilnius
    Scotland Wales England Sweden Iceland Estonia Latvia Lithuania Luxembourg Croatia Romania Bulgaria Hungary
    """.split()
) | {"New York", "San Francisco", "Los Angeles", "Hong Kong", "United States", "United Kingdom", "South Africa",
     "New Zealand", "Buenos Aires", "São Paulo", "Sao Paulo", "Cape Town", "Tel Aviv", "Mexico City"}
FIRST_NAMES = set(
    """
    Aaron Adam Adrian Ahmed Aisha Alan Alex Alexander Alice Alicia Amanda Amir Amy Ana Andrea Andrew Angela
    Anna Anne Anthony Arjun Ava Ben Benjamin Beth Bob Brian Carla Carlos Carol Catherine Charles Charlie
    Chen Chris Christina Christopher Claire Daniel David Diana Diego Dmitri Elena Eli Elizabeth Ella Emily
    Emma Eric Erik Eva Fatima Felix Fiona Frank Gabriel George Grace Hannah Hans Harry Helen Henry Hiro Ian
    Isabel Ivan Jack Jacob James Jane Jason Javier Jennifer Jessica Joe John Jonas Jordan Jose José Joseph
    Julia Julie Karen Kate Katie Kevin Kim Laura Lars Lea Lee Leo Li Linda Lisa Liam Lucas Lucy Luis Maria
    Marco Marcus Mark Martin Mary Matt Matthew Mei Michael Michelle Miguel Mike Mohammed Nadia Nina Noah
    Olivia Omar Oscar Pablo Patrick Paul Pedro Peter Priya Rachel Rahul Raj Ravi Rebecca Richard Robert Rosa
    Ryan Sam Samuel Sara Sarah Sean Sergei Simon Sofia Sophie Stefan Steve Steven Susan Thomas Tim Tom Tomas
    Victor Wei William Yuki Zara Zoe Nora Ingrid Astrid Kenji Aiko Omar Leila Hassan Noor Tariq Jun Yan
    Dev Anil Sunita Kofi Ama Chidi Ngozi Lena Mateo Valentina Camila Lucia Marta Pieter Jan Bram Sanne
    """.split()
)
_TOKEN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ0-9][\w'’.&-]*")


@dataclass(frozen=True)
class NameHit:
    name: str
    unit: int  # index of the unit
    initial: bool  # the run opened its sentence / item


def _is_cap(tok: str) -> bool:
    return tok[0].isupper() and not tok.isdigit()


def _strip_tok(tok: str) -> str:
    if tok.endswith(("'s", "’s")):
        tok = tok[:-2]
    return tok.rstrip(".'’-") if not tok.endswith(("Inc.", "Ltd.", "Corp.", "Co.")) else tok


def proper_name_runs(text: str) -> list[tuple[str, bool]]:
    """Runs of capitalised words (allowing 'of', 'de', '&' inside), each with whether it opens the
    text. Weekdays, months and common words at the start are shed; runs made only of common words vanish."""
    out: list[tuple[str, bool]] = []
    toks = [(m.group(0), m.start()) for m in _TOKEN.finditer(text)]
    i = 0
    while i < len(toks):
        tok, pos = toks[i]
        if not _is_cap(tok):
            i += 1
            continue
        run = [(tok, pos)]
        j = i + 1
        while j < len(toks):
            t, p = toks[j]
            gap = text[run[-1][1] + len(run[-1][0]) : p]
            if gap.strip() not in ("",) or run[-1][0].endswith((".", ",")) and not run[-1][0].endswith(("Inc.", "Co.")):
                break
            if _is_cap(t):
                run.append((t, p))
                j += 1
                continue
            if t in CONNECTORS and j + 1 < len(toks) and _is_cap(toks[j + 1][0]):
                run.append((t, p))
                j += 1
                continue
            break
        i = j
        prefix = text[: run[0][1]]
        initial = not prefix.strip() or bool(re.search(r"[.!?:;]\s*[\"'(]?$|^\W*$", prefix))
        words = [_strip_tok(t) for t, _ in run]
        # Shed leading and trailing words that are not part of a name.
        while words and (words[0] in COMMON or words[0].lower() in CONNECTORS or _looks_figure(words[0])):
            words.pop(0)
            initial = False if words else initial
        while words and (words[-1] in COMMON or words[-1].lower() in CONNECTORS or _looks_figure(words[-1])):
            words.pop()
        # Break at any inner weekday/month/common-only token group.
        if not words:
            continue
        if any(w in WEEKDAYS or w in MONTHS for w in words):
            continue
        name = " ".join(words)
        if len(name) < 2 or not any(c.isalpha() for c in name):
            continue
        out.append((name, initial and words[0] == _strip_tok(run[0][0])))
    return out


def _looks_figure(tok: str) -> bool:
    return bool(re.match(r"^(?:Q[1-4]|H[12]|FY\d*|\d[\w.,]*|[A-Z]{1,2}\d+)$", tok))


@dataclass
class EntityCandidate:
    name: str
    entity_type: str
    evidence: str
    units: list[int] = field(default_factory=list)
    known_path: str | None = None  # set when the name (or alias) belongs to an existing entity page
    matched: str = ""  # the surface form found in the source


_ROLE = (
    r"(?:CEO|CTO|CFO|COO|CPO|VP|SVP|EVP|Head|Lead|Director|Manager|Engineer|Founder|co-founder|Partner|Officer|"
    r"Chief|President|Designer|Analyst|Scientist|Consultant|Researcher|Architect|Developer|Recruiter|Counsel)"
)


def guess_entity_type(
    name: str, contexts: Iterable[str], participants: set[str], organisations: set[str] = frozenset()
) -> str:
    words = name.split()
    if name in participants:
        return "person"
    if name in organisations:
        return "organisation"
    if words[-1] in ORG_SUFFIX or any(w in {"&", "and"} for w in words):
        return "organisation"
    if words[-1] in PRODUCT_SUFFIX and len(words) >= 2:
        return "product"
    if name in PLACES or words[-1] in PLACE_SUFFIX:
        return "place"
    ctx = " ".join(contexts)
    esc = re.escape(name)
    person_shaped = 2 <= len(words) <= 4 and all(w[:1].isupper() and (w.isalpha() or "-" in w or "'" in w) for w in words)
    if person_shaped and (
        # a chat speaker "[13:25] Tomasz Wieczorek:", a mail header "From: Aoife Brennan <…>", a title "Dr. X",
        # a role "X (CTO", "X, Head of Sales", "Aoife Brennan Quality Director"
        re.search(rf"\[\d{{1,2}}:\d{{2}}(?::\d{{2}})?\]\s*{esc}:", ctx)
        or re.search(rf"(?:^|\s)(?:From|To|Cc|Bcc):\s*(?:[^:]*,\s*)?{esc}\b", ctx, re.I)
        or re.search(rf"\b(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+{esc}\b", ctx)
        or re.search(rf"\b{esc}\s*(?:\(|,|—|–|-)?\s*(?:the\s+|our\s+)?(?:[A-Z][a-z]+\s+){{0,2}}{_ROLE}\b", ctx)
    ):
        return "person"
    if re.search(rf"\b(?:launch(?:ed|es|ing)?|releas(?:e|ed|es|ing)|ship(?:ped|s)?|version of|rolled out|beta of|using|uses|deploy(?:ed)?|renamed (?:its|the|our) (?:platform|product|app) (?:to )?)\s+(?:the\s+|a\s+|an\s+)?{esc}\b", ctx) or re.search(rf"\b{esc}\s+(?:v?\d+(?:\.\d+)+|app|platform|API|SDK|release|beta|launch)\b", ctx):
        return "product"
    if re.search(rf"\b{esc}\s*\((?:CEO|CTO|CFO|COO|VP|head|lead|director|manager|engineer|founder)", ctx, re.I) or re.search(rf"\b{esc}\s+(?:said|says|noted|asked|agreed|proposed|presented|joined|will|thinks|suggested|owns|reported)\b", ctx):
        if len(words) >= 2:
            return "person"
    if len(words) in (2, 3) and words[0] in FIRST_NAMES and all(w.isalpha() or "-" in w or "'" in w for w in words):
        return "person"
    if re.search(rf"\b(?:customers?|clients?|partners?|investors?|carriers?|suppliers?|distributors?|vendors?)\s+(?:such as\s+|like\s+|including\s+)?{esc}\b", ctx) \
            or re.search(rf"\b{esc},\s+(?:a|an|our|the)\s+(?:[\w-]+\s+){{0,3}}(?:customer|company|distributor|partner|investor|carrier|firm|supplier|vendor|retailer|manufacturer)\b", ctx):
        return "organisation"
    if re.search(rf"\b(?:at|with|from|for|by|acquired|partnered with|customer)\s+{esc}\b", ctx) and len(words) <= 3:
        return "organisation"
    if re.search(rf"\b{esc}(?:-based|\s+(?:office|offices|HQ|headquarters))\b", ctx) and len(words) <= 2:
        return "place"
    if re.search(rf"\b(?:in|to|near)\s+{esc}\b", ctx) and len(words) <= 2:
        return "place"
    return "other"


_PROJECT = re.compile(r"\bProject\s+(?P<name>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})")


def project_mentions(text: str) -> set[str]:
    """Names written as "Project X" in text: X is a project, filed on its project page, never an entity."""
    out = set()
    for m in _PROJECT.finditer(text):
        words = [_strip_tok(w) for w in m.group("name").split()]
        while words and (words[-1] in COMMON or _looks_figure(words[-1])):
            words.pop()
        if words and words[0] not in COMMON:
            out.add(" ".join(words))
    return out


_WORDSPAN = re.compile(r"\w+")


def _max_words(names: Iterable[str]) -> int:
    return max((len(_WORDSPAN.findall(n)) for n in names), default=1) or 1


class NameIndex(dict[str, str]):
    """name -> path, with the longest name's word count computed once (find_known's only per-call cost
    that would otherwise grow with the number of names)."""

    def __init__(self, mapping: Mapping[str, str]) -> None:
        super().__init__(mapping)
        self.max_words = _max_words(self)


def find_known(text: str, catalogue: Mapping[str, str]) -> list[tuple[str, str, int, int]]:
    """Whole-word, case-aware occurrences of catalogue names in text: (surface, path, start, end).
    The longest name starting at a word wins. Cost grows with the text, not with the catalogue."""
    if not catalogue or not text:
        return []
    max_words = catalogue.max_words if isinstance(catalogue, NameIndex) else _max_words(catalogue)
    spans = [(m.start(), m.end()) for m in _WORDSPAN.finditer(text)]
    hits: list[tuple[str, str, int, int]] = []
    i = 0
    while i < len(spans):
        start = spans[i][0]
        found = None
        for k in range(min(max_words, len(spans) - i), 0, -1):
            end = spans[i + k - 1][1]
            for e in (end + 1, end) if end < len(text) and text[end] == "." else (end,):
                if e < len(text) and (text[e].isalnum() or text[e] == "_"):
                    continue
                if text[start:e] in catalogue:
                    found = (text[start:e], catalogue[text[start:e]], start, e, k)
                    break
            if found:
                break
        if found:
            hits.append(found[:4])
            i += found[4]
        else:
            i += 1
    return hits


def detect_entities(
    units: Sequence[Unit],
    title: str,
    participants: Sequence[str],
    links: Sequence[Link],
    catalogue: Mapping[str, str],
    organisations: Sequence[str] = (),
) -> list[EntityCandidate]:
    """Known names first; new ones only with evidence (see docs/planning.md)."""
    found: dict[str, EntityCandidate] = {}
    # Known entities: exact names and aliases, whole word.
    for idx, u in enumerate(units):
        for surface, path, _, _ in find_known(u.text, catalogue):
            key = "known:" + path
            cand = found.get(key)
            if cand is None:
                cand = found[key] = EntityCandidate(surface, "", "known", [], path, surface)
            if idx not in cand.units:
                cand.units.append(idx)
    known_surfaces = {n for n in catalogue}
    participant_set = {p.strip() for p in participants if p and p.strip()}
    counts: Counter[str] = Counter()
    initial_only: dict[str, bool] = {}
    where: dict[str, list[int]] = {}
    for idx, u in enumerate(units):
        for name, initial in proper_name_runs(u.text):
            counts[name] += 1
            initial_only[name] = initial_only.get(name, True) and initial
            where.setdefault(name, [])
            if idx not in where[name]:
                where[name].append(idx)
    linked = {lk.target for lk in links}
    title_names = {n for n, _ in proper_name_runs(title)}
    accepted: dict[str, str] = {}
    for name in sorted(where):
        if name in known_surfaces or any(name in k.split() for k in known_surfaces if " " in k and name != k):
            continue
        words = name.split()
        evidence = ""
        if name in participant_set:
            evidence = "participants list"
        elif name in linked:
            evidence = "linked in the source"
        elif len(words) >= 2 and counts[name] >= 2:
            evidence = f"multi-word name used {counts[name]} times"
        elif name in title_names and counts[name] >= 1 and not initial_only[name] and len(words) >= 2:
            evidence = "named in the title and the text"
        elif len(words) == 1 and counts[name] >= 3 and not initial_only[name] and len(where[name]) >= 2 \
                and not name.isupper() and name not in FIRST_NAMES:
            evidence = f"name used {counts[name]} times mid-sentence"
        if evidence:
            accepted[name] = evidence
    for p in sorted(participant_set):
        if p not in accepted and p not in known_surfaces and p not in where and _name_like(p):
            accepted[p] = "participants list"
            where[p] = []
    # "[[Pellucid Pharma Logistics|Pellucid]]": the link names the identity even where the text shows only
    # the label; the statements that show the label speak of it.
    for lk in sorted(links, key=lambda lk: (lk.target, lk.label or "")):
        t = " ".join(lk.target.split())
        if t in accepted or t in known_surfaces or not _name_like(t) or not any(w not in COMMON for w in t.split()):
            continue
        shown = lk.label or t
        idxs = [i for i, u in enumerate(units) if mentions(u.text, [shown])]
        if idxs:
            accepted[t] = "linked in the source"
            where[t] = sorted(set(where.get(t, [])) | set(idxs))
    # A single word that is part of an accepted longer name is that name, not a second entity.
    for name in list(accepted):
        if " " not in name and any(name in other.split() for other in accepted if other != name):
            del accepted[name]
    org_set = {o.strip() for o in organisations if o and o.strip()}
    for name in sorted(accepted):
        contexts = [units[i].text for i in where.get(name, [])]
        etype = guess_entity_type(name, contexts, participant_set, org_set)
        if etype == "other" and accepted[name].startswith("name used"):
            # A single word seen often but never as a person, organisation, place or product ("Beacon
            # gateways", "Beacon units") is a modifier, not evidence of an identity.
            continue
        found["new:" + name] = EntityCandidate(name, etype, accepted[name], list(where.get(name, [])), None, name)
    return sorted(found.values(), key=lambda c: (c.known_path is None, c.name))


def _name_like(text: str) -> bool:
    words = text.split()
    return 1 <= len(words) <= 5 and all(w[0].isupper() for w in words if w.lower() not in CONNECTORS) and len(text) <= 80


def mentions(text: str, names: Iterable[str]) -> bool:
    """Whether text names any of a few names (whole word, case-aware). For a whole catalogue of names use
    `find_known` with a prebuilt mapping: its cost does not grow with the number of names."""
    pattern = _alternation(tuple(sorted({n for n in names if n})))
    return pattern is not None and pattern.search(text) is not None


@lru_cache(maxsize=4096)
def _alternation(names: tuple[str, ...]) -> re.Pattern[str] | None:
    if not names:
        return None
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?:{alts})(?![\w])")


# ---------------------------------------------------------------------------------------------- aliases

_FORMERLY = re.compile(
    r"(?P<a>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,4})\s*[,(]\s*(?:formerly(?: known as)?|previously|née|f/k/a|fka)\s+"
    r"(?P<b>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,4})"
)
_AKA = re.compile(
    r"(?P<a>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,4})(?:,[^,.;()]{1,60})?\s*[,(]\s*(?:also known as|aka|a\.k\.a\.|also called|known as)\s+"
    r"(?P<b>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,4})"
)


def alias_statements(text: str) -> list[tuple[str, str]]:
    """(name, variant) pairs stated in one line: 'X (formerly Y)', 'X, also known as Y'."""
    out = []
    for rx in (_FORMERLY, _AKA):
        for m in rx.finditer(text):
            a, b = m.group("a").strip(" .,"), m.group("b").strip(" .,)")
            words = a.split()
            while words and words[0] in COMMON:
                words.pop(0)
            a = " ".join(words)
            if a and b and a != b:
                out.append((a, b))
    return out


# ---------------------------------------------------------------------------------------------- figures

_MONEY = r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?(?:[kKmMbB]n?|million|billion|thousand|bn)?\b|\d[\d,]*(?:\.\d+)?\s?(?:[kKmMbB]|million|billion|thousand|bn)?\s?(?:USD|EUR|GBP|dollars|euros|pounds)\b)"
_PERCENT = r"\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|pp\b|bps\b)"
_ISO_DATE = r"\b\d{4}-\d{2}-\d{2}\b"
_TEXT_DATE = r"\b(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?,?)?\s+\d{4}\b"
_COUNT = r"\b\d[\d,]*(?:\.\d+)?\s?(?:[kKmM]\b)?"
FIGURE = re.compile(rf"(?P<money>{_MONEY})|(?P<percent>{_PERCENT})|(?P<date>{_ISO_DATE}|{_TEXT_DATE})|(?P<count>{_COUNT})")
PERIOD = re.compile(
    r"\b(?:Q[1-4]\s*(?:FY\s?)?'?\d{2,4}|Q[1-4]|H[12]\s*\d{4}|FY\s?'?\d{2,4}|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}|\d{4})\b"
)
MEASURES = {
    "revenue": ("revenue", "revenues", "sales", "turnover", "income"),
    "arr": ("arr", "annual recurring revenue"),
    "mrr": ("mrr", "monthly recurring revenue"),
    "profit": ("profit", "ebitda", "net income", "margin", "margins"),
    "headcount": ("headcount", "employees", "staff", "engineers", "people", "hires"),
    "customers": ("customers", "clients", "accounts", "logos"),
    "users": ("users", "subscribers", "signups", "sign-ups", "downloads", "dau", "mau"),
    "churn": ("churn", "churn rate", "attrition"),
    "growth": ("growth", "grew", "increase", "increased"),
    "price": ("price", "priced", "pricing", "costs", "cost", "fee", "fees"),
    "budget": ("budget", "spend", "spending", "funding", "raised", "valuation", "round"),
    "launch": ("launched", "released", "shipped", "went live", "generally available", "general availability"),
    "launch plan": ("launch", "launches", "release date", "go-live", "deadline", "due", "target date", "scheduled"),
    "latency": ("latency", "uptime", "availability", "response time"),
    "conversion": ("conversion", "conversion rate", "retention", "nps"),
    "deals": ("deals", "contracts", "orders", "pipeline", "bookings"),
}


# One compiled pattern per measure: `measures_in` runs on every cited line of every touched page.
_MEASURE_RES = {
    measure: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b")
    for measure, words in MEASURES.items()
}


def measure_kinds(low: str) -> list[str]:
    """The measures whose words occur (whole word) in the lower-cased text, in MEASURES order."""
    return [m for m, rx in _MEASURE_RES.items() if rx.search(low)]


@dataclass(frozen=True)
class Figure:
    kind: str  # money | percent | date | count
    raw: str
    value: str  # normalised, comparable


def _norm_number(raw: str) -> str:
    s = raw.lower().replace(",", "").replace(" ", "")
    m = re.search(r"\d+(?:\.\d+)?", s)
    if not m:
        return s
    num = float(m.group(0))
    rest = s[m.end() :]
    mult = 1.0
    if rest.startswith(("k", "thousand")):
        mult = 1e3
    elif rest.startswith(("bn", "b", "billion")):
        mult = 1e9
    elif rest.startswith(("m", "million")):
        mult = 1e6
    cur = ""
    for sym, code in (("$", "usd"), ("€", "eur"), ("£", "gbp"), ("¥", "jpy"), ("usd", "usd"), ("dollar", "usd"),
                      ("eur", "eur"), ("gbp", "gbp"), ("pound", "gbp")):
        if sym in s:
            cur = code
            break
    return f"{cur}{num * mult:.6g}"


def figures(text: str) -> list[Figure]:
    out = []
    for m in FIGURE.finditer(text):
        kind = m.lastgroup or "count"
        raw = m.group(0).strip()
        if kind == "count":
            # Years, quarter numbers and list ordinals are not counts of anything.
            if re.fullmatch(r"(19|20)\d{2}", raw) or len(raw.replace(",", "")) == 0:
                continue
            before = text[max(0, m.start() - 2) : m.start()]
            if before.endswith(("Q", "H", "v", "#", "L")) or before.endswith("FY"):
                continue
        value = raw if kind == "date" else _norm_number(raw)
        out.append(Figure(kind, raw, value))
    return out


@dataclass(frozen=True)
class Measure:
    subject: str  # entity path or name
    measure: str
    period: str
    kind: str
    value: str
    raw: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.subject, self.measure, self.period, self.kind)


def measures_in(text: str, subjects: Sequence[str]) -> list[Measure]:
    """(subject, measure, period, figure) facts stated in one line. A line yields a measure only when
    it names exactly one subject and one measure word, so that two different quantities in one line
    are never compared with each other."""
    if len(subjects) != 1:
        return []
    return list(_measures_in(text, subjects[0]))


@lru_cache(maxsize=65536)
def _measures_in(text: str, subject: str) -> tuple[Measure, ...]:
    # Cached: the same old cited lines are re-measured by every capture that touches their page.
    return tuple(_measures_uncached(text, [subject]))


def _measures_uncached(text: str, subjects: Sequence[str]) -> list[Measure]:
    low = text.lower()
    kinds = measure_kinds(low)
    if not kinds:
        return _generic_measures(text, subjects[0])
    if {"launch", "launch plan"} <= set(kinds):
        kinds = [k for k in kinds if k != "launch plan"]
    if len(kinds) != 1:
        # 'ARR' also reads as 'revenue': prefer the more specific measure.
        if set(kinds) >= {"arr", "revenue"} and len(kinds) == 2:
            kinds = ["arr"]
        elif set(kinds) >= {"mrr", "revenue"} and len(kinds) == 2:
            kinds = ["mrr"]
        else:
            return []
    periods = sorted({" ".join(p.group(0).split()) for p in PERIOD.finditer(text)})
    figs = [f for f in figures(text) if f.kind != "date" or kinds[0].startswith("launch")]
    # Figures that are the period itself (a bare year) are already dropped by figures().
    by_kind: dict[str, list[Figure]] = {}
    for f in figs:
        by_kind.setdefault(f.kind, []).append(f)
    out = []
    for kind, fs in sorted(by_kind.items()):
        if len(fs) != 1:
            continue
        if kind == "date":
            period = ""
        else:
            period = periods[0] if len(periods) == 1 else ("" if not periods else "|".join(periods))
        out.append(Measure(subjects[0], kinds[0], period, kind, fs[0].value, fs[0].raw))
    return out


def row_measures(cells: Sequence[str], header: Sequence[str], subject: str) -> list[Measure]:
    """Measures of a table row: the first cell names the measure, each header cell the period."""
    if len(cells) < 2 or len(header) != len(cells):
        return []
    low = cells[0].lower()
    kinds = measure_kinds(low)
    if len(kinds) != 1:
        return []
    out = []
    for cell, head in zip(cells[1:], header[1:], strict=True):
        periods = [" ".join(p.group(0).split()) for p in PERIOD.finditer(head)]
        figs = [f for f in figures(cell) if f.kind != "date"]
        if len(periods) == 1 and len(figs) == 1:
            out.append(Measure(subject, kinds[0], periods[0], figs[0].kind, figs[0].value, figs[0].raw))
    return out


_GENERIC = re.compile(
    r"\b(?P<subj>[A-Za-z]{3,})(?:'s|’s)?\s+(?:covers|covered|has|had|includes|included|spans|spanned|serves|served|"
    r"reached|reaches|totals|totalled|totaled)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?"
    r"(?P<num>\d[\d,]*)\s+(?P<unit>[a-z]{3,})\b"
)
_VAGUE = {"it", "this", "that", "which", "who", "she", "they", "one", "each", "team", "everyone", "now", "also",
          "still", "already", "only", "and", "but", "what", "there", "here"}


def _generic_measures(text: str, subject: str) -> list[Measure]:
    """'<noun> covers 37 lanes': a count of <unit> held by <noun>, compared only with the same noun and unit."""
    out = []
    for m in _GENERIC.finditer(text):
        noun = m.group("subj").lower()
        if noun in _VAGUE or noun in STOP:
            continue
        out.append(Measure(subject, f"{noun} {m.group('unit')}", "", "count", _norm_number(m.group("num")), m.group("num")))
    return out if len(out) == 1 else []


# --------------------------------------------------------------------------------------------- concepts

_DEFINE = re.compile(
    r"^(?P<bold>\*\*|__)?(?:(?:An?|The)\s+)?(?P<term>[A-Za-z][\w/-]*(?:\s+[\w/-]+){0,3}?)(?:\*\*|__)?\s+"
    r"(?:\([^)]{1,60}\)\s+)?(?P<verb>is|are|means|refers to|is defined as|describes)\s+"
    r"(?P<rest>(?:a|an|the|when|how|what|our|any|one)\b.*)$"
)
# "X is an example", "X is a lot of…": a description of a case, not the meaning of a term.
_NOT_A_DEFINITION = re.compile(
    r"^(?:a|an)\s+(?:example|instance|case|part|result|reminder|sign|lot|bit|number|couple|first|second|third|"
    r"few|little|good|great|big)\b",
    re.I,
)
# Acronyms of common technology and institutions: not a team's glossary term.
GENERIC_ACRONYMS = set(
    """
    API APIs SDK SMS MMS URL URI HTTP HTTPS REST SQL CSV PDF JSON XML HTML CSS UI UX AI ML LLM IT HR PR QA
    IoT GPS USB LTE SIM CPU GPU RAM SSD VPN DNS TLS SSL SSO MFA SaaS PaaS IaaS B2B B2C ERP CRM KPI OKR ROI SLA
    SLO NDA GDPR EU UK US USA UN NHS FAQ ETA ASAP CEO CTO CFO COO CPO VP SRE DevOps PM EMEA APAC
    """.split()
)
_MONTH_OR_YEAR = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December|(?:19|20)\d{2})\b"
)
_GLOSSARY = re.compile(r"^(?:\*\*|__)(?P<term>[^*_]{2,60})(?:\*\*|__)\s*[:—–-]\s+(?P<rest>.+)$|^(?P<term2>[A-Z][\w /-]{1,50}?)\s*[:—–]\s+(?P<rest2>[A-Z].+)$")
_ACRONYM = re.compile(r"\b(?P<long>[A-Z][a-z]+(?:[ -][A-Za-z][a-z]+){1,5})\s+\((?P<short>[A-Z][A-Z0-9]{1,7})\)")
_PRONOUNS = {"it", "this", "that", "these", "those", "there", "he", "she", "they", "we", "i", "you", "which",
             "what", "who", "here", "everything", "nothing", "something", "everyone", "one", "each", "all"}
GLOSSARY_SECTIONS = ("glossary", "definitions", "terms", "terminology", "key terms", "vocabulary")


@dataclass(frozen=True)
class Definition:
    term: str
    unit: int
    how: str  # 'defined' | 'glossary' | 'acronym'


def _term_ok(term: str) -> bool:
    words = term.split()
    if not words or len(words) > 4 or len(term) > 60:
        return False
    if words[0].lower() in _PRONOUNS or all(w in COMMON or w.lower() in {c.lower() for c in COMMON} for w in words):
        return False
    if any(w.lower() in {"is", "are", "was", "were", "will", "has", "have", "our", "my", "your"} for w in words):
        return False
    if _MONTH_OR_YEAR.search(term):
        return False  # "April 2026 ingestion backlog" is an event, not an idea
    return any(c.isalpha() for c in term)


def _acronym_of(long: str, short: str) -> bool:
    """'Mean kinetic temperature' spells 'MKT': the initials of the long form are the acronym."""
    words = [w for w in re.split(r"[ -]+", long) if w and w.lower() not in CONNECTORS]
    return len(words) >= len(short) and "".join(w[0] for w in words[-len(short):]).upper() == short.upper()


def definitions(units: Sequence[Unit]) -> list[Definition]:
    out: list[Definition] = []
    seen: set[str] = set()
    for idx, u in enumerate(units):
        if u.kind == "meta":
            continue
        in_glossary = u.section.lower().strip(" :") in GLOSSARY_SECTIONS
        text = u.text
        term, how = None, ""
        g = _GLOSSARY.match(text)
        if g and (in_glossary or g.group("term")):
            term, how = (g.group("term") or g.group("term2") or "").strip(), "glossary"
        if term is None:
            d = _DEFINE.match(text)
            if d and u.kind in ("sentence", "item"):
                t = d.group("term").strip()
                rest, verb = d.group("rest"), d.group("verb")
                # Outside a glossary, "X is a/an …" (or "X means …") defines X; "X is the fastest-growing
                # line" or "X is an example" describes it. A lowercase term is a glossary's or a bold one.
                defining = in_glossary or (
                    verb not in ("is", "are") or re.match(r"(?:a|an)\s", rest) is not None
                ) and not _NOT_A_DEFINITION.match(rest)
                shaped = in_glossary or bool(d.group("bold")) or (t[0].isupper() and not any(c.isdigit() for c in t))
                if defining and shaped and _term_ok(t) and t not in GENERIC_ACRONYMS:
                    term, how = t, "defined"
        if term is None:
            a = _ACRONYM.search(text)
            if a and a.group("short") not in COMMON and a.group("short") not in GENERIC_ACRONYMS \
                    and _acronym_of(a.group("long"), a.group("short")):
                term, how = a.group("short"), "acronym"
        if term and _term_ok(term):
            key = term.lower()
            if key not in seen:
                seen.add(key)
                out.append(Definition(term, idx, how))
    return out


# ------------------------------------------------------------------------------------------- key lines

DECISION = re.compile(
    r"\b(?:decided|decision|agreed|approved|will|we'll|resolved|committed to|chose|chosen|going forward|"
    r"sign(?:ed)? off|greenlit|green-lit|signed|accepted|rejected|postponed|cancel(?:l)?ed|moved to|switch(?:ed)? to)\b",
    re.I,
)
DECISION_SECTIONS = ("decision", "decisions", "outcomes", "resolutions", "agreed", "conclusions")
_NOISE = re.compile(r"^(?:hi|hello|hey|thanks|thank you|cheers|regards|best|dear|see you|bye)\b", re.I)


def score_unit(u: Unit, entity_hits: int, concept_hits: int) -> float:
    """How much a statement is worth keeping: figures, names, decisions, definitions; not greetings,
    questions or fragments."""
    words = len(u.text.split())
    if words < 4 or _NOISE.match(u.text) or u.kind == "meta":
        return 0.0
    s = 1.0
    figs = figures(u.text)
    s += min(len(figs), 3) * 1.2
    s += min(entity_hits, 3) * 0.9
    s += min(concept_hits, 2) * 0.6
    if is_decision(u):
        s += 1.5
    if u.text.rstrip().endswith("?"):
        s -= 1.2
    if 8 <= words <= 45:
        s += 0.6
    elif words > 70:
        s -= 0.8
    if u.kind == "row":
        s -= 0.4
    return max(s, 0.0)


def is_decision(u: Unit) -> bool:
    if u.kind == "meta":
        return False
    sec = u.section.lower()
    if any(k in sec for k in DECISION_SECTIONS):
        return len(u.text.split()) >= 3
    return bool(DECISION.search(u.text)) and bool(re.search(r"\b(?:decided|agreed|approved|decision|resolved|committed|chose|chosen|signed off|greenlit)\b", u.text, re.I))


REVISION = re.compile(r"\b(?:final|corrected|correction|revised|revision|restated|amended|updated figures?|supersedes|erratum)\b", re.I)


def declares_revision(title: str, units: Sequence[Unit]) -> bool:
    if REVISION.search(title):
        return True
    return any(REVISION.search(u.text) for u in units[:5])


# ------------------------------------------------------------------------------------------------ terms

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{2,}")
STOP = set(
    """
    the and for with that this from have has had are was were will would should could can not but you your our
    their they them there here into onto over under about after before than then when what which who whom
    whose why how all any each more most other some such only own same very just also been being its it's
    we us i me my he she his her him of to in on at by as an or if so do does did a is be no yes new one two
    """.split()
)


def terms(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text) if w.lower() not in STOP)
