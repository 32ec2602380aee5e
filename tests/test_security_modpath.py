"""Nothing stigmergy starts puts a repository folder on Python's module path (issue 18).

Anyone who can push can add any file to the repository. Hooks and child processes run with the
repository (or its server checkout) as their working folder, so a `python -m stigmergy` there would import
a pushed `stigmergy.py`, a `stigmergy/` package or a module shadowing a dependency (`typer.py`,
`yaml.py`) instead of the installed code. Each hostile file here writes a marker when imported; a real
bare repository with the server hooks takes the push, a client with the hooks installed pulls it, and
`erase --yes` rewrites the history holding it. No marker may appear.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, run_cli

_MARK = 'import pathlib; pathlib.Path({path!r}).write_text("imported")\n'

HOSTILE = {
    "module": ("stigmergy.py",),
    "package": ("stigmergy/__init__.py", "stigmergy/__main__.py", "stigmergy/history/__init__.py"),
    "dependencies": ("typer.py", "yaml.py", "git_filter_repo.py", "sitecustomize.py", "usercustomize.py"),
}


def _plant(root: Path, names: tuple[str, ...], markers: Path) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_MARK.format(path=str(markers / name.replace("/", "__"))))
    git(root, "add", "--", *names)
    git(root, "commit", "-qm", "add some helper scripts")


def _index_commit(root: Path) -> str | None:
    code, out, _ = run_cli(["--json", "status"], cwd=root)
    return json.loads(out)["index"]["commit"] if code == 0 else None


def _took(markers: Path) -> list[str]:
    found = sorted(p.name for p in markers.iterdir())
    for p in markers.iterdir():
        p.unlink()
    return found


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_pushed_pulled_and_erased_python_files_never_run(wiki: Path, tmp_path: Path, hostile: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    bare, checkout, client = tmp_path / "hub.git", tmp_path / "served", tmp_path / "client"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(wiki, "remote", "add", "origin", str(bare))
    git(wiki, "push", "-q", "origin", "main")
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "hooks", "install", "--server", str(bare),
                           "--checkout", str(checkout)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    git(tmp_path, "clone", "-q", str(bare), str(client))
    code, out, err = run_cli(["hooks", "install"], cwd=client)
    assert code == 0, out + err
    ran: dict[str, list[str]] = {}

    # 1. A push: the pre-receive gate judges it, the post-receive hook checks it out and indexes it.
    _plant(wiki, HOSTILE[hostile], markers)
    push = subprocess.run(["git", "push", "origin", "main"], cwd=wiki, capture_output=True, text=True)
    assert push.returncode == 0, push.stderr
    head = git(wiki, "rev-parse", "HEAD").strip()
    assert git(checkout, "rev-parse", "HEAD").strip() == head
    ran["push"] = _took(markers)
    # The installed code did run in the checkout: its index is at the pushed commit.
    indexed = {"push": _index_commit(checkout) == head}

    # 2. A pull into a client with the hooks installed: post-merge indexes in the background.
    git(client, "pull", "-q", "--ff-only")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not any(markers.iterdir()) and _index_commit(client) != head:
        time.sleep(0.3)
    ran["pull"] = _took(markers)
    indexed["pull"] = _index_commit(client) == head

    # 3. erase --yes rewrites the history in a child process whose working folder is the repository.
    code, out, err = run_cli(["--json", "capture", "--text", "Maria Chen joined the Harbor team in May 2026."], cwd=wiki)
    assert code == 0, err
    capture_id = json.loads(out)["captures"][0]["capture_id"]
    code, out, err = run_cli(["erase", capture_id, "--rationale", "a test", "--yes"], cwd=wiki)
    ran["erase"] = _took(markers)
    indexed["erase"] = code == 0

    logs = [(r / ".stigmergy" / "hook.log") for r in (checkout, client)]
    assert ran == {"push": [], "pull": [], "erase": []}, [p.read_text()[-2000:] for p in logs if p.exists()]
    assert indexed == {"push": True, "pull": True, "erase": True}, out + err


def test_hooks_refuse_an_interpreter_that_finds_stigmergy_only_through_pythonpath(tmp_path: Path) -> None:
    from stigmergy.errors import UsageError
    from stigmergy.repo.child import check_isolated_import

    check_isolated_import(sys.executable)  # this suite's interpreter imports this stigmergy isolated
    base = getattr(sys, "_base_executable", "")
    if sys.prefix == sys.base_prefix or not base:
        pytest.skip("not in a virtual environment: no base interpreter without stigmergy to try")
    # The base interpreter sees stigmergy only with PYTHONPATH, which isolated mode drops: refused, named.
    with pytest.raises(UsageError, match="does not import this stigmergy"):
        check_isolated_import(base)
