"""Each gate with a hostile twin (refused, with its rule id) and a benign twin (passes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_gates_support import capture_id, cited, commit, make_page, make_source, op, snapshot

from stigmergy.gates.authorship import Authorship
from stigmergy.gates.engine import evaluate
from stigmergy.pages.contradictions import parse_blocks
from stigmergy.pages.wiki import parse_wiki_page
from stigmergy.plan.schema import (
    AliasProposal,
    Claim,
    ContradictionProposal,
    CreatePage,
    DeletePage,
    Plan,
    ResolutionProposal,
    UpdatePage,
)
from stigmergy.settings import Settings, settings_from_mapping

SETTINGS = Settings()
A_LINES = [
    "Aurora Systems reached $1.3M ARR in Q1 2026.",
    "The team grew to 42 people by March 2026.",
    "Aurora is headquartered in Lisbon.",
]
B_LINES = ["Aurora Systems reported ARR of $1.5M for Q1 2026.", "Aurora Systems was founded in 2019."]
ENTITY = "wiki/entities/Aurora Systems.md"
NOTE = "wiki/notes/Q1 review.md"


@pytest.fixture
def repo(wiki: Path) -> dict:
    a = make_source(wiki, 1, A_LINES)
    b = make_source(wiki, 2, B_LINES)
    entity_lines = [
        f"- Aurora Systems reached $1.3M ARR in Q1 2026. {cited(ENTITY, a, 0)}",
        f"- The team grew to 42 people by March 2026. {cited(ENTITY, a, 1)}",
        f"- Aurora Systems was founded in 2019. {cited(ENTITY, b, 1)}",
    ]
    make_page(wiki, "entity", "Aurora Systems", entity_lines, aliases=("Aurora",))
    note_lines = [f"- [[Aurora Systems]] reported ARR of $1.5M for Q1 2026. {cited(NOTE, b, 0)}"]
    make_page(wiki, "note", "Q1 review", note_lines, entities=("Aurora Systems",))
    commit(wiki, [a[0], b[0], ENTITY, NOTE])
    return {"root": wiki, "a": a, "b": b, "entity_lines": entity_lines, "note_lines": note_lines}


def body(title: str, lines: list[str]) -> str:
    return "\n".join([f"# {title}", "", *lines]) + "\n"


def rules(verdict) -> set[str]:
    return {v.rule for v in verdict.violations}


def run(repo: dict, plan: Plan, kind: str = "capture", **kw):
    before = snapshot(repo["root"])
    verdict = evaluate(plan, repo["root"], SETTINGS, op(kind, **kw))
    assert snapshot(repo["root"]) == before, "evaluate must never write"
    return verdict


# -- create ---------------------------------------------------------------------------------------


def test_create_renders_front_matter_and_derived_path(repo):
    line = f"- Aurora is headquartered in Lisbon. {cited('wiki/notes/Lisbon office.md', repo['a'], 2)}"
    plan = Plan((CreatePage("note", "Lisbon office", body("Lisbon office", [line]), entities=("Aurora",)),))
    verdict = run(repo, plan)
    assert verdict.ok, verdict.violations
    text = verdict.changes["wiki/notes/Lisbon office.md"]
    page = parse_wiki_page(text, "wiki/notes/Lisbon office.md")
    assert page.id.startswith("pg_") and page.created == page.updated == "2026-03-11T09:00:00Z"
    assert page.sources == (capture_id(1),)
    # Reproducible: the same plan and operation give the same bytes.
    assert run(repo, plan).changes == verdict.changes


def test_create_over_existing_page_is_refused(repo):
    plan = Plan((CreatePage("note", "Q1 review", body("Q1 review", repo["note_lines"])),))
    assert "contract" in rules(run(repo, plan))


def test_placeholder_and_missing_h1_are_refused(repo):
    for text in ("# Stub\n\nTODO\n", "# Stub\n", "# Stub\n\n- lorem ipsum\n", "Stub without heading\n"):
        assert "contract" in rules(run(repo, Plan((CreatePage("note", "Stub", text),))))


# -- cited-line-lost --------------------------------------------------------------------------------


def test_moving_a_cited_line_passes(repo):
    lines = list(reversed(repo["entity_lines"])) + ["", "## More", "- Aurora is a company."]
    verdict = run(repo, Plan((UpdatePage(ENTITY, body("Aurora Systems", lines)),)))
    assert verdict.ok, verdict.violations


def test_editing_a_cited_line_is_refused(repo):
    lines = list(repo["entity_lines"])
    lines[0] = lines[0].replace("reached", "hit")
    verdict = run(repo, Plan((UpdatePage(ENTITY, body("Aurora Systems", lines)),)))
    assert "cited-line-lost" in rules(verdict)
    assert any("reached" in ln for v in verdict.violations for ln in v.lines)


def test_correction_beside_a_cited_line_passes_and_is_recorded(repo):
    fix = f"- Correction: ARR in Q1 2026 was $1.5M. {cited(ENTITY, repo['b'], 0)}"
    lines = [repo["entity_lines"][0], fix, *repo["entity_lines"][1:]]
    verdict = run(repo, Plan((UpdatePage(ENTITY, body("Aurora Systems", lines)),)))
    assert verdict.ok, verdict.violations
    assert any(r.startswith("correction on") for r in verdict.records)


def test_delete_page_in_a_capture_is_refused_but_a_delete_operation_retires(repo):
    plan = Plan((DeletePage(NOTE, "obsolete"),))
    assert {"cited-line-lost", "attribution-lost"} <= rules(run(repo, plan))
    verdict = run(repo, plan, kind="delete")
    assert verdict.ok, verdict.violations
    assert verdict.changes[NOTE] is None
    assert any(r.startswith("retired cited line (delete)") for r in verdict.records)


# -- attribution-lost -------------------------------------------------------------------------------


def test_dropping_a_source_is_refused_even_when_lines_survive_uncited(repo):
    # The line survives as text but loses its citation: both the line and the attribution are lost.
    lines = [repo["note_lines"][0].split(" ([source]")[0]]
    verdict = run(repo, Plan((UpdatePage(NOTE, body("Q1 review", lines)),)))
    assert {"attribution-lost", "cited-line-lost"} <= rules(verdict)


def test_adding_a_source_passes_and_sources_are_recomputed(repo):
    extra = f"- Aurora is headquartered in Lisbon. {cited(NOTE, repo['a'], 2)}"
    verdict = run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], extra])),)))
    assert verdict.ok, verdict.violations
    assert parse_wiki_page(verdict.changes[NOTE], NOTE).sources == tuple(sorted([capture_id(1), capture_id(2)]))


# -- source-immutable and zone --------------------------------------------------------------------


def test_plans_cannot_touch_sources(repo):
    src = repo["a"][0]
    assert "source-immutable" in rules(run(repo, Plan((UpdatePage(src, "# Source 1\n\nrewritten\n"),))))
    assert "source-immutable" in rules(run(repo, Plan((DeletePage(src, "gone"),))))
    verdict = run(repo, Plan((DeletePage(src, "erase"),)), kind="delete")
    assert verdict.ok and verdict.changes[src] is None


@pytest.mark.parametrize(
    "path",
    ["../outside.md", "wiki/notes/../../etc.md", "/etc/passwd", ".git/config", "wiki\\notes\\x.md", "stigmergy.toml",
     "wiki/notes/a\x00.md", "wiki/other/x.md", "layers/unknown/wiki/notes/x.md"],
)
def test_hostile_paths_are_refused_by_zone(repo, path):
    verdict = run(repo, Plan((UpdatePage(path, "# X\n\n- hello\n"),)))
    assert "zone" in rules(verdict)
    assert not verdict.changes


def test_symlinked_folder_is_refused(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Evil.md").write_text((repo["root"] / NOTE).read_text())
    os.symlink(outside, repo["root"] / "wiki" / "concepts" / "linked")
    os.rename(repo["root"] / "wiki" / "concepts", repo["root"] / "wiki" / "concepts-real")
    os.symlink(outside, repo["root"] / "wiki" / "concepts")
    line = f"- Aurora is headquartered in Lisbon. {cited('wiki/concepts/Evil.md', repo['a'], 2)}"
    verdict = run(repo, Plan((CreatePage("concept", "Evil2", body("Evil2", [line])),)))
    assert "zone" in rules(verdict)
    assert not (outside / "Evil2.md").exists()


# -- contract: citations and figures -------------------------------------------------------------


def test_citation_beyond_the_file_or_to_a_non_source_is_refused(repo):
    rel, page = repo["a"]
    from stigmergy.pages.citations import cite

    beyond = f"- Aurora is headquartered in Lisbon. {cite(NOTE, rel, 200, 201)}"
    assert "contract" in rules(run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], beyond])),))))
    wrong = f"- Aurora is headquartered in Lisbon. {cite(NOTE, ENTITY, 8, 8)}"
    assert "contract" in rules(run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], wrong])),))))
    loose = "- Aurora is headquartered in Lisbon. ([source](nowhere.md#L1)) trailing"
    assert "contract" in rules(run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], loose])),))))


def test_figures_must_appear_in_the_cited_lines(repo):
    bad = f"- Aurora reached $2.1M ARR in Q1 2026. {cited(NOTE, repo['a'], 0)}"
    verdict = run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], bad])),)))
    assert "contract" in rules(verdict)
    assert any("2.1M" in ln for v in verdict.violations for ln in v.lines)
    good = f"- Aurora reached 1.3 million dollars ARR (Q1 2026). {cited(NOTE, repo['a'], 0)}"
    assert run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], good])),))).ok


def test_figures_read_alike_with_or_without_the_quick_tests_and_odd_month_letters_are_no_crash() -> None:
    """The quick tests that skip patterns (no month name, no hyphen, no digit) never change what is read:
    each line read again with every pattern run must give the same figures. A month matched through a
    letter that only folds to ASCII (ſ, ı) was a KeyError at the gate; it is read like its ASCII twin."""
    from stigmergy.gates import figures as f

    lines = ["ARR was $1.3M on March 3, 2026 (2026-03-03), up 12% from 1,150 in Q4 2025", "no figure here",
             "sprint review at 751 units", "3rd of sept. 2026, dec 2026, Jan 5 and 2026-07", "FY2026 H2 v1.2.3",
             "met on ſeptember 3, 2026", "aprıl 4, 2026 and aprİl 5, 2026", "- [10:15] Ann Lee: roadmap at 12 units"]
    for line in lines:
        for side in (True, False):
            quick = f._extract_cached.__wrapped__(line, side)
            full = f._extract_cached.__wrapped__(line + " jan -", side)  # a month prefix and a hyphen: no skip
            assert quick == full[: len(quick)], line
    assert f.figures("met on ſeptember 3, 2026") == [("ſeptember 3, 2026", frozenset({"d:2026-09-03"}))]
    assert f.missing_figures("- met ſeptember 3, 2026", "met on September 3, 2026") == []


def test_title_and_h1_are_stable(repo):
    lines = repo["note_lines"]
    assert "contract" in rules(run(repo, Plan((UpdatePage(NOTE, body("Renamed", lines)),))))


def test_dead_wikilinks_become_plain_text(repo):
    line = f"- [[Nobody Inc|Nobody]] is in Lisbon, like [[Aurora]]. {cited(NOTE, repo['a'], 2)}"
    verdict = run(repo, Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], line])),)))
    assert verdict.ok, verdict.violations
    assert "- Nobody is in Lisbon, like [[Aurora]]." in verdict.changes[NOTE]


# -- aliases --------------------------------------------------------------------------------------


def test_alias_added_and_alias_owned_by_another_entity_refused(repo):
    verdict = run(repo, Plan(aliases=(AliasProposal(ENTITY, "Aurora Sys"),)))
    assert verdict.ok, verdict.violations
    assert "- Aurora Sys" in verdict.changes[ENTITY]
    other_line = f"- Aurora is headquartered in Lisbon. {cited('wiki/entities/Borealis.md', repo['a'], 2)}"
    plan = Plan(
        (CreatePage("entity", "Borealis", body("Borealis", [other_line]), entity_type="organisation"),),
        aliases=(AliasProposal("wiki/entities/Borealis.md", "aurora"),),
    )
    assert "contract" in rules(run(repo, plan))


# -- contradictions -------------------------------------------------------------------------------


def _contradiction(repo) -> ContradictionProposal:
    return ContradictionProposal(
        page=ENTITY, subject="Q1 2026 ARR", explanation="Two sources give different ARR for Q1 2026.",
        claims=(
            Claim("ARR was $1.3M in Q1 2026", "2026-03-01", capture_id(1), repo["a"][1].line_of(0), repo["a"][1].line_of(0)),
            Claim("ARR was $1.5M in Q1 2026", "2026-03-01", capture_id(2), repo["b"][1].line_of(0), repo["b"][1].line_of(0)),
        ),
    )


def _with_block(repo) -> str:
    verdict = run(repo, Plan(contradictions=(_contradiction(repo),)))
    assert verdict.ok, verdict.violations
    (repo["root"] / ENTITY).write_text(verdict.changes[ENTITY])
    commit(repo["root"], [ENTITY])
    return verdict.changes[ENTITY]


def test_contradiction_is_appended_as_a_canonical_block(repo):
    text = _with_block(repo)
    (block,) = parse_blocks(text, ENTITY)
    assert block.record.status == "open" and len(block.record.claims) == 2
    # Re-rendering identically (an update that keeps the block) passes.
    page = parse_wiki_page(text, ENTITY)
    assert run(repo, Plan((UpdatePage(ENTITY, page.body),))).ok


def test_contradiction_claim_figures_are_checked(repo):
    c = _contradiction(repo)
    bad = ContradictionProposal(c.page, c.subject, c.explanation, (c.claims[0], Claim("ARR was $9M", "2026-03-01", capture_id(2), 9, 9)))
    assert "contract" in rules(run(repo, Plan(contradictions=(bad,))))


def test_altered_or_dropped_block_is_refused(repo):
    text = _with_block(repo)
    page = parse_wiki_page(text, ENTITY)
    altered = page.body.replace("(open)", "(resolved)")
    assert "contradiction-altered" in rules(run(repo, Plan((UpdatePage(ENTITY, altered),))))
    dropped = page.body.split("<!-- stigmergy:contradiction")[0]
    assert "contradiction-altered" in rules(run(repo, Plan((UpdatePage(ENTITY, dropped),))))


def test_resolution_needs_the_named_capture(repo):
    text = _with_block(repo)
    (block,) = parse_blocks(text, ENTITY)
    cid = block.record.id
    res = ResolutionProposal(cid, "The board pack supersedes the draft.", ENTITY, capture_id(99))
    assert "contradiction-altered" in rules(run(repo, Plan(resolutions=(res,))))
    c = make_source(repo["root"], 99, ["The board pack confirms ARR of $1.5M."])
    verdict = run(repo, Plan(resolutions=(res,)), resolves=cid, source_path=c[0])
    assert verdict.ok, verdict.violations
    (after,) = parse_blocks(verdict.changes[ENTITY], ENTITY)
    assert after.record.status == "resolved" and after.record.resolution.source == capture_id(99)
    assert any(r.startswith(f"contradiction {cid} resolved") for r in verdict.records)
    # The resolution may retire the losing claim's line; that is recorded.
    losing = parse_wiki_page(text, ENTITY).body.replace(repo["entity_lines"][0] + "\n", "")
    plan = Plan((UpdatePage(ENTITY, losing),), resolutions=(res,))
    verdict = run(repo, plan, resolves=cid, source_path=c[0])
    assert verdict.ok, verdict.violations
    assert any("retired cited line (resolution" in r for r in verdict.records)


# -- layer-flow -----------------------------------------------------------------------------------

LAYERED = settings_from_mapping({"layers": {"board": {"readers": ["ceo@example.com"]}}})


def test_public_page_may_not_cite_or_copy_a_restricted_source(repo):
    secret = make_source(repo["root"], 7, ["The board approved a confidential acquisition of Borealis for 4 million."], layer="board")
    commit(repo["root"], [secret[0]])
    leak = f"- The board approved an acquisition for 4 million. {cited(NOTE, secret, 0)}"
    plan = Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], leak])),))
    verdict = evaluate(plan, repo["root"], LAYERED, op())
    assert "layer-flow" in {v.rule for v in verdict.violations}
    copy = f"- The board approved a confidential acquisition of Borealis for 4 million. {cited(NOTE, repo['a'], 0)}"
    plan = Plan((UpdatePage(NOTE, body("Q1 review", [*repo["note_lines"], copy])),))
    assert "layer-flow" in {v.rule for v in evaluate(plan, repo["root"], LAYERED, op()).violations}
    # The benign twin: a board page may cite both its own layer and the public layer.
    rel = "layers/board/wiki/notes/Deal.md"
    ok_lines = [f"- The board approved an acquisition for 4 million. {cited(rel, secret, 0)}",
                f"- Aurora is headquartered in Lisbon. {cited(rel, repo['a'], 2)}"]
    plan = Plan((CreatePage("note", "Deal", body("Deal", ok_lines), layer="board"),))
    verdict = evaluate(plan, repo["root"], LAYERED, op())
    assert verdict.ok, verdict.violations


# -- human-line -----------------------------------------------------------------------------------


def test_a_line_written_by_a_person_is_kept(repo):
    root = repo["root"]
    text = (root / NOTE).read_text().replace("\n\n- [[Aurora", "\n\nWritten by hand, keep me.\n- [[Aurora")
    (root / NOTE).write_text(text)
    commit(root, [NOTE], ours=False)
    auth = Authorship(root)
    assert len(auth.human_lines(NOTE)) == 1
    plan = Plan((UpdatePage(NOTE, body("Q1 review", repo["note_lines"])),))
    assert "human-line" in {v.rule for v in evaluate(plan, root, SETTINGS, op()).violations}
    keep = Plan((UpdatePage(NOTE, body("Q1 review", ["Written by hand, keep me.", *repo["note_lines"], "- More [[Aurora]]."])),))
    verdict = evaluate(keep, root, SETTINGS, op())
    assert verdict.ok, verdict.violations


def test_an_uncommitted_edit_is_a_human_line(repo):
    root = repo["root"]
    (root / NOTE).write_text((root / NOTE).read_text() + "Scribbled, not committed.\n")
    auth = Authorship(root)
    assert auth.human_lines(NOTE) and auth.blame_runs == 1
    plan = Plan((UpdatePage(NOTE, body("Q1 review", repo["note_lines"])),))
    assert "human-line" in {v.rule for v in evaluate(plan, root, SETTINGS, op(), auth).violations}


def test_stigmergy_only_history_skips_blame(repo):
    auth = Authorship(repo["root"])
    auth.prefetch([NOTE, ENTITY])
    assert auth.human_lines(NOTE) == frozenset() and auth.human_lines(ENTITY) == frozenset()
    assert auth.blame_runs == 0 and auth.fast_hits == 2
