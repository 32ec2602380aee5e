"""Where things live in a knowledge repository (DESIGN §2). Every other module asks here."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import NotARepositoryError
from stigmergy.repo.ids import ALPHABET as ULID_ALPHABET
from stigmergy.settings import CONFIG_FILE, PUBLIC_LAYER

PAGE_TYPES = ("note", "concept", "entity", "project")
TYPE_FOLDERS = {"note": "notes", "concept": "concepts", "entity": "entities", "project": "projects"}
FOLDER_TYPES = {v: k for k, v in TYPE_FOLDERS.items()}
STATE_DIR = ".stigmergy"


@dataclass(frozen=True)
class Layout:
    root: Path

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def objects_dir(self) -> Path:
        return self.state_dir / "objects"

    @property
    def state_db(self) -> Path:
        return self.state_dir / "state.sqlite"

    @property
    def index_db(self) -> Path:
        return self.state_dir / "index.sqlite"

    @property
    def lock_file(self) -> Path:
        return self.state_dir / "write.lock"

    @property
    def cache_dir(self) -> Path:
        return self.state_dir / "cache"

    @property
    def config_file(self) -> Path:
        return self.root / CONFIG_FILE


def layer_prefix(layer: str) -> str:
    """Repository-relative prefix of a layer ('' for public, 'layers/<l>/' otherwise)."""
    return "" if layer == PUBLIC_LAYER else f"layers/{layer}/"


def layer_checkout(root: Path, layer: str) -> Path:
    """Where a layer that lives in a repository of its own (`[layers.<l>] repository`) is checked out: the
    folder `layers/<l>/` of this working tree, a Git repository of its own that this one ignores. A path
    `layers/<l>/rest` of this tree is `rest` in that repository."""
    return Path(root) / "layers" / layer


def own_repository_layer(relpath: str, layers: Collection[str]) -> str | None:
    """The layer among `layers` (those with a repository of their own) whose checkout holds `relpath`."""
    parts = relpath.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "layers" and parts[1] in layers else None


# Shards (docs/pages.md, "Where pages live"). Git writes a new tree object for every folder a commit
# changes, whole: a flat `wiki/notes/` of 2,000 notes is a 174 KB tree and a burst month's `sources/YYYY/MM/`
# 123 KB, written, hashed, packed and walked again on every capture. Sharded, a commit writes the small
# leaf it touched and a folder of at most 256 (notes) or 32 (sources) entries. Each key is computed from the
# file name alone, so a path is still derived, never looked up. Files placed before sharding (flat) stay
# valid where they are: sources never move, and a note keeps its path until it is renamed.
SHARDED_TYPES = frozenset({"note"})
_SHARD_HEX = frozenset("0123456789abcdef")
_ID_SHARDS = frozenset(ULID_ALPHABET)  # a ULID's characters
ID_SHARD_FALLBACK = "_"
_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


# An archive page's title is its page's title with the year (and part) after it: "Harbor API (2026)",
# "Harbor API (2026, 2)" (plan/deterministic/layout.py). The suffix is left out of the shard key, so that
# a note and its archives share one folder: sections and blocks move between them verbatim, their
# citations relative to the same folder, and the gates find a page's archives beside it.
_ARCHIVE_SUFFIX = re.compile(r" \(\d{4}(?:, [2-9]|, [1-9]\d+)?\)$")


def note_shard(stem: str) -> str:
    """Two hex digits of SHA-1 of the casefolded file stem, less an archive's year suffix: stems that
    differ only in case (one file on a case-insensitive disk) share a folder, so their clash is still seen
    where it happens, and a note's archive pages live beside it."""
    return hashlib.sha1(_ARCHIVE_SUFFIX.sub("", stem).casefold().encode("utf-8")).hexdigest()[:2]


def source_shard(capture_id: str) -> str:
    """The capture id's last character, a ULID's random one (32 folders); '_' for any other id."""
    last = capture_id[-1:].upper()
    return last if last in _ID_SHARDS else ID_SHARD_FALLBACK


def is_note_shard(name: str) -> bool:
    return len(name) == 2 and name[0] in _SHARD_HEX and name[1] in _SHARD_HEX


def _is_source_shard(name: str) -> bool:
    return name in _ID_SHARDS or name == ID_SHARD_FALLBACK


def source_relpath(layer: str, captured_at: str, capture_id: str) -> str:
    """sources/YYYY/MM/<shard>/<capture-id>.md, YYYY/MM from the capture time (UTC ISO string)."""
    return (f"{layer_prefix(layer)}sources/{captured_at[0:4]}/{captured_at[5:7]}/{source_shard(capture_id)}/"
            f"{capture_id}.md")


