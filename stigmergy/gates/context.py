"""What the gates look at: the tree on disk, the materialised changes over it, and what the plan recorded.

Everything is read lazily and cached: a plan touching ten pages reads those pages, the sources they cite
and a directory listing of stems, never the whole wiki."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from stigmergy.errors import ContractError
from stigmergy.gates.authorship import Authorship
from stigmergy.layers import readers_allow  # noqa: F401 — the policy lives in stigmergy.layers
from stigmergy.pages.citations import Citation
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wiki import WikiPage, parse_wiki_page
from stigmergy.pages.wikilinks import LinkResolver, alias_listing, entity_listing, link_key, stem_listing
from stigmergy.repo.containment import read_contained
from stigmergy.repo.layout import classify, layer_prefix
from stigmergy.settings import Settings


@dataclass(frozen=True)
class OperationInfo:
    op_id: str
    kind: str  # "capture" | "file" | "delete" | "garden" | "recompile" | "merge" | "rename" | "correction"
    timestamp: str  # UTC "YYYY-MM-DDTHH:MM:SSZ"; used for created/updated (never the wall clock)
    capture_id: str | None = None
    source_path: str | None = None  # repo-relative path of this operation's own new source page (on disk)
    resolves: str | None = None  # con_ id named by the capture's --resolves
    rationale: str | None = None
    # Maintenance operations (see gates/maintenance.py): the paths a `delete` was asked to remove, and
    # the (old path, new path) moves of a merge or rename, which the gates verify line by line.
    targets: tuple[str, ...] = ()
    moves: tuple[tuple[str, str], ...] = ()
    occurred_at: str | None = None  # when the filed capture happened: a resolution is dated by it


@dataclass(frozen=True)
class Violation:
    rule: str
    path: str
    message: str
    lines: tuple[str, ...] = ()


def front_matter_keys(text: str) -> dict[int, str]:
    """{1-based line number: top-level key} for the front matter lines of a canonical page."""
    out: dict[int, str] = {}
    if not text.startswith("---\n"):
        return out
    key = ""
    for n, line in enumerate(text.split("\n")[1:], start=2):
        if line == "---":
            break
        if line and not line[0].isspace() and not line.startswith("- ") and ":" in line:
            key = line.split(":", 1)[0]
        out[n] = key
    return out


@dataclass
class GateContext:
    root: Path
    settings: Settings
    op: OperationInfo
    changes: dict[str, str | None] = field(default_factory=dict)
    records: list[str] = field(default_factory=list)
    created_blocks: dict[str, str] = field(default_factory=dict)  # con id -> page path
    resolved_blocks: dict[str, str] = field(default_factory=dict)  # con id -> page path
    resolved_claims: list[tuple[str, Citation]] = field(default_factory=list)  # (con id, claim span)
    authorship: Authorship | None = None
    views: dict[tuple[str, str], object] = field(default_factory=dict)
    _disk: dict[str, str | None] = field(default_factory=dict)
    _old_pages: dict[str, WikiPage | ContractError] = field(default_factory=dict)
    _source_lines: dict[str, list[str] | None] = field(default_factory=dict)

    # -- the tree on disk -------------------------------------------------------------------------

    def disk_text(self, relpath: str) -> str | None:
        if relpath not in self._disk:
            # Real-path containment: a page behind a symlink is not this path's page (zone refuses writes).
            self._disk[relpath] = read_contained(self.root, relpath)
        return self._disk[relpath]

    def old_page(self, relpath: str) -> WikiPage | ContractError | None:
        """The page on disk, parsed strictly; a ContractError when it is not canonical; None if absent."""
        if relpath not in self._old_pages:
            text = self.disk_text(relpath)
            if text is None:
                return None
            try:
                self._old_pages[relpath] = parse_wiki_page(text, relpath)
            except ContractError as exc:
                self._old_pages[relpath] = exc
        return self._old_pages[relpath]

    def source_lines(self, relpath: str) -> list[str] | None:
        """Lines of a source page file (1-based line n is item n-1); None if it is not a source page."""
        if relpath not in self._source_lines:
            kind = classify(relpath)
            text = self.disk_text(relpath) if kind is not None and kind[0] == "source" else None
            if text is not None and text.endswith("\n"):
                text = text[:-1]
            self._source_lines[relpath] = None if text is None else text.split("\n")
        return self._source_lines[relpath]

    def find_source(self, capture_id: str) -> str | None:
        """Repository-relative path of the source page of `capture_id`, in any layer."""
        if self.op.capture_id == capture_id and self.op.source_path:
            return self.op.source_path
        if not capture_id.startswith("cap_") or "/" in capture_id or "\\" in capture_id:
            return None
        for layer in self.settings.layer_names():
            base = self.root / f"{layer_prefix(layer)}sources"
            if not base.is_dir():
                continue
            for year in os.scandir(base):
                if not year.is_dir(follow_symlinks=False):
                    continue
                for month in os.scandir(year.path):
                    if (Path(month.path) / f"{capture_id}.md").is_file():
                        return f"{layer_prefix(layer)}sources/{year.name}/{month.name}/{capture_id}.md"
        return None

    # -- the tree after the plan ------------------------------------------------------------------

    def new_text(self, relpath: str) -> str | None:
        if relpath in self.changes:
            return self.changes[relpath]
        return self.disk_text(relpath)

    @cached_property
    def stems(self) -> Mapping[str, list[str]]:
        """Every page's stem on disk with this plan's creations and deletions over it: the listing is
        kept across plans (never copied), the plan's changes are a small overlay."""
        base = stem_listing(self.root, self.settings.layer_names())
        changed: dict[str, list[str]] = {}
        for rel, text in self.changes.items():
            key = link_key(stem_of(rel))
            paths = changed.setdefault(key, list(base.get(key, [])))
            if text is None and rel in paths:
                paths.remove(rel)
            elif text is not None and rel not in paths and classify(rel) is not None:
                paths.append(rel)
        return _Overlay(base, changed)

    def refresh_links(self) -> None:
        """Forget the stem listing and resolver so they see the changes made since."""
        self.__dict__.pop("stems", None)
        self.__dict__.pop("resolver", None)

    def _aliases(self) -> Mapping[str, list[str]]:
        listed = entity_listing(self.root, self.settings.layer_names())
        planned = [p for p in self.changes if (classify(p) or ("", ""))[0] == "entity"]
        entity_paths = sorted({p for p in (*listed, *planned) if self.stems.get(link_key(stem_of(p)))
                               and p in self.stems[link_key(stem_of(p))]})
        return alias_listing(self.root, entity_paths, read=self.new_text)

    @cached_property
    def resolver(self) -> LinkResolver:
        return LinkResolver(self.stems, self._aliases)

    def get_authorship(self) -> Authorship:
        if self.authorship is None:
            self.authorship = Authorship(self.root)
        return self.authorship


