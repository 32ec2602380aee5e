"""What a bench writes with `--json` for the README's generated table (scripts/bench_table.py reads it): the
command that ran, the date, the machine's load average before and after the run, the README rows, and the
bench's own figures beside them, so that no figure in the README outlives the run that made it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


def load_now() -> float | None:
    """The one-minute load average, or None where /proc is not there."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def met(ok: bool) -> str:
    """A README row's verdict on its target."""
    return "met" if ok else "not met"


def write(path: Path, command: str, loads: list[float | None], rows: list[list[str]], figures: dict[str, Any]) -> None:
    """The results file: `loads` are the load averages seen during the run (None where unknown)."""
    seen = [x for x in loads if x is not None]
    data: dict[str, Any] = {"bench": command, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            "load": f"{min(seen):.1f}–{max(seen):.1f}" if seen else "?", "readme_rows": rows}
    data.update((k, v) for k, v in figures.items() if k not in data)  # the header is this file's, not a figure
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=str) + "\n")
