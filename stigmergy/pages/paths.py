"""Wiki page paths: derived from type, title and layer, with a sanitiser no title can escape.

The file stem stays readable (spaces allowed) because Obsidian and GitHub resolve `[[Wikilinks]]` by
file stem. See docs/pages.md for the exact rules.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import unicodedata

from stigmergy.repo.layout import PAGE_TYPES, wiki_dir_relpath

MAX_STEM_BYTES = 120
_HASH_CHARS = 8
# Path separators, characters Windows refuses, and characters that break wikilinks ([[a#b|c]]) or
# Markdown link targets. Each becomes '-', so the title stays readable.
_FORBIDDEN = re.compile(r'[/\\<>:"|?*#\[\]^\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]')
_WINDOWS_RESERVED = {
    "CON", "PRN", "AUX", "NUL",
    *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10)),
    "COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³",
}
FALLBACK_STEM = "Untitled"


def normalise_title(title: str) -> str:
    """NFC, one line, single spaces: the title as front matter and the H1 hold it."""
    return " ".join(unicodedata.normalize("NFC", title).split())


def sanitise_stem(title: str) -> str:
    """The file stem for a title. Idempotent; never empty, never a path, at most MAX_STEM_BYTES bytes."""
    text = normalise_title(title)
    text = _FORBIDDEN.sub("-", text)
    # Other invisible format characters (bidi overrides, zero-width) could disguise a name.
    text = "".join("-" if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") else ch for ch in text)
    text = " ".join(text.split())
    # Leading dots hide files (and '..' escapes); trailing dots and spaces are stripped by Windows.
    text = text.lstrip(". ").rstrip(". ")
    if not text:
        text = FALLBACK_STEM
    head, dot, rest = text.partition(".")
    if head.strip().upper() in _WINDOWS_RESERVED:
        text = f"{head}_{dot}{rest}"  # 'CON.txt' is as reserved as 'CON': mark the first part
    encoded = text.encode("utf-8")
    if len(encoded) > MAX_STEM_BYTES:
        digest = hashlib.sha256(normalise_title(title).encode("utf-8")).hexdigest()[:_HASH_CHARS]
        cut = encoded[: MAX_STEM_BYTES - _HASH_CHARS - 1].decode("utf-8", "ignore").rstrip(". ")
        text = f"{cut}-{digest}"
    return text


def page_relpath(page_type: str, title: str, layer: str) -> str:
    """`wiki/<folder>/<Stem>.md` (or `layers/<l>/wiki/...`): the only path a page of this title may have."""
    if page_type not in PAGE_TYPES:
        raise ValueError(f"unknown page type {page_type!r}")
    return f"{wiki_dir_relpath(layer, page_type)}/{sanitise_stem(title)}.md"


def stem_of(relpath: str) -> str:
    name = relpath.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


_CONTROL = re.compile(r"[\x00-\x1f]")  # one regex scan: the gates ask this of every cited path


def unsafe_relpath_reason(relpath: str) -> str | None:
    """Why a repository-relative path supplied by a plan is unsafe, or None when it is a plain relative path."""
    if not relpath:
        return "empty path"
    if _CONTROL.search(relpath):
        return "control character in path"
    if "\\" in relpath:
        return "backslash in path"
    if relpath.startswith("/") or re.match(r"^[A-Za-z]:", relpath):
        return "absolute path"
    parts = relpath.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "path has '..', '.' or empty components"
    if posixpath.normpath(relpath) != relpath:
        return "path is not normalised"
    if parts[0] in (".git", ".stigmergy"):
        return f"path is inside {parts[0]}/"
    return None
