"""Contradiction blocks (DESIGN §7): a start marker, a rendered `> [!WARNING]` callout, a data line with
the record as compact sorted JSON in URL-safe base64, and an end marker.

The parser decodes the data line, re-renders the whole block from it and refuses anything that is not
byte-identical, so the callout a person reads can never drift from the record code acts on. The
callout's citation links are relative to the page holding the block: rendering needs that path.
See docs/contradictions.md.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.citations import cite, relative_target
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wiki import CAPTURE_ID_RE, derived_ulid
from stigmergy.repo.layout import classify

CON_ID_RE = re.compile(r"^con_[0-9A-HJKMNP-TV-Z]{26}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?$")
START_PREFIX = "<!-- stigmergy:contradiction "
DATA_PREFIX = "<!-- stigmergy:data "
END_MARKER = "<!-- /stigmergy:contradiction -->"
# The end marker's "/stigmergy:contradiction" holds "stigmergy:contradiction", so this one literal-led
# pattern finds every marker line; an alternation led by "/" loses the regex engine's literal prefix search
# and tries every position of the page (0.12 against 0.01 ms for an 18 KB page whose lead names "stigmergy:").
_MARKER_RE = re.compile(r"stigmergy:(?:contradiction|data)")
STATUSES = ("open", "resolved")


@dataclass(frozen=True)
class ClaimRecord:
    text: str
    date: str
    source: str  # capture id
    path: str  # repository-relative path of the source page
    start: int
    end: int


@dataclass(frozen=True)
class ResolutionRecord:
    rationale: str
    source: str  # capture id of the capture that resolved it
    path: str  # repository-relative path of that source page
    date: str


@dataclass(frozen=True)
class Contradiction:
    id: str
    status: str
    subject: str
    explanation: str
    claims: tuple[ClaimRecord, ...]
    resolution: ResolutionRecord | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "subject": self.subject,
            "explanation": self.explanation,
            "claims": [
                {"text": c.text, "date": c.date, "source": c.source, "path": c.path, "start": c.start, "end": c.end}
                for c in self.claims
            ],
        }
        if self.resolution is not None:
            r = self.resolution
            data["resolution"] = {"rationale": r.rationale, "source": r.source, "path": r.path, "date": r.date}
        return data


@dataclass(frozen=True)
class Block:
    record: Contradiction
    start_line: int  # 1-based line of the start marker (in the text given to the parser, offset by first_line)
    end_line: int  # 1-based line of the end marker
    text: str  # the block's exact text, end marker line included, with its newline


def one_line(text: str) -> str:
    return " ".join(text.split())


def new_contradiction_id(timestamp: str, seed: str) -> str:
    return f"con_{derived_ulid(timestamp, seed)}"


def _check_record(c: Contradiction) -> None:
    if not CON_ID_RE.match(c.id):
        raise ContractError(f"contradiction id {c.id!r} is not con_ + 26-character ULID")
    if c.status not in STATUSES:
        raise ContractError(f"{c.id}: status must be open or resolved")
    if (c.status == "resolved") != (c.resolution is not None):
        raise ContractError(f"{c.id}: a resolution is present exactly when the status is resolved")
    if len(c.claims) < 2:
        raise ContractError(f"{c.id}: a contradiction needs at least two claims")
    texts = [c.subject, c.explanation, *(cl.text for cl in c.claims)]
    if c.resolution is not None:
        texts.append(c.resolution.rationale)
    for text in texts:
        if not isinstance(text, str) or not text or one_line(text) != text:
            raise ContractError(f"{c.id}: texts must be one non-empty line of single-spaced text")
    refs = [(cl.source, cl.path) for cl in c.claims]
    if c.resolution is not None:
        refs.append((c.resolution.source, c.resolution.path))
        if not DATE_RE.match(c.resolution.date):
            raise ContractError(f"{c.id}: resolution date must be an ISO date")
    for source, path in refs:
        kind = classify(path) if isinstance(path, str) else None
        if not CAPTURE_ID_RE.match(source) or kind is None or kind[0] != "source" or stem_of(path) != source:
            raise ContractError(f"{c.id}: claim cites {path!r}, which is not the source page of {source!r}")
    for cl in c.claims:
        if not DATE_RE.match(cl.date):
            raise ContractError(f"{c.id}: claim date {cl.date!r} is not an ISO date")
        if isinstance(cl.start, bool) or not isinstance(cl.start, int) or not isinstance(cl.end, int):
            raise ContractError(f"{c.id}: claim lines must be integers")
        if cl.start < 1 or cl.end < cl.start:
            raise ContractError(f"{c.id}: claim line range {cl.start}-{cl.end} is invalid")


def make_contradiction(
    cid: str, subject: str, explanation: str, claims: list[ClaimRecord] | tuple[ClaimRecord, ...]
) -> Contradiction:
    """An open record with texts normalised to one line. Raises ContractError when it cannot be valid."""
    record = Contradiction(
        id=cid,
        status="open",
        subject=one_line(subject),
        explanation=one_line(explanation),
        claims=tuple(replace(c, text=one_line(c.text)) for c in claims),
    )
    _check_record(record)
    return record


def resolve_contradiction(record: Contradiction, rationale: str, source: str, path: str, date: str) -> Contradiction:
    if record.status != "open":
        raise ContractError(f"{record.id} is already resolved")
    resolved = replace(
        record, status="resolved", resolution=ResolutionRecord(one_line(rationale), source, path, date)
    )
    _check_record(resolved)
    return resolved


def encode_data(record: Contradiction) -> str:
    raw = json.dumps(record.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def decode_data(data: str) -> Contradiction:
    if not re.fullmatch(r"[A-Za-z0-9_-]+", data):
        raise ContractError("data line is not URL-safe base64")
    try:
        raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
        obj = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise ContractError(f"data line does not decode to JSON ({exc})") from exc
    try:
        if not isinstance(obj, dict) or set(obj) - {"resolution"} != {"id", "status", "subject", "explanation", "claims"}:
            raise ContractError("record has unexpected fields")
        claims = []
        for cl in obj["claims"]:
            if not isinstance(cl, dict) or set(cl) != {"text", "date", "source", "path", "start", "end"}:
                raise ContractError("claim has unexpected fields")
            claims.append(ClaimRecord(**cl))
        res = obj.get("resolution")
        resolution = None
        if res is not None:
            if not isinstance(res, dict) or set(res) != {"rationale", "source", "path", "date"}:
                raise ContractError("resolution has unexpected fields")
            resolution = ResolutionRecord(**res)
        record = Contradiction(
            id=obj["id"], status=obj["status"], subject=obj["subject"], explanation=obj["explanation"],
            claims=tuple(claims), resolution=resolution,
        )
    except TypeError as exc:
        raise ContractError(f"record is malformed ({exc})") from exc
    _check_record(record)
    return record


def _inline(text: str) -> str:
    # Record texts are untrusted: keep them from opening an HTML comment, closing ours, or posing as a
    # citation link inside the callout.
    return text.replace("<!--", "&lt;!--").replace("-->", "--&gt;").replace("[source](", "[source] (")


def render_block(record: Contradiction, page_relpath: str) -> str:
    """The canonical block text (ends with a newline). Links are relative to `page_relpath`."""
    _check_record(record)
    lines = [
        f"{START_PREFIX}{record.id} -->",
        "> [!WARNING]",
        f"> **Contradiction ({record.status}):** {_inline(record.subject)}",
        ">",
        f"> {_inline(record.explanation)}",
        ">",
    ]
    for cl in record.claims:
        lines.append(f"> - {cl.date}: {_inline(cl.text)} {cite(page_relpath, cl.path, cl.start, cl.end)}")
    if record.resolution is not None:
        r = record.resolution
        lines += [
            ">",
            f"> **Resolved {r.date}:** {_inline(r.rationale)} ([{r.source}]({relative_target(page_relpath, r.path)}))",
        ]
    lines += [f"{DATA_PREFIX}{encode_data(record)} -->", END_MARKER]
    return "\n".join(lines) + "\n"


def scan_blocks(
    text: str, page_relpath: str, *, first_line: int = 1
) -> tuple[list[Block], list[tuple[int, str]]]:
    """Every block in `text`, plus (line, message) for each non-canonical one (those are not returned)."""
    if "stigmergy:" not in text:  # every marker names it: most pages have no block at all
        return [], []
    # Only lines with a marker matter (start, data and end lines all carry one): find them with one
    # regex pass over the text instead of a search per line.
    marked: list[int] = []
    line_no, pos = 0, 0
    for m in _MARKER_RE.finditer(text):
        line_no += text.count("\n", pos, m.start())
        pos = m.start()
        if not marked or marked[-1] != line_no:
            marked.append(line_no)
    if not marked:  # "stigmergy:" was the lead's marker: no block, and no page-size split for it
        return [], []
    lines = text.split("\n")
    blocks: list[Block] = []
    errors: list[tuple[int, str]] = []
    seen: set[str] = set()
    k = 0
    while k < len(marked):
        i = marked[k]
        line = lines[i]
        lineno = first_line + i
        if not line.startswith(START_PREFIX):
            errors.append((lineno, "stray contradiction marker outside a block"))
            k += 1
            continue
        k += 1
        while k < len(marked) and lines[marked[k]] != END_MARKER and not lines[marked[k]].startswith(START_PREFIX):
            k += 1
        if k >= len(marked) or lines[marked[k]] != END_MARKER:
            errors.append((lineno, "contradiction block is not closed with its end marker"))
            continue
        j = marked[k]
        block_text = "\n".join(lines[i : j + 1]) + "\n"
        try:
            record = _checked_record(block_text, page_relpath)
            if record.id in seen:
                raise ContractError(f"duplicate contradiction id {record.id}")
            seen.add(record.id)
            blocks.append(Block(record, lineno, first_line + j, block_text))
        except ContractError as exc:
            errors.append((lineno, exc.message))
        k += 1
    return blocks, errors


def _checked_record(block_text: str, page_relpath: str) -> Contradiction:
    """The record of one block (start marker to end marker), refused unless the block re-renders to the
    same bytes. Memoised: the gates re-check every block of each page a plan touches."""
    record, error, stable = _check_block(block_text, page_relpath)
    if not stable:  # a link that leaves the repository renders relative to the working directory
        record, error, _ = _check_block.__wrapped__(block_text, page_relpath)
    if record is None:
        raise ContractError(error or "malformed block")
    return record


@lru_cache(maxsize=1 << 12)
def _check_block(block_text: str, page_relpath: str) -> tuple[Contradiction | None, str | None, bool]:
    """(record, None, stable) or (None, refusal, stable); `stable` is False when the answer depends on
    the working directory (a path that is absolute or has '..')."""
    lines = block_text[:-1].split("\n")
    try:
        m = re.fullmatch(r"<!-- stigmergy:contradiction (\S+) -->", lines[0])
        if m is None:
            raise ContractError("malformed start marker")
        data_lines = [ln for ln in lines[1:-1] if ln.startswith(DATA_PREFIX)]
        if len(data_lines) != 1:
            raise ContractError("a block holds exactly one data line")
        dm = re.fullmatch(r"<!-- stigmergy:data (\S+) -->", data_lines[0])
        if dm is None:
            raise ContractError("malformed data line")
        record = decode_data(dm.group(1))
        if record.id != m.group(1):
            raise ContractError(f"start marker names {m.group(1)} but the data holds {record.id}")
    except ContractError as exc:
        return None, exc.message, True
    paths = [page_relpath, *(c.path for c in record.claims)]
    if record.resolution is not None:
        paths.append(record.resolution.path)
    stable = not any(p.startswith("/") or ".." in p for p in paths)
    try:
        if render_block(record, page_relpath) != block_text:
            raise ContractError(f"{record.id}: block is not byte-identical to its rendering from the data")
    except ContractError as exc:
        return None, exc.message, stable
    return record, None, stable


def parse_blocks(text: str, page_relpath: str, *, first_line: int = 1) -> list[Block]:
    """Every block in `text`; raises ContractError on the first non-canonical one."""
    blocks, errors = scan_blocks(text, page_relpath, first_line=first_line)
    if errors:
        line, message = errors[0]
        raise ContractError(f"{page_relpath}: line {line}: {message}")
    return blocks


def block_line_numbers(blocks: list[Block]) -> set[int]:
    out: set[int] = set()
    for b in blocks:
        out.update(range(b.start_line, b.end_line + 1))
    return out
