"""The reference sweep (garden/sweep.py) and the gates' verification of what a delete retires."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from stigmergy.garden.sweep import sweep_references
from stigmergy.gates.engine import judge
from stigmergy.pages.contradictions import ClaimRecord, make_contradiction, new_contradiction_id, render_block
from stigmergy.pages.wiki import parse_wiki_page
from stigmergy.settings import load_settings
from tests.test_gates_support import TS, cited, commit, make_page, make_source, op

ENTITY = "wiki/entities/Aurora Systems.md"
NOTE = "wiki/notes/Q1 review.md"
INDEXNOTE = "wiki/notes/Reading list.md"
TS2 = "2026-03-12T10:00:00Z"


def _block(page_rel: str, srcs: list[tuple[str, object]], texts: list[str]) -> str:
    claims = [
        ClaimRecord(text, "2026-03-01", src[1].id, src[0], src[1].line_of(0), src[1].line_of(0))
        for src, text in zip(srcs, texts, strict=True)
    ]
    record = make_contradiction(new_contradiction_id(TS, page_rel), "Aurora ARR", "The sources disagree.", claims)
    return render_block(record, page_rel).rstrip("\n")


@pytest.fixture
def repo(wiki: Path) -> dict:
    a = make_source(wiki, 1, ["Aurora Systems reached $1.3M ARR in Q1 2026.", "Aurora is also known as Aurora Sys."])
    b = make_source(wiki, 2, ["Aurora Systems reached $1.5M ARR in Q1 2026.", "Aurora hired Maya."])
    c = make_source(wiki, 3, ["Aurora Systems reached $1.4M ARR in Q1 2026."])
    entity_lines = [
        "## 2026-03-01",
        "",
        f"- Aurora Systems reached $1.3M ARR in Q1 2026. {cited(ENTITY, a, 0)}",
        "",
        "## 2026-03-02",
        "",
        f"- Aurora hired Maya. {cited(ENTITY, b, 1)}",
        f"- See [[Q1 review]]. {cited(ENTITY, b, 1)}",
        "",
        _block(ENTITY, [a, b, c], ["Aurora reached $1.3M ARR.", "Aurora reached $1.5M ARR.", "Aurora reached $1.4M ARR."]),
    ]
    make_page(wiki, "entity", "Aurora Systems", entity_lines, aliases=("Aurora Sys",))
    make_page(wiki, "note", "Q1 review", [f"- Aurora Systems reached $1.3M ARR in Q1 2026. {cited(NOTE, a, 0)}"],
              entities=("Aurora Systems",))
    make_page(wiki, "note", "Reading list", [f"- Start with [[Q1 review]], then [[Aurora Systems]]. {cited(INDEXNOTE, b, 1)}"])
    commit(wiki, ["sources", "wiki"])
    return {"root": wiki, "a": a, "b": b, "c": c, "settings": load_settings(wiki, env={})}


def test_deleting_a_source_sweeps_lines_claims_aliases_and_cascades(repo):
    root, a = repo["root"], repo["a"]
    result = sweep_references(root, repo["settings"], [a[0]], timestamp=TS2)
    assert result.ok
    assert result.changes[a[0]] is None
    assert result.changes[NOTE] is None and result.cascaded == (NOTE,)  # only its heading was left
    entity = parse_wiki_page(result.changes[ENTITY], ENTITY)
    assert "$1.3M" not in entity.body.split("<!--")[0]  # the line citing the source went
    assert "## 2026-03-01" not in entity.body  # and its emptied section
    assert "Aurora hired Maya." in entity.body
    assert "See Q1 review." in entity.body  # the link to the cascaded page became plain text
    assert entity.aliases == ()  # only the removed source attested "Aurora Sys"
    assert a[1].id not in entity.sources and entity.updated == TS2
    assert entity.body.count("> - 2026-03-01:") == 2  # the block kept the two claims on kept sources
    reading = parse_wiki_page(result.changes[INDEXNOTE], INDEXNOTE)
    assert "Start with Q1 review, then [[Aurora Systems]]." in reading.body
    verdict = judge(result.changes, root, repo["settings"], replace(op("delete"), targets=(a[0],)), result.records)
    assert verdict.ok, verdict.violations


def test_aliases_of_entities_that_did_not_cite_the_source_are_kept(repo):
    root, a = repo["root"], repo["a"]
    other = make_page(root, "entity", "Aurora Sys Holdings", [f"- Aurora hired Maya. {cited('wiki/entities/Aurora Sys Holdings.md', repo['b'], 1)}"],
                      aliases=("Aurora Sys",))
    commit(root, [other])
    result = sweep_references(root, repo["settings"], [a[0]], timestamp=TS2)
    assert other not in result.changes  # it never cited the removed source: its alias rests elsewhere
    changes = {**result.changes, other: (root / other).read_text(encoding="utf-8").replace("- Aurora Sys\n", "")}
    verdict = judge(changes, root, repo["settings"], replace(op("delete"), targets=(a[0],)), result.records)
    assert "contract" in {v.rule for v in verdict.violations}  # and the gates refuse dropping it


def test_a_block_left_with_one_claim_goes(repo):
    root = repo["root"]
    result = sweep_references(root, repo["settings"], [repo["a"][0], repo["c"][0]], timestamp=TS2)
    entity = result.changes[ENTITY]
    assert "stigmergy:contradiction" not in entity
    verdict = judge(result.changes, root, repo["settings"],
                    replace(op("delete"), targets=(repo["a"][0], repo["c"][0])), result.records)
    assert verdict.ok, verdict.violations


def test_deleting_a_page_unlinks_it_and_drops_it_from_entities(repo):
    root = repo["root"]
    result = sweep_references(root, repo["settings"], [ENTITY], timestamp=TS2)
    assert result.changes[ENTITY] is None
    note = parse_wiki_page(result.changes[NOTE], NOTE)
    assert note.entities == ()
    assert "then Aurora Systems." in result.changes[INDEXNOTE]
    verdict = judge(result.changes, root, repo["settings"], replace(op("delete"), targets=(ENTITY,)), result.records)
    assert verdict.ok, verdict.violations


def test_the_gates_refuse_a_delete_that_drops_more_than_what_rests_on_the_source(repo):
    root, a = repo["root"], repo["a"]
    result = sweep_references(root, repo["settings"], [a[0]], timestamp=TS2)
    changes = dict(result.changes)
    # Also drop a line citing a kept source: the gates must see it.
    changes[ENTITY] = changes[ENTITY].replace("- Aurora hired Maya.", "- Aurora hired nobody.")
    verdict = judge(changes, root, repo["settings"], replace(op("delete"), targets=(a[0],)), result.records)
    assert "cited-line-lost" in {v.rule for v in verdict.violations}
    # Removing a source the operation was not asked to remove is refused too.
    changes = {**result.changes, repo["b"][0]: None}
    verdict = judge(changes, root, repo["settings"], replace(op("delete"), targets=(a[0],)), result.records)
    assert "source-immutable" in {v.rule for v in verdict.violations}
    # And a garden may not drop a page at all.
    verdict = judge({INDEXNOTE: None}, root, repo["settings"], op("garden"))
    assert "cited-line-lost" in {v.rule for v in verdict.violations}


def test_a_human_line_survives_the_sweep_and_its_dead_link_becomes_text(repo):
    root = repo["root"]
    path = root / INDEXNOTE
    text = path.read_text(encoding="utf-8") + "My own note: compare with [[Q1 review]].\n"
    path.write_text(text, encoding="utf-8")
    commit(root, [INDEXNOTE], ours=False, title="human edit")
    result = sweep_references(root, repo["settings"], [NOTE], timestamp=TS2)
    assert "My own note: compare with Q1 review." in result.changes[INDEXNOTE]
    verdict = judge(result.changes, root, repo["settings"], replace(op("delete"), targets=(NOTE,)), result.records)
    assert verdict.ok, verdict.violations
    # A human line rewritten in words (not just unlinked) is refused.
    changes = {**result.changes, INDEXNOTE: result.changes[INDEXNOTE].replace("My own note", "A note")}
    verdict = judge(changes, root, repo["settings"], replace(op("delete"), targets=(NOTE,)), result.records)
    assert "human-line" in {v.rule for v in verdict.violations}


def test_a_non_canonical_page_pointing_at_the_target_is_reported_not_rewritten(repo):
    root = repo["root"]
    path = root / INDEXNOTE
    path.write_text(path.read_text(encoding="utf-8").replace("status: seed", "status: bogus"), encoding="utf-8")
    result = sweep_references(root, repo["settings"], [NOTE], timestamp=TS2)
    assert not result.ok and result.skipped[0][0] == INDEXNOTE
    assert INDEXNOTE not in result.changes
