"""The forms of a *what* question that say what kind of thing is asked before its head noun does: a post ("what is
Tomek's role", "whats his official title"), a meaning ("what does MKT stand for"), a flag, a command or a web
address ("what's the cmd to wipe it", "direct download link for the zipapp"), the utmost a thing can reach; and the
forms of a question typed with no question word at all (an instruction, a label, a noun phrase). The parser
(question.py) reads a question's words with them."""

from __future__ import annotations

import re

from stigmergy.answer.cues import PERMISSION_WORDS

# "what's the biggest the http cache is allowed to grow": a measure, at most
UTMOST_CLAUSE_RE = re.compile(r"^(?:'s|is|was|are) the (biggest|largest|smallest|longest|shortest|highest|lowest|most|"
                              r"fewest|least) (?:(?:the|a|an|my|our|its|their|this|that|it|they|you|we|i|pip)\b|"
                              r"[\w'-]+ (?:can|could|will|may|might|is|are|gets?|grows?)\b)")
# "what's the longest line allowed in a requirements file", "the longest project name pip will accept": the utmost
# of a thing's measure (its length, its size), where the thing is no person, place or organisation ("the biggest
# customer in the nordics" asks which customer)
UTMOST_OF_RE = re.compile(r"^(?:'s|is|was|are) the (longest|shortest|biggest|largest|smallest|widest|highest|lowest|max|"
                          r"maximum|min|minimum) ((?:[\w'.-]+ ){0,2}?[\w'.-]+)(?= (?:allowed|permitted|possible|accepted|"
                          r"supported|that|which|pip|you|i|we|it|one|in|on|for|of|before|a|an)\b|$)")
COMMAND_ASKED_RE = re.compile(r"^(?:'s|is|are|was|were) (?:the |a |an )?(?:pip |right |correct |exact |one )?(?:sub)?"
                              r"(?:command|cmd)s? (?:to|for|that|which) .+$")
FLAG_ASKED_RE = re.compile(r"^(?:'s|is|are|was|were) (?:the |a |an )?(?:pip |right |correct )?(?:(?:flags?|switch(?:es)?)|"
                           r"(?:cli|command[- ]line) (?:options?|flags?|switch(?:es)?))(?: (?:for|to) .*)?$")

# "what is Tomek's role", "what job does Hannah have": the post a person holds, which a line says by its title
# ("Tomasz Wieczorek, CTO and co-founder"), not by a sentence of what a role is.
# "what's olly's role here": the post X holds, said with where or when the asker stands.
ROLE_OF_RE = re.compile(r"^what (?:is|was) (?:the )?(?P<x>[\w' .-]+?)'s? (?:current |new |official |job |actual |real |"
                        r"exact |proper |full )?"
                        r"(?:role|job|title|position|post)(?: here| there| now| nowadays| these days| at the moment| exactly| again| "
                        r"precisely| officially)?$|"
                        r"^what (?:role|job|title|position|post) (?:does|did|do) (?P<y>[\w' .-]+?) (?:have|hold|play|do)\b|"
                        # "Dan Ferreira's title?", "what does sam actually do here, job-title wise?"
                        r"^(?P<z>[\w' .-]+?)'s? (?:current |new |official |job |actual |real |exact |proper |full )?"
                        r"(?:role|job|title|job title|position|post)$|"
                        r"^what (?:does|did) (?P<w>[\w' .-]+?) (?:actually |really )?do(?: here| now)?,? (?:job[- ]?)?"
                        r"(?:title|role)[- ]?wise$")


# "sam in the leeds lab - whats his official title": the pronoun's person (pronouns.resolved says who)
# ("priya - remind me what her job is": the same, asked in a clause's own order)
PRONOUN_POST_RE = re.compile(r"\bwhat (?:(?:is|was) (?P<p>his|her|their)|(?P<r>his|her|their)) (?:current |new |official |job |"
                             r"actual |real |exact |proper |full )?(?:role|job|title|position|post)\b(?(r) (?:is|was)\b(?! like))")


