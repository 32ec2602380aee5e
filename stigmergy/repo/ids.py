"""Time-ordered identifiers (ULID: 48-bit milliseconds + 80 random bits, Crockford base32)."""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


_last = [0, 0]  # (ms, random part) of the last clock-made id in this process
_lock = threading.Lock()


def ulid(ms: int | None = None) -> str:
    """An id; ids this process makes from the clock sort in the order they were made (monotonic ULID),
    even within one millisecond: capture order is id order (export relies on it), and a directory capture
    makes many ids per millisecond."""
    if ms is None:
        with _lock:
            now = int(time.time() * 1000)
            if now <= _last[0] and _last[1] < (1 << 80) - 1:
                ms, rand = _last[0], _last[1] + 1
            else:
                ms, rand = max(now, _last[0] + 1), int.from_bytes(os.urandom(10), "big")
            _last[0], _last[1] = ms, rand
    else:
        rand = int.from_bytes(os.urandom(10), "big")
    return encode_ulid(ms, rand)


def encode_ulid(ms: int, rand: int) -> str:
    """The one ULID encoder: 48 bits of milliseconds and 80 bits of `rand`, Crockford base32, 26 characters
    (clock-made ids above, ids derived from an operation in pages/wiki.derived_ulid)."""
    value = ((ms & ((1 << 48) - 1)) << 80) | (rand & ((1 << 80) - 1))
    out = []
    for _ in range(26):
        out.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(out))


def new_id(prefix: str, ms: int | None = None) -> str:
    return f"{prefix}_{ulid(ms)}"


def id_ms(value: str) -> int | None:
    """The milliseconds a ULID-based id (`prefix_<ulid>`) was made at; None when it is not one."""
    tail = value.rsplit("_", 1)[-1]
    if len(tail) != 26 or any(c not in _ALPHABET for c in tail):
        return None
    ms = 0
    for c in tail[:10]:
        ms = ms * 32 + _ALPHABET.index(c)
    return ms


def iso_of_ms(ms: int) -> str:
    """`YYYY-MM-DDTHH:MM:SSZ` (UTC) of a millisecond timestamp, as operation timestamps are written."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))
