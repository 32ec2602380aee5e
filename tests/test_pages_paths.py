"""The path sanitiser: no title can escape its folder or name a file Windows or Git would mishandle."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stigmergy.pages.paths import MAX_STEM_BYTES, page_relpath, sanitise_stem, unsafe_relpath_reason
from stigmergy.repo.layout import classify

HOSTILE = [
    "../../etc/passwd", "..", ".", "...", "/abs/path", "a\\b", "C:\\Windows", "NUL", "con", "Con.txt", "COM1",
    "lpt9.md", "aux ", ".hidden", "trailing. . .", "  spaced   out  ", "x" * 500, "é" * 200, "emoji 🙂" * 40,
    "tab\there", "new\nline", "nul\x00byte", "bell\x07", "rtl\u202eexe.md", "[[link]]", "a#b|c", "?*<>:\"", "",
]


@pytest.mark.parametrize("title", HOSTILE)
def test_hostile_titles_stay_in_their_folder(title):
    stem = sanitise_stem(title)
    rel = page_relpath("note", title, "public")
    assert rel == f"wiki/notes/{stem}.md"
    assert classify(rel) == ("note", "public")
    assert unsafe_relpath_reason(rel) is None
    assert "/" not in stem and "\\" not in stem and "\x00" not in stem
    assert not stem.startswith(".") and not stem.endswith((".", " "))
    assert 0 < len(stem.encode("utf-8")) <= MAX_STEM_BYTES
    assert stem.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT9"}
    assert unicodedata.is_normalized("NFC", stem)


def test_readable_titles_keep_their_spaces():
    assert page_relpath("entity", "Aurora Systems", "public") == "wiki/entities/Aurora Systems.md"
    assert page_relpath("concept", "Unit economics", "board") == "layers/board/wiki/concepts/Unit economics.md"


def test_long_titles_get_a_hash_suffix_and_stay_distinct():
    a, b = sanitise_stem("x" * 300 + "a"), sanitise_stem("x" * 300 + "b")
    assert a != b and len(a.encode()) <= MAX_STEM_BYTES


def test_nfc_normalisation_unifies_composed_and_decomposed():
    assert sanitise_stem("Caf\u00e9") == sanitise_stem("Cafe\u0301")


@given(st.text(max_size=300))
def test_any_title_is_safe_and_idempotent(title):
    stem = sanitise_stem(title)
    assert sanitise_stem(stem) == stem
    assert unsafe_relpath_reason(page_relpath("project", title, "public")) is None
    assert len(stem.encode("utf-8")) <= MAX_STEM_BYTES


@pytest.mark.parametrize("rel", ["../x.md", "/x.md", "a//b.md", "a/./b.md", "a\\b.md", ".git/config", "x\x00.md", ""])
def test_unsafe_relpaths(rel):
    assert unsafe_relpath_reason(rel)
