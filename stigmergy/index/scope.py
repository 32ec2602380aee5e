"""Who may read what. Scope is applied before retrieval: every query below takes the reader's layers."""

from __future__ import annotations

from stigmergy.settings import Settings


def readable_layers(settings: Settings, reader: str) -> tuple[str, ...]:
    """Layers declared in stigmergy.toml whose readers include `reader` (or "*"). A layer present on disk
    but not declared is readable by no one."""
    who = reader.strip().casefold()
    out = []
    for layer in settings.layers:
        readers = {r.strip().casefold() for r in layer.readers}
        if "*" in readers or (who and who in readers):
            out.append(layer.name)
    return tuple(out)


def marks(values: tuple[str, ...] | list[str]) -> str:
    """`?, ?, ?` for an SQL IN list (an empty list matches nothing)."""
    return ",".join("?" * len(values)) if values else "NULL"
