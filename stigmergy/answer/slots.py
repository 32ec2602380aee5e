"""Does a line fill a question's slot? It does only when it holds a value of the asked kind that the
question does not already hold: a person's or organisation's name for *who*, a date for *when*, a figure
with the right unit for *how many / much / long*, a place for *where*, a reason for *why*, a name of the
asked kind for *which X*; for *what is X*, a statement about X. Otherwise the line is context: it may be
about the question's subject, it does not answer it ("one component has a 16-week lead time" does not say
which component).

`fill` returns how well the line fills the slot: 1.0 (a value of the asked kind), WEAK (a value the rules
can only guess at: a "why" answered without a causal word, a capitalised word that may be a name), or 0.
Whether a line names the asked thing (which X, who, which organisation) is which.py's.
"""

from __future__ import annotations

import re
from dataclasses import replace

from stigmergy.answer.counts import (
    NUMBER_WORDS,
    SAME_AS,
    count_beside,
    counted_right_before,
    counts_other,
    says_counted,
    says_head,
)
from stigmergy.answer.cues import (
    BUT_NOT_RE,
    CAUSE_RE,
    COMMAND_ASKED_RE,
    COMMAND_RE,
    DONE_TO_RE,
    KIND_TAIL_RE,
    LABEL_WORDS,
    LEAVE_ASKED_RE,
    PART_OF_RE,
    REFUSAL_REASON_RE,
    RULING_RE,
    WHY_NOT_RE,
)
from stigmergy.answer.defining import acronyms, defines, defines_operator, spells
from stigmergy.answer.frames import WILL_RE, framed, planned_only
from stigmergy.answer.function_words import AUX
from stigmergy.answer.head_noun import OF_NOW, modifiers
from stigmergy.answer.heads import ANY_PERSON, EXTENTS, PERSON_HEADS, VERSION_HEADS
from stigmergy.answer.names import Names, roster, words
from stigmergy.answer.polarity import NEGATION_RE, affirms_denied, denies
from stigmergy.answer.procedure import how_fill, is_command, shows_how
from stigmergy.answer.question import Slot
from stigmergy.answer.roles import (
    WHO_IS_RE,
    identifies,
    only_names,
    only_owner,
    role_head,
    says_role,
    says_role_here,
    says_subject,
    titles,
)
from stigmergy.answer.series import percentile_said
from stigmergy.answer.terms import STOPWORDS, fold, stem
from stigmergy.answer.ties import elsewhere, role_apart, speaker_only, speaks_of_role, version_tied
from stigmergy.answer.values import (
    CLOCK_RE,
    FREQ_RE,
    RATE_NAMED_RE,
    RELEASE_RE,
    VERSION_RE,
    Asked,
    dates_in,
    figures_in,
    is_new,
    outside_month,
)
from stigmergy.answer.what_forms import (
    LASTS_ASKED_RE,
    LEAST_ASKED_RE,
    OK_ASKED_RE,
    OPERATOR_RE,
    OPTION_EXISTS_ASKED_RE,
    REMOVAL_ASKED_RE,
    REMOVAL_RE,
    STANDS_FOR_RE,
    UNTIL_RE,
)
from stigmergy.answer.which import (
    CODE_RE,
    PROJECT_RE,
    VAGUE,
    WEAK,
    known_kind,
    name_beside,
    names_in,
    names_option,
    qualified,
    thing_fill,
    unnamed,
)
from stigmergy.gates.figures import MONTH_NAMES

CONTEXT = 0.9  # the value is in the line's context (title, heading, previous sentence), not in the line

# "When will X be removed": what is to come is not dated by the heading of what was written ("… 20.3 (2020)").
_FUTURE_ASKED_RE = re.compile(r"\bwhen (?:will|would|shall|are|is) (?:.+ )?(?:going to|due|planned|scheduled|expected)\b|"
                              r"\bwhen (?:will|shall)\b", re.I)
# A line that says its event has no date yet: a date in its heading ("Deprecations (2020)") is not the event's.
_UNDATED_RE = re.compile(r"\b(?:in a (?:future|later|coming|subsequent|upcoming) (?:release|version|update)|"
                         r"(?:at some point|eventually|some ?day|in the future|at a later (?:date|time|point)|"
                         r"not yet (?:decided|scheduled|known|set|planned|dated)|no (?:fixed |set )?date|"
                         r"tb[cda]|to be (?:decided|announced|confirmed|scheduled))\b)", re.I)
_CAUSE_HEAD_RE = re.compile(r"\b(cause|causes|why|reason|reasons|rationale|background|motivation|context)\b", re.I)
# The parts of an address: a URL, an email address, a domain without its scheme ("app.tidemark.io").
_URL = r"\bhttps?://[^\s>)\]]+"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_DOMAIN = r"(?<![\w@/.-])(?:[a-z0-9-]+\.)+(?:io|com|org|net|dev|app|co|uk|eu|ai)\b"
# Where, on a computer or the web: a URL, a web address without its scheme ("docs.tidemark.io/harbor"), a path; not a
# documentation cross-reference (":doc:`../topics/caching`", "url=../../cli/").
_PATH_RE = re.compile(r"https?://\S+|" + _DOMAIN + r"/[\w./%-]*|"
                      # "{file}`C:\\ProgramData\\pip\\pip.ini`": a Windows path from its drive or variable, in code
                      # too, its backslashes doubled where the page's markup escapes them
                      r"(?<![\w])(?:[A-Za-z]:|%\w+%)(?:\\{1,2}[\w.%$-]+){2,}|"
                      r"(?<![\w/:=.`])(?:~|%\w+%|\$\w+|[A-Za-z]:)?(?:[/\\][\w.%$-]+){2,}[/\\]?|"
                      # "$VIRTUAL_ENV/pip.conf", "~/.pip", "%APPDATA%\pip": a root a variable or "~" names, then one part
                      r"(?<![\w/:=.])(?:~|%\w+%|\$\{?\w+\}?)[/\\][\w.%$-]+|"
                      r"(?<![\w/:=.`])\w[\w.-]*(?:[/\\][\w.%$-]+){1,}[/\\]")
