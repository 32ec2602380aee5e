"""The export bundle: a repository's raw material, portable, so another repository can re-derive its wiki.

```
DIR/
  manifest.json      format, version, exported_at, source head, layers (name, readers), captures in capture order
  captures/000001.md every capture's original bytes, named by its position (and the original suffix)
  feedback.jsonl     every feedback record of the exported layers (docs/trust.md), one canonical line each,
                     its `path` the page's path at export (an import finds the page there)
  SHA256SUMS         `sha256  path` for every other file (`sha256sum -c SHA256SUMS` checks a bundle)
```

Each capture entry carries what the capture command was told or found (title, occurred_at, submitted_by,
layer, project, locator, origin, media type), its original capture id and time (for reference only: an
import makes new ones), and its resolution intent with the contradiction it named described by subject and
claims, so an import can find the same contradiction under its new id. No wiki page, vector or index row is
in a bundle: an import files every capture again through the gates.

A bundle is untrusted input when read: the checksums are verified first, every path is checked against
the manifest's own naming rule, and sizes and counts have limits.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import re
from collections.abc import Collection
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError, InputError, StigmergyError, UsageError
from stigmergy.garden.carry import human_blocks
from stigmergy.history.curation import ENTRY_KINDS, CurationEntry, read_curation
from stigmergy.history.layer_repos import curation as layer_curation
from stigmergy.history.layer_repos import people_lines, require, tracked
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.paths import unsafe_relpath_reason
from stigmergy.pages.source import SourcePage, parse_source_page
from stigmergy.repo.ids import id_ms
from stigmergy.repo.layout import classify
from stigmergy.repo.operations import Repository, utc_now
from stigmergy.trust.records import Record, iter_records, parse_record, render_record

FORMAT = "stigmergy-export"
VERSION = 3  # 2: the curation record and human lines travel too; 3: feedback.jsonl (older bundles still import)
READABLE_VERSIONS = (1, 2, 3)
FEEDBACK_FILE = "feedback.jsonl"
MAX_FEEDBACK_BYTES = 1024 * 1024 * 1024
MAX_CURATION = 100_000
MAX_HUMAN_BLOCKS = 100_000
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
MAX_CAPTURES = 100_000
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
_FILE_RE = re.compile(r"^captures/\d{6,}(\.[A-Za-z0-9]{1,10})?$")
_ID_LINE_RE = re.compile(r"^id: ['\"]?((?:pg|cap)_[0-9A-Z]{26})['\"]?$", re.M)
_SUFFIX_RE = re.compile(r"\.[A-Za-z0-9]{1,10}$")


class BundleError(StigmergyError):
    """A bundle that is incomplete, altered or not a stigmergy export."""


@dataclass(frozen=True)
class BundleEntry:
    seq: int
    file: str
    sha256: str
    bytes: int
    media_type: str
    title: str
    occurred_at: str
    submitted_by: str
    layer: str
    project: str | None
    locator: str
    origin: str
    capture_id: str  # in the exporting repository (an import makes a new one)
    captured_at: str
    resolution: dict[str, Any] | None = None  # {resolves, rationale, contradiction: {subject, claims}}
    op_id: str | None = None  # the capture's operation (an import keeps both ids when they are free there)


@dataclass(frozen=True)
class HumanBlock:
    """Lines a person wrote on a page, one run of them, and the line that preceded the run (None: top)."""

    page: str
    anchor: str | None
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Bundle:
    root: Path
    manifest: dict[str, Any]
    entries: tuple[BundleEntry, ...]
    curation: tuple[tuple[int, CurationEntry], ...] = ()  # (replayed after this many captures, entry)
    human: tuple[HumanBlock, ...] = ()
    feedback: tuple[Record, ...] = ()

    def read(self, entry: BundleEntry) -> bytes:
        data = (self.root / entry.file).read_bytes()
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise BundleError(f"{entry.file}: content does not match its sha256 in the manifest")
        return data


@dataclass(frozen=True)
class ExportReport:
    path: str
    captures: int
    layers: tuple[str, ...]
    bytes: int
    skipped_layers: tuple[str, ...]
    curation: int = 0  # entries of the curation record carried
    human_lines: int = 0
    curation_unreadable: int = 0  # curation commits whose pages Git does not tell (not carried; see recompile)
    feedback: int = 0  # feedback records carried

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _source_pages(repo: Repository, layers: Collection[str]) -> list[tuple[str, SourcePage]]:
    out = []
    for path in tracked(repo, layers, "sources"):
        kind = classify(path)
        if not kind or kind[0] != "source":
            continue
        out.append((path, parse_source_page((repo.root / path).read_text(encoding="utf-8"), path)))
    return sorted(out, key=lambda item: item[1].id)  # capture ids are time-ordered: capture order


def _contradictions(repo: Repository, layers: Collection[str]) -> dict[str, dict[str, Any]]:
    """{contradiction id: {subject, claims: [{capture_id, start, end, text}]}} across the exported layers."""
    out: dict[str, dict[str, Any]] = {}
    for path in tracked(repo, layers, "wiki"):
        kind = classify(path)
        if not kind or kind[0] == "source" or kind[1] not in layers:
            continue
        text = (repo.root / path).read_text(encoding="utf-8")
        if "stigmergy:contradiction" not in text:
            continue
        blocks, _errors = scan_blocks(text, path)
        for b in blocks:
            out[b.record.id] = {
                "subject": b.record.subject,
                "claims": [{"capture_id": c.source, "start": c.start, "end": c.end, "text": c.text} for c in b.record.claims],
            }
    return out


def export_bundle(repo: Repository, dest: Path, layers: Collection[str]) -> ExportReport:
    """Write every capture of `layers` into a new bundle at `dest` (which must not exist or be empty)."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(f"{dest}: the export folder must be new or empty")
    require(repo, layers)  # a layer kept in its own repository is read from its checkout, or nothing is written
    pages = _source_pages(repo, layers)
    chosen = [(p, s) for p, s in pages if s.layer in layers]
    skipped = tuple(sorted({s.layer for _, s in pages} - set(layers)))
    contradictions = _contradictions(repo, layers) if any(s.resolution for _, s in chosen) else {}
    (dest / "captures").mkdir(parents=True, exist_ok=True)
    op_ids = {row.capture_id: row.op_id for row in repo.state.captures()}
    entries: list[dict[str, Any]] = []
    sums: list[str] = []
    total = 0
    for seq, (path, page) in enumerate(chosen, start=1):
        artifact = page.artifacts[0]
        try:
            data = repo.evidence.get(artifact.sha256)
        except StigmergyError as exc:
            raise BundleError(f"{path}: its original bytes are not in the evidence store ({exc.message})",
                              hint="run `stigmergy fsck`; re-capture the file to restore them") from exc
        suffix = _SUFFIX_RE.search(page.locator)
        rel = f"captures/{seq:06d}{suffix.group(0) if suffix else ''}"
        _write(dest / rel, data)
        sums.append(f"{artifact.sha256}  {rel}")
        total += len(data)
        resolution = None
        if page.resolution is not None:
            resolution = {
                "resolves": page.resolution.resolves,
                "rationale": page.resolution.rationale,
                "contradiction": contradictions.get(page.resolution.resolves),
            }
        entries.append(asdict(BundleEntry(op_id=op_ids.get(page.id),
            seq=seq, file=rel, sha256=artifact.sha256, bytes=len(data), media_type=artifact.media_type,
            title=page.title, occurred_at=page.occurred_at, submitted_by=page.submitted_by, layer=page.layer,
            project=page.project, locator=page.locator, origin=page.origin, capture_id=page.id,
            captured_at=page.captured_at, resolution=resolution,
        )))
    curation, unreadable = _curation(repo, layers, [page.id for _, page in chosen])
    human = _human(repo, layers)
    feedback = _feedback(repo, layers)
    if feedback:
        raw_fb = "".join(line + "\n" for line in feedback).encode("utf-8")
        _write(dest / FEEDBACK_FILE, raw_fb)
        sums.append(f"{hashlib.sha256(raw_fb).hexdigest()}  {FEEDBACK_FILE}")
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": utc_now(),
        "source": {"head": repo.git.head()},
        # A layer kept in a repository of its own says so: an import keeps it there (write/replay.py).
        "layers": [{"name": n, "readers": list(repo.settings.layer(n).readers),
                    **({"repository": url} if (url := repo.settings.layer(n).repository) else {})}
                   for n in sorted(layers)],
        "captures": entries,
        "curation": curation,
        "human_lines": human,
        "feedback": len(feedback),
    }
    raw = (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    _write(dest / MANIFEST, raw)
    sums.append(f"{hashlib.sha256(raw).hexdigest()}  {MANIFEST}")
    # Written last: a bundle without its checksums is an interrupted export, and import refuses it.
    _write(dest / SUMS, ("\n".join(sums) + "\n").encode())
    return ExportReport(str(dest), len(entries), tuple(sorted(layers)), total, skipped, len(curation),
                        sum(len(h["lines"]) for h in human), unreadable, len(feedback))


def _curation(repo: Repository, layers: Collection[str], capture_ids: list[str]) -> tuple[list[dict[str, Any]], int]:
    """The curation record of `layers`, each entry with `after`: how many of the bundle's captures (in
    capture order) came before it, which is where an import replays it."""
    record = read_curation(repo.git)
    times = [id_ms(c) or 0 for c in capture_ids]
    out = []
    for e in sorted([*record.entries, *layer_curation(repo, layers)], key=lambda e: e.at):
        if e.layer in layers:
            out.append({**e.to_dict(), "after": bisect.bisect_right(times, e.at)})
    return out, sum(1 for _ in record.unreadable)


def _feedback(repo: Repository, layers: Collection[str]) -> list[str]:
    """Every feedback record of `layers` in the working tree (committed and open batches), in time order, each
    naming its page where the page is now (ids outlive renames; an import finds the page by its path)."""
    here: dict[str, str] = {}
    for path in tracked(repo, layers, "wiki", "sources"):
        kind = classify(path)
        if kind and kind[1] in layers:
            m = _ID_LINE_RE.search((repo.root / path).read_text(encoding="utf-8").split("\n---\n", 1)[0])
            if m:
                here[m.group(1)] = path
    records = [r for r in iter_records(repo.root) if r.layer in layers]
    return [render_record(replace(r, path=here.get(r.page, r.path))) for r in sorted(records, key=lambda r: (r.at, r.id))]


def _human(repo: Repository, layers: Collection[str]) -> list[dict[str, Any]]:
    """Every run of lines people wrote on the exported layers' pages, with the line before it."""
    texts = {}
    for path in tracked(repo, layers, "wiki"):
        kind = classify(path)
        if kind and kind[0] != "source" and kind[1] in layers:
            texts[path] = (repo.root / path).read_text(encoding="utf-8")
    out = []
    for rel, lines in sorted(people_lines(repo, texts).items()):
        for anchor, block in human_blocks(texts[rel].split("\n"), lines):
            out.append({"page": rel, "anchor": anchor, "lines": block})
    return out


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_bundle(src: Path) -> Bundle:
    """Open and verify a bundle: checksums, format, version, paths, limits."""
    src = Path(src)
    sums_path = src / SUMS
    if not sums_path.is_file():
        raise BundleError(f"{src}: no {SUMS} (not a stigmergy export, or an export that did not finish)")
    listed: dict[str, str] = {}
    for n, line in enumerate(sums_path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        digest, sep, rel = line.partition("  ")
        if not sep or not re.fullmatch(r"[0-9a-f]{64}", digest) or not (
                rel in (MANIFEST, FEEDBACK_FILE) or _FILE_RE.match(rel)):
            raise BundleError(f"{src}/{SUMS}: line {n} is not `sha256  captures/NNNNNN[.ext]` or the manifest")
        listed[rel] = digest
    if MANIFEST not in listed:
        raise BundleError(f"{src}/{SUMS}: does not list {MANIFEST}")
    manifest_path = src / MANIFEST
    if manifest_path.stat().st_size > MAX_MANIFEST_BYTES:
        raise InputError(str(manifest_path), "too-large", f"is over the {MAX_MANIFEST_BYTES}-byte limit")
    raw = manifest_path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != listed[MANIFEST]:
        raise BundleError(f"{manifest_path}: does not match its checksum in {SUMS}")
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise BundleError(f"{manifest_path}: not JSON ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{manifest_path}: not a {FORMAT} manifest")
    if manifest.get("version") not in READABLE_VERSIONS:
        raise BundleError(f"{manifest_path}: version {manifest.get('version')!r}; this stigmergy reads versions "
                          f"{', '.join(map(str, READABLE_VERSIONS))}")
    captures = manifest.get("captures")
    if not isinstance(captures, list) or len(captures) > MAX_CAPTURES:
        raise BundleError(f"{manifest_path}: `captures` must be a list of at most {MAX_CAPTURES} entries")
    fields = set(BundleEntry.__dataclass_fields__)
    entries = []
    first: dict[tuple[str, str], int] = {}  # (key, value) -> the capture that listed it first
    for i, item in enumerate(captures, start=1):
        try:
            entry = BundleEntry(**{k: item[k] for k in fields if k in item})
        except TypeError as exc:
            raise BundleError(f"{manifest_path}: capture {i} is missing a field ({exc})") from exc
        _check_types(entry, f"{manifest_path}: capture {i}")
        if entry.seq != i or not _FILE_RE.match(str(entry.file)) or listed.get(entry.file) != entry.sha256:
            raise BundleError(f"{manifest_path}: capture {i} ({entry.file!r}) is out of order or not in {SUMS}")
        # One capture listed twice (the same file or the same capture id) would be captured twice.
        for key in ("file", "capture_id"):
            seen = first.setdefault((key, str(getattr(entry, key))), i)
            if seen != i:
                raise BundleError(f"{manifest_path}: capture {i} repeats capture {seen} (the same {key.replace('_', ' ')} "
                                  f"{getattr(entry, key)}); nothing was imported")
        path = src / entry.file
        if path.is_symlink() or not path.is_file():
            raise BundleError(f"{src}/{entry.file}: missing")
        # Every file is checked before anything is imported: a damaged bundle imports nothing.
        with open(path, "rb") as fh:
            if hashlib.file_digest(fh, "sha256").hexdigest() != entry.sha256:
                raise BundleError(f"{src}/{entry.file}: content does not match its checksum")
        entries.append(entry)
    layers = {str(m.get("name")) for m in manifest.get("layers") or [] if isinstance(m, dict)} | {e.layer for e in entries}
    curation = _read_curation(manifest.get("curation"), layers, len(entries), f"{manifest_path}: curation")
    human = _read_human(manifest.get("human_lines"), layers, f"{manifest_path}: human_lines")
    feedback = _read_feedback(src, listed.get(FEEDBACK_FILE), layers)
    return Bundle(src, manifest, tuple(entries), curation, human, feedback)


def _read_feedback(src: Path, digest: str | None, layers: set[str]) -> tuple[Record, ...]:
    """The bundle's feedback records, each a canonical record of one of its layers (else nothing imports)."""
    if digest is None:
        return ()
    path = src / FEEDBACK_FILE
    if path.is_symlink() or not path.is_file():
        raise BundleError(f"{path}: missing")
    if path.stat().st_size > MAX_FEEDBACK_BYTES:
        raise InputError(str(path), "too-large", f"is over the {MAX_FEEDBACK_BYTES}-byte limit")
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != digest:
        raise BundleError(f"{path}: does not match its checksum in {SUMS}")
    out = []
    for n, line in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        try:
            record = parse_record(line)
        except ContractError as exc:
            raise BundleError(f"{path}: line {n}: {exc.message}; nothing was imported") from exc
        if record.layer not in layers:
            raise BundleError(f"{path}: line {n} is feedback of layer {record.layer}, not one of this bundle's")
        out.append(record)
    return tuple(out)


_OP_RE = re.compile(r"^op_[0-9A-Z]{26}$")
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_MAX_TEXT = 10_000


def _page_ok(value: Any, layers: set[str]) -> bool:
    """A wiki page path (never a source page, never outside the wiki) in one of the bundle's layers."""
    if not isinstance(value, str) or len(value) > 1000 or unsafe_relpath_reason(value) is not None:
        return False
    kind = classify(value)
    return kind is not None and kind[0] != "source" and kind[1] in layers


def _names_ok(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= 100 and all(isinstance(a, str) and 0 < len(a) <= 200 for a in value)


def _read_curation(items: Any, layers: set[str], captures: int, where: str) -> tuple[tuple[int, CurationEntry], ...]:
    """The bundle's curation record, every field checked: it is replayed as operations, so a hostile
    entry must be refused before anything is imported, never half-applied."""
    if items is None:
        return ()
    if not isinstance(items, list) or len(items) > MAX_CURATION:
        raise BundleError(f"{where} must be a list of at most {MAX_CURATION} entries")
    out = []
    for i, item in enumerate(items, start=1):
        bad = not isinstance(item, dict)
        if not bad:
            to = item.get("to")
            bad = (item.get("kind") not in ENTRY_KINDS or not _page_ok(item.get("page"), layers)
                   or not isinstance(item.get("at"), int) or not isinstance(item.get("after"), int)
                   or not 0 <= item["after"] <= captures
                   or not isinstance(item.get("timestamp"), str) or not _TS_RE.match(item["timestamp"])
                   or not (item.get("op_id") is None or (isinstance(item["op_id"], str) and _OP_RE.match(item["op_id"])))
                   or not isinstance(item.get("commit"), str) or not re.fullmatch(r"[0-9a-f]{7,64}", item["commit"])
                   or not isinstance(item.get("author"), str) or len(item["author"]) > 300
                   or item.get("by", "person") not in ("person", "garden")
                   or not _names_ok(item.get("added", [])) or not _names_ok(item.get("removed", [])))
            if not bad and item["kind"] in ("rename", "merge"):
                bad = not _page_ok(to, layers) or classify(to) != classify(item["page"])
            if not bad and item["kind"] == "rename":
                bad = not isinstance(item.get("title"), str) or not 0 < len(item["title"]) <= 200
        if bad:
            raise BundleError(f"{where}: entry {i} is not a curation entry of this bundle's layers")
        out.append((item["after"], CurationEntry.from_dict(item)))
    return tuple(out)


def _read_human(items: Any, layers: set[str], where: str) -> tuple[HumanBlock, ...]:
    if items is None:
        return ()
    if not isinstance(items, list) or len(items) > MAX_HUMAN_BLOCKS:
        raise BundleError(f"{where} must be a list of at most {MAX_HUMAN_BLOCKS} entries")
    out = []
    for i, item in enumerate(items, start=1):
        ok = isinstance(item, dict) and _page_ok(item.get("page"), layers)
        anchor = item.get("anchor") if ok else None
        lines = item.get("lines") if ok else None
        ok = ok and (anchor is None or (isinstance(anchor, str) and len(anchor) <= _MAX_TEXT and "\n" not in anchor))
        ok = ok and isinstance(lines, list) and 0 < len(lines) <= 1000 and all(
            isinstance(t, str) and len(t) <= _MAX_TEXT and "\n" not in t and t.strip() != "---" for t in lines)
        if not ok:
            raise BundleError(f"{where}: entry {i} is not a run of lines on a page of this bundle's layers")
        out.append(HumanBlock(item["page"], anchor, tuple(lines or ())))
    return tuple(out)


_TEXT_FIELDS = ("file", "sha256", "media_type", "title", "occurred_at", "submitted_by", "layer", "locator", "origin",
                "capture_id", "captured_at")


def _check_types(entry: BundleEntry, where: str) -> None:
    bad = [k for k in _TEXT_FIELDS if not isinstance(getattr(entry, k), str) or len(getattr(entry, k)) > 4096]
    if not isinstance(entry.seq, int) or not isinstance(entry.bytes, int):
        bad.append("seq/bytes")
    if entry.project is not None and not isinstance(entry.project, str):
        bad.append("project")
    if entry.resolution is not None and not isinstance(entry.resolution, dict):
        bad.append("resolution")
    if bad:
        raise BundleError(f"{where}: {', '.join(bad)} not of the right type (or too long)")
