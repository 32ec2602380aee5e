"""Where things live in a knowledge repository (DESIGN §2). Every other module asks here."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import NotARepositoryError
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
    def memo_dir(self) -> Path:
        """What processes derived from pages, kept for the next (repo/page_memo.py): titles, capture ids."""
        return self.state_dir / "memo"

    @property
    def erase_journal(self) -> Path:
        """An erase's plan while it runs (write/erase.py); present after one a crash interrupted. Here so that
        a capture's recovery check is a stat that imports nothing of the eraser."""
        return self.state_dir / "erase.json"

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


def source_relpath(layer: str, captured_at: str, capture_id: str) -> str:
    """sources/YYYY/MM/<capture-id>.md, YYYY/MM from the capture time (UTC ISO string)."""
    return f"{layer_prefix(layer)}sources/{captured_at[0:4]}/{captured_at[5:7]}/{capture_id}.md"


def wiki_dir_relpath(layer: str, page_type: str) -> str:
    return f"{layer_prefix(layer)}wiki/{TYPE_FOLDERS[page_type]}"


def classify(relpath: str) -> tuple[str, str] | None:
    """('source' | page type, layer) for a repository-relative path of a page, else None."""
    parts = relpath.split("/")
    layer = PUBLIC_LAYER
    if parts[0] == "layers" and len(parts) > 2:
        layer, parts = parts[1], parts[2:]
    if not parts[-1].endswith(".md"):
        return None
    if parts[0] == "sources" and len(parts) == 4:
        return "source", layer
    if parts[0] == "wiki" and len(parts) == 3 and parts[1] in FOLDER_TYPES:
        return FOLDER_TYPES[parts[1]], layer
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
