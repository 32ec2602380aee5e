"""Sharded folders (issue 27): notes in `wiki/notes/<xx>/`, sources in `sources/YYYY/MM/<c>/`, so that a commit
writes small trees; pages filed flat before sharding stay valid where they are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli
from test_gates_support import TS, capture_id, commit, make_page, make_source, op

from stigmergy.garden.delete import find_source
from stigmergy.gates.engine import evaluate
from stigmergy.gates.lint import lint_repository
from stigmergy.pages.paths import page_relpath, page_relpaths, sanitise_stem
from stigmergy.pages.wiki import WikiPage, new_page_id, render_wiki_page
from stigmergy.pages.wikilinks import folder_listing, stem_listing
from stigmergy.plan.schema import CreatePage, Plan
from stigmergy.repo.git import Git
from stigmergy.repo.layout import (
    classify,
    flat_relpath,
    note_shard,
    page_files,
    source_relpath,
    source_shard,
)
from stigmergy.settings import Settings


def test_paths_are_derived_from_the_name_alone() -> None:
    rel = page_relpath("note", "Quarterly report", "public")
    assert rel == f"wiki/notes/{note_shard('Quarterly report')}/Quarterly report.md"
    assert note_shard("Quarterly Report") == note_shard("quarterly report")  # one folder for a case clash
    folder = page_relpath("note", "Harbor API", "public").rsplit("/", 1)[0]
    for archive in ("Harbor API (2026)", "Harbor API (2026, 2)", "Harbor API (2026, 14)"):  # beside their page
        assert page_relpath("note", archive, "public").rsplit("/", 1)[0] == folder
    assert page_relpath("entity", "Aurora", "public") == "wiki/entities/Aurora.md"  # only notes are sharded
    assert page_relpath("note", "Minutes", "board").startswith("layers/board/wiki/notes/")
    assert page_relpaths("note", "Minutes", "public") == (page_relpath("note", "Minutes", "public"), "wiki/notes/Minutes.md")
    assert page_relpaths("concept", "ARR", "public") == ("wiki/concepts/ARR.md",)
    cid = "cap_01M8YB6WNWGMVCWBAXVFRXN73R"
    assert source_relpath("public", "2026-12-03T10:00:00Z", cid) == f"sources/2026/12/R/{cid}.md"
    assert source_shard("cap_odd-id!") == "_" and source_shard("cap_x1y2z") == "Z"


@pytest.mark.parametrize(("rel", "kind"), [
    ("wiki/notes/ab/Title.md", ("note", "public")),
    ("wiki/notes/Title.md", ("note", "public")),  # flat, filed before sharding
    ("layers/board/wiki/notes/0f/Minutes.md", ("note", "board")),
    ("sources/2026/03/R/cap_X.md", ("source", "public")),
    ("sources/2026/03/cap_X.md", ("source", "public")),
    ("layers/board/sources/2026/03/_/cap_X.md", ("source", "board")),
    ("wiki/notes/AB/Title.md", None),  # not a shard name
    ("wiki/notes/abc/Title.md", None),
    ("wiki/entities/ab/Aurora.md", None),  # only notes have shards
    ("wiki/notes/ab/cd/Title.md", None),
    ("sources/2026/03/r/cap_X.md", None),  # shards are upper case: no clash on a case-insensitive disk
    ("sources/2026/03/R/S/cap_X.md", None),
])
def test_classify_knows_both_depths_and_nothing_else(rel: str, kind: tuple[str, str] | None) -> None:
    assert classify(rel) == kind


def test_flat_relpath_undoes_only_a_note_shard() -> None:
    assert flat_relpath("wiki/notes/ab/T.md") == "wiki/notes/T.md"
    assert flat_relpath("layers/b/wiki/notes/ab/T.md") == "layers/b/wiki/notes/T.md"
    assert flat_relpath("wiki/entities/T.md") == "wiki/entities/T.md"
    assert flat_relpath("wiki/notes/T.md") == "wiki/notes/T.md"


def _flat_note(root: Path, title: str, body: list[str]) -> str:
    """A note written where notes lived before sharding."""
    rel = f"wiki/notes/{sanitise_stem(title)}.md"
    text = "\n".join([f"# {title}", "", *body]) + "\n"
    page = WikiPage(id=new_page_id(TS, rel), type="note", title=title, status="seed", created=TS, updated=TS,
                    layer="public", body=text).with_body(text, rel)
    (root / rel).write_text(render_wiki_page(page), encoding="utf-8")
    return rel


def test_listings_see_shards_and_flat_notes_and_follow_changes(wiki: Path) -> None:
    flat = _flat_note(wiki, "Old note", ["Kept where it was."])
    new = make_page(wiki, "note", "New note", ["Filed sharded."])
    assert new != flat and new.count("/") == 3
    assert sorted(page_files(wiki, "wiki/notes")) == sorted([flat, new])
    assert folder_listing(wiki, "wiki/notes") == sorted([flat, new])
    stems = stem_listing(wiki, ["public"])
    assert stems["old note"] == [flat] and stems["new note"] == [new]
    # A note added to a shard that already exists, and one removed: the kept listing follows both.
    twin = next(f"Twin {i}" for i in range(10_000) if note_shard(f"Twin {i}") == note_shard("New note"))
    third = make_page(wiki, "note", twin, ["Same shard."])
    (wiki / new).unlink()
    os.utime(wiki / Path(third).parent, ns=(0, 0))  # even with its mtime set back, the folder is read again
    assert folder_listing(wiki, "wiki/notes") == sorted([flat, third])
    assert "new note" not in stem_listing(wiki, ["public"])


def test_a_linked_shard_is_not_listed_and_lint_reports_it(wiki: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Planted.md").write_text("---\ntype: note\n---\n# Planted\n")
    (wiki / "wiki/notes/aa").symlink_to(outside, target_is_directory=True)
    assert page_files(wiki, "wiki/notes") == []
    assert folder_listing(wiki, "wiki/notes") == []
    report = lint_repository(wiki, Settings())
    assert any(f.rule == "zone" and f.path == "wiki/notes/aa" for f in report.findings)


def test_a_flat_note_is_valid_and_blocks_a_second_page_of_its_title(wiki: Path) -> None:
    src = make_source(wiki, 1, ["Fact one."])
    flat = _flat_note(wiki, "Old note", ["Kept where it was."])
    commit(wiki, [src[0], flat])
    assert src[0] == source_relpath("public", TS, capture_id(1)) and src[0].count("/") == 4
    report = lint_repository(wiki, Settings())
    assert not [f for f in report.findings if f.rule in ("contract", "zone")], report.findings
    # A plan that creates the same title again (at its sharded path) is refused: the page exists.
    plan = Plan((CreatePage("note", "Old note", "# Old note\n\nAgain.\n"),))
    verdict = evaluate(plan, wiki, Settings(), op(source_path=src[0]))
    assert any(v.rule == "contract" and v.path == flat for v in verdict.violations), verdict.violations


def test_capture_files_sharded_and_old_flat_sources_still_resolve(tmp_path: Path) -> None:
    repo = tmp_path / "kb"
    assert run_cli(["init", str(repo)], tmp_path)[0] == 0
    # A source page filed before sharding, committed as a person would have it.
    rel = "sources/2026/03/cap_01JQ0000000000000000000000.md"
    legacy = make_source(repo, 7, ["Harbor API 1.0 shipped on 2026-03-02."])
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    os.replace(repo / legacy[0], repo / f"sources/2026/03/{capture_id(7)}.md")
    commit(repo, [f"sources/2026/03/{capture_id(7)}.md"])
    doc = tmp_path / "minutes.md"
    doc.write_text("# Board minutes\n\nAurora Systems signed the renewal on 2026-03-04.\n")
    code, out, err = run_cli(["capture", str(doc)], repo)
    assert code == 0, err
    tree = Git(repo).run("ls-tree", "-r", "--name-only", "HEAD").split("\n")
    notes = [p for p in tree if p.startswith("wiki/notes/") and p.endswith(".md")]
    sources = [p for p in tree if p.startswith("sources/") and p.endswith(".md")]
    assert notes and all(p.count("/") == 3 and classify(p) == ("note", "public") for p in notes)
    assert len(sources) == 2 and {p.count("/") for p in sources} == {3, 4}
    # Every folder a commit rewrites stays small: the notes folder holds shards, not pages.
    top = Git(repo).run("ls-tree", "--name-only", "HEAD", "wiki/notes/").split()
    assert all(n.rsplit("/", 1)[-1] == ".gitkeep" or len(n.rsplit("/", 1)[-1]) == 2 for n in top)
    report = lint_repository(repo, Settings())
    assert {f.rule for f in report.findings} <= {"orphan"}, report.findings  # one note links nowhere yet
    old = f"sources/2026/03/{capture_id(7)}.md"
    assert find_source(repo, Settings(), capture_id(7)) == old
    assert find_source(repo, Settings(), capture_id(7)[:12]) == old  # a unique prefix, as `delete` takes it
    new = next(p for p in sources if p != old)
    assert find_source(repo, Settings(), new.rsplit("/", 1)[-1][:-3]) == new


def test_an_llm_plan_s_citations_are_re_anchored_to_the_page_it_writes(wiki: Path) -> None:
    from stigmergy.pages.citations import parse_line
    from stigmergy.plan.anchors import reanchor
    from stigmergy.plan.schema import UpdatePage
    from stigmergy.repo.layout import find_source_relpath

    src, page = make_source(wiki, 3, ["Aurora signed on 2026-03-04."])
    line = page.line_of(0)
    cid = capture_id(3)
    # What a model writes for a page one folder below `wiki/` (it cannot know the note's shard).
    written = f"- Aurora signed on 2026-03-04. ([source](../../{src}#L{line}))"
    stray = "- Elsewhere. ([source](../../sources/2026/03/R/cap_NOSUCHCAPTURE.md#L1))"
    plan = Plan((CreatePage("note", "Signing", f"# Signing\n\n{written}\n{stray}\n"),
                 UpdatePage("wiki/entities/Aurora.md", f"# Aurora\n\n{written}\n")))
    fixed, moved = reanchor(plan, lambda c: find_source_relpath(wiki, ["public"], c))
    assert moved == 1  # the entity page's link was already right
    note = page_relpath("note", "Signing", "public")
    lines = fixed.mutations[0].body.split("\n")
    (c,) = parse_line(lines[2], note)
    assert (c.path, c.capture_id, c.start) == (src, cid, line)
    assert lines[3] == stray  # no such source: left for the gates to refuse
    assert fixed.mutations[1] == plan.mutations[1]
    assert reanchor(fixed, lambda c: find_source_relpath(wiki, ["public"], c)) == (fixed, 0)
    assert find_source_relpath(wiki, ["public"], "cap_*") is None and find_source_relpath(wiki, ["public"], "../x") is None


def _flat_note_with_block(wiki: Path) -> tuple[str, list[str], str]:
    """A flat note (filed before sharding) with two cited lines and a contradiction block, committed."""
    from test_garden_sweep import _block
    from test_gates_support import cited

    s1 = make_source(wiki, 1, ["Aurora reached $1.3M ARR in Q1 2026.", "Aurora hired Maya."])
    s2 = make_source(wiki, 2, ["Aurora reached $1.5M ARR in Q1 2026."])
    rel = "wiki/notes/Aurora call.md"
    lines = [f"- Aurora reached $1.3M ARR in Q1 2026. {cited(rel, s1, 0)}", f"- Aurora hired Maya. {cited(rel, s1, 1)}"]
    block = _block(rel, [s1, s2], ["Aurora reached $1.3M ARR in Q1 2026.", "Aurora reached $1.5M ARR in Q1 2026."])
    text = "\n".join(["# Aurora call", "", *lines, "", block]) + "\n"
    page = WikiPage(id=new_page_id(TS, rel), type="note", title="Aurora call", status="seed", created=TS, updated=TS,
                    layer="public", body=text).with_body(text, rel)
    (wiki / rel).write_text(render_wiki_page(page), encoding="utf-8")
    commit(wiki, [s1[0], s2[0], rel])
    return rel, lines, block


def _citations(rel: str, text: str) -> list[tuple[str, int, int]]:
    from stigmergy.pages.citations import parse_line

    return [(c.path, c.start, c.end) for line in text.split("\n") if "([source](" in line and not line.startswith(">")
            for c in parse_line(line, rel)]


def test_renaming_a_flat_note_keeps_it_flat_with_its_lines_as_they_were(wiki: Path) -> None:
    from conftest import git

    rel, lines, block = _flat_note_with_block(wiki)
    code, out, err = run_cli(["rename", "Aurora call", "Aurora board call"], wiki)
    assert code == 0, out + err
    new = "wiki/notes/Aurora board call.md"  # a page never changes folder depth in place
    assert not (wiki / rel).exists() and new in page_relpaths("note", "Aurora board call", "public")
    after = (wiki / new).read_text(encoding="utf-8")
    assert all(line in after for line in [*lines, *block.split("\n")])
    assert "rename wiki/notes/{Aurora call.md => Aurora board call.md}" in git(wiki, "log", "-1", "-M", "--format=", "--summary")
    assert {f.rule for f in lint_repository(wiki, Settings()).findings} <= {"orphan"}


def test_a_merge_across_depths_that_changes_a_cited_line_or_a_block_is_still_refused(wiki: Path) -> None:
    from test_gates_support import cited

    from stigmergy.garden.identity import plan_merge
    from stigmergy.gates.engine import judge
    from stigmergy.settings import load_settings

    _flat_note_with_block(wiki)
    s3 = make_source(wiki, 3, ["Aurora opened a Lisbon office."])
    into = page_relpath("note", "Aurora notes", "public")
    make_page(wiki, "note", "Aurora notes", [f"- Aurora opened a Lisbon office. {cited(into, s3, 0)}"])
    commit(wiki, [s3[0], into])
    settings = load_settings(wiki, env={})
    proposal = plan_merge(wiki, settings, "Aurora call", "Aurora notes", reader="t@example.com", op_id="op_x",
                          timestamp=TS)
    assert judge(proposal.changes, wiki, settings, proposal.op).ok
    text = proposal.changes[into]
    assert text is not None and "](../../../sources/" in text and "](../../sources/" not in text
    # The second cited line now cites line 1 of its source, not its own line: not a move, a change.
    hired = next(ln for ln in text.split("\n") if ln.startswith("- Aurora hired Maya."))
    wrong = hired.rsplit("#L", 1)[0] + "#L1))"
    verdict = judge({**proposal.changes, into: text.replace(hired, wrong)}, wiki, settings, proposal.op)
    assert not verdict.ok and "cited-line-lost" in {v.rule for v in verdict.violations}
    # The block's explanation edited on the way: the block was altered, not moved.
    altered = text.replace("The sources disagree.", "The sources agree.")
    assert altered != text
    verdict = judge({**proposal.changes, into: altered}, wiki, settings, proposal.op)
    assert not verdict.ok and "contradiction-altered" in {v.rule for v in verdict.violations}


def test_merging_a_flat_note_into_a_sharded_one_keeps_every_line(wiki: Path) -> None:
    from test_gates_support import cited

    rel, lines, _ = _flat_note_with_block(wiki)
    s3 = make_source(wiki, 3, ["Aurora opened a Lisbon office."])
    other = page_relpath("note", "Aurora notes", "public")
    make_page(wiki, "note", "Aurora notes", [f"- Aurora opened a Lisbon office. {cited(other, s3, 0)}"])
    commit(wiki, [s3[0], other])
    before = (wiki / rel).read_text(encoding="utf-8")
    code, out, err = run_cli(["merge", "Aurora call", "INTO", "Aurora notes"], wiki)
    assert code == 0, out + err
    after = (wiki / other).read_text(encoding="utf-8")
    assert set(_citations(rel, before)) <= set(_citations(other, after))
    assert {f.rule for f in lint_repository(wiki, Settings()).findings} <= {"orphan"}


CUSTOMERS = Path(__file__).resolve().parent.parent / "sample_corpus" / "customers"


def _unshard(root: Path) -> dict[str, str]:
    """Every note moved back to the flat path an older stigmergy filed it at, its citations written for it,
    in one commit of stigmergy's: {flat path: sharded path}."""

    from stigmergy.pages.rebase import rebase_body
    from stigmergy.pages.wiki import parse_wiki_page

    moved = {}
    for rel in page_files(root, "wiki/notes"):
        if rel.count("/") != 3:
            continue
        flat = flat_relpath(rel)
        page = parse_wiki_page((root / rel).read_text(encoding="utf-8"), rel)
        (root / flat).write_text(render_wiki_page(page.with_body(rebase_body(page.body, rel, flat), flat)), encoding="utf-8")
        (root / rel).unlink()
        moved[flat] = rel
    commit(root, [*moved, *moved.values()])
    return moved


def test_recompile_keeps_flat_notes_flat_with_their_ids_and_people_s_lines(wiki: Path) -> None:
    from conftest import git

    assert run_cli(["capture", str(CUSTOMERS)], wiki)[0] == 0
    moved = _unshard(wiki)
    assert moved and {f.rule for f in lint_repository(wiki, Settings()).findings} <= {"orphan"}
    flat = sorted(moved)[0]
    text = (wiki / flat).read_text(encoding="utf-8")
    page_id = text.split("id: ", 1)[1].split("\n", 1)[0]
    (wiki / flat).write_text(text + "\nMy note: call them back in October.\n", encoding="utf-8")
    git(wiki, "commit", "-qam", "a person's note")
    for _ in range(2):  # the second run finds people's line still theirs
        code, out, err = run_cli(["--json", "recompile"], wiki)
        assert code == 0, out + err
        assert sorted(p for p in page_files(wiki, "wiki/notes") if p.count("/") == 2) == sorted(moved)
        after = (wiki / flat).read_text(encoding="utf-8")
        assert f"id: {page_id}\n" in after and "My note: call them back in October." in after
        assert "](../../sources/" in after
    assert {f.rule for f in lint_repository(wiki, Settings()).findings} <= {"orphan", "uncited-line"}
