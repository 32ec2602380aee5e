"""Where a typed question divides: into parts ("…, and who led it?", "rate limit per key + what's the overage fee",
"is it still valid, when was it renewed") and from the remark after it ("what's MKT? pharma folks keep saying it",
"so what exactly is a telemetry gap — chart shows hatching"). question.parts reads a question through these."""

from __future__ import annotations

import re

# A question, then a remark that is no question of its own (no "?", no question word or auxiliary to open it).
ASIDE_RE = re.compile(r"^((?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|did|do|can|will|"
                      r"should|has|have)\b[^?]*\?+)\s+(?!(?:who|whom|whose|what|when|where|which|why|how|is|are|was|"
                      r"were|does|did|do|can|could|will|would|should|has|have|and|or|also|plus|if)\b)[^?]+$", re.I)
# "is it still valid, when was it renewed": a comma, then a question word with its verb
COMMA_WH_RE = re.compile(r",\s+(?=(?:who|what|when|where|which|why|how)\s+(?:is|are|was|were|do|does|did|can|will|has|"
                         r"have|had|should|would|much|many|long|far|often)\b)", re.I)
# A question typed as a noun phrase, then a remark ("driftwood M2 date? plan had 10 april"); "??" is one mark
TYPED_ASIDE_RE = re.compile(r"^([^?]{3,60}\?+)\s+(?!(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|"
                            r"did|do|can|could|will|would|should|has|have|and|or|also|plus|if)\b)[^?]+\??$", re.I)
# "so what exactly is a telemetry gap — chart shows hatching": a remark set off by a dash after a whole question
DASH_ASIDE_RE = re.compile(r"^((?:so\s+)?(?:who|whom|whose|what|when|where|which|why|how)\b[^?—–]*?)\s+[—–]\s+"
                           r"(?!(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|did|do|can|could|"
                           r"will|would|should|has|have|and|or|also|plus|if)\b)[^?—–]+\??$", re.I)
# A second question joined by "and": "…, and who led it?", "… and when did it ship?"; "+" joins two, whatever follows
# ("rate limit per key by default + what's the overage fee", "operating temp range + reading interval range")
SPLIT_RE = re.compile(r"\s+\+\s+|(?:\?\s+|,?\s+(?:and|&)\s+|;\s*)(?=(?:who|whom|whose|what|when|where|which|why|"
                      r"how|is|are|was|were|does|did|do|can|will|has|have)\b|(?:in|at|on|from|for|with|by|under|into) "
                      r"(?:which|what|whose)\b|by how (?:much|many|far|long)\b|(?:since|until|till) (?:when|which|what)\b)",
                      re.I)
SETUP_RE = re.compile(r"^([^;?]+);\s*((?:who|whom|whose|what|when|where|which|why|how)\b[^;?]*\??)$", re.I)
# "… and have pip fill it in": having something done, said after a yes-or-no question, is part of it
HAVE_DONE_RE = re.compile(r"^(?:have|has) (?:it|them|pip|the \w+|\w+) (?!(?:been|got|gotten|done|seen|had|\w+ed|\w+en)\b)"
                          r"[a-z]+\b", re.I)
# A second part with no predicate of its own ("who ran the retro, and in which office?"): it asks about the
# first part's predicate.
BARE_PART_RE = re.compile(r"^(?:(?:in|at|on|from|for|with|by|under|into) )?(?:which|what|whose) [\w'-]+$|"
                          r"^(?:(?:since|until|till) )?(?:who|when|where|why|how)$", re.I)
# A later part that only names the unit of the figure the first part asks for ("how many seconds").
UNIT_ONLY_RE = re.compile(r"^how (?:many|much|long)(?: (?:seconds|secs|minutes|mins|hours|hrs|days|weeks|months|years|"
                          r"ms|milliseconds|bytes|kb|mb|gb|tb|percent|times))?$", re.I)
# Two things asked by name, joined by "and" after a topic ("new lisbon office — street address and monthly rent",
# "norrland renewal: what day was it signed and total contract value in £"): the second a noun phrase of its own
AND_NAMED_RE = re.compile(r"^(?P<a>.+?)\s+(?:and|&)\s+(?P<b>[^,;:?—–]+?)\s*\??$", re.I)
# The topic typed before a colon or a dash, which both parts of a named pair are about (question._TOPIC_RE is a
# topic before a question word)
LEAD_TOPIC_RE = re.compile(r"^(?P<topic>[^:—–?]{2,40}?)(?::\s+|\s[—–]\s*|\s-\s+)")  # not "--hash"
