"""Reads: page head and fragment navigation, evidence, links/backlinks, list, describe, contradictions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder, cite, ulid

from stigmergy.errors import NotFoundError, UsageError
from stigmergy.index.build import build_index
from stigmergy.index.reads import describe_entity, list_pages, read_pages
from stigmergy.index.search import Filters
from stigmergy.pages.contradictions import ClaimRecord, make_contradiction, render_block

READER = "someone@example.com"


@pytest.fixture
def repo(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w")
    s1 = b.source("Q1 report", "Aurora reached $1.3M ARR in Q1 2026.\nHeadcount is 12.\n", occurred_at="2026-04-02",
                  key="q1")
    s2 = b.source("Board memo", "Aurora ARR was $1.1M at the end of Q1 2026.\n", occurred_at="2026-04-09", key="memo")
    note = "wiki/notes/Aurora.md"
    con = make_contradiction(
        "con_" + ulid("c1"), "Aurora Q1 ARR", "The report and the memo disagree.",
        [ClaimRecord("ARR $1.3M", "2026-04-02", s1.rsplit("/", 1)[1][:-3], s1, 22, 22),
         ClaimRecord("ARR $1.1M", "2026-04-09", s2.rsplit("/", 1)[1][:-3], s2, 22, 22)],
    )
    long_section = "\n".join(f"- Detail {i} about the Aurora rollout and its many moving parts." for i in range(60))
    body = (
        f"- Aurora reached $1.3M ARR in Q1 2026. {cite(note, s1, 22)}\n"
        f"- The board memo says $1.1M. {cite(note, s2, 22)}\n"
        "- Owned by [[Acme Corp]] and [[Nobody Here]].\n\n"
        f"{render_block(con, note)}\n## Rollout\n\n{long_section}\n"
    )
    b.wiki("note", "Aurora", body, entities=("Acme Corp",))
    b.wiki("entity", "Acme Corp", "Acme builds Aurora. See [[Aurora]].\n", aliases=("Acme",))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def test_read_head_with_navigation_links_backlinks_contradictions(repo: RepoBuilder) -> None:
    out = read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md"], head_chars=1500)
    page = out["pages"][0]
    assert page["truncated"] and len(page["content"]) == 1500
    assert page["fragments_total"] > 2 and "#n" in page["note"]
    assert page["front_matter"]["title"] == "Aurora"
    assert {(lk["target"], lk["path"]) for lk in page["links"]} == {
        ("Acme Corp", "wiki/entities/Acme Corp.md"), ("Nobody Here", None)}
    assert [b["path"] for b in page["backlinks"]] == ["wiki/entities/Acme Corp.md"]
    assert [c["subject"] for c in page["contradictions"]] == ["Aurora Q1 ARR"]
    assert out["index"]["stale"] is False


def test_read_fragment_with_neighbours(repo: RepoBuilder) -> None:
    page = read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md#2"])["pages"][0]
    assert [f["n"] for f in page["fragments"]] == [1, 2, 3]
    last = read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md#1"])["pages"][0]
    assert [f["n"] for f in last["fragments"]] == [1, 2]
    text = (repo.root / "wiki/notes/Aurora.md").read_text()
    assert page["content"] in text
    with pytest.raises(NotFoundError):
        read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md#99"])


def test_a_read_of_short_fragments_shows_as_much_text_around_one(repo: RepoBuilder) -> None:
    # `fragment_tokens = 96`: three neighbours on each side hold about the model's window of 256.
    short = replace(repo.settings, index=replace(repo.settings.index, fragment_tokens=96))
    build_index(repo.root, short, embedder=HashEmbedder())
    page = read_pages(repo.root, short, READER, ["wiki/notes/Aurora.md#5"])["pages"][0]
    assert page["fragments_total"] > 8
    assert [f["n"] for f in page["fragments"]] == [2, 3, 4, 5, 6, 7, 8]
    assert "fragments 2–8" in page["note"]
    first = read_pages(repo.root, short, READER, ["wiki/notes/Aurora.md#1"])["pages"][0]
    assert [f["n"] for f in first["fragments"]] == [1, 2, 3, 4]
    head = read_pages(repo.root, short, READER, ["wiki/notes/Aurora.md"])["pages"][0]
    assert "3 neighbours on each side" in head["note"]
    assert "one neighbour on each side" in read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md"])[
        "pages"][0]["note"]


def test_read_evidence_quotes_the_cited_lines(repo: RepoBuilder) -> None:
    page = read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md"], evidence=True)["pages"][0]
    quoted = {c["text"] for e in page["evidence"] for c in e["cites"]}
    assert "Aurora reached $1.3M ARR in Q1 2026." in quoted
    assert "Aurora ARR was $1.1M at the end of Q1 2026." in quoted


def test_read_limits(repo: RepoBuilder) -> None:
    with pytest.raises(UsageError):
        read_pages(repo.root, repo.settings, READER, ["wiki/notes/Aurora.md"] * 6)
    with pytest.raises(NotFoundError):
        read_pages(repo.root, repo.settings, READER, ["../outside.md"])
    with pytest.raises(NotFoundError):
        read_pages(repo.root, repo.settings, READER, ["stigmergy.toml"])


def test_list_filters(repo: RepoBuilder) -> None:
    assert list_pages(repo.root, repo.settings, READER)["total"] == 4
    sources = list_pages(repo.root, repo.settings, READER, Filters(type="source"))
    assert {p["title"] for p in sources["pages"]} == {"Q1 report", "Board memo"}
    about = list_pages(repo.root, repo.settings, READER, Filters(entity="Acme"))
    assert {p["path"] for p in about["pages"]} == {"wiki/notes/Aurora.md", "wiki/entities/Acme Corp.md"}
    assert list_pages(repo.root, repo.settings, READER, Filters(since="2026-04-05", type="source"))["total"] == 1


def test_describe_entity_timeline_and_contradictions(repo: RepoBuilder) -> None:
    d = describe_entity(repo.root, repo.settings, READER, "acme")
    assert d["entity"]["title"] == "Acme Corp" and d["entity"]["aliases"] == ["Acme"]
    assert [p["path"] for p in d["pages"]] == ["wiki/notes/Aurora.md"]
    dates = [t["date"] for t in d["timeline"]]
    assert dates == sorted(dates) and dates[0] == "2026-04-02"
    assert d["timeline"][0]["fact"] == "Aurora reached $1.3M ARR in Q1 2026."
    assert [c["status"] for c in d["contradictions"]] == ["open"]


def test_describe_timeline_shows_a_fact_once_though_two_pages_state_it(tmp_path: Path) -> None:
    """QA: the entity page said it with [[links]], the note without; the timeline printed both."""
    b = RepoBuilder(tmp_path / "w")
    s1 = b.source("Standup", "Zoë Çelik joined the Helios team.\n", occurred_at="2026-05-01", key="su")
    note, ent = "wiki/notes/Helios.md", "wiki/entities/Zoë Çelik.md"
    b.wiki("note", "Helios", f"- Zoë Çelik joined the Helios team. {cite(note, s1, 22)}\n", entities=("Zoë Çelik",))
    b.wiki("entity", "Zoë Çelik", f"- [[Zoë Çelik]] joined the [[Helios]] team. {cite(ent, s1, 22)}\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    d = describe_entity(b.root, b.settings, READER, "Zoë Çelik")
    assert len(d["timeline"]) == 1, d["timeline"]


@pytest.mark.parametrize("ref", ["wiki/notes/Aurora.md#abc", "wiki/notes/Aurora.md#-1", "wiki/notes/Aurora.md#"])
def test_read_a_fragment_that_is_not_a_number_is_a_usage_error(repo: RepoBuilder, ref: str) -> None:
    with pytest.raises(UsageError, match="bad fragment number"):
        read_pages(repo.root, repo.settings, READER, [ref])


def test_a_page_edited_after_a_read_is_read_again_not_remembered(repo: RepoBuilder) -> None:
    """Reads remember split pages by their whole text (a warm server asks of the same pages again): an edit
    on disk is a new text, so the next read sees it at once, even before the index is rebuilt."""
    path = repo.root / "wiki/entities/Acme Corp.md"
    first = read_pages(repo.root, repo.settings, READER, ["wiki/entities/Acme Corp.md#1"])["pages"][0]
    assert "Acme builds Aurora" in first["content"]
    path.write_text(path.read_text().replace("Acme builds Aurora", "Acme sells Aurora"))
    again = read_pages(repo.root, repo.settings, READER, ["wiki/entities/Acme Corp.md#1"])["pages"][0]
    assert "Acme sells Aurora" in again["content"]
    assert "Acme builds Aurora" not in again["content"]