# "what do people here mean by dwell time", "what does the team mean by a hot fix": X is after "by".
MEAN_BY_RE = re.compile(r"^(?:does|do|did) (?:[\w'-]+ ){1,4}?(?:really |actually |usually )?mean by (?:an? |the )?(.+)$")
# "what's meant by excursion budget", "what is actually meant by a lane": the same, in the passive.
MEANT_BY_RE = re.compile(r"^(?:'s|is|are|was) (?:actually |really |exactly |usually )?meant by (?:an? |the )?(.+)$")
# "what does X mean / express / measure": a statement of what X is, whatever kind of noun X is.
MEANS_RE = re.compile(r"^(?:does|do|did) (?:the |a |an |our |its )?((?:[\w'-]+\s){0,3}?[\w'-]+) (?:really |actually |even |exactly )?"
                      r"(?:mean|stand for|refer to|express|measure|represent|describe|indicate|signify)\b")

# "direct download link for the pip zipapp", "what's the url of the docs": a web address
LINK_ASKED_RE = re.compile(r"^(?:the |a )?(?:[\w-]+ ){0,2}(?:link|url)s? (?:for|to|of)\b")
# "linux: path of the per-virtualenv (site) pip config file", "location of the cache": where, on a computer
PATH_ASKED_RE = re.compile(r"^(?:[\w /()-]{1,30}:\s*)?(?:the |my |pip's )?(?:full |file |default |exact )?"
                           r"(?:path|location|folder|directory|dir)s? (?:of|to|for)\b")
# "flag to skip installing deps?": an option, named before what it does
FLAG_FIRST_RE = re.compile(r"^(?:the |a |any )?(?:pip |cli |command[- ]line )?(?:flags?|switch(?:es)?) (?:to|for|that)\b")
# "command to spit out a pylock.toml for the project in my current folder?": a command, named before what it does
COMMAND_FIRST_RE = re.compile(r"^(?:the |a |any )?(?:pip |right |exact |one-line |single )?(?:sub)?(?:command|cmd)s? (?:to|for|that)\b")
# A version specifier's operator, alone or before its version ("~=", "~=3.1.2", "!="): "what does the ~= operator
# mean" asks what the operator means, which a line that writes it ("`~=3.1.2` is equivalent to …") says.
OPERATOR_RE = re.compile(r"(?<![~=!<>])(?:~=|===|==|!=|<=|>=)(?![~=!<>])")
# "what's a 'lane' in tidemark speak", "what's 'GDP' in the context of lodestar": where the word is used, said after
# it, leaves a definition asked
IN_WHOSE_WORDS_RE = re.compile(r"\s+in\s+(?:the\s+context\s+of\s+[\w' .-]{1,30}|(?:the\s+)?[\w' .-]{1,30}?\s+"
                                r"(?:speak|terms|jargon|lingo|parlance|context))\s*[?.!]*$", re.I)
# "what's pip's default cache folder on Windows": a folder, a path or a location is where, on a computer
PATH_NOUN_ASKED_RE = re.compile(r"^(?:'s|is|are|was) (?:the |my |our |pip's |its |their )?(?:[\w'-]+ ){0,3}"
                                r"(?:folder|directory|dir|path|location)s?(?: (?:on|for|in|under|with) .{1,30}|"
                                # "the path of my per-user config file" ("the path of least resistance" is none)
                                r" (?:of|to) (?:[\w'.-]+ ){0,4}?(?:[\w-]*files?|config\w*|folders?|director(?:y|ies)|"
                                r"caches?|logs?|executables?|binar(?:y|ies)|scripts?|[\w-]+\.[a-z]{2,4})\b.{0,30})?$")

# "what does IQ/OQ stand for": the expansion of an acronym is asked (defining.spells)
STANDS_FOR_RE = re.compile(r"\bstands? for\b|\bshort for\b|\babbreviat|\bacronym", re.I)
# "how long will the old links keep redirecting": how long something goes on, which "until <date>" answers
LASTS_ASKED_RE = re.compile(r"\bhow long (?:will|would|does|do|is|are)\b.*\b(?:keep|keeps|continue|continues|stay|"
                            r"stays|remain|remains|last|lasts|be)\b", re.I)
