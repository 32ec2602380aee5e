"""Fault injection: a real `stigmergy` process is killed (SIGKILL, git children included) at every named
pause point and at a random moment during capture, file, resume and index; the next command must succeed
without a person's repair, every acknowledged capture must be in the repository exactly once, and
`git fsck`, `stigmergy fsck` and `lint` must be clean. More random kills: `bench/faults.py`."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from fault_support import (
    acknowledged,
    in_process,
    kill,
    problems,
    spawn,
    stigmergy,
    wait_for_pause,
    write_docs,
)


@pytest.fixture
def docs(tmp_path: Path) -> list[Path]:
    return write_docs(tmp_path / "docs")


def _capture(root: Path, doc: Path, *extra: str, process: bool = False) -> None:
    """Capture `doc`; `process=True` for the command right after a crash (a real process, like a user's)."""
    done = (stigmergy if process else in_process)(root, "capture", str(doc), *extra)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("point", ["ack", "staged", "commit", "bookkeeping"])
def test_capture_killed_at_each_point(wiki: Path, docs: list[Path], point: str) -> None:
    _capture(wiki, docs[0])
    proc = spawn(wiki, "capture", str(docs[1]), env={"STIGMERGY_PAUSE_AT": point})
    assert wait_for_pause(proc, point)
    acked = acknowledged(kill(proc))
    assert acked  # every one of these points comes after the acknowledgement
    # The next command, whatever it is, finishes the interrupted capture first.
    _capture(wiki, docs[2], process=True)
    assert problems(wiki, acked, {docs[0].name, docs[1].name, docs[2].name}) == []


@pytest.mark.parametrize("point", ["staged", "bookkeeping"])  # `commit`: tests/test_capture.py
def test_file_killed_at_each_point(wiki: Path, docs: list[Path], point: str) -> None:
    for doc in docs[:2]:
        _capture(wiki, doc, "--no-file")
    proc = spawn(wiki, "file", env={"STIGMERGY_PAUSE_AT": point})
    assert wait_for_pause(proc, point)
    kill(proc)
    done = stigmergy(wiki, "file")
    assert done.returncode == 0, done.stderr
    assert json.loads(in_process(wiki, "--json", "status").stdout)["counts"]["unfiled"] == 0
    assert problems(wiki, set(), {docs[0].name, docs[1].name}) == []


def test_resume_killed_while_it_finishes_a_capture(wiki: Path, docs: list[Path]) -> None:
    proc = spawn(wiki, "capture", str(docs[0]), env={"STIGMERGY_PAUSE_AT": "commit"})
    assert wait_for_pause(proc, "commit")
    acked = acknowledged(kill(proc))
    resuming = spawn(wiki, "resume", env={"STIGMERGY_PAUSE_AT": "staged"})
    assert wait_for_pause(resuming, "staged")
    kill(resuming)
    done = stigmergy(wiki, "resume")
    assert done.returncode == 0 and "resumed 1" in done.stdout, done.stdout + done.stderr
    assert problems(wiki, acked, {docs[0].name}) == []


def test_capture_killed_at_a_random_moment(wiki: Path, docs: list[Path]) -> None:
    rng = random.Random(time.time_ns())
    started = time.monotonic()
    _capture(wiki, docs[0], process=True)
    took = time.monotonic() - started
    proc = spawn(wiki, "capture", str(docs[1]))
    delay = rng.uniform(0.0, took * 1.2)
    time.sleep(delay)
    acked = acknowledged(kill(proc))
    _capture(wiki, docs[2], process=True)
    # Killed before its acknowledgement, a capture may be absent, but never twice.
    assert problems(wiki, acked, {docs[0].name, docs[2].name}) == [], f"killed after {delay:.2f} s"


# ---------------------------------------------------------------- index (loads the real model)


def _index_ok(root: Path) -> dict:
    built = stigmergy(root, "--json", "index")
    assert built.returncode == 0, built.stderr
    check = stigmergy(root, "index", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    return json.loads(built.stdout)


@pytest.mark.model
@pytest.mark.parametrize("point", ["index-batch", "index-swap"])
def test_index_killed_resumes_without_re_embedding(
    wiki: Path, docs: list[Path], point: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from test_index_support import link_model_cache

    link_model_cache(wiki, tmp_path_factory.getbasetemp())
    for doc in docs:
        _capture(wiki, doc)
    small_batches = {"STIGMERGY_EMBEDDER__BATCH_SIZE": "1", "STIGMERGY_PAUSE_AT": point}
    proc = spawn(wiki, "index", env=small_batches)
    assert wait_for_pause(proc, point)
    # A reader during the first build is told the index is being built, not an error about models.
    reading = stigmergy(wiki, "search", "Atlas beta")
    assert reading.returncode != 0 and "being built" in reading.stderr, reading.stderr
    kill(proc)
    report = _index_ok(wiki)
    # What the killed run embedded was kept: the next run embeds only the rest.
    assert report["fragments_reused"] >= 8 and report["fragments_embedded"] < report["fragments_total"]
    assert stigmergy(wiki, "search", "Atlas beta").returncode == 0
    assert problems(wiki, set(), {d.name for d in docs}) == []


@pytest.mark.model
def test_corrupt_index_is_reported_and_rebuilt(wiki: Path, docs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> None:
    from test_index_support import link_model_cache

    link_model_cache(wiki, tmp_path_factory.getbasetemp())
    _capture(wiki, docs[0])
    _index_ok(wiki)
    db = wiki / ".stigmergy" / "index.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    for args in (["search", "Atlas"], ["index"]):
        broken = stigmergy(wiki, *args)
        assert broken.returncode == 1 and "unreadable" in broken.stderr and "--rebuild" in broken.stderr
        assert "Traceback" not in broken.stderr
    status = stigmergy(wiki, "status")
    assert "UNREADABLE" in status.stdout and "index --rebuild" in status.stdout
    assert stigmergy(wiki, "index", "--rebuild").returncode == 0
    assert stigmergy(wiki, "index", "--check").returncode == 0
    assert stigmergy(wiki, "search", "Atlas").returncode == 0


@pytest.mark.model
def test_killed_capture_then_one_index_passes_check(wiki: Path, docs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> None:
    from test_index_support import link_model_cache

    link_model_cache(wiki, tmp_path_factory.getbasetemp())
    _capture(wiki, docs[0])
    _index_ok(wiki)
    proc = spawn(wiki, "capture", str(docs[1]), env={"STIGMERGY_PAUSE_AT": "commit"})
    assert wait_for_pause(proc, "commit")
    acked = acknowledged(kill(proc))
    _capture(wiki, docs[2])
    _index_ok(wiki)
    assert problems(wiki, acked, {docs[0].name, docs[1].name, docs[2].name}) == []
