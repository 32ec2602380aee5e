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
    # Not "MAC" (an address) nor "maintenance windows": a document writes the systems capitalised; an asker may
    # type them in lower case ("on windows"), though not after a word that makes them another thing.
    "macos": re.compile(r"\b(?:[Mm]ac|[Mm]acs|mac[Oo][Ss]|MacOS|[Mm]ac OS|OS X|os x|osx|OSX|darwin|Darwin|"
                        r"[Mm]ac[Bb]ook)\b"),
    "windows": re.compile(r"\b(?:[Ww]indows|[Ww]in32|[Ww]in64|[Ww]in10|[Ww]in11)\b"),
}
# "windows 10", "macOS 14", "ubuntu 22.04": the release of a system the asker says they run (asides.claimed)
RELEASE_RE = re.compile(r"\b(?:windows|win|macos|mac os|os x|osx|ubuntu|debian|fedora|centos|rhel|alpine|ios|"
                        r"android)\s+v?(\d+(?:\.\d+)*)\b(?![.\d%])", re.I)
_ALSO = {"macos": {"unix"}}  # a line for Unix also holds on a Mac
# "maintenance windows", "delivery windows": a span of time, not the system
_NOT_SYSTEM_RE = re.compile(r"\b(?:maintenance|time|delivery|release|change|deployment|launch|booking|shipping|service|"
                            r"cutover|outage|freeze|upgrade|pickup|collection|dock|loading)\s+windows?\b", re.I)


def named(text: str) -> frozenset[str]:
    """The system families `text` names."""
    text = _NOT_SYSTEM_RE.sub(" ", text)
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
