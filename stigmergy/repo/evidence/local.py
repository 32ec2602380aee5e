"""The evidence store on the local disk: `.stigmergy/objects/`, content-addressed by sha256. Every file
operation on evidence objects is in this module (an S3-compatible backend is a module beside it).

Objects live in fan-out folders (`ab/cdef…`), are written to a temp file, fsynced and renamed into place,
and made read-only.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from stigmergy.repo.evidence.protocol import HASH_NAME, EvidenceError, object_id
from stigmergy.repo.files import write_atomic


class LocalEvidenceStore:
    """`EvidenceStore` over a folder of fan-out object files."""

    hash_name = HASH_NAME

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise EvidenceError(f"not a sha256 object id: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:]

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def put(self, data: bytes, durable: bool = True) -> str:
        digest = object_id(data)
        target = self.path(digest)
        if target.is_file():
            if self.intact(digest):
                return digest
            os.chmod(target, stat.S_IWUSR | stat.S_IRUSR)  # corrupt: the right bytes replace it
        write_atomic(target, data, durable=durable, mode=stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        return digest

    def intact(self, sha256: str) -> bool:
        """The object is here and its bytes hash to its name."""
        try:
            return object_id(self.path(sha256).read_bytes()) == sha256
        except OSError:
            return False

    def get(self, sha256: str, verify: bool = True) -> bytes:
        target = self.path(sha256)
        try:
            data = target.read_bytes()
        except FileNotFoundError as exc:
            raise EvidenceError(f"evidence object {sha256} is missing", hint="run `stigmergy fsck`") from exc
        if verify and object_id(data) != sha256:
            raise EvidenceError(f"evidence object {sha256} is corrupt", hint="run `stigmergy fsck`")
        return data

    def delete(self, sha256: str) -> bool:
        target = self.path(sha256)
        if not target.exists():
            return False
        os.chmod(target, stat.S_IWUSR | stat.S_IRUSR)
        target.unlink()
        return True

    def residue(self, oid: str) -> list[tuple[str, str]]:
        return [(str(self.path(oid)), "the evidence object is present")] if self.path(oid).is_file() else []

    def iter_ids(self) -> Iterator[str]:
        if not self.root.is_dir():
            return
        for fan in sorted(self.root.iterdir()):
            if not fan.is_dir() or len(fan.name) != 2:
                continue
            for obj in sorted(fan.iterdir()):
                if not obj.name.startswith(".tmp-"):
                    yield fan.name + obj.name


def _conforms(store: LocalEvidenceStore) -> None:
    """The type checker proves here that this backend is an `EvidenceStore` (nothing calls it)."""
    from stigmergy.repo.evidence.protocol import EvidenceStore

    _: EvidenceStore = store
