"""Layer policy is one rule: who reads a layer and who may be shown it compare readers the same way
(stripped, casefolded), whichever caller asks."""

from __future__ import annotations

from stigmergy.gates.context import readers_allow as gates_readers_allow
from stigmergy.index.scope import readable_layers as index_readable_layers
from stigmergy.layers import readable_layers, readers_allow
from stigmergy.settings import LayerSettings, Settings


def _settings() -> Settings:
    return Settings(layers=(
        LayerSettings("public", ("*",)),
        LayerSettings("board", ("Alice@Example.com ",)),
        LayerSettings("exec", ("alice@example.com", "bob@example.com")),
    ))


def test_readers_compare_casefolded_for_reading_and_for_citing() -> None:
    s = _settings()
    assert readable_layers(s, "ALICE@example.COM") == ("public", "board", "exec")
    assert readable_layers(s, "bob@example.com") == ("public", "exec")
    # A board page may cite exec: everyone who reads board (Alice) reads exec, whatever the case.
    assert readers_allow(s, "board", "exec")
    assert not readers_allow(s, "exec", "board")  # Bob reads exec but not board
    assert not readers_allow(s, "public", "board") and readers_allow(s, "board", "public")
    assert not readers_allow(s, "board", "undeclared")


def test_the_index_and_the_gates_ask_the_same_function() -> None:
    assert index_readable_layers is readable_layers
    assert gates_readers_allow is readers_allow
