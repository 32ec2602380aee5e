"""What the wiki holds, read straight from the working tree: contradictions across the wiki, and an
overview (pages per type, entities with aliases). Scoped like every read: a reader sees only the layers
they may read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.index.scope import readable_layers
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.repo.containment import contained_file, read_contained
from stigmergy.repo.layout import TYPE_FOLDERS, layer_prefix
from stigmergy.settings import Settings


def _wiki_files(root: Path, layers: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(relpath, type, layer) of every wiki page in the readable layers, sorted."""
    out = []
    for layer in layers:
        for ptype, folder in TYPE_FOLDERS.items():
            base = root / f"{layer_prefix(layer)}wiki/{folder}"
            if not base.is_dir():
                continue
            for path in sorted(base.glob("*.md")):
                rel = path.relative_to(root).as_posix()
                # Only pages reached without a symlink (a linked folder would count another layer's pages).
                if contained_file(root, rel) is not None:
                    out.append((rel, ptype, layer))
    return out


def contradictions(
    root: Path, settings: Settings, reader: str | None, status: str | None = None,
) -> list[dict[str, Any]]:
    """Every contradiction block in the pages the reader may read, open and resolved (every layer's when
    `reader` is None: a caller that is not a person, such as a pipeline checking an id)."""
    found = []
    layers = settings.layer_names() if reader is None else readable_layers(settings, reader)
    for rel, _ptype, layer in _wiki_files(root, layers):
        text = read_contained(root, rel)
        if text is None or "stigmergy:contradiction" not in text:
            continue
        blocks, errors = scan_blocks(text, rel)
        for block in blocks:
            record = block.record
            if status and record.status != status:
                continue
            found.append({"page": rel, "layer": layer, "line": block.start_line, **record.to_dict()})
        for line, message in errors:
            found.append({"page": rel, "layer": layer, "line": line, "id": None, "status": "malformed", "error": message})
    return found


def overview(root: Path, settings: Settings, reader: str) -> dict[str, Any]:
    """Pages per type, entities with their type and aliases, and contradiction counts."""
    counts: dict[str, int] = {t: 0 for t in TYPE_FOLDERS}
    entities = []
    for rel, ptype, _layer in _wiki_files(root, readable_layers(settings, reader)):
        counts[ptype] += 1
        if ptype != "entity":
            continue
        try:
            meta, _body, _ = split_front_matter(read_contained(root, rel) or "")
        except ContractError:
            continue
        entities.append(
            {
                "title": meta.get("title"),
                "path": rel,
                "entity_type": meta.get("entity_type"),
                "aliases": list(meta.get("aliases") or []),
                "sources": len(meta.get("sources") or []),
            }
        )
    cons = contradictions(root, settings, reader)
    return {
        "pages": counts,
        "entities": entities,
        "contradictions": {
            "open": sum(1 for c in cons if c["status"] == "open"),
            "resolved": sum(1 for c in cons if c["status"] == "resolved"),
            "malformed": sum(1 for c in cons if c["status"] == "malformed"),
        },
    }
