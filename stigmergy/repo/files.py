"""Writing a file so that a reader (or a crash) sees the old bytes or the new ones, never a mix: a temp
file in the same folder, renamed over the target. The one helper every writer uses."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(
    path: Path, data: bytes, *, durable: bool = False, mode: int | None = None, prefix: str = ".tmp-"
) -> None:
    """Write `data` to `path` atomically. `durable`: fsync before the rename (evidence objects, which
    are acknowledged to the user); `mode`: the file's permissions (read-only objects); `prefix`: the
    temp file's, so a leftover one says who left it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
