"""`stigmergy garden` and `stigmergy delete` end to end: real captures, real commits, then lint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.repo.evidence import LocalEvidenceStore
from stigmergy.repo.layout import Layout

CUSTOMERS = Path(__file__).resolve().parent.parent / "sample_corpus" / "customers"


@pytest.fixture
def built(wiki: Path) -> Path:
    code, out, err = run_cli(["capture", str(CUSTOMERS)], cwd=wiki)
    assert code == 0, out + err
    return wiki


def _human_edit(root: Path, rel: str, extra: str) -> None:
    """A person adds a line to the page."""
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8") + f"\n{extra}\n", encoding="utf-8")
    git(root, "add", rel)
    git(root, "commit", "-qm", "a person's edit")
    # A person's edit that broke a gate would be reported by lint's history audit until accepted as
    # reviewed (tests/test_history.py); these tests are about the pages.
    assert run_cli(["lint", "--accept-history"], cwd=root)[0] in (0, 4)


def _lint(root: Path) -> dict:
    code, out, _ = run_cli(["--json", "lint"], cwd=root)
    data = json.loads(out)
    assert (code == 0) == data["ok"]
    return data


def test_garden_repairs_what_lint_finds_and_lint_then_passes(built: Path):
    # A page removed by hand (history accepted as reviewed) leaves dead links in tool-written lines.
    git(built, "rm", "-q", "wiki/entities/Dublin.md")
    git(built, "commit", "-qm", "remove a page by hand")
    run_cli(["lint", "--accept-history"], cwd=built)
    before = _lint(built)
    assert before["counts"].get("dead-link") and not before["ok"]
    head = git(built, "rev-parse", "HEAD")
    code, out, _ = run_cli(["--json", "garden", "--check"], cwd=built)
    assert code == 4 and json.loads(out)["status"] == "pending"
    code, out, _ = run_cli(["garden", "--dry-run"], cwd=built)
    assert code == 0 and "dry run" in out
    assert git(built, "rev-parse", "HEAD") == head and git(built, "status", "--porcelain") == ""
    code, out, err = run_cli(["--json", "garden"], cwd=built)
    data = json.loads(out)
    assert code == 0, out + err
    assert data["status"] == "committed" and data["report"]["findings_left"] == []
    assert (built / "wiki/index.md").is_file()
    assert _lint(built)["ok"]
    assert "Stigmergy-Kind: garden" in git(built, "log", "-1", "--format=%B")
    code, out, _ = run_cli(["--json", "show", data["operation"]], cwd=built)
    assert any("dead-link" in r for r in json.loads(out)["manifest"]["records"])
    # A second garden has nothing to do; --check agrees.
    code, out, _ = run_cli(["--json", "garden"], cwd=built)
    assert code == 0 and json.loads(out)["status"] == "nothing"
    assert run_cli(["garden", "--check"], cwd=built)[0] == 0


def test_garden_repairs_a_persons_links_without_changing_their_words(built: Path):
    note = next((built / "wiki/notes").glob("*.md")).relative_to(built).as_posix()
    _human_edit(built, note, "See [[Aoife-Brennan]] and [[Nobody Known]] and [[Oliver Brandt|Olly]].")
    assert _lint(built)["counts"].get("dead-link") == 2
    code, out, err = run_cli(["--json", "garden"], cwd=built)
    assert json.loads(out)["status"] == "committed", out + err
    text = (built / note).read_text(encoding="utf-8")
    # The accent- and punctuation-folded name now links; the unknown one is plain text; the words stay.
    assert "See [[Aoife Brennan|Aoife-Brennan]] and Nobody Known and [[Oliver Brandt|Olly]]." in text
    oliver = (built / "wiki/entities/Oliver Brandt.md").read_text(encoding="utf-8")
    assert "- Olly" in oliver  # learned from the link label
    assert not _lint(built)["counts"].get("dead-link")
    # Blame looks through garden's commit: the rewritten line is still the person's (so no planner may
    # rewrite it, and lint counts its lack of a citation as a person's, not an error).
    from stigmergy.gates.authorship import Authorship

    number = text.split("\n").index("See [[Aoife Brennan|Aoife-Brennan]] and Nobody Known and [[Oliver Brandt|Olly]].") + 1
    assert number in Authorship(built).human_lines(note)
    assert _lint(built)["ok"]


def test_garden_re_renders_a_non_canonical_page_and_keeps_its_lines(built: Path):
    rel = "wiki/entities/Norrland Fresh.md"
    path = built / rel
    text = path.read_text(encoding="utf-8")
    head, body = text.split("\n---\n", 1)
    lines = head.split("\n")
    status = next(ln for ln in lines if ln.startswith("status:"))
    lines.remove(status)
    lines.insert(2, status)  # keys out of order: not canonical
    path.write_text("\n".join(lines) + "\n---\n" + body + "\n\n", encoding="utf-8")
    git(built, "commit", "-qam", "hand edit")
    assert _lint(built)["counts"].get("contract")
    code, out, err = run_cli(["--json", "garden"], cwd=built)
    assert code == 0, out + err
    assert path.read_text(encoding="utf-8").split("\n---\n", 1)[1].rstrip("\n") == body.rstrip("\n")
    assert _lint(built)["ok"]


def test_a_repair_that_would_break_a_gate_is_not_stored_and_the_finding_is_named(built: Path):
    rel = "wiki/entities/Norrland Fresh.md"
    path = built / rel
    text = path.read_text(encoding="utf-8")
    # `sources:` lists a capture the body does not cite: dropping it would shrink the attribution.
    other = "cap_01M8QF02MX38R3G9H4DV0C53FD"
    text = text.replace("sources:\n", f"sources:\n- {other}\n", 1)
    path.write_text(text, encoding="utf-8")
    git(built, "commit", "-qam", "hand edit")
    code, out, _ = run_cli(["--json", "garden"], cwd=built)
    data = json.loads(out)
    assert code == 4, out
    assert any(left["path"] == rel and "gate" in left["why"] for left in data["report"]["left"])
    assert path.read_text(encoding="utf-8") == text  # not stored
    assert (built / "wiki/index.md").is_file()  # the other repairs were


def test_delete_a_capture_sweeps_the_wiki_keeps_the_evidence_and_allows_recapture(built: Path, tmp_path: Path):
    code, out, _ = run_cli(["--json", "log", "--kind", "capture"], cwd=built)
    ops = json.loads(out)["operations"]
    review = next(o for o in ops if "pellucid" in o["summary"].lower())
    cap = review["manifest"]["capture"]
    source = next(built.glob(f"sources/*/*/{cap}.md"))
    sha = source.read_text(encoding="utf-8").split("sha256: ", 1)[1].split("\n", 1)[0].strip("'\"")
    head = git(built, "rev-parse", "HEAD")
    code, out, err = run_cli(["delete", cap, "--rationale", "captured by mistake", "--dry-run"], cwd=built)
    assert code == 0, out + err
    assert git(built, "rev-parse", "HEAD") == head
    code, out, err = run_cli(["--json", "delete", cap, "--rationale", "captured by mistake"], cwd=built)
    data = json.loads(out)
    assert code == 0 and data["status"] == "committed", out + err
    assert not source.exists()
    assert LocalEvidenceStore(Layout(built).objects_dir).has(sha)  # the original bytes stay
    for page in (built / "wiki").rglob("*.md"):
        assert cap not in page.read_text(encoding="utf-8")
    assert "Stigmergy-Kind: delete" in git(built, "log", "-1", "--format=%B")
    run_cli(["garden"], cwd=built)
    assert _lint(built)["ok"]
    code, out, _ = run_cli(["--json", "capture", str(CUSTOMERS / "2026-05-19-pellucid-pilot-email-thread.txt")], cwd=built)
    assert json.loads(out)["captures"][0]["status"] == "filed"


def test_delete_refuses_bad_input_and_changes_nothing(built: Path):
    head = git(built, "rev-parse", "HEAD")
    for args, code in (
        (["delete", "wiki/notes/Nope.md", "--rationale", "x"], 1),
        (["delete", "../../etc/passwd", "--rationale", "x"], 1),
        (["delete", "cap_", "--rationale", "x"], 1),
        (["delete", "wiki/entities/Norrland Fresh.md", "--rationale", "  "], 2),
        (["delete", "wiki/entities/Norrland Fresh.md"], 2),
    ):
        got, out, err = run_cli(args, cwd=built)
        assert got == code, (args, got, out, err)
    assert git(built, "rev-parse", "HEAD") == head and git(built, "status", "--porcelain") == ""


def test_deleting_a_restricted_page_needs_a_reader_of_its_layer(wiki: Path, tmp_path: Path):
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["ceo@example.com"]\n')
    git(wiki, "commit", "-qam", "board layer")
    doc = tmp_path / "board.md"
    doc.write_text("# Board minutes\n\nMaya Okafor proposed a budget of $2M on 2 September 2026.\n", encoding="utf-8")
    assert run_cli(["capture", str(doc), "--layer", "board", "--as", "ceo@example.com"], cwd=wiki)[0] == 0
    page = next((wiki / "layers/board/wiki/notes").glob("*.md")).relative_to(wiki).as_posix()
    code, out, err = run_cli(["delete", page, "--rationale", "x"], cwd=wiki)
    assert code == 2 and "may not read" in err
    assert (wiki / page).is_file()
    code, out, err = run_cli(["delete", page, "--rationale", "superseded", "--as", "ceo@example.com"], cwd=wiki)
    assert code == 0, out + err
    assert not (wiki / page).exists()
