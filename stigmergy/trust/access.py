"""How often each page is read (search hits, reads, answers, describe, the same through MCP): derived,
local, never history. A service counts in memory and appends one line of counts per flush to
`.stigmergy/access.jsonl`; `maintain` sums them for its popular-but-unexamined list."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

FILE = "access.jsonl"
FLUSH_EVERY = 64  # accesses counted in memory before one append


class AccessCounter:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE
        self.pending: Counter[str] = Counter()

    def count(self, page_ids: Iterable[str | None]) -> None:
        self.pending.update(p for p in page_ids if p)
        if sum(self.pending.values()) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        if not self.pending or not self.path.parent.is_dir():
            self.pending.clear()
            return
        data = (json.dumps(dict(sorted(self.pending.items())), separators=(",", ":")) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.pending.clear()


def access_counts(state_dir: Path) -> Counter[str]:
    out: Counter[str] = Counter()
    try:
        text = (state_dir / FILE).read_text(encoding="utf-8")
    except OSError:
        return out
    for line in text.split("\n"):
        try:
            data = json.loads(line) if line else {}
        except ValueError:
            continue
        if isinstance(data, dict):
            out.update({str(k): int(v) for k, v in data.items() if isinstance(v, int) and v > 0})
    return out
