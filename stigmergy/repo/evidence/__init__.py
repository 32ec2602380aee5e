"""The evidence store: the original bytes of every capture and their readable text, content-addressed
(`HASH_NAME`, sha256). Canonical with Git: the store is never rebuilt, only verified (`fsck`).

`EvidenceStore` (protocol.py) is the seam every caller sees (the `Repository`, capture, fsck, erase);
`local.py` is the folder backend under `.stigmergy/objects/`, an S3-compatible one goes beside it.
"""

from __future__ import annotations

from stigmergy.repo.evidence.local import LocalEvidenceStore
from stigmergy.repo.evidence.protocol import HASH_NAME, EvidenceError, EvidenceStore, FsckProblem, object_id

# The name the rest of the code has always used for the object id of some bytes.
sha256_hex = object_id


def verify_objects(store: EvidenceStore) -> list[FsckProblem]:
    """Re-hash every object of any store."""
    problems = []
    for oid in store.iter_ids():
        try:
            data = store.get(oid, verify=False)
        except (OSError, EvidenceError) as exc:
            problems.append(FsckProblem(oid, f"unreadable: {exc}"))
            continue
        if object_id(data) != oid:
            problems.append(FsckProblem(oid, "content does not match its sha256"))
    return problems


__all__ = ["HASH_NAME", "EvidenceError", "EvidenceStore", "FsckProblem", "LocalEvidenceStore", "object_id", "sha256_hex",
           "verify_objects"]
