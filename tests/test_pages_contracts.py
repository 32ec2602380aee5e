"""Render/parse round trips for wiki pages, citations, contradiction blocks and wikilinks, and refusal of
anything non-canonical."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stigmergy.errors import ContractError
from stigmergy.pages.citations import Citation, citations_by_line, cite, cite_many, parse_line
from stigmergy.pages.contradictions import (
    ClaimRecord,
    make_contradiction,
    new_contradiction_id,
    parse_blocks,
    render_block,
    resolve_contradiction,
    scan_blocks,
)
from stigmergy.pages.wiki import WikiPage, new_page_id, parse_wiki_page, render_wiki_page
from stigmergy.pages.wikilinks import LinkResolver, parse_wikilinks, render_wikilink

SRC = "sources/2026/03/cap_01JQ0000000000000000000001.md"
SRC2 = "layers/board/sources/2026/04/cap_01JQ0000000000000000000002.md"
PAGE = "wiki/notes/Q1 review.md"


# -- citations ------------------------------------------------------------------------------------


def test_cite_renders_the_documented_form():
    assert cite(PAGE, SRC, 31, 32) == "([source](../../sources/2026/03/cap_01JQ0000000000000000000001.md#L31-L32))"
    assert cite(PAGE, SRC, 31) == "([source](../../sources/2026/03/cap_01JQ0000000000000000000001.md#L31))"
    both = cite_many(PAGE, [(SRC, 3, 3), (SRC2, 7, 9)])
    assert both == (
        "([source](../../sources/2026/03/cap_01JQ0000000000000000000001.md#L3), "
        "[source](../../layers/board/sources/2026/04/cap_01JQ0000000000000000000002.md#L7-L9))"
    )


def test_parser_returns_citations_per_line():
    text = f"# T\n\n- a {cite(PAGE, SRC, 3)}\nno cite\n- b {cite_many(PAGE, [(SRC, 3, 3), (SRC2, 7, 9)])}\n"
    got = citations_by_line(text, PAGE)
    assert got == {
        3: (Citation("cap_01JQ0000000000000000000001", SRC, 3, 3),),
        5: (Citation("cap_01JQ0000000000000000000001", SRC, 3, 3), Citation("cap_01JQ0000000000000000000002", SRC2, 7, 9)),
    }


@pytest.mark.parametrize(
    "line",
    [
        "- a ([source](../../sources/2026/03/x.md#L3)) trailing",  # not at the end
        "- a [source](../../sources/2026/03/x.md#L3)",  # no group parentheses
        "- a ([source](../../sources/2026/03/x.md#L3-L3))",  # one line must be #L3
        "- a ([source](../../sources/2026/03/x.md#L5-L3))",  # reversed
        "- a ([source](../../sources/2026/03/x.md#L0))",
        "- a ([source](../../sources/2026/03/x.md))",  # no line range
        "- a ([source](../../sources/2026/03/x.md#L3),[source](../../sources/2026/03/x.md#L4))",  # separator
        "- a ([source](./../../sources/2026/03/x.md#L3))",  # not the canonical relative path
        "- [source](a.md#L1) and ([source](../../sources/2026/03/x.md#L3))",
    ],
)
def test_non_canonical_citations_are_refused(line):
    with pytest.raises(ContractError):
        parse_line(line, PAGE)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([SRC, SRC2, "sources/2025/12/cap_01JQ000000000000000000000Z.md"]),
            st.integers(1, 5000),
            st.integers(0, 50),
        ),
        min_size=1, max_size=4, unique_by=lambda t: (t[0], t[1], t[2]),
    ),
    st.sampled_from([PAGE, "wiki/entities/Aurora Systems.md", "layers/board/wiki/projects/Deal.md"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40).filter(lambda s: "[source](" not in s),
)
def test_citation_round_trip(refs, page, text):
    refs = [(p, s, s + d) for p, s, d in refs]
    line = f"- {text} {cite_many(page, refs)}"
    got = parse_line(line, page)
    assert [(c.path, c.start, c.end) for c in got] == refs


# -- wiki pages -----------------------------------------------------------------------------------


def _page(**kw) -> WikiPage:
    base = dict(
        id=new_page_id("2026-03-11T09:00:00Z", "seed"), type="note", title="Q1 review", status="seed",
        created="2026-03-11T09:00:00Z", updated="2026-03-11T09:00:00Z", layer="public",
        body=f"# Q1 review\n\n- ARR {cite(PAGE, SRC, 3)}\n",
    )
    base.update(kw)
    return WikiPage(**base).with_body(base["body"], PAGE)


def test_wiki_page_round_trip_and_front_matter():
    page = _page(entities=("Aurora Systems",))
    text = render_wiki_page(page)
    assert parse_wiki_page(text, PAGE) == page
    assert text.startswith("---\nid: pg_")
    assert "sources:\n- cap_01JQ0000000000000000000001\n" in text
    entity = _page(type="entity", title="Aurora", body="# Aurora\n\n- x\n", entity_type="organisation", aliases=("AS",))
    assert parse_wiki_page(render_wiki_page(entity)) == entity


@pytest.mark.parametrize(
    "mutate",
    [
        lambda t: t.replace("status: seed", "status: draft"),
        lambda t: t.replace("id: pg_", "id: xx_"),
        lambda t: t.replace("# Q1 review", "# Other"),
        lambda t: t.replace("type: note\n", "type: note\nextra: 1\n"),
        lambda t: t.replace("created: '2026-03-11T09:00:00Z'", "created: 2026-03-11"),
        lambda t: t.replace("entities: []", "entities:\n  []"),
        lambda t: t + "\n",
        lambda t: t.replace("---\n", "--- \n", 1),
    ],
)
def test_non_canonical_wiki_pages_are_refused(mutate):
    text = render_wiki_page(_page())
    bad = mutate(text)
    assert bad != text
    with pytest.raises(ContractError):
        parse_wiki_page(bad, PAGE)


titles = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30).map(
    lambda s: " ".join(s.split())
).filter(lambda s: s and s.strip() == s)


@given(titles, st.sampled_from(["note", "concept", "project"]), st.sampled_from(["seed", "developing", "mature", "evergreen"]),
       st.lists(titles, max_size=3, unique=True))
@settings(max_examples=60)
def test_wiki_page_property_round_trip(title, ptype, status, entities):
    import unicodedata

    title = unicodedata.normalize("NFC", title)
    page = _page(title=title, type=ptype, status=status, entities=tuple(entities), body=f"# {title}\n\nText.\n")
    assert parse_wiki_page(render_wiki_page(page)) == page


# -- contradiction blocks -------------------------------------------------------------------------


def _record(subject="Q1 ARR", text2="ARR was $1.5M"):
    return make_contradiction(
        new_contradiction_id("2026-03-11T09:00:00Z", "x"), subject, "Sources disagree.",
        [ClaimRecord("ARR was $1.3M", "2026-03-01", "cap_01JQ0000000000000000000001", SRC, 3, 4),
         ClaimRecord(text2, "2026-04-02", "cap_01JQ0000000000000000000002", SRC2, 9, 9)],
    )


def test_block_shape_and_round_trip():
    record = _record()
    block = render_block(record, PAGE)
    lines = block.splitlines()
    assert lines[0] == f"<!-- stigmergy:contradiction {record.id} -->"
    assert lines[1] == "> [!WARNING]" and "(open)" in lines[2]
    assert lines[-2].startswith("<!-- stigmergy:data ") and lines[-1] == "<!-- /stigmergy:contradiction -->"
    assert "> - 2026-03-01: ARR was $1.3M ([source](../../sources/2026/03/cap_01JQ0000000000000000000001.md#L3-L4))" in lines
    text = f"# Q1 review\n\nintro\n\n{block}"
    (parsed,) = parse_blocks(text, PAGE)
    assert parsed.record == record and parsed.start_line == 5 and parsed.text == block


def test_resolved_block_keeps_claims_and_shows_resolution():
    record = resolve_contradiction(_record(), "Board pack wins.", "cap_01JQ0000000000000000000003",
                                   "sources/2026/05/cap_01JQ0000000000000000000003.md", "2026-05-01")
    block = render_block(record, PAGE)
    assert "(resolved)" in block and "**Resolved 2026-05-01:** Board pack wins." in block
    assert "ARR was $1.3M" in block and "cap_01JQ0000000000000000000003.md" in block
    assert parse_blocks(block, PAGE)[0].record == record


def test_block_refusals():
    record = _record()
    block = render_block(record, PAGE)
    other = render_block(dataclasses.replace(record, id=new_contradiction_id("2026-03-11T09:00:00Z", "y")), PAGE)
    cases = {
        "id mismatch": block.replace(record.id, new_contradiction_id("2026-03-11T09:00:00Z", "z"), 1),
        "duplicate": block + block,
        "unclosed": block.replace("<!-- /stigmergy:contradiction -->\n", ""),
        "stray end": "<!-- /stigmergy:contradiction -->\n",
    }
    for name, text in cases.items():
        assert scan_blocks(text, PAGE)[1], name
    assert not scan_blocks(block + other, PAGE)[1]
    with pytest.raises(ContractError):
        make_contradiction(record.id, "s", "e", [record.claims[0]])  # fewer than two claims
    with pytest.raises(ContractError):
        make_contradiction(record.id, "s", "e", [record.claims[0], dataclasses.replace(record.claims[1], path=PAGE)])


def test_untrusted_text_cannot_break_out_of_the_block():
    record = _record(subject="x --> <!-- /stigmergy:contradiction -->", text2="y ([source](evil.md#L1))")
    block = render_block(record, PAGE)
    assert block.count("<!-- /stigmergy:contradiction -->") == 1
    assert parse_blocks(block, PAGE)[0].record == record


@given(st.data())
@settings(max_examples=150)
def test_any_single_byte_change_to_a_block_is_refused(data):
    block = render_block(_record(), PAGE).encode("utf-8")
    i = data.draw(st.integers(0, len(block) - 1))
    new_byte = data.draw(st.integers(0, 255).filter(lambda b: b != block[i]))
    changed = block[:i] + bytes([new_byte]) + block[i + 1 :]
    try:
        text = changed.decode("utf-8")
    except UnicodeDecodeError:
        return  # not even text: the page would be refused as undecodable
    blocks, errors = scan_blocks(text, PAGE)
    assert errors or not blocks or blocks[0].text != block.decode()
    assert not (blocks and not errors), "a changed block must be refused"


safe_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(lambda s: s.split())


@given(safe_text, safe_text, safe_text, safe_text)
@settings(max_examples=80)
def test_block_property_round_trip(subject, explanation, t1, t2):
    record = make_contradiction(
        new_contradiction_id("2026-03-11T09:00:00Z", subject), subject, explanation,
        [ClaimRecord(t1, "2026-03-01", "cap_01JQ0000000000000000000001", SRC, 1, 2),
         ClaimRecord(t2, "2026-03-02", "cap_01JQ0000000000000000000002", SRC2, 5, 5)],
    )
    block = render_block(record, "layers/board/wiki/notes/X.md")
    (parsed,) = parse_blocks("# X\n\n" + block, "layers/board/wiki/notes/X.md", first_line=1)
    assert parsed.record == record


# -- wikilinks ------------------------------------------------------------------------------------


def test_wikilink_forms_and_resolution():
    text = "See [[Aurora Systems]], [[aurora systems|them]] and [[Q1 review#Numbers|the numbers]].\n`[[not a link]]`\n"
    links = parse_wikilinks(text)
    assert [(lk.target, lk.heading, lk.label) for lk in links] == [
        ("Aurora Systems", None, None), ("aurora systems", None, "them"), ("Q1 review", "Numbers", "the numbers"),
    ]
    assert render_wikilink("Q1 review", "the numbers", "Numbers") == "[[Q1 review#Numbers|the numbers]]"
    resolver = LinkResolver(
        {"aurora systems": ["wiki/entities/Aurora Systems.md"], "q1 review": ["wiki/notes/Q1 review.md", "wiki/projects/Q1 review.md"]},
        lambda: {"as": ["wiki/entities/Aurora Systems.md"]},
    )
    assert resolver.resolve("AURORA SYSTEMS") == ["wiki/entities/Aurora Systems.md"]
    assert len(resolver.resolve("Q1 review")) == 2  # ambiguous
    assert resolver.resolve("AS") == ["wiki/entities/Aurora Systems.md"]  # alias
    assert resolver.resolve("Nobody") == []  # dead
