"""The storage contracts, run against every backend: the evidence store on the local disk and in an S3
bucket (moto's server on loopback, tests/servers.py); a PostgreSQL state store would join the lists below
and pass the same tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from stigmergy.repo.evidence import (
    HASH_NAME,
    EvidenceError,
    EvidenceStore,
    FsckProblem,
    LocalEvidenceStore,
    object_id,
    verify_objects,
)
from stigmergy.repo.evidence.s3 import S3EvidenceStore, S3Location
from stigmergy.repo.state import CaptureRow, OperationRow, PendingCapture, StateDB, StateStore


def _s3(request: pytest.FixtureRequest) -> S3EvidenceStore:
    env = request.getfixturevalue("s3_env")
    where = S3Location(env["STIGMERGY_EVIDENCE__BUCKET"], env["STIGMERGY_EVIDENCE__PREFIX"],
                       env["STIGMERGY_EVIDENCE__ENDPOINT_URL"], wiki="c" * 40)
    return S3EvidenceStore(where)


EVIDENCE_BACKENDS: dict[str, Callable[[pytest.FixtureRequest, Path], EvidenceStore]] = {
    "local": lambda request, tmp: LocalEvidenceStore(tmp / "objects"),
    "s3": lambda request, tmp: _s3(request),
}
STATE_BACKENDS: dict[str, Callable[[Path], StateStore]] = {
    "sqlite": lambda tmp: StateDB(tmp / "state.sqlite"),
}


@pytest.fixture(params=sorted(EVIDENCE_BACKENDS))
def evidence(request: pytest.FixtureRequest, tmp_path: Path) -> EvidenceStore:
    return EVIDENCE_BACKENDS[request.param](request, tmp_path)


@pytest.fixture(params=sorted(STATE_BACKENDS))
def state(request: pytest.FixtureRequest, tmp_path: Path) -> StateStore:
    store = STATE_BACKENDS[request.param](tmp_path)
    yield store
    store.close()


def test_evidence_put_get_intact_delete_iterate(evidence: EvidenceStore) -> None:
    assert evidence.hash_name == HASH_NAME == "sha256"
    oid = evidence.put(b"Aurora reached $1.3M ARR.")
    assert oid == object_id(b"Aurora reached $1.3M ARR.") and len(oid) == 64
    assert evidence.put(b"Aurora reached $1.3M ARR.") == oid  # content-addressed: the same id, once
    assert evidence.get(oid) == b"Aurora reached $1.3M ARR." and evidence.has(oid) and evidence.intact(oid)
    other = evidence.put(b"second")
    assert sorted(evidence.iter_ids()) == sorted({oid, other})
    assert evidence.delete(oid) and not evidence.has(oid) and not evidence.intact(oid)
    assert evidence.delete(oid) is False
    with pytest.raises(EvidenceError, match="missing"):
        evidence.get(oid)
    with pytest.raises(EvidenceError):
        evidence.get("../../etc/passwd")  # an id is a digest, never a path


def _tamper(store: EvidenceStore, oid: str, data: bytes) -> None:
    """Overwrite an object's bytes behind the store's back (a disk fault, someone with bucket access)."""
    if isinstance(store, LocalEvidenceStore):
        store.path(oid).chmod(0o600)
        store.path(oid).write_bytes(data)
    else:
        assert isinstance(store, S3EvidenceStore)
        store.client.put_object(Bucket=store.where.bucket, Key=store.key(oid), Body=data)


def test_evidence_a_corrupt_object_is_told_and_replaced(evidence: EvidenceStore) -> None:
    oid = evidence.put(b"original")
    _tamper(evidence, oid, b"tampered")
    assert evidence.has(oid) and not evidence.intact(oid)
    with pytest.raises(EvidenceError, match="corrupt"):
        evidence.get(oid)
    assert evidence.get(oid, verify=False) == b"tampered"
    assert [p for p in verify_objects(evidence)] == [FsckProblem(oid, "content does not match its sha256")]
    assert evidence.put(b"original") == oid and evidence.intact(oid) and evidence.get(oid) == b"original"
    assert verify_objects(evidence) == []


def test_evidence_residue_names_what_is_left(evidence: EvidenceStore) -> None:
    oid = evidence.put(b"to be erased")
    assert [detail for _, detail in evidence.residue(oid)] == ["the evidence object is present"]
    assert evidence.delete(oid) and evidence.residue(oid) == []


def _op(op_id: str, commit: str | None = "c" * 40) -> OperationRow:
    return OperationRow(op_id, "capture", "committed", commit, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z",
                        "t", {"capture": "cap_1"}, None)


def test_state_queue_catalogue_and_operations(state: StateStore) -> None:
    state.enqueue("cap_1", "op_1", "2026-01-01T00:00:00Z", {"content_sha": "a" * 64, "layer": "public"})
    assert state.pending() == [PendingCapture("cap_1", "op_1", {"content_sha": "a" * 64, "layer": "public"}, None)]
    assert state.find_pending_content("a" * 64, "public") == "cap_1"
    state.set_inflight("cap_1", {"sources/x.md": None})
    assert state.pending()[0].inflight == {"sources/x.md": None}
    row = CaptureRow("cap_1", "a" * 64, "public", "sources/2026/01/cap_1.md", "op_1", "2026-01-01T00:00:00Z", "text")
    state.record_operation(_op("op_1"), capture=row, done_capture_id="cap_1")
    assert state.pending() == [] and state.captures() == [row] and state.capture("cap_1") == row
    assert state.find_capture("a" * 64, "public") == row and state.find_capture("a" * 64, "board") is None
    assert state.captures_of_content("a" * 64, "public") == ["cap_1"]
    state.record_operation(_op("op_2"), capture=dataclasses.replace(row, filed=True))
    assert state.capture("cap_1") == dataclasses.replace(row, filed=True)
    assert state.has_operation("op_1") and state.operation("op_2") == _op("op_2")
    assert [o.id for o in state.operations(limit=5)] == ["op_2", "op_1"]
    assert state.meta("last_commit") == "c" * 40
    assert state.counts() == {"operations": 2, "refused": 0, "captures": 1, "pending": 0, "unfiled": 0}
    state.begin_inflight("op_3", {"wiki/notes/A.md": "before"})
    assert state.inflight_ops() == [("op_3", {"wiki/notes/A.md": "before"})]
    state.end_inflight("op_3")
    assert state.inflight_ops() == []
    state.drop_erased(("cap_1",), ("op_1",))
    assert state.captures() == [] and not state.has_operation("op_1") and state.has_operation("op_2")
    state.compact()
