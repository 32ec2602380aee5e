"""Meaning: the packaged embedder over candidate lines, each vector cached in the index store by the
sha256 of the text it was made from (the line with its page title and heading), so that a warm `ask`
embeds only the question.

The cache is derived state like the rest of the index (a rebuild keeps it; a new model fingerprint drops
it). A vector says nothing a reader could read back as text. Writing is best effort: when the index is
being written, this answer keeps its vectors to itself rather than wait.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

WRITE_WAIT_S = 0.1


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class LineVectors:
    """Vectors of texts through `embedder`, read from and written to `store` under the index fingerprint
    and the embedder's name (a test's embedder never shares rows with the model's)."""

    def __init__(self, store: Any, fingerprint: str, embedder: Any) -> None:
        self.store = store
        self.fingerprint = f"{fingerprint}:{getattr(embedder, 'name', '')}:{getattr(embedder, 'dimension', 0)}"
        self.embedder = embedder
        self.embedded = 0  # texts this instance embedded (the rest came from the cache)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        dim = int(getattr(self.embedder, "dimension", 0)) or 384
        out = np.zeros((len(texts), dim), dtype=np.float32)
        if not texts:
            return out
        keys = [_key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        try:
            for h, blob in self.store.line_vectors(self.fingerprint, list(dict.fromkeys(keys))).items():
                vec = np.frombuffer(blob, dtype=np.float32)
                if vec.shape[0] == dim:
                    found[h] = vec
        except self.store.errors:
            found = {}  # an unreadable cache costs this answer its saving, never the answer
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            text_of = dict(zip(keys, texts, strict=True))
            made = np.asarray(self.embedder.embed([text_of[k] for k in missing]), dtype=np.float32)
            self.embedded += len(missing)
            for k, vec in zip(missing, made, strict=True):
                found[k] = vec
            try:
                self.store.put_line_vectors(self.fingerprint, [(k, found[k].tobytes()) for k in missing],
                                            WRITE_WAIT_S)
            except self.store.errors:
                pass
        for i, k in enumerate(keys):
            out[i] = found[k]
        return out


def cosine(question: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Cosine of each line to the question (the embedder's vectors are L2-normalised; normalise anyway)."""
    if lines.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    q = question / max(float(np.linalg.norm(question)), 1e-12)
    norms = np.clip(np.linalg.norm(lines, axis=1), 1e-12, None)
    return np.asarray((lines @ q) / norms, dtype=np.float32)
