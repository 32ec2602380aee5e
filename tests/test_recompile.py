"""`stigmergy recompile`: reproduces what capture built, keeps what people wrote, survives a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.repo.layout import Layout
from stigmergy.repo.state import StateDB

CUSTOMERS = Path(__file__).resolve().parent.parent / "sample_corpus" / "customers"


@pytest.fixture
def built(wiki: Path) -> Path:
    code, out, err = run_cli(["capture", str(CUSTOMERS)], cwd=wiki)
    assert code == 0, out + err
    return wiki


def test_recompile_reproduces_the_captured_wiki_and_is_a_no_op(built: Path):
    head = git(built, "rev-parse", "HEAD")
    code, out, err = run_cli(["--json", "recompile"], cwd=built)
    assert code == 0, out + err
    data = json.loads(out)
    assert data["status"] == "nothing", data["message"]
    assert data["report"]["cited_lost"] == 0 and data["report"]["contradictions_lost"] == 0
    assert git(built, "rev-parse", "HEAD") == head
    assert not (Layout(built).state_dir / "recompile").exists()


def test_recompile_keeps_human_lines_ids_and_passes_lint(built: Path):
    rel = "wiki/entities/Norrland Fresh.md"
    text = (built / rel).read_text(encoding="utf-8")
    page_id = text.split("id: ", 1)[1].split("\n", 1)[0]
    (built / rel).write_text(text + "\nMy note: renewal talks start in October.\n", encoding="utf-8")
    git(built, "commit", "-qam", "a person's note")
    code, out, err = run_cli(["--json", "recompile", "--by-occurred"], cwd=built)
    assert code == 0, out + err
    after = (built / rel).read_text(encoding="utf-8")
    assert "My note: renewal talks start in October." in after
    assert f"id: {page_id}\n" in after
    code, out, _ = run_cli(["--json", "lint"], cwd=built)
    assert [f["rule"] for f in json.loads(out)["findings"]] in ([], ["uncited-line"]), out


def test_recompile_refuses_while_captures_are_pending(built: Path):
    state = StateDB(Layout(built).state_db)
    state.enqueue("cap_01M8QF02MX38R3G9H4DV0C53XX", "op_01M8QF02MX38R3G9H4DV0C53XX", "2026-12-01T00:00:00Z", {})
    state.close()
    code, out, err = run_cli(["recompile"], cwd=built)
    assert code == 3 and "pending" in err
    assert code == 3 and git(built, "status", "--porcelain") == ""


def test_recompile_resumes_after_a_kill(built: Path):
    env = {**os.environ, "STIGMERGY_PAUSE_AT": "recompile-step", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "recompile", "--by-occurred"], cwd=built, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    line = ""
    while time.monotonic() < deadline and "paused at" not in line:
        line = proc.stdout.readline()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert "paused at" in line
    progress = json.loads((Layout(built).state_dir / "recompile" / "progress.json").read_text())
    assert progress["done"] < len(progress["order"])
    code, out, err = run_cli(["--json", "recompile", "--resume"], cwd=built)
    assert code == 0, out + err
    data = json.loads(out)
    assert data["status"] in ("committed", "nothing") and "resumed" in " ".join(data["report"]["notes"]) + data["message"]
    assert not (Layout(built).state_dir / "recompile").exists()
    code, out, _ = run_cli(["--json", "lint"], cwd=built)
    assert json.loads(out)["ok"], out
    assert run_cli(["recompile", "--resume"], cwd=built)[0] == 2  # nothing left to resume
