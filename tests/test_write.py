"""The write path's hand-over: a queued capture is a frozen, typed value whose queue row keeps the keys
earlier versions wrote, so a capture acknowledged before an upgrade still resumes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import run_cli

from stigmergy.capture.queue import QueuedCapture

ROW_KEYS = {
    "capture_id", "op_id", "title", "captured_at", "occurred_at", "submitted_by", "layer", "origin", "locator",
    "project", "metadata", "resolves", "rationale", "content_sha", "readable_sha", "artifacts", "file", "force",
    "redaction",  # set when a credential was redacted (absent from rows of earlier versions)
}


def test_queued_capture_round_trips_through_its_queue_row(wiki: Path) -> None:
    from stigmergy.repo.layout import Layout
    from stigmergy.repo.state import StateDB

    code, _, err = run_cli(["capture", "--no-file", "--text", "Aurora reached $1.3M ARR in Q1 2026."], wiki)
    assert code == 0, err
    db = StateDB(Layout(wiki).state_db, readonly=True)
    try:
        row = db.captures()[0]
    finally:
        db.close()
    queued = QueuedCapture(
        capture_id=row.capture_id, op_id=row.op_id, title="T", captured_at=row.captured_at,
        occurred_at="2026-03-01", submitted_by="a", layer="public", origin="cli", locator="text", project=None,
        metadata={"k": "v"}, resolves=None, rationale=None, content_sha="0" * 64, readable_sha="1" * 64,
        artifacts=(), file=True, force=False,
    )
    record = queued.to_record()
    assert set(record) == ROW_KEYS
    assert QueuedCapture.from_record(record) == queued
    assert queued.source_path == row.source_path
    with pytest.raises(dataclasses.FrozenInstanceError):
        queued.title = "changed"  # type: ignore[misc]
