"""The repository's own source is plain text: a control character in a .py file is nearly always an escape
written into a string by mistake ("\b" meant as a regex word boundary, stored as a backspace), which makes a
pattern that can never match and a rule that never fires, silently."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def test_no_source_file_holds_a_control_character() -> None:
    found = []
    for folder in ("stigmergy", "tests", "bench", "scripts"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
                if _CONTROL.search(line):
                    found.append(f"{path.relative_to(REPO)}:{n}")
    assert found == []
