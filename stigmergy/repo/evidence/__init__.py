"""The evidence store: the original bytes of every capture and their readable text, content-addressed
(`HASH_NAME`, sha256). Canonical with Git: the store is never rebuilt, only verified (`fsck`).

`EvidenceStore` (protocol.py) is the seam every caller sees (the `Repository`, capture, fsck, erase);
`local.py` is the folder backend under `.stigmergy/objects/`; `s3.py` an S3-compatible bucket
(`[evidence] backend = "s3"`, boto3). `open_evidence` picks one from the settings.
"""

from __future__ import annotations

from pathlib import Path

from stigmergy.repo.evidence.local import LocalEvidenceStore
from stigmergy.repo.evidence.protocol import HASH_NAME, EvidenceError, EvidenceStore, FsckProblem, object_id
from stigmergy.settings import EvidenceSettings

# The name the rest of the code has always used for the object id of some bytes.
sha256_hex = object_id


def open_evidence(objects_dir: Path, settings: EvidenceSettings, wiki: str = "") -> EvidenceStore:
    """The evidence store `settings` name: the local folder `objects_dir`, or the bucket and prefix of the
    user's configuration, which holds the objects of the wiki whose identity (root commit) is `wiki`."""
    if settings.backend != "s3":
        return LocalEvidenceStore(objects_dir)
    from stigmergy.repo.evidence.s3 import S3EvidenceStore, S3Location

    return S3EvidenceStore(S3Location(settings.bucket, settings.prefix, settings.endpoint_url, settings.region, wiki))


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


__all__ = ["HASH_NAME", "EvidenceError", "EvidenceStore", "FsckProblem", "LocalEvidenceStore", "object_id", "open_evidence", "sha256_hex",
           "verify_objects"]
