"""Content-addressed evidence store: original bytes and readable text, keyed by sha256.

Objects live in fan-out folders (`ab/cdef…`), are written to a temp file, fsynced and renamed into
place, and made read-only. The `EvidenceStore` protocol is the seam for an S3-compatible store: the
rest of the code (the `Repository`, fsck, capture) sees only the protocol.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from stigmergy.errors import StigmergyError
from stigmergy.repo.files import write_atomic


class EvidenceError(StigmergyError):
    pass


class EvidenceStore(Protocol):
    def put(self, data: bytes) -> str: ...
    def get(self, sha256: str, verify: bool = True) -> bytes: ...
    def has(self, sha256: str) -> bool: ...
    def delete(self, sha256: str) -> bool: ...
    def iter_ids(self) -> Iterator[str]: ...


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FsckProblem:
    sha256: str
    problem: str


class LocalEvidenceStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise EvidenceError(f"not a sha256 object id: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:]

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def put(self, data: bytes) -> str:
        digest = sha256_hex(data)
        target = self.path(digest)
        if target.is_file():
            if self.intact(digest):
                return digest
            os.chmod(target, stat.S_IWUSR | stat.S_IRUSR)  # corrupt: the right bytes replace it
        write_atomic(target, data, durable=True, mode=stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        return digest

    def intact(self, sha256: str) -> bool:
        """The object is here and its bytes hash to its name."""
        try:
            return sha256_hex(self.path(sha256).read_bytes()) == sha256
        except OSError:
            return False

    def get(self, sha256: str, verify: bool = True) -> bytes:
        target = self.path(sha256)
        try:
            data = target.read_bytes()
        except FileNotFoundError as exc:
            raise EvidenceError(f"evidence object {sha256} is missing", hint="run `stigmergy fsck`") from exc
        if verify and sha256_hex(data) != sha256:
            raise EvidenceError(f"evidence object {sha256} is corrupt", hint="run `stigmergy fsck`")
        return data

    def delete(self, sha256: str) -> bool:
        target = self.path(sha256)
        if not target.exists():
            return False
        os.chmod(target, stat.S_IWUSR | stat.S_IRUSR)
        target.unlink()
        return True

    def iter_ids(self) -> Iterator[str]:
        if not self.root.is_dir():
            return
        for fan in sorted(self.root.iterdir()):
            if not fan.is_dir() or len(fan.name) != 2:
                continue
            for obj in sorted(fan.iterdir()):
                if not obj.name.startswith(".tmp-"):
                    yield fan.name + obj.name



def verify_objects(store: EvidenceStore) -> list[FsckProblem]:
    """Re-hash every object of any store."""
    problems = []
    for oid in store.iter_ids():
        try:
            data = store.get(oid, verify=False)
        except (OSError, EvidenceError) as exc:
            problems.append(FsckProblem(oid, f"unreadable: {exc}"))
            continue
        if sha256_hex(data) != oid:
            problems.append(FsckProblem(oid, "content does not match its sha256"))
    return problems
