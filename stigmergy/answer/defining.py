"""Whether a line says what a term is ("Dwell time — how long a shipment sits …", "MKT is the single temperature
that …", "`~=3.1.2` is equivalent to …"), not only something about it ("Excursion budget is shown per lane"): the
definition slot's test (slots.py) and the words score's credit for a line that defines a word the asker said
(select.py)."""

from __future__ import annotations

import re

from stigmergy.answer.names import words
from stigmergy.answer.terms import STOPWORDS, fold, spelled_out, stem

# What follows a term in a line that says what the term is: a dash or a colon (a glossary), "is a / the / how /
# when …", "means", "refers to", "stands for", "measures", "is used to" (a verb of state, not "is shown").
_DEFINES_RE = re.compile(r"^\W{0,3}(?:\([^)]{0,60}\)\s*)?"
                         # "The --report option of the pip install command produces …": the option, then what it does
                         r"(?:(?:option|flag|switch|setting)s?(?:\s+of\s+(?:the\s+)?[\w -]{1,30}?\s+command)?\s+"
                         r"(?=(?:produces|writes|outputs|creates|generates|returns|makes|lets|allows|enables|disables|"
                         r"tells|controls|sets|turns|shows|prints|gives|prevents|skips|forces|stops|is|are)\b))?"
                         r"(?:(?:\s+[\w-]+){0,2}\s*[—–:]|-\s|,\s+(?:the|an?|which|i\.e\.)\b|"
                         r"(?:is|are|was|were)\s+(?:(?:simply|basically|just|also|usually|always)\s+)?"
                         r"(?:an?|the|one|any|how|when|what|where|whatever|who|our|their|its|used|defined|called|"
                         r"known|made|measured)\b|"
                         # "The version number of pip is ``YY.N``, where …": what it is, written as code
                         r"(?:is|are)\s+[`'\"]|"
                         r"(?:means?|refers? to|stands? for|measures?|expresses|describes|represents|indicates|"
                         r"tells|lets|allows|enables|disables|controls|makes|causes|sets|turns|shows|prints|gives|"
                         r"prevents|skips|forces|stops|produces|writes|outputs|generates|"
                         # "``pip download`` does the same resolution and downloading as ``pip install``, but …"
                         r"does (?!not\b|n't\b)(?:the same|exactly|what|everything|all)\b|"
                         # "using the environment variable PIP_USER_AGENT_USER_DATA to include a JSON-encoded string in
                         # the user-agent": what it is set for
                         r"to (?:include|add|pass|send|enable|disable|control|change|override|tell|turn|force|skip|"
                         r"specify|select|limit|provide|supply|configure)\b)\b)", re.I)


# "`~=3.1.2` is equivalent to `>=3.1.2, ==3.1.*`": what an operator with its version stands for
_EQUIVALENT_RE = re.compile(r"\s*(?:is|are)\s+(?:equivalent|the same as|short for|shorthand for)\b", re.I)


# A table row whose first cell is the term and whose next cell says something ("| `~=` | Any compatible version. |"):
# a glossary laid out as a table.
_ROW_RE = re.compile(r"^\s*\|\s*([^|]{1,60}?)\s*\|\s*[^|\s-]")


def _first_cell(text: str) -> str:
    m = _ROW_RE.match(text)
    return m.group(1).strip("*`'\" ") if m else ""


def defines(subject: str, text: str) -> bool:
    """The line says what `subject` is ("Dwell time — how long a shipment sits …", "MKT is the single
    temperature that …", a table row that starts with it), not only something about it ("Excursion budget is shown
    per lane")."""
    ws = [w for w in words(subject) if w not in STOPWORDS]
    if not ws:
        return True
    cell = _first_cell(text)
    if cell and [w for w in words(cell) if w not in STOPWORDS] == ws:
        return True
    low = fold(text)
    if re.search(rf"{_NAMED_AS_RE.pattern}\s*[\"'“‘*`]*{re.escape(' '.join(ws[:2]))}\b", low):
        return True  # "'ingest health' dashboard - what is that": "The comparison dashboard, renamed "ingest health""
    # The term's last word, or its first ("'trivial' label": "Trivial : special label for pull requests …").
    # Not the word after a preposition: "An excursion budget per lane: the total time …" defines the budget.
    # ("The version number of pip is ``YY.N``, where …": the thing's owner may come between it and what it is; "what do
    # the two parts of pip version numbers stand for": the plural's singular)
    # The first word only where it opens the line, as a label does: "every excursion produces a report" says what
    # excursions do, not what an excursion budget is.
    def singular(w: str) -> str:
        return w[:-1] if len(w) > 3 and w.endswith("s") else w

    last = {ws[-1], singular(ws[-1])}
    forms = dict.fromkeys((ws[-1], ws[0], singular(ws[-1]), singular(ws[0])))
    return any(_DEFINES_RE.match(_OWNER_RE.sub("", low[m.end():]).lstrip("*`'\"")) and not _AFTER_PREPOSITION_RE.search(
        low[: m.start()]) and (w in last or not re.search(r"\w", low[: m.start()]))
        for w in forms for m in re.finditer(re.escape(w), low))


