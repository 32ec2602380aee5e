"""The lexical arm's column weights (`[search] title_weight`, `headings_weight`; issue 20, fifth pass): by default a
page whose title names the query's term outranks a page that only repeats the term in its body, where equal
weights ranked them the other way round."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher
from stigmergy.settings import Settings

READER = "someone@example.com"


def _corpus(tmp: Path) -> RepoBuilder:
    b = RepoBuilder(tmp)
    # The page about shelving says so in its title; the guide mentions shelving five times in passing, in a
    # section about something else.
    b.source("Shelving", "# Shelving\n\nPut unfinished work aside for an urgent fix and bring it back later; "
             "list, show and drop what was put aside.\n", locator="shelving.txt")
    b.source("Everyday guide", "# Everyday guide\n\n## Branches\n\nBefore a release, stop shelving: shelving "
             "hides work, shelving breaks builds, shelving delays review, shelving is late.\n", locator="guide.txt")
    for i in range(6):  # enough other pages that "shelving" is a rare term
        b.source(f"Other {i}", f"# Other {i}\n\nSomething else entirely, number {i}, about remotes.\n",
                 locator=f"other{i}.txt")
    b.commit()
    return b


def _lexical_titles(b: RepoBuilder, settings: Settings) -> list[str]:
    s = Searcher(b.root, settings, HashEmbedder())
    try:
        hits = s.search("shelving", READER, k=3, arms=("lexical",), check_freshness=False).hits
        return [h.title for h in hits]
    finally:
        s.close()


def test_a_title_naming_the_term_outranks_a_body_that_repeats_it(tmp_path: Path) -> None:
    b = _corpus(tmp_path / "w")
    settings = b.settings
    assert (settings.search.title_weight, settings.search.headings_weight) == (4.0, 2.0)
    build_index(b.root, settings, embedder=HashEmbedder())
    weighted = _lexical_titles(b, settings)
    equal = _lexical_titles(b, dataclasses.replace(
        settings, search=dataclasses.replace(settings.search, title_weight=1.0, headings_weight=1.0)))
    assert weighted[0] == "Shelving", weighted
    # Equal weights (the default before): the body's five mentions win over the title.
    assert equal[0] == "Everyday guide", equal