def source_globs(name: str) -> tuple[str, str]:
    """Glob patterns under a layer's `sources/` for a capture id (or a pattern of one): sharded and flat."""
    return f"*/*/*/{name}.md", f"*/*/{name}.md"


def find_source_relpath(root: Path, layers: Collection[str], capture_id: str) -> str | None:
    """The source page of a capture id in any of `layers`, at either depth; None when there is none (or the
    id could name a path)."""
    if not _PLAIN_ID.fullmatch(capture_id):  # no glob character, no path
        return None
    for layer in layers:
        base = root / f"{layer_prefix(layer)}sources"
        for pattern in source_globs(capture_id) if base.is_dir() else ():
            for hit in base.glob(pattern):
                if hit.is_file() and not hit.is_symlink():
                    return hit.relative_to(root).as_posix()
    return None


def wiki_dir_relpath(layer: str, page_type: str) -> str:
    return f"{layer_prefix(layer)}wiki/{TYPE_FOLDERS[page_type]}"


def page_file_relpath(layer: str, page_type: str, stem: str) -> str:
    """Where a page with this file stem lives: `wiki/<folder>/<Stem>.md`, notes one shard deeper."""
    folder = wiki_dir_relpath(layer, page_type)
    if page_type in SHARDED_TYPES:
        return f"{folder}/{note_shard(stem)}/{stem}.md"
    return f"{folder}/{stem}.md"


def flat_relpath(relpath: str) -> str:
    """A sharded page's path as it was before sharding (`wiki/notes/<Stem>.md`); other paths unchanged."""
    parts = relpath.split("/")
    if len(parts) >= 4 and parts[-3] == "notes" and parts[-4] == "wiki" and is_note_shard(parts[-2]):
        return "/".join([*parts[:-2], parts[-1]])
    return relpath


def page_files(root: Path, rel_dir: str) -> list[str]:
    """The page files of one wiki folder (`wiki/<folder>`, per layer), repository-relative, unsorted: its
    `*.md` files and, for a sharded folder, those of its shards. Symbolic links (files or shards) are
    skipped; `lint` reports them."""
    out: list[str] = []
    sharded = rel_dir.rsplit("/", 1)[-1] in {TYPE_FOLDERS[t] for t in SHARDED_TYPES}
    try:
        entries = list(os.scandir(root / rel_dir))
    except (FileNotFoundError, NotADirectoryError):
        return out
    for entry in entries:
        if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
            out.append(f"{rel_dir}/{entry.name}")
        elif sharded and is_note_shard(entry.name) and entry.is_dir(follow_symlinks=False):
            with os.scandir(entry.path) as inner:
                out += [f"{rel_dir}/{entry.name}/{e.name}" for e in inner
                        if e.name.endswith(".md") and e.is_file(follow_symlinks=False)]
    return out


def before_shards(relpath: str) -> bool:
    """A page of a sharded type at the flat path it was filed at before sharding (`wiki/notes/<Stem>.md`)."""
    kind = classify(relpath)
    return kind is not None and kind[0] in SHARDED_TYPES and flat_relpath(relpath) == relpath


def classify(relpath: str) -> tuple[str, str] | None:
    """('source' | page type, layer) for a repository-relative path of a page, else None. Both the sharded
    paths and the flat ones written before sharding are pages."""
    parts = relpath.split("/")
    layer = PUBLIC_LAYER
    if parts[0] == "layers" and len(parts) > 2:
        layer, parts = parts[1], parts[2:]
    if not parts[-1].endswith(".md"):
        return None
    if parts[0] == "sources" and (len(parts) == 4 or (len(parts) == 5 and _is_source_shard(parts[3]))):
        return "source", layer
    if parts[0] == "wiki" and parts[1:2] and parts[1] in FOLDER_TYPES:
        ptype = FOLDER_TYPES[parts[1]]
        if len(parts) == 3 or (len(parts) == 4 and ptype in SHARDED_TYPES and is_note_shard(parts[2])):
            return ptype, layer
    return None


MAP_NAME = "index.md"  # the generated map of content of a layer's wiki (stigmergy/garden/moc.py)


def map_relpath(layer: str) -> str:
    return f"{layer_prefix(layer)}wiki/{MAP_NAME}"


def map_layer(relpath: str) -> str | None:
    """The layer whose map of content lives at `relpath`, or None when it is not a map's path."""
    parts = relpath.split("/")
    layer = PUBLIC_LAYER
    if parts[0] == "layers" and len(parts) == 4:
        layer, parts = parts[1], parts[2:]
    return layer if parts == ["wiki", MAP_NAME] else None


def find_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds stigmergy.toml."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    raise NotARepositoryError(
        f"no {CONFIG_FILE} found at or above {start}",
        hint="run `stigmergy init` first, or pass --repo PATH",
    )