# A street or a part of a building in an address. The words that are also common nouns or verbs ("when building
# from a Git reference", "per lane", "takes place", "the car park") count only capitalised, as names of streets
# are, or beside the number a floor or a building has.
# (select._STREETS reads the same words as what says the question's "street" and "address").
STREET_WORDS = ("rua", "travessa", "avenida", "praça", "street", "road", "avenue", "boulevard", "calle", "strasse",
                "straße")
_STREET_RE = re.compile(r"\b(?i:" + "|".join(STREET_WORDS) + r"|blvd)\b|\b(?i:st|rd|ave|av)\.|"
                        r"\b(?:Square|Lane|Place|Quay|Park|Via|Building)\b|"
                        r"\b(?i:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|ground|top) floor\b|"
                        r"\b(?i:building) (?:\d+|[A-Z])\b")
_NUMBERED_STREET_RE = re.compile(r"\b\d{1,3}[a-z]?,?\s+(?:[A-Z][\w'’-]*\s+){0,3}(?:[Ss]treet|[Rr]oad|[Aa]venue|[Ll]ane|"
                                 r"[Qq]uay|[Ss]quare|[Bb]oulevard|[Pp]lace)\b|"
                                 r"\b(?:[Rr]ua|[Aa]venida|[Tt]ravessa|[Cc]alle|[Vv]ia|[Pp]raça)\s+"
                                 r"(?:(?:d[aeo]s?|de la|del|[A-Z][\w'’-]*)\s+){1,4}\d{1,3}[a-z]?\b|"
                                 r"\b[A-Z][\w'’-]*(?:strasse|straße|gatan|vägen|gade|weg)\s+\d{1,3}[a-z]?\b")
# A file named as where something is kept: "from a origin.json file", "in the pylock.toml file".
_STORED_IN_RE = re.compile(r"\b(?:in|from|into|to) (?:an? |the )?`?(?P<file>[\w.-]+\.[a-z]{2,5})`? file\b", re.I)
_PLACE_PREP_RE = re.compile(r"\b(?:in|at|to|from|near|into|on|under|inside)\s+(?:the\s+)?([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)")
# A cloud region ("eu-west-2", "us-east-1"): where data or a service is hosted.
_REGION_RE = re.compile(r"\b(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:north|south|east|west|central|northeast|northwest|"
                        r"southeast|southwest)-\d\b", re.I)
# Where, on a computer, said relative to something the line names ("relative to the project path", "inside the
# build directory").
_LOCATION_RE = re.compile(r"\b(?:relative to|inside|within|under|in|into|to|at|next to|beside|alongside) (?:the|your|a|its|each|"
                          r"that) (?:[\w.-]+ ){0,2}(?:path|directory|folder|root|dir|tree|workspace|checkout)\b", re.I)
_AKA_RE = re.compile(r"\b(?:aka|a\.k\.a|also known as|also called|otherwise known as|sometimes called|"
                     r"better known as|formerly known as|short for)\b", re.I)
# Asked whether something exists ("any flag to …", "is there a setting that …"), which a line saying there is none answers
_ANY_ASKED_RE = re.compile(r"(?:any|is there (?:an?|any)|are there any)\b", re.I)
_NO_WAY_RE = re.compile(r"\b(?:there is|there's|there are) no (?:way|option|flag|switch|setting|mechanism|means|support)\b|"
                        r"\bno (?:way|option|flag|setting) to\b|\b(?:is|are) not (?:possible|supported)\b", re.I)
# What a thing means or is asked, not what it does ("what does 'editable' install actually do")
_MEANS_ASKED_RE = re.compile(r"\bmean(?:s|ing|t)?\b|\bstands? for\b|\bwhat(?:'s| is| are)\b", re.I)
# A shell redirection to a file: "> ~/.config/fish/completions/pip.fish", ">> log.txt" (not "->", "=>" or ">=")
_REDIRECT_RE = re.compile(r"(?<![-=>\w])>>?\s*([~./\w][^\s;|&]*)")
_PERSONISH = ("person", "organisation", "organization", "team", "company", "")


def _content(text: str, q: Asked) -> list[str]:
    return [w for w in words(text) if w.isalpha() and len(w) > 2 and w not in STOPWORDS and w not in VAGUE
            and stem(w) not in q.stems]


_URL_TOKEN_RE = re.compile(r"\S+://\S+")
_PIN_BEFORE_RE = re.compile(r"(?:~=|==|<=|<|!=)\s*$")
_PINNED_RE = re.compile(r"([A-Za-z][\w.-]*)\s*(?:==|>=|<=|~=|!=|>|<)\s*(\d)")


