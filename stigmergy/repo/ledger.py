"""Events delivered from outside (a chat tool's Events API), each handled at most once, across restarts.

A chat tool redelivers an event it thinks was lost (Slack: `X-Slack-Retry-Num`, the same `event_id`), and
two deliveries may arrive together. Each event id is claimed by creating its file with O_EXCL, which one
caller alone can do, whatever the process; the file holds the event until it is settled, so a server
that stops between the acknowledgement and the capture picks the event up again when it starts
(`pending`), and the settled file keeps only the outcome (no message text stays in local state).

`.stigmergy/events/<source>/<event id>.json`, local state (git-ignored, never read from tracked files).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from stigmergy.errors import UsageError
from stigmergy.repo.files import write_atomic

_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")
QUEUED = "queued"


def _checked(key: str) -> str:
    # The key names a file: only a plain token (Slack's event ids are `Ev` + letters and digits).
    if not _KEY.match(key):
        raise UsageError(f"{key[:40]!r} is not an event id")
    return key


class EventLedger:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / f"{_checked(key)}.json"

    def claim(self, key: str, payload: Mapping[str, Any]) -> bool:
        """Record `key` as received, holding `payload` until it is settled; False when it was claimed
        before (by this process or another, now or in an earlier run)."""
        path = self._path(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as fh:
            fh.write(json.dumps({"status": QUEUED, "payload": payload}, sort_keys=True).encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        return True

    def settle(self, key: str, outcome: Mapping[str, Any]) -> None:
        """Replace the held payload with the outcome (status and what it names)."""
        write_atomic(self._path(key), json.dumps(dict(outcome), sort_keys=True).encode("utf-8"), mode=0o600)

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            raw = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return raw if isinstance(raw, dict) else None

    def pending(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(key, payload) of every event claimed and not yet settled, oldest first."""
        if not self.folder.is_dir():
            return
        files = sorted(self.folder.glob("*.json"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        for path in files:
            entry = self.get(path.stem) if _KEY.match(path.stem) else None
            if entry and entry.get("status") == QUEUED and isinstance(entry.get("payload"), dict):
                yield path.stem, entry["payload"]
