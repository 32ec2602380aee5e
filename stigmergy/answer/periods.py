"""Which period, day or numbered label a line speaks of, beside the one a question names: "SEV-1" beside "sev-3",
"the end of Q3" beside "q2 2026", "we ended 2025 with 44 people" beside "by the end of 2026" (select.word_score
reads a line that names only another as about that one, though its page's title names the asked one)."""

from __future__ import annotations

import re

from stigmergy.answer.terms import YEAR_RE

_LABEL_FIGURE_RE = re.compile(r"([a-z]+)(-?)(\d+)", re.I)
_QUARTER_YEAR_RE = re.compile(r"[qh][1-4] (?:19|20)\d\d", re.I)


def another_period(label: str, text: str, asked: frozenset[str] = frozenset()) -> bool:
    """Whether `text` names another of the numbered labels `label` is one of ("SEV-1" for "sev-3", "G1" for "g2"),
    another quarter for a quarter and its year ("the end of Q3" for "q2 2026"), or only other years for a year
    ("We ended 2025 with 44 people" for "by the end of 2026"). `asked`: the labels the question names, which are
    not another ("why was it counted in Q3 and not Q2": a line that says Q3 speaks of the asked Q2 too)."""
    if YEAR_RE.fullmatch(label):
        years = set(YEAR_RE.findall(text))
        return bool(years) and label not in years and not years & asked
    if _QUARTER_YEAR_RE.fullmatch(label):
        quarter = label.split(" ")[0]
        if re.search(rf"(?<![\w-]){re.escape(quarter)}(?!\w|\.\d)", text, re.I):
            return False  # "Q2: 56; Q3: 63" under a 2026 heading names the asked quarter too
        label, end = quarter, r"(?!\w|\.\d)"  # "a headcount of 63 at the end of Q3."
    else:
        end = r"(?![\w.])"  # "G2.1" is a version of G2
    m = _LABEL_FIGURE_RE.fullmatch(label)
    if not m:
        return False
    return any(n.group(1) != m.group(3) and n.group(0).casefold() not in asked for n in re.finditer(
        rf"(?<![\w-]){re.escape(m.group(1))}-?(\d+)" + end, text, re.I))


def said_on(date: str, day: tuple[int, int]) -> bool:
    """Whether an ISO date ("2026-04-22") is that (day, month 0-11)."""
    return len(date) >= 10 and date[5:7].isdigit() and date[8:10].isdigit() and (
        int(date[8:10]), int(date[5:7]) - 1) == day
