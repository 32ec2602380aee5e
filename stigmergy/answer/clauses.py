"""Clauses that change what a question asks, read by question.py: a clause that sets the scene before the question
proper ("in the study of …, how many …", "when people say 'lane' … what do they mean"), a yes-or-no question after a
case or a remark, a "when" that opens a case ("skip the svn tests when i don't have subversion") or asks in which case
("when do i need to reinstall"), a relative "where", a figure that landed, a relative clause after a measure ("share
of users who …"), a setting's value ("default value of --upgrade-strategy"), a word that only qualifies a version
("version operator") and the manner a request is done in ("completely empty pip's cache")."""

from __future__ import annotations

import re

from stigmergy.answer.function_words import AUX, WH

# A framing clause before the question proper ("in the study of how users picture pip, how many people…"):
# its own question word does not say what is asked.
FRAME_RE = re.compile(r"^(?:(?:in|on|at|for|during|from|among|across|of|within|apart from|besides|after|before|"
                      r"under|over|regarding|about)\b|"
                      # "when a wheel comes out of the cache, where does it find …": a clause that sets the scene
                      # ("when is the offsite, roughly" asks when: an auxiliary follows)
                      r"(?:when|whenever|if|once|while)\s+(?!(?:is|are|was|were|did|does|do|will|can|could|should|"
                      r"has|have|had|would)\b))[^,?—–]*?(?:,|\s[—–]|\s-\s)\s*(?=(?:who|whom|whose|what|when|where|which|why|how|"
                      r"is|are|was|were|does|did|do|can|will|has|have|should)\b)|"
                      # "on python 3.9 will pip …", typed without its comma: a short frame, then an auxiliary
                      r"^(?:in|on|at|for|with|under)\s+(?:(?!(?:who|whom|whose|what|when|where|which|why|how|is|are|"
                      r"was|were|does|did|do|can|will|would|should)\b)[\w.'-]+\s+){1,3}"
                      r"(?=(?:is|are|was|were|does|did|do|can|will|would|should)\s+\w)|"
                      # "when using --require-hashes will pip …", "when people say 'telemetry gap' is that …": a
                      # clause of doing or saying, then an auxiliary that asks
                      r"^(?:[^:?]{2,40}:\s+)?(?:when|whenever|while|if|once)\s+(?:\w+ing|(?:people|folks|someone|they|you|we|others|"
                      r"everyone|customers|users)\s+(?:say|says|mention|talk about|refer to|write))\s+"
                      r"(?:(?!(?:is|are|was|were|does|did|do|can|will|would|should|who|what|which|where|when|why|"
                      r"how)\b)\S+\s+){1,5}"
                      # ("when ppl say 'lane' in standup what do they mean": the question word asks)
                      r"(?=(?:is|are|was|were|does|did|do|can|will|would|should|who|what|which|where|when|why|how)"
                      r"\s+\w)", re.I)

# "i pass --config-settings to pip install — do those settings reach …", "my pip is old. is it safe to …", "pharma
# prospect asking: do you store patient data": the question after a dash, a colon or a full stop opens with an
# auxiliary and asks yes or no; so does one after a case and a comma that names what it asks about ("py3.9 box behind
# a TLS-intercepting proxy, will pip use the system certs"), not one that asks of the figure before it ("…, is that the
# final number") or for a way ("…, is there a …").
LATER_AUX_RE = re.compile(r"(?:[.!:]\s+|\s[—–]\s*|\s-\s)((?:is|are|was|were|does|did|do|can|could|will|would|should|"
                          r"has|have|must)\s.+)$|,\s+((?:is|are|does|do|can|will|would|should)\s+"
                          r"(?!(?:that|this|it|those|these|they|there|i|we|you)\b).+)$|"
                          # "with the http cache on, can i run pip fully offline": the asker's own doing after a case
                          r",\s+((?:do|does|can|could|should|will|would|must)\s+(?:i|we|you)\b.+)$", re.I)
# "if the sensors stop reporting for a while does that count as an excursion", "when a gateway goes offline does it
# buffer readings": a case opened by "if" or "when", then without a comma the question, opening with an auxiliary
CASE_AUX_RE = re.compile(r"^(?:if|when|whenever|once)\s+(?!(?:is|are|was|were|does|do|did|will|would|can|could|should|"
                         r"has|have)\b)(?:\S+\s+){1,12}?((?:does|do|did|is|are|will|would|can|could|should)\s+(?:that|it|"
                         r"this|i|we|you|they|he|she|pip|the|my|our)\b.*)$", re.I)

