"""Wikilinks: `[[Target]]`, `[[Target|label]]`, `[[Target#Heading|label]]`.

They resolve by file stem, case-insensitively, across the whole wiki (as Obsidian does), then by entity
alias. Resolution needs only a directory listing of stems; aliases are read lazily from the entity pages'
front matter with a line scan, never a full parse of the wiki."""

from __future__ import annotations

import os
import re
import stat
import time
import unicodedata
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from stigmergy.pages.markdown import code_lines, mask_code_spans
from stigmergy.pages.paths import sanitise_stem
from stigmergy.repo import watch
from stigmergy.repo.layout import TYPE_FOLDERS, layer_prefix

WIKILINK_RE = re.compile(r"\[\[([^\[\]|#\n]+)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]")


@dataclass(frozen=True)
class WikiLink:
    target: str
    heading: str | None
    label: str | None
    line: int  # 1-based, offset by first_line
    raw: str

    @property
    def text(self) -> str:
        """What a reader sees: the label, else the target."""
        return self.label if self.label else self.target


def render_wikilink(target: str, label: str | None = None, heading: str | None = None) -> str:
    inner = target + (f"#{heading}" if heading else "")
    return f"[[{inner}|{label}]]" if label else f"[[{inner}]]"


def parse_wikilinks(text: str, *, first_line: int = 1) -> list[WikiLink]:
    """Every wikilink outside code blocks and inline code spans (as markdown-it reads them)."""
    if "[[" not in text:
        return []
    if first_line == 1 and "\n" not in text:
        # One line: the gates read each line a plan adds twice (dead links in `finish`, then layer-flow),
        # and a page's lead lines come back on every filing that touches it. WikiLink is frozen: shared.
        return list(_line_wikilinks(text))
    return _parse_wikilinks(text, first_line)


@lru_cache(maxsize=1 << 14)
def _line_wikilinks(line: str) -> tuple[WikiLink, ...]:
    return tuple(_parse_wikilinks(line, 1))


def _parse_wikilinks(text: str, first_line: int) -> list[WikiLink]:
    out: list[WikiLink] = []
    code = code_lines(text)
    for offset, line in enumerate(text.split("\n")):
        if "[[" not in line or offset in code:
            continue
        scan = mask_code_spans(line)
        for m in WIKILINK_RE.finditer(scan):
            target = line[m.start(1) : m.end(1)].strip()
            heading = m.group(2)
            label = m.group(3)
            out.append(
                WikiLink(
                    target=target,
                    heading=heading.strip() if heading else None,
                    label=line[m.start(3) : m.end(3)] if label is not None else None,
                    line=first_line + offset,
                    raw=line[m.start() : m.end()],
                )
            )
    return out


def unlink(line: str, dead: Iterable[str]) -> str:
    """`line` with the wikilinks whose raw text is in `dead` replaced by their plain text."""
    dead_set = set(dead)

    def sub(m: re.Match[str]) -> str:
        if m.group(0) not in dead_set:
            return m.group(0)
        return m.group(3) if m.group(3) else m.group(1).strip()

    return WIKILINK_RE.sub(sub, line)


@lru_cache(maxsize=1 << 16)
def link_key(name: str) -> str:
    # Memoised: a rename or merge replayed by recompile resolves every link target of the wiki again.
    return unicodedata.normalize("NFC", " ".join(name.split())).casefold()


