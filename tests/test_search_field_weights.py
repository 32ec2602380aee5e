"""The lexical arm's column weights (`[search] title_weight`, `headings_weight`; issue 20, fifth and sixth passes): at
title 4 : headings 2 : body 1 a page whose title names the query's term outranks a page that only repeats the term
in its body, where equal weights (the default) rank them the other way round; and each page's fragment (the one
shown, read and handed to `ask`) is still the one equal weights choose (`arms.PICK_WEIGHTS`), so a concept page
answers with its definition."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index import arms
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


def _weighted(settings: Settings, title: float, headings: float) -> Settings:
    return dataclasses.replace(settings, search=dataclasses.replace(settings.search, title_weight=title,
                                                                    headings_weight=headings))


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
    assert (settings.search.title_weight, settings.search.headings_weight) == (1.0, 1.0)  # the default
    build_index(b.root, settings, embedder=HashEmbedder())
    weighted = _lexical_titles(b, _weighted(settings, 4.0, 2.0))
    equal = _lexical_titles(b, settings)
    assert weighted[0] == "Shelving", weighted
    # Equal weights: the body's five mentions win over the title.
    assert equal[0] == "Everyday guide", equal


DEFINITION = """The excursion budget is the total time a product may spend out of its range over the whole
journey, set by the manufacturer: for example 72 hours between 8 and 25 degrees. Every excursion is counted against the
excursion budget of its lane, and a shipment that has spent its excursion budget is held in quarantine until quality
has looked at the data, the custody events and the temperature curve of each leg of the trip. The manufacturer
states the figure on the product's label and in its stability data, and the forwarder copies it into the lane's
plan before the first shipment leaves the warehouse.
"""
# The concept page's timeline: sections shorter than the definition that name the term once or not at all. The
# page's title is in every one of its fragments, and bm25 saturates: at a title weight of 4 the title's hits
# outweigh what the body adds, and the shortest fragment scores best.
TIMELINE = """
## 2026-07-15 Status update

- Shown per lane since mid July, not per shipment, after the customer's feedback; the
  dashboard lists each lane's budget with its owner and the date of its last review.

## 2026-08-02 Carrier review

- The carriers' loggers were checked in August: two of them drifted by half a degree and were replaced before
  the autumn season; the review is repeated every quarter from now on, with the results kept in the quality folder.

## 2026-09-22 Release notes

- Reports are produced within minutes of a reading out of range, as PDF and as JSON, with the custody events
  around the reading and the name of the person on call at the time; older reports stay available for a year.

## 2026-10-05 Audit

- The autumn audit found the loggers, the quarantine log and the reports in order, and asked for the lane owners'
  names to be printed on every report from November on.
"""


def _shown_fragment(b: RepoBuilder, settings: Settings) -> tuple[int, str]:
    s = Searcher(b.root, settings, HashEmbedder())
    try:
        hits = s.search("What is an excursion budget?", READER, k=3, arms=("lexical",), check_freshness=False).hits
        assert hits[0].title == "Excursion budget", hits
        return hits[0].fragment, hits[0].snippet
    finally:
        s.close()


def test_a_concept_page_answers_with_its_definition_under_the_title_weight(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    b = RepoBuilder(tmp_path / "w")
    b.wiki("concept", "Excursion budget", DEFINITION + TIMELINE)
    for i in range(8):
        b.wiki("note", f"Other {i}", f"Something else entirely, number {i}, about lanes and carriers and quality, "
               "with a few more words so that an ordinary page is about as long as a section of the concept page is.\n")
    b.commit()
    settings = b.settings
    build_index(b.root, settings, embedder=HashEmbedder())
    weighted = _weighted(settings, 4.0, 2.0)
    fragment, snippet = _shown_fragment(b, weighted)
    assert fragment == 1 and "total time" in snippet, (fragment, snippet)
    # Equal weights everywhere choose the same fragment.
    assert _shown_fragment(b, settings)[0] == 1
    # Chosen by the ranking weights (as before the sixth pass), a timeline section stands for the page.
    monkeypatch.setattr(arms, "PICK_WEIGHTS", None)
    assert _shown_fragment(b, weighted)[0] == 2
