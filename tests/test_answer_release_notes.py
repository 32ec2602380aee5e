"""Issue #19, fifteenth pass: release notes in documentation ("```{versionchanged} 22.1", ".. versionadded:: 22.2")
are said with their release, and a later release's note answers what holds now (pages written for these tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.answer.compose import readable
from stigmergy.answer.evidence import Line
from stigmergy.answer.question import parts
from stigmergy.answer.releases import version_notes
from stigmergy.answer.select import Scored, fill_text
from stigmergy.answer.service import ask
from stigmergy.answer.supersede import decide
from stigmergy.answer.units import source_units
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher

MYST = """# Local project installs

## Build artifacts

```{versionchanged} 21.3
The project is no longer copied to a temporary directory before the build. A `--use-deprecated=out-of-tree-build` option is provided as a temporary fallback to aid user migrations.
```

```{versionchanged} 22.1
The `--use-deprecated=out-of-tree-build` option has been removed.
```

When a project is in a local directory, pip builds it in place.

## Caching

```{versionchanged} 23.1
The locally built wheel cache is used in hash-checking mode too.
```

When installing from the cache of locally built wheels in hash-checking mode, pip verifies the hashes against those of the original source distribution.
"""

RST = """# Pip inspect

pip inspect
===========

.. versionadded:: 22.2

Usage
=====

.. deprecated:: 23.1
   The ``--local`` flag of inspect is deprecated.
   Use a virtual environment instead.

The command prints a JSON report.
"""


def test_the_lines_a_release_note_wraps_carry_it() -> None:
    lines = MYST.split("\n")
    notes = version_notes(lines, 1, 1)
    at = {n: lines[n - 1] for n in notes}
    assert notes[next(n for n, t in at.items() if "has been removed" in t)][0] == "Changed in version 22.1"
    assert notes[next(n for n, t in at.items() if "temporary fallback" in t)][0] == "Changed in version 21.3"
    assert not any("in place" in t for t in at.values())  # after the fence closes, text is no note's


def test_a_restructuredtext_note_is_a_statement_and_its_body_reads_it() -> None:
    lines = RST.split("\n")
    units = {u[2]: u for u in source_units(lines, 1, 1)}
    assert "New in version 22.2." in units  # as Sphinx renders it
    body = units["The ``--local`` flag of inspect is deprecated."]
    assert body[3] == "Deprecated since version 23.1"  # its context
    notes = version_notes(lines, 1, 1)
    assert {notes[u[0]][0] for t, u in units.items() if "virtual environment" in t or "--local" in t} == {
        "Deprecated since version 23.1"}
    assert all(u[0] not in notes for t, u in units.items() if "JSON report" in t)


EMPTY_MYST = """# Managing another interpreter

```{versionadded} 22.3
```

