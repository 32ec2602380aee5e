"""Every version of a page, without the erased captures: the per-blob transform of an erase.

The working tree is swept once with the reference sweep `delete` uses (`garden.sweep.sweep_references`):
lines citing an erased source go, contradiction blocks lose its claims, links to pages that go become
plain text, pages left with only their heading go. Erasure must do the same to every older version of
every page in history, one blob at a time, so `PageScrubber.scrub` runs that same sweep over a snapshot
holding just the one version plus the pages the erasure deletes (so their links still resolve before the
sweep and die with it). The version at HEAD takes the whole-wiki sweep's answer, so the working tree after
the rewrite is exactly what `sweep_references` computed. Pages keep their own `updated` stamp: the erasure
is recorded by its own commit, not by every page it touched.

A version that is not canonical (a hand edit the sweep will not touch) loses every line that names an
erased capture instead: it must not keep them, and the residue audit checks the rest.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

from stigmergy.errors import ContractError
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.garden.sweep import sweep_references
from stigmergy.pages.moc import map_link
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wiki import parse_wiki_page, render_wiki_page
from stigmergy.repo.layout import map_layer
from stigmergy.settings import Settings


def mentions(text: str, erased: Collection[str]) -> bool:
    """True when `text` names an erased capture id (the cheap test run on every blob of history)."""
    return any(cid in text for cid in erased)


def keep_updated(old: str, new: str | None, rel: str) -> str | None:
    """`new` with the `updated` stamp `old` had (the sweep stamps every page it rewrites)."""
    if new is None:
        return None
    try:
        before, after = parse_wiki_page(old, rel), parse_wiki_page(new, rel)
    except ContractError:
        return new
    return render_wiki_page(replace(after, updated=before.updated))


def sweep_working_tree(
    root: Path, settings: Settings, removed_sources: Collection[str], timestamp: str
) -> tuple[dict[str, str | None], Snapshot]:
    """{page: new text, None when it goes} for the wiki as it stands, and the snapshot it was read from."""
    from stigmergy.garden.delete import refresh_maps

    snapshot = Snapshot.load(root, settings)
    result = sweep_references(root, settings, sorted(removed_sources), timestamp=timestamp, snapshot=snapshot)
    changes = {
        rel: keep_updated(snapshot.texts[rel], text, rel)
        for rel, text in result.changes.items()
        if rel in snapshot.texts
    }
    # The map of content lists every page by title: re-rendered without the pages that go, or an erased
    # page's title would outlive it there (the residue audit finds it).
    refresh_maps(root, snapshot.with_changes(changes), changes, {layer_of(p) for p in changes})
    return changes, snapshot


def map_texts(root: Path, changes: Mapping[str, str | None]) -> dict[str, str]:
    """{map path: its text on disk} for the maps of content among `changes`."""
    out = {}
    for rel in changes:
        if map_layer(rel) is not None and (root / rel).is_file():
            out[rel] = (root / rel).read_text(encoding="utf-8")
    return out


def _strip_lines(text: str, erased: Collection[str]) -> str | None:
    lines = [ln for ln in text.split("\n") if not mentions(ln, erased)]
    body = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith(("#", "---"))]
    return "\n".join(lines) if body else None


class PageScrubber:
    """Scrubs one version of a page at a time; pure per (path, text), so each distinct blob is done once."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        erased: Collection[str],
        removed_sources: Collection[str],
        dead_pages: Mapping[str, str],
        head_results: Mapping[str, tuple[str, str | None]],
    ) -> None:
        self.root = root
        self.settings = settings
        self.erased = frozenset(erased)
        self.removed_sources = sorted(removed_sources)
        self.dead_pages = dict(dead_pages)  # path -> its text at HEAD (links to it must die)
        self.dead_stems = {stem_of(p) for p in dead_pages}
        self.head_results = dict(head_results)  # path -> (text at HEAD, its whole-wiki sweep result)

    def relevant_at(self, rel: str, text: str) -> bool:
        """Might this version of `rel` hold a trace? Maps of content also by a link to a page that goes."""
        if rel in self.head_results or self.relevant(text):
            return True
        return map_layer(rel) is not None and any(f"]({link})" in text for link in self._map_links(rel))

    def _map_links(self, map_rel: str) -> list[str]:
        layer = map_layer(map_rel)
        return [map_link(map_rel, p) for p in self.dead_pages if layer_of(p) == layer]

    def relevant(self, text: str) -> bool:
        return mentions(text, self.erased) or (
            "[[" in text and any(f"[[{s}" in text for s in self.dead_stems)
        )

    def scrub(self, rel: str, text: str) -> str | None:
        """The version without erased traces (the same text when it had none); None when the page goes."""
        if rel in self.dead_pages or (rel in self.head_results and self.head_results[rel][0] == text):
            return None if rel in self.dead_pages else self.head_results[rel][1]
        if map_layer(rel) is not None:
            # An older map: drop the lines linking to a page that goes (its title is on that line).
            links = [f"]({link})" for link in self._map_links(rel)]
            lines = [ln for ln in text.split("\n") if not any(link in ln for link in links)]
            return _strip_lines("\n".join(lines), self.erased) if mentions(text, self.erased) else "\n".join(lines)
        if not self.relevant(text):
            return text
        texts = {**self.dead_pages, rel: text}
        snapshot = Snapshot(self.root, self.settings, texts)
        try:
            page = parse_wiki_page(text, rel)
        except ContractError:
            return _strip_lines(text, self.erased)
        result = sweep_references(
            self.root, self.settings, [*self.removed_sources, *self.dead_pages],
            timestamp=page.updated, snapshot=snapshot,
        )
        if rel not in result.changes:
            return text
        out = result.changes[rel]
        if out is not None and mentions(out, self.erased):
            return _strip_lines(out, self.erased)
        return out
