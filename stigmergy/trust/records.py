"""Feedback records: what a reader said about a page or one of its claim lines, and the lifecycle
judgements (verify, invalidate, reinstate, stale, reset), kept in Git.

A record is one line of canonical JSON (sorted keys, no spaces) in a batch file
`<layer>/feedback/YYYY/MM/fb_<ULID>.jsonl`, in the folder of the layer of the page it concerns (so a layer's
erasure takes its feedback along). A batch is open while it is untracked: `feedback` appends to it; `maintain`
(or a lifecycle command) commits it, and the next record opens a new batch. A committed batch is never
edited, so two clones never conflict (each batch name is a fresh ULID) and a fresh clone rebuilds every
posterior from Git alone. Batch files are repository content (anyone who can push writes them): the parser
refuses anything that does not re-render byte for byte, and readers skip what it refuses.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.citations import strip_citations
from stigmergy.repo.layout import layer_prefix
from stigmergy.settings import PUBLIC_LAYER

FEEDBACK = ("useful", "wrong", "outdated")
LIFECYCLE = ("verify", "invalidate", "reinstate", "stale")
KINDS = (*FEEDBACK, *LIFECYCLE, "reset")
FOLDER = "feedback"
OPEN_FILE = "feedback-open.json"  # in .stigmergy/: {layer: the open batch this clone appends to}
MAX_NOTE = 500
MAX_QUERY = 300  # a recorded search query (repository content: bounded, one line, printable)
QUERY_LIKE = 0.5  # Jaccard of normalized terms at or above which a query is "like" a recorded one (docs/trust.md)
_ID_RE = re.compile(r"^fb_[0-9A-HJKMNP-TV-Z]{26}$")
_PAGE_RE = re.compile(r"^(pg|cap)_[0-9A-HJKMNP-TV-Z]{26}$")
_AT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_SHA_RE = re.compile(r"^[0-9a-f]{16}$")
_BATCH_RE = re.compile(r"^fb_[0-9A-HJKMNP-TV-Z]{26}\.jsonl$")
_LAYER_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_KEYS = {"id", "at", "by", "kind", "page", "path", "layer", "captures", "line", "line_sha", "fragment", "note", "query"}


def line_sha(text: str) -> str:
    """A claim line's identity: its words without citations, so it survives moving and gaining sources."""
    claim = " ".join(strip_citations(text).split()).lstrip("-*+ ").strip()
    return hashlib.sha256(claim.encode("utf-8")).hexdigest()[:16]


def claim_lines(text: str) -> list[str]:
    """The claim lines of a passage: its non-empty lines but headings and block markers."""
    return [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith(("#", "<!--"))]


def passage_sha(text: str) -> str:
    """A passage's (a fragment's) identity: its claim lines' identities in order, so it survives moving and
    gaining sources but not a change of its words. A one-line passage's is that line's `line_sha`."""
    claims = [" ".join(strip_citations(ln).split()).lstrip("-*+ ").strip() for ln in claim_lines(text)]
    return hashlib.sha256("\n".join(claims).encode("utf-8")).hexdigest()[:16]


def passage_shas(text: str) -> set[str]:
    """Every identity feedback on a passage can carry: the passage's own and each of its claim lines'."""
    return {passage_sha(text), *(line_sha(ln) for ln in claim_lines(text))}


