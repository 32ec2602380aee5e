"""`stigmergy file`: archived captures filed through the planner and the gates, one operation each."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_cli

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


def test_file_command_files_archived_captures(wiki: Path) -> None:
    doc = CORPUS / "meetings" / "2026-01-12-driftwood-kickoff.md"
    code, _, _ = run_cli(["capture", "--no-file", str(doc)], cwd=wiki)
    assert code == 0
    assert not (wiki / "wiki" / "notes" / "Project Driftwood kickoff.md").exists()
    code, out, _ = run_cli(["--json", "file"], cwd=wiki)
    assert code == 0
    report = json.loads(out)
    assert report["counts"] == {"filed": 1}
    assert (wiki / "wiki" / "notes" / "Project Driftwood kickoff.md").is_file()
    assert (wiki / "wiki" / "projects" / "Project Driftwood.md").is_file()
    assert "Stigmergy-Operation:" in git(wiki, "log", "-1", "--format=%B")
    # Nothing left to file.
    code, out, _ = run_cli(["--json", "file"], cwd=wiki)
    assert code == 0 and json.loads(out)["counts"] == {}
