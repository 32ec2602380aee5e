"""`garden` (--check, --dry-run, its report and --json) and `maintain` name no page of a layer the reader
cannot read: its repairs, findings and proposals are counts, and the exit code stays honest."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_cli
from test_security import CANARY, CEO, PUBLIC_READER, _capture_both, _with_board

SECRETS = (CANARY, "canary-dead", "Okafor", "Lanternfish", "Orbis", "layers/board/")


def _board_page_needing_repair(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    page = sorted((wiki / "layers/board/wiki/entities").glob("*.md"))[0]
    # A person's line with a dead link whose target is the canary: garden makes it plain text.
    page.write_text(page.read_text() + f"\nSee [[{CANARY} canary-dead Orbis]].\n")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "hand edit")
    assert run_cli(["--as", CEO, "lint", "--accept-history"], cwd=wiki)[0] in (0, 4)


def test_garden_check_and_dry_run_name_no_restricted_page_to_a_non_reader(wiki: Path, tmp_path: Path) -> None:
    _board_page_needing_repair(wiki, tmp_path)
    head = git(wiki, "rev-parse", "HEAD")
    for args, want in ((["garden", "--check"], 4), (["--json", "garden", "--check"], 4),
                       (["garden", "--dry-run"], 0), (["--json", "garden", "--dry-run"], 0)):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == want, (args, out + err)  # a hidden pending repair still fails the check
        for secret in SECRETS:
            assert secret not in out + err, (args, secret)
    data = json.loads(run_cli(["--as", PUBLIC_READER, "--json", "garden", "--check"], cwd=wiki)[1])
    assert data["status"] == "pending" and data["report"]["hidden"]["repairs"] >= 1
    assert "in layers you cannot read" in run_cli(["--as", PUBLIC_READER, "garden", "--dry-run"], cwd=wiki)[1]
    # The board's reader sees the repair, path and detail.
    code, out, _ = run_cli(["--as", CEO, "garden", "--dry-run"], cwd=wiki)
    assert code == 0 and CANARY in out and "layers/board/" in out and "cannot read" not in out
    data = json.loads(run_cli(["--as", CEO, "--json", "garden", "--check"], cwd=wiki)[1])
    assert data["report"]["hidden"] == {"repairs": 0, "left": 0, "findings": 0, "proposals": 0}
    assert git(wiki, "rev-parse", "HEAD") == head and git(wiki, "status", "--porcelain") == ""


def test_garden_and_maintain_report_name_no_restricted_page_to_a_non_reader(wiki: Path, tmp_path: Path) -> None:
    _board_page_needing_repair(wiki, tmp_path)
    code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "garden"], cwd=wiki)
    assert code == 4, out + err  # the board's dead link is left for a board reader: a finding, hidden
    for secret in SECRETS:
        assert secret not in out + err, secret
    data = json.loads(out)
    # Garden writes only where its identity may write (#26): the board page is left to a board reader,
    # and the public reader is told how many repairs that is, never which.
    assert data["status"] == "committed" and data["report"]["unwritten"] >= 1
    page = sorted((wiki / "layers/board/wiki/entities").glob("*.md"))[0]
    assert "[[" + CANARY in page.read_text()
    assert run_cli(["--as", CEO, "--json", "garden", "--check"], cwd=wiki)[0] == 4
    assert run_cli(["--as", CEO, "--json", "garden"], cwd=wiki)[0] == 0
    assert run_cli(["--as", CEO, "--json", "garden", "--check"], cwd=wiki)[0] == 0
    assert "[[" + CANARY not in page.read_text() and CANARY in page.read_text()
    _board_page_needing_repair_again(page)
    for args in (["maintain", "--no-index"], ["--json", "maintain", "--no-index"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        for secret in SECRETS:
            assert secret not in out + err, (args, secret)


def _board_page_needing_repair_again(page: Path) -> None:
    page.write_text(page.read_text() + f"\nAlso [[{CANARY} canary-dead again]].\n")
    root = page.parents[4]
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hand edit")
    run_cli(["--as", CEO, "lint", "--accept-history"], cwd=root)
