"""The whole wiki read once: every page's text, parsed value (or why it is not canonical), stems and
aliases. Maintenance operations look at every page, unlike filing, which reads a few."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from stigmergy.errors import ContractError
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wiki import WikiPage, parse_wiki_page, parses_back, render_wiki_page
from stigmergy.pages.wikilinks import LinkResolver, alias_listing, link_key
from stigmergy.repo.layout import TYPE_FOLDERS, classify, layer_prefix
from stigmergy.settings import Settings


def layer_of(relpath: str) -> str:
    parts = relpath.split("/")
    return parts[1] if parts[0] == "layers" and len(parts) > 2 else "public"


def wiki_paths(root: Path, layers: Iterable[str]) -> list[str]:
    """Every wiki page file (`wiki/<folder>/<Stem>.md`, per layer), sorted; symbolic links are skipped."""
    out: list[str] = []
    for layer in layers:
        for folder in TYPE_FOLDERS.values():
            rel_dir = f"{layer_prefix(layer)}wiki/{folder}"
            try:
                entries = list(os.scandir(root / rel_dir))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for entry in entries:
                if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                    out.append(f"{rel_dir}/{entry.name}")
    return sorted(out)


MARK = "stigmergy:contradiction"


@dataclass(frozen=True)
class MapEntry:
    title: str
    type: str
    entity_type: str | None
    body: str  # only when the page holds a contradiction block (the map lists open ones)


def _head(text: str) -> dict[str, str]:
    """Top-level scalar keys of a canonical page's front matter (`title`, `type`, `entity_type`)."""
    import yaml

    out: dict[str, str] = {}
    if not text.startswith("---\n"):
        return out
    end = text.find("\n---\n", 3)
    for line in text[4:end].split("\n"):
        key, sep, value = line.partition(": ")
        if sep and key in ("title", "type", "entity_type") and value:
            if value[:1] in ("'", '"'):
                try:
                    value = str(yaml.safe_load(value))
                except yaml.YAMLError:
                    continue
            out[key] = value
    return out


