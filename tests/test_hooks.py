"""Git hooks: install/uninstall keep other hooks intact; the runner never runs twice at once; real
commits and pushes end up in the index."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_index_support import RepoBuilder, git, link_model_cache

from stigmergy.index.build import try_index_lock
from stigmergy.index.hooks import (
    BEGIN,
    CLIENT_HOOKS,
    install,
    install_server,
    installed,
    run_hook_index,
    uninstall,
)
from stigmergy.repo.layout import Layout


def test_install_and_uninstall_keep_foreign_hooks(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    hooks = b.root / ".git" / "hooks"
    mine = "#!/bin/sh\necho 'their hook'\nexit 0\n"
    (hooks / "post-commit").write_text(mine)
    changes = {c.hook: c.action for c in install(b.root, python="/opt/py/bin/python3")}
    assert changes == {"post-commit": "added", "post-merge": "created", "post-checkout": "created", "post-rewrite": "created"}
    text = (hooks / "post-commit").read_text()
    # our block sits right after the shebang, so their `exit 0` cannot skip it
    assert text.startswith("#!/bin/sh\n" + BEGIN) and "echo 'their hook'" in text
    assert "/opt/py/bin/python3 -I -m stigmergy.cli.hook )" in text  # isolated: no repository on the path
    assert all(installed(b.root)[h] for h in CLIENT_HOOKS)
    # installing twice replaces, never duplicates
    install(b.root, python="/opt/py/bin/python3")
    assert (hooks / "post-commit").read_text().count(BEGIN) == 1
    removed = {c.hook: c.action for c in uninstall(b.root)}
    assert removed == {"post-commit": "removed", "post-merge": "deleted", "post-checkout": "deleted", "post-rewrite": "deleted"}
    assert (hooks / "post-commit").read_text() == mine
    assert not (hooks / "post-merge").exists()


def test_runner_loops_once_more_when_asked_meanwhile(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    calls: list[int] = []

    def run() -> None:
        calls.append(1)
        if len(calls) == 1:
            # a second hook fires while we index: it cannot take the lock and leaves a mark
            assert run_hook_index(b.root, lambda: calls.append(99)) == 0

    assert run_hook_index(b.root, run) == 2
    assert 99 not in calls and len(calls) == 2
    assert not (Layout(b.root).state_dir / "index.dirty").exists()


def test_runner_defers_to_a_holder(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    lock = try_index_lock(Layout(b.root))
    assert lock is not None
    try:
        assert run_hook_index(b.root, lambda: pytest.fail("must not run")) == 0
        assert (Layout(b.root).state_dir / "index.dirty").exists()
    finally:
        lock.release()


def _stigmergy(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=cwd, capture_output=True, text=True)


def _wait_for(pred, seconds: float = 120.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.5)
    return False


@pytest.mark.model
def test_post_commit_indexes_in_the_background(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    b = RepoBuilder(tmp_path / "w")
    b.wiki("note", "First", "The first page.\n")
    b.commit("first")
    link_model_cache(b.root, tmp_path_factory.getbasetemp())
    proc = _stigmergy(["hooks", "install"], b.root)
    assert proc.returncode == 0, proc.stderr
    b.wiki("note", "Heliotrope", "Heliotrope bloom schedules for the roof garden.\n")
    t0 = time.monotonic()
    b.commit("second")  # the hook returns at once; indexing continues in the background
    assert time.monotonic() - t0 < 5

    def indexed() -> bool:
        out = _stigmergy(["search", "heliotrope roof garden", "--json"], b.root)
        return out.returncode == 0 and '"stale": false' in out.stdout and "Heliotrope.md" in out.stdout

    assert _wait_for(indexed), (Layout(b.root).state_dir / "hook.log").read_text()


@pytest.mark.model
def test_push_to_bare_repository_updates_checkout_index(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    bare = tmp_path / "hub.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    dev = RepoBuilder(tmp_path / "dev")
    dev.wiki("note", "Seed", "Seed page.\n")
    dev.commit("seed")
    git(dev.root, "remote", "add", "origin", str(bare))
    git(dev.root, "push", "-q", "origin", "main")
    checkout = tmp_path / "served"
    proc = _stigmergy(["hooks", "install", "--server", str(bare), "--checkout", str(checkout)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    link_model_cache(checkout, tmp_path_factory.getbasetemp())
    dev.wiki("note", "Marmalade", "Seville orange marmalade recipe for the team offsite.\n")
    dev.commit("marmalade")
    git(dev.root, "push", "-q", "origin", "main")  # the post-receive hook indexes before returning
    out = _stigmergy(["search", "orange marmalade offsite", "--json"], checkout)
    assert out.returncode == 0, out.stderr
    assert "wiki/notes/Marmalade.md" in out.stdout and '"stale": false' in out.stdout
    assert {c.action for c in uninstall(bare)} == {"deleted"}
    assert install_server  # imported for the API surface
