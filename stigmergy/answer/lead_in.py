"""The list a lead-in introduces: "The 3 types of Python users, we proposed were:" answers "the three pip personas"
only with the items after it ("Python Software User", "Python Software Maker", "Python Package Maintainer"). The
evidence reads each item with its lead-in as the sentence before it (evidence.py); this gathers them back, in
order, so that an answer quoting the lead-in says and cites what it introduces."""

from __future__ import annotations

import re
from dataclasses import replace

from stigmergy.answer.evidence import Line, said_before
from stigmergy.answer.procedure import is_command

# Items said with their lead-in at most: a longer list is a reference table, not an answer.
ITEMS = 8


def items_after(line: Line, lines: tuple[Line, ...]) -> Line | None:
    """The items `line` introduces, as one line ("A; B; C") citing each; None when it introduces none or is no
    source's lead-in (a colon at its end)."""
    if line.type != "source" or not line.cites or not line.text.rstrip().endswith(":"):
        return None
    end = line.cites[0].end
    items = sorted({ln.cites[0].start: ln for ln in lines
                    if ln.page == line.page and ln is not line and ln.before_cite is not None and ln.cites
                    and ln.before_cite.end == end and ln.cites[0].start > end and not ln.text.startswith("|")}.items())
    if not items or len(items) > ITEMS:
        return None
    said = [ln.text.strip().rstrip(".;,") for _, ln in items]
    first = items[0][1]
    return replace(first, text="; ".join(said) + ".", before="", before_cite=None,
                   cites=tuple(c for _, ln in items for c in ln.cites))


# A lead-in that offers alternatives: "pip can be configured to connect through a proxy server in various ways:"
_WAYS_RE = re.compile(r"\b(?:(?:several|various|different|multiple|two|three|four|a few|many|other) "
                      r"(?:ways|methods|options|mechanisms|approaches)|(?:ways|methods|options) (?:to|of|for)|either)\b[^:]*:\s*$",
                      re.I)


def ways_lead_in(line: Line, lines: tuple[Line, ...]) -> Line | None:
    """The lead-in of the list `line` is an item of, when the lead-in offers ways of doing something ("… in various
    ways:"): asked how, the answer is every way, with the lead-in that says they are alternatives, not the one the
    words of the question happened to favour ("pip behind a corporate proxy, how to configure it": "using ``proxy``
    in a config file" is one of three)."""
    return said_before(line, lines) if _WAYS_RE.search(line.before) else None


# What a caption types itself: an option or a command in code
_TYPES_RE = re.compile(r"`+\s*(?:--?[a-z]|pip\b|python\b|py -m\b|\$)", re.I)
# How far below its caption an example's command may stand: the tab and code-block directives between them.
EXAMPLE_GAP = 8


def example_after(line: Line, lines: tuple[Line, ...]) -> Line | None:
    """The command an example's caption introduces, under an "Examples" heading: "List packages that are not
    dependencies of other packages." says what the example does; "$ python -m pip list --outdated --not-required",
    a few lines below it, is what to type. None where `line` is no caption (it types code itself, or stands under no
    examples heading) or no command follows it before another sentence of its page."""
    if line.type != "source" or not line.cites or not any(h.casefold().startswith("example") for h in line.headings):
        return None
    if is_command(line.text) or _TYPES_RE.search(line.text):
        return None  # the line types what to run itself (a file it names, "``pylock.toml``", is no command)
    end = line.cites[0].end
    first = min((ln for ln in lines if ln.page == line.page and ln.cites and 0 < ln.cites[0].start - end <= EXAMPLE_GAP),
                key=lambda ln: ln.cites[0].start, default=None)
    return first if first is not None and is_command(first.text) else None