@dataclass
class Snapshot:
    """Pages as a mapping path -> text; `parsed` and the resolver are derived on demand.

    `unwritten`: changes this snapshot's tree holds that are not on disk under `root` yet (recompile replays
    a run of curation entries in memory and writes only the net result): `is_file`, `exists` and
    `file_text` answer for the tree as the snapshot sees it, maps of content included."""

    root: Path
    settings: Settings
    texts: dict[str, str] = field(default_factory=dict)
    unwritten: dict[str, str | None] = field(default_factory=dict)
    # (page folder, body) -> the capture ids the body cites, where an operation knows them without reading the
    # body (garden/identity.py: a relinked body cites what it cited before); shared by the snapshots made
    # from this one, so a replay's next entries find them.
    cited: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    # text -> the page it parses to, for texts an operation rendered from a page that `parses_back` (see
    # `render`); shared like `cited`.
    known: dict[str, WikiPage] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path, settings: Settings) -> Snapshot:
        snap = cls(Path(root), settings)
        for rel in wiki_paths(snap.root, settings.layer_names()):
            try:
                snap.texts[rel] = (snap.root / rel).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # lint reports an unreadable page; maintenance leaves it alone
        return snap

    def with_changes(self, changes: Mapping[str, str | None]) -> Snapshot:
        texts = dict(self.texts)
        for rel, text in changes.items():
            if classify(rel) is None or classify(rel)[0] == "source":  # type: ignore[index]
                continue
            if text is None:
                texts.pop(rel, None)
            else:
                texts[rel] = text
        snap = Snapshot(self.root, self.settings, texts, self.unwritten, self.cited, self.known)
        # Unchanged pages need not be parsed again (from this snapshot, or what it kept of its own parent's).
        done = self.__dict__["parsed"] if "parsed" in self.__dict__ else self.__dict__.get("_kept")
        if done is not None:
            # Only the paths in `changes` can differ (the rest are the same objects): not every page compared.
            kept = dict(done)
            for rel in changes:
                if rel in kept and texts.get(rel) != self.texts.get(rel):
                    del kept[rel]
            snap.__dict__["_kept"] = kept
        return snap

    def applied(self, changes: Mapping[str, str | None]) -> Snapshot:
        """The tree after `changes`, which are kept in `unwritten` (not written to disk)."""
        snap = self.with_changes(changes)
        snap.unwritten = {**self.unwritten, **changes}
        return snap

    def render(self, page: WikiPage) -> str:
        """`page`'s text; remembered as that text's parse where it provably is one (`parses_back`): a
        recompile's curation replay rewrites hundreds of pages, and each entry parsed the ones before it
        wrote again."""
        text = render_wiki_page(page)
        if text not in self.known and parses_back(page):
            self.known[text] = page
        return text

    def _parse(self, rel: str) -> WikiPage | ContractError:
        text = self.texts[rel]
        return self.known.get(text) or _parse(text, rel)

    def is_file(self, rel: str) -> bool:
        if rel in self.unwritten:
            return self.unwritten[rel] is not None
        return (self.root / rel).is_file()

    def exists(self, rel: str) -> bool:
        if rel in self.unwritten:
            return self.unwritten[rel] is not None
        return (self.root / rel).exists()

    def file_text(self, rel: str) -> str | None:
        """The text of any file of the tree (a page, a map of content), None when there is none."""
        if rel in self.unwritten:
            return self.unwritten[rel]
        path = self.root / rel
        return path.read_text(encoding="utf-8") if path.is_file() else None

    @cached_property
    def parsed(self) -> dict[str, WikiPage | ContractError]:
        # Parsed when first asked for, not by `with_changes`: many snapshots of an operation are only
        # looked at for their stems or their map of content, and a recompile's replay makes one per entry.
        kept = self.__dict__.pop("_kept", None)
        if kept is None:
            return {rel: self._parse(rel) for rel in self.texts}
        for rel in self.texts.keys() - kept.keys():
            kept[rel] = self._parse(rel)
        return kept

    def page(self, rel: str) -> WikiPage | None:
        # One page parsed, not the whole wiki: a replayed alias edit or a rename looks at one page, then the
        # next entry's snapshot would parse every page this one changed (parse_wiki_page memoises by text).
        if "parsed" in self.__dict__:
            value = self.parsed.get(rel)
        else:
            kept = self.__dict__.get("_kept")
            value = kept[rel] if kept is not None and rel in kept else (
                self._parse(rel) if rel in self.texts else None)
        return value if isinstance(value, WikiPage) else None

    def pages(self) -> dict[str, WikiPage]:
        return {rel: p for rel, p in self.parsed.items() if isinstance(p, WikiPage)}

    @cached_property
    def stems(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for rel in self.texts:
            out.setdefault(link_key(stem_of(rel)), []).append(rel)
        return out

    @cached_property
    def aliases(self) -> dict[str, list[str]]:
        # A line scan of each entity page's front matter, not a parse of the whole wiki.
        entities = [rel for rel in self.texts if (classify(rel) or ("", ""))[0] == "entity"]
        return alias_listing(self.root, entities, read=self.texts.get)

    @cached_property
    def resolver(self) -> LinkResolver:
        return LinkResolver(self.stems, lambda: self.aliases)

    def map_pages(self) -> dict[str, MapEntry]:
        """What the map of content needs of each page, read from the front matter with a line scan (a
        map is re-rendered after every delete, merge and rename: parsing the whole wiki would dominate)."""
        out: dict[str, MapEntry] = {}
        # Parsed where this snapshot or the one it was made from was parsed (a page as parsed and as line-scanned
        # give the same entry; which one is used stays as it was before parsing became lazy).
        parsed = self.parsed if "parsed" in self.__dict__ or "_kept" in self.__dict__ else {}
        for rel, text in self.texts.items():
            value = parsed.get(rel)
            if isinstance(value, WikiPage):
                out[rel] = MapEntry(value.title, value.type, value.entity_type, value.body if MARK in value.body else "")
                continue
            head = _head(text)
            if head.get("type") not in TYPE_FOLDERS or "title" not in head:
                continue
            body = text if MARK in text else ""
            out[rel] = MapEntry(head["title"], head["type"], head.get("entity_type"), body)
        return out

    @cached_property
    def by_id(self) -> dict[str, str]:
        return {p.id: rel for rel, p in self.pages().items()}


def _parse(text: str, rel: str) -> WikiPage | ContractError:
    try:
        return parse_wiki_page(text, rel)
    except ContractError as exc:
        return exc
