"""The `--json` shapes of the reading commands (search, read, list, describe, ask, status), declared once.

The commands build plain dicts (some in modules under active tuning); these TypedDicts say what they hold.
Two things keep the declarations true: `scripts/gen_docs.py` renders docs/schema.md from them (so the doc
is these declarations, nothing else), and `tests/test_json_shapes.py` runs every command on a fixture
wiki and fails when an answer has a key that is not declared here, lacks a required one, or holds a
value of another kind. Keys are only ever added (docs/index.md). Imports nothing from stigmergy.
"""


from typing import Any, Literal, NotRequired, TypedDict

# ---------------------------------------------------------------- shared parts


class Freshness(TypedDict):
    """How current the index is: the commit it describes, HEAD, and the pages changed since."""

    commit: str | None
    head: str | None
    stale: bool
    changed: list[str]
    ahead: bool  # a shared index reflecting commits this checkout lacks (`changed` are newer there)


class ContradictionClaim(TypedDict):
    text: str
    date: str
    source: str
    path: str
    start: int
    end: int


class Contradiction(TypedDict):
    id: str
    status: str
    subject: str
    explanation: str
    claims: list[ContradictionClaim]


class Trust(TypedDict):
    """A page's (or claim line's) confidence from use (docs/trust.md): the Beta posterior decayed to now,
    its tier and lifecycle status."""

    confidence: float  # the posterior mean alpha / (alpha + beta)
    tier: Literal["HIGH", "MODERATE", "LOW", "EXPLORATORY", "STALE"]
    status: Literal["candidate", "verified", "stale", "rejected"]
    alpha: float
    beta: float
    interval: float  # 1.96 * sqrt(m (1 - m) / (alpha + beta + 1))
    observations: float  # feedback, confirmations (supporting sources) and challenges (open contradictions)
    feedback: int  # reader feedback records
    decay: Literal["ephemeral", "stable", "permanent"]
    reason: NotRequired[str]  # why it is verified, stale or rejected
    status_by: NotRequired[str]
    status_at: NotRequired[str]


class TrustNote(TypedDict):
    at: str
    by: str
    kind: str
    note: str


class ClaimTrust(Trust):
    line: int  # a claim line with feedback of its own


class PageTrust(Trust):
    notes: list[TrustNote]  # the newest reader notes
    claims: list[ClaimTrust]


# ---------------------------------------------------------------- search


class SearchHit(TypedDict):
    path: str
    title: str
    type: str
    layer: str
    status: str | None
    score: float
    fragment: int
    lines: list[int]
    snippet: str
    rrf: float
    arms: dict[str, int | None]  # each arm's rank of this page (1-based); null when the arm missed it
    factors: dict[str, float]
    trust: Trust
    page_id: str | None  # the front matter id (feedback and access counts name pages by it)


class SearchResult(TypedDict):
    query: str
    reader: str
    index: Freshness
    arms: list[str]
    hits: list[SearchHit]


# ---------------------------------------------------------------- read


class FragmentRef(TypedDict):
    n: int
    lines: list[int]
    headings: list[str]


class Link(TypedDict):
    target: str
    path: str | None  # null when the target is not a page the reader may read
    title: str | None
    line: int


class Backlink(TypedDict):
    path: str
    title: str
    line: int


class EvidenceCite(TypedDict):
    path: str
    capture_id: str | None
    lines: list[int]
    text: str


class EvidenceLine(TypedDict):
    line: int
    text: str
    cites: list[EvidenceCite]


class ReadPage(TypedDict):
    path: str
    title: str
    type: str
    layer: str
    front_matter: dict[str, Any]
    fragment: int | None  # null for a head read
    fragments_total: int
    fragments: list[FragmentRef]
    lines: list[int]
    content: str
    truncated: bool
    chars: int
    note: str
    links: list[Link]
    backlinks: list[Backlink]
    contradictions: list[Contradiction]
    trust: PageTrust  # status rejected: `note` starts with REJECTED and the reason
    evidence: NotRequired[list[EvidenceLine]]  # only with --evidence


class ReadResult(TypedDict):
    index: Freshness
    reader: str
    pages: list[ReadPage]


# ---------------------------------------------------------------- list, describe


class ListedPage(TypedDict):
    path: str
    title: str
    type: str
    layer: str
    status: str | None
    date: str | None  # `updated` for wiki pages, `occurred_at` for sources
    fragments: int
    trust: Trust  # tier and confidence from use (docs/trust.md), as search and read show them


