"""A note's title: the source's own, told apart from a note of the same title by what differs between the two
sources (their dates, their folders, their file names), never by a capture id or a hash."""

from __future__ import annotations

import posixpath
import re

from stigmergy.errors import ContractError
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.paths import page_relpath, stem_of
from stigmergy.plan.deterministic.state import Filing, already_cites, existing
from stigmergy.repo.containment import read_contained

_HASHY = re.compile(
    r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # a UUID
    r"|(?<![0-9a-z])(?=[0-9a-z]*\d)(?=[0-9a-z]*[a-z])[0-9a-f]{8,}(?![0-9a-z])"  # hex with digits and letters
)
_UNSAFE = re.compile(r"[\[\]<>|#()]")
# A page's citation of a source: a relative link to sources/YYYY/MM/<capture-id>.md (in a layer's folder or not).
_CITED = re.compile(r"\]\(((?:\.\./)+(?:layers/[\w.-]+/)?sources/\d{4}/\d{2}/cap_[0-9A-Za-z]+\.md)")
_SOURCE_PATH = re.compile(r"(?:layers/[\w.-]+/)?sources/\d{4}/\d{2}/cap_[0-9A-Za-z]+\.md")


def _unhashed(name: str) -> str:
    """A file or folder name without the id an export appends ("Weekly sync 3f2a9c1e4b5d.md"); "" when nothing
    readable is left."""
    name = _UNSAFE.sub(" ", name).strip()
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    stem = " ".join(_HASHY.sub(" ", stem).split()).strip(" -_")
    if not re.search(r"[^\W\d_]", stem):
        return ""
    return f"{stem}.{ext}" if dot else stem


def _first_source(st: Filing, path: str) -> tuple[str, str] | None:
    """(locator, occurred date) of the first source the page at `path` cites, or None."""
    got = existing(st, path)
    m = _CITED.search(got[1]) if got is not None else None
    if m is None:
        return None
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group(1)))
    if not _SOURCE_PATH.fullmatch(rel):
        return None  # a link that climbs out of the repository names no source of it
    text = read_contained(st.ctx.root, rel)  # no symbolic link out of the repository either
    if text is None:
        return None
    try:
        meta, _, _ = split_front_matter(text)
    except ContractError:
        return None
    return str(meta.get("locator") or ""), str(meta.get("occurred_at") or "")[:10]


# Folders that hold a site's or a project's documents as such: "Getting Started (html)" tells a reader nothing.
_GENERIC_FOLDERS = frozenset("doc docs documentation html htdocs www site public static content contents pages src "
                             "source sources en export exports".split())


def _folder_that_differs(mine: str, theirs: str) -> str:
    """The last folder of `mine`'s path that is not where `theirs` has it ("reference" for reference/pip_install.rst
    beside cli/pip_install.rst); "" when both sit in one folder, or when that folder only says it holds documents
    (`docs/html/getting-started.md` beside `docs/html/development/getting-started.rst`)."""
    a, b = mine.split("/")[:-1], theirs.split("/")[:-1]
    while a and b and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    return _unhashed(a[-1]) if a and a[-1].casefold() not in _GENERIC_FOLDERS else ""


def note_target(st: Filing) -> tuple[str | None, str]:
    """(path, title) of the note this source files, or (None, title) when it was filed before. A second note of
    the same title takes its date when the dates differ; when they do not (one folder captured at once), the
    folder it is in, else its file's name; then a number."""
    title = " ".join(st.page.title.split()) or f"Capture of {st.date}"
    origin = _unhashed(st.page.locator.rsplit("/", 1)[-1])
    origin = origin if origin != title else ""
    options = [title, f"{title} ({st.date})"]
    if origin:
        options.append(f"{title} ({st.date}, {' '.join(origin.split())})")
    own = page_relpath("note", title, st.layer)
    clash = st.all_stems.get(stem_of(own).casefold())
    if clash == own and already_cites(st, own):
        return None, title  # filed before (a recompile): nothing to tell apart, nothing to read
    theirs = _first_source(st, clash) if clash is not None and clash not in st.planned_stems.values() else None
    if theirs is not None and theirs[1] == st.date:
        folder = _folder_that_differs(st.page.locator, theirs[0])
        options = [title] + [f"{title} ({x})" for x in (folder, origin) if x] + options[1:]
    options += [f"{title} ({st.date}) {k}" for k in range(2, 30)]
    for candidate in options:
        path = page_relpath("note", candidate, st.layer)
        clash = st.all_stems.get(stem_of(path).casefold())
        if clash is None or clash in st.planned_stems.values():
            return path, candidate
        if clash == path and already_cites(st, path):
            return None, candidate  # filed before
    return None, title
