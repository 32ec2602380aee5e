"""The words of the embedding model's own vocabulary: what tells the asker's plain English word the wiki never
uses ("the april ingestion *mess*", which a line may say in other words) from a term of art the wiki never names
("does pip verify *gpg* signatures", which no line can answer)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from stigmergy.errors import ConfigError
from stigmergy.index.embedder import resolve_model
from stigmergy.settings import Settings

MAX_VOCAB_BYTES = 4 << 20  # a WordPiece vocabulary is ~230 KB; a larger file is not one


def known_words(settings: Settings) -> frozenset[str]:
    """The whole words (not the "##" pieces) of the configured model's WordPiece vocabulary, casefolded; empty
    when the model has none (then no absent word is read as a term of art). Read once per model and process: a
    warm server asks it for every question."""
    model = settings.embedder.model
    if model not in _PATHS:
        try:
            _PATHS[model] = resolve_model(settings.embedder).path / "vocab.txt"
        except ConfigError:
            return frozenset()
    return _read(_PATHS[model])


_PATHS: dict[str, Path] = {}


@lru_cache(maxsize=4)
def _read(path: Path) -> frozenset[str]:
    try:
        if path.stat().st_size > MAX_VOCAB_BYTES:
            return frozenset()
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    return frozenset(w.casefold() for w in text.split("\n") if w.isalpha() and not w.startswith("["))
