"""The words on a line that answer *how do I*, *why* and *may I*, and the words of a question that ask them: a
step told to the reader, a command, the way in; a cause, what stood in the way; a ruling on whether one may.
slots.py fills a procedure, a reason and a yes or no with them."""

from __future__ import annotations

import re

CAUSE_RE = re.compile(
    r"\b(?:because|since (?![\d]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|due to|owing to|as a result|"
    r"result of|caused by|causes?|caused|so that|in order to|to avoid|to prevent|to reduce|to keep|to make sure|"
    r"to ensure|to stop|so we|so it|(?<=, )so|hence|thus|which is why|that is why|reason|root cause|why|led to|"
    r"leads to|meant that|means that|therefore|"
    # "This prevents a surprising hash mismatch upon the release of a new version": what the rule before is for
    r"(?:this|that|which|it) (?:prevents|avoids|ensures|guarantees|protects|guards against|gives (?:\w+ )?an?|helps|"
    r"keeps)|"
    # "(… doing so would be prohibitively costly …)": why something is not done
    r"doing so (?:would|could|will|might)|"
    # "blog post is with marketing, they want to hold it for the Orbis case study": what it waits on
    r"(?:hold|holding|held|wait|waiting|waited) (?:it |them |this |that |off )?(?:for|until|on) (?:the|a|an|their|our)|"
    # "Backtracking reduces the risk that installing a new package will accidentally break …": what a choice is for
    r"(?:reduces?|reduced|lowers?|minimi[sz]es?) the (?:risk|chance|likelihood)|"
    r"thanks to|after (?:a|an|the)|triggered|blamed|motivat\w*|rationale|driven by|collid\w*|confus\w*|"
    # "The four-day slip came from the firmware 3.8 rollout": where a change or a problem came from
    r"(?:slip|delay|drop|rise|fall|gap|loss|lag|failure|outage|backlog|increase|decrease|change)s? (?:came|comes|stemmed|"
    r"stems) from|(?:was|is|were|are) down to|"
    # "The decision to install topologically is based on the principle that …": what a decision rests on
    r"(?:is|are|was|were) based on the (?:principle|idea|assumption|premise|fact)|"
    r"(?:occurs|happens|arises|appears)\b[^.;:]{0,24}?\b(?:when|if))\b"
    # "As downloading projects is a costly operation, pip cannot pre-compute …": a sentence opened by "as" and a clause
    # with its own verb gives the reason for what follows the comma
    r"|^\W*as (?:[\w'-]+ ){1,8}?(?:is|are|was|were|has|have|had|does|do|did|can|cannot|will|would)\b[^,.;]{0,60},", re.I)
# A refusal and, after a semicolon or colon, what stands in the way: "we cannot pilot on the frozen lanes;
# our frozen stock is contract-manufactured".
REFUSAL_REASON_RE = re.compile(r"\b(?:cannot|can't|can not|could not|couldn't|won't|will not|unable to|"
                               r"not able to)\b[^;:.?!]{3,120}[;:]\s*\w", re.I)
# "why didn't keel end up as the name": "Keel tested well with customers but the domain was not available" says
# what stood in the way, after the contrast.
WHY_NOT_RE = re.compile(r"\bwhy\b[^?]*?\b(?:not|didn't|didnt|did not|wasn't|wasnt|weren't|isn't|never|pass(?:ed)? on|"
                        r"reject\w*|drop\w*|turn\w* down|decline\w*|skip\w*)\b", re.I)
BUT_NOT_RE = re.compile(r"\b(?:but|however|although|though|yet)\b[^.;?!]{0,80}?\b(?:not|no|never|unavailable|too)\b", re.I)
# Asked how to get into a place, the way in is the answer: a door, an entrance, a badge.
WAY_IN_ASKED_RE = re.compile(r"\bhow (?:do|can|should|would|will) (?:i|we|you|one|they) (?:get|go|come|let \w+) "
                             r"(?:in|into|inside|through|access)\b", re.I)
WAY_IN_RE = re.compile(r"\b(?:entrance|entrances|entry|door|doors|gate|gates|reception|intercom|buzzer|key ?card|badge|"
                       r"fob)\b", re.I)
# A step told to the reader: a clause that opens with an instruction verb ("Use the side door", "…; create an
# amendment instead") or says what the reader needs to do ("you need to file a request").
INSTRUCTS_RE = re.compile(
    r"(?:^|[;:—–]\s*|[.!?]\s+)(?:please\s+|instead,?\s+|then\s+|first,?\s+)?(?:use|create|ask|contact|e-?mail|call|"
    r"open|click|select|enter|add|request|submit|raise|scan|press|type|send|book|follow|choose|register|"
    r"copy|reply|post|message|ping|visit|apply|fill|attach|upload|restart|reboot|log in|sign in|go to|talk to|"
    r"speak to|write to|check|ensure|make sure|try|install|run|set|remove|delete|update|upgrade|change|edit|enable|"
    r"disable|configure|verify|pass|specify|avoid|consider)\b|\byou(?:'ll| will)?\s+(?:(?:need|have)\s+to|must|should)\s+\w+", re.I)
