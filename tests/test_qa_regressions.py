"""Crash-level regressions found by hands-on QA on a wiki shaped unlike sample_corpus."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import run_cli

from stigmergy.repo.layout import Layout


def _stale_index(wiki: Path) -> None:
    """An index file whose recorded commit is not HEAD: what any wiki has after a capture since `index`."""
    db = Layout(wiki).index_db
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('commit', 'deadbeef')")
    conn.commit()
    conn.close()


def test_garden_check_with_an_index_behind_head_reports_instead_of_crashing(wiki: Path):
    _stale_index(wiki)
    code, out, err = run_cli(["--json", "garden", "--check"], cwd=wiki)
    assert code in (0, 4), out + err
    json.loads(out)
    code, out, err = run_cli(["garden", "--dry-run"], cwd=wiki)
    assert code in (0, 4), out + err


def test_a_damaged_state_database_is_named_with_one_line_and_the_way_back(wiki: Path):
    state = Layout(wiki).state_db
    run_cli(["status"], cwd=wiki)
    for leftover in state.parent.glob(state.name + "*"):
        leftover.unlink()
    state.write_bytes(b"this is not a database\n" * 10)
    for args in (["status"], ["log"], ["fsck"], ["capture", "--text", "A line that must not land."]):
        code, out, err = run_cli(args, cwd=wiki)
        assert code == 1, (args, code, out, err)
        assert "state.sqlite" in err and "stigmergy resume" in err, (args, err)
    # The way back the hint names works: the bookkeeping is rebuilt from Git.
    state.rename(state.with_name("state.sqlite.bad"))
    code, out, err = run_cli(["resume"], cwd=wiki)
    assert code == 0, out + err
    assert run_cli(["status"], cwd=wiki)[0] == 0


def test_search_refuses_filters_that_can_match_nothing_as_usage_errors(wiki: Path):
    """A typo in a filter used to read as "no matching pages" (exit 0), and -k 0 as the default k."""
    for args, word in ((["-k", "0"], "-k"), (["-k", "-1"], "-k"), (["--type", "bogus"], "--type"),
                       (["--since", "garbage"], "--since"), (["--status", "ripe"], "--status")):
        code, out, err = run_cli(["search", "anything", *args], cwd=wiki)
        assert code == 2, (args, code, out, err)
        assert word in err, (args, err)
