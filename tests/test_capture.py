"""Foundation: init, capture, evidence store, source pages, operations, durability, concurrency."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, run_cli, run_cli_process

from stigmergy.errors import ContractError
from stigmergy.pages.source import parse_source_page, render_source_page


def snapshot(root: Path) -> dict:
    """Everything a failed command must leave exactly as it was."""
    objects = sorted(str(p.relative_to(root)) for p in (root / ".stigmergy" / "objects").rglob("*") if p.is_file()) if (root / ".stigmergy" / "objects").exists() else []
    db = root / ".stigmergy" / "state.sqlite"
    rows = []
    if db.exists():
        conn = sqlite3.connect(db)
        for table in ("operations", "queue", "captures"):
            rows.append(conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall())
        conn.close()
    return {
        "status": git(root, "status", "--porcelain", "--untracked-files=all"),
        "log": git(root, "log", "--format=%H"),
        "objects": objects,
        "state": rows,
    }


def source_files(root: Path) -> list[Path]:
    return sorted((root / "sources").rglob("cap_*.md"))


def test_init_creates_layout_and_is_idempotent(tmp_path: Path) -> None:
    code, out, _ = run_cli(["init", "kb"], cwd=tmp_path)
    assert code == 0, out
    root = tmp_path / "kb"
    for rel in ("stigmergy.toml", "librarian_skill.md", "sources", "wiki/notes", "wiki/concepts", "wiki/entities", "wiki/projects"):
        assert (root / rel).exists(), rel
    assert "/.stigmergy/" in (root / ".gitignore").read_text()
    assert git(root, "status", "--porcelain") == ""
    log = git(root, "log", "--format=%B")
    assert "Stigmergy-Kind: init" in log
    code, out, _ = run_cli(["init", "kb"], cwd=tmp_path)
    assert code == 0 and "already" in out
    assert len(git(root, "log", "--format=%H").split()) == 1


def test_init_inside_existing_repo_keeps_unrelated_files(tmp_path: Path) -> None:
    root = tmp_path / "existing"
    root.mkdir()
    git(root, "init", "-q")
    (root / "notes.txt").write_text("mine\n")
    (root / ".gitignore").write_text("*.log")
    git(root, "add", "notes.txt", ".gitignore")
    git(root, "commit", "-qm", "user commit")
    (root / "draft.txt").write_text("uncommitted\n")
    code, _, _ = run_cli(["init", "."], cwd=root)
    assert code == 0
    assert (root / "notes.txt").read_text() == "mine\n"
    assert (root / ".gitignore").read_text() == "*.log\n/.stigmergy/\n"
    assert "?? draft.txt" in git(root, "status", "--porcelain")
    assert "draft.txt" not in git(root, "show", "--name-only", "--format=", "HEAD")


def test_capture_text_writes_canonical_source_page_and_operation(wiki: Path) -> None:
    code, out, err = run_cli(["capture", "--text", "Ada Lovelace joined Halden in March.", "--title", "Joiner", "--occurred-at", "2026-03-02", "--by", "Ann <ann@x.org>", "--no-file"], cwd=wiki)
    assert code == 0, out + err
    [page_path] = source_files(wiki)
    text = page_path.read_text()
    page = parse_source_page(text, str(page_path.relative_to(wiki)))
    assert page.title == "Joiner" and page.occurred_at == "2026-03-02" and page.submitted_by == "Ann <ann@x.org>"
    assert page.origin == "cli" and page.locator == "text" and page.layer == "public"
    assert render_source_page(page) == text
    lines = text.split("\n")
    assert lines[page.body_start_line - 1] == "Ada Lovelace joined Halden in March."
    assert page_path.parent.parent.name == page.captured_at[:4]
    body = git(wiki, "log", "-1", "--format=%B")
    assert "Stigmergy-Operation: op_" in body and "Stigmergy-Kind: capture" in body
    code, out, _ = run_cli(["--json", "log"], cwd=wiki)
    ops = json.loads(out)["operations"]
    assert ops[0]["kind"] == "capture" and ops[0]["commit"] == git(wiki, "rev-parse", "HEAD").strip()
    code, out, _ = run_cli(["--json", "show", ops[0]["id"]], cwd=wiki)
    shown = json.loads(out)
    assert "+Ada Lovelace joined Halden in March." in shown["patch"]
    assert shown["manifest"]["paths"][0]["action"] == "add"
    # The stored patch is exact: it applies in reverse to the commit.
    patch = shown["patch"].encode()
    subprocess.run(["git", "apply", "--check", "-R"], cwd=wiki, input=patch, check=True)


def test_source_page_parser_refuses_tampering(wiki: Path) -> None:
    run_cli(["capture", "--text", "Line one.\nLine two.", "--no-file"], cwd=wiki)
    [p] = source_files(wiki)
    rel = str(p.relative_to(wiki))
    text = p.read_text()
    parse_source_page(text, rel)
    for bad in (
        text.replace("type: source", "type: note"),
        text.replace("# Line one.", "# Other"),  # typed text is titled by its first line
        text.replace("layer: public", "layer: public\nextra: 1"),
        text[4:],
        text.replace("\n---\n", "\n", 1),
    ):
        with pytest.raises(ContractError):
            parse_source_page(bad, rel)


def test_markdown_front_matter_is_provenance_not_body(wiki: Path, tmp_path: Path) -> None:
    doc = tmp_path / "meeting.md"
    doc.write_text("---\ntitle: Platform sync\ndate: 2026-02-03\nproject: Atlas\nparticipants: [Ada, Bo]\n---\n# Platform sync\n\nWe chose Postgres.\n")
    code, out, err = run_cli(["capture", str(doc), "--no-file"], cwd=wiki)
    assert code == 0, out + err
    [p] = source_files(wiki)
    page = parse_source_page(p.read_text())
    assert page.title == "Platform sync" and page.occurred_at == "2026-02-03" and page.project == "Atlas"
    assert page.metadata["participants"] == ["Ada", "Bo"]
    assert page.text == "We chose Postgres.\n"
    assert "---" not in page.text


def test_stdin_capture(wiki: Path) -> None:
    code, out, err = run_cli(["capture", "-", "--title", "From a pipe", "--no-file"], cwd=wiki, input=b"piped words\n")
    assert code == 0, out + err
    [p] = source_files(wiki)
    page = parse_source_page(p.read_text())
    assert page.locator == "stdin" and page.text == "piped words\n"


def test_recapture_is_idempotent_and_force_makes_a_new_one(wiki: Path, tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSame bytes.\n")
    run_cli(["capture", str(doc), "--no-file"], cwd=wiki)
    before = snapshot(wiki)
    code, out, _ = run_cli(["--json", "capture", str(doc), "--no-file"], cwd=wiki)
    assert code == 0
    data = json.loads(out)
    assert data["captures"][0]["status"] == "exists"
    assert snapshot(wiki) == before
    code, out, _ = run_cli(["capture", str(doc), "--no-file", "--force"], cwd=wiki)
    assert code == 0
    assert len(source_files(wiki)) == 2


@pytest.mark.parametrize(
    "name,data,rule",
    [
        ("empty.txt", b"", "empty"),
        ("image.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "unsupported-type"),
        ("latin.txt", "café crème".encode("latin-1"), "undecodable"),
        ("big.txt", b"x" * 5000, "too-large"),
        ("blob.bin", bytes(range(256)) * 8, "unsupported-type"),
    ],
)
def test_bad_input_changes_nothing(wiki: Path, tmp_path: Path, name: str, data: bytes, rule: str) -> None:
    run_cli(["capture", "--text", "something already here", "--no-file"], cwd=wiki)
    bad = tmp_path / name
    bad.write_bytes(data)
    before = snapshot(wiki)
    code, out, err = run_cli(["capture", str(bad), "--no-file"], cwd=wiki, env={"STIGMERGY_CAPTURE__MAX_BYTES": "4096"})
    assert code == 1
    assert rule in out + err and name in out + err
    assert snapshot(wiki) == before


def test_missing_path_and_mixed_batch(wiki: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text("# Good\n\nKept.\n")
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    code, out, err = run_cli(["capture", str(good), str(empty), str(tmp_path / "nope.md"), "--no-file"], cwd=wiki)
    assert code == 1
    assert "nope.md" in out + err and "missing" in out + err
    assert "failed: " in out and "empty.md" in out
    assert len(source_files(wiki)) == 1


def test_directory_capture_with_globs(wiki: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# A\n\nalpha\n")
    (docs / "sub" / "b.txt").write_text("beta\n")
    (docs / "sub" / "skip.md").write_text("# Skip\n\nno\n")
    (docs / ".hidden.md").write_text("# H\n\nhidden\n")
    (docs / "c.log").write_text("not included\n")
    code, out, err = run_cli(["--json", "capture", str(docs), "--exclude", "skip.md", "--no-file"], cwd=wiki)
    assert code == 0, out + err
    locators = sorted(c["locator"] for c in json.loads(out)["captures"])
    assert [Path(x).name for x in locators] == ["a.md", "b.txt"]


def test_unknown_layer_and_bad_date_are_usage_errors(wiki: Path) -> None:
    before = snapshot(wiki)
    code, _, err = run_cli(["capture", "--text", "x", "--layer", "nope"], cwd=wiki)
    assert code == 2 and "unknown layer" in err
    code, _, err = run_cli(["capture", "--text", "x", "--occurred-at", "last tuesday"], cwd=wiki)
    assert code == 2 and "occurred-at" in err
    assert snapshot(wiki) == before


def test_restricted_layer_goes_under_layers(wiki: Path) -> None:
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["ceo@example.com"]\n')
    code, out, err = run_cli(["capture", "--text", "Board only.", "--layer", "board", "--no-file", "--as", "ceo@example.com"], cwd=wiki)
    assert code == 0, out + err
    [p] = sorted((wiki / "layers" / "board" / "sources").rglob("cap_*.md"))
    assert parse_source_page(p.read_text()).layer == "board"


def _wait_for(proc: subprocess.Popen, marker: str, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    buf = ""
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                raise AssertionError(f"process exited early: {proc.returncode} {buf} {proc.stderr.read()}")
            continue
        buf += line
        if marker in line:
            return
    raise AssertionError(f"timed out waiting for {marker!r}: {buf}")


def _spawn(wiki: Path, args: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "stigmergy", *args], cwd=wiki, env={**os.environ, **env},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.parametrize("point", ["ack", "commit", "bookkeeping"])
def test_killed_capture_is_resumed_without_loss_or_duplicates(wiki: Path, point: str) -> None:
    proc = _spawn(wiki, ["capture", "--text", "Durable words.", "--no-file"], {"STIGMERGY_PAUSE_AT": point})
    _wait_for(proc, f"paused at {point}")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    result = run_cli_process(["resume"], cwd=wiki)
    assert result.returncode == 0, result.stderr
    files = source_files(wiki)
    assert len(files) == 1
    assert parse_source_page(files[0].read_text()).text == "Durable words.\n"
    assert git(wiki, "status", "--porcelain", "--untracked-files=all") == ""
    commits = [c for c in git(wiki, "log", "--format=%s").splitlines() if c.startswith("capture:")]
    assert len(commits) == 1
    status = json.loads(run_cli_process(["--json", "status"], cwd=wiki).stdout)
    assert status["pending"] == [] and status["counts"]["captures"] == 1
    # A second resume finds nothing to do.
    assert "resumed 0" in run_cli_process(["resume"], cwd=wiki).stdout


def test_second_writer_waits_then_times_out(wiki: Path) -> None:
    holder = _spawn(wiki, ["capture", "--text", "first", "--no-file"], {"STIGMERGY_PAUSE_AT": "commit"})
    _wait_for(holder, "paused at commit")
    try:
        result = run_cli_process(["capture", "--text", "second", "--no-file"], cwd=wiki, env={"STIGMERGY_LOCK__TIMEOUT_SECONDS": "0.5"})
        assert result.returncode == 1
        assert "holds the repository lock" in result.stderr and "waiting for another writer" in result.stderr
        # Readers never wait.
        assert run_cli_process(["--json", "log"], cwd=wiki).returncode == 0
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    waiter = _spawn(wiki, ["capture", "--text", "second", "--no-file"], {"STIGMERGY_LOCK__TIMEOUT_SECONDS": "30"})
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    assert len(source_files(wiki)) == 2  # the killed one was resumed first, then the waiter's


def test_two_concurrent_writers_both_land(wiki: Path) -> None:
    procs = [_spawn(wiki, ["capture", "--text", f"writer {i}", "--no-file"], {}) for i in range(2)]
    for p in procs:
        p.communicate(timeout=60)
        assert p.returncode == 0
    assert len(source_files(wiki)) == 2
    assert git(wiki, "status", "--porcelain") == ""


def test_fsck_detects_corrupted_object(wiki: Path) -> None:
    run_cli(["capture", "--text", "evidence", "--no-file"], cwd=wiki)
    code, out, _ = run_cli(["fsck"], cwd=wiki)
    assert code == 0, out
    objects = [p for p in (wiki / ".stigmergy" / "objects").rglob("*") if p.is_file()]
    target = objects[0]
    os.chmod(target, 0o644)
    target.write_bytes(target.read_bytes() + b"tampered")
    code, out, _ = run_cli(["--json", "fsck"], cwd=wiki)
    assert code == 4
    report = json.loads(out)
    assert not report["ok"] and any("corrupt" in p["problem"] or "match" in p["problem"] for p in report["problems"])


def test_evidence_objects_are_read_only_and_fanned_out(wiki: Path) -> None:
    run_cli(["capture", "--text", "read only please", "--no-file"], cwd=wiki)
    objects = [p for p in (wiki / ".stigmergy" / "objects").rglob("*") if p.is_file()]
    assert objects
    for p in objects:
        assert len(p.parent.name) == 2 and len(p.parent.name + p.name) == 64
        assert not os.stat(p).st_mode & 0o222


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from stigmergy.cli.app import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch','sentence_transformers','onnxruntime','httpx','pypdf','docx','numpy','pysqlite3','sqlite_vec','transformers','tokenizers') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out, out


def test_json_outputs_parse(wiki: Path) -> None:
    run_cli(["capture", "--text", "json please", "--no-file"], cwd=wiki)
    for args in (["status"], ["log"], ["fsck"]):
        code, out, _ = run_cli(["--json", *args], cwd=wiki)
        assert code == 0
        json.loads(out)


def test_commands_outside_a_repository_say_so(tmp_path: Path) -> None:
    code, _, err = run_cli(["status"], cwd=tmp_path)
    assert code == 2 and "stigmergy init" in err


def test_init_in_an_empty_folder_inside_another_repository_nests_a_new_one(tmp_path: Path) -> None:
    outer = tmp_path / "project"
    outer.mkdir()
    git(outer, "init", "-q")
    (outer / "code.py").write_text("print(1)\n")
    code, out, err = run_cli(["init", "wiki"], cwd=outer)
    assert code == 0, out + err
    assert (outer / "wiki" / ".git").is_dir()
    assert git(outer / "wiki", "rev-parse", "--show-toplevel").strip() == str((outer / "wiki").resolve())
    assert git(outer, "log", "--oneline", "--all") == ""  # the outer repository has no commit of ours
    (outer / "notes").mkdir()
    (outer / "notes" / "x.md").write_text("keep\n")
    code, _, err = run_cli(["init", "notes"], cwd=outer)
    assert code == 2 and "non-empty folder" in err


def test_filed_capture_commits_its_source_page_and_wiki_pages(wiki: Path) -> None:
    code, out, err = run_cli(["capture", "--text", "Ada Lovelace joined Halden Robotics on 2 March 2026.\nAda Lovelace leads the Atlas project.", "--title", "Joiner"], cwd=wiki)
    assert code == 0, out + err
    assert git(wiki, "status", "--porcelain", "--untracked-files=all") == ""
    committed = git(wiki, "show", "--name-only", "--format=", "HEAD").splitlines()
    [page] = source_files(wiki)
    assert str(page.relative_to(wiki)) in committed
    assert any(p.startswith("wiki/notes/") for p in committed)
    code, out, _ = run_cli(["--json", "log", "-n", "1"], cwd=wiki)
    [op] = json.loads(out)["operations"]
    assert {"path": str(page.relative_to(wiki)), "action": "add"}.items() <= op["manifest"]["paths"][0].items() or any(
        e["path"] == str(page.relative_to(wiki)) and e["action"] == "add" for e in op["manifest"]["paths"]
    )


def test_killed_file_operation_is_undone_by_resume(wiki: Path) -> None:
    code, out, err = run_cli(["capture", "--text", "Ada Lovelace joined Halden Robotics on 2 March 2026.\nAda Lovelace leads the Atlas project.", "--title", "Joiner", "--no-file"], cwd=wiki)
    assert code == 0, out + err
    before = git(wiki, "log", "--format=%H")
    proc = _spawn(wiki, ["file"], {"STIGMERGY_PAUSE_AT": "commit"})
    _wait_for(proc, "paused at commit")
    assert git(wiki, "status", "--porcelain", "--untracked-files=all") != ""  # pages half-written
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    result = run_cli_process(["resume"], cwd=wiki)
    assert result.returncode == 0, result.stderr
    assert git(wiki, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(wiki, "log", "--format=%H") == before
    status = json.loads(run_cli_process(["--json", "status"], cwd=wiki).stdout)
    assert status["counts"]["unfiled"] == 1
    result = run_cli_process(["file"], cwd=wiki)
    assert result.returncode == 0, result.stderr
    assert json.loads(run_cli_process(["--json", "status"], cwd=wiki).stdout)["counts"]["unfiled"] == 0
    assert git(wiki, "status", "--porcelain", "--untracked-files=all") == ""
