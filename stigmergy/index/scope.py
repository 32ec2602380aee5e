"""Who may read what. Scope is applied before retrieval: every query below takes the reader's layers."""

from __future__ import annotations

from stigmergy.layers import readable_layers

__all__ = ["marks", "readable_layers"]


def marks(values: tuple[str, ...] | list[str]) -> str:
    """`?, ?, ?` for an SQL IN list (an empty list matches nothing)."""
    return ",".join("?" * len(values)) if values else "NULL"
