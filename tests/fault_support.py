"""Fault injection for crash tests and bench/faults.py: run a real `stigmergy` process, kill it (SIGKILL to
its whole process group, git children included) at a named pause point or at a random moment, then
check that the repository needs no hand repair. No tests here."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

DOCS = {
    "2026-03-05-kickoff.md": "---\nproject: Atlas\n---\nAda Lovelace started the Atlas project on 5 March 2026.\n"
    "Ada Lovelace leads the Atlas team in Leeds.\n",
    "2026-03-20-beta.md": "---\nproject: Atlas\n---\nThe Atlas project shipped its beta on 20 March 2026.\n"
    "Grace Hopper tested the Atlas beta with Ada Lovelace.\n",
    "2026-05-02-hiring.md": "Halden Robotics hired 4 engineers in May 2026.\nGrace Hopper joined Halden Robotics in May 2026.\n",
    "2026-06-01-budget.md": "---\nproject: Atlas\n---\nThe Atlas project budget is 120000 EUR for 2026, Ada Lovelace said.\n",
}
_ACK = re.compile(r"acknowledged (cap_[0-9A-Z]{26})")


def write_docs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    return paths


def stigmergy(root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=root, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def in_process(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The same CLI in this process (the checks after a crash; a process start costs more than they do)."""
    from typer.testing import CliRunner

    from stigmergy.cli.app import app

    old = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def spawn(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    # A session of its own: the kill reaches git children too, as a crash or power cut would.
    return subprocess.Popen([sys.executable, "-m", "stigmergy", *args], cwd=root, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_pause(proc: subprocess.Popen, point: str, timeout: float = 120) -> bool:
    """Read stdout until the process says it paused at `point` (False when it finished without pausing)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line:
            if proc.poll() is not None:
                return False
            continue
        if f"paused at {point}" in line:
            return True
    raise AssertionError(f"never paused at {point}")


def kill(proc: subprocess.Popen) -> str:
    """SIGKILL the process group; returns what the process had written to stderr."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, err = proc.communicate(timeout=60)
    return err or ""


def acknowledged(stderr: str) -> set[str]:
    return set(_ACK.findall(stderr))


def source_pages(root: Path) -> dict[str, list[str]]:
    """{locator file name: [capture ids of its source pages]}."""
    from stigmergy.pages.source import parse_source_page

    out: dict[str, list[str]] = {}
    for path in sorted((root / "sources").rglob("cap_*.md")):
        page = parse_source_page(path.read_text(encoding="utf-8"))
        out.setdefault(Path(page.locator).name, []).append(page.id)
    return out


def problems(root: Path, acked: set[str], captured: set[str], lint: bool = True) -> list[str]:
    """Everything that would need a person after a crash. `acked`: capture ids a killed process
    acknowledged; `captured`: file names whose capture finished (each must be there exactly once)."""
    found = []
    fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, capture_output=True, text=True)
    if fsck.returncode != 0:
        found.append(f"git fsck: {fsck.stdout}{fsck.stderr}")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True)
    if status.stdout.strip():
        found.append(f"working tree not clean: {status.stdout.strip()}")
    for lock in (".git/index.lock", ".git/HEAD.lock"):
        if (root / lock).exists():
            found.append(f"{lock} left behind")
    pages = source_pages(root)
    ids = [cid for cids in pages.values() for cid in cids]
    for name, cids in pages.items():
        if len(cids) > 1:
            found.append(f"{name} captured {len(cids)} times: {cids}")
    for cid in acked:
        if cid not in ids:
            found.append(f"acknowledged capture {cid} is missing")
    for name in captured:
        if name not in pages:
            found.append(f"finished capture of {name} is missing")
    state = in_process(root, "--json", "status")
    if state.returncode != 0:
        found.append(f"status: {state.stderr}")
    elif json.loads(state.stdout)["pending"]:
        found.append(f"pending captures: {json.loads(state.stdout)['pending']}")
    check = in_process(root, "fsck")
    if check.returncode != 0:
        found.append(f"stigmergy fsck: {check.stdout}{check.stderr}")
    if lint:
        linted = in_process(root, "lint")
        if linted.returncode != 0:
            found.append(f"stigmergy lint: {linted.stdout}{linted.stderr}")
    return found
