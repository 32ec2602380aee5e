"""The `StateStore` protocol and the frozen values that cross it (see the package docstring)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class OperationRow:
    id: str
    kind: str
    status: str
    commit_sha: str | None
    started_at: str
    finished_at: str | None
    summary: str
    manifest: dict[str, Any]
    patch_sha: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "commit": self.commit_sha,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "summary": self.summary,
            "manifest": self.manifest,
            "patch_sha256": self.patch_sha,
        }


@dataclass(frozen=True)
class CaptureRow:
    """A capture in the catalogue: its bytes' hash and layer (what re-capturing the same file finds), its
    source page, the operation that captured it, whether it was filed, and whether it was rebuilt from Git
    (its original bytes may not be here)."""

    capture_id: str
    content_sha: str
    layer: str
    source_path: str
    op_id: str
    captured_at: str
    locator: str
    filed: bool = False
    rebuilt: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PendingCapture:
    """An acknowledged capture not yet committed: its envelope (everything needed to render and file it)
    and, while it writes, the pre-images of the paths it touches."""

    capture_id: str
    op_id: str
    envelope: dict[str, Any]
    inflight: dict[str, Any] | None


@dataclass(frozen=True)
class OperationRecord:
    """An operation's row as the database stores it: the manifest in its stored JSON text (what an erase
    searches for erased ids)."""

    id: str
    commit_sha: str | None
    manifest_json: str
    patch_sha: str | None
    summary: str


class StateStore(Protocol):
    """The bookkeeping of one repository: the capture queue, the capture catalogue, the operations and
    their change records, the in-flight pre-images, and a few meta values. A cache of what Git says."""

    def close(self) -> None: ...

    # -- the queue
    def enqueue(self, capture_id: str, op_id: str, created_at: str, envelope: dict[str, Any]) -> None: ...
    def pending(self) -> list[PendingCapture]: ...
    def find_pending_content(self, content_sha: str, layer: str) -> str | None: ...
    def set_inflight(self, capture_id: str, inflight: dict[str, Any] | None) -> None: ...
    def begin_inflight(self, op_id: str, preimages: dict[str, Any]) -> None: ...
    def inflight_ops(self) -> list[tuple[str, dict[str, Any]]]: ...
    def end_inflight(self, op_id: str) -> None: ...

    # -- the catalogue
    def find_capture(self, content_sha: str, layer: str) -> CaptureRow | None: ...
    def capture(self, capture_id: str) -> CaptureRow | None: ...
    def captures(self) -> list[CaptureRow]: ...
    def captures_of_content(self, content_sha: str, layer: str) -> list[str]: ...
    def forget_capture(self, capture_id: str) -> None: ...

    # -- operations
    def record_operation(self, row: OperationRow, capture: CaptureRow | None = None,
                         done_capture_id: str | None = None, durable: bool = True) -> None:
        """One transaction: the operation, its capture's catalogue row, the queue row done, the in-flight
        pre-images dropped, and `last_commit`. `durable=False` (a write pipeline's committed operation, which
        `resume` rebuilds from the commit's trailers) need not survive a power cut, only a killed process."""
        ...
    def has_operation(self, op_id: str) -> bool: ...
    def operation(self, op_id: str) -> OperationRow | None:
        """By id, else by a unique prefix of its id or commit."""
        ...
    def operations(self, limit: int = 50, kind: str | None = None) -> list[OperationRow]: ...
    def operation_records(self) -> list[OperationRecord]: ...
    def patches(self) -> list[tuple[str, str]]: ...
    def rewrite_operation(self, op_id: str, commit_sha: str | None, manifest: dict[str, Any], patch_sha: str | None,
                          summary: str) -> None: ...
    def drop_erased(self, capture_ids: tuple[str, ...], op_ids: tuple[str, ...]) -> None: ...
    def compact(self) -> None: ...
    def counts(self) -> dict[str, int]: ...

    # -- meta
    def meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