# A line that is only a command typed at a prompt.
COMMAND_RE = re.compile(r"^\s*(?:\$|%|>|[A-Z]:\\[^>]*>)\s+\S")
# A yes or no on whether one may or should do something ("is it fine to use X in production", "should we …"; "can
# we give the customer a German report" asks what can be done as often, which a line says without ruling on it).
# What one may do, asked ("is it ok to", "X — safe for prod?"; what_forms.OK_ASKED_RE reads the second).
PERMISSION_WORDS = r"(?:fine|ok|okay|safe|allowed|advisable|recommended|(?:a )?(?:good|bad) idea|wise|acceptable|supported)"
LEAVE_ASKED_RE = re.compile(r"^\W*(?:(?:is|would) (?:it|this|that) (?:be )?" + PERMISSION_WORDS + r"\b|(?:should|may|must) "
                            r"(?:i|we|you|one)\b|(?:is|are) (?:the |a |an |my |our )?(?:[\w.`'/-]+ ){1,4}" + PERMISSION_WORDS +
                            r" (?:to|for|in|on|with)\b)", re.I)
# A line that rules on it: a modal, a recommendation, or what the thing is fit for.
RULING_RE = re.compile(r"\b(?:should|must|shall|cannot|can't|need to|needs to|have to|has to|recommend\w*|"
                       r"safe|unsafe|support\w*|allow\w*|avoid|experimental|deprecated|discourag\w*|encourag\w*|"
                       r"prefer\w*|not intended|intended|suitable|unsuitable|risk\w*|forbid\w*|permit\w*)\b|"
                       # "Do _not_ use quotes in requirement files.": a sentence that forbids, emphasis and all
                       r"(?:^|[.;:]\s+)\W*(?:do[\s_*]{1,4}not|don't|never)(?![a-z])",
                       re.I)
# What a command prints asked ("what does pip check print when everything is fine", "what's the output of pip freeze"):
# a console transcript, the command and what it wrote after it, answers; the verb is what asks, not a word the
# transcript says.
# ("what msg does pip check show when nothing is broken": the message, asked by its kind)
OUTPUT_ASKED_RE = re.compile(r"\bwhat(?: (?:msg|message|output|text))? (?:does|do|did|will|would|should) (?:\S+ ){1,4}?(?:print|prints|output|show|"
                             r"display|say|write|spit out)\b|\bwhat(?:'s| is) (?:the )?output of\b", re.I)
OUTPUT_WORDS = frozenset("print prints printed output outputs show shows display displays say says write writes "
                         "spit".split())
COMMAND_ASKED_RE = re.compile(r"\b(?:should|do|can|must|could) (?:i|we|you|one) (?:run|type|execute|enter|invoke)\b|"
                              r"\b(?:which|what) commands?\b", re.I)
# "How do payloads get signed", "how is the cache invalidated": what is done to the subject.
# (not in a clause that only says which thing: "how do i install groupA that's declared in …/pyproject.toml")
DONE_TO_RE = re.compile(r"\bhow (?:do|does|did|is|are|was|were)\b.*(?<!\bthat )(?<!\bwhich )\b"
                        r"(?:(?:get|gets|got|be|is|are|was|were) |(?:get|gets|got) "
                        r"(?:my|our|their|your|the|a|an) (?:[\w-]+ ){0,3}?)([a-z]+(?:ed|en))\b", re.I)
# A sample of data a command writes: a JSON object, a list of them, or a field of one ('"metadata_version": "2.1", …');
# it tells no how (procedure.how_fill) and answers only a question about the report (slots.fill)
# (or that goes on from the middle of one: '], "requires_python": ">=3.7" } }, { "download_info": …')
DATA_RE = re.compile(r'^\s*(?:\{\s*"|\[\s*\{\s*["\']|"[\w-]+":\s*["\d\[{tfn]|[\]}][\s\]},]*["{])')
# A named method or standard, "HMAC-SHA256", "AES-256", "ISO-8601".
STANDARD_RE = re.compile(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b")


# The kind of thing a defined term is, typed after its name ("the requested field", "the --debug flag")
KIND_TAIL_RE = re.compile(r"\s+(?:field|key|option|flag|switch|setting|column|label|parameter|argument|attribute|"
                          r"property|entry)s?$", re.I)
# "what's the #egg= bit at the end of a git url for": the piece asked about, and where the asker met it
PART_OF_RE = re.compile(r"\s+(?:bit|part|piece|thing|bits|parts)\s+(?:at|in|on|of|after|before)\b.*$", re.I)
# The default asked for: "by default", "if I don't pass --progress-bar", "without saying anything else"; and a line
# that gives an option a value of the asker's choosing ("--upgrade-strategy=eager")

# Words that label a line ("Example: …", "Note: …") and say nothing of what it labels.
LABEL_WORDS = frozenset({"example", "examples", "note", "notes", "tip", "usage", "see", "also"})


# "only certifi is used … as `truststore` requires Python 3.10 or higher": "as", then what something needs or cannot do,
# rules the rest out; not "as long as …", nor "the same format as pip requires" (a likeness, not a reason)
_AS_NEED_RE = re.compile(r"(?<!long)(?<!such)(?<!well)(?<!soon)(?<!just),? as (?!(?:long|well|soon|far|much|many|if|"
                         r"though)\b)(?:(?!as\b)[\w`'.-]+ ){1,4}?(?:requires|require|needs|need|cannot|can't|does not|"
                         r"doesn't|do not|don't)\b", re.I)
_LIKENESS_RE = re.compile(r"\b(?:same|such|similar|similarly|identical)\b[^,.;:]{0,40}$", re.I)


def as_need(text: str) -> bool:
    """The line gives a reason by "as" and a need or an inability."""
    return any(not _LIKENESS_RE.search(text[: m.start()]) for m in _AS_NEED_RE.finditer(text))
