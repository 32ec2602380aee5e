"""The catalogue of one layer: its page paths by type and its entity pages' titles, types and aliases, kept per
process and re-read only for the folders and files that changed (the planner's context and the deterministic
planner ask for it on every capture; a wiki of 2,000 notes must not be listed and parsed again each time)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import yaml

from stigmergy.pages.frontmatter import load_lines
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wikilinks import folder_listing
from stigmergy.plan.deterministic.layout import archive_base
from stigmergy.repo import page_memo, watch
from stigmergy.repo.layout import TYPE_FOLDERS, layer_prefix

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class EntityRef:
    path: str
    title: str
    entity_type: str
    aliases: tuple[str, ...]
    matched: bool = False  # named in the source


# ------------------------------------------------------------------------------------ catalogue


@dataclass(frozen=True)
class _Head:
    key: tuple[int, int]
    title: str
    entity_type: str
    aliases: tuple[str, ...]


class Catalogue:
    """Page paths of one layer and the entity titles and aliases, re-read only for files that changed."""

    def __init__(self, root: Path, layer: str) -> None:
        self.root = root
        self.layer = layer
        self._heads: dict[str, _Head] = {}
        # type -> sorted relpaths: kept lists, the same object until the folder's pages change (all_stems
        # tells a change by that), so callers must not modify them
        self.pages: dict[str, list[str]] = {}
        self.folders: list[str] = []  # the folders of `pages`
        # Per type: the listing the stems below were made from, and {casefolded stem: every path with
        # it}; a listing that changed (the notes folder after each capture) is applied as the paths added
        # and removed, so the stems of 2,000 notes are not made again on every capture.
        self._stem_src: dict[str, list[str]] = {}
        self._stem_paths: dict[str, dict[str, list[str]]] = {}
        self._stem_map: dict[str, dict[str, str]] = {}
        # entities() and names() made from the heads as they were: every capture asks for both, and
        # each walks every head (archive titles matched against every title); a head read again, added
        # or gone drops them, so they are never older than the heads.
        self._made: tuple[list[EntityRef], dict[str, str]] | None = None
        self._mark: watch.Mark | None = None  # the kernel's word on the entity folder since it was read
        self._listed: list[str] | None = None  # the entity pages' paths, sorted (None: made again)
        # The heads an earlier process read (repo/page_memo.py): a new process stats the entity pages and
        # reads only those changed since; `_since` is taken before each refresh's stats.
        self._memo = page_memo.memo(root, f"heads-{layer}")
        self._since = 0

    def all_stems(self) -> dict[str, str]:
        """{casefolded stem: path} of every page of the layer (a fresh dict: callers add to it); where
        two pages of one folder share a casefolded stem, the later path in sorted order."""
        out: dict[str, str] = {}
        for ptype, paths in self.pages.items():
            if self._stem_src.get(ptype) is not paths:
                self._apply(ptype, paths)
            out.update(self._stem_map[ptype])
        return out

    def _apply(self, ptype: str, paths: list[str]) -> None:
        before = set(self._stem_src.get(ptype, ()))
        now = set(paths)
        by_stem = self._stem_paths.setdefault(ptype, {})
        stem_map = self._stem_map.setdefault(ptype, {})
        touched: set[str] = set()
        for p in before - now:
            key = stem_of(p).casefold()
            if p in by_stem.get(key, ()):
                by_stem[key].remove(p)
            touched.add(key)
        for p in now - before:
            key = stem_of(p).casefold()
            by_stem.setdefault(key, []).append(p)
            touched.add(key)
        for key in touched:
            if by_stem.get(key):
                stem_map[key] = max(by_stem[key])
            else:
                by_stem.pop(key, None)
                stem_map.pop(key, None)
        self._stem_src[ptype] = paths

    def refresh(self) -> Catalogue:
        prefix = layer_prefix(self.layer)
        self._since = page_memo.now_ns()
        self.pages = {}
        self.folders = [f"{prefix}wiki/{folder}" for folder in TYPE_FOLDERS.values()]  # they hold every page
        for ptype, folder in TYPE_FOLDERS.items():
            rel_dir = f"{prefix}wiki/{folder}"
            if ptype != "entity":
                # The kept listing (wikilinks.folder_listing): one directory read when the folder changed.
                self.pages[ptype] = folder_listing(self.root, rel_dir)
                continue
            # Where the kernel says which entity pages changed (repo/watch.py), only those are looked at;
            # elsewhere every head's (mtime, size) is read again.
            changed, self._mark = watch.changes(self.root / rel_dir, self._mark)
            if changed is None:
                self._scan(rel_dir)
            else:
                for name in changed:
                    if name.endswith(".md"):
                        self._look(f"{rel_dir}/{name}", name)
            if self._listed is None:
                self._listed = sorted(self._heads)
            self.pages[ptype] = self._listed
        self._memo.save_if_many()
        return self

    def _scan(self, rel_dir: str) -> None:
        live: set[str] = set()
        try:
            it = os.scandir(self.root / rel_dir)
        except FileNotFoundError:
            it = None  # no entity folder: no entity pages
        if it is not None:
            with it:
                for entry in it:
                    if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except FileNotFoundError:
                            continue  # gone while listed; the rest of the folder is still read
                        rel = f"{rel_dir}/{entry.name}"
                        live.add(rel)
                        self._head(rel, entry.name, st)
        for gone in set(self._heads) - live:
            self._forget(gone)
        self._memo.retain(live)

    def _look(self, rel: str, name: str) -> None:
        """One entity page the kernel named: read again if it changed, forgotten if it is gone."""
        try:
            st = os.stat(self.root / rel, follow_symlinks=False)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            self._forget(rel)
        else:
            self._head(rel, name, st, again=True)

    def _forget(self, rel: str) -> None:
        self._memo.forget(rel)
        if self._heads.pop(rel, None) is not None:
            self._made = None
            self._listed = None

    def _head(self, rel: str, name: str, st: os.stat_result, again: bool = False) -> None:
        """Read the head of `rel` when its (mtime, size) moved, or `again` (the kernel named it: an edit in
        place of the same size within the mtime's tick keeps the stamp)."""
        key = (st.st_mtime_ns, st.st_size)
        head = self._heads.get(rel)
        if head is not None and head.key == key and not again:
            return
        new = _kept_head(self._memo.take(rel, key), key) if head is None and not again else None
        if new is None:
            try:
                new = _read_head(self.root / rel, key, name[:-3])
            except FileNotFoundError:  # gone since its stat
                self._forget(rel)
                return
            self._memo.keep(rel, key, [new.title, new.entity_type, list(new.aliases)], self._since)
        if head is None or (new.title, new.entity_type, new.aliases) != (head.title, head.entity_type, head.aliases):
            self._made = None  # a page filed again keeps its name: what was made from it still holds
        if head is None:
            self._listed = None
        self._heads[rel] = new

    def _archives(self) -> set[str]:
        """Entity pages that are another entity page's archive ('Harbor API (2026)'): not identities."""
        titles = {h.title for h in self._heads.values()}
        return {p for p, h in self._heads.items() if (archive_base(h.title) or "\0") in titles}

    def _make(self) -> tuple[list[EntityRef], dict[str, str]]:
        if self._made is None:
            skip = self._archives()
            self._made = self._entities(skip), self._names(skip)
        return self._made

    def entities(self) -> list[EntityRef]:
        return list(self._make()[0])  # a fresh list: callers may sort or extend it

    def names(self) -> dict[str, str]:
        """Every entity title and alias -> entity page path. A name two entities claim belongs to neither
        (matching it would guess)."""
        return dict(self._make()[1])  # a fresh dict: callers may add to it

    def _entities(self, skip: set[str]) -> list[EntityRef]:
        return [
            EntityRef(path, h.title, h.entity_type, h.aliases) for path, h in sorted(self._heads.items())
            if path not in skip
        ]

    def _names(self, skip: set[str]) -> dict[str, str]:
        owners: dict[str, set[str]] = {}
        for path, h in self._heads.items():
            if path in skip:
                continue
            for name in (h.title, *h.aliases):
                if name.strip():
                    owners.setdefault(name, set()).add(path)
        return {n: next(iter(p)) for n, p in owners.items() if len(p) == 1}


def _kept_head(value: object, key: tuple[int, int]) -> _Head | None:
    """A head an earlier process read ([title, entity_type, [aliases]]); None unless of that shape."""
    if (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and isinstance(value[1], str)
            and isinstance(value[2], list) and all(isinstance(a, str) for a in value[2])):
        return _Head(key, value[0], value[1], tuple(value[2]))
    return None


def _read_head(path: Path, key: tuple[int, int], stem: str) -> _Head:
    with open(path, encoding="utf-8") as fh:
        text = fh.read(16384)
    try:
        end = text.index("\n---\n", 3)
        # The line loader the page parser reads canonical front matter with (0.04 ms a head against 0.2
        # for libyaml; a capture reads again the heads of the ~8 entity pages it filed); it answers None,
        # and libyaml reads the head, for any line it does not load as libyaml does. Anchors and aliases
        # join lines, so a head with '&' or '*' goes to libyaml, as in split_front_matter.
        raw = text[4 : end + 1]
        meta = None if "&" in raw or "*" in raw else load_lines(raw)
        if meta is None:
            meta = yaml.load(text[4:end], Loader=_Loader) or {}
    except (ValueError, yaml.YAMLError):
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    aliases = meta.get("aliases") or []
    return _Head(
        key,
        str(meta.get("title") or stem),
        str(meta.get("entity_type") or "other"),
        tuple(str(a) for a in aliases if isinstance(a, str)),
    )


# Per process: capture-after-capture in one process (bench, import) must not re-read every entity head.
_CATALOGUES: dict[tuple[str, str], Catalogue] = {}


def catalogue(root: Path, layer: str) -> Catalogue:
    key = (str(root.resolve()), layer)
    cat = _CATALOGUES.get(key)
    if cat is None:
        cat = _CATALOGUES[key] = Catalogue(root, layer)
    return cat.refresh()
