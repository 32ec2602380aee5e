"""Names in a source: the word lists that tell a name from ordinary capitalised English, runs of
proper names, the evidence that makes one an entity and the guess of its type (person, organisation,
place, product), occurrences of already known names and aliases (`find_known`, `NameIndex`,
`mentions`), "Project X" mentions, and alias statements ("X (formerly Y)", "X, also known as Y").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from stigmergy.pages.markdown import mask_code_spans
from stigmergy.plan.deterministic.statements import Link, Unit

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
    Release Releases Released Version Versions Changelog Changelogs Milestone Milestones
    There Here Is Are Was Were Be Been Being Has Have Had Do Does Did Will Would Shall Should Can Could
    May Might Must Let Lets Let's Got Get Make Made Take Took Use Used Using Add Added Remove Removed
    Yes Maybe Overall Currently Recently Going Moving Looking Given Based Due Including Regarding
    Internal External Public Private General Special Standard Total Average Net Gross Growth Cost Costs
    End Start Begin Planned Resolved Investigating Monitoring Identified Operational Degraded Outage
    Incident Incidents Maintenance Cc Bcc Subject From To Sent Re Fwd Fw Attachment Attachments Posted
    Edited Joined Left Pinned Reply Replies Thread Channel Message Messages Welcome Congratulations
    """.split()
) | WEEKDAYS | MONTHS
# Words of technical writing that open a sentence or stand for a value, never a name ("Return True",
# "Raise OSError", "See PEP 8", "None"), and compass words that qualify one ("Eastern time").
CODE_WORDS = set(
    """
    None True False Null Nil NaN Return Returns Returned Raise Raises Raised Yield Yields Throw Throws Await
    Async Import Imports Def Self Args Kwargs Param Params Parameters Example Examples See Call Calls Set Sets
    Eastern Western Northern Southern
    """.split()
)
COMMON |= CODE_WORDS
# Sentence adverbs open a sentence before a name, never begin one: "Therefore Argument Clinic …" named "Therefore
# Argument Clinic" on a how-to page; nor a term ("Likewise LF is a …", concepts.py).
SENTENCE_ADVERBS = frozenset(
    """
    therefore however thus hence moreover furthermore meanwhile otherwise instead indeed similarly likewise
    consequently nevertheless nonetheless additionally alternatively specifically typically usually generally
    normally often sometimes obviously clearly unfortunately fortunately luckily basically essentially ideally
    naturally perhaps accordingly conversely importantly notably initially eventually afterwards previously
    subsequently ultimately whereas unlike especially apparently arguably optionally technically traditionally
    """.split()
)
COMMON |= {w.capitalize() for w in SENTENCE_ADVERBS}
# A standard's requirement words in capitals (RFC 2119: "Clients MUST NOT require state"): a keyword, not a name.
COMMON |= set("MUST NOT SHOULD SHALL REQUIRED RECOMMENDED OPTIONAL".split())
_CODE_SPAN = re.compile(r"`+[^`]*`+")
# An identifier, a file name or an exception class is code, not a name: "README.txt", "sync_state",
# "os.path", "OSError", "KeyboardInterrupt" stays a word of a run only when it reads as prose.
_CODE_TOKEN = re.compile(r"^(?:.*_.*|[^.]+\.[a-z][\w.]*|[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit))$")
CONNECTORS = {"of", "de", "van", "von", "der", "den", "la", "le", "du", "da", "&", "and"}
ORG_SUFFIX = {
    "Inc", "Inc.", "Ltd", "Ltd.", "LLC", "Corp", "Corp.", "Corporation", "Organization", "Organisation", "Systems",
    "Labs", "Lab", "Group",
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


# A name made into a modifier ("Python-related pages", "ASCII-only instances", "Windows-specific paths") describes
# something else: the compound is no name, and reading it as one filed "Python-related" and "ASCII-only" as entity
# pages of the Python documentation.
_MODIFIER = re.compile(
    r"[A-Z][\w'’.&]*-(?:related|only|based|specific|like|style|compatible|aware|friendly|free|safe|powered|driven|"
    r"enabled|dependent|independent|centric|oriented|facing|wide|native|encoded|formatted|backed|focused|heavy|"
    r"agnostic|sensitive|insensitive|bound|ready|level)[.,;:!?'’]*")


def _is_cap(tok: str) -> bool:
    return (tok[0].isupper() and not tok.isdigit() and not (_CODE_TOKEN.match(tok) and not tok.endswith(_ORG_DOTTED))
            and not _MODIFIER.fullmatch(tok))


_ORG_DOTTED = ("Inc.", "Ltd.", "Corp.", "Co.")


def _strip_tok(tok: str) -> str:
    if tok.endswith(("'s", "’s")):
        tok = tok[:-2]
    return tok.rstrip(".'’-") if not tok.endswith(("Inc.", "Ltd.", "Corp.", "Co.")) else tok


def proper_name_runs(text: str) -> list[tuple[str, bool]]:
    """Runs of capitalised words (allowing 'of', 'de', '&' inside), each with whether it opens the
    text. Weekdays, months and common words at the start are shed; runs made only of common words vanish."""
    out: list[tuple[str, bool]] = []
    if "`" in text:  # an inline code span is code: no name inside it
        text = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
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
            if t in CONNECTORS and j + 1 < len(toks) and _is_cap(toks[j + 1][0]) and not (
                    t == "and" and (_identifier(run[-1][0]) or _identifier(toks[j + 1][0]))):
                run.append((t, p))
                j += 1
                continue
            break
        i = j
        prefix = text[: run[0][1]]
        initial = not prefix.strip() or bool(re.search(r"[.!?:;]\s*[\"'(]?$|^\W*$", prefix))
        words = [_strip_tok(t) for t, _ in run]
        # Shed leading and trailing words that are not part of a name.
        while words and (words[0] in COMMON or words[0].lower() in CONNECTORS or _looks_figure(words[0])
                         or _lone_letter(words[0])):
            words.pop(0)
            initial = False if words else initial
        while words and (words[-1] in COMMON or words[-1].lower() in CONNECTORS or _looks_figure(words[-1])
                         or _lone_letter(words[-1])):
            words.pop()
        # Break at any inner weekday/month/common-only token group.
        if not words:
            continue
        if any(w in WEEKDAYS or w in MONTHS for w in words):
            continue
        name = " ".join(words)
        if len(name) < 2 or not any(c.isalpha() for c in name):
            continue
        if _shouted(words):
            continue  # capitals as a shout or a keyword ("CREATE TABLE", "FOR IMMEDIATE RELEASE"), not "AWS KMS"
        out.append((name, initial and words[0] == _strip_tok(run[0][0])))
    return out


def _shouted(words: list[str]) -> bool:
    """Two or more words in capitals side by side, one of them longer than an acronym: an SQL keyword run
    ("Run CREATE TABLE first", "INSERT INTO") or a shouted heading, where "AWS KMS" and "REST API" are names."""
    # A hyphenated word in capitals is one too ("CONFIGURED REMOTE-TRACKING BRANCHES", a man page's heading).
    caps = [w.replace("-", "").isalpha() and w.isupper() and len(w) >= 2 for w in words]
    return any(caps[i] and caps[i + 1] and max(len(words[i]), len(words[i + 1])) > 4 for i in range(len(words) - 1))


def _identifier(word: str) -> bool:
    """A word written as code names (`StreamReader`, `MAXYEAR`, `TCP`): "StreamReader and StreamWriter",
    "ERROR and CRITICAL" are two names, where "Marks and Spencer" is one."""
    w = _strip_tok(word)
    return bool(re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][A-Z0-9]{1,}", w))


def _lone_letter(word: str) -> bool:
    """A lone letter at the edge of a run is half of a split phrase ("I/O Completion Ports" read from "O",
    "the Python C API" ending at "C"), not a word of a name: it is shed. An initial inside a name ("Harry
    S Truman") is not at an edge."""
    return len(word) == 1 and word.isalpha()


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


# Who wrote, edited or translated a text, or whose talk or article it is: "written by Collin Winter", "Processing Text
# Files in Python 3, by Nick Coghlan.", "Marc-André Lemburg's presentation". A person; "acquired by X" is no such sign.
_AUTHORED = (r"\b(?:(?:written|authored|edited|translated|presented)\s+by|,\s+by)\s+{0}(?:\.|$)"
             r"|\b(?:written|authored|edited|translated)\s+by\s+{0}\b"
             r"|\b{0}['’]s\s+(?:presentation|talk|article|book|slides|paper|essay|post|blog|thesis|keynote)\b")


# What software has and a town has not: "Python programs", "Modula-3 code", "the Tcl interpreter" (the how-to pages'
# "in Python" had typed the language a place).
# Not "library", "packages" or "developers": a town has those too ("the Leeds library", "Umeå packages").
_SOFTWARE_NOUNS = "code|programs?|scripts?|modules?|interpreter|compiler|syntax|implementation|bindings|runtime"


def guess_entity_type(
    name: str, contexts: Iterable[str], participants: set[str], organisations: set[str] | frozenset[str] = frozenset()
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
    if re.search(rf"\b(?:launch(?:ed|es|ing)?|releas(?:e|ed|es|ing)|ship(?:ped|s)?|version of|rolled out|beta of|using|uses|deploy(?:ed)?|renamed (?:its|the|our) (?:platform|product|app) (?:to )?|(?:written|implemented|coded|programmed) in)\s+(?:the\s+|a\s+|an\s+)?{esc}\b", ctx) or re.search(rf"\b{esc}\s+(?:v?\d+(?:\.\d+)+|app|platform|API|SDK|release|beta|launch|{_SOFTWARE_NOUNS})\b", ctx):
        return "product"
    if re.search(rf"\b{esc}\s*\((?:CEO|CTO|CFO|COO|VP|head|lead|director|manager|engineer|founder)", ctx, re.I) or re.search(rf"\b{esc}\s+(?:said|says|noted|asked|agreed|proposed|presented|joined|will|thinks|suggested|owns|reported|recommends|recommended|gave|wrote|writes|explains|explained|argues|argued)\b", ctx) or re.search(_AUTHORED.format(esc), ctx):
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


def _firsts(names: Iterable[str]) -> frozenset[str]:
    """The first word of every name that starts with one: a word no name starts with starts no match."""
    return frozenset(m.group(0) for n in names if (m := _WORDSPAN.match(n)))


class NameIndex(dict[str, str]):
    """name -> path, with the longest name's word count and the names' first words computed once
    (find_known's only per-call costs that would otherwise grow with the number of names)."""

    def __init__(self, mapping: Mapping[str, str]) -> None:
        super().__init__(mapping)
        self.max_words = _max_words(self)
        self.firsts = _firsts(self)


def find_known(text: str, catalogue: Mapping[str, str]) -> list[tuple[str, str, int, int]]:
    """Whole-word, case-aware occurrences of catalogue names in text: (surface, path, start, end).
    The longest name starting at a word wins. Cost grows with the text, not with the catalogue."""
    if not catalogue or not text:
        return []
    if isinstance(catalogue, NameIndex):
        max_words, firsts = catalogue.max_words, catalogue.firsts
    else:
        max_words, firsts = _max_words(catalogue), _firsts(catalogue)
    spans = [(m.start(), m.end()) for m in _WORDSPAN.finditer(text)]
    hits: list[tuple[str, str, int, int]] = []
    i = 0
    while i < len(spans):
        start = spans[i][0]
        if text[start:spans[i][1]] not in firsts:
            i += 1  # most words start no name: no slice of the words after them is looked up
            continue
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


# A pointer to a section of the documentation: what follows names a part of the text, not someone or something.
_XREF = r"\b(?:[Ss]ee(?: also)?|described in|listed in(?: section)?|documented in|explained in|covered in|refer to)\s+(?:the\s+)?"
_XREF_RE = re.compile(_XREF)


# An AsciiDoc cross-reference, "<<FILES>>" or "<<CRTB,CONFIGURED REMOTE-TRACKING BRANCHES>>" (a source page writes
# its "<" before a letter as "&lt;").
_ANCHOR_XREF_RE = re.compile(r"<(?:<|&lt;)[^<>]{1,120}>>")


def _cross_reference(name: str, text: str) -> bool:
    """Every mention of `name` in `text` follows a cross-reference phrase ("See Error Handlers") or is inside an
    AsciiDoc cross-reference ("see <<FILES>>")."""
    anchors = [m.span() for m in _ANCHOR_XREF_RE.finditer(text)] if ">>" in text else []
    if not anchors and not _XREF_RE.search(text):
        return False  # most sentences point nowhere: no pattern per name for them
    mentions_at = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", text)]
    inside = sum(1 for i in mentions_at if any(a <= i < b for a, b in anchors))
    pointed = len(re.findall(_XREF + re.escape(name) + r"\b", text)) if _XREF_RE.search(text) else 0
    return bool(mentions_at) and inside + pointed >= len(mentions_at)


# The labels a text numbers its parts and exhibits by: "Listing 5-1", "Chapter 10", "Figure 4-2", "Appendix B".
_LABELS = frozenset("Chapter Chapters Section Sections Listing Listings Figure Figures Fig Table Tables Appendix "
                    "Example Examples Exhibit Step Steps Part Page Pages Equation Eq Note Annex Schedule Clause "
                    "Article Paragraph".split())


def _numbered_label(name: str, text: str) -> bool:
    """Every mention of `name` in `text` is a label with its number ("as shown in Listing 5-1", "Chapter 10"):
    a pointer to a part of the text, not an identity."""
    if name not in _LABELS:
        return False
    said = len(re.findall(rf"\b{name}\b", text))
    return said > 0 and len(re.findall(rf"\b{name}\s+(?:\d|[A-Z](?![a-z])|[IVX]+\b)", text)) >= said


_LOWER_WORD = re.compile(r"(?<![\w/.:@=-])[a-z][a-z'’]*(?!\.\w|[\w/:@=-]|\s+--?[a-z])")


# A numbered section's title as a table of contents lists it: "2.1.", "4.8.4." then the title.
_SECTION_ENTRY = re.compile(r"^\d{1,3}(?:\.\d{1,3})*\.\s+\S")


def _lower_words(units: Sequence[Unit]) -> frozenset[str]:
    """Every word the document writes in lower case in its prose: read once, whatever the number of names asked
    about. Code is not prose: a module is `tkinter` in code and Tkinter in a sentence."""
    return frozenset(w for u in units if u.kind != "row" for w in _LOWER_WORD.findall(mask_code_spans(u.text)))


def detect_entities(
    units: Sequence[Unit],
    title: str,
    participants: Sequence[str],
    links: Sequence[Link],
    catalogue: Mapping[str, str],
    organisations: Sequence[str] = (),
    listed: Sequence[str] = (),
    headings: Sequence[str] = (),
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
        if u.kind == "row" or (u.kind == "item" and _SECTION_ENTRY.match(u.text)):
            # A table cell is not prose: a name there links to a known entity but is no evidence of a new one
            # (a reference page's tables, read row by row, gave "AB AC AD BA …", "HTTP RFC", "Python Type").
            # Nor is a table of contents' entry ("4.8.4. Arbitrary Argument Lists", "4.3. The range() Function"):
            # section titles in title case gave "Lists", "Function" and "Statements".
            continue
        for name, initial in proper_name_runs(u.text):
            if _cross_reference(name, u.text) or _numbered_label(name, u.text):
                continue  # "See Binary Sequence Types", "described in Module Contents": a section, not an identity
            counts[name] += 1
            initial_only[name] = initial_only.get(name, True) and initial
            where.setdefault(name, [])
            if idx not in where[name]:
                where[name].append(idx)
    linked = {lk.target for lk in links}
    title_names = {n for n, _ in proper_name_runs(title)}
    lower = _lower_words(units)

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
        elif len(words) >= 2 and counts[name] >= 2 and not (
                initial_only[name] and words[0] != words[0].lower() and words[0].lower() in lower):
            # "Lowercase ASCII characters are …", "Matches Unicode …": a run that only ever opens a sentence, whose
            # first word the document writes in lower case elsewhere, is a capital of grammar before a name.
            evidence = f"multi-word name used {counts[name]} times"
        elif name in title_names and counts[name] >= 1 and not initial_only[name] and len(words) >= 2:
            evidence = "named in the title and the text"
        elif len(words) == 1 and counts[name] >= 3 and not initial_only[name] and len(where[name]) >= 2 \
                and not name.isupper() and name not in FIRST_NAMES and name.lower() not in lower:
            # "a Text widget", "the main Tasks documentation": a word the document also writes in lower case is
            # a common noun given a capital (a class, a heading's word), not a name.
            evidence = f"name used {counts[name]} times mid-sentence"
        if evidence:
            accepted[name] = evidence
    for p in sorted(participant_set):
        if p not in accepted and p not in known_surfaces and p not in where and _name_like(p):
            accepted[p] = "participants list"
            where[p] = []
    # Names the document's front matter gives (`entity: Acme Corp`, `mentions: [...]`) are evidence too.
    for p in sorted({" ".join(n.split()) for n in (*listed, *organisations) if n and n.strip()}):
        if p in known_surfaces or not _name_like(p):
            continue
        accepted[p] = "front matter"
        where[p] = sorted(set(where.get(p, [])) | {i for i, u in enumerate(units) if mentions(u.text, [p])})
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
    # "the classes Screen and Turtle", "Reader and Writer": two names the document also uses alone are two
    # names, not one "X and Y" identity ("Marks and Spencer" is never "Marks" alone).
    for name in list(accepted):
        pair = name.split(" and ")
        if len(pair) == 2 and all(p and counts.get(p, 0) for p in pair) and accepted[name].startswith("multi-word"):
            del accepted[name]
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
        if etype == "other" and accepted[name].startswith(("multi-word", "named in the title")) and (
            any(mentions(h, [name]) for h in headings)
            or all(re.search(rf"\b(?:[Tt]he|[Oo]ur|[Aa]n?)\s+{re.escape(name)}\b", units[i].text) for i in where.get(name, []))
        ):
            # "The Evidence Plane", "Two Ownership Zones": the title of a decision or a section, written
            # as a heading or with an article, is a name for an idea, not an identity.
            continue
        found["new:" + name] = EntityCandidate(name, etype, accepted[name], list(where.get(name, [])), None, name)
    return sorted(found.values(), key=lambda c: (c.known_path is None, c.name))


_SHORT_KINDS = ("organisation", "product", "other")


def short_forms(names: Mapping[str, str], kinds: Mapping[str, str]) -> dict[str, str]:
    """First words that stand for a known multi-word organisation or product ("Pellucid" for Pellucid
    Pharma Logistics): only when no other known name starts with that word and it is a name itself
    (capitalised, not a common word)."""
    by_first: dict[str, set[str]] = {}
    for name, path in names.items():
        words = name.split()
        if len(words) >= 2:
            by_first.setdefault(words[0], set()).add(path)
    out: dict[str, str] = {}
    for first, paths in by_first.items():
        if len(paths) != 1 or len(first) < 4 or first in COMMON or first in names or not first[0].isupper():
            continue
        if first in PLACES or first in FIRST_NAMES or not first.isalpha():
            continue
        path = next(iter(paths))
        if kinds.get(path, "other") in _SHORT_KINDS:
            out[first] = path
    return out


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
