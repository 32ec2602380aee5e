"""The curation record: every operation that encodes a person's judgement, read back from Git alone, so a
fresh clone has it as much as the repository that made it.

- `rename`, `merge`, `delete` of a wiki page: stigmergy's own commits (`Stigmergy-Kind`). Path trailers
  name the pages in the public layer; in a restricted layer, whose commit messages name no page, the
  page ids (`Stigmergy-Page`, `Stigmergy-Into`) and the commit's diff do.
- `aliases` added or removed: read from the front matter of entity pages in people's own commits (no
  operation trailer) and in `garden` commits (aliases it learned).
- Resolutions live in their capture's source page (its front matter names the contradiction), and
  human lines are what `git blame` gives to a person: neither needs an entry here.

A commit that claims a curation kind but whose pages cannot be recovered is listed in `unreadable`, never
dropped: `recompile` reports it. Entries are in history order, each with the millisecond it was made at
(an operation's id carries its time; a person's commit its commit time), so a replay can put it between
the captures it came between."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.repo.git import Git
from stigmergy.repo.ids import id_ms, iso_of_ms
from stigmergy.repo.layout import classify
from stigmergy.repo.trailers import (
    HISTORY_FIELDS,
    HISTORY_FORMAT,
    HISTORY_KEYS,
    TRAILER_INTO,
    TRAILER_KIND,
    TRAILER_MOVE,
    TRAILER_OP,
    TRAILER_PAGE,
    TRAILER_TARGET,
)

CURATION_KINDS = ("rename", "merge", "delete")
ENTRY_KINDS = (*CURATION_KINDS, "aliases")
_FS = "\x1f"
_KEYS = HISTORY_KEYS


@dataclass(frozen=True)
class CurationEntry:
    kind: str  # rename | merge | delete | aliases
    at: int  # milliseconds since the epoch: when the judgement was made
    timestamp: str  # the operation's timestamp (what it wrote as `updated`)
    commit: str
    author: str
    page: str  # the page acted on, by its path before the operation
    op_id: str | None = None  # None for a person's own commit
    to: str | None = None  # rename: the new path; merge: the page kept
    title: str | None = None  # rename: the new title
    added: tuple[str, ...] = ()  # aliases
    removed: tuple[str, ...] = ()
    by: str = "person"  # aliases: person | garden

    @property
    def layer(self) -> str:
        parts = self.page.split("/")
        return parts[1] if parts[0] == "layers" and len(parts) > 2 else "public"

    def describe(self) -> str:
        if self.kind == "rename":
            return f"rename {self.page} to {self.title!r}"
        if self.kind == "merge":
            return f"merge {self.page} into {self.to}"
        if self.kind == "delete":
            return f"delete {self.page}"
        changes = [f"+{a}" for a in self.added] + [f"-{a}" for a in self.removed]
        return f"aliases of {self.page}: {', '.join(changes)}"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["added"], out["removed"] = list(self.added), list(self.removed)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CurationEntry:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["added"] = tuple(known.get("added") or ())
        known["removed"] = tuple(known.get("removed") or ())
        return cls(**known)


@dataclass
class CurationRecord:
    entries: list[CurationEntry] = field(default_factory=list)
    unreadable: list[dict[str, str]] = field(default_factory=list)  # {commit, kind, why}


@dataclass(frozen=True)
class _Commit:
    sha: str
    time: int
    author: str
    trailers: dict[str, str]

    @property
    def kind(self) -> str | None:
        return self.trailers.get(TRAILER_KIND) if self.trailers.get(TRAILER_OP) else None


def _log(git: Git, prefix: str = "") -> tuple[list[_Commit], dict[str, list[dict[str, Any]]]]:
    """Every commit that touched the wiki, oldest first, and what each changed (every path: a delete that
    removed a source page is told apart by it), read in one walk of the history (the walk people's lines are
    read from too: HISTORY_FORMAT). Paths are prefixed with `prefix` (a layer's own repository: its trailers
    already name paths of the wiki's working tree)."""
    # Values are cut at a group separator, not a comma: page paths may hold commas.
    out, changes = [], {}
    for head, entries in git.log_changes(HISTORY_FORMAT, "wiki", "layers"):
        parts = head.split(_FS)
        if len(parts) != HISTORY_FIELDS:
            continue
        trailers = {k: parts[3 + i].split("\x1d")[0].strip() for i, k in enumerate(_KEYS) if parts[3 + i].strip()}
        out.append(_Commit(parts[0], int(parts[1] or 0) * 1000, parts[2], trailers))
        changes[parts[0]] = [{**e, "path": prefix + str(e["path"])} for e in entries] if prefix else entries
    return out, changes


def _meta(data: bytes | None) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        meta, _body, _ = split_front_matter(data.decode("utf-8", "surrogateescape"))
    except ContractError:
        return {}
    return meta


def _is_wiki(path: str) -> bool:
    kind = classify(path)
    return kind is not None and kind[0] != "source"


def _names(value: Any) -> tuple[str, ...]:
    return tuple(str(a) for a in value) if isinstance(value, list) else ()


def read_curation(git: Git, prefix: str = "") -> CurationRecord:
    """The curation record of the repository `git` works in, oldest first; `prefix`: that repository is a
    layer's own, checked out at `prefix` (`layers/<l>/`), and its pages are named by their path there."""
    record = CurationRecord()
    if git.head() is None:
        return record
    log, changes = _log(git, prefix)
    # A person's commit is dated in seconds; it came after every commit before it in history, so it is
    # never placed before an operation made in the same second that it followed.
    last = 0
    at: dict[str, int] = {}
    for c in log:
        ms = id_ms(c.trailers.get(TRAILER_OP, "")) if c.trailers.get(TRAILER_OP) else None
        last = at[c.sha] = ms if ms is not None else max(c.time, last + 1)
    commits = [c for c in log if c.kind in CURATION_KINDS or c.kind in (None, "garden")]
    wanted: set[str] = set()
    for c in commits:
        entries = [e for e in changes.get(c.sha, []) if _is_wiki(str(e["path"]))]
        if c.kind in CURATION_KINDS:
            wanted.update(_operation_reads(c, entries))
            continue
        for e in entries:
            if (classify(str(e["path"])) or ("", ""))[0] == "entity":
                wanted.update(str(oid) for oid in (e["before"], e["after"]) if oid)
    blobs = _Blobs(git, git.blobs(sorted(wanted), keep=True))
    metas: dict[str, dict[str, Any]] = {}  # by blob: a page's version after one commit is the next one's before

    def meta_of(oid: Any) -> dict[str, Any]:
        key = str(oid)
        if key not in metas:
            metas[key] = _meta(blobs.get(key))
        return metas[key]

    for c in commits:
        entries = [e for e in changes.get(c.sha, []) if _is_wiki(str(e["path"]))]
        if c.kind in CURATION_KINDS:
            _operation(c, at[c.sha], entries, changes.get(c.sha, []), blobs, record)
        else:
            _aliases(c, at[c.sha], entries, meta_of, record)
    return record


class _Blobs:
    """Page versions by object id: those read ahead in one `git cat-file`, and any other asked for read
    then (so what is read ahead is only a cost, never an answer: a blob it missed is read all the same)."""

    def __init__(self, git: Git, ahead: dict[str, bytes]) -> None:
        self.git, self.got = git, dict(ahead)
        self.absent: set[str] = set()

    def get(self, oid: str) -> bytes | None:
        if oid not in self.got and oid not in self.absent:
            self.got.update(self.git.blobs([oid], keep=True))
            if oid not in self.got:
                self.absent.add(oid)
        return self.got.get(oid)


def _operation_reads(c: _Commit, entries: list[dict[str, Any]]) -> set[str]:
    """The page versions `_operation` reads for commit `c`: a rename's new page (its title), unless the
    trailers and the paths do not say which pages it moved (then every version it changed, as pages are
    found by id). A rename, merge or delete of a page relinks dozens of others, whose versions it never
    reads: reading them all cost more than the rest of the record."""
    every = {str(oid) for e in entries for oid in (e["before"], e["after"]) if oid}
    move, target = c.trailers.get(TRAILER_MOVE), c.trailers.get(TRAILER_TARGET)
    moved = tuple(p.strip() for p in move.split(" -> ", 1)) if move and " -> " in move else None
    deleted = [str(e["path"]) for e in entries if e["action"] == "delete"]
    added = [str(e["path"]) for e in entries if e["action"] == "add"]
    if c.kind == "rename":
        to = moved[1] if moved else target or (added[0] if len(deleted) == 1 and len(added) == 1 else None)
        if to is None:
            return every
        return {str(e["after"]) for e in entries if str(e["path"]) == to and e.get("after")}
    if c.kind == "merge":
        return set() if moved else every
    return set() if target or len(deleted) == 1 else every


def _operation(c: _Commit, at: int, entries: list[dict[str, Any]], all_entries: list[dict[str, Any]],
               blobs: _Blobs, record: CurationRecord) -> None:
    ts, op_id = iso_of_ms(at), c.trailers.get(TRAILER_OP)
    kind = str(c.kind)

    def meta_of(e: dict[str, Any], side: str) -> dict[str, Any]:
        return _meta(blobs.get(str(e[side]))) if e.get(side) else {}

    def by_id(page_id: str | None, actions: tuple[str, ...], side: str) -> str | None:
        if not page_id:
            return None
        hits = [str(e["path"]) for e in entries if e["action"] in actions and meta_of(e, side).get("id") == page_id]
        return hits[0] if len(hits) == 1 else None

    deleted = [str(e["path"]) for e in entries if e["action"] == "delete"]
    added = [str(e["path"]) for e in entries if e["action"] == "add"]
    move = c.trailers.get(TRAILER_MOVE)
    moved = tuple(p.strip() for p in move.split(" -> ", 1)) if move and " -> " in move else None
    target = c.trailers.get(TRAILER_TARGET)
    page = to = title = None
    if kind == "rename":
        if moved:
            page, to = moved
        elif target:
            page = to = target
        elif len(deleted) == 1 and len(added) == 1:
            page, to = deleted[0], added[0]
        else:
            page = to = by_id(c.trailers.get(TRAILER_PAGE), ("modify",), "after")
        after = next((e for e in entries if str(e["path"]) == to and e.get("after")), None)
        title = str(meta_of(after, "after").get("title") or "") if after is not None else ""
        if page and not title:
            page = None
    elif kind == "merge":
        if moved:
            page, to = moved
        else:
            page = deleted[0] if len(deleted) == 1 else by_id(c.trailers.get(TRAILER_PAGE), ("delete",), "before")
            to = by_id(c.trailers.get(TRAILER_INTO), ("modify",), "after")
    else:  # delete: a source page's deletion needs no replay (its source is gone from every refiling)
        if any((classify(str(e["path"])) or ("", ""))[0] == "source" and e["action"] == "delete" for e in all_entries):
            return
        if target:
            page = target if _is_wiki(target) else None
        else:
            page = deleted[0] if len(deleted) == 1 else by_id(c.trailers.get(TRAILER_PAGE), ("delete",), "before")
        to = None
    if not page or (kind == "merge" and not to):
        record.unreadable.append({"commit": c.sha, "kind": kind,
                                  "why": "its commit does not say which pages it changed (a restricted-layer commit "
                                         "made before page-id trailers); replay it by hand"})
        return
    record.entries.append(CurationEntry(kind, at, ts, c.sha, c.author, page, op_id=op_id, to=to, title=title))


def _aliases(c: _Commit, at: int, entries: list[dict[str, Any]], meta_of: Callable[[Any], dict[str, Any]],
             record: CurationRecord) -> None:
    ts, op_id = iso_of_ms(at), c.trailers.get(TRAILER_OP)
    for e in entries:
        path = str(e["path"])
        if e["action"] != "modify" or (classify(path) or ("", ""))[0] != "entity":
            continue
        before = _names(meta_of(e["before"]).get("aliases"))
        after = _names(meta_of(e["after"]).get("aliases"))
        if before == after:
            continue
        added = tuple(a for a in after if a not in before)
        removed = tuple(a for a in before if a not in after)
        if added or removed:
            record.entries.append(CurationEntry("aliases", at, ts, c.sha, c.author, path, op_id=op_id,
                                                added=added, removed=removed,
                                                by="garden" if c.kind == "garden" else "person"))