UNTIL_RE = re.compile(r"\b(?:until|till|through|up to)\b", re.I)
# "what minimum setuptools does it require": a least version is asked, which ">=" says and a pin ("~= 58.0") does not
LEAST_ASKED_RE = re.compile(r"\b(?:minimum|min|at least|oldest|lowest)\b", re.I)

# A question of when something went away ("in which version was the legacy resolver deleted"), and a line that speaks
# of its going ("no longer supported" is not gone).
REMOVAL_ASKED_RE = re.compile(r"\b(?:when|which|what)\b.*\b(?:removed|deleted|dropped|ripped out|taken out|got rid of|"
                              r"disappear\w*|went away|gone)\b", re.I)
REMOVAL_RE = re.compile(r"\b(?:remov\w*|delet\w*|drop\w*|no longer (?:available|present|included|shipped|exists?)|"
                        r"gone|retir\w*|disappear\w*|discontinu\w*|sunset\w*|end of life|eol)\b", re.I)


# A question typed without a question word: an instruction ("install everything from a folder of wheels without
# touching pypi"), a label at the end ("…, syntax?", "… flags?"), or a value named by what sets it apart ("default
# pip cache folder on windows?", "last pip release that still worked on python 2.7?").
DO_VERBS = frozenset("install uninstall make get set run stop disable enable change use force skip keep remove delete "
                     "clear upgrade downgrade pin build turn switch point configure create generate export reset "
                     "restore undo revert ignore avoid prevent wipe purge flush nuke erase list show print download "
                     "dump debug verify limit cap require allow exclude add update pass feed empty split rerun send "
                     "include grab refuse see view check find replicate copy mirror move fetch".split())
# "want to cap package versions for the whole org", "need to ship wheels to an offline box", "want pip to just tell me
# in json what it would install": a wish, asked as how to do it
WANT_TO_RE = re.compile(r"^(?:i |we )?(?:(?:want|wanna|need|trying|looking)|(?:want|need) (?:pip|git|it|this) ?) to "
                        r"(?:just |simply |also |really )?(?P<verb>\w+)")
# "quick one: excursion budget, meaning?", "excursion budget = ?": a term of up to three words typed alone and then
# asked what it means, after a topic or a greeting before a colon (question.py keeps out a term with a verb or a
# preposition in it: "my G2 light keeps flashing red, meaning?" reports what was seen)
MEANING_END_RE = re.compile(r"^(?:[^:]{1,40}:\s+)?(?P<x>(?:[\w/.'-]+\s){0,2}[\w/.'-]+)\s*"
                            r"(?:(?:,|—|–|\s-|\s)\s*(?:meaning|definition|means what)|=)\s*$", re.I)
LABEL_END_RE = re.compile(r"(?:^|[.,;:—–-]\s*|\s)(flags?|options?|command|syntax|env var|variable|path|folder|location)\s*\??$")
TELL_RE = re.compile(r"^(?:please\s+)?(?:explain|describe|outline|summari[sz]e|clarify|(?:tell|walk|talk|take) me"
                     r"(?: through| about)?)\s+(?:to me\s+)?")
# "in the pellucid pilot, typical lag between …": the case a noun phrase typed alone is about, said first
CASE_FIRST_RE = re.compile(r"^(?:in|on|at|for|during|with|from|under) [^,]{2,40},\s*(?=\w)")
# "whats the actual £ rate per million events": a currency sign typed for the word, before the measure it prices
CURRENCY_SIGN_RE = re.compile(r"[£$€¥]\s+(?=[a-z])", re.I)


