"""What the gates see of a page: its lines, citations per line, contradiction blocks and which lines are
in them, parsed once per (path, text) and shared by every rule (rules.py, maintenance.py, lint)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from stigmergy.gates.context import GateContext
from stigmergy.pages.citations import Citation, citations_by_line
from stigmergy.pages.contradictions import Block, block_line_numbers, scan_blocks


@dataclass(frozen=True)
class PageView:
    """A page's lines with what the gates need: citations per line, blocks, and which lines are in blocks."""

    lines: list[str]
    body_first_line: int
    cites: dict[int, tuple[Citation, ...]]
    cite_errors: list[tuple[int, str]]
    blocks: list[Block]
    block_errors: list[tuple[int, str]]
    block_lines: frozenset[int]

    def cited_lines(self) -> list[tuple[int, str]]:
        """(line number, text) of lines carrying a citation, outside contradiction blocks."""
        return [(n, self.lines[n - 1]) for n in sorted(self.cites) if n not in self.block_lines]

    def sources(self) -> set[str]:
        """The capture ids the page's lines cite (a fresh set: callers add to it)."""
        return set(self.source_ids)

    @cached_property
    def source_ids(self) -> frozenset[str]:
        # A view is kept across plans (`_view_memo`): the page a plan writes is the next plan's page on
        # disk, and attribution-lost reads both sides' sources, so each view walks its citations once.
        return frozenset(c.capture_id for cs in self.cites.values() for c in cs)


def body_first_line(text: str) -> int:
    """1-based line of the first body line, found from the '---' delimiters alone (no YAML parse)."""
    if not text.startswith("---\n"):
        return 1
    end = text.find("\n---\n", 3)
    return 1 if end < 0 else text.count("\n", 0, end + 5) + 1


def view(relpath: str, text: str) -> PageView:
    first = body_first_line(text)
    lines = text.split("\n")
    body = "\n".join(lines[first - 1 :])
    cite_errors: list[tuple[int, str]] = []
    cites = citations_by_line(body, relpath, first_line=first, errors=cite_errors)
    blocks, block_errors = scan_blocks(body, relpath, first_line=first)
    return PageView(
        lines, first, cites, cite_errors, blocks, block_errors, frozenset(block_line_numbers(blocks))
    )


def _v(ctx: GateContext, relpath: str, text: str) -> PageView:
    """`view`, memoised on the context: every gate looks at the same few pages."""
    key = (relpath, text)
    cached = ctx.views.get(key)
    if cached is None:
        cached = ctx.views[key] = _shared_view(relpath, text)
    return cached  # type: ignore[no-any-return,return-value]


def _shared_view(relpath: str, text: str) -> PageView:
    # Across plans in one process (a capture of a folder files one document after another), the new text
    # of a page is the next plan's page on disk, so clean views are kept. Views with refusals or links
    # leaving the repository (whose canonical form depends on the working directory) are made afresh.
    page_view = _view_memo(relpath, text)
    if page_view is None:
        return view(relpath, text)
    return page_view


@lru_cache(maxsize=64)
def _view_memo(relpath: str, text: str) -> PageView | None:
    page_view = view(relpath, text)
    if page_view.cite_errors or page_view.block_errors or _climbs(relpath):
        return None
    paths = [c.path for cs in page_view.cites.values() for c in cs]
    for block in page_view.blocks:
        paths.extend(c.path for c in block.record.claims)
        if block.record.resolution is not None:
            paths.append(block.record.resolution.path)
    return None if any(_climbs(p) for p in paths) else page_view


def _climbs(path: str) -> bool:
    return path.startswith("/") or ".." in path
