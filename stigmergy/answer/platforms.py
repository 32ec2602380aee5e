"""Operating systems a question and a line are about. Documentation gives one setting per system, often in tabs
("Unix", "MacOS", "Windows") whose label is the line's only context: asked "linux: where's my per-user
pip.conf", the MacOS tab's "Global: /Library/Application Support/pip/pip.conf" answers for another system."""

from __future__ import annotations

import re

# The families a reader tells apart. macOS is a Unix, so a question about a Mac may be answered by a "Unix" line;
# a question about Linux is not answered by a line for macOS only.
_FAMILIES = {
    "unix": re.compile(r"\b(?:linux|unix|ubuntu|debian|fedora|centos|rhel|red hat|arch linux|alpine|bsd|freebsd|"
                       r"posix|\*nix)\b", re.I),
    "macos": re.compile(r"\b(?:mac|macs|macos|mac os|os x|osx|darwin|macbook)\b", re.I),
    "windows": re.compile(r"\b(?:windows|win32|win64|win10|win11)\b", re.I),
}
_ALSO = {"macos": {"unix"}}  # a line for Unix also holds on a Mac


def named(text: str) -> frozenset[str]:
    """The system families `text` names."""
    return frozenset(f for f, r in _FAMILIES.items() if r.search(text))


def for_another(asked: frozenset[str], line_text: str, context: str) -> bool:
    """Whether a line (its text, or failing that its context: title, headings, a tab's label) is about other
    systems only than the ones asked about."""
    if not asked:
        return False
    about = named(line_text) or named(context)
    if not about:
        return False
    fits = set(asked).union(*(_ALSO.get(a, set()) for a in asked))
    return not (about & fits)