@lru_cache(maxsize=1 << 16)
def fold_name(text: str) -> str:
    """A name with case, accents, punctuation and spacing folded away: `Zoë  Núñez` = `zoe nunez`. For
    noticing that two names are one (duplicate entities, alias evidence), never for resolving a link."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^\w]+", " ", stripped.casefold()).split())


# Per process, per repository and set of layers: every wiki page's (link key, path), kept up to date by
# folder. A folder's mtime changes whenever an entry is added, removed or renamed in it, so an unchanged
# folder is not listed again; a changed one (the notes folder, after every capture) is listed and only
# the names added or removed since are applied, so a plan over a wiki of 2,000 notes costs one directory
# read, not a rebuild of the index. As with git's racy index entries, a listing taken within _RACY_NS of
# the folder's mtime is not trusted the next time: file times tick coarsely, and a change in the same tick
# would leave the mtime as it was. Unless the file system's own clock is seen to have passed that mtime
# (`_settled`): then every later change stamps a later mtime, and the listing is trusted at once.
_RACY_NS = 200_000_000


def _settled(path: Path, st: os.stat_result) -> os.stat_result | None:
    """The folder's stat, when its access time shows a read at a file-system time after its mtime; else None.

    A capture lists the notes folder soon after its own last note went in, within _RACY_NS, so every such
    listing was made again by the next asker in the same capture (the planner's catalogue, then the gates'
    stem index: ~2.6 ms a listing of 2,000 notes). An access time later than the mtime was stamped by the
    same clock as any later change would be, so a change from then on cannot keep the mtime. If no read has
    stamped one since the last change, one read of the folder's first entries does (relatime and
    strictatime update the access time of a folder read while it is not later than the mtime); with
    noatime, a read-only mount or a clock still in the mtime's tick it stays not later, and the listing is
    judged by _RACY_NS as before. (A file time set by hand, `touch -d`, can defeat this, as it can git's
    racy check.)"""
    if st.st_atime_ns > st.st_mtime_ns:
        return st  # read after its last change, before this stat: the clock had passed the mtime then
    try:
        with os.scandir(path) as entries:
            next(entries, None)
        again = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISDIR(again.st_mode) or again.st_atime_ns <= again.st_mtime_ns:
        return None
    return again


class _Folder:
    """One wiki folder's page names (shared by the gates' stem index and the planner's catalogue): where the
    kernel names what changed in it (repo/watch.py), only those names are looked at; elsewhere the folder is
    listed again when its mtime moved (one directory read per change, whoever asks first)."""

    def __init__(self, root: Path, rel_dir: str) -> None:
        self.path = root / rel_dir
        self.rel_dir = rel_dir
        self.stamp: tuple[int, int] | None = None
        self.names: frozenset[str] = frozenset()
        self._sorted: list[str] = []
        self._sorted_from: frozenset[str] = self.names  # the names `_sorted` lists
        self.mark: watch.Mark | None = None  # the kernel's word on this folder since it was listed

    def refresh(self) -> frozenset[str]:
        # Where the kernel says which names changed (repo/watch.py), only those are looked at: the notes
        # folder gains a page a capture, and listing 2,000 notes again cost ~2.6 ms each time.
        changed, self.mark = watch.changes(self.path, self.mark)
        if changed is not None:
            self.stamp = None  # should the kernel's word stop, the folder is read whole again
            if changed:
                names = set(self.names)
                for name in changed:
                    if not name.endswith(".md"):
                        continue
                    try:
                        regular = stat.S_ISREG(os.stat(self.path / name, follow_symlinks=False).st_mode)
                    except OSError:
                        regular = False
                    if regular:
                        names.add(name)
                    else:
                        names.discard(name)
                if names != self.names:
                    self.names = frozenset(names)
            return self.names
        return self._list()

    def _list(self) -> frozenset[str]:
        """The folder read whole, trusted by its mtime (where the kernel cannot say what changed)."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_ino) if stat.S_ISDIR(st.st_mode) else None
        except OSError:
            stamp = None
        if stamp is not None and self.stamp == stamp:
            return self.names
        listed_at = time.time_ns()
        settled = None
        if stamp is not None and listed_at - stamp[0] <= _RACY_NS:
            settled = _settled(self.path, st)
            if settled is not None:  # the stamp the listing below is trusted against: this stat's
                stamp = (settled.st_mtime_ns, settled.st_ino)
        names: frozenset[str] = frozenset()
        if stamp is not None:
            try:
                with os.scandir(self.path) as entries:
                    names = frozenset(e.name for e in entries if e.name.endswith(".md") and e.is_file(follow_symlinks=False))
            except (FileNotFoundError, NotADirectoryError):
                names = frozenset()
        if names != self.names:
            self.names = names  # a new object: holders of the old one see that it changed
        racy = stamp is None or (settled is None and listed_at - stamp[0] <= _RACY_NS)
        self.stamp = None if racy else stamp
        return self.names

    def paths(self) -> list[str]:
        """The sorted relpaths: the same list object until the folder's entries change (do not modify it)."""
        if self._sorted_from is not self.names:
            # The notes folder gains a page a capture: the last sorted list with the names added and
            # removed since, not the folder's every path made and sorted again (a new list all the same).
            gone, new = self._sorted_from - self.names, self.names - self._sorted_from
            if len(gone) + len(new) <= 64:
                out = list(self._sorted)
                for name in gone:
                    del out[bisect_left(out, f"{self.rel_dir}/{name}")]
                for name in new:
                    insort(out, f"{self.rel_dir}/{name}")
            else:
                out = sorted(f"{self.rel_dir}/{n}" for n in self.names)
            self._sorted, self._sorted_from = out, self.names
        return self._sorted


