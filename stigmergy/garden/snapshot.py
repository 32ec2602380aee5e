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
from stigmergy.pages.wiki import WikiPage, parse_wiki_page
from stigmergy.pages.wikilinks import LinkResolver, link_key
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


@dataclass
class Snapshot:
    """Pages as a mapping path -> text; `parsed` and the resolver are derived on demand."""

    root: Path
    settings: Settings
    texts: dict[str, str] = field(default_factory=dict)

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
        return Snapshot(self.root, self.settings, texts)

    @cached_property
    def parsed(self) -> dict[str, WikiPage | ContractError]:
        out: dict[str, WikiPage | ContractError] = {}
        for rel, text in self.texts.items():
            try:
                out[rel] = parse_wiki_page(text, rel)
            except ContractError as exc:
                out[rel] = exc
        return out

    def page(self, rel: str) -> WikiPage | None:
        value = self.parsed.get(rel)
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
        out: dict[str, list[str]] = {}
        for rel, page in self.pages().items():
            for alias in page.aliases:
                paths = out.setdefault(link_key(alias), [])
                if rel not in paths:
                    paths.append(rel)
        return out

    @cached_property
    def resolver(self) -> LinkResolver:
        return LinkResolver(self.stems, lambda: self.aliases)

    @cached_property
    def by_id(self) -> dict[str, str]:
        return {p.id: rel for rel, p in self.pages().items()}