class ListResult(TypedDict):
    index: Freshness
    reader: str
    total: int
    pages: list[ListedPage]


class DescribedEntity(TypedDict):
    path: str
    title: str
    entity_type: str | None
    aliases: list[str]
    status: str | None
    trust: Trust
    page_id: str | None


class MentioningPage(TypedDict):
    path: str
    title: str
    type: str
    status: str | None
    trust: Trust
    page_id: str | None


class TimelineFact(TypedDict):
    date: str
    fact: str
    page: str
    line: int
    source: str | None
    source_title: str | None
    source_lines: list[int] | None


class PageContradiction(Contradiction):
    page: str


class DescribeResult(TypedDict):
    index: Freshness
    reader: str
    entity: DescribedEntity
    pages: list[MentioningPage]
    timeline: list[TimelineFact]
    contradictions: list[PageContradiction]


# ---------------------------------------------------------------- ask


class Citation(TypedDict):
    path: str
    lines: list[int]
    text: NotRequired[str]  # only with --evidence


class AlsoSaid(TypedDict):
    title: str  # the source's title
    path: str  # the source page


class Sentence(TypedDict):
    text: str
    page: str
    title: str
    type: str
    line: int
    citations: list[Citation]
    also: NotRequired[list[AlsoSaid]]  # the other sources that state the same value, cited with it (ask)


class Withheld(TypedDict):
    text: str
    reasons: list[str]


class ClaimCitation(TypedDict):
    path: str
    lines: list[int]


class AnswerClaim(TypedDict):
    text: str
    date: str
    citation: ClaimCitation


class AnswerContradiction(TypedDict):
    id: str
    page: str
    subject: str
    explanation: str
    claims: list[AnswerClaim]
    later: int | None  # index of the later claim; null when both carry the same date


class Nearest(TypedDict):
    path: str
    title: str
    type: str
    fragment: int
    lines: list[int]
    tier: str | None


class AnswerTrustPage(TypedDict):
    path: str
    page_id: str | None
    tier: str
    status: str
    confidence: float


class AnswerTrust(TypedDict):
    pages: list[AnswerTrustPage]  # the pages the answer's sentences come from
    caution: str | None  # set when one of them is LOW or STALE


class AnswerEvidence(TypedDict):
    threshold: float
    best: float
    lines_considered: int
    lines_embedded: int  # candidate lines embedded for this answer (0 when the line cache held them all)


class AnswerPart(TypedDict):
    question: str  # the part as answered ("who led the Series A" for "…and who led it?")
    asks: str  # the slot: person | org | place | project | product | thing | date | quantity | reason |
    #            definition | alias | role | procedure | yesno | value | secret (never answered)
    answered: bool
    best: float  # the part's best eligible line score (answered when at least `evidence.threshold`)
    sentences: list[int]  # indexes into `sentences`


class Superseded(TypedDict):
    text: str
    date: str
    why: str  # "a draft; the final version says otherwise", "a later source (2026-07-21) says otherwise: …"
    by: NotRequired[int | None]  # the sentence that supersedes it (deterministic answerer)
    citations: list[Citation]


class NearestLine(TypedDict):
    text: str
    page: str
    line: int
    why: str  # why it does not answer: "names no person or organisation the question does not", …
    citations: list[Citation]


class AskResult(TypedDict):
    question: str
    reader: str
    index: Freshness
    answerer: str  # "deterministic" or "KIND:MODEL"
    evidence: AnswerEvidence
    answered: bool
    refusal: NotRequired[Literal["the wiki does not say"]]  # only when not answered
    parts: list[AnswerPart]
    sentences: list[Sentence]
    superseded: list[Superseded]  # earlier or draft claims the answer's later or final ones replace
    uncovered: list[str]  # the parts of the question the wiki does not answer
    withheld: list[Withheld]
    contradictions: list[AnswerContradiction]
    nearest: list[Nearest]  # empty when answered
    nearest_lines: list[NearestLine]  # empty when answered
    trust: AnswerTrust


# ---------------------------------------------------------------- status


class Operation(TypedDict):
    id: str
    kind: str
    status: str
    commit: str | None
    started_at: str
    finished_at: str | None
    summary: str
    manifest: dict[str, Any]
    patch_sha256: str | None
    withheld: bool  # true: in a layer the reader may not read (summary and manifest say only that)