def kind_fill(slot: Slot, text: str, names: Names, q: Asked) -> float:
    """How well `text` alone fills `slot`."""
    k = slot.kind
    if k in ("thing", "procedure") and _ANY_ASKED_RE.match(q.text) and _NO_WAY_RE.search(text):
        # "any switch to make pip always take the old setup.py route?": "There is no way to force the use of the
        # legacy build system interface" answers that there is none
        return 1.0
    if k == "date":
        if slot.head in ("month", "months"):
            # "which months do new versions ship": month names ("January, April, July, October"), not a release
            named = any(w in MONTH_NAMES and w not in q.text for w in words(text.casefold()))
            return 1.0 if named or dates_in(text, q) else 0.0
        if slot.unit == "clock":
            return 1.0 if any(is_new(m.group(0), q) for m in CLOCK_RE.finditer(text)) else 0.0
        if slot.unit != "day" and any(is_new(m.group(1), q) for m in RELEASE_RE.finditer(text)) and (
                not _FUTURE_ASKED_RE.search(q.text) or WILL_RE.search(text)):
            # "when will X be removed": "Pip 20.3: pip defaults to the new resolver" dates what is so, not what
            # is to come; a release answers it when the line speaks of what will be
            return 1.0  # "when did that option go": "Changed in version 22.1" (software is dated by releases)
        return 1.0 if dates_in(text, q, day=slot.unit == "day") else 0.0
    if k == "quantity":
        if slot.unit == "version":
            # "43.16%" is a share; "git+https://git.repo/pkg.git@1.3.1" names a ref of the package it installs;
            # "pydantic>=1.9" is pydantic's, unless pydantic is asked about
            urls = [m.span() for m in _URL_TOKEN_RE.finditer(text)]
            pinned = {m.start(2): m.group(1) for m in _PINNED_RE.finditer(text)}
            got = [m for m in VERSION_RE.finditer(text) if is_new(m.group(0), q) and not text[
                m.end() : m.end() + 2].strip().startswith("%") and not any(a <= m.start() < b for a, b in urls)
                and (m.start() not in pinned or stem(pinned[m.start()]) in q.stems)]
            # "what minimum setuptools does it require": ">=40.8.0" says a least version; "~= 58.0" pins one
            return WEAK if got and LEAST_ASKED_RE.search(q.text) and all(
                _PIN_BEFORE_RE.search(text[: m.start()]) for m in got) else 1.0 if got else 0.0
        if slot.unit == "frequency":
            return 1.0 if any(is_new(m.group(0), q) for m in FREQ_RE.finditer(text)) else 0.0
        if slot.unit == "count" and slot.head and says_counted(slot.head, text):
            # "how many people work in Leeds": "We have two offices: Leeds (…, finance and people)" counts
            # offices. The count must stand beside what is counted, in the same sentence.
            if count_beside(slot.head, text, q):
                return 1.0
            if counts_other(slot.head, text, q):
                return 0.0  # "how many maintainers": "two members of the team … and no maintainers opposing"
            return WEAK if figures_in(text, q, "count") or any(
                w in NUMBER_WORDS and w not in q.text.split() for w in words(text)) else 0.0
        if slot.unit == "count" and slot.head and counts_other(slot.head, text, q):
            return 0.0  # "how many surveys did they run": "472 people signed up to the panel" counts people
        if figures_in(text, q, slot.unit):
            return 1.0
        if slot.unit in ("extent", "time") and LASTS_ASKED_RE.search(q.text) and UNTIL_RE.search(text) and dates_in(
                text, q):
            return 1.0  # "how long will the old links keep redirecting": "… redirect until March 2027"
        if slot.unit == "count" and any(w in NUMBER_WORDS and w not in q.text.split() for w in words(text)):
            if slot.head and counts_other(slot.head, text, q):
                return 0.0  # "how many customers": "over six months" counts months
            return 1.0  # "two maintainers", "seven levels"
        # A money figure without its sign ("£" on the header row) still counts, weakly; a duration, a sum
        # or a share counts nothing of "how many"; a share is no sum either ("12% of ARR" for "how much ARR").
        # A figure with a unit of its own ("26 months", "600 requests") is no sum.
        return WEAK if slot.unit == "money" and any(not re.search(r"%|percent", v, re.I) and not _OTHER_UNIT_RE.search(v)
                                                    for v in figures_in(text, q, "")) else 0.0
    if k == "person":
        known, unknown = names_in(text, names, q, ("person", "organisation", "organization", ""))
        if known:
            return 1.0
        return WEAK if any(len(n.split()) >= 2 for n in unknown) or re.search(r"(?<!\w)@\w+", text) else 0.0
    if slot.head and k in ("person", "org", "project", "product", "place") and name_beside(slot.head, text, q):
        return 1.0  # "the Simply Secure team", "partner Marcus Hale"
    if k == "place" and _writes_to(text, q):
        return 1.0  # "found a security hole, where do i report it": "Security questions: security@lanternfishlabs.com"
    if k in ("org", "project", "product", "place"):
        want = {"org": ("organisation", "organization"), "project": ("project",), "product": ("product",),
                "place": ("place",)}[k]
        if k == "place" and slot.head == "address" and _WEB_ADDRESS_ASKED_RE.search(q.text):
            # "what's the web address for ColdTrace now": a domain or a URL ("the address is app.tidemark.io"), an
            # email address for an email address; no street
            return 1.0 if any(is_new(m.group(0), q) for m in _WEB_PLACE_RE.finditer(text)) else 0.0
        if k == "place" and slot.head == "address":
            # "what's the street address": a street with its number ("Rua do Alecrim 38", "12 Wharf Street"), not
            # only the street a line names ("the new office at Rua do Alecrim"), nor only the city
            return (1.0 if _NUMBERED_STREET_RE.search(text) else WEAK) if _STREET_RE.search(text) else min(
                WEAK, kind_fill(replace(slot, head=""), text, names, q))
        known, unknown = names_in(text, names, q, want)
        if known:
            return 1.0
        if k == "place" and any(is_new(m.group(0), q) for m in _PATH_RE.finditer(text)):
            # "%LocalAppData%\pip\Cache", "~/Library/Caches/pip", a URL: where, on a computer (before any place a
            # preposition names: "… at docs.tidemark.io/harbor, with examples in Python"); in a command to type
            # ("python -m pip install 'SomeProject@git+https://…'") the path is what the command reads, weakly where
            # (what a command's output is redirected to, "pip completion --fish > ~/.config/fish/completions/pip.fish",
            # is where it writes)
            return 1.0 if not is_command(text) or any(
                is_new(m.group(1), q) for m in _REDIRECT_RE.finditer(text)) else WEAK
        if k == "place" and (_STREET_RE.search(text) or any(
                is_new(m.group(1), q) and names.entity(m.group(1)) is None for m in _PLACE_PREP_RE.finditer(text))):
            return 1.0 if _STREET_RE.search(text) else WEAK
        if k == "place" and any(is_new(m.group(0), q) for m in _REGION_RE.finditer(text)):
            return 1.0
        if k == "place" and any(is_new(m.group(0), q) for m in _LOCATION_RE.finditer(text)):
            return 1.0  # "the .egg-info directory is created relative to the project path"
        if k == "place" and any(is_new(m.group("file"), q) for m in _STORED_IN_RE.finditer(text)):
            return 1.0  # "where does it find the hashes": "obtained from a origin.json file stored in each cache entry"
        if k == "place" and any(is_new(m.group(0), q) for m in CODE_RE.finditer(text)):
            return WEAK  # "in conf.py", "under `[answer]`"
        if k == "project" and any(is_new(a or b, q) for a, b in PROJECT_RE.findall(text)):
            return 1.0
        return WEAK if [n for n in unknown if names.entity(n) is None] else 0.0
    if k == "thing":
        return thing_fill(slot.head, text, names, q)
    if k == "reason":
        if (CAUSE_RE.search(text) or REFUSAL_REASON_RE.search(text) or (
                BUT_NOT_RE.search(text) and WHY_NOT_RE.search(q.text))) and len(_content(text, q)) >= 2:
            return 1.0
        return WEAK if len(_content(text, q)) >= 4 else 0.0
    if k == "alias":
        # "Using a wheelhouse (AKA Installation Bundles)": a line that gives the thing another name, beside it; or
        # names what the wiki knows by the asked name by another of its names ("sam": "Samuel Achterberg: …").
        return 1.0 if (_AKA_RE.search(text) and stems_of(slot.subject) <= stems_of(text)) or other_name(
            slot.subject, text, names) else 0.0
    if k == "role":
        if not says_subject(slot.subject, text, names) or not any(stem(m.group(0)) not in q.stems
                                                                  for m in titles(text)):
            return 0.0
        return WEAK if only_owner(slot.subject, text, names) else 1.0  # "an engineer for Samuel's team" is another's
    if k == "definition" and OPERATOR_RE.fullmatch(slot.subject):
        return 1.0 if defines_operator(slot.subject, text) else 0.0
    letter = CHOICE_ASKED_RE.fullmatch(slot.subject) if k == "definition" else None
    if letter:
        # "--exists-action b, what does the b choice do": the choice a prompt labels "(b)ackup" is defined where the
        # label stands
        return 1.0 if re.search(rf"\({letter.group(1)}\)[a-z]", text, re.I) else 0.0
    if k == "definition":
        if is_command(text):
            return 0.0  # "what does passing --report - do": "pip install --dry-run --report - …" only uses it
        # "what does the requested field mean": "`requested`: `true` if …" defines the field by its name alone
        term = KIND_TAIL_RE.sub("", PART_OF_RE.sub("", slot.subject)).strip() or slot.subject
        subject = [stem(w) for w in words(term) if w not in STOPWORDS]
        own = {stem(w) for w in words(text)}
        if subject and not set(subject) <= own:
            # "what does IQ/OQ stand for": "installation qualification and operational qualification" spells it
            return 1.0 if acronyms(slot.subject) and spells(slot.subject, text) else 0.0
        if len(_content(text, q)) < 2:
            return 0.0
        if STANDS_FOR_RE.search(q.text) and acronyms(slot.subject) and not spells(slot.subject, text):
            return WEAK  # "what does IQ/OQ stand for": "Validation pack (IQ/OQ) complete: 28 August" names it only
        return 1.0 if not subject or defines(term, text) else WEAK
    if k == "procedure":
        return how_fill(text, q, len(_content(text, q)))
    if k == "yesno":
        # "is the pip.pyz zipapp ok to use on prod servers": "$ python pip.pyz --help" is something to type, which
        # says neither yes nor no; asked whether one may or should, a line that rules on it ("should not be used in
        # production", "is not supported") answers, one that only describes the thing weakly
        if is_command(text):
            # "python -m pip install -c constraints.txt" says neither whether nor what pip then does; asked whether one
            # can do something, a command that does it with an option the question does not type shows that one can, and
            # how ("made a venv with --without-pip, can my global pip install into it?": "pip --python .venv install …")
            return 1.0 if shows_how(text, q) else 0.0
        if not [w for w in _content(text, q) if w.casefold() not in LABEL_WORDS]:
            # "is --use-deprecated=legacy-resolver still supported": "Example: --use-deprecated=…" says only it; "will
            # pip respect XDG_CACHE_HOME if i set it": "pip will also respect `XDG_CACHE_HOME`." says yes in its words
            # (not where the asker pasted the line: "User site-packages are not visible in this virtualenv. why??")
            said = " ".join(words(text)).casefold()
            states = not text.rstrip().endswith("?") and any(w.casefold() in AUX for w in words(text)) and (
                said not in " ".join(words(q.text)).casefold())
            return 1.0 if states else 0.0
        if OPTION_EXISTS_ASKED_RE.search(q.text) and not names_option(text, q):
            return WEAK  # "does pip freeze have an option to print hashes": "Generate output suitable for a requirements file"
        return 1.0 if not (LEAVE_ASKED_RE.search(q.text) or OK_ASKED_RE.search(q.text)) or RULING_RE.search(
            text) else WEAK
    # A plain "what…": any value the question does not hold.
    if roster(text):
        return 0.0  # "what did olly get landed with after the retro": the retro's list of who came says who, not what
    if COMMAND_RE.match(text) and not COMMAND_ASKED_RE.search(q.text):
        return WEAK  # "what does --debug do under pdb": "$ python -m pdb -m pip --debug" shows it, says nothing of it
    if figures_in(text, q, "") or dates_in(text, q) or any(is_new(m.group(0), q) for m in CODE_RE.finditer(text)):
        return 1.0
    return 1.0 if _content(text, q) else 0.0


