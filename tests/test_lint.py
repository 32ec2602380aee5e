"""`stigmergy lint` over a real repository: a clean one passes, each kind of damage is reported."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_gates_support import cited, commit, make_page, make_source

from stigmergy.gates.lint import lint_repository
from stigmergy.pages.citations import cite
from stigmergy.settings import Settings, settings_from_mapping

ENTITY = "wiki/entities/Aurora Systems.md"
NOTE = "wiki/notes/Q1 review.md"
LINES = ["Aurora Systems reached $1.3M ARR in Q1 2026.", "Aurora is headquartered in Lisbon."]


def clean_repo(root: Path) -> tuple:
    src = make_source(root, 1, LINES)
    make_page(root, "entity", "Aurora Systems", [f"- Aurora is headquartered in Lisbon. {cited(ENTITY, src, 1)}"])
    make_page(root, "note", "Q1 review", [f"- [[Aurora Systems]] reached $1.3M ARR in Q1 2026. {cited(NOTE, src, 0)}"],
              entities=("Aurora Systems",))
    commit(root, [src[0], ENTITY, NOTE])
    return src


def rules(report) -> set[str]:
    return {f.rule for f in report.findings}


def test_clean_repository_has_no_findings(wiki):
    clean_repo(wiki)
    report = lint_repository(wiki, Settings())
    assert report.ok, report.findings
    assert report.pages == 2 and report.sources == 1


def test_each_kind_of_damage_is_reported(wiki):
    src = clean_repo(wiki)
    orphan = "wiki/concepts/Lonely.md"
    make_page(wiki, "concept", "Lonely", [
        "An uncited claim about 7 things.",
        "See [[Nowhere]] and [[aurora systems]].",
        f"- Aurora reached $9M. {cited(orphan, src, 0)}",
        f"- Beyond the end. {cite(orphan, src[0], 900)}",
    ])
    make_page(wiki, "note", "Empty", [], entities=("Ghost",))
    text = (wiki / NOTE).read_text().replace("sources:\n- cap_", "sources:\n- cap_00000000000000000000000000\n- cap_")
    (wiki / NOTE).write_text(text)
    (wiki / "wiki/notes/stray.txt").write_text("x")
    src_text = (wiki / src[0]).read_text()
    (wiki / "sources/2026/03/cap_01JQ0000000000000000000009.md").write_text(src_text)
    report = lint_repository(wiki, Settings())
    found = rules(report)
    for rule in ("uncited-line", "dead-link", "orphan", "contract", "no-citations", "zone", "source-malformed"):
        assert rule in found, (rule, report.findings)
    messages = " ".join(f.message for f in report.findings)
    assert "9M" in messages and "beyond the end" in messages
    assert any(f.rule == "sources-drift" and f.path == NOTE for f in report.findings)
    assert json.loads(json.dumps(report.to_dict()))["ok"] is False


def test_noncanonical_block_and_layer_flow(wiki):
    src = clean_repo(wiki)
    secret = make_source(wiki, 5, ["Confidential: the board will acquire Borealis for 4 million next year."], layer="board")
    text = (wiki / NOTE).read_text()
    (wiki / NOTE).write_text(text + "<!-- stigmergy:contradiction con_01JQ0000000000000000000000 -->\n> forged\n"
                             "<!-- /stigmergy:contradiction -->\n")
    leak = "wiki/notes/Leak.md"
    make_page(wiki, "note", "Leak", [
        f"- The board will acquire Borealis for 4 million. {cited(leak, secret, 0)}",
        f"- Confidential: the board will acquire Borealis for 4 million next year. {cited(leak, src, 1)}",
    ])
    layered = settings_from_mapping({"layers": {"board": {"readers": ["ceo@example.com"]}}})
    report = lint_repository(wiki, layered)
    assert {"contradiction-noncanonical", "layer-flow"} <= rules(report)
    assert sum(f.rule == "layer-flow" for f in report.findings) >= 2


def test_cli_lint_exit_codes_and_json(wiki):
    clean_repo(wiki)
    code, out, _ = run_cli(["lint", "--json"], wiki)
    assert code == 0 and json.loads(out)["ok"] is True
    make_page(wiki, "note", "Loose", ["An uncited line."])
    code, out, _ = run_cli(["lint"], wiki)
    assert code == 4 and "uncited-line" in out
    code, out, _ = run_cli(["--json", "lint"], wiki)
    assert code == 4 and json.loads(out)["counts"]["uncited-line"] == 1


def test_a_restricted_page_shadows_the_public_one_for_links_written_in_its_layer(tmp_path) -> None:
    from stigmergy.pages.wikilinks import LinkResolver

    stems = {"maya okafor": ["layers/board/wiki/entities/Maya Okafor.md", "wiki/entities/Maya Okafor.md"]}
    resolver = LinkResolver(stems)
    assert resolver.resolve("Maya Okafor", from_layer="board") == ["layers/board/wiki/entities/Maya Okafor.md"]
    assert resolver.resolve("Maya Okafor", from_layer="public") == ["wiki/entities/Maya Okafor.md"]
    assert resolver.resolve("Maya Okafor", from_layer="other") == ["wiki/entities/Maya Okafor.md"]
    assert len(resolver.resolve("Maya Okafor")) == 2