class PendingCapture(TypedDict):
    capture_id: str
    locator: str | None
    op_id: str | None


class StatusCounts(TypedDict):
    operations: int
    refused: int
    captures: int
    pending: int
    unfiled: int
    in_layers_you_cannot_read: int  # captures, operations and pending of layers the reader cannot read (one total)


class IndexStatus(TypedDict):
    present: bool
    readable: bool | None
    commit: str | None
    behind_head: bool | None
    building: bool
    error: str | None


class EvidenceStatus(TypedDict):
    originals_absent: int


class Health(TypedDict):
    uncommitted_wiki_changes: int
    tracked_state: int  # files under .stigmergy/ that Git tracks (derived state must not be)
    ok: bool


class PlannerStatus(TypedDict):
    current: str
    wrote_wiki: list[str]
    recompile_would_change: bool


class StatusResult(TypedDict):
    root: str
    head: str | None
    last_operation: Operation | None
    pending: list[PendingCapture]
    counts: StatusCounts
    index: IndexStatus
    evidence: EvidenceStatus
    health: Health
    planner: PlannerStatus


class FeedbackRecord(TypedDict):
    """One feedback record as it is stored (a canonical JSON line of a batch file, docs/trust.md)."""

    id: str  # fb_ + ULID
    at: str  # UTC YYYY-MM-DDTHH:MM:SSZ
    by: str
    kind: Literal["useful", "wrong", "outdated", "verify", "invalidate", "reinstate", "stale", "reset"]
    page: str  # the front matter id
    path: str
    layer: str
    captures: NotRequired[list[str]]
    line: NotRequired[int]  # a claim line, or a passage's first line
    line_sha: NotRequired[str]
    fragment: NotRequired[int]  # the passage judged (PATH#n)
    note: NotRequired[str]
    query: NotRequired[str]  # the search a passage or line was judged from (ranks only queries like it)


class FeedbackResult(TypedDict):
    reader: str
    record: FeedbackRecord
    batch: str  # the batch file it was appended to
    committed: str | None  # the commit, for a maintainer's judgement (committed at once)
    trust: PageTrust


# The command -> the shape its `--json` prints, in the order docs/schema.md lists them.
COMMAND_SHAPES: dict[str, type] = {
    "search": SearchResult,
    "read": ReadResult,
    "list": ListResult,
    "describe": DescribeResult,
    "ask": AskResult,
    "status": StatusResult,
    "feedback": FeedbackResult,
}


def mismatches(value: Any, shape: Any, where: str = "$") -> list[str]:
    """Where `value` (parsed JSON) departs from `shape`: an undeclared or missing key, a value of another
    kind. Empty when it conforms."""
    import types
    import typing

    origin = typing.get_origin(shape)
    if shape is Any:
        return []
    if typing.is_typeddict(shape):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        hints = typing.get_type_hints(shape)
        out = [f"{where}.{k}: not declared in {shape.__name__}" for k in value if k not in hints]
        out += [f"{where}.{k}: missing (required by {shape.__name__})" for k in shape.__required_keys__
                if k not in value]
        for key, hint in hints.items():
            if key in value:
                out += mismatches(value[key], hint, f"{where}.{key}")
        return out
    if origin in (typing.Union, types.UnionType):
        options = [mismatches(value, arm, where) for arm in typing.get_args(shape)]
        return [] if any(not o for o in options) else min(options, key=len)
    if origin is Literal:
        return [] if value in typing.get_args(shape) else [f"{where}: {value!r} not in {typing.get_args(shape)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        (item,) = typing.get_args(shape)
        return [m for i, v in enumerate(value) for m in mismatches(v, item, f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        _key, item = typing.get_args(shape)
        return [m for k, v in value.items() for m in mismatches(v, item, f"{where}.{k}")]
    if shape is type(None):
        return [] if value is None else [f"{where}: expected null, got {type(value).__name__}"]
    # JSON has one number type: an int where a float is declared is a float that happens to be whole.
    kinds = {float: (int, float), int: (int,), str: (str,), bool: (bool,)}[shape]
    ok = isinstance(value, kinds) and (shape is bool or not isinstance(value, bool))
    return [] if ok else [f"{where}: expected {shape.__name__}, got {type(value).__name__}"]
