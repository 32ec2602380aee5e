"""The vector arm's 1-bit prefilter of a large layer, in process: the layer's quantised vectors read once per
database version from its vec0 table's own storage, and each query's nearest by Hamming distance counted with
numpy. It returns exactly the rows vec0's `bits MATCH vec_quantize_binary(?) AND k = ?` returns (sqlite-vec
0.1.x's brute-force scan; tests/test_search_cpu.py holds the two equal), at ~1/5 of its CPU: vec0 scans each
chunk k times over to pick its k best (`min_idx`), where one vectorised pass suffices.

How vec0 breaks ties, which decides the candidates whenever many vectors share the k-th distance (most
queries: the distances are small integers): it walks the chunks in chunk_id order, takes each chunk's k best
with a later slot winning a tie (`min_idx` keeps the last minimum), and merges them into its running list
with the earlier chunks first on a tie (`merge_sorted_lists`). So a row's place is (distance, chunk order,
slot from the end), which `nearest` sorts by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# numpy >= 2.0; without it the store keeps vec0's own scan.
_POPCOUNT = getattr(np, "bitwise_count", None)
AVAILABLE = _POPCOUNT is not None


@dataclass(frozen=True)
class LayerBits:
    """One vec0 table's quantised vectors in vec0's scan order: rowids, the packed bits word by word (`bits[w]`
    is every row's w-th unsigned word: a row-major scan cost 3x more, 5.1 against 1.6 ms at 247,762 rows, in
    the temporaries of a 2-D XOR and popcount) and each row's tie rank (its place in vec0's order among equal
    distances)."""

    rowids: np.ndarray
    bits: np.ndarray  # (words, rows)
    tie: np.ndarray


def load(conn: Any, table: str, column: int) -> LayerBits:
    """Read `table`'s live rows and their bit vectors (vector column `column`: vec0 numbers its vector
    columns from 0 in the order the table declares them)."""
    rowids: list[np.ndarray] = []
    bits: list[np.ndarray] = []
    tie: list[np.ndarray] = []
    width, base = 0, 0
    rows = conn.execute(
        f"SELECT c.size, c.validity, c.rowids, v.vectors FROM {table}_chunks c "
        f"JOIN {table}_vector_chunks{column:02d} v ON v.rowid = c.chunk_id ORDER BY c.chunk_id").fetchall()
    for size, validity, ids, vectors in rows:
        size = int(size)
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
        width = len(vectors) // size
        rowids.append(np.frombuffer(ids, dtype=np.int64)[:size][valid])
        bits.append(np.frombuffer(vectors, dtype=np.uint8)[: size * width].reshape(size, width)[valid])
        # Earlier chunks first; within a chunk the later slot first.
        tie.append((base + size - 1 - np.arange(size, dtype=np.int64))[valid])
        base += size
    if not rows:
        return LayerBits(np.zeros(0, np.int64), np.zeros((1, 0), np.uint8), np.zeros(0, np.int64))
    packed = np.ascontiguousarray(np.concatenate(bits))
    if width % 8 == 0:
        packed = packed.view(np.uint64)
    return LayerBits(np.concatenate(rowids), np.ascontiguousarray(packed.T), np.concatenate(tie))


def nearest(layer: LayerBits, query: np.ndarray, k: int) -> list[int]:
    """The rowids of the `k` rows nearest `query` by the Hamming distance of its 1-bit quantisation (a
    dimension is 1 where it is above 0), in vec0's order."""
    n = len(layer.rowids)
    if n == 0 or k <= 0:
        return []
    assert _POPCOUNT is not None
    q = np.packbits(np.asarray(query) > 0, bitorder="little")
    if layer.bits.dtype == np.uint64:
        q = q.view(np.uint64)
    # Word by word over contiguous columns: a sum along a row of a few words is several times slower.
    dist = _POPCOUNT(layer.bits[0] ^ q[0]).astype(np.int32)
    for word in range(1, layer.bits.shape[0]):
        dist += _POPCOUNT(layer.bits[word] ^ q[word])
    if k < n:
        # The k-th distance from a histogram (distances are 0..bits): one pass instead of a partition.
        kth = int(np.searchsorted(np.cumsum(np.bincount(dist)), k))
        pick = np.flatnonzero(dist <= kth)
    else:
        pick = np.arange(n)
    order = np.lexsort((layer.tie[pick], dist[pick]))[:k]
    return [int(r) for r in layer.rowids[pick[order]]]