# A "when" that opens a case with its own subject and verb ("… tests when i don't have subversion"), not one asked
# at the end ("the offsite starts when exactly").
CASE_WHEN_RE = re.compile(r"(?<!\bby)(?<!\buntil)(?<!\bsince)(?<!\btill)\s+when\s+(?!(?:exactly|again|roughly|approximately|"
                          r"precisely|about|is|are|was|were|did|does|do|will|can|could|should|has|have|had|would)\b)"
                          r"[\w'-]+\s+[\w'-]+")

AUX_OR_WH_FIRST_RE = re.compile(r"^(?:[^:]{2,40}:\s+)?(?:" + "|".join((*AUX, *WH)) + r")\b")

# "we want to know when lodestar ships": the "when" of a question asked inside the sentence.
KNOW_BEFORE_RE = re.compile(r"\b(?:know|tell|told|ask|asked|asking|wonder|wondering|remember|recall|sure|idea|check|"
                            r"confirm|find out|see|say|said|clue|unclear)\s*$")

WHEN_NEEDED_RE = re.compile(r"\bwhen (?:do|should|must|would|will) (?:i|we|you) (?:actually |really |still |ever )?"
                            r"(?:need|have|want|got) to\b")

MID_WHEN_RE = re.compile(r"^[^,;:?!—–]*\b(?!(?:and|or|but|so|then|just|exactly)\b)[a-z0-9'-]+ when\b")

# "on a box where the locale is ascii — what encoding does pip assume": "where" after a noun opens a relative clause
# that says in which case; a question word after it asks.
RELATIVE_WHERE_RE = re.compile(r"\b(?:a|an|the|my|our|your|some|any|this|that|each|every)\s+(?:[\w'-]+\s+){0,2}?[\w'-]+ "
                               r"where\b")

# "what's the --debug flag for, when hacking on pip": a clause after the question that says in which case, not another
# question
CASE_CLAUSE_RE = re.compile(r"(?:when|where|while)\s+(?:\w+ing|i|we|you|they|it|there)\b", re.I)

MANNER = frozenset("completely fully quickly safely just permanently temporarily properly manually automatically totally "
                   "globally locally silently cleanly".split())

# A measure typed first, before a relative clause ("share of users who …", "the number of people who …").
SHARE_FIRST_RE = re.compile(r"^(?:the |what(?: is|'s) the )?(?=(?:share|percentage|percent|proportion|fraction|number|"
                            r"count) of\b)")

# A noun a version word only qualifies ("version operator", "version specifier"): the thing asked is that noun.
VERSION_NOUN_RE = re.compile(r"\bversion (operators?|specifiers?|schemes?|syntax|comparisons?|clauses?|markers?)\b")

# An option or a setting's key after "value of" ("--upgrade-strategy", "`timeout`", "global.index-url").
OPTION_VALUE_RE = re.compile(r"\bvalues?\s+(?:of|for)\s+(?:the\s+)?[`'\"]?(?:--?[a-z][\w-]*|[a-z]+[._][\w.]+)")

LANDED_RE = re.compile(r"\bwhere did (?:it|that|this|they|we) (?:actually |finally |eventually |really )?(?:land|end up|come "
                       r"in|finish|settle)\b")

# A piece of something the asker gives an example of ("the 2 part", "the number after the dot", "the two parts"), and
# the kind of thing their example is ("pip versions look like 24.2", "in a version number like 24.2").
PIECE_RE = re.compile(r"^(?:the |that |this )?(?:\d+|first|second|third|last|two|both|each|other|left|right)?\s*"
                     r"(?:part|bit|number|digit|component|piece|half|field)s?"
                     r"(?: (?:after|before) the (?:dot|point|period|decimal(?: point)?))?$")
EXAMPLE_KIND_RE = re.compile(r"\b((?:version|release) numbers?|versions?|releases?|tags?|ids?|codes?|numbers?)"
                            r" (?:look like|looks like|like|such as|e\.g\.?)\s+v?\d")

# The verbs that ask for a cause ("what kicked off the april backlog"), as patterns (a phrasal verb's object may stand
# inside it: "what held it up"): the question asks why (question.py), and a line that gives the cause need not say
# them (select.py).
CAUSE_VERBS = ("triggered", "kicked off", "set off", "sparked", "prompted", "brought on",
               # "what held it up", "what's holding up the launch", "what delayed the M2 milestone"
               r"held (?:[\w' -]+ )?up", r"(?:is |was |'s )?holding (?:[\w' -]+ )?up", "delayed", "slowed")

