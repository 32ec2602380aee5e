"""Whether a name a line gives is of the kind a "which X" question asks, by meaning: "what timezone are harbor
timestamps in" is answered by "Timestamps are always UTC", which never says "timezone"; the rules credit such a name
only weakly (it is a name the wiki does not know, of no known kind), so a right line scored under the threshold. The
packaged model places a well-known name near its kind ("UTC" by "timezone" 0.76, "AES-256" by "cipher" 0.44, "UTF-8"
by "encoding" 0.56, "Porto" by "city" 0.46) and a name of another kind far from it ("Lisbon" by "timezone" 0.31, "AWS
KMS" by "cipher" 0.16, "PyPI" by "tool" 0.17): a name at least `KIND_MEANING` from the asked noun fills the slot.
Code names the model does not know ("optparse" by "module" 0.19) stay weak, as before."""

from __future__ import annotations

from typing import Any

import numpy as np

from stigmergy.answer.meaning import cosine

# Picked by hand from twenty-three pairs of a kind and a name (nine of them a name of another kind); "Python" by
# "library" (0.42) is the closest wrong pair, "AES-256" by "cipher" (0.44) the farthest right one.
KIND_MEANING = 0.43


def of_kind(head: str, candidates: list[str], vectors: Any) -> frozenset[str]:
    """The names among `candidates` whose meaning is at least `KIND_MEANING` from the asked noun `head`."""
    names = list(dict.fromkeys(c for c in candidates if c.strip()))
    if not names or not head or vectors is None:
        return frozenset()
    vecs = np.asarray(vectors.vectors([head, *names]), dtype=np.float32)
    sims = cosine(vecs[0], vecs[1:])
    return frozenset(n for n, s in zip(names, sims, strict=True) if float(s) >= KIND_MEANING)