# "the oldest Python", "the newest Django": the which-one of a named product's releases is a version of it; a
# language or tool users type in lower case ("whats the minimum python needed") is that name too.
RUNTIMES = r"(?:c?python|pypy|pip|git|setuptools|virtualenv|node|java|ruby|rust|go|perl|php)"
# "what is the oldest Python on which …", and typed without the question word: "last pip that still ran on python 2.7?"
OLDEST_NAMED_RE = re.compile(r"(?:(?i:what|which)(?:'s| is| was| are)? (?:the )?(?i:oldest|newest|latest|earliest|minimum|"
                             r"lowest|highest|maximum) (?:supported )?(?P<name>[A-Z][\w+.-]*|" + RUNTIMES + r")|"
                             r"(?:(?i:the) )?(?i:oldest|newest|latest|earliest|last|first|minimum|min|lowest|highest|maximum|"
                             r"max) (?:supported )?"
                             r"(?!(?i:go)\b)(?P<runtime>(?i:" + RUNTIMES + r")))\b(?! (?i:version|release))")  # "last go at it"


# "what's the wi-fi password": the value of a secret, which no page holds (the capture gate refuses it); not
# what is said about one ("what is the password policy", "how long must a password be").
SECRET_RE = re.compile(r"(?:'s|is|was|are)\s+(?:the|our|my|a|an)\s+(?:[\w-]+\s+){0,3}?(?:password|passphrase|passcode|"
                       r"pin code|pin|api key|secret key|access key|access token|api token)s?\b(?!\s+(?:code\s+)?(?:policy|policies|"
                       r"manager|length|rules?|rotation|reset|expiry|requirements?|format))")


# "what is the name of the new customer success manager", "what is the new manager called": which X.
NAME_OF_RE = re.compile(r"^(?:(?:what|which) (?:is|are|was|were) )?(?:the )?names? of (?:the |our |their |that |this |those )?"
                        r"(.+)$|^what (?:is|was|are|were|should|would|will|must) (?:the |our |their |that |this |my |a )?"
                        r"(.+?) (?:be )?(?:called|named)\b.*$", re.I)


# "what was the payments company in porto that grace worked for": the thing a relative clause picks out, asked as
# "which payments company in porto …" asks it (the noun phrase before the relative pronoun; no verb in it).
THE_ONE_THAT_RE = re.compile(r"^what (?:is|was|are|were) the ((?:(?!(?:is|are|was|were|does|did|do|has|have|had|will|"
                             r"would|can|could|should)\b)[\w'-]+ ){0,4}?[\w'-]+) (?:that|who|whom|which|where) \w", re.I)


# "what env var sets --find-links": a variable's name is asked
ENV_VAR_ASKED_RE = re.compile(r"\b(?:what|which)(?:'s| is| are| was)?(?: the| an?)? env(?:ironment)?[ -]?var(?:iable)?s?\b|"
                              r"\b(?:what|which)(?:'s| is| are| was)?(?: the| an?)? envvars?\b|"
                              # "env var that moves where --user installs go": named first, then what it does
                              r"^(?:the |an? |any )?(?:pip )?env(?:ironment)?[ -]?var(?:iable)?s? (?:to|for|that|which)\b")

# "people keep saying 'dwell time', what does it mean?": the pronoun is the quoted term, and the words around
# it say who asks, not what is asked.
QUOTED_IT_RE = re.compile(r"^.*?(?:^|\s)['\"‘“]([^'\"’”]{2,40})['\"’”](?=[\s,.;:?]).*?,\s*"
                          r"(what|how)\s+(does|do|is|are)\s+(?:it|that|this|they)\s+(.{2,40}?)\s*\??$", re.I)
# "pharma folks keep saying IQ/OQ - what is that", "we keep hearing about MKT in reviews. what is it?": the same, the
# term unquoted after the verb that says it was heard (where it was heard, after a preposition, left out). "The customer
# says the light on their box keeps flashing amber, what does that mean": a statement reported, not a term heard.
SAID_IT_RE = re.compile(r"^.*?\b(?:saying|hearing(?: about)?|heard about|mentioning|using the (?:term|word)|use the "
                        r"(?:term|word)|talk(?:s|ing)? about)\s+"
                        r"(?P<term>[^\s,.;:?'\"‘“]+(?:\s+(?!(?:in|at|on|from|during|with|for|when|all|every|to|and|"
                        r"again|lately|a lot)\b)[^\s,.;:?]+){0,2}?)(?:\s+(?:in|at|on|from|during|with|for|when|all|every|"
                        r"to|again|lately|a lot)\b(?:\s+[^\s,.;:?]+){0,3})?\s*(?:,|\.|;|:|\s[-—–])\s*"
                        r"(what|how)\s+(does|do|is|are)\s+(?:it|that|this|they)(?:\s+(.{2,40}?))?\s*\??$", re.I)