class _Overlay(Mapping[str, list[str]]):
    """`base` with the keys of `changed` replaced (an empty list: no page has that stem any more)."""

    def __init__(self, base: Mapping[str, list[str]], changed: dict[str, list[str]]) -> None:
        self._base = base
        self._changed = changed

    def __getitem__(self, key: str) -> list[str]:
        got = self._changed[key] if key in self._changed else self._base[key]
        if not got:
            raise KeyError(key)
        return got

    def __iter__(self):  # noqa: ANN204
        yield from (k for k, v in self._changed.items() if v)
        yield from (k for k in self._base if k not in self._changed)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def line_counter(text: str | None) -> Counter[str]:
    """How many times each line occurs in `text` (a fresh Counter: callers count lines off it)."""
    return _line_counter(text).copy() if text else Counter()


def line_counts(text: str | None) -> Counter[str]:
    """How many times each line occurs in `text`, shared and read-only: for lookups that never count off."""
    return _line_counter(text) if text else _EMPTY


_EMPTY: Counter[str] = Counter()


@lru_cache(maxsize=32)
def _line_counter(text: str) -> Counter[str]:
    # Every gate counts the lines of the same few old and new texts; copying a Counter is far cheaper
    # than splitting and counting a long page again.
    return Counter(text.split("\n"))
