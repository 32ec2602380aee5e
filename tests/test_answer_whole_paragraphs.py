"""Issue #19, sixteenth pass: `ask` reads whole paragraphs. Overlapping fragments start and end inside a sentence;
read alone, "… do *not* | go through the finder, and are merged …" became the line "go through the finder, and are
merged …", which says the opposite (sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.reads import read_pages, whole_paragraphs

READER = "someone@example.com"


def test_a_span_is_widened_to_the_paragraphs_it_touches() -> None:
    text = "Title\n\nFirst sentence of a paragraph. It does not\ngo on here.\n\nNext paragraph.\n"
    start = text.index("not")
    a, b = whole_paragraphs(text, start, text.index("here") + 4)
    assert text[a:b] == "First sentence of a paragraph. It does not\ngo on here."
    # A span that already holds whole paragraphs stays as it is.
    p, q = text.index("First"), text.index("here.") + 5
    assert whole_paragraphs(text, p, q) == (p, q)
    # Past the reach, a span is widened to whole lines only.
    long = "x" * 50 + "\n" + "y" * 10 + " tail\nmore\n\nend"
    a, b = whole_paragraphs(long, long.index("tail"), long.index("more") + 2, reach=20)
    assert long[a:b] == "y" * 10 + " tail\nmore"


def test_a_read_for_ask_starts_and_ends_with_whole_sentences(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    filler = " ".join(f"The cache keeps entry {i} for a day." for i in range(60))
    body = ("# Resolver notes\n\n" + filler + "\n\nCandidates from local folders do *not*\ngo through the finder, "
            "and are merged later by the provider.\n\n" + filler + "\n")
    rel = b.source("Resolver notes", body, key="resolver")
    b.commit()
    short = replace(b.settings, index=replace(b.settings.index, fragment_tokens=96))
    build_index(b.root, short, embedder=HashEmbedder())
    plain = read_pages(b.root, short, READER, [f"{rel}#{k}" for k in range(1, 6)])["pages"]
    # Without widening some window starts inside a sentence (the failure this pass mends) …
    assert any(not p["content"].startswith(("#", "---")) and p["content"][:1].islower() or
               not p["content"].rstrip().endswith((".", "*")) for p in plain)
    wide = read_pages(b.root, short, READER, [f"{rel}#{k}" for k in range(1, 6)], paragraphs=True)["pages"]
    text = (b.root / rel).read_text()
    for p in wide:
        start = text.index(p["content"])
        assert start == 0 or text[start - 2 : start] == "\n\n", p["content"][:60]
        assert p["content"].endswith(".") or p["content"].endswith("\n"), p["content"][-60:]
        lines = text.split("\n")
        assert lines[p["lines"][0] - 1] == p["content"].split("\n")[0]


def test_a_line_longer_than_the_reach_is_not_read_whole() -> None:
    # A hostile page of one 2 MB line: the widening looks no further than its reach on either side.
    text = "x" * 1_000_000 + " middle " + "y" * 1_000_000
    start = text.index("middle")
    assert whole_paragraphs(text, start, start + 6, reach=600) == (start, start + 6)
