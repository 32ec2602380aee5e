"""Search (issue 20): release notes weigh less when the query does not ask about a release, in both index
stores; the factor is shown with the hit."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder

import stigmergy.index.search as search_mod
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher

READER = "reader@example.com"


@pytest.fixture
def docs(tmp_path: Path, index_env: dict[str, str]) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w", env=index_env)
    b.source("Approximate comparisons", "Compare two floats within a tolerance with approx.\n",
             locator="docs/how-to/approx.md")
    b.source("Changelog", "Version 8.1: approx can compare two floats within a tolerance, and decimals too.\n"
             "Version 8.0: approx compares floats within a tolerance faster.\n", locator="docs/CHANGELOG.md")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _hits(b: RepoBuilder, query: str):  # type: ignore[no-untyped-def]
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        return s.search(query, READER, arms=("lexical",)).hits
    finally:
        s.close()


def test_the_page_that_documents_a_feature_outranks_the_changelog_that_names_it(
        docs: RepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_mod, "RELEASE_NOTES_FACTOR", 1.0)
    before = _hits(docs, "compare floats within a tolerance")
    assert before[0].title == "Changelog"  # the changelog says the words twice: without the factor it wins
    monkeypatch.undo()
    hits = _hits(docs, "compare floats within a tolerance")
    assert [h.title for h in hits] == ["Approximate comparisons", "Changelog"]
    assert hits[1].factors["kind"] == search_mod.RELEASE_NOTES_FACTOR < 1.0
    assert hits[0].factors["kind"] == 1.0


def test_a_query_about_a_release_keeps_the_release_notes_whole(docs: RepoBuilder) -> None:
    hits = _hits(docs, "which version added decimals to approx")
    assert hits[0].title == "Changelog"
    assert all(h.factors["kind"] == 1.0 for h in hits)
