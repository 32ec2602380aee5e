"""What a question's frame asks of the line that answers it, beyond the kind of value: a default ("which port
does pip assume if I leave it off") or what holds past it ("once they've asked for more"), what came to pass rather
than a plan ("what did the move end up costing"), what comes next ("which hash will pip recommend after sha256", "in
which pip version will X be dropped"), a total ("how many gateways in total"), what is typical. Each frame a line
misses weakens it once: a version asked ahead and a line that says what was done is one miss, not two, and so is a
budget where what it came to is asked. A line that gives a value of the asked kind in another frame (an example
setting, what holds now, what was added, a plan, the default) fills the slot weakly (slots.fill)."""

from __future__ import annotations

import re
from functools import lru_cache

from stigmergy.answer.asides import DOUBT_RE

DEFAULT_ASKED_RE = re.compile(r"\bdefault\b|\bif (?:i|you|we|they) (?:don't|do not|never) (?:pass|set|give|use|specify|add|"
                              r"say|ask|request|change|configure)\b|\bwithout (?:passing|setting|giving|specifying|saying|adding) (?:it|anything|any)\b|"
                              r"\bif (?:i|you|we) (?:leave|keep) (?:\S+ ){1,3}(?:off|out)\b|\b(?:does|do|will|would) "
                              r"(?:\S+ ){1,2}assume\b", re.I)
# A line that speaks of what holds when nothing is given: a default, or what is assumed or done when it is left out.
DEFAULT_SAID_RE = re.compile(r"\bdefault|\bunless\b|\botherwise\b|\bassumes?\b|\bassumed\b|\bfalls? back\b|"
                             r"\bfallback\b|\bimplicit|\bomitted\b|\bunset\b|\bif (?:not|no|none|nothing)\b|"
                             r"\bwhen (?:no|not|none|nothing)\b|\bnot (?:given|set|specified|provided|passed)\b|"
                             r"\bif (?:\S+ ){1,4}(?:is|are) (?:not|omitted|missing|absent|unset|left out)\b", re.I)

# Past the default asked ("what limit does a carrier get once they've asked for more", "how high can it go"), against a
# line that gives the default ("600 requests per minute by default"); not when nothing is done ("if I don't set one"
# asks for the default).
_BY_DEFAULT_RE = re.compile(r"\b(?:by default|defaults? (?:to|is|of)|default (?:value|setting|limit))\b", re.I)
_DONE_IF_RE = re.compile(r"\b(?:once|after|if|upon)\b", re.I)
_UNDONE_IF_RE = re.compile(r"\b(?:if|once|after) (?:\w+ )?(?:don't|do not|doesn't|does not|haven't|have not|never|no)\b|"
                           r"\bunless\b|\bwithout\b", re.I)
_BEYOND_DEFAULT_RE = re.compile(r"\bhow high\b|\b(?:higher|highest|max|maximum|raised?|increased?)\b", re.I)

# What will be, or comes next ("which hash algorithm will pip recommend after sha256", "which python is pip dropping
# support for next"), against a line that says what is now ("The recommended hash algorithm at the moment is sha256")
# or what was done ("in pip 21.0 … pip dropped support for Python 2").
AHEAD_ASKED_RE = re.compile(r"\b(?:will|going to)\b|\bnext\b(?! to\b)|\bupcoming\b|\bafter (?:that|this|it)\b", re.I)
NOW_SAID_RE = re.compile(r"\b(?:at the moment|currently|at present|right now|for now|as of now|as of today)\b", re.I)
DONE_SAID_RE = re.compile(r"\b(?:dropped|removed|released|deprecated|retired|ended|launched|shipped|renewed|replaced)\b",
                          re.I)

# A total asked ("how many gateways do we have in the field in total, all customers"), against a line that counts what
# was added ("the expansion at Norrland Fresh, which added … about 140 Beacon gateways") and names no total.
TOTAL_ASKED_RE = re.compile(r"\b(?:in total|total|overall|altogether|all together|combined|in all|across (?:all|every))\b",
                            re.I)
ADDED_SAID_RE = re.compile(r"\b(?:added|adds|adding|additional|extra|expansion|expanded|grew by|up by|increased by)\b", re.I)

# A version asked that is to come ("in which pip version will X be dropped"): only a line that speaks of what will be
# gives it ("in pip 21.0, pip dropped support for Python 2" is done).
FUTURE_VERSION_ASKED_RE = re.compile(r"\b(?:version|release)s? (?:will|shall|(?:is|are) going to)\b|"
                                     r"\bwill (?:[\w.-]+ ){0,6}be (?:dropped|removed|released|deprecated|retired)\b", re.I)