def acronyms(subject: str) -> bool:
    """The subject is one or more short words the question typed in capitals ("IQ/OQ", "MKT": question.slot keeps
    them so), which a line may spell out by their initials."""
    ws = re.findall(r"[\w'-]+", subject)
    return bool(ws) and all(2 <= len(w) <= 5 and w.isalpha() and w.isupper() for w in ws)


def spells(subject: str, text: str) -> bool:
    """`text` spells out every word of the acronym `subject` by its initials."""
    return all(spelled_out(w, text) for w in re.findall(r"[\w'-]+", subject))


# What a line says before the other name it gives a thing: the thing it names first is what the name stands for
_NAMED_AS_RE = re.compile(r"\b(?:renamed(?: to| as)?|now called|also called|also known as|aka|formerly(?: known as)?|"
                          r"better known as)")


_OWNER_RE = re.compile(r"^\s+of\s+(?:the\s+|a\s+|an\s+)?[\w.-]+(?=\s)")
_AFTER_PREPOSITION_RE = re.compile(r"\b(?:per|of|for|on|by|with|from|to)\s+(?:the\s+|a\s+|an\s+|each\s+)?[*`'\"]*$")


def defines_operator(operator: str, text: str) -> bool:
    """ "what does the ~= operator mean": "`~=3.1.2` is equivalent to …" or "~= — Any compatible version" says it;
    "contains the operator <, <=, ~=, or ==" only names it."""
    if _first_cell(text) == operator:
        return True
    said = [m.end() for m in re.finditer(re.escape(operator) + r"[\w.*]*`?", text)]
    return any(_EQUIVALENT_RE.match(text[e:]) or _DEFINES_RE.match(fold(text[e:])) for e in said)


# A label that opens a line and what it says after a colon or dash: "``eager``: upgrades all dependencies …"
_LABEL_RE = re.compile(r"^\W{0,3}[*`'\"]*([\w][\w .+/-]{0,40}?)[*`'\"]*\s*[:—–]\s+\w")


def defined_in_context(subject: str, text: str, context: str) -> bool:
    """The line says what `subject` is, the rest of the term's words standing in what it is read with: a label of
    some of the term's words with the others in its heading or lead-in ("eager upgrade strategy": "``eager``: upgrades
    all dependencies regardless …" after "There are 2 upgrade strategies supported:"), or the first line under a
    heading that is the term written as code, an option or a name with a dash, dot or underscore in it ("what is
    --use-deprecated for": "Use for features that will be deprecated." under "``--use-deprecated``"; the context ends
    with the heading only when no sentence stands before the line)."""
    ws = [w for w in words(subject) if w not in STOPWORDS]
    if not ws:
        return False
    bare = subject.strip("`'\" ").casefold()
    if bare and re.search(r"[-_.]", bare) and context.rstrip().strip("`'\"* ").casefold().endswith(bare):
        return True
    m = _LABEL_RE.match(text)
    if not m:
        return False
    label = {stem(w) for w in words(m.group(1)) if w not in STOPWORDS}
    said = [*words(text), *words(context)]
    term, own = {stem(w) for w in ws}, {stem(w) for w in said}
    if label and label < term and term <= own:
        return True
    # an option's words count one by one ("what does --upgrade-strategy eager do": "eager", after "upgrade strategies")
    term = {stem(p) for w in ws for p in w.split("-") if p}
    own |= {stem(p) for w in said for p in w.split("-") if p}
    return bool(label) and label < term and term <= own
