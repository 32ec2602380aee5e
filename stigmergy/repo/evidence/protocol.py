"""The `EvidenceStore` protocol: what every backend of the evidence store offers (see the package)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from stigmergy.errors import StigmergyError

# What names an object: the hex digest of its bytes under this hash (source pages record it as `sha256`).
HASH_NAME = "sha256"


class EvidenceError(StigmergyError):
    pass


def object_id(data: bytes) -> str:
    """The id an object of these bytes has in every evidence store."""
    return hashlib.sha256(data).hexdigest()


class EvidenceStore(Protocol):
    """Original bytes and readable text, content-addressed. Objects are immutable: `put` of bytes already
    held is a no-op (a corrupt copy is replaced), `delete` is for erasure only."""

    hash_name: str

    def put(self, data: bytes, durable: bool = True) -> str:
        """Store `data`; its id (`object_id(data)`). `durable=False`: an object Git can give again (an
        operation's patch) need not be on the disk before this returns, only written whole."""
        ...

    def get(self, oid: str, verify: bool = True) -> bytes:
        """The object's bytes (EvidenceError when missing, or, with `verify`, corrupt)."""
        ...

    def has(self, oid: str) -> bool:
        """The object is here (intact or not)."""
        ...

    def intact(self, oid: str) -> bool:
        """The object is here and its bytes hash to its id."""
        ...

    def delete(self, oid: str) -> bool:
        """Remove the object (erase); False when it was not here."""
        ...

    def iter_ids(self) -> Iterator[str]:
        """Every object id the store holds."""
        ...

    def residue(self, oid: str) -> list[tuple[str, str]]:
        """Where the store still holds `oid` (the object, old versions it keeps) as (where, detail) pairs:
        the erase audit's findings in this store, empty when nothing of it is left."""
        ...


@dataclass(frozen=True)
class FsckProblem:
    sha256: str
    problem: str