_FOLDERS: dict[tuple[str, str], _Folder] = {}


def _folder(root: Path, rel_dir: str) -> _Folder:
    key = (str(root), rel_dir)
    got = _FOLDERS.get(key)
    if got is None:
        got = _FOLDERS[key] = _Folder(Path(root), rel_dir)
    return got


class _StemIndex:
    def __init__(self, root: Path, layers: tuple[str, ...]) -> None:
        self.root = root
        self.dirs = [f"{layer_prefix(layer)}wiki/{folder}" for layer in layers for folder in TYPE_FOLDERS.values()]
        self.names: dict[str, frozenset[str]] = {d: frozenset() for d in self.dirs}
        self.by_key: dict[str, list[str]] = {}

    def refresh(self) -> dict[str, list[str]]:
        for rel_dir in self.dirs:
            names = _folder(self.root, rel_dir).refresh()
            old = self.names[rel_dir]
            if names is old:
                continue
            for name in old - names:
                rel = f"{rel_dir}/{name}"
                key = link_key(name[:-3])
                paths = self.by_key.get(key, [])
                if rel in paths:
                    paths.remove(rel)
                if not paths:
                    self.by_key.pop(key, None)
            for name in names - old:
                rel = f"{rel_dir}/{name}"
                paths = self.by_key.setdefault(link_key(name[:-3]), [])
                paths.append(rel)
                paths.sort()
            self.names[rel_dir] = names
        return self.by_key


_STEM_INDEXES: dict[tuple[str, tuple[str, ...]], _StemIndex] = {}


def _stem_index(root: Path, layers: Iterable[str]) -> _StemIndex:
    key = (str(root), tuple(layers))
    index = _STEM_INDEXES.get(key)
    if index is None:
        index = _STEM_INDEXES[key] = _StemIndex(Path(root), key[1])
    index.refresh()
    return index


def stem_listing(root: Path, layers: Iterable[str]) -> Mapping[str, list[str]]:
    """{casefolded stem: [repo-relative paths, sorted]} for every wiki page on disk (a directory listing
    only). Read-only: the mapping and its lists are kept for the next call."""
    return _stem_index(root, layers).by_key


def folder_listing(root: Path, rel_dir: str) -> list[str]:
    """The sorted relpaths of the pages in one wiki folder (kept: the same list until the folder's
    entries change; do not modify it)."""
    folder = _folder(root, rel_dir)
    folder.refresh()
    return folder.paths()


def entity_listing(root: Path, layers: Iterable[str]) -> list[str]:
    """Every entity page's path, from the same listing as `stem_listing`."""
    return sorted(p for layer in layers for p in folder_listing(root, f"{layer_prefix(layer)}wiki/{TYPE_FOLDERS['entity']}"))


