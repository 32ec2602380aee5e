"""The service: one front door whose write operations each take the writer lock and apply the recovery
policy declared for them (stigmergy/service/policy.py), used the way a front end uses it."""

from __future__ import annotations

import ast
import dataclasses
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_cli

from stigmergy.errors import LockTimeoutError, NotARepositoryError
from stigmergy.repo.layout import Layout
from stigmergy.repo.lock import WriterLock
from stigmergy.service import PAGE_STATUSES, PAGE_TYPES, WRITE_POLICIES, Identity, Recovery, WikiService
from stigmergy.settings import load_settings

# WikiService is written in several modules of the package (core.py, judgements.py, wiki.py).
SERVICE = sorted((REPO_ROOT / "stigmergy" / "service").glob("*.py"))
READER = "reader@example.com"


def _service(root: Path, timeout: float | None = None) -> WikiService:
    settings = load_settings(root)
    if timeout is not None:
        settings = dataclasses.replace(settings, lock=dataclasses.replace(settings.lock, timeout_seconds=timeout))
    return WikiService(root, settings, Identity(READER, "Reader <reader@example.com>"), {})


def _operations_taking_the_lock() -> list[str]:
    """The operation names `WikiService` passes to `_writing`, in the order they appear."""
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in SERVICE]
    return [node.args[0].value for tree in trees for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "_writing"
            and node.args and isinstance(node.args[0], ast.Constant)]


def test_every_write_operation_has_one_declared_policy() -> None:
    named = _operations_taking_the_lock()
    assert len(named) == len(set(named)), "an operation takes the lock in two places"
    # maintain takes its lock inside its own steps (OWN_STEP): it is declared, and asserted in the method.
    assert set(named) | {"maintain"} == set(WRITE_POLICIES)
    assert WRITE_POLICIES["erase"].wait is False and WRITE_POLICIES["maintain"].wait is False
    assert WRITE_POLICIES["import"].recovery is Recovery.REFUSE_PENDING
    assert WRITE_POLICIES["recompile"].recovery is Recovery.RESUME_IF_IDLE


def test_an_erase_is_refused_at_once_while_another_writer_works(wiki: Path) -> None:
    run_cli(["capture", "--text", "Aurora reached $1M ARR.", "--no-file"], cwd=wiki)
    service = _service(wiki, timeout=30.0)
    held = WriterLock(Layout(wiki).lock_file, 0.0)
    held.acquire()
    try:
        t0 = time.monotonic()
        with pytest.raises(LockTimeoutError):
            with service._writing("erase"):
                pass
        assert time.monotonic() - t0 < 5  # never waited the 30 s a capture would
        t0 = time.monotonic()
        with pytest.raises(LockTimeoutError):
            _service(wiki, timeout=0.3).file()
        assert time.monotonic() - t0 >= 0.3  # a filing waits its timeout first
    finally:
        held.release()


def test_import_is_refused_while_a_capture_is_pending(wiki: Path, tmp_path: Path) -> None:
    service = _service(wiki)
    service.repository().state.enqueue(
        "cap_01M8QF0PK35W8AF8HK9GA1RN99", "op_01M8QF0PK35W8AF8HK9GA1RN99", "2026-01-01T00:00:00Z", {})
    from stigmergy.errors import StigmergyError

    with pytest.raises(StigmergyError, match="pending work") as err:
        service.import_bundle(tmp_path / "no-bundle")  # refused before the bundle is even read
    assert err.value.exit_code == 3


def test_a_service_captures_searches_and_reads_as_its_caller(wiki: Path) -> None:
    service = _service(wiki)
    outcome = service.capture_text("# Aurora\n\nAurora reached $1.3M ARR in Q1 2026.\n", origin="test")
    assert outcome.status == "filed" and outcome.source_path
    status = service.status()
    assert status["counts"]["captures"] == 1 and status["pending"] == []
    assert service.log(limit=5)[0]["kind"] == "capture"
    assert [c for c in service.contradictions()] == []
    assert service.overview()["pages"]["note"] >= 1


def test_a_service_without_a_repository_says_so(tmp_path: Path) -> None:
    service = WikiService(None, load_settings(None), Identity(READER), {})
    with pytest.raises(NotARepositoryError):
        service.status()


def test_the_service_names_the_page_types_and_statuses_the_contracts_use() -> None:
    from stigmergy.pages.wiki import STATUSES
    from stigmergy.repo.layout import PAGE_TYPES as TYPES

    assert PAGE_TYPES == TYPES and PAGE_STATUSES == tuple(STATUSES)