# An identifier: code in backticks or a SETTING_NAME (a dotted name may be a web address: "pypi.org").
_IDENTIFIER_RE = re.compile(r"`[^`]+`|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def _said_as(word: str, said: set[str] | frozenset[str]) -> bool:
    """`word` is said in other words (counts.SAME_AS): "the final version" by "the last version"."""
    return any(stem(w) in said for w in SAME_AS.get(word, "").split())


def _other_qualifier(head: str, text: str, q: Asked) -> bool:
    """The line names its X with a word of its own before it, past the question's words ("*Hardware* gross
    margin" for "gross margin on software")."""
    hs = stem(head)
    ws = words(text)
    for i, w in enumerate(ws):
        if stem(w) != hs:
            continue
        for x in reversed(ws[max(0, i - 3) : i]):
            if stem(x) in q.stems or _said_as(x, q.stems):
                continue
            if x.casefold() == "percentile" and any(percentile_said(s, text) for s in q.stems if s[:1] == "p"):
                continue  # "p99 delay": "99th percentile delay" qualifies the delay as the asker does
            if x.isalpha() and x not in STOPWORDS and x not in VAGUE and x not in NUMBER_WORDS:
                return True
            break
    return False


def stems_of(text: str) -> set[str]:
    return {stem(w) for w in words(text)}


# What used to be so is not what is so: "Previously this cache was stored in a directory called http".
# "formerly known as ColdTrace" gives an old name, not an old value: the figure beside it is today's.
_PAST_RE = re.compile(r"\b(?:(?:previously|formerly|originally)(?!,?\s+(?:known as|called|named|branded)\b)|"
                      r"(?<!is )(?<!are )(?<!be )(?<!been )(?<!was )(?<!were )used to|in the past|until recently)\b", re.I)
# "The legacy 'per-user' configuration file" for "where's my per-user config": the asked thing's old form. A
# legacy system the question does not ask about ("on the legacy poller") dates nothing.
_LEGACY_RE = re.compile(r"\blegacy\s+((?:[\"“']?[\w-]+[\"”']?\s*){1,3})", re.I)


def _legacy(text: str, q: Asked) -> bool:
    # "is ~/.pip/pip.conf still the place for it": a legacy thing is the old one when the asker asks what holds now
    return any(stem(w) in q.stems for m in _LEGACY_RE.finditer(text) for w in words(m.group(1))) or bool(
        _LEGACY_RE.search(text) and _STILL_RE.search(q.text))


_STILL_RE = re.compile(r"\b(?:still|anymore|any more|any longer|nowadays|these days)\b", re.I)


_PAST_ASKED_RE = re.compile(r"\b(?:before|previous\w*|used to|legacy|original\w*|old|older|former\w*|earlier|first|prior|"
                            r"no longer|past|until|stopp?\w*|drop\w*|remov\w*)\b", re.I)


# An address on the web or for email, asked and given.
# (or the address of a thing on the web: "old coldtrace web app — what's the address now")
_WEB_ADDRESS_ASKED_RE = re.compile(r"\b(?:web|website|site|url|e-?mail|mail|internet)\s+address|"
                                   r"\b(?:web ?app|website|web ?site|portal|dashboard|login page)\b[^.?!]{0,30}\baddress\b", re.I)
_WEB_PLACE_RE = re.compile(rf"{_URL}|{_EMAIL}|{_DOMAIN}(?:/[\w./%-]*)?", re.I)

# Where one reports, sends or asks something: an address to write to, not a place.
_CONTACT_ASKED_RE = re.compile(r"\b(?:where|(?:which|what) (?:e-?mail |email )?address) (?:do|should|can|would|could|must|"
                               r"does|did) (?:i|we|you|one|they|customers?|people|users?) (?:report|send|email|e-mail|mail|"
                               r"submit|file|raise|post|flag|log|escalate|direct|reach|contact|ask|disclose|forward|"
                               r"write)\b", re.I)
_CONTACT_RE = re.compile(rf"{_EMAIL}|{_URL}|(?<![\w&])#[a-z][\w-]{{2,}}", re.I)


# A prompt's choice asked by its letter ("b", "the b choice", "picking b").
CHOICE_NOUNS = ("choice", "option", "letter", "key", "answer")
CHOICE_VERBS = ("picking", "choosing", "pressing", "selecting", "typing", "answering")
CHOICE_ASKED_RE = re.compile(rf"(?:the |(?:{'|'.join(CHOICE_VERBS)}) )?([a-z])(?: (?:{'|'.join(CHOICE_NOUNS)}))?", re.I)


def _writes_to(text: str, q: Asked) -> bool:
    """Asked where to report, send or ask something, the line gives an address to write to (an email address, a web
    page, a channel) the question does not hold."""
    return bool(_CONTACT_ASKED_RE.search(q.text)) and any(is_new(m.group(0), q) for m in _CONTACT_RE.finditer(text))


def fill(slot: Slot, text: str, context: str, names: Names, q: Asked) -> tuple[float, bool]:
    """(how well the line fills the slot, whether the value is only in its context)."""
    if slot.kind == "secret":
        return 0.0, False  # capture refuses a page that holds a secret: "password in 1Password" is a pointer
    if text.rstrip().endswith(":") and slot.kind != "alias" and not figures_in(text, q, "") and not dates_in(text, q):
        # "Instead of `python setup.py develop`, use:": a lead-in holds no value, what it introduces does (the
        # code line or list item after it, which reads the lead-in as its context). One that gives a figure
        # ("… "almost never" (65.6%):"), a date ("… disabled (as of 1st Jan, 2021) … the command:") or another
        # name ("… (AKA Installation Bundles):") holds its own.
        return 0.0, False
    if _REPORTS_ASKING_RE.search(text) and not _REPORTS_ASKING_RE.search(q.text):
        return 0.0, False  # "[10:12] Hannah: Erik asks whether their beta key still works": a question, no answer
    got, via = _fill(slot, text, context, names, q)
    if got and slot.kind == "date" and not via and outside_month(text, q):
        return 0.0, False  # "the demo for norrland in october": "a launch date of 15 September" is another month's
    if got and slot.kind == "place" and _CONTACT_ASKED_RE.search(q.text) and not _writes_to(text, q):
        got = min(got, WEAK)  # "where do i report it": "provisioned in the Leeds hardware lab" is where, not whither
    if got and slot.unit in ("percent", "count") and not NEGATION_RE.search(q.text) and denies(text, q):
        got *= WEAK  # "what share of users audit the code": "82% do not (rarely or never) do a code audit"
    if got and slot.unit in ("percent", "count") and affirms_denied(text, q):
        got *= WEAK  # "what share thought it should not upgrade": "43% thought it should upgrade" counts the others
    if got and (_PAST_RE.search(text) or _legacy(text, q)) and not _PAST_ASKED_RE.search(q.text):
        got *= WEAK
    if got and planned_only(slot.kind, text, q.text):
        return 0.0, False  # "what did Q4 revenue actually come in at": "Expect revenue of about £3.0M" is a forecast
    if got and not framed(slot.kind, slot.unit, text, context, q.text):
        # a default, what comes next, a total or what came to pass asked, and a line that gives another; a plan where
        # none is asked (answer/frames.py)
        got *= WEAK
    if got and slot.kind in ("quantity", "date") and REMOVAL_ASKED_RE.search(q.text) and not REMOVAL_RE.search(
            f"{text} {context}"):
        got *= WEAK  # "in which version was the legacy resolver deleted": "pip 20.1: an alpha of the new one" is another event
    if got and slot.kind in ("date", "quantity") and _SINCE_ASKED_RE.search(q.text) and not _START_RE.search(text):
        got *= WEAK  # "since which version does pip skip pre-releases": the line must say when it started
    if got and slot.kind == "date" and _END_ASKED_RE.search(q.text) and not _END_RE.search(text):
        got *= WEAK  # "when does the certificate run out": "renewed in November 2025" is another event's date
    if got and slot.kind in ("quantity", "date") and _EXAMPLE_RE.search(text) and not kind_fill(
            slot, _EXAMPLE_RE.sub(" ", text), names, q) and not _example_asked(text, q):
        got *= WEAK  # "(for example 72 hours between 8 °C and 25 °C)": an illustration, not the asked figure
    if got and slot.kind == "date" and _WAS_ASKED_RE.search(q.text) and _DUE_RE.search(text) and not _DUE_RE.search(
            q.text) and not kind_fill(slot, _DUE_RE.sub(" ", _STAMP_RE.sub("", text)), names, q):
        # "when was the postmortem published": "[14:20] …: postmortem owner: me, due 26 Aug" dates a plan (the
        # stamp says when it was said); "planned for 10 April and went live on 14 April" also dates what happened
        got *= WEAK
    done = DONE_TO_RE.search(q.text) if slot.kind in ("procedure", "value") else None
    if got and done and stem(done.group(1)) not in stems_of(f"{text} {context}"):
        return 0.0, False  # "how do webhook payloads get signed": a line about their retries does not say how
    alone = _ALONE_RE.search(q.text) if slot.kind == "quantity" else None
    if got and alone and re.search(r"\b(?:including|includes|inclusive of|covering|covers)\b[^.;]*\b" + re.escape(
            alone.group(1)) + r"\w*\b[^.;]*(?:,|\band\b)", text, re.I):
        got *= WEAK  # "costing us just for the venue": "£14,500 including venue, meals and travel" is more than that
    own = _OWN_RE.search(q.text)
    if got and own and stem(own.group(1)) not in stems_of(f"{text} {context}"):
        return 0.0, False  # "Pellucid's own spreadsheet": a line that does not speak of the spreadsheet is ours
    if got and _STAT_ASKED_RE.search(q.text) and not _STAT_RE.search(f"{text} {context}"):
        return 0.0, False  # "the median experience": "55% had 5-20 years" is a share, not the median
    return got, via


# "what's the number that stood after the close": the figure asked about, named by what it is about ("q2 revenue"),
# not by the word "number", which no line that gives it says; "orbis volume through harbor per week": how much of
# something, a count as often as a size.
_ANY_FIGURE = frozenset(("number", "figure", "numbers", "figures", "value", "values", "volume", "volumes"))
# "just for the venue", "only on hardware": one part of what a figure may cover
_ALONE_RE = re.compile(r"\b(?:just|only|alone)\s+(?:for|on|in)\s+(?:the\s+|our\s+)?([a-z]+)", re.I)
# A question about when something ends, and a line that speaks of an end.
_END_ASKED_RE = re.compile(r"\b(?:runs? out|expir\w*|lapses?|valid until|end date|stops? being valid)\b", re.I)
_END_RE = re.compile(r"\b(?:expir\w*|until|valid (?:to|through|thru|till)|runs? out|lapse\w*|ends?|ending|end date|"
                     r"due|through)\b", re.I)
# A figure with a unit of its own ("26 months", "600 requests"), not a scale ("£1.2 million" on a header's sign).
_OTHER_UNIT_RE = re.compile(r"\d\s*(?!(?:million|billion|thousand|mn|bn|k)\b)[a-z]{2,}", re.I)
# A value given as an illustration, and a date given as what is due rather than what happened.
# A line that opens with "Example:" is an illustration whole ("Example: nox -s test-3.10" gives no version of nox).
_EXAMPLE_RE = re.compile(r"(?:^\s*(?:an? )?examples?(?:\s*:|\s+[—–-]\s)|\b(?:for example|for instance|e\.g\.|such as|"
                         r"as an example))[^;)\]]*", re.I)
_STAMP_RE = re.compile(r"^\s*\[[^\]]{1,20}\]")


def _example_asked(text: str, q: Asked) -> bool:
    """The example is what the question asks about: it says two or more of the question's names ("what temp range
    is the dublin to cork hospitals lane": 'for example "Dublin hub to Cork hospitals, 2–8 °C"')."""
    said = {stem(w) for m in _EXAMPLE_RE.finditer(text) for w in re.findall(r"[A-Z][\w'-]+", m.group(0))}
    return len(said & q.stems) >= 2


_WAS_ASKED_RE = re.compile(r"\bwhen (?:was|were|did|had)\b", re.I)
_DUE_RE = re.compile(r"\b(?:due|deadline|planned|scheduled|target(?:ed)?|expected)\b(?:\s+[^\s,;]+){0,3}", re.I)
# "The longest delay" is said by "delayed by up to 47 minutes": the utmost value, said as a bound.
UTMOST = frozenset("longest largest biggest highest most worst peak maximum max greatest".split())
UTMOST_RE = re.compile(r"\b(?:up to|at most|at worst|at the worst|at (?:its|the) peak|peak(?:ed)?|max(?:imum)?|"
                        r"as (?:long|much|many|high|late) as)\b", re.I)
# "X's own Y": Y as against someone else's.
_OWN_RE = re.compile(r"\b\w+(?:'s|s') own ([a-z][\w-]+)", re.I)
# A statistic asked by name (the median, the average) and a line that gives one.
_STAT_ASKED_RE = re.compile(r"\b(?:median|average|averages|the mean)\b", re.I)
_STAT_RE = re.compile(r"\b(?:median|averag\w*|mean|avg|typical\w*|on the whole)\b", re.I)


# "the oldest python version pip still works with": a list of the versions ("CPython 3.9, 3.10, 3.11, …") gives its
# first and last.
_LIST_ENDS = frozenset("oldest earliest lowest minimum min newest latest highest maximum max".split())
# A line that reports a question ("Erik asks whether their beta key still works") answers none.
_REPORTS_ASKING_RE = re.compile(r"\b(?:asks?|asked|asking|wonders?|wondered|wondering|wants? to know|wanted to know|"
                                r"checking)\s+(?:us\s+|me\s+|you\s+)?(?:whether|if)\b", re.I)


# Words before "version" that say which of a product's versions, not which product ("the minimum version").
_WHICH_VERSION = frozenset("minimum maximum min max latest current newest oldest earliest first last final supported "
                           "required recommended default stable next new old previous exact specific lowest highest "
                           "major minor patch release lts".split())


_SINCE_ASKED_RE = re.compile(r"\bsince (?:which|what|when)\b|\bstarting (?:with|from|in) (?:which|what)\b|"
                             r"\bfrom (?:which|what) (?:version|release)\b", re.I)
_START_RE = re.compile(r"\b(?:since|starting|as of|introduced|added|new in|began|beginning|onwards?|became|becomes|"
                       r"prior to|before|or later|and later|"
                       r"from (?:version |release |v)?\d|first (?:released|shipped|added|introduced))\b", re.I)


_SHARE_HEADS = frozenset("share shares percentage percent proportion fraction".split())


def _versions_of_another(before: list[str], text: str, q: Asked) -> bool:
    """Every version the line gives that the question does not is written after the name of another product the
    question names ("pip v22.2", "pip 24.2" for "which truststore version … with pip 25.1")."""
    asked = {stem(w) for w in before}
    owners = [_owner(text, v) for v in VERSION_RE.finditer(text) if is_new(v.group(0), q)]
    return bool(owners) and all(o and stem(o) in q.stems and stem(o) not in asked for o in owners)


def _owner(text: str, version: re.Match[str]) -> str:
    """The word right before a version's figure, where it names a product ("pip v22.2": pip); "" for a word that
    names none ("since version 20.2")."""
    digit = version.start() + next(i for i, ch in enumerate(version.group(0)) if ch.isdigit())
    m = re.search(r"([A-Za-z][\w-]*)\s+v?$", text[:digit])
    return m.group(1) if m and m.group(1).casefold() not in VERSION_HEADS | STOPWORDS else ""


def _says_head(slot: Slot, text: str, q: Asked) -> bool:
    """The line speaks of the asked figure's noun; a share is spoken of by a percentage ("12% of ARR"), a rate by
    what it counts per what ("Excursions per 1,000 shipments fell from 6.8 to 5.1"), a temperature by its degrees
    ("Dublin hub to Cork hospitals, 2–8 °C"), a span by a figure of time or length ("the min deprecation window":
    "deprecated for a minimum of 6 months")."""
    return says_head(slot.head, text) or (slot.head in _SHARE_HEADS and bool(re.search(r"\d\s*%|\bper ?cent\b", text))) or (
        slot.unit == "rate" and bool(RATE_NAMED_RE.search(text))) or (
        slot.head == "temperature" and bool(re.search(r"°\s?[CF]\b|\bdegrees\b|[-+−]?\d+(?:\.\d+)?\s?[CF]\b(?!\w)", text))) or (
        slot.head in EXTENTS and bool(figures_in(text, q, "length" if slot.head in _LENGTHS else "extent")))


_LENGTHS = frozenset("length height width depth distance".split())  # extents measured in space, not time


def other_name(name: str, text: str, names: Names) -> bool:
    """The line names the entity the wiki knows as `name` by another of its names."""
    ent = names.entity(name)
    ws = words(text)
    return ent is not None and any(e.page == ent.page and fold(" ".join(ws[a:b])) != fold(name)
                                   for a, b, e in names.found(text))


_VAGUE_RE = r"\b(?:some|several|a few|a handful|many|a number|others|a couple)(?: of (?:them|those|these|us|the \w+))?\s+"


def _untold(head: str, question: str, line: str) -> bool:
    """The line says the asked count only vaguely ("some unsubscribed"): the verb the question counts by, after "some",
    "several" or "a few"; any figure it gives counts something else."""
    m = re.search(rf"\b{re.escape(head)}\s+(?:\w+\s+)?([a-z]{{3,}}(?:ed|t))\b", question.lower()) if head else None
    vague = re.search(_VAGUE_RE + rf"(?:\w+\s+)?{re.escape(m.group(1))}\b", line.lower()) if m else None
    # ("Several customers churned, 12 in total" gives the count after all)
    return vague is not None and not re.search(r"\d", line[vague.end() :])


def _holds_head(slot: Slot, line: str, clause: str) -> bool:
    """The clause speaks of the asked X when the line does ("18 desks" is no count of the people it seats)."""
    return not slot.head or not says_counted(slot.head, line) or says_counted(slot.head, clause)


def _fill(slot: Slot, text: str, context: str, names: Names, q: Asked) -> tuple[float, bool]:
    if unnamed(slot, text, q.stems) and not any(is_new(m.group(0), q) for m in _IDENTIFIER_RE.finditer(text)):
        # "a configuration file that's loaded last" names no file, unless the line gives its identifier too
        # ("the environment variable PIP_CONFIG_FILE can specify a configuration file that's loaded last")
        return 0.0, False
    # "which greywater person sits on our board": a person of any post ("Marcus Hale — partner at Greywater Ventures")
    role = slot.subject or (slot.head if slot.head in PERSON_HEADS and slot.head not in ANY_PERSON else "")
    if slot.kind == "person" and role and slot.subject and only_names(role, names):
        role = ""  # "who is tomek", typed in lower case: a name, not a post
    who_is = WHO_IS_RE.match(q.text) if slot.kind == "person" and not role else None
    if who_is and only_names(who_is.group(1), names) and identifies(text, names, q):
        return 1.0, False  # "who is tomek exactly": "Tomasz Wieczorek, CTO and co-founder, also known as Tomek"
    if slot.kind == "person" and role and not says_role(role, f"{text} {context}"):
        return 0.0, False  # "who is the head of marketing": "Maya Okafor, CEO" names someone else's role
    if slot.kind == "person" and role and not slot.head and unnamed(Slot("thing", head=role_head(role)), text, q.stems):
        # "who did we hire as the Oslo lead": "an Oslo lead, for Project Kettle" names no one. The role's own
        # noun only: "Erik Sandberg (Head of Logistics) and two depot managers" names the head of logistics.
        return 0.0, False
    if slot.kind == "person" and role and speaks_of_role(role, text, lambda t: kind_fill(Slot("person"), t, names, q) > 0):
        return 0.0, False  # "Hannah: introduce the new customer success manager": Hannah is not the manager
    if slot.kind == "person" and not role and speaker_only(text, lambda t: kind_fill(Slot("person"), t, names, q) > 0):
        return 0.0, False  # a speaker is not the author of what they speak of
    if slot.kind == "person" and role and role_apart(
            text, says_role_here(role, text), lambda t: kind_fill(Slot("person"), t, names, q) > 0):
        return 0.0, False  # "Hannah stays the contact until the new manager starts": she is not the manager
    if slot.kind in ("quantity", "date") and elsewhere(
            text, context, names, q.entities, q.kinds, q.stems,
            lambda t: kind_fill(slot, t, names, q) > 0 and _holds_head(slot, text, t)):
        return 0.0, False  # "how many people fit in Leeds": "Lisbon has room for 55 people" is Lisbon's count
    if slot.kind == "quantity" and slot.head:
        before, after = modifiers(q.text, slot.head)
        # "the most recent share": which of the figures over time, not a word the line must say
        before = [m for m in before if m not in OF_NOW and not (m == "most" and "recent" in before)]
        if slot.unit == "version" and slot.subject and not after:
            after = [slot.subject.lower()]  # "the oldest Python": a version of Python, though "version" is not said
        said = stems_of(f"{text} {context}")
        # The wiki's own subject ("pip" on pip's pages) is whose X by default: a page need not say it.
        missing = [m for m in before if stem(m) not in said and not _said_as(m, said) and stem(m) not in q.everywhere
                   and not (m in UTMOST and UTMOST_RE.search(f"{text} {context}"))
                   and not (m in _LIST_ENDS and slot.unit == "version" and len(
                       [v for v in VERSION_RE.finditer(text) if is_new(v.group(0), q)]) >= 3)]
        if slot.unit == "count" and before and not missing:
            # "how many enterprise customers": "… for Enterprise customers. … with the three customers who were
            # told" counts customers in a sentence that does not say which.
            counting = [c for c in re.split(r"[.;!?](?:\s|$)", text) if count_beside(slot.head, c, q)]
            if counting and not any(all(stem(m) in stems_of(c) for m in before) for c in counting):
                missing = list(before)
        if after and not any(stem(m) in said for m in after):
            missing += after
        if missing and _other_qualifier(slot.head, text, q):
            return 0.0, False  # "software subscriptions' margin": "Hardware gross margin" is another margin
        if slot.unit == "version" and not after and _versions_of_another(before, text, q):
            # "which truststore version is bundled with pip 25.1": "with pip v22.2 or later" gives pip's versions,
            # another product the question names
            return 0.0, False
        if slot.unit == "version" and after and not version_tied(
                after, text, (v for v in VERSION_RE.finditer(text) if is_new(v.group(0), q)),
                q.stems - {stem(m) for m in after} - {stem(w) for w in before}):
            return 0.0, False  # "what version of requests does pip vendor": "since version 20.2" is pip's
        named = [m for m in missing if m not in _WHICH_VERSION]
        if slot.unit == "version" and named:
            return 0.0, False  # "the minimum git version": a version where git is not spoken of is another's
        if slot.unit == "version" and after and not any(stem(m) in said for m in after):
            return 0.0, False  # "what version of certifi": a version where certifi is not spoken of is another's
        if missing and slot.unit not in ("count", "time", "version", "extent") and not _says_head(slot, f"{text} {context}", q):
            return 0.0, False  # "the operating voltage": a figure where no voltage is spoken of, with or without "operating"
        if missing:
            got, via = _fill(replace(slot, head=""), text, context, names, q)
            return got * WEAK, via  # "how many nordic customers": a count of customers, not of the nordic ones
    if slot.kind == "quantity" and slot.unit == "count" and _untold(slot.head, q.text, text):
        return 0.0, False  # "how many people unsubscribed": "472 people signed up, although some unsubscribed"
    counted = slot.kind == "quantity" and slot.unit in ("count", "time") and slot.head
    if counted and slot.unit == "count" and not says_counted(slot.head, text) and counted_right_before(slot.head, context, q):
        # "how many lanes": "So far 1,310 pilot shipments have run" after "Pellucid's pilot covers 42 lanes": the
        # sentence before counts the lanes, this one counts something else.
        return 0.0, False
    if counted and slot.unit == "count" and not says_counted(slot.head, f"{text} {context}"):
        got, via = _fill(replace(slot, head=""), text, context, names, q)
        return got * WEAK, via  # "how many employees": a count of something the line does not name, weakly
    if not counted and slot.kind == "quantity" and slot.head and slot.unit not in ("version", "extent") and (
            slot.head not in _ANY_FIGURE) and not _says_head(slot, f"{text} {context}", q):
        return 0.0, False  # "what is the monthly rent": a figure where rent is not spoken of is another figure
    if (slot.kind == "alias" or (slot.kind == "definition" and _MEANS_ASKED_RE.search(q.text))) and _AKA_RE.search(
            text) and stems_of(slot.subject) <= stems_of(f"{text} {context}"):
        # "This approach … is also known as a 'development installation'": the thing is named in the sentence
        # before ("Editable installs …") or the heading, the other name in this one; what it means, by its other name
        return 1.0, False
    own = kind_fill(slot, text, names, q)
    if own >= 1.0 or not context or slot.kind in ("definition", "role", "yesno", "procedure", "value"):
        return own, False
    if slot.kind == "date" and (_UNDATED_RE.search(text) or _FUTURE_ASKED_RE.search(q.text)):
        return own, False  # "dropped in a future release": the "(2020)" of its heading is not that release's date
    if slot.kind == "date" and dates_in(text, q):
        # "Maya: Lodestar demo with Priya, October" under "2026-09-24 · [[QBR]]": the line says when its event
        # is, less exactly than asked; the heading's date is when it was said.
        return own, False
    if slot.kind == "reason" and _CAUSE_HEAD_RE.search(context) and len(_content(text, q)) >= 2:
        return 1.0, False
    if slot.kind == "thing":
        return own, False  # a title names what the page is about, not which X this line means
    if slot.named and slot.head and qualified(slot.head, text, q) and not name_beside(slot.head, text, q):
        return own, False  # "our fallback provider had been disabled": the line speaks of one X and names none
    if slot.kind == "quantity":
        return own, False  # a figure in a title or heading ("Page 1", "Q3 plan") is the page's, not the answer
    ctx = kind_fill(slot, context, names, q)
    if slot.named and not known_kind(slot, context, names, q):
        return own, False  # only a name the wiki knows to be of the asked kind counts from the context
    if ctx * CONTEXT > own:
        return ctx * CONTEXT, True
    return own, False
