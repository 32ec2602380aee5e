"""Rendering helpers shared by the command modules (the only place besides cli/ that may touch rich)."""

from __future__ import annotations

import json
import sys
from typing import Any

from stigmergy.errors import StigmergyError


def print_error(exc: StigmergyError) -> None:
    # Messages may quote file names or captured text: print them as plain text, never as markup.
    sys.stderr.write(f"error: {exc.message}\n")
    if exc.hint:
        sys.stderr.write(f"hint: {exc.hint}\n")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False, default=str) + "\n")


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)
