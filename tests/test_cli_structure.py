"""The CLI's shape: each command module imports on its own (no cycle through the app), every module is
registered explicitly, and every reading command takes --json and --as per command as well as globally."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_cli

import stigmergy.cli

CLI_MODULES = sorted(m.name for m in pkgutil.iter_modules(stigmergy.cli.__path__))


@pytest.mark.parametrize("name", [n for n in CLI_MODULES if n.endswith("_cmds")] + ["context", "shared"])
def test_each_cli_module_imports_alone(name: str) -> None:
    # A fresh interpreter: importing a command module first must not hit a half-initialised app.
    proc = subprocess.run([sys.executable, "-c", f"import stigmergy.cli.{name}"], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_command_module_is_registered() -> None:
    from stigmergy.cli.app import COMMAND_MODULES

    registered = sorted(m.__name__.rsplit(".", 1)[1] for m in COMMAND_MODULES)
    assert registered == [n for n in CLI_MODULES if n.endswith("_cmds")]


def _reading_commands(wiki: Path) -> list[list[str]]:
    code, out, _ = run_cli(["--json", "log"], wiki)
    assert code == 0
    op = json.loads(out)["operations"][0]["id"]
    return [["log"], ["show", op], ["status"], ["fsck"], ["lint"], ["overview"], ["contradictions"],
            ["list"], ["search", "anything"]]


def test_reading_commands_take_json_and_as_per_command_and_globally(wiki: Path) -> None:
    run_cli(["capture", "--text", "Aurora reached $1.3M ARR in Q1 2026."], wiki)
    for args in _reading_commands(wiki):
        if args[0] in ("list", "search"):
            continue  # they need the index and its model: covered in test_reads and test_search
        for argv in ([*args, "--json", "--as", "test@example.com"], ["--json", "--as", "test@example.com", *args]):
            code, out, err = run_cli(argv, wiki)
            assert code in (0, 4), (argv, err)  # 4: a check (lint, fsck) found problems; never 2 (usage)
            assert isinstance(json.loads(out), dict), argv


def test_command_modules_borrow_only_from_context_and_shared() -> None:
    import ast

    offenders = []
    for name in (n for n in CLI_MODULES if n.endswith("_cmds")):
        tree = ast.parse((REPO_ROOT / "stigmergy" / "cli" / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("stigmergy.cli."):
                if node.module not in ("stigmergy.cli.context", "stigmergy.cli.shared"):
                    offenders.append(f"{name} imports {node.module}")
    assert offenders == []


READING_COMMANDS = ("log", "show", "status", "fsck", "lint", "search", "read", "list", "describe",
                    "contradictions", "overview")


def test_every_reading_command_declares_json_and_as() -> None:
    import typer

    from stigmergy.cli.app import app

    commands = typer.main.get_command(app).commands
    missing = [
        name for name in READING_COMMANDS
        if not {"--json", "--as"} <= {o for p in commands[name].params for o in getattr(p, "opts", [])}
    ]
    assert missing == []


# GitPython ("git", "gitdb") loads only in a long-lived process (repo/gitpython.py).
HEAVY = ("torch", "sentence_transformers", "onnxruntime", "httpx", "mcp", "pypdf", "docx", "git", "gitdb")


def _imported_by(args: list[str]) -> set[str]:
    """Every module a fresh `python -m stigmergy ARGS` imports (the interpreter's own import log)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "stigmergy", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_help_through_python_m_imports_no_heavy_library() -> None:
    # `python -m stigmergy --help` exactly as a user types it: the model, ONNX, HTTP, MCP and document
    # parsers load only when a command needs them.
    modules = _imported_by(["--help"])
    assert {"stigmergy.cli.app", "typer"} <= modules  # the log was read: the check below can fail
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], heavy


def test_a_capture_process_parses_its_options_without_pydantic(tmp_path: Path) -> None:
    # Git hooks and cron file one document per `stigmergy capture` process. Typer 0.29 coerces every option
    # through a pydantic TypeAdapter: the import and the adapters were a fifth of such a process's CPU
    # (pyproject.toml pins typer below 0.29). The MCP server, which needs pydantic, is not this path.
    subprocess.run([sys.executable, "-m", "stigmergy", "init", str(tmp_path / "w")], cwd=REPO_ROOT, check=True,
                   capture_output=True)
    doc = tmp_path / "note.md"
    doc.write_text("# Standup\n\nThe Harbor API launch moved to 14 March.\n")
    modules = _imported_by(["-C", str(tmp_path / "w"), "--json", "capture", str(doc)])
    assert "stigmergy.write.capture" in modules  # the capture ran in this process: the check below can fail
    assert sorted(m for m in modules if m.split(".")[0] == "pydantic") == []
    assert "stigmergy.write.erase" not in modules  # only where an erase was interrupted (write/capture.resume)


def test_extra_exit_codes_name_registered_commands() -> None:
    import typer

    from stigmergy.cli.app import EXTRA_EXIT_CODES, app

    commands = set(typer.main.get_command(app).commands)
    assert set(EXTRA_EXIT_CODES) <= commands
    assert all(set(codes) <= {3, 4} for codes in EXTRA_EXIT_CODES.values())


def test_an_exit_code_a_command_does_not_declare_fails_the_run(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The check in conftest.run_cli is what keeps docs/cli.md's exit codes true: it must bite.
    from stigmergy.cli import app as app_module

    (wiki / "wiki" / "notes").mkdir(parents=True, exist_ok=True)
    (wiki / "wiki" / "notes" / "Broken.md").write_text("no front matter at all\n", encoding="utf-8")
    assert run_cli(["lint"], cwd=wiki)[0] == 4
    monkeypatch.setattr(app_module, "EXTRA_EXIT_CODES", {})
    with pytest.raises(AssertionError, match="not declared in EXTRA_EXIT_CODES"):
        run_cli(["lint"], cwd=wiki)


def test_importing_the_service_loads_no_model_runtime_or_mcp() -> None:
    # Every front end builds a WikiService: importing it (and its whole module graph) must stay light.
    code = ("import sys; import stigmergy.service; loaded = list(sys.modules); "
            f"print('stigmergy.service.wiki' in loaded, sorted(m for m in loaded if m.split('.')[0] in {HEAVY!r}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True []"  # the service was imported (the check can fail), nothing heavy
