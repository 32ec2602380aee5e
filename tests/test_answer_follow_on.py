"""Issue #19, fifteenth pass: an answer line is said with the short sentence after it that goes on with it ("It
is not on the roadmap."), so a quoted line never says the opposite of its source (sentences written for these
tests)."""

from __future__ import annotations

from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.answer.evidence import Cite, Line, follow_on
from stigmergy.answer.service import ask
from stigmergy.answer.units import source_units
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher

PAGE = "sources/2026/09/cap_x.md"


def _lines(body: list[str]) -> tuple[Line, ...]:
    """The source lines of `body` (page lines from 1) as `gather` makes them."""
    out = []
    for a, b, text, before, before_at, _ in source_units(body, 1, 0):
        cite = Cite(PAGE, a, b, "\n".join(body[a - 1 : b]))
        bcite = Cite(PAGE, before_at[0], before_at[1], "\n".join(body[before_at[0] - 1 : before_at[1]])) if before_at else None
        out.append(Line(PAGE, "Retro", "source", "public", a, text, text.lstrip("- "), (), (cite,), 1, before, bcite))
    return tuple(out)


def _after(body: list[str], starts: str) -> str | None:
    lines = _lines(body)
    line = next(ln for ln in lines if ln.text.startswith(starts))
    then = follow_on(line, lines)
    return then.text if then else None


def test_a_sentence_that_goes_on_with_the_line_is_its_follow_on() -> None:
    body = ["- Sales promised the Danish customer a German-language report. It is not on the roadmap.",
            "- Validation documentation was written at night. It should be part of the plan."]
    assert _after(body, "Sales") == "It is not on the roadmap."
    # A paragraph that opens on what the last one said goes on with it, as its context does (source_units).
    assert _after(["Sales promised a German report.", "", "It is not on the roadmap."], "Sales") == "It is not on the roadmap."
    # On the next line of a wrapped paragraph, and a qualification ("However, …") too.
    wrapped = ["The recommended hash algorithm is sha256, but stronger ones are allowed.",
               "However, weaker ones such as md5 and sha224 are excluded."]
    assert _after(wrapped, "The recommended") == "However, weaker ones such as md5 and sha224 are excluded."


def test_a_sentence_of_its_own_is_not_a_follow_on() -> None:
    # A new subject, a new paragraph or list item, and a long sentence each say something of their own.
    assert _after(["Sales promised a German report. Marketing ran the launch webinar."], "Sales") is None
    assert _after(["- Sales promised a German report.", "- It was moved to October."], "Sales") is None
    assert _after(["Sales promised a German report.", "", "## Next steps", "", "It is not on the roadmap."], "Sales") is None
    long = ("It is not on the roadmap for this year, and the product team has said that it will not be considered "
            "before the platform migration is finished and every customer has moved to the new report engine.")
    assert _after([f"Sales promised a German report. {long}"], "Sales") is None
    # A wiki page's line has no sentence after it in a source paragraph.
    wiki = Line("wiki/notes/Retro.md", "Retro", "note", "public", 3, "- Sales promised a German report.",
                "Sales promised a German report.", (), (), 1)
    assert follow_on(wiki, _lines(["Sales promised a German report. It is not on the roadmap."])) is None


def test_the_answer_says_and_cites_the_follow_on(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    rel = b.source("Launch retrospective", "# Launch retrospective\n\n## What did not go well\n\n"
                   "- Sales promised the Danish customer a German-language report. It is not on the roadmap.\n"
                   "- The launch date moved twice.\n", occurred_at="2026-09-30", key="retro")
    for i, text in enumerate(("The Leeds office opened in March.", "Payroll runs on the last working day.",
                              "The warehouse app ships every two weeks.", "Gateways report every five minutes.")):
        b.source(f"Note {i}", text + "\n", occurred_at="2026-05-01", key=f"n{i}")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        out = ask(b.root, b.settings, "someone@example.com", "can we give the Danish customer a German-language report?",
                  searcher=s, evidence=True)
    finally:
        s.close()
    assert out["answered"], (out["evidence"], out["parts"])
    [first] = out["sentences"][:1]
    assert first["text"] == "Sales promised the Danish customer a German-language report. It is not on the roadmap."
    assert any(c["path"] == rel and "not on the roadmap" in c["text"] for c in first["citations"])
