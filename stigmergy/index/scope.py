"""Who may read what. Scope is applied before retrieval: every query below takes the reader's layers."""

from __future__ import annotations

from stigmergy.layers import readable_layers

__all__ = ["readable_layers"]
