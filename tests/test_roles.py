"""Roles: `[roles.maintainers]` names who maintains each layer (default: its readers). Delete, merge, rename,
erase, recompile and resolving a contradiction need a maintainer of every layer the operation touches: a
reader who is not one is refused with exit 2, one line, and nothing changes; a maintainer goes ahead.
`maintain` acts as `[roles] service`, and garden writes only where that identity may write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_cli

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
FILES = [CORPUS / "customers", CORPUS / "reports" / "2026-07-08-q2-2026-quarterly-report-draft.md",
         CORPUS / "reports" / "2026-07-21-q2-2026-quarterly-report-final.md"]
LEAD, CEO, CLERK, READER = "lead@example.com", "ceo@example.com", "clerk@example.com", "reader@example.com"


def _ok(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", *args], cwd=root)
    assert code == 0, err + out
    return json.loads(out)


def _roles(root: Path, extra: str = "") -> None:
    toml = root / "stigmergy.toml"
    toml.write_text(toml.read_text() + f'\n[layers.board]\nreaders = ["{CEO}", "{CLERK}"]\n\n[roles]\n{extra}'
                    f'\n[roles.maintainers]\npublic = ["{LEAD}", "{CEO}"]\nboard = ["{CEO}"]\n')
    git(root, "commit", "-qam", "roles")


@pytest.fixture
def team(wiki: Path) -> Path:
    _roles(wiki)
    _ok(wiki, "capture", *map(str, FILES))
    _ok(wiki, "--as", CEO, "capture", "--layer", "board", "--text",
        "Board note: Maya Okafor proposed the Heronsgate budget of $2M on 2 September 2026.")
    return wiki


def _refused(root: Path, *args: str, layer: str = "public") -> None:
    head, status = git(root, "rev-parse", "HEAD"), git(root, "status", "--porcelain")
    code, out, err = run_cli(list(args), cwd=root)
    assert code == 2, (args, out + err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "maintainer of layer" in lines[0] and layer in lines[0], err
    assert git(root, "rev-parse", "HEAD") == head and git(root, "status", "--porcelain") == status


def _board_note(root: Path) -> str:
    return next((root / "layers/board/wiki/notes").glob("*.md")).relative_to(root).as_posix()


def test_delete_merge_and_rename_need_a_maintainer(team: Path) -> None:
    for who in (READER, CLERK):
        _refused(team, "--as", who, "delete", "wiki/entities/Erik Sandberg.md", "--rationale", "x")
        _refused(team, "--as", who, "merge", "Harbor API", "INTO", "Norrland Fresh")
        _refused(team, "--as", who, "rename", "Dublin", "Dublin office")
        _refused(team, "--as", who, "rename", "Dublin", "Dublin office", "--dry-run")
    # A board reader who does not maintain the board changes nothing of it either.
    _refused(team, "--as", CLERK, "rename", _board_note(team), "Budget", layer="board")
    # A maintainer of the public layer only is refused a board page; the board's maintainer is not.
    code, _, err = run_cli(["--as", LEAD, "rename", _board_note(team), "Budget"], cwd=team)
    assert code == 2
    _ok(team, "--as", CEO, "rename", _board_note(team), "Budget")
    _ok(team, "--as", LEAD, "rename", "Dublin", "Dublin office")
    _ok(team, "--as", LEAD, "merge", "Harbor API", "INTO", "Norrland Fresh")
    _ok(team, "--as", LEAD, "delete", "wiki/entities/Erik Sandberg.md", "--rationale", "not needed")


def test_recompile_needs_a_maintainer_of_every_layer(team: Path) -> None:
    _refused(team, "--as", READER, "recompile")
    _refused(team, "--as", LEAD, "recompile", layer="board")  # public only: the board is rewritten too
    assert _ok(team, "--as", CEO, "recompile")["status"] in ("nothing", "committed")


def test_erase_needs_a_maintainer(team: Path) -> None:
    cap = next(p.stem for p in (team / "layers/board/sources").rglob("cap_*.md"))
    _refused(team, "--as", CLERK, "erase", cap, "--rationale", "x", layer="board")
    code, out, err = run_cli(["--as", CEO, "erase", cap, "--rationale", "x"], cwd=team)  # a dry run
    assert code == 0, out + err


def test_resolving_a_contradiction_needs_a_maintainer(team: Path) -> None:
    con = next(c["id"] for c in _ok(team, "contradictions")["contradictions"] if "revenue" in c["subject"])
    text = "The board confirmed the final Q2 2026 figures; the draft was superseded."
    _refused(team, "--as", READER, "capture", "--text", text, "--resolves", con, "--rationale", "final wins")
    _ok(team, "--as", LEAD, "capture", "--text", text, "--resolves", con, "--rationale", "final wins")
    assert any(c["status"] == "resolved" for c in _ok(team, "contradictions")["contradictions"])


def test_without_roles_the_readers_maintain(wiki: Path) -> None:
    _ok(wiki, "capture", str(FILES[0]))
    _ok(wiki, "--as", READER, "rename", "Dublin", "Dublin office")  # public: everyone reads, so everyone maintains


def test_a_bad_roles_table_is_one_line(wiki: Path) -> None:
    toml = wiki / "stigmergy.toml"
    toml.write_text(toml.read_text() + '\n[roles.maintainers]\nbaord = ["x@example.com"]\n')
    code, _, err = run_cli(["status"], cwd=wiki)
    assert code == 2 and "baord" in err


def test_maintain_acts_as_the_service_identity(wiki: Path) -> None:
    _roles(wiki, f'service = "{READER}"\n')
    _ok(wiki, "--as", CEO, "capture", "--layer", "board", "--text",
        "Board note: Maya Okafor proposed the Heronsgate budget of $2M on 2 September 2026.")
    page = wiki / _board_note(wiki)
    page.write_text(page.read_text() + "\nSee [[Nowhere At All]].\n")
    git(wiki, "commit", "-qam", "a dead link on a board page")
    run_cli(["--as", CEO, "lint", "--accept-history"], cwd=wiki)
    code, out, err = run_cli(["--json", "maintain", "--no-index"], cwd=wiki)
    garden = next(s for s in json.loads(out)["steps"] if s["step"] == "garden")
    assert "may not write" in garden["message"] and "[[Nowhere At All]]" in page.read_text()
    assert "Heronsgate" not in out + err
    # The board's maintainer as the service: the board page is gardened.
    toml = wiki / "stigmergy.toml"
    toml.write_text(toml.read_text().replace(f'service = "{READER}"', f'service = "{CEO}"'))
    git(wiki, "commit", "-qam", "service identity")
    run_cli(["--json", "maintain", "--no-index"], cwd=wiki)
    assert "[[Nowhere At All]]" not in page.read_text() and "Nowhere At All" in page.read_text()


def _set_aliases(root: Path, rel: str, aliases: list[str]) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    head, _, body = text.partition("\n---\n")
    head = head.replace("\naliases: []", "") + "\naliases:" + "".join(f"\n- {a}" for a in aliases)
    (root / rel).write_text(head + "\n---\n" + body, encoding="utf-8")


def test_accepting_a_garden_merge_proposal_needs_a_maintainer(team: Path) -> None:
    # A person gives one entity the other's name as an alias: garden proposes the merge and prints the
    # command that accepts it; that command is judged as a merge.
    _set_aliases(team, "wiki/entities/Norrland Fresh.md", ["Harbor API"])
    git(team, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qam", "an alias")
    code, out, err = run_cli(["--json", "--as", LEAD, "garden"], cwd=team)
    assert code in (0, 4), out + err  # 4: a proposal waits for a person
    report = json.loads(out)["report"]
    proposal = next(m for m in report["merge_proposals"] if {m["page"], m["into"]} == {
        "wiki/entities/Harbor API.md", "wiki/entities/Norrland Fresh.md"})
    assert proposal["command"].startswith("stigmergy merge ")
    args = ["merge", proposal["page"], "INTO", proposal["into"]]
    for who in (READER, CLERK):
        _refused(team, "--as", who, *args)
    _ok(team, "--as", LEAD, *args)
    assert not (team / proposal["page"]).exists() and (team / proposal["into"]).exists()


def test_garden_repairs_only_the_layers_its_identity_may_write(team: Path) -> None:
    page = team / _board_note(team)
    page.write_text(page.read_text() + "\nSee [[Nowhere At All]].\n")
    git(team, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qam", "a dead link on a board page")
    run_cli(["--as", CEO, "lint", "--accept-history"], cwd=team)
    head = git(team, "rev-parse", "HEAD").strip()
    code, out, err = run_cli(["--json", "--as", READER, "garden"], cwd=team)
    assert code in (0, 4), out + err
    data = json.loads(out)
    assert data["report"]["unwritten"] >= 1 and "Heronsgate" not in out + err and "board" not in out
    assert "[[Nowhere At All]]" in page.read_text() and git(team, "diff", "--name-only", head, "HEAD", "--", "layers") == ""
    # A reader of the board (writing there is routine work: no maintainer needed) repairs it.
    assert run_cli(["--as", CLERK, "garden"], cwd=team)[0] in (0, 4)
    assert "[[Nowhere At All]]" not in page.read_text() and "Nowhere At All" in page.read_text()
