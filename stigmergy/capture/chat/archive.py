"""Reading a ZIP archive someone else wrote, within limits, without ever writing it to disk.

Every member name must be a plain relative path (no `..`, no absolute path, no drive, no backslash), the
declared sizes must fit the capture limits (one member at most capture.max_bytes, all of them at most
10 x capture.max_bytes), and no member may expand more than MAX_RATIO times its compressed size (a zip
bomb). Reads stop at the declared size, and the zipfile module checks each member's CRC at its end.
"""

from __future__ import annotations

import io
import re
import zipfile

from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

MAX_MEMBERS = 50_000
MAX_RATIO = 200  # real JSON compresses 5-20x; 1,000x is a bomb
_RATIO_FLOOR = 1_000_000  # small members may compress well (a file of zeros): judged by ratio only above this
_DRIVE = re.compile(r"^[A-Za-z]:")


class SafeZip:
    def __init__(self, data: bytes, locator: str, limits: CaptureSettings) -> None:
        self.locator = locator
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise InputError(locator, "malformed", f"not a readable ZIP archive ({exc})") from None
        if len(infos) > MAX_MEMBERS:
            raise InputError(locator, "too-large", f"{len(infos):,} members is over the limit of {MAX_MEMBERS:,}")
        total = 0
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            problem = unsafe_name(name)
            if problem:
                raise InputError(locator, "unsafe-path", f"member {name[:80]!r} {problem}; nothing was read")
            if info.file_size > limits.max_bytes:
                raise InputError(locator, "too-large", f"member {name[:80]!r} declares {info.file_size:,} bytes, "
                                 f"over the capture limit of {limits.max_bytes:,}")
            if info.file_size > _RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise InputError(locator, "zip-bomb", f"member {name[:80]!r} expands {info.file_size:,} bytes from "
                                 f"{info.compress_size:,} (over {MAX_RATIO}x)")
            total += info.file_size
            if not info.is_dir():
                self.members[name] = info
        cap = max(limits.max_bytes * 10, 1)
        if total > cap:
            raise InputError(locator, "too-large", f"the archive expands to {total:,} bytes, over {cap:,} "
                             "(10 x capture.max_bytes)")

    def read(self, name: str) -> bytes:
        info = self.members[name]
        try:
            with self._zip.open(info) as member:
                data = member.read(info.file_size + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise InputError(self.locator, "malformed", f"member {name[:80]!r} cannot be read ({exc})") from None
        if len(data) > info.file_size:
            raise InputError(self.locator, "malformed", f"member {name[:80]!r} is longer than it declares")
        return data


def unsafe_name(name: str) -> str | None:
    if not name or "\x00" in name:
        return "is empty or holds a NUL"
    if "\\" in name:
        return "holds a backslash"
    if name.startswith("/") or _DRIVE.match(name):
        return "is an absolute path"
    if any(part == ".." for part in name.split("/")):
        return "climbs out of the archive (..)"
    return None
