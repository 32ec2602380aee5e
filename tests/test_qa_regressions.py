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
