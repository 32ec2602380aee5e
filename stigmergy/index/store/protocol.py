"""The `IndexStore` protocol and the frozen values that cross it (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from stigmergy.errors import StigmergyError

if TYPE_CHECKING:
    import numpy as np

    from stigmergy.index.pagedoc import PageDoc


class IndexUnreadableError(StigmergyError):
    """The index file is damaged. It is derived state: `stigmergy index --rebuild` makes a new one."""

    def __init__(self, path: Path | str, cause: object) -> None:
        super().__init__(
            f"the index at {path} is unreadable ({cause})",
            hint="run `stigmergy index --rebuild` (the index is derived from the repository; nothing is lost)",
        )


@dataclass(frozen=True)
class Filters:
    type: str | None = None
    entity: str | None = None
    status: str | None = None
    layer: str | None = None
    since: str | None = None  # ISO date: pages updated (wiki) or occurred (source) on or after

    @property
    def narrows(self) -> bool:
        """A filter beyond the reader's layers (type, entity, status, since)."""
        return bool(self.type or self.entity or self.status or self.since)


@dataclass(frozen=True)
class Selection:
    """The pages a reader may see under `filters`, compiled by the store that made it (and valid only for
    that store): `condition` is the backend's own form of it, opaque to everyone else."""

    layers: tuple[str, ...]
    filters: Filters
    condition: Any = field(compare=False, repr=False)

    @property
    def filtered(self) -> bool:
        return self.filters.narrows


# ---------------------------------------------------------------- values that cross the seam


@dataclass(frozen=True)
class IndexedPage:
    """A page row the builder knows: its row id, layer and the git blob id of the content indexed."""

    id: int
    path: str
    layer: str
    blob_sha: str


@dataclass(frozen=True)
class NewFragment:
    """A fragment row just written, whose vector the builder attaches from the cache."""

    id: int
    layer: str
    hash: str


@dataclass(frozen=True)
class PageInfo:
    id: int
    path: str
    title: str
    type: str
    layer: str
    status: str | None
    occurred_at: str | None
    n_claims: int
    n_cited: int
    # What a page's confidence needs (stigmergy/trust): its front matter id and `decay:`, the distinct
    # sources it cites (confirmations) and its open contradictions (challenges).
    page_id: str | None = None
    decay: str | None = None
    sources: int = 0
    open_contradictions: int = 0
    locator: str | None = None  # the file a source page was captured from (search.page_kinds reads its name)


@dataclass(frozen=True)
class CitationRow:
    """One citation on an indexed page: the citing line, the cited capture, its date and first cited line."""

    src: int
    line: int
    capture_id: str
    occurred_at: str | None
    start_line: int


@dataclass(frozen=True)
class FragmentRow:
    id: int
    seq: int
    start_line: int
    end_line: int


@dataclass(frozen=True)
class PageRef:
    path: str
    title: str


@dataclass(frozen=True)
class Backlink:
    path: str
    title: str
    line: int


@dataclass(frozen=True)
class ListedPage:
    path: str
    title: str
    type: str
    layer: str
    status: str | None
    date: str | None
    fragments: int
    id: int = 0  # the index's page id (for page_infos: the trust a listing shows)


@dataclass(frozen=True)
class EntityPage:
    id: int
    path: str
    title: str
    meta_json: str


@dataclass(frozen=True)
class AboutPage:
    id: int
    path: str
    title: str
    type: str
    status: str | None


@dataclass(frozen=True)
class Fact:
    """A citation of an entity's page (or a page about it) with its source's date and title."""

    src: int
    line: int
    source_path: str
    start_line: int
    end_line: int
    occurred_at: str | None
    source_title: str


@dataclass(frozen=True)
class ContradictionRow:
    page: int
    data_json: str


@dataclass(frozen=True)
class NameRow:
    """A title or alias of an entity page (or a project page's title), and what kind of thing it names."""

    name: str
    page: int
    title: str
    kind: str  # the entity page's entity_type ("person", "organisation", …), "project", or ""


@dataclass(frozen=True)
class SourceRow:
    path: str
    title: str
    occurred_at: str  # occurred_at, else captured_at ("" when neither)


@dataclass(frozen=True)
class LayerVectors:
    layer: str
    vectors: int
    fragments: int


@dataclass(frozen=True)
class Integrity:
    """What `index --check` compares: row counts that must agree, and vectors the cache lacks."""

    fragments: int
    fulltext_rows: int
    fragments_without_vector: int
    layers: tuple[LayerVectors, ...]


