"""The lead of an entity, concept or project page, regenerated on each filing that touches the page:
what it is (its defining sentence), its kind and aliases, the latest value of each figure it tracks with
its date, its open contradictions, the pages most related to it, and its archive pages.

Every cited line of a lead is a verbatim copy of a line of the page's body (same words, same citation),
so a lead line that drops out on the next filing loses nothing; the other lead lines carry no citation
and state nothing a body line does not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from stigmergy.pages.paths import stem_of
from stigmergy.plan.deterministic.figures import measures_in
from stigmergy.plan.deterministic.layout import archive_base, split_lead, with_lead

MAX_FIGURES = 5
MAX_RELATED = 5
MAX_ARCHIVE_LINKS = 6  # newest archive pages linked from the lead; each archive part links the one before
_DATED = re.compile(r"^## (\d{4}-\d{2}-\d{2})\b")
_LINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_PRESENT = r"\s+(?:is|are|means|refers to)\s+(?:a|an|the|one of)\b"
_DEFINES = r"\s+(?:is|are|was|means|refers to)\s+(?:a|an|the|one of)\b"


def lead_lines(
    path: str, title: str, kind: str, aliases: list[str], body: str, archives: list[str], open_subjects: list[str],
    archived_open: Sequence[tuple[str, int]] = (),
) -> str:
    """`body` with a fresh lead. `archives` newest first; `archived_open`: (archive page, open blocks on it)."""
    _, _, rest = split_lead(body)
    cited: list[tuple[str, str]] = []  # (section date, line) of the body's cited list lines
    date = ""
    for line in rest:
        m = _DATED.match(line)
        if m:
            date = m.group(1)
        elif line.startswith("- ") and "([source](" in line:
            cited.append((date, line))
    lead: list[str] = []
    what = kind.replace("_", " ")
    also = [a for a in aliases if a != title]
    lead.append(f"*{what}*" + (f" · also known as {', '.join(also)}" if also else ""))
    # The title defined in the present tense first ("Tidemark is a …"), then an alias or the past tense.
    defining = None
    for names, verbs in (([title], _PRESENT), ([title, *also], _DEFINES)):
        alts = "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True))
        defining = next((line for _, line in cited if _defines(alts, verbs, line)), None)
        if defining is not None:
            break
    if defining is None and kind == "concept" and cited:
        defining = cited[0][1]  # a concept page opens with the statement that defined it
    if defining is not None:
        lead.append(defining)
    latest: dict[tuple[str, str], tuple[str, str]] = {}
    for d, line in cited:
        for key in _line_measures(line):
            if key not in latest or d >= latest[key][0]:
                latest[key] = (d, line)
    figures = sorted({(d, line) for d, line in latest.values() if line != defining}, reverse=True)[:MAX_FIGURES]
    shown = ""
    for d, line in figures:
        if d != shown:
            lead.append(f"Latest figures as of {d}:" if not shown else f"As of {d}:")
            shown = d
        lead.append(line)
    if open_subjects:
        lead.append("Open contradictions (recorded below): " + "; ".join(dict.fromkeys(open_subjects)) + ".")
    if archived_open:
        lead.append("Older open contradictions, on the archive pages: "
                    + " · ".join(f"[[{a}]] ({n})" for a, n in archived_open) + ".")
    me = stem_of(path)
    links = Counter(t for line in rest if not line.startswith("#") for t in _line_links(line) if t != me)
    related = [t for t, _ in sorted(links.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_RELATED]]
    if related:  # the entities, concepts and projects its lines link to (a heading links a dated note)
        lead.append("Related: " + " · ".join(f"[[{t}]]" for t in related))
    if archives:
        older = len(archives) - MAX_ARCHIVE_LINKS
        lead.append("Archive: " + " · ".join(f"[[{a}]]" for a in archives[:MAX_ARCHIVE_LINKS])
                    + (f" · {older} older, each linked from the next" if older > 0 else ""))
    spaced: list[str] = []
    for line in lead:  # list lines stay together; every other line is a paragraph of its own
        if spaced and not (line.startswith("- ") and spaced[-1].startswith("- ")):
            spaced.append("")
        spaced.append(line)
    return with_lead(body, spaced)


# A lead is made again on every filing that touches its page, from a body whose lines are nearly all the
# lines it had the last time: what each line says for the lead is kept by its text (bounded), so the
# lead of a page at its size bound costs about what it cost on a page of a few lines.
@lru_cache(maxsize=65536)
def _line_links(line: str) -> tuple[str, ...]:
    """The link targets of a body line that can count as related pages (archive pages never do)."""
    out = []
    for m in _LINK.finditer(line):
        target = m.group(1).strip()
        if archive_base(target) is None:
            out.append(target)
    return tuple(out)


@lru_cache(maxsize=65536)
def _line_measures(line: str) -> tuple[tuple[str, str], ...]:
    """(measure, kind) of each figure a cited list line states, in order (its citation left out)."""
    return tuple((m.measure, m.kind) for m in measures_in(line[2:].split(" ([source](")[0], [""]))


@lru_cache(maxsize=65536)
def _defines(alts: str, verbs: str, line: str) -> bool:
    """Whether `line` defines one of the names `alts` (a regular expression alternation) with `verbs`."""
    return _defining(alts, verbs).search(line) is not None


@lru_cache(maxsize=256)
def _defining(alts: str, verbs: str) -> re.Pattern[str]:
    return re.compile(rf"^- (?:\[\[[^\]]*\]\]\s*)?(?:[^.]{{0,40}}?\b)?(?:{alts})(?:\s*\([^)]*\))?{verbs}", re.I)