# A line that speaks of what is to come: it answers what comes next, whatever else it says.
WILL_RE = re.compile(r"\b(?:will|shall|going to|plan\w*|schedul\w*|expect\w*|upcoming|next|future|intend\w*|"
                     r"removal|to be (?:removed|dropped|released|retired))\b", re.I)


# What came to pass asked ("what did the lisbon move end up costing", "what did we actually book in revenue", "did M2
# land on its planned date"), against a line that gives a plan, a budget or a forecast and says nothing of what
# happened ("Expect revenue of about £3.0M", "Rory budgeted about £65k for the move", "M2 is planned for 10 April").
ACTUAL_ASKED_RE = re.compile(r"\bactual(?:ly)?\b|\b(?:end|ended|ending|wind|wound) up\b|\bin the end\b|\bturned out\b|"
                             r"\bwhere did (?:it|that|this|they|we) (?:land|end|come in|finish)\b|\bcame in at\b", re.I)
ON_PLAN_ASKED_RE = re.compile(r"\b(?:planned|scheduled|target|due|promised|original) (?:date|day|time|deadline)\b|"
                              r"\bon (?:time|schedule|target)\b|\bas planned\b|\b(?:slip|slipped|late|delayed|behind "
                              r"schedule)\b|\bhit (?:its|the|their|our) (?:date|deadline|target)\b|"
                              r"\b(?:like|as) (?:the|our|its) plan(?:ned)? (?:said|had it)\b|"
                              r"\bor did (?:it|that|this|they) (?:move|slip|shift|change)\b", re.I)
# A plan or a forecast is not what happened: it answers a question about plans, weakly any other, and a date's
# question that does not ask what actually happened ("when did driftwood actually cut over? i thought it was end of
# may": "M3 full cutover: planned 29 May" is the plan the asker already knows).
PLAN_RE = re.compile(r"\b(?:expect\w*|forecast\w*|project(?:ed|ion|ions)|plan(?:s|ned|ning)?|target\w*|aim\w*|goal|"
                     r"estimate\w*|anticipat\w*|outlook|guidance|should reach)\b", re.I)
_BUDGET_RE = re.compile(r"\bbudget\w*", re.I)
# What came to pass, said beside a plan ("M2 was planned for 10 April and went live on 14 April"); and said of an amount
# or of a plan that held ("came in at", "booked", "slipped").
CAME_TO_PASS_RE = re.compile(r"\b(?:went|happened|completed|finished|launched|shipped|reached|switched|arrived|"
                             r"landed|closed|signed|opened)\b", re.I)
ACTUAL_SAID_RE = re.compile(r"\b(?:actual\w*|came in|came to|ended up|landed|booked|outturn|spent|went live|done|"
                            r"(?:was|were|been) met|achieved|"
                            r"completed|finished|reached|closed|slipped|delayed|late|early|on time|as planned)\b", re.I)


# What is typical asked ("typically how long after an excursion was its report ready"; "usually" softens a question as
# often as it asks for the typical case), against a line that gives one case's or the whole span's figure ("The pilot
# … runs for six months") and no typical one ("Median time …: 74 seconds").
TYPICAL_ASKED_RE = re.compile(r"\b(?:typical(?:ly)?|on average|average|median|on a normal)\b", re.I)
TYPICAL_SAID_RE = re.compile(r"\b(?:typical(?:ly)?|usual(?:ly)?|normal(?:ly)?|average|averag\w+|median|mean|p50|"
                             r"generally|most (?:of the time|often))\b", re.I)


@lru_cache(maxsize=256)
def _asks(question: str) -> tuple[bool, bool, bool, bool, bool, bool, bool, bool, bool, bool]:
    """(a default, what comes next, a version to come, a total, what came to pass, whether a plan held, what is
    typical, a plan, a date in doubt, past the default) asked: read once per question, not once per line."""
    return (DEFAULT_ASKED_RE.search(question) is not None, AHEAD_ASKED_RE.search(question) is not None,
            FUTURE_VERSION_ASKED_RE.search(question) is not None,
            TOTAL_ASKED_RE.search(question) is not None and ADDED_SAID_RE.search(question) is None,
            ACTUAL_ASKED_RE.search(question) is not None, ON_PLAN_ASKED_RE.search(question) is not None,
            TYPICAL_ASKED_RE.search(question) is not None, PLAN_RE.search(question) is not None,
            DOUBT_RE.search(question) is not None,
            (_DONE_IF_RE.search(question) is not None or _BEYOND_DEFAULT_RE.search(question) is not None) and not (
                _BY_DEFAULT_RE.search(question) or _UNDONE_IF_RE.search(question)))