def aliases_from_text(text: str) -> list[str]:
    """The `aliases` list of an entity page, read with a line scan of its (canonical) front matter."""
    return list(_aliases_from_text(text))


@lru_cache(maxsize=4096)
def _aliases_from_text(text: str) -> tuple[str, ...]:
    # Memoised: each snapshot a rename or merge makes lists the aliases of every entity page again, and
    # most of those pages are as they were.
    return tuple(_read_aliases(text))


def _read_aliases(text: str) -> list[str]:
    if not text.startswith("---\n"):
        return []
    end = text.find("\n---\n", 3)
    head = text[4 : end + 1] if end >= 0 else ""
    idx = head.find("\naliases:")
    if idx < 0 and not head.startswith("aliases:"):
        return []
    rest = head[idx + 1 :] if idx >= 0 else head
    lines = rest.split("\n")
    first = lines[0][len("aliases:") :].strip()
    if first:
        try:
            value = yaml.safe_load(first)
        except yaml.YAMLError:
            return []
        return [str(v) for v in value] if isinstance(value, list) else []
    out = []
    for line in lines[1:]:
        if not line.startswith("- "):
            break
        item = line[2:]
        if item[:1] in ("'", '"') or item[:1] in "!&*{[|>%@`":
            try:
                item = str(yaml.safe_load(item))
            except yaml.YAMLError:
                continue
        out.append(item)
    return out


def alias_listing(root: Path, entity_paths: Iterable[str], read: Callable[[str], str | None] | None = None) -> dict[str, list[str]]:
    """{casefolded alias: [entity page paths]} from the given entity pages."""
    out: dict[str, list[str]] = {}
    for rel in entity_paths:
        if read is not None:
            text = read(rel)
        else:
            try:
                text = (root / rel).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = None
        if text is None:
            continue
        for alias in aliases_from_text(text):
            paths = out.setdefault(link_key(alias), [])
            if rel not in paths:
                paths.append(rel)
    return out


class LinkResolver:
    """Resolve link targets by stem, then sanitised stem, then alias (aliases loaded on first need)."""

    def __init__(
        self, stems: Mapping[str, list[str]], alias_loader: Callable[[], Mapping[str, list[str]]] | None = None
    ) -> None:
        self._stems = stems
        self._alias_loader = alias_loader
        self._aliases: Mapping[str, list[str]] | None = None

    def resolve(self, target: str, from_layer: str | None = None) -> list[str]:
        """Every page the target names. Written in a page of `from_layer`, a name several layers hold
        means that layer's own page first, then the public one: a restricted layer's `Maya Okafor`
        (what the board knows about her) shadows the public page for links written inside that layer."""
        if "/" in target:
            # A path link (`[[wiki/entities/Aurora]]`, or its tail `[[entities/Aurora]]`) names one page
            # exactly, as Obsidian resolves it: the way to link one of several pages sharing a stem.
            want = link_key(target.removesuffix(".md"))
            found = [
                p for p in self._stems.get(link_key(target.rsplit("/", 1)[1].removesuffix(".md")), [])
                if link_key(p[:-3]) == want or link_key(p[:-3]).endswith("/" + want)
            ]
            return prefer_layer(found, from_layer)
        key = link_key(target)
        found = self._stems.get(key) or self._stems.get(link_key(sanitise_stem(target)))
        if not found:
            if self._aliases is None:
                self._aliases = self._alias_loader() if self._alias_loader else {}
            found = self._aliases.get(key, [])
        return prefer_layer(list(found), from_layer)


def prefer_layer(paths: list[str], from_layer: str | None) -> list[str]:
    if from_layer is None or len(paths) < 2:
        return paths
    for layer in (from_layer, "public"):
        mine = [p for p in paths if _layer_of(p) == layer]
        if mine:
            return mine
    return paths


def _layer_of(relpath: str) -> str:
    parts = relpath.split("/")
    return parts[1] if parts[0] == "layers" and len(parts) > 2 else "public"
