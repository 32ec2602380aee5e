"""The index: fragments, schema, incremental builds, the vector cache, freshness and --check."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder, cite, git

from stigmergy.errors import CheckFailedError, IndexMissingExtensionError
from stigmergy.index.build import build_index, check_index, freshness
from stigmergy.index.fragments import split_page
from stigmergy.index.search import Searcher
from stigmergy.index.store import open_index, sqlite_schema
from stigmergy.repo.git import Git
from stigmergy.repo.layout import Layout
from stigmergy.settings import IndexSettings


@pytest.fixture
def repo(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w")
    s1 = b.source("Aurora metrics", "Aurora reached $1.3M ARR in Q1 2026.\nChurn fell to 2%.\n")
    note = "wiki/notes/Aurora revenue.md"
    b.wiki("note", "Aurora revenue", f"- Aurora reached $1.3M ARR. {cite(note, s1, 22)}\n- See [[Acme Corp]].\n",
           entities=("Acme Corp",))
    b.wiki("entity", "Acme Corp", "Acme is a customer of ours.\n", aliases=("Acme",))
    b.commit()
    return b


def _rows(root: Path, sql: str) -> list[tuple]:
    conn = sqlite_schema.connect(Layout(root).index_db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# ------------------------------------------------------------------ fragments


def test_short_page_stays_whole() -> None:
    text = "---\ntitle: T\n---\n# T\n\nShort body.\n"
    frags = split_page(text, text.index("# T"), "T", IndexSettings())
    assert len(frags) == 1
    f = frags[0]
    assert text[f.start_char : f.end_char] == f.text == "# T\n\nShort body."
    assert (f.start_line, f.end_line) == (4, 6)
    assert f.embed_text("T").startswith("T\n")


def test_long_page_splits_by_headings_then_length_with_overlap() -> None:
    params = IndexSettings(fragment_chars=300, overlap_chars=60, min_fragment_chars=50)
    para = " ".join(f"word{i}" for i in range(200))
    body = f"# Big\n\nIntro line that is long enough to stand alone as a section of text here ok.\n\n## Alpha\n\n{para}\n\n## Beta\n\n### Deep\n\nShort but fine and long enough to be kept alone as well, surely.\n"
    text = "---\ntitle: Big\n---\n" + body
    frags = split_page(text, text.index("# Big"), "Big", params)
    assert len(frags) > 4
    for f in frags:
        assert text[f.start_char : f.end_char] == f.text
        assert len(f.text) <= params.fragment_chars
        assert text.count("\n", 0, f.start_char) + 1 == f.start_line
    alpha = [f for f in frags if f.trail == ("Alpha",)]
    assert len(alpha) >= 3
    # consecutive windows overlap
    assert alpha[0].end_char > alpha[1].start_char
    # the heading-only "Beta" section is too short to stand alone: it joins "Deep" under its own trail
    assert frags[-1].trail == ("Beta",) and "### Deep" in frags[-1].text
    assert [f.seq for f in frags] == list(range(1, len(frags) + 1))
    assert "Alpha" in frags[2].embed_text("Big")


# ------------------------------------------------------------------ build


def test_schema_is_migrated_and_commit_recorded(repo: RepoBuilder) -> None:
    report = build_index(repo.root, repo.settings, embedder=HashEmbedder())
    assert report.full and report.pages_total == 3 and report.fragments_embedded == 3
    head = git(repo.root, "rev-parse", "HEAD").strip()
    assert _rows(repo.root, "SELECT value FROM meta WHERE key='commit'") == [(head,)]
    assert _rows(repo.root, "PRAGMA user_version") == [(len(sqlite_schema.MIGRATIONS),)]
    assert {r[0] for r in _rows(repo.root, "SELECT type FROM pages")} == {"source", "note", "entity"}


def test_incremental_touches_only_changed_pages(repo: RepoBuilder) -> None:
    emb = HashEmbedder()
    build_index(repo.root, repo.settings, embedder=emb)
    again = build_index(repo.root, repo.settings, embedder=emb)
    assert not again.full and again.pages_indexed == 0 and emb.texts == 3
    (repo.root / "wiki/entities/Acme Corp.md").write_text(
        (repo.root / "wiki/entities/Acme Corp.md").read_text() + "\nAcme moved to Lisbon.\n")
    repo.commit("edit")
    report = build_index(repo.root, repo.settings, embedder=emb)
    assert (report.pages_indexed, report.fragments_embedded) == (1, 1)
    assert emb.texts == 4


def test_rename_reuses_vectors_and_delete_removes(repo: RepoBuilder) -> None:
    emb = HashEmbedder()
    build_index(repo.root, repo.settings, embedder=emb)
    git(repo.root, "mv", "wiki/notes/Aurora revenue.md", "wiki/notes/Aurora money.md")
    repo.commit("rename")
    report = build_index(repo.root, repo.settings, embedder=emb)
    assert report.fragments_embedded == 0 and report.fragments_reused == 1 and report.pages_removed == 1
    git(repo.root, "rm", "-q", "wiki/entities/Acme Corp.md")
    repo.commit("delete")
    report = build_index(repo.root, repo.settings, embedder=emb)
    assert report.pages_removed == 1 and report.pages_total == 2
    assert _rows(repo.root, "SELECT count(*) FROM fts") == [(report.fragments_total,)]
    # --rebuild starts over but reuses the cached vectors
    report = build_index(repo.root, repo.settings, embedder=emb, rebuild=True)
    assert report.full and report.fragments_embedded == 0 and report.pages_total == 2
    check_index(repo.root, repo.settings)


def test_new_fingerprint_reembeds_everything(repo: RepoBuilder) -> None:
    emb = HashEmbedder()
    build_index(repo.root, repo.settings, embedder=emb)
    settings = replace(repo.settings, index=IndexSettings(fragment_chars=900))
    report = build_index(repo.root, settings, embedder=emb)
    assert report.full and report.fragments_embedded == 3
    assert len({r[0] for r in _rows(repo.root, "SELECT DISTINCT fingerprint FROM vectors")}) == 1


def test_working_tree_edits_are_indexed_and_reported(repo: RepoBuilder) -> None:
    emb = HashEmbedder()
    build_index(repo.root, repo.settings, embedder=emb)
    repo.wiki("note", "Fresh idea", "Quantum gardening is new.\n")
    index = open_index(Layout(repo.root).index_db)
    fresh = freshness(index, Git(repo.root), ("public",))
    index.close()
    assert fresh.stale and fresh.changed == ("wiki/notes/Fresh idea.md",)
    build_index(repo.root, repo.settings, embedder=emb)
    (repo.root / "wiki/notes/Fresh idea.md").unlink()  # never committed, now gone
    report = build_index(repo.root, repo.settings, embedder=emb)
    assert report.pages_removed == 1


def test_search_reports_stale_until_indexed(repo: RepoBuilder) -> None:
    emb = HashEmbedder()
    build_index(repo.root, repo.settings, embedder=emb)
    repo.wiki("note", "Orchard plan", "Plant apples in spring.\n")
    repo.commit("more")
    s = Searcher(repo.root, repo.settings, emb)
    result = s.search("apples orchard", "someone@example.com")
    assert result.index.stale and result.index.changed == ("wiki/notes/Orchard plan.md",)
    assert result.index.commit != result.index.head
    assert not result.hits or result.hits[0].path != "wiki/notes/Orchard plan.md"
    build_index(repo.root, repo.settings, embedder=emb)
    result = s.search("apples orchard", "someone@example.com")
    assert not result.index.stale and result.hits[0].path == "wiki/notes/Orchard plan.md"
    s.close()


def test_check_detects_drift(repo: RepoBuilder) -> None:
    emb = HashEmbedder()
    with pytest.raises(CheckFailedError):
        check_index(repo.root, repo.settings)
    build_index(repo.root, repo.settings, embedder=emb)
    assert check_index(repo.root, repo.settings).pages == 3
    repo.wiki("note", "Drift", "Unindexed.\n")
    with pytest.raises(CheckFailedError) as err:
        check_index(repo.root, repo.settings)
    assert err.value.exit_code == 4
    assert "not indexed: wiki/notes/Drift.md" in err.value.report.problems  # type: ignore[attr-defined]


def test_missing_extension_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sqlite_vec", None)
    with pytest.raises(IndexMissingExtensionError) as err:
        sqlite_schema.connect(tmp_path / "x.sqlite")
    assert "sqlite-vec" in err.value.hint


def test_index_cli_check_exit_code(repo: RepoBuilder, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    emb = HashEmbedder()
    build_index(repo.root, repo.settings, embedder=emb)
    code, out, _ = cli(["index", "--check", "--json"], repo.root)
    assert code == 0, out
    repo.wiki("note", "Drift", "Unindexed.\n")
    code, out, _ = cli(["index", "--check", "--json"], repo.root)
    assert code == 4
    assert '"ok": false' in out


def test_progress_is_reported_and_fingerprint_mismatch_refused(repo: RepoBuilder) -> None:
    from stigmergy.errors import NotFoundError

    seen: list[tuple[int, int]] = []
    build_index(repo.root, repo.settings, embedder=HashEmbedder(), progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)
    other = replace(repo.settings, index=IndexSettings(fragment_chars=700))
    with pytest.raises(NotFoundError) as err:
        Searcher(repo.root, other, HashEmbedder())
    assert "stigmergy index" in (err.value.hint or "")
