"""The shortcuts that make a recompile's curation replay cheap, each compared with the slow path it skips:
the parse of a page an operation rendered (`parses_back`), the reference sweep's line filters and memos,
the snapshot's kept parses, the link-definition regex and the alias reader's memo. A shortcut that gave
another answer would change what a recompile writes."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from stigmergy.errors import ContractError
from stigmergy.pages.wiki import WikiPage, h1, parse_wiki_page, parses_back, render_wiki_page

CAPS = ["cap_01JD8Z3Q5N4W2X7Y9A0B1C2D3E", "cap_01JD8Z3Q5N4W2X7Y9A0B1C2D3F", "cap_01JD8Z3Q5N4W2X7Y9A0B1C2D3G"]
ID = "pg_01JD8Z3Q5N4W2X7Y9A0B1C2D3H"
TS = "2026-03-10T12:00:00Z"
# Strings YAML reads as something else, or that the renderer or the loader treat apart.
ODD = ["", " ", "a ", " a", "yes", "No", "null", "~", "1", "1.0", "0x1F", "2026-03-10", "a: b", "- a", "#x", "a #b",
       "'", '"', "[]", "{}", "[a]", "&a", "*a", "a*b", "R&D", "!tag", "%x", "@x", "`x", "|", ">", "a\nb", "a\rb",
       "a\x85b", "a\u2028b", "\ufeffa", "e\u0301", "Zoë", "---", "...", "? a", "a,b", "\t", "a\x07", "🙂", "x" * 4100,
       "Maya Okafor", "Lisbon office (renamed)", "Q1: review"]


def _page(**kw: object) -> WikiPage:
    base: dict[str, object] = dict(id=ID, type="entity", title="Maya Okafor", status="seed", created=TS, updated=TS,
                                   layer="public", body="# Maya Okafor\n\n- Works in [[Lisbon]].\n",
                                   entities=("Lisbon",), sources=(CAPS[0],), entity_type="person", aliases=("Maya",))
    base.update(kw)
    return WikiPage(**base)  # type: ignore[arg-type]


def _parse_or_none(text: str) -> WikiPage | None:
    try:
        return parse_wiki_page(text, "wiki/entities/X.md")
    except ContractError:
        return None


_titles = st.sampled_from(["Maya Okafor", "Q1: review", "R&D", "yes", "Zoë", "A  b", " a", "e\u0301", "", "a\nb", "'q'"])
_strings = st.sampled_from(ODD) | st.text(max_size=12)


@st.composite
def _pages(draw: st.DrawFn) -> WikiPage:
    title = draw(_titles)
    ptype = draw(st.sampled_from(["entity", "note", "concept", "project", "bogus"]))
    head = draw(st.sampled_from([h1(title), f"# {title}", "# Other", h1(title) + " [[x]]"]))
    tail = draw(st.sampled_from(["\n", "\n\n- A line.\n", "\n\n", "", "\n- x\n\n", "\n\n## 2026-03-01\n\n- y\n"]))
    entity = ptype == "entity"
    return WikiPage(
        id=draw(st.sampled_from([ID, ID.lower(), ID + "\n", "pg_x"])),
        type=ptype, title=title, status=draw(st.sampled_from(["seed", "mature", "draft"])),
        created=draw(st.sampled_from([TS, TS + "\n", "2026-03-10 12:00:00"])),
        updated=draw(st.sampled_from([TS, "2026-04-01T00:00:00Z", "2026-04-01T00:00:00Z\n"])),
        layer=draw(st.sampled_from(["public", "board", "", "a: b", "&x"])),
        body=head + tail,
        entities=tuple(draw(st.lists(_strings, max_size=3))),
        sources=tuple(draw(st.lists(st.sampled_from([*CAPS, "cap_bad", CAPS[0] + "\n"]), max_size=3))),
        entity_type=draw(st.sampled_from(["person", "place", "robot", None])) if entity else draw(st.sampled_from([None, None, "person"])),
        aliases=tuple(draw(st.lists(_strings, max_size=3))) if entity else draw(st.sampled_from([(), (), ("a",)])),
        decay=draw(st.sampled_from([None, None, "stable", "forever"])),
    )


@settings(max_examples=800, deadline=None)
@example(_page())
@given(_pages())
def test_a_page_said_to_parse_back_parses_back_to_itself(page: WikiPage):
    # Snapshot.render hands `page` on as its text's parse when parses_back says so: then the parse must
    # accept the text and give an equal page, whatever the values (YAML's other types, quotes, line breaks
    # of every kind, anchors, long scalars, titles not in normal form, bodies with another H1 or more
    # trailing newlines).
    if parses_back(page):
        assert parse_wiki_page(render_wiki_page(page), "wiki/entities/X.md") == page


@pytest.mark.parametrize("change", [
    {"body": "# Maya Okafor\n\n- Works in [[Lisbon]].\n\n"},  # the parse drops the extra newline
    {"body": "# Maya Okafor [[Lisbon]]\n"},  # an H1 that is not the title (a relinked link in the heading)
    {"body": "# Maya Okafor"},
    {"title": "Maya  Okafor", "body": "# Maya Okafor\n"},
    {"created": "2026-03-10"}, {"id": ID.lower()}, {"status": "draft"},
    {"sources": (CAPS[1], CAPS[0])}, {"sources": (CAPS[0], CAPS[0])}, {"sources": ("cap_bad",)},
    {"entity_type": "robot"}, {"decay": "forever"}, {"entities": ["Lisbon"]},
    {"type": "note"},  # a note's entity_type and aliases are not written: parsed as None and ()
])
def test_what_would_not_parse_back_is_left_to_the_parse(change: dict[str, object]):
    page = _page(**change)
    assert not parses_back(page)
    assert _parse_or_none(render_wiki_page(page)) != page


@pytest.mark.parametrize("change", [
    # Parsed back, but by the full YAML loader or through a block scalar: not claimed, parsed as before.
    {"updated": TS + "\n"}, {"aliases": ("a\nb",)}, {"aliases": ("a\u2028b",)}, {"aliases": ("R&D",)},
    {"aliases": ("a*b",)}, {"aliases": ("x" * 4100,)},
])
def test_what_parses_back_by_another_way_is_left_to_the_parse_too(change: dict[str, object]):
    page = _page(**change)
    assert not parses_back(page)
    assert parse_wiki_page(render_wiki_page(page)) == page


@pytest.mark.parametrize("page", [
    _page(), _page(type="note", entity_type=None, aliases=(), title="Q1: review", body="# Q1: review\n\n- yes\n"),
    _page(aliases=("yes", "'q'", "Zoë", "1.0", "[]", "null"), entities=("\ufeffa",), sources=tuple(CAPS), decay="stable"),
])
def test_ordinary_pages_parse_back(page: WikiPage):
    # The shortcut is taken for the pages a replay writes (else it would save nothing).
    assert parses_back(page)
    assert parse_wiki_page(render_wiki_page(page)) == page


def test_a_snapshot_hands_on_only_what_parses_back():
    from stigmergy.garden.snapshot import Snapshot
    from stigmergy.settings import Settings

    snap = Snapshot(Path("/nonexistent"), Settings(), {})
    good, bad = _page(), _page(body="# Maya Okafor [[Lisbon]]\n")
    texts = {"wiki/entities/Maya Okafor.md": snap.render(good), "wiki/entities/Other.md": snap.render(bad)}
    after = snap.with_changes(texts)
    assert after.page("wiki/entities/Maya Okafor.md") is good
    assert after.page("wiki/entities/Other.md") is None  # not canonical: the parse refused it, as before
    assert after.pages() == {"wiki/entities/Maya Okafor.md": good}


# -- the reference sweep --------------------------------------------------------------------------------

_SRC = "sources/2026/01/{}.md"
_LINKS = ["[[Gone]]", "[[gone|the old one]]", "[[Gone#Part]]", "[[Kept]]", "[[Gone Too]]", "`[[Gone]]`", "[[Alias Of Gone]]",
          "[[wiki/notes/Gone]]", "[[GONE]]"]


def _cite(rel: str, cap: str, line: int) -> str:
    from stigmergy.pages.citations import cite

    return cite(rel, _SRC.format(cap), line)


@st.composite
def _wikis(draw: st.DrawFn) -> tuple[dict[str, str], list[str]]:
    """A few pages whose lines link to pages and cite sources that may be removed; what to remove."""
    from stigmergy.pages.paths import page_relpath

    texts: dict[str, str] = {}
    titles = ["Gone", "Gone Too", "Kept", "Reader", "Digest"]
    for n, title in enumerate(titles):
        ptype = "entity" if title.startswith("Gone") or title == "Kept" else "note"
        rel = page_relpath(ptype, title, "public")
        lines = []
        for _ in range(draw(st.integers(0 if n else 1, 6))):
            words = " ".join(draw(st.lists(st.sampled_from([*_LINKS, "text", "Gone", "gone too"]), max_size=3)))
            cap = draw(st.sampled_from([None, *CAPS]))
            lines.append(f"- {words} line." + (f" {_cite(rel, cap, draw(st.integers(1, 3)))}" if cap else ""))
        if draw(st.booleans()):
            lines = ["## 2026-03-01", "", *lines]
        body = h1(title) + "\n" + ("\n" + "\n".join(lines) + "\n" if lines else "")
        body = body if lines else body + "\n- Placeholder text of substance.\n"
        from stigmergy.pages.citations import cited_sources

        page = WikiPage(id=f"pg_01JD8Z3Q5N4W2X7Y9A0B1C2D{n}Z", type=ptype, title=title, status="seed", created=TS,
                        updated=TS, layer="public", body=body,
                        entities=tuple(draw(st.lists(st.sampled_from(["Gone", "Kept", "Gone Too"]), unique=True, max_size=2))),
                        sources=tuple(cited_sources(body, rel)), entity_type="person" if ptype == "entity" else None,
                        aliases=("Alias Of Gone",) if title == "Gone" else ())
        texts[rel] = render_wiki_page(page)
    removed = draw(st.lists(st.sampled_from(["wiki/entities/Gone.md", "wiki/entities/Gone Too.md",
                                             *(_SRC.format(c) for c in CAPS)]), min_size=1, unique=True))
    return texts, removed


def _sweep(texts: dict[str, str], removed: list[str]) -> tuple[object, ...]:
    from stigmergy.garden.snapshot import Snapshot
    from stigmergy.garden.sweep import sweep_references
    from stigmergy.settings import Settings

    snap = Snapshot(Path("/nonexistent"), Settings(), dict(texts))
    r = sweep_references(snap.root, snap.settings, removed, timestamp="2026-04-01T00:00:00Z", snapshot=snap)
    return r.changes, r.cascaded, r.records, r.skipped


@settings(max_examples=200, deadline=None)
@given(_wikis())
def test_the_sweep_with_its_filters_and_memos_writes_what_the_slow_sweep_wrote(wiki: tuple[dict[str, str], list[str]]):
    # The slow sweep: every line parsed for citations, every line's links parsed and judged afresh, every
    # page folded again. The fast one must remove the same lines, unlink the same links, cascade the same
    # pages and keep the same records.
    import stigmergy.garden.sweep as sweep

    texts, removed = wiki
    fast = _sweep(texts, removed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sweep, "_may_cite", lambda line, caps: True)
        mp.setattr(sweep, "_links_on", lambda line: tuple((lk.target, lk.raw) for lk in sweep.parse_wikilinks(line)))
        mp.setattr(sweep._Sweeper, "dead_targets", sweep._Sweeper._dead_target)
        mp.setattr(sweep, "_casefolded", str.casefold)
        slow = _sweep(texts, removed)
    assert fast == slow


def test_a_line_citing_a_removed_source_goes_and_others_stay():
    from stigmergy.garden.sweep import _may_cite

    rel = "wiki/notes/Reader.md"
    line = f"- text {_cite(rel, CAPS[0], 2)}"
    assert _may_cite(line, {CAPS[0]}) and not _may_cite(line, {CAPS[1]}) and not _may_cite(line, set())
    assert not _may_cite(f"- mentions {CAPS[0]} without a link", {CAPS[0]})


# -- the snapshot, the link-definition regex, the alias reader ---------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["wiki/notes/A.md", "wiki/notes/B.md", "wiki/notes/C.md", "sources/x.md",
                                           "wiki/maps/public.md"]),
                          st.sampled_from([None, "same", "other", "bad"])), max_size=5))
def test_a_snapshot_keeps_exactly_the_parses_of_unchanged_pages(changes: list[tuple[str, str | None]]):
    from stigmergy.garden.snapshot import Snapshot
    from stigmergy.settings import Settings

    a, b = render_wiki_page(_page(type="note", entity_type=None, aliases=(), title="A", body="# A\n")), "not a page"
    texts = {"wiki/notes/A.md": a, "wiki/notes/B.md": b}
    snap = Snapshot(Path("/nonexistent"), Settings(), texts)
    snap.parsed  # noqa: B018 - parsed, so the next snapshot keeps what did not change
    values = {"same": None, "other": render_wiki_page(_page(type="note", entity_type=None, aliases=(), title="C", body="# C\n")),
              "bad": "---\n"}
    mapping = {rel: (texts.get(rel) if v == "same" else values[v]) if v else None for rel, v in changes}
    after = snap.with_changes(mapping)
    kept = after.__dict__["_kept"]
    assert kept == {rel: value for rel, value in snap.parsed.items() if after.texts.get(rel) == snap.texts.get(rel)}


_PLAIN_LABEL = re.compile(r"\[(?:[^\[\]\\]|\\.)*\]:", re.S)


@settings(max_examples=1000, deadline=None)
@example("[a\\]b]:")
@example("[a\\\n]:")
@example("\\[x]:")
@example("[a\\\\]:")
@example("[a\\]:")
@example("[[x]]:")
@given(st.text(alphabet="[]\\:ab\n ", max_size=24))
def test_the_link_definition_searched_backwards_is_found_where_the_forward_search_found_one(text: str):
    from stigmergy.garden.identity import _has_label

    assert _has_label(text) == (_PLAIN_LABEL.search(text) is not None)


@settings(max_examples=500, deadline=None)
@example("[[a#b]] [[ a |b]] [[a#b|c]] [[a|b#c]] [[[a]]] [[a]b]] [[a\nb]]")
@given(st.text(alphabet="[]|#\nab \\", max_size=30))
def test_link_targets_are_read_as_the_wikilink_pattern_reads_them(text: str):
    from stigmergy.garden.identity import _TARGET_RE
    from stigmergy.pages.wikilinks import WIKILINK_RE

    assert _TARGET_RE.findall(text) == [m.group(1) for m in WIKILINK_RE.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(st.lists(_strings, max_size=4), st.sampled_from(["entity", "note"]))
def test_aliases_read_from_a_text_are_a_fresh_list_each_time(aliases: list[str], ptype: str):
    from stigmergy.pages.wikilinks import _read_aliases, aliases_from_text

    page = _page(aliases=tuple(aliases)) if ptype == "entity" else _page(type="note", entity_type=None, aliases=())
    text = render_wiki_page(page)
    first = aliases_from_text(text)
    first.append("changed by a caller")
    assert aliases_from_text(text) == _read_aliases(text)
    assert replace(page).aliases == page.aliases


# -- the curation record: page versions read ahead ---------------------------------------------------------


def test_the_curation_record_reads_ahead_only_what_it_needs_and_reads_the_rest_when_asked(wiki: Path) -> None:
    # A rename or merge relinks many pages; the record reads only the versions it looks at (a rename's new
    # title; pages found by id where the trailers name none: a restricted layer's). Whatever is read ahead,
    # the record is the same: with nothing read ahead, and with every version read ahead (as it was).
    import stigmergy.history.curation as curation
    from stigmergy.repo.git import Git
    from tests.test_curation import CEO, FILES, _ok

    toml = wiki / "stigmergy.toml"
    toml.write_text(toml.read_text() + f'\n[layers.board]\nreaders = ["{CEO}"]\n')
    _ok(wiki, "capture", *map(str, FILES))
    _ok(wiki, "rename", "Dublin", "Dublin office")
    _ok(wiki, "merge", "Harbor API", "INTO", "Norrland Fresh")
    _ok(wiki, "delete", "wiki/entities/Erik Sandberg.md", "--rationale", "not a person we work with")
    for text in ("Board note: Maya Okafor proposed the Heronsgate budget of $2M on 2 September 2026.",
                 "Board note: Oliver Brandt and Maya Okafor met Quentin Zephyr of Heronsgate on 3 September 2026."):
        _ok(wiki, "--as", CEO, "capture", "--layer", "board", "--text", text)
    notes = sorted(p.relative_to(wiki).as_posix() for p in (wiki / "layers/board/wiki/notes").glob("*.md"))
    _ok(wiki, "--as", CEO, "rename", notes[0], "Heronsgate budget")
    _ok(wiki, "--as", CEO, "merge", notes[1], "INTO", "layers/board/wiki/notes/Heronsgate budget.md")

    def record(reads: object = None) -> tuple[object, object, int, int]:
        asked: list[int] = []
        real = Git.blobs

        def blobs(self: Git, oids: list[str], keep: bool = False) -> dict[str, bytes]:
            asked.append(len(oids))
            return real(self, oids, keep)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(Git, "blobs", blobs)
            if reads is not None:
                mp.setattr(curation, "_operation_reads", reads)
            got = curation.read_curation(Git(wiki))
        return got.entries, got.unreadable, sum(asked), len(asked)

    every = lambda c, entries: {str(o) for e in entries for o in (e["before"], e["after"]) if o}  # noqa: E731
    narrow, none_ahead, all_ahead = record(), record(lambda c, entries: set()), record(every)
    kinds = [e.kind for e in narrow[0]]
    assert (kinds.count("rename"), kinds.count("merge"), kinds.count("delete")) == (2, 2, 1) and not narrow[1]
    assert narrow[:2] == none_ahead[:2] == all_ahead[:2]
    assert narrow[2] < all_ahead[2]  # fewer versions read,
    assert narrow[3] == 1 < none_ahead[3]  # and all of them ahead, in one `git cat-file`