You can use the `--python` option to name the interpreter you want to manage.
"""


def test_a_myst_note_with_no_body_is_a_statement_too() -> None:
    lines = EMPTY_MYST.split("\n")
    units = {u[2]: u for u in source_units(lines, 1, 1)}
    assert units["New in version 22.3."][:2] == (3, 3)  # the fence's own line, as ".. versionadded::" is
    assert version_notes(lines, 1, 1) == {3: ("New in version 22.3", 3)}
    # A note with a body is still its body's context, not a statement of its own.
    assert not any(t.startswith("Changed in") for t in (u[2] for u in source_units(MYST.split("\n"), 1, 1)))


def test_a_cross_reference_reads_as_its_words() -> None:
    line = Line("sources/x.md", "T", "source", "public", 3, "", "The {ref}`locally-built wheel cache <wheel-caching>` "
                "is used; see :ref:`the cache <caching>` and :doc:`topics/vcs-support`.", (), (), 1)
    assert readable(line) == "The locally-built wheel cache is used; see the cache and topics/vcs-support."


def _wiki(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w")
    b.source("Local project installs", MYST, occurred_at="2026-05-01", key="local")
    b.source("Pip inspect", RST, occurred_at="2026-05-01", key="inspect")
    b.source("Managing another interpreter", EMPTY_MYST, occurred_at="2026-05-01", key="python")
    for i, text in enumerate(("The Leeds office opened in March.", "Payroll runs on the last working day.",
                              "The warehouse app ships every two weeks.", "Gateways report every five minutes.")):
        b.source(f"Note {i}", text + "\n", occurred_at="2026-05-01", key=f"n{i}")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _ask(b: RepoBuilder, question: str) -> dict:  # type: ignore[type-arg]
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        return ask(b.root, b.settings, "someone@example.com", question, searcher=s, evidence=True)
    finally:
        s.close()


def test_a_later_release_note_answers_what_holds_now(tmp_path: Path) -> None:
    b = _wiki(tmp_path)
    out = _ask(b, "can I still use --use-deprecated=out-of-tree-build?")
    assert out["answered"], (out["evidence"], out["parts"])
    first = out["sentences"][0]
    assert first["text"] == "Changed in version 22.1: The --use-deprecated=out-of-tree-build option has been removed."
    # The note's directive line is cited with the line, and the earlier release's note is shown superseded.
    assert any("{versionchanged} 22.1" in c["text"] for c in first["citations"])
    assert [s["why"] for s in out["superseded"]] == [
        "Changed in version 21.3; a later release's note says otherwise (Changed in version 22.1)"]


def test_a_note_with_no_body_is_said_with_its_section(tmp_path: Path) -> None:
    b = _wiki(tmp_path)
    out = _ask(b, "which pip version added the inspect command?")
    assert out["answered"], (out["evidence"], out["parts"])
    assert out["sentences"][0]["text"] == "pip inspect: New in version 22.2."
    cited = [c["text"] for c in out["sentences"][0]["citations"]]
    assert ".. versionadded:: 22.2" in cited and "pip inspect" in cited


def test_a_myst_note_with_no_body_is_said_with_its_section(tmp_path: Path) -> None:
    b = _wiki(tmp_path)
    out = _ask(b, "since which version can I manage another interpreter with --python?")
    assert out["answered"], (out["evidence"], out["parts"])
    assert out["sentences"][0]["text"] == "Managing another interpreter: New in version 22.3."



def test_which_version_is_answered_by_the_release_note_a_line_sits_in(tmp_path: Path) -> None:
    """Issue #19, eighteenth pass: a version directive's label and body render as one paragraph, so the note's
    version fills "which version" for the lines it wraps; a heading's figure still does not."""
    b = _wiki(tmp_path)
    out = _ask(b, "in what version did pip get rid of the --use-deprecated=out-of-tree-build escape hatch?")
    assert out["answered"], (out["evidence"], out["parts"])
    assert out["sentences"][0]["text"] == "Changed in version 22.1: The --use-deprecated=out-of-tree-build option has been removed."
    # The same line outside any note holds no version.
    line = Line("sources/2026/05/x.md", "Local project installs", "source", "public", 9, "",
                "The --use-deprecated=out-of-tree-build option has been removed.", ("Build artifacts 2.0",), (), 1)
    slot = parts("in what version was the --use-deprecated=out-of-tree-build option removed?")[0].slot
    assert fill_text(line, slot) == line.text
    assert fill_text(replace(line, note="Changed in version 22.1"), slot) == (
        "Changed in version 22.1: The --use-deprecated=out-of-tree-build option has been removed.")
    assert fill_text(replace(line, note="Changed in version 22.1"), parts("who removed the option?")[0].slot) == line.text

def _scored(line: Line, score: float, matched: tuple[str, ...]) -> Scored:
    return Scored(line, score, 0.5, 0.5, 1.0, False, True, matched)


def test_a_note_does_not_take_the_place_of_a_line_that_says_how(tmp_path: Path) -> None:
    page = "sources/2026/05/x.md"
    how = Line(page, "Secure installs", "source", "public", 9, "", "When installing from the cache of locally built "
               "wheels in hash-checking mode, pip verifies the hashes against the original sdist.", (), (), 1)
    note = Line(page, "Secure installs", "source", "public", 6, "", "The locally built wheel cache is used in "
                "hash-checking mode too.", (), (), 1, note="Changed in version 23.1")
    top, other = _scored(how, 0.89, ("cache", "wheel")), _scored(note, 0.80, ("cache", "wheel"))
    ranked = [top, other]
    # "How does pip know …" is answered by the line that says how …
    said = decide(top, ranked, (how, note), (), tmp_path, ("public",), "value", "how does pip know the hash of a cached wheel")
    assert said.lines == [how] and said.superseded == []
    # … "does pip still …" and "… nowadays" by the later release's note, which says what holds now.
    assert decide(top, ranked, (how, note), (), tmp_path, ("public",), "yesno", "does pip still use cached wheels").lines == [note]
    assert decide(top, ranked, (how, note), (), tmp_path, ("public",), "value", "what does pip do with cached wheels nowadays").lines == [note]
    # A note far below the best line, or about something else, does not.
    assert decide(top, [top, _scored(note, 0.6, ("cache",))], (how, note), (), tmp_path, ("public",), "yesno", "").lines == [how]
    assert decide(top, [top, _scored(note, 0.85, ("mode",))], (how, note), (), tmp_path, ("public",), "yesno", "").lines == [how]


def test_an_answer_shows_what_the_source_page_renders() -> None:
    # Capture escapes a document's tag starts and entities; the answer shows the page as it renders.
    line = Line("sources/x.md", "T", "source", "public", 3, "", "Download the script, from &lt;https://bootstrap.pypa.io/"
                "get-pip.py>, or see &lt;a href=\"https://x.org/\">the blog post&lt;/a>.", (), (), 1)
    assert readable(line) == "Download the script, from https://bootstrap.pypa.io/get-pip.py, or see the blog post."
    # A placeholder in angle brackets is no tag; a literal entity the document wrote stays as it was written.
    placeholder = Line("sources/x.md", "T", "source", "public", 4, "", "&lt;venv path>/src/SomeProject, AT&amp;amp;T", (),
                       (), 1)
    assert readable(placeholder) == "<venv path>/src/SomeProject, AT&amp;T."
