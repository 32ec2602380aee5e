"""Release notes weigh less in a search that does not ask about a release (issue 20; index/page_kinds.py)."""

from __future__ import annotations

import pytest

from stigmergy.index.page_kinds import asks_about_a_release, release_notes


@pytest.mark.parametrize(("title", "locator"), [
    ("Changelog", "en/changelog.rst"),
    ("3.3", "doc/changes/3.3.rst"),
    ("py.test 2.0.0: asserts++, unittest++", "en/announce/release-2.0.0.rst"),
    ("NEWS", "NEWS"),
    ("History", "HISTORY.rst"),
    ("News", "html/news.rst"),
    ("Changes", None),
    ("What's new in Python 3.12", "whatsnew/3.12.rst"),
    ("Release notes — Q3", "notes/q3.md"),
    ("Harbor API", "docs/CHANGELOG.md"),
    ("Version 2", "docs\\release_notes\\v2.md"),
    ("py.test 2.1.0", "announce/release_2.1.0.rst"),
    ("All releases", "docs/releases.md"),
])
def test_release_notes_are_told_by_their_file_or_title(title: str, locator: str) -> None:
    assert release_notes(title, locator)


@pytest.mark.parametrize(("title", "locator"), [
    ("How to use fixtures", "en/how-to/fixtures.rst"),
    ("Historical notes", "en/historical-notes.rst"),
    ("Changing the cache directory", "en/how-to/cache.rst"),
    ("The newsletter plan", "marketing/newsletter.md"),
    ("Weekly status", None),
    ("Lisbon", ""),
    ("Release process", "html/development/release-process.rst"),
    ("ColdTrace becomes Tidemark | press release", "web/2026-03-09-press-release-coldtrace-becomes-tidemark.html"),
    ("Releasing", "RELEASE.md"),
    ("News from the Lisbon office", "intranet/2026-05-02-company-news.md"),
    ("History", "about/project-history.md"),
    ("Our history", None),
    ("Changes to the on-call rota", "notes/on-call-changes.md"),
])
def test_other_pages_are_not_release_notes(title: str, locator: str | None) -> None:
    assert not release_notes(title, locator)


def test_a_query_asks_about_a_release_by_its_words_or_a_version_number() -> None:
    for q in ("in which release was the napoleon extension added", "which pytest version dropped python 3.7",
              "what's new in 8.3", "is --import-mode=importlib deprecated", "since when does pip inspect exist",
              "upgrading from v7.4.0", "release notes for the harbor api"):
        assert asks_about_a_release(q), q
    for q in ("compare two floating point results while allowing a small rounding error",
              "turn off a plugin such as the cache provider for one run", "keep a list of things still to write"):
        assert not asks_about_a_release(q), q
