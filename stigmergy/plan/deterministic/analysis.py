"""Reading one source page the way a careful librarian would, with no model: statements with their line
ranges, the entities it names, the terms it defines, the figures it states, the lines that matter.

Everything here is a pure function of the source text and the catalogue of known names, so the same
input gives the same analysis byte for byte.

The reading is split by what it finds: `statements` (the units of the text), `names` (entities, known
names, aliases), `figures` (figures, periods, measures) and `concepts` (definitions). This module holds
the ranking of key lines and decisions, and re-exports the rest so that callers import from one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stigmergy.plan.deterministic.concepts import (
    GENERIC_ACRONYMS,
    GLOSSARY_SECTIONS,
    Definition,
    definitions,
)
from stigmergy.plan.deterministic.figures import (
    FIGURE,
    MEASURES,
    PERIOD,
    Figure,
    Measure,
    figures,
    measure_kinds,
    measures_in,
    row_measures,
)
from stigmergy.plan.deterministic.names import (
    COMMON,
    CONNECTORS,
    FIRST_NAMES,
    MONTHS,
    ORG_KEYS,
    ORG_SUFFIX,
    PLACE_SUFFIX,
    PLACES,
    PRODUCT_SUFFIX,
    WEEKDAYS,
    EntityCandidate,
    NameHit,
    NameIndex,
    alias_statements,
    detect_entities,
    find_known,
    guess_entity_type,
    mentions,
    project_mentions,
    proper_name_runs,
)
from stigmergy.plan.deterministic.statements import (
    MAX_UNIT_CHARS,
    STOP,
    Link,
    Unit,
    clean_inline,
    source_links,
    split_units,
    terms,
)

# ------------------------------------------------------------------------------------------- key lines

DECISION = re.compile(
    r"\b(?:decided|decision|agreed|approved|will|we'll|resolved|committed to|chose|chosen|going forward|"
    r"sign(?:ed)? off|greenlit|green-lit|signed|accepted|rejected|postponed|cancel(?:l)?ed|moved to|switch(?:ed)? to)\b",
    re.I,
)
DECISION_SECTIONS = ("decision", "decisions", "outcomes", "resolutions", "agreed", "conclusions")
# "A few things about working with Grace.", "Here is what we agreed:": announces what follows, says nothing
# out of its context, so it is not copied on its own.
_LEAD_IN = re.compile(
    r"^(?:(?:a few|some|several|three|two|four|five) (?:things|notes|points|thoughts|tips|words|updates) (?:about|on|from|for)\b"
    r"|here(?:'s| is| are)\b|the following\b|as follows\b|(?:quick|short) (?:update|note|recap)\b)"
    r"|^[^.!?]{0,80}:$",
    re.I,
)
_NOISE = re.compile(r"^(?:hi|hello|hey|thanks|thank you|cheers|regards|best|dear|see you|bye)\b", re.I)
# A link's address given apart from the text: reStructuredText's hyperlink target (".. _`tracking issue`: https://…")
# and Markdown's reference definition ("[pip docs]: https://…"). Markup, not something the source says.
_LINK_TARGET = re.compile(
    r"^\.\. _[^:]+:(?:\s|$)"
    r"|^\[[^\]]+\]:\s*<?(?:[a-z][\w+.-]*:|/|\.\.?/|#)\S*>?(?:\s+[\"'(].*[\"')])?\s*$")
# A reStructuredText directive with nothing to say beyond its argument and options (".. toctree:: :maxdepth: 2",
# ".. image:: arch.png"); an admonition's text (".. attention:: PyPI no longer supports …") is said.
_DIRECTIVE = re.compile(r"^\.\. [\w:-]+::")
_OPTION = re.compile(r"(?:^|\s):[\w-]+:(?:\s+\S+)?")


def _markup(text: str) -> bool:
    if _LINK_TARGET.match(text):
        return True
    m = _DIRECTIVE.match(text)
    return m is not None and len(re.findall(r"[^\W\d_]{2,}", _OPTION.sub(" ", text[m.end():]))) < 3


def score_unit(u: Unit, entity_hits: int, concept_hits: int) -> float:
    """How much a statement is worth keeping: figures, names, decisions, definitions; not greetings,
    questions or fragments."""
    words = len(u.text.split())
    if words < 4 or _NOISE.match(u.text) or u.kind == "meta" or _LEAD_IN.match(u.text) or _markup(u.text):
        return 0.0
    s = 1.0
    figs = figures(u.text)
    s += min(len(figs), 3) * 1.2
    s += min(entity_hits, 3) * 0.9
    s += min(concept_hits, 2) * 0.6
    if is_decision(u):
        s += 1.5
    if u.text.rstrip().endswith("?"):
        s -= 1.2
    if 8 <= words <= 45:
        s += 0.6
    elif words > 70:
        s -= 0.8
    if u.kind == "row":
        s -= 0.4
    return max(s, 0.0)


def is_decision(u: Unit) -> bool:
    if u.kind == "meta":
        return False
    sec = u.section.lower()
    if any(k in sec for k in DECISION_SECTIONS):
        return len(u.text.split()) >= 3
    text = _GENERIC_PASSIVE.sub(" ", u.text)
    return bool(DECISION.search(text)) and bool(re.search(r"\b(?:decided|agreed|approved|decision|resolved|committed|chose|chosen|signed off|greenlit)\b", text, re.I))


# "The size of the buffer is chosen using a heuristic", "parameters are chosen as follows": how something works,
# in the present, not a decision someone took (a reference page's notes filed them under "Decisions").
_GENERIC_PASSIVE = re.compile(r"\b(?:is|are|be|gets?)\s+(?:\w+ly\s+)?(?:chosen|decided|resolved)\b", re.I)


REVISION = re.compile(r"\b(?:final|corrected|correction|revised|revision|restated|amended|updated figures?|supersedes|erratum)\b", re.I)


def declares_revision(title: str, units: Sequence[Unit]) -> bool:
    if REVISION.search(title):
        return True
    return any(REVISION.search(u.text) for u in units[:5])


__all__ = [
    "COMMON",
    "CONNECTORS",
    "DECISION",
    "DECISION_SECTIONS",
    "Definition",
    "EntityCandidate",
    "FIGURE",
    "FIRST_NAMES",
    "Figure",
    "GENERIC_ACRONYMS",
    "GLOSSARY_SECTIONS",
    "Link",
    "MAX_UNIT_CHARS",
    "MEASURES",
    "MONTHS",
    "Measure",
    "NameHit",
    "NameIndex",
    "ORG_KEYS",
    "ORG_SUFFIX",
    "PERIOD",
    "PLACES",
    "PLACE_SUFFIX",
    "PRODUCT_SUFFIX",
    "REVISION",
    "STOP",
    "Unit",
    "WEEKDAYS",
    "alias_statements",
    "clean_inline",
    "declares_revision",
    "definitions",
    "detect_entities",
    "figures",
    "find_known",
    "guess_entity_type",
    "is_decision",
    "measure_kinds",
    "measures_in",
    "mentions",
    "project_mentions",
    "proper_name_runs",
    "row_measures",
    "score_unit",
    "source_links",
    "split_units",
    "terms",
]
