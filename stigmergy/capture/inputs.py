"""What a capture command was given: files, directories (with include/exclude globs), stdin, --text."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import InputError


@dataclass(frozen=True)
class InputItem:
    locator: str  # the original file name or path, as recorded in the source page
    read: Callable[[], bytes]
    size: int | None = None
    media_type: str | None = None
    origin_name: str | None = None  # name used for type detection when the locator has none


def _matches(rel: str, patterns: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _file_item(path: Path, locator: str) -> InputItem:
    return InputItem(locator=locator, read=path.read_bytes, size=path.stat().st_size)


def gather(
    paths: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    stdin: Callable[[], bytes] | None = None,
    text: str | None = None,
) -> tuple[list[InputItem], list[InputError]]:
    """Expand the arguments into capture items, in a stable order; missing paths become errors."""
    items: list[InputItem] = []
    errors: list[InputError] = []
    if text is not None:
        data = text.encode("utf-8")
        items.append(InputItem(locator="text", read=lambda: data, size=len(data), origin_name="text.txt"))
    for arg in paths:
        if arg == "-":
            if stdin is None:
                errors.append(InputError("-", "missing", "standard input is not available"))
                continue
            cache: list[bytes] = []

            def read_stdin(cache: list[bytes] = cache) -> bytes:
                if not cache:
                    cache.append(stdin())
                return cache[0]

            items.append(InputItem(locator="stdin", read=read_stdin, origin_name="stdin.txt"))
            continue
        path = Path(arg)
        if path.is_symlink() and not path.exists():
            errors.append(InputError(arg, "missing", "is a broken symbolic link"))
        elif path.is_file():
            items.append(_file_item(path, os.path.normpath(arg)))
        elif path.is_dir():
            found = []
            for dirpath, dirnames, filenames in os.walk(path):
                rel_dir = os.path.relpath(dirpath, path)
                dirnames[:] = sorted(
                    d for d in dirnames if not _matches(os.path.normpath(os.path.join(rel_dir, d)) + "/", exclude)
                    and not _matches(os.path.normpath(os.path.join(rel_dir, d)), exclude)
                )
                for name in sorted(filenames):
                    rel = os.path.normpath(os.path.join(rel_dir, name))
                    if _matches(rel, exclude) or not _matches(rel, include):
                        continue
                    full = Path(dirpath) / name
                    if full.is_file():
                        found.append((rel, full))
            # Locators name the file from the captured folder down (`corpus/meetings/x.md`), so they
            # stay meaningful on other machines and do not leak where the folder lived.
            base = os.path.basename(os.path.normpath(os.path.abspath(arg)))
            for rel, full in sorted(found):
                items.append(_file_item(full, f"{base}/{rel}"))
            if not found:
                errors.append(InputError(arg, "empty", "directory holds no file that matches the include globs"))
        elif path.exists():
            errors.append(InputError(arg, "unsupported-type", "is neither a file nor a directory"))
        else:
            errors.append(InputError(arg, "missing", "no such file or directory"))
    return items, errors
