"""Release notes, told apart from the pages that document what they announce.

A changelog names every feature the day it changed ("Added `--cache-clear`", "`approx` now supports
decimals"), so it matches a how-to question's words and meaning on one of its many windows, and it outranks
the page that says how to use the feature: on the public sets, pytest's `changelog.rst` (866 windows) and
its 176 release announcements, and Sphinx's 46 `changes/*.rst`, sat in the top five of questions they do
not answer (docs/index.md, issue 20, tenth look). A release note answers a question about a release: which
version added, changed or dropped something, what is new. So a search whose query does not ask about one
weighs release notes down (`search.RELEASE_NOTES_FACTOR`), and one that does leaves them as they are.

A page is release notes by its name only, never by its content: the file it was captured from (its folder
and file name: `changes/3.3.rst`, `CHANGELOG.md`, `announce/release-2.0.0.rst`, `NEWS`, `HISTORY.rst`,
`whatsnew/3.12.rst`) or its title ("Changelog", "Release notes", "What's new in 2.0"). A file named for
"release" without a version (`release-process.rst`, `RELEASE.md`, a press release) is about making or
announcing releases, not a list of what changed in one; "news", "history" and "changes" count only as a whole
name (`NEWS`, `HISTORY.rst`, a `changes/` folder, a page titled "News"), never inside one ("company-news.md",
"Our history", "Changes to the on-call rota"): a team's wiki is full of those.
"""

from __future__ import annotations

import re

# Words that name release notes wherever they stand in a file name ("2026-06-02-harbor-api-1-0-release-notes",
# "release-2.0.0"), and words too common alone ("news", "history", "changes") that do only as the whole name
# ("NEWS", "HISTORY.rst", a `changes/` folder): "company-news.md" and "project-history.md" are not.
_NAMED_RE = re.compile(r"(?<![a-z0-9])(?:change[ _-]?log|release[ _-]?notes?|release[ _-]?v?\d[\w.]*|"
                       r"what'?s[ _-]?new)(?![a-z])", re.I)
_WHOLE_RE = re.compile(r"changes|changelog|news|history|releases|release[ _-]?notes|what'?s[ _-]?new", re.I)
_TITLE_RE = re.compile(r"(?:change[ -]?log|release notes|release history|what'?s new)\b.*|changes|news", re.I)
# The words of a question about a release: which version, when something was added, changed, deprecated or
# dropped, what is new; or a version number ("3.2", "v8.1.0").
_ASKS_RE = re.compile(
    r"\b(?:releases?|released|versions?|change[ -]?log|changelog|release notes|introduced|deprecat\w*|added|"
    r"removed|dropped|since|new in|changed in|first|what'?s new|upgrad\w*)\b|\bv?\d+\.\d+(?:\.\d+)?\b", re.I)


def release_notes(title: str, locator: str | None) -> bool:
    """Whether a page is a changelog, release notes or a release announcement, by its file's folder and name
    (the captured file's, for a source page) or its title."""
    if _TITLE_RE.fullmatch(title.strip()):
        return True
    if not locator:
        return False
    parts = locator.replace("\\", "/").rstrip("/").split("/")
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1] else parts[-1]
    folder = parts[-2] if len(parts) > 1 else ""
    return bool(_NAMED_RE.search(stem) or _WHOLE_RE.fullmatch(stem) or _WHOLE_RE.fullmatch(folder))


def asks_about_a_release(query: str) -> bool:
    """Whether a query asks about a release: then release notes are what answers it."""
    return _ASKS_RE.search(query) is not None
