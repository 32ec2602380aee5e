"""Issue #19, thirty-first pass: "what's that deal worth" asks a sum of money, not a term to define; "what's X's role
here" asks the post X holds; a table row that starts with the term defines it, and a read cut inside a wide table goes
on to the table's end; a line under the second of two short sections in one fragment has that section's heading.
Sentences and tables written for these tests."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.answer.defining import defines, defines_operator
from stigmergy.answer.question import slot
from stigmergy.index.build import build_index
from stigmergy.index.reads import read_pages, whole_paragraphs

READER = "someone@example.com"


def test_what_a_deal_is_worth_asks_money() -> None:
    got = slot("the pilot became a proper contract — what's that deal worth annually?")
    assert (got.kind, got.unit) == ("quantity", "money")
    assert slot("what is a lane?").kind == "definition"  # a term to define stays one


def test_a_role_asked_with_where_the_asker_stands_is_a_post() -> None:
    got = slot("what's olly's role here?")
    assert (got.kind, got.subject) == ("role", "olly")
    assert slot("what's olly's role these days?").kind == "role"


def test_a_table_row_that_starts_with_the_term_defines_it() -> None:
    assert defines("dwell time", "| Dwell time | How long a shipment sits at a depot. |")
    assert not defines("dwell time", "| Lane | Dwell time is shown per lane. |")
    assert defines_operator("~=", "| `~=`     | Any compatible version.     | `~=3.1`: any version compatible with 3.1. |")
    assert not defines_operator("~=", "| `>=` | Any version from it on. | also `~=` |")


def test_a_read_cut_inside_a_wide_table_goes_on_to_its_end(tmp_path: Path) -> None:
    rows = "".join(f"| `op{i}` | Operator number {i} does thing {i}. {'.' * 90} |\n" for i in range(12))
    text = "Intro.\n\n| Operator | Description |\n| --- | --- |\n" + rows + "\nAfter the table.\n"
    start = text.index("op2")
    a, b = whole_paragraphs(text, start, start + 5, reach=300)
    assert text[a:b].rstrip().endswith("op11` | Operator number 11 does thing 11. " + "." * 90 + " |")
    assert "After the table" not in text[a:b]
    # a cut line that is no table row stays where the reach put it
    prose = "Intro.\n\n" + "".join(f"Sentence {i} of a long paragraph {'.' * 90}\n" for i in range(12))
    a, b = whole_paragraphs(prose, prose.index("Sentence 2"), prose.index("Sentence 2") + 5, reach=300)
    assert "Sentence 11" not in prose[a:b]
    # through a real read for `ask` (whole paragraphs), windows cut the table: each one that reads a row reads the last
    builder = RepoBuilder(tmp_path / "w")
    wide = "".join(f"| `op{i}` | Operator number {i} does thing {i}. {'.' * 90} |\n" for i in range(30))
    rel = builder.source("Operators", "# Operators\n\nIntro.\n\n| Operator | Description |\n| --- | --- |\n" + wide +
                         "\nAfter the table.\n", key="ops")
    builder.commit()
    short = replace(builder.settings, index=replace(builder.settings.index, fragment_tokens=96))
    build_index(builder.root, short, embedder=HashEmbedder())
    def contents(**how: bool) -> list[str]:
        return [p["content"] for k in range(1, 12, 5) for p in read_pages(
            builder.root, short, READER, [f"{rel}#{j}" for j in range(k, k + 5)], **how)["pages"]]

    plain = contents()
    assert any("`op3`" in c and "`op29`" not in c for c in plain)  # the cut this pass mends
    read = contents(paragraphs=True)
    assert [c for c in read if "`op3`" in c] and all("`op29`" in c for c in read if "`op3`" in c)


def test_a_line_under_a_second_short_section_has_that_sections_heading(tmp_path: Path) -> None:
    """A fragment that holds two short sections gave the second one's lines the first one's heading: "Outlook for
    Q2 2026" made a Q1 report's risk line answer a question about Q2."""
    from stigmergy.answer.service import REFUSAL, ask
    from stigmergy.index.search import Searcher

    b = RepoBuilder(tmp_path / "w")
    commentary = " ".join(f"The pilot at depot {i} went well and the team learned a lot from it." for i in range(40))
    b.source("Quarterly report — Q1 2026", f"## Commentary\n\n{commentary}\n\n## Outlook for Q2 2026\n\n"
             "- Expect revenue of about £2.3M at the end of Q2.\n\n## Risks\n\n- Hardware gross margin remains low at "
             "23%.\n", occurred_at="2026-04-10", key="q1")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        q2 = ask(b.root, b.settings, READER, "what was our hardware gross margin in Q2 2026?", searcher=s)
        q1 = ask(b.root, b.settings, READER, "what was our hardware gross margin in Q1 2026?", searcher=s)
    finally:
        s.close()
    assert not q2["answered"] and q2["refusal"] == REFUSAL
    assert "23%" in " ".join(x["text"] for x in q1["sentences"])


def test_a_heading_inside_a_code_block_is_no_heading() -> None:
    from stigmergy.answer.evidence import _headings

    content = "## Install\n\n```sh\n## step two of the script\nrun it\n```\n\nThe tool is installed.\n\n## Risks\n\nIt may break."
    page = {"lines": [10, 10 + content.count("\n")], "content": content,
            "fragments": [{"lines": [10, 10 + content.count("\n")], "headings": ["Install"]}]}
    assert _headings(page, 17) == ("Install",)  # "The tool is installed.": the fence's "## step two" is code
    assert _headings(page, 22) == ("Risks",)