_SENTENCE_END_RE = re.compile(r"[.!?;](?:\s|$)")
# A kickoff's milestones set dates to come ("Driftwood runs in three milestones: … M3 full cutover by 29 May 2026").
_MILESTONES_RE = re.compile(r"\bmilestones?\b", re.I)


def _plan_said(text: str) -> re.Match[str] | None:
    return PLAN_RE.search(text) or _BUDGET_RE.search(text) or _MILESTONES_RE.search(text)


def _told_from(text: str) -> int:
    """Where a line's plan is told, from its sentence on: what came to pass is told with the plan or after it ("M2 was
    planned for 10 April and went live on 14 April"); a sentence before it speaks of another step ("Project Driftwood
    reached M1 … on 25 February. M2 is planned for 10 April")."""
    plan = _plan_said(text)
    if plan is None:
        return 0
    ends = [m.end() for m in _SENTENCE_END_RE.finditer(text, 0, plan.start())]
    return ends[-1] if ends else 0


def planned_only(kind: str, text: str, question: str) -> bool:
    """Whether the line gives only a plan, a budget or a forecast where the question asks what came to pass ("what did
    Q4 revenue actually come in at": "Expect revenue of about £3.0M"; "when did driftwood actually cut over": "M3 full
    cutover — Planned: 29 May 2026"): it answers nothing asked, however many of the question's words it says. A plan
    the question itself names is the asker's own, told to be doubted ("… actually cut over? plan said end of may")."""
    _, _, _, _, actual, _, _, _, doubt, _ = _asks(question)
    if not (actual or doubt) or kind not in ("quantity", "value", "date", "yesno") or _plan_said(text) is None:
        return False
    start = _told_from(text)
    return not (ACTUAL_SAID_RE.search(text, start) or CAME_TO_PASS_RE.search(text, start))


def framed(kind: str, unit: str, text: str, context: str, question: str) -> bool:
    """Whether `text` (with its `context`) gives its value in the frame `question` asks for (True where the
    question sets none). The slot's `kind` says where a frame applies: a yes/no question or a procedure has none, and
    a date asked ahead is read by the date's own rules ("the CSV export is retired on 1 March 2027" answers "when will")."""
    default, ahead, version_ahead, total, actual, on_plan, typical, plan, doubt, beyond = _asks(question)
    if default and kind in ("quantity", "value", "thing", "place") and not (
            DEFAULT_SAID_RE.search(f"{text} {context}")):
        # "which style does pip use if I don't pass --progress-bar": "use --progress-bar=raw" is a choice; "which port
        # if I leave it off --proxy": "in the form scheme://proxy.server:port" gives none
        return False
    if beyond and kind == "quantity" and _BY_DEFAULT_RE.search(text):
        return False  # "what limit does a carrier get once they've asked for more": "600 … by default" is the default's
    if version_ahead and unit == "version" and not WILL_RE.search(text):
        return False  # "in which pip version will X be dropped": "in pip 21.0, pip dropped support for Python 2"
    if ahead and kind not in ("yesno", "procedure", "reason", "definition", "date") and (
            NOW_SAID_RE.search(text) or DONE_SAID_RE.search(text)) and not WILL_RE.search(text):
        return False  # "which hash will pip recommend after sha256": "the recommended one at the moment is sha256"
    if total and kind == "quantity" and ADDED_SAID_RE.search(text) and not TOTAL_ASKED_RE.search(text):
        return False  # "how many gateways in total": "the expansion … added about 140 Beacon gateways" counts an addition
    planned = PLAN_RE.search(text) is not None
    if planned and ((kind == "quantity" and not plan) or (kind == "date" and doubt and not CAME_TO_PASS_RE.search(text))):
        return False  # a plan or a forecast, where the question asks none ("Expect revenue of about £3.0M")
    if ((actual and kind in ("quantity", "value", "yesno")) or (on_plan and kind == "yesno")) and (
            PLAN_RE.search(f"{text} {context}") or _BUDGET_RE.search(text)) and not ACTUAL_SAID_RE.search(text, _told_from(text)):
        # "what did the lisbon move end up costing": "Rory budgeted about £65k for the move" is the plan; "did M2 land
        # on its planned date", "did M2 actually hit 10 april": "M2 is planned for 10 April" says when it was to, not
        # when it did
        return False
    if typical and kind == "quantity" and not TYPICAL_SAID_RE.search(f"{text} {context}"):
        return False  # "typically how long until the report was ready": "the pilot runs for six months" is no typical lag
    return True