class IndexStore(Protocol):
    """Every question the index stage asks its database. Row ids (`int`) are the backend's own page and
    fragment ids, valid for as long as the store is open."""

    # What this backend raises when its database fails (a caller that must never fail catches these).
    errors: tuple[type[BaseException], ...]
    # A shared index (many clones read and write it: PostgreSQL) rather than this clone's own file.
    shared: bool

    # -- lifecycle, meta, transactions
    def close(self) -> None: ...
    def keep_warm(self) -> None:
        """This store serves many searches (a long-lived service): it may read and hold what pays off only
        over many of them (SQLite: posting lists, sizes and a page map, `sqlite_postings`)."""
        ...
    def meta(self, key: str) -> str | None: ...
    def all_meta(self) -> dict[str, str]: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def version(self) -> int:
        """A number that changes whenever another connection commits (a warm reader's cache key)."""
        ...
    def transaction(self) -> AbstractContextManager[None]:
        """One atomic write: readers see everything before it or everything after it."""
        ...
    def writer_lock(self, timeout: float) -> AbstractContextManager[None]:
        """Hold the index's writer lock for a build, across processes and machines (a shared index: builds
        from every clone and the push hook queue on it; SQLite: nothing more than the caller's file lock)."""
        ...
    def writer_busy(self) -> bool:
        """Does another writer hold `writer_lock` now (SQLite: False; its file lock says)?"""
        ...

    # -- the builder's writes (inside `transaction()` unless said otherwise)
    def indexed_pages(self) -> dict[str, IndexedPage]: ...
    def page_shas(self) -> dict[str, str]: ...
    def clear(self) -> None:
        """Every page, fragment, full-text and per-layer vector row (the vector cache stays)."""
        ...
    def remove_pages(self, pages: Sequence[IndexedPage]) -> None: ...
    def insert_pages(self, items: Sequence[tuple[PageDoc, str]]) -> list[NewFragment]:
        """Write pages (doc, blob sha); the new fragments in the order given (a backend may batch them)."""
        ...
    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> set[str]: ...
    def put_vectors(self, fingerprint: str, rows: Iterable[tuple[str, np.ndarray]]) -> None:
        """Add vectors to the content-addressed cache in a transaction of their own (a batch a killed
        build keeps)."""
        ...
    def attach_vectors(self, fragments: Sequence[NewFragment], fingerprint: str, dimension: int | None) -> None:
        """The vectors of new fragments into their layers' vector tables, and their pages' descriptor
        vectors (`page_vectors`), from the cache."""
        ...
    def prune_vectors(self, keep_fingerprint: str | None = None) -> None:
        """Drop cached vectors no fragment uses (and, given `keep_fingerprint`, those of other fingerprints)."""
        ...
    def drop_layer_vectors(self, layer: str) -> None: ...
    def analyze(self, full: bool) -> None: ...
    def optimize_fulltext(self) -> None: ...
    def compact(self) -> None:
        """Rewrite the file so that deleted rows are gone from it (erase), outside any transaction."""
        ...
    def totals(self) -> tuple[int, int]:
        """(pages, fragments)."""
        ...
    def integrity(self, fingerprint: str) -> Integrity: ...

    # -- scope
    def select(self, layers: tuple[str, ...], filters: Filters) -> Selection: ...

    # -- the search arms
    def lexical(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                depth: int) -> list[tuple[int, int, float]]:
        """(fragment, page, score) of the best full-text matches of any of `terms`, best first; the score is
        bm25 negated (higher is better). A term with spaces is a phrase; a term given twice counts twice."""
        ...
    def lexical_both(self, terms: Sequence[str], sel: Selection, weights: tuple[float, float, float],
                     pick: tuple[float, float, float], depth: int) -> list[tuple[int, int, float, float]]:
        """`lexical`'s rows (ranked and cut by `weights`), each with its score under the column weights `pick`
        too: search ranks pages by the first and chooses each page's fragment by the second."""
        ...
    def nearest(self, query: np.ndarray, sel: Selection, want: int, prefilter: int,
                fingerprint: str) -> list[tuple[int, int, float]]:
        """(fragment, page, cosine similarity) nearest `query`, nearest first, at most `want`; layers past
        the exact-scan size are prefiltered on `prefilter` 1-bit candidates and reranked in float."""
        ...
    def fragment_vectors(self, fragments: Sequence[int], fingerprint: str) -> dict[int, np.ndarray]:
        """The stored vectors of `fragments` (ids the caller already has under a reader's scope)."""
        ...
    def page_vectors(self, pages: Sequence[int], min_fragments: int = 1) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:
        """Page -> (the mean of its fragment vectors, its first fragment's vector, its number of fragments),
        for those of `pages` (ids the caller already has under a reader's scope) with at least `min_fragments`
        fragments."""
        ...
    def entity_names_in(self, names: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, int]]:
        """(name, entity page) for each of `names` that is an entity's title or alias in `layers`."""
        ...
    def names_of(self, pages: Sequence[int]) -> list[tuple[str, int]]:
        """(name, page): every title and alias the entity pages go by."""
        ...
    def entity_keys(self, name: str, layers: tuple[str, ...]) -> tuple[list[int], list[str]]: ...
    def allowed(self, pages: Sequence[int], sel: Selection) -> set[int]: ...
    def pages_about(self, entities: Sequence[str], sel: Selection, depth: int) -> list[tuple[int, int]]:
        """(page, how many of `entities` it is about), most first, then by status and recency."""
        ...
    def source_mentions(self, names: Sequence[str], sel: Selection, depth: int) -> list[int]: ...
    def links_from(self, pages: Sequence[int]) -> list[tuple[int, str]]: ...
    def pages_with_stems(self, stems: Sequence[str], sel: Selection) -> list[tuple[int, str]]: ...
    def entities_named(self, names: Sequence[str], sel: Selection) -> list[tuple[int, str]]: ...
    def stems_and_titles(self, pages: Sequence[int]) -> list[tuple[int, str, str]]: ...
    def linking(self, targets: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        """(page, target) of pages in `sel` whose wikilinks name one of `targets`."""
        ...
    def out_degrees(self, pages: Sequence[int]) -> list[tuple[int, int]]: ...
    def in_degrees(self, targets: Sequence[str]) -> list[tuple[str, int]]: ...

    # -- hits
    def citations_of(self, pages: Sequence[int]) -> list[CitationRow]: ...
    def fragment_rows(self, fragments: Sequence[int]) -> dict[int, FragmentRow]: ...
    def fragment_at(self, page: int, line: int) -> int | None:
        """The page's last fragment starting at or before `line`."""
        ...
    def first_fragment(self, page: int) -> int | None: ...
    def fragment_text(self, fragment: int) -> str: ...
    def fragment_texts(self, fragments: Sequence[int]) -> dict[int, str]:
        """The text of each of `fragments` (ids the caller already has under a reader's scope)."""
        ...
    def page_infos(self, pages: Sequence[int]) -> dict[int, PageInfo]: ...
    def hubs(self, pages: Sequence[int]) -> set[int]:
        """Those of `pages` that are entity, concept or project pages."""
        ...
    def sources_of_captures(self, captures: Sequence[str], sel: Selection) -> dict[str, int]: ...

    # -- reads
    def resolve_link(self, keys: Sequence[str], layers: tuple[str, ...], from_layer: str) -> PageRef | None: ...
    def backlinks(self, names: Sequence[str], layers: tuple[str, ...], exclude: str, limit: int) -> list[Backlink]: ...
    def count_pages(self, sel: Selection) -> int: ...
    def list_pages(self, sel: Selection, limit: int) -> list[ListedPage]: ...
    def entity(self, key: str, layers: tuple[str, ...]) -> EntityPage | None: ...
    def about_entity(self, keys: Sequence[str], layers: tuple[str, ...], exclude: int) -> list[AboutPage]: ...
    def facts(self, pages: Sequence[int], layers: tuple[str, ...]) -> list[Fact]: ...
    def contradictions_on(self, pages: Sequence[int]) -> list[ContradictionRow]: ...

    # -- ask
    def name_rows(self, layers: tuple[str, ...]) -> list[NameRow]:
        """Every title and alias of the entity pages in `layers`, and the titles of their project pages."""
        ...
    def sources_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[SourceRow]:
        """The source pages among `paths` in `layers`."""
        ...
    def contradictions_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, str]]:
        """(page path, record JSON) of every contradiction block, open or resolved, on the pages `paths`."""
        ...
    def line_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Cached float32 vectors of ask's candidate lines, by text hash."""
        ...
    def put_line_vectors(self, fingerprint: str, rows: Sequence[tuple[str, bytes]], wait: float) -> bool:
        """Cache line vectors, waiting at most `wait` seconds for the write lock (False: not cached)."""
        ...

    # -- term statistics (ask weighs question terms; filing picks a text's rarest terms)
    def fragment_count(self, layers: tuple[str, ...] | None = None) -> int:
        """Fragments in `layers` (None: an estimate over all, cheap on any size; 0 when there are none)."""
        ...
    def term_frequency(self, term: str, probe: int, layers: tuple[str, ...] | None = None) -> int:
        """Fragments (in `layers`; None: all) that hold `term`, counting stops at `probe`."""
        ...
    def page_matches(self, terms: Sequence[str], layer: str, weights: tuple[float, float, float],
                     depth: int) -> list[str]:
        """Paths of wiki pages of `layer` with fragments matching any of `terms`, best first (repeats kept)."""
        ...
