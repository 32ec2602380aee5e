"""Erasure through history, with the residue audit: a canary captured between real sample documents must
be gone from every place the repository keeps bytes, and every other capture must stay as it was."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, run_cli, run_cli_process
from tests.test_index_support import HashEmbedder

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
CANARY = "ZQX93CANARY"
BEFORE = ["meetings/2026-01-12-driftwood-kickoff.md", "reports/2026-07-08-q2-2026-quarterly-report-draft.md",
          "reports/2026-07-21-q2-2026-quarterly-report-final.md", "people/team-directory.md"]
AFTER = ["projects/driftwood/2026-06-26-driftwood-cutover-update.md"]
CANARY_DOC = f"""---
title: Board side letter {CANARY}
date: 2026-07-25
---
# Board side letter {CANARY}

- Tomasz Wieczorek confirmed the {CANARY} settlement with Norrland Fresh.
- The {CANARY} figure is £4.4M and must never leave the board.
"""


def _capture(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", "capture", *args], cwd=root)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def repo(wiki: Path, tmp_path: Path) -> dict:
    """A wiki of sample documents with the canary captured in between, indexed, pushed to a remote."""
    _capture(wiki, *(str(CORPUS / p) for p in BEFORE))
    (tmp_path / "side-letter.md").write_text(CANARY_DOC)
    canary = _capture(wiki, str(tmp_path / "side-letter.md"))["captures"][0]["capture_id"]
    _capture(wiki, *(str(CORPUS / p) for p in AFTER))
    from stigmergy.index.build import build_index
    from stigmergy.settings import load_settings

    build_index(wiki, load_settings(wiki), embedder=HashEmbedder())
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(wiki, "remote", "add", "origin", str(remote))
    git(wiki, "push", "-q", "origin", "main")
    git(wiki, "fetch", "-q", "origin")
    return {"root": wiki, "canary": canary, "remote": remote}


def _pages(root: Path) -> dict[str, str]:
    return {p: (root / p).read_text() for p in git(root, "ls-files", "-z", "wiki").split("\0") if p}


def _cited_lines(root: Path, exclude: str) -> dict[str, set[str]]:
    """{page: its cited lines} for the lines that do not cite `exclude` (the reference sweep retires a line
    citing a removed source whole, as `delete` does)."""
    out: dict[str, set[str]] = {}
    for path, text in _pages(root).items():
        lines = {line for line in text.split("\n") if "[source](" in line and exclude not in line}
        if lines:
            out[path] = lines
    return out


def _contradictions(root: Path) -> set[str]:
    code, out, _ = run_cli(["--json", "contradictions"], cwd=root)
    assert code == 0
    return {json.dumps(c, sort_keys=True) for c in json.loads(out)["contradictions"]}


def _search_paths(root: Path, query: str) -> list[tuple[str, str]]:
    from stigmergy.index.search import search
    from stigmergy.settings import load_settings

    result = search(root, load_settings(root), query, "test@example.com", k=20, embedder=HashEmbedder())
    return [(h.path, h.snippet) for h in result.hits]


def test_audit_finds_the_canary_everywhere_before_an_erase(repo: dict) -> None:
    code, out, _ = run_cli(["--json", "erase", "--audit", CANARY], cwd=repo["root"])
    assert code == 4
    report = json.loads(out)
    places = {f["place"] for f in report["findings"]}
    assert {"git-object", "working-tree", "evidence", "index", "state"} <= places
    assert any("remote origin" in u for u in report["unreachable"])
    assert any("other clones" in u for u in report["unreachable"])


def test_dry_run_lists_everything_and_changes_nothing(repo: dict) -> None:
    root = repo["root"]
    head, pages = git(root, "rev-parse", "HEAD"), _pages(root)
    code, out, err = run_cli(["--json", "erase", repo["canary"], "--rationale", "legal request"], cwd=root)
    assert code == 0, err
    plan = json.loads(out)
    assert plan["dry_run"] and plan["commits_touching"] and plan["commits_rewritten"] >= 2
    assert any(p.endswith(f"{CANARY}.md") for p in plan["pages_deleted"])
    assert "wiki/entities/Tomasz Wieczorek.md" in plan["pages_changed"]
    assert len(plan["evidence_objects"]) >= 3  # original, readable text, the capture's patch
    assert [r["name"] for r in plan["remotes"]] == ["origin"] and plan["remotes"][0]["refs"] == ["refs/remotes/origin/main"]
    assert git(root, "rev-parse", "HEAD") == head and _pages(root) == pages
    assert git(root, "log", "--all", "--format=%H", "-S", CANARY) != ""


def test_erase_leaves_no_residue_and_every_other_capture_intact(repo: dict) -> None:
    root, canary = repo["root"], repo["canary"]
    cited_before = _cited_lines(root, canary)
    contradictions_before = _contradictions(root)
    assert any(CANARY in snippet for _, snippet in _search_paths(root, CANARY))

    code, out, err = run_cli(["erase", canary, "--rationale", "a legal request", "--yes"], cwd=root)
    assert code == 0, err + out
    assert "residue: none found" in out and "git push --force --all origin" in out

    code, out, _ = run_cli(["--json", "erase", "--audit", CANARY], cwd=root)
    assert code == 0 and json.loads(out)["clean"], out
    for needle in (canary, canary.removeprefix("cap_")):
        assert run_cli(["erase", "--audit", needle], cwd=root)[0] == 0
    assert git(root, "log", "--all", "--reflog", "--format=%H", "-S", CANARY) == ""
    fsck = subprocess.run(["git", "fsck", "--full", "--strict", "--unreachable", "--dangling"], cwd=root,
                          capture_output=True, text=True)
    assert fsck.returncode == 0 and fsck.stdout.strip() == "", fsck.stdout + fsck.stderr
    assert git(root, "status", "--porcelain") == ""
    # Every other capture: same pages (less the ones only the canary supported), same cited lines, same
    # contradictions.
    assert _cited_lines(root, canary) == {p: ls for p, ls in cited_before.items() if p in _pages(root)}
    assert set(cited_before) == set(_cited_lines(root, canary))
    assert _contradictions(root) == contradictions_before
    assert run_cli(["lint"], cwd=root)[0] == 0
    assert run_cli(["fsck"], cwd=root)[0] == 0
    # Search never returns it, before and after the index catches up with the changed pages.
    assert not any(CANARY in s for _, s in _search_paths(root, CANARY))
    from stigmergy.index.build import build_index
    from stigmergy.settings import load_settings

    build_index(root, load_settings(root), embedder=HashEmbedder())
    assert not any(CANARY in s or CANARY in p for p, s in _search_paths(root, CANARY))
    assert run_cli(["erase", "--audit", CANARY], cwd=root)[0] == 0
    # One commit records the erasure: the rationale and the id's hash, never the id or the content.
    message = git(root, "log", "-1", "--format=%B")
    assert message.startswith("erase: 1 capture(s)") and "a legal request" in message
    import hashlib

    assert hashlib.sha256(canary.encode()).hexdigest() in message and canary not in message
    log = json.loads(run_cli(["--json", "log", "--kind", "erase"], cwd=root)[1])["operations"]
    assert len(log) == 1 and log[0]["commit"] == git(root, "rev-parse", "HEAD").strip()
    # The remote still holds it, and the audit said so; a force push is the user's call.
    assert git(repo["remote"], "log", "--all", "--format=%H", "-S", CANARY) != ""
    assert git(root, "for-each-ref", "refs/remotes") == ""


def test_erase_removes_contradictions_of_the_erased_capture_only(repo: dict) -> None:
    root = repo["root"]
    code, out, _ = run_cli(["--json", "log", "--kind", "capture", "-n", "50"], cwd=root)
    draft = next(o["manifest"]["capture"] for o in json.loads(out)["operations"] if "(DRAFT)" in o["summary"]
                 or "draft" in o["manifest"].get("locator", ""))
    before = _contradictions(root)
    assert any(draft in c for c in before)
    code, out, err = run_cli(["erase", draft[:-2], "--rationale", "superseded draft", "--yes"], cwd=root)
    assert code == 0, err + out
    after = _contradictions(root)
    assert after == {c for c in before if draft not in c}
    assert run_cli(["lint"], cwd=root)[0] == 0
    assert run_cli(["erase", "--audit", draft], cwd=root)[0] == 0
    # The canary capture is untouched by someone else's erase.
    assert CANARY in (root / git(root, "ls-files", f"*{repo['canary']}.md").strip()).read_text()


def test_refusals_change_nothing(repo: dict) -> None:
    root, canary = repo["root"], repo["canary"]
    head = git(root, "rev-parse", "HEAD")
    assert run_cli(["erase", canary, "--yes"], cwd=root)[0] == 2  # no rationale
    assert run_cli(["erase", canary, "--layer", "public", "--rationale", "x"], cwd=root)[0] == 2
    assert run_cli(["erase", "--layer", "public", "--rationale", "x"], cwd=root)[0] == 2
    assert run_cli(["erase", "--layer", "nope", "--rationale", "x"], cwd=root)[0] == 2
    code, _, err = run_cli(["erase", "cap_NOSUCHCAPTURE", "--rationale", "x", "--yes"], cwd=root)
    assert code == 1 and "cap_NOSUCHCAPTURE" in err
    assert run_cli(["erase", "--audit", ""], cwd=root)[0] == 2
    assert run_cli(["erase", "--audit", "x", "--yes"], cwd=root)[0] == 2
    # Uncommitted edits to tracked pages would be lost by the rewrite.
    page = root / "wiki/entities/Tomasz Wieczorek.md"
    page.write_text(page.read_text() + "\nA human note.\n")
    code, _, err = run_cli(["erase", canary, "--rationale", "x", "--yes"], cwd=root)
    assert code == 3 and "uncommitted" in err
    git(root, "checkout", "--", ".")
    # A pending capture.
    from stigmergy.repo.operations import Repository
    from stigmergy.settings import load_settings

    r = Repository(root, load_settings(root))
    r.state.enqueue("cap_01M8QF0PK35W8AF8HK9GA1RN99", "op_01M8QF0PK35W8AF8HK9GA1RN99", "2026-01-01T00:00:00Z", {})
    code, _, err = run_cli(["erase", canary, "--rationale", "x", "--yes"], cwd=root)
    assert code == 3 and "pending" in err
    r.state.conn.execute("DELETE FROM queue")
    # Another writer holds the lock: refused at once.
    with r.lock():
        code, _, err = run_cli(["erase", canary, "--rationale", "x", "--yes"], cwd=root)
    assert code == 1 and "holds the repository lock" in err
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "log", "--all", "--format=%H", "-S", CANARY) != ""


def test_a_killed_erase_is_finished_by_resume(repo: dict) -> None:
    root, canary = repo["root"], repo["canary"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "stigmergy", "erase", canary, "--rationale", "crash test", "--yes"], cwd=root,
        env={**os.environ, "STIGMERGY_PAUSE_AT": "erase-rewritten"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    assert proc.stdout is not None
    while time.time() < deadline:
        line = proc.stdout.readline()
        if "paused at erase-rewritten" in line or proc.poll() is not None:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (root / ".stigmergy/erase.json").exists()
    # A writer that is not `resume` finishes the erase first, too; here: resume itself.
    result = run_cli_process(["resume"], cwd=root)
    assert result.returncode == 0, result.stderr
    assert not (root / ".stigmergy/erase.json").exists()
    assert run_cli(["erase", "--audit", CANARY], cwd=root)[0] == 0
    assert run_cli(["erase", "--audit", canary], cwd=root)[0] == 0
    assert git(root, "log", "-1", "--format=%s").startswith("erase:")
    assert run_cli(["lint"], cwd=root)[0] == 0
    ops = json.loads(run_cli(["--json", "log", "-n", "100"], cwd=root)[1])["operations"]
    heads = set(git(root, "rev-list", "--all").split())
    assert all(o["commit"] in heads for o in ops if o["commit"]), "a change record points at a vanished commit"


def test_erase_a_layer_removes_its_folder_from_every_commit(wiki: Path) -> None:
    toml = wiki / "stigmergy.toml"
    toml.write_text(toml.read_text() + '\n[layers.board]\nreaders = ["boss@example.com"]\n')
    git(wiki, "commit", "-qam", "board layer")
    _capture(wiki, str(CORPUS / BEFORE[0]))
    boss = ("--layer", "board", "--as", "boss@example.com")
    _capture(wiki, "--text", f"The board approved the {CANARY} acquisition of Norrland Fresh.", *boss)
    _capture(wiki, "--text", f"Board minutes: {CANARY} closes in May.", *boss)
    _capture(wiki, str(CORPUS / AFTER[0]))
    public_before = {p: t for p, t in _pages(wiki).items()}
    assert git(wiki, "ls-files", "layers/board")
    # Someone who may not read the layer may not erase it (the plan lists its pages).
    code, _, err = run_cli(["erase", "--layer", "board", "--rationale", "x"], cwd=wiki)
    assert code == 3 and "not a reader" in err
    code, out, err = run_cli(["--json", "--as", "boss@example.com", "erase", "--layer", "board",
                              "--rationale", "moved to its own repository"], cwd=wiki)
    assert code == 0, err
    plan = json.loads(out)
    assert len(plan["captures"]) == 2 and all(p.startswith("layers/board/") for p in plan["pages_deleted"])
    code, out, err = run_cli(["--as", "boss@example.com", "erase", "--layer", "board",
                              "--rationale", "moved to its own repository", "--yes"], cwd=wiki)
    assert code == 0, err + out
    assert git(wiki, "log", "--all", "--format=%H", "--", "layers/board") == ""
    # The audit reads every layer, so it is the board reader (a reader of every layer) who runs it.
    assert run_cli(["--as", "boss@example.com", "erase", "--audit", CANARY], cwd=wiki)[0] == 0
    assert _pages(wiki) == public_before  # the public wiki is untouched
    assert run_cli(["lint"], cwd=wiki)[0] == 0
    assert "erase: layer board (2 capture(s))" in git(wiki, "log", "-1", "--format=%s")


def test_a_deleted_capture_can_still_be_erased_from_history(repo: dict) -> None:
    root, canary = repo["root"], repo["canary"]
    code, _, err = run_cli(["delete", canary, "--rationale", "withdrawn"], cwd=root)
    assert code == 0, err
    assert git(root, "log", "--all", "--format=%H", "-S", CANARY) != ""  # delete keeps history
    code, out, err = run_cli(["--json", "erase", canary, "--rationale", "and now erased", "--yes"], cwd=root)
    assert code == 0, json.loads(out)["residue"]
    assert run_cli(["erase", "--audit", CANARY], cwd=root)[0] == 0
    assert run_cli(["erase", "--audit", canary], cwd=root)[0] == 0
    assert run_cli(["lint"], cwd=root)[0] == 0
