"""An mbox -> one message's bytes per capture, split by the standard library's `mailbox.mbox`.

`mailbox` reads from a file, so the bytes go to a private temporary folder for as long as the split
takes. Each message's own bytes (without the `From ` separator line) are its capture's original, so
capturing the same mbox again, or a later one that repeats its messages, captures each message once.
"""

from __future__ import annotations

import mailbox
import os
import tempfile

from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

MAX_MESSAGES = 100_000


def split_mbox(data: bytes, locator: str, limits: CaptureSettings) -> list[tuple[str, bytes]]:
    if not data.startswith(b"From "):
        raise InputError(locator, "malformed", "not an mbox: it does not open with a 'From ' line")
    out: list[tuple[str, bytes]] = []
    with tempfile.TemporaryDirectory(prefix="stigmergy-mbox-") as folder:
        path = os.path.join(folder, "in.mbox")
        with open(path, "wb") as handle:
            handle.write(data)
        box = mailbox.mbox(path, create=False)
        try:
            for n, key in enumerate(box.iterkeys(), 1):
                if n > MAX_MESSAGES:
                    raise InputError(locator, "too-large", f"over {MAX_MESSAGES:,} messages")
                raw = box.get_bytes(key)
                if raw.strip():
                    out.append((f"{locator}:{n}", raw))
        finally:
            box.close()
    if not out:
        raise InputError(locator, "empty", "the mbox holds no message")
    return out
