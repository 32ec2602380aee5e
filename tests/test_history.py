"""No edit slips past the gates: lint audits history since the last clean check, and a bare repository's
pre-receive hook judges every pushed commit (real pushes, a real bare repository)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, run_cli

Q1 = "## Results\n\nAurora Systems reported revenue of $1.2M in Q1 2026.\nThe board of Aurora Systems met in Leeds with Maria Chen.\nMaria Chen said the pipeline is healthy.\n"
Q1_REVISED = "## Corrected figures\n\nThis corrected report replaces the earlier one.\nAurora Systems reported revenue of $1.3M in Q1 2026.\nMaria Chen signed off the corrected figures.\n"
ENTITY = "wiki/entities/Aurora Systems.md"
NOTE = "wiki/notes/Aurora results.md"


def _capture(root: Path, *args: str) -> None:
    code, out, err = run_cli(["capture", *args], cwd=root)
    assert code == 0, out + err


@pytest.fixture
def contradicted(wiki: Path) -> Path:
    """Two filed captures that disagree: a contradiction block on the entity page."""
    (wiki.parent / "q1.md").write_text(Q1)
    (wiki.parent / "q1r.md").write_text(Q1_REVISED)
    _capture(wiki, str(wiki.parent / "q1.md"), "--title", "Aurora results", "--occurred-at", "2026-04-02")
    _capture(wiki, str(wiki.parent / "q1r.md"), "--title", "Aurora corrected", "--occurred-at", "2026-04-20")
    return wiki


def _lint(root: Path, *args: str) -> tuple[int, dict]:
    code, out, _ = run_cli(["--json", "lint", *args], cwd=root)
    return code, json.loads(out)


def _cited_line(text: str) -> str:
    return next(line for line in text.splitlines() if "([source](" in line and not line.startswith(">"))


def test_stigmergys_own_history_is_clean(contradicted: Path) -> None:
    code, report = _lint(contradicted)
    assert code == 0, report
    # A resolution retires the block's claims: the capture that names it may, and the audit agrees.
    [con] = json.loads(run_cli(["--json", "contradictions"], cwd=contradicted)[1])["contradictions"]
    _capture(contradicted, "--text", "The auditors confirmed the corrected figure of $1.3M.", "--title", "Audit note",
             "--resolves", con["id"], "--rationale", "The audited figure is $1.3M.")
    [con] = json.loads(run_cli(["--json", "contradictions"], cwd=contradicted)[1])["contradictions"]
    assert con["status"] == "resolved"
    history = _lint(contradicted)[1]["history"]
    assert history["ok"] and history["commits"] == 1, history


def test_lint_reports_a_hand_commit_that_broke_a_gate_until_reviewed(contradicted: Path) -> None:
    root = contradicted
    assert _lint(root)[0] == 0
    page = root / NOTE
    text = page.read_text()
    page.write_text(text.replace(_cited_line(text) + "\n", ""))
    git(root, "commit", "-qam", "tidy the note")
    sha = git(root, "rev-parse", "HEAD").strip()
    code, report = _lint(root)
    assert code == 4
    [finding] = [f for f in report["history"]["findings"] if f["rule"] == "cited-line-lost"]
    assert finding["commit"] == sha and finding["path"] == NOTE and finding["kind"] is None
    assert finding["author"] == "Test Person <test@example.com>"
    code, out, _ = run_cli(["lint"], cwd=root)
    assert code == 4 and f"{sha[:10]} by Test Person" in out and "[cited-line-lost]" in out
    # Reviewed by a person: accepted once, then history is clean again (the page itself still lints).
    assert run_cli(["lint", "--accept-history"], cwd=root)[0] in (0, 4)
    assert _lint(root)[1]["history"]["findings"] == []


def test_a_persons_uncited_line_is_information_unless_strict(contradicted: Path) -> None:
    root = contradicted
    page = root / NOTE
    page.write_text(page.read_text() + "- We should ask finance about this.\n")
    git(root, "commit", "-qam", "a thought")
    code, report = _lint(root)
    assert code == 0, report
    [info] = [f for f in report["findings"] if f["rule"] == "uncited-line"]
    assert info["severity"] == "info" and report["history"]["ok"]
    code, report = _lint(root, "--strict")
    assert code == 4 and not report["ok"]


# ---------------------------------------------------------------- the pre-receive gate


@pytest.fixture
def served(contradicted: Path, tmp_path: Path) -> tuple[Path, Path]:
    bare = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(contradicted), str(bare))
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "hooks", "install", "--server", str(bare)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (bare / "hooks" / "pre-receive").is_file() and not (bare / "hooks" / "post-receive").exists()
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    return bare, dev


def _push(dev: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", "origin", "HEAD:main"], cwd=dev, capture_output=True, text=True,
                          env={**os.environ})


def _hostile(dev: Path, edit, message: str = "hand edit") -> tuple[subprocess.CompletedProcess, str]:  # noqa: ANN001
    git(dev, "reset", "-q", "--hard", "origin/main")
    edit(dev)
    git(dev, "commit", "-qam", message)
    return _push(dev), git(dev, "rev-parse", "HEAD").strip()


def _source(dev: Path) -> Path:
    return sorted((dev / "sources").rglob("cap_*.md"))[0]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _drop_cited(d: Path) -> None:
    text = (d / NOTE).read_text()
    (d / NOTE).write_text(text.replace(_cited_line(text) + "\n", ""))


def _drop_source_attribution(d: Path) -> None:
    text = (d / NOTE).read_text()
    start = text.index("sources:\n") + len("sources:\n")
    end = text.index("\n", start) + 1
    (d / NOTE).write_text(text[:start] + text[end:])


def _alter_block(d: Path) -> None:
    text = (d / ENTITY).read_text()
    i = text.index("> [!WARNING]")
    (d / ENTITY).write_text(text[:i] + "> [!NOTE]" + text[i + len("> [!WARNING]"):])


@pytest.mark.parametrize(
    ("edit", "rule", "path"),
    [
        (lambda d: _edit(_source(d), "origin: cli", "origin: import"), "source-immutable", "source"),
        (lambda d: _edit(_source(d), "Aurora Systems reported", "Aurora reported"), "source-immutable", "source"),
        (_drop_cited, "cited-line-lost", NOTE),
        (_drop_source_attribution, "attribution-lost", NOTE),
        (_alter_block, "contradiction-altered", ENTITY),
    ],
)
def test_a_push_that_breaks_a_gate_is_rejected(served: tuple[Path, Path], edit, rule: str, path: str) -> None:  # noqa: ANN001
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    proc, sha = _hostile(dev, edit)
    assert proc.returncode != 0, proc.stderr
    assert "push rejected" in proc.stderr and f"[{rule}]" in proc.stderr and sha[:10] in proc.stderr
    expected = str(_source(dev).relative_to(dev)) if path == "source" else path
    assert expected in proc.stderr
    assert git(bare, "rev-parse", "main") == before


def test_a_trailer_is_a_claim_not_a_pass(served: tuple[Path, Path]) -> None:
    bare, dev = served
    git(dev, "reset", "-q", "--hard", "origin/main")
    _drop_cited(dev)
    git(dev, "commit", "-qa", "-m", "delete: tidy\n\nStigmergy-Operation: op_forged\nStigmergy-Kind: delete")
    proc = _push(dev)
    assert proc.returncode != 0 and "[cited-line-lost]" in proc.stderr and "delete operation" in proc.stderr


def test_benign_human_pushes_and_stigmergys_own_are_accepted(served: tuple[Path, Path]) -> None:
    bare, dev = served
    proc, sha = _hostile(dev, lambda d: (d / NOTE).write_text((d / NOTE).read_text() + "- Ask finance.\n"))
    assert proc.returncode == 0, proc.stderr
    git(dev, "pull", "-q", "--ff-only")
    # Editing one's own uncited line later is fine too, and so is a capture made in the clone.
    _edit(dev / NOTE, "- Ask finance.", "- Ask finance about Q2.")
    git(dev, "commit", "-qam", "reword")
    code, out, err = run_cli(["capture", "--text", "Maria Chen joined the Aurora Systems board in May 2026."], cwd=dev)
    assert code == 0, out + err
    proc = _push(dev)
    assert proc.returncode == 0, proc.stderr
    assert git(bare, "rev-parse", "main") == git(dev, "rev-parse", "HEAD")