@dataclass(frozen=True)
class Record:
    id: str  # fb_ + ULID
    at: str  # UTC YYYY-MM-DDTHH:MM:SSZ
    by: str  # the reader who said it (or the maintainer, or the maintain run)
    kind: str  # one of KINDS
    page: str  # the page's front matter id (pg_... or, for a source page, cap_...)
    path: str  # where the page was at the time (ids outlive renames)
    layer: str
    captures: tuple[str, ...] = ()  # the captures the target cites: erasing one erases the record
    line: int | None = None  # a claim line, or a passage's first line (its file line at the time) ...
    line_sha: str | None = None  # ... and its identity (`line_sha`, or `passage_sha` when `fragment` is set)
    fragment: int | None = None  # the fragment (passage) judged
    note: str = ""
    query: str | None = None  # the search a passage was judged from: it ranks queries like this one only

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "at": self.at, "by": self.by, "kind": self.kind, "page": self.page,
                                "path": self.path, "layer": self.layer}
        if self.captures:
            data["captures"] = list(self.captures)
        for key in ("line", "line_sha", "fragment"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.note:
            data["note"] = self.note
        if self.query is not None:
            data["query"] = self.query
        return data


# One encoder for every record: `json.dumps` with these arguments builds a new one per call, and a cold fold
# re-renders every record it reads (the canonical-form check).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def render_record(record: Record) -> str:
    return _ENCODER.encode(record.to_dict())


def parse_record(line: str) -> Record:
    """One canonical record line, or ContractError."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise ContractError("feedback record: not JSON") from exc
    if not isinstance(data, dict) or not set(data) <= _KEYS:
        raise ContractError("feedback record: not an object of known keys")
    try:
        record = Record(
            id=data["id"], at=data["at"], by=data["by"], kind=data["kind"], page=data["page"], path=data["path"],
            layer=data["layer"], captures=tuple(data.get("captures", ())), line=data.get("line"),
            line_sha=data.get("line_sha"), fragment=data.get("fragment"), note=data.get("note", ""),
            query=data.get("query"),
        )
    except KeyError as exc:
        raise ContractError(f"feedback record: {exc.args[0]} missing") from None
    _check(record)
    if render_record(record) != line:
        raise ContractError("feedback record: not in canonical form")
    return record


def _check(r: Record) -> None:
    ok = (
        isinstance(r.id, str) and bool(_ID_RE.match(r.id)) and isinstance(r.at, str) and bool(_AT_RE.match(r.at))
        and isinstance(r.by, str) and len(r.by) <= 320 and r.kind in KINDS
        and isinstance(r.page, str) and bool(_PAGE_RE.match(r.page)) and isinstance(r.path, str)
        and isinstance(r.layer, str) and bool(_LAYER_RE.match(r.layer))
        and all(isinstance(c, str) and _PAGE_RE.match(c) and c.startswith("cap_") for c in r.captures)
        and (r.line is None or (isinstance(r.line, int) and not isinstance(r.line, bool) and r.line > 0))
        and (r.line_sha is None or (isinstance(r.line_sha, str) and bool(_SHA_RE.match(r.line_sha))))
        and (r.line is None) == (r.line_sha is None)
        and (r.fragment is None or (isinstance(r.fragment, int) and not isinstance(r.fragment, bool) and r.fragment > 0))
        and isinstance(r.note, str) and len(r.note) <= MAX_NOTE
        and (r.query is None or (r.line_sha is not None and r.kind in FEEDBACK and valid_query(r.query)))
    )
    if not ok:
        raise ContractError("feedback record: a value is out of contract")


def valid_query(query: object) -> bool:
    """A recorded query: non-empty, at most MAX_QUERY characters, printable, whitespace already collapsed."""
    return (isinstance(query, str) and 0 < len(query) <= MAX_QUERY and query.isprintable()
            and query == " ".join(query.split()))


_WORD_RE = re.compile(r"\w+")
_STOP = frozenset(
    "a an and are as at be by did do does for from had has have how i in is it its of on or that the this to was "
    "were what when where which who whom why will with".split())


def query_terms(query: str) -> frozenset[str]:
    """A query's normalized terms: case-folded words, without stop words and one-letter words."""
    return frozenset(w for w in _WORD_RE.findall(query.casefold()) if len(w) > 1 and w not in _STOP)


def like(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two queries ask the same thing, as far as their terms tell: Jaccard ≥ QUERY_LIKE."""
    if not a or not b:
        return False
    return len(a & b) >= QUERY_LIKE * len(a | b)


def folder(layer: str) -> str:
    return f"{layer_prefix(layer)}{FOLDER}"


def batch_relpath(layer: str, at: str, batch_id: str) -> str:
    return f"{folder(layer)}/{at[:4]}/{at[5:7]}/{batch_id}.jsonl"


def batch_layer(relpath: str) -> str | None:
    """The layer of a batch file's path, or None when `relpath` is not one."""
    parts = relpath.split("/")
    layer = PUBLIC_LAYER
    if parts[0] == "layers" and len(parts) > 2:
        layer, parts = parts[1], parts[2:]
    if (len(parts) == 4 and parts[0] == FOLDER and parts[1].isdigit() and len(parts[1]) == 4
            and parts[2].isdigit() and len(parts[2]) == 2 and _BATCH_RE.match(parts[3])):
        return layer
    return None


@dataclass
class BatchFile:
    relpath: str
    layer: str
    size: int
    mtime_ns: int


def batch_files(root: Path) -> list[BatchFile]:
    """Every batch file in the working tree (tracked or open), never through a symbolic link."""
    out: list[BatchFile] = []
    for top in tops(root):
        if not top.is_dir() or top.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(top):  # os.walk does not follow links by default
            dirnames.sort()
            for name in sorted(filenames):
                full = Path(dirpath) / name
                rel = full.relative_to(root).as_posix()
                layer = batch_layer(rel)
                if layer is None:
                    continue
                st = full.lstat()
                if not full.is_symlink():
                    out.append(BatchFile(rel, layer, st.st_size, st.st_mtime_ns))
    return out


@dataclass
class ReadResult:
    records: list[Record] = field(default_factory=list)
    refused: int = 0  # lines the parser refused (a hand edit, a hostile push): counted, never used


def read_batch(root: Path, batch: BatchFile, into: ReadResult, offset: int = 0) -> int:
    """Parse the whole lines of `batch` from byte `offset`; returns the offset after the last whole line."""
    try:
        with (root / batch.relpath).open("rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except OSError:
        into.refused += 1
        return offset
    end = data.rfind(b"\n") + 1  # a line being appended right now is read next time
    for raw in data[:end].split(b"\n"):
        if not raw:
            continue
        try:
            record = parse_record(raw.decode("utf-8"))
        except (ContractError, UnicodeDecodeError):
            into.refused += 1
            continue
        # A record must lie in the folder of its page's layer: one in another layer's folder is refused.
        if record.layer != batch.layer:
            into.refused += 1
            continue
        into.records.append(record)
    return offset + end


def tops(root: Path) -> list[Path]:
    """The feedback folders: the public one and each layer's."""
    out = [root / FOLDER]
    layers_dir = root / "layers"
    if layers_dir.is_dir() and not layers_dir.is_symlink():
        out += [d / FOLDER for d in sorted(layers_dir.iterdir()) if d.is_dir() and not d.is_symlink()]
    return out


def change_key(root: Path, state_dir: Path) -> tuple[object, ...]:
    """Cheap to take, different whenever a batch was added, removed or appended to: the times of the
    feedback folders and their year and month folders (a new or replaced file changes its folder's), and
    the size and time of this clone's open batches (the only files appended to in place)."""
    key: list[object] = []
    for top in tops(root):
        try:
            key.append((str(top), top.stat().st_mtime_ns))
            years = [e for e in os.scandir(top) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for year in years:
            key.append((year.path, year.stat().st_mtime_ns))
            for month in os.scandir(year.path):
                if month.is_dir(follow_symlinks=False):
                    key.append((month.path, month.stat().st_mtime_ns))
    try:
        opened = json.loads((state_dir / OPEN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        opened = {}
    for rel in sorted(str(v) for v in (opened.values() if isinstance(opened, dict) else ())):
        try:
            st = (root / rel).stat()
            key.append((rel, st.st_size, st.st_mtime_ns))
        except OSError:
            key.append((rel, None))
    return tuple(key)


def iter_records(root: Path) -> Iterator[Record]:
    result = ReadResult()
    for batch in batch_files(root):
        read_batch(root, batch, result)
    yield from result.records


def append(root: Path, relpath: str, record: Record) -> None:
    """Append one record to the batch at `relpath` (one write of one line: concurrent appenders interleave
    whole lines)."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (render_record(record) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def without(text: str, erased: frozenset[str], dead_pages: frozenset[str] = frozenset()) -> str:
    """A batch's text without the records that name an erased capture or concern a page that goes (its
    path); lines that do not parse are dropped too when they name an erased capture."""
    kept = []
    for line in text.split("\n"):
        if not line:
            continue
        if any(cid in line for cid in erased):
            continue
        try:
            if parse_record(line).path in dead_pages:
                continue
        except ContractError:
            pass
        kept.append(line)
    return "".join(ln + "\n" for ln in kept)