# "MKT — what is it actually measuring, in plain terms?", "dwell time: what is it for": a term typed before a dash or
# a colon, then what it is, does or measures; the pronoun is the term (what it measures is what it means). Before a
# comma only a literal ("--ignore-installed, what does it actually do"): "after an install, what does it do" is a case.
TOPIC_IT_RE = re.compile(r"^\s*(?P<term>[^\s:—–?,;][^:—–?,;]{1,38}?)\s*(?P<sep>:|\s[—–-]|,)\s*what\s+(?:is|does)\s+"
                         r"(?:(?:setting|passing|using|turning on|enabling|adding)\s+)?(?:it|that|this)"
                         r"(?:\s+(?:actually|really|exactly|even))*(?:\s+(?:for|about|do|doing|mean|measure|measuring|"
                         r"track|tracking|tell me|show|showing))?(?:,?\s+in (?:plain|simple|short) (?:terms|english|words))?\s*$",
                         re.I)
# What a literal typed as a topic is called, which no line need say ("PIP_USER_AGENT_USER_DATA env var")
TOPIC_KIND_RE = re.compile(r"\s+(?:env(?:ironment)? ?var(?:iable)?|variable|flag|option|setting|switch)$", re.I)
LITERAL_RE = re.compile(r"^(?:--?[a-z][\w-]*(?:=\S*)?|\S*[_.]\S*|[A-Z][A-Z0-9_]+|['\"`‘“].+['\"`’”])$")
# "what does --ignore-installed actually do compared to force reinstall": what X does, set against another thing
# the asker names, is still X's definition.
AGAINST = r"compared (?:to|with)|vs\.?|versus|as opposed to|unlike|instead of|rather than"
SET_AGAINST = rf"(?:,? (?:{AGAINST}) .+)?$"

# "q2 revenue — the july draft had one number, what's the final?": the later one of a measure named earlier in the
# question, which the clause that asks does not repeat.
LATER_ONE_RE = re.compile(r"^(?:'s|is|was) the (?:final|later|latest|new|newer|updated|current|revised|corrected|real|"
                          r"actual|right|true)(?: (?:one|number|figure|value|count|total|amount|version))?$")

# "zipapp version of pip (pip.pyz) — ok for our production servers or not?", "the nightly build: safe for demos?":
# whether one may, asked without an auxiliary, after a dash or a colon, or with "or not" ("max line length allowed in a
# requirements.txt file" names a measure)
OK_ASKED_RE = re.compile(r"(?:^|[—–,:]\s*|\s-\s+)(?:is it |it's |its )?" + PERMISSION_WORDS + r"\b[^?]*\??$|\b" +
                         PERMISSION_WORDS + r"\b[^?]*\bor not\s*\??$")

# "is there a pip setting that refuses …", "is there a single command that dumps …": the way, option or command a line
# names, with a word or two before the noun
EXISTS_ASKED_RE = re.compile(r"^(?:is|are) there (?:a|an|any) (?:(?!that\b|to\b|which\b)[\w.-]+ ){0,2}(?:way|option|"
                             r"setting|flag|switch|command|cmd|config(?:uration)? (?:key|setting|option))s?\b")

# "does pip freeze have an option to print hashes too": whether an option exists, which a line decides by naming it
OPTION_EXISTS_ASKED_RE = re.compile(r"\b(?:have|has|got|offer|offers|provide|provides|support|supports|there) (?:an? |any )"
                                    r"(?:[\w-]+ )?(?:option|flag|switch|setting)s?\b", re.I)

# "pip hash - what does it give me", "MKT: what does that tell us": the thing typed before the dash is what the pronoun
# asks about, and what it does or gives is its account
IT_DOES_WHAT_RE = re.compile(r"^(?P<x>[^—–:,?-][^—–:,?]{1,40}?)\s*(?:\s-|[—–:])\s*what (?:(?:does|do|will|would|did) "
                             r"(?:it|that|this|they) (?:do|give|return|output|print|produce|show|tell|mean|get|offer)"
                             r"(?: (?:me|us|you))?|(?:is|are) (?:it|that|this|they|those)(?: (?:thing|things|one))?)"
                             r"(?: (?:exactly|actually|again))?\s*\??$")


# Which of several settings holds when they disagree: "--timeout flag vs PIP_TIMEOUT vs pip.conf, which one wins",
# "same key in the global and the user config, which value sticks" ("which wins" alone asks which of the named:
# question._slot)
PRECEDENCE_ASKED_RE = re.compile(r"\bwhich (?:one|value|setting|option|file|of (?:them|the (?:two|three|[\w-]+s)))\s+"
                                 r"(?:wins|sticks|takes precedence|has precedence|has priority|gets priority|applies|"
                                 r"is used|gets used|overrides|counts)\b|\bwhat takes precedence\b", re.I)

# "email for Ines?", "grace's email address", "what's the security email": someone's or something's email address
EMAIL_ASKED_RE = re.compile(r"^(?:(?:what|which)(?:'s| is| was)?\s+)?(?:the\s+|an?\s+)?(?:e-?mail(?:\s+address)?\s+(?:for|of)\s+"
                            r"[\w.' -]{1,40}|[\w.' -]{1,40}?\s+e-?mail(?:\s+address)?)$", re.I)
# A span in quotes (one scan to the closing quote: no nested repeats, so a question with an unclosed quote is read in
# linear time)
_QUOTED_SPAN_RE = re.compile(r"""(?:(?<=\s)|^)['"‘“`]([^'"’”`]+)['"’”`](?=[\s,.;:?!-]|$)""")


def pasted(text: str) -> re.Match[str] | None:
    """A message the asker pastes, in quotes: four words or more ("pip prints 'INFO: pip is looking at …'")."""
    return next((m for m in _QUOTED_SPAN_RE.finditer(text) if len(m.group(1).split()) >= 4), None)


# "the runbook talks about cold soak, what is that called otherwise?": another name of the thing named before the
# comma (the words before it say where the asker met it).
OTHER_NAME_RE = re.compile(r"^(?:.*\b(?:about|of|saying|says|mentions?|mentioned|term|word|phrase|call)\s+)?['\"‘“]?"
                           r"(?P<x>[^,'\"’”]{2,40}?)['\"’”]?,\s*what (?:is|are|was|were) (?:that|it|this|they|those|these) "
                           r"(?:also |otherwise )?(?:called|known as|named)(?: (?:otherwise|else|elsewhere|instead|too|"
                           r"also))?\s*\??$", re.I)
# "what's another name people use for an editable install", "what is X also called": the same ask, X named first.
ANOTHER_NAME_RE = re.compile(r"^what (?:is|are) (?:an ?other|the other|a different) names? (?:that )?(?:(?:people|we|they|"
                             r"folks|some) (?:use|give) |used |given )?(?:for|to) (?:an? |the )?(?P<x>.{2,40})$|"
                             r"^what (?:is|are) (?:an? |the )?(?P<y>.{2,40}?) (?:also|otherwise) (?:called|known as)$",
                             re.I)
# "what's sam's full name", "what is Grace's surname": another name of someone the question names.
# "…, what's his full surname": the pronoun's person (pronouns.resolved says who).
# (pronouns.py reads the same qualifiers: "his full name" asks another name of someone the asker knows by one)
NAME_QUALIFIERS = "full|real|whole|proper|last|first|legal"
FULL_NAME_RE = re.compile(rf"\bwhat is (?:([\w.-]+)'s|(his|her|their)) (?:(?:{NAME_QUALIFIERS}) )?(?:name|surname)\b",
                          re.I)
