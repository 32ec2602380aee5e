"""How well a line alone fills each kind of slot (`kind_fill`): a date for *when*, a figure with the asked unit for *how
many / much / long*, a name of the asked kind for *who* and *which X*, a place or an address for *where*, a cause for
*why*, a statement of X for *what is X*, a step for *how do I*, a ruling for a yes-or-no question. What the line's
context adds and whether the line's value is the one asked about (its qualifiers, its period, what it counts) are
slots.py's, which reads this first.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from stigmergy.answer.counts import (
    NUMBER_WORDS,
    count_beside,
    counts_other,
    says_counted,
)
from stigmergy.answer.cues import (
    BUT_NOT_RE,
    CAUSE_RE,
    COMMAND_ASKED_RE,
    COMMAND_RE,
    KIND_TAIL_RE,
    LABEL_WORDS,
    LEAVE_ASKED_RE,
    OUTPUT_ASKED_RE,
    PART_OF_RE,
    REFUSAL_REASON_RE,
    RULING_RE,
    WHY_NOT_RE,
    as_need,
)
from stigmergy.answer.defining import acronyms, defines, defines_operator, spells
from stigmergy.answer.frames import WILL_RE
from stigmergy.answer.function_words import AUX
from stigmergy.answer.names import Names, roster, words
from stigmergy.answer.procedure import how_fill, is_command, shows_how
from stigmergy.answer.question import Slot
from stigmergy.answer.roles import (
    only_owner,
    others_post,
    posted,
    says_subject,
    titles,
)
from stigmergy.answer.terms import STOPWORDS, fold, stem
from stigmergy.answer.values import (
    CLOCK_RE,
    FREQ_RE,
    RELEASE_RE,
    VERSION_RE,
    Asked,
    dates_in,
    figures_in,
    is_new,
)
from stigmergy.answer.what_forms import (
    LASTS_ASKED_RE,
    LEAST_ASKED_RE,
    OK_ASKED_RE,
    OPERATOR_RE,
    OPTION_EXISTS_ASKED_RE,
    STANDS_FOR_RE,
    UNTIL_RE,
)
from stigmergy.answer.which import (
    CODE_RE,
    DOMAIN,
    EMAIL,
    PROJECT_RE,
    URL,
    VAGUE,
    WEAK,
    name_beside,
    names_in,
    names_option,
    thing_fill,
)
from stigmergy.gates.figures import MONTH_NAMES

# "When will X be removed": what is to come is not dated by the heading of what was written ("… 20.3 (2020)").
FUTURE_ASKED_RE = re.compile(r"\bwhen (?:will|would|shall|are|is) (?:.+ )?(?:going to|due|planned|scheduled|expected)\b|"
                              r"\bwhen (?:will|shall)\b", re.I)

# A job title asked ("what's dan's job title", "his official title", "what's her position"), against a post a person
# holds on one project or rota ("the project lead", "the sponsor", "on-call"), which is not their title
_JOB_TITLE_ASKED_RE = re.compile(r"\b(?:job|official|formal|actual) (?:title|role)\b|\bjob\b|\bposition\b", re.I)
_PROJECT_ROLE_RE = re.compile(r"\b(?:project|programme|program|workstream|launch|pilot|incident) (?:\w+ )?(?:lead|owner|"
                              r"manager|sponsor|coordinator)s?\b|\bsponsors?\b", re.I)


# What a console transcript's command wrote: a sentence after it ("$ python -m pip check No broken requirements found.")
_OUTPUT_AFTER_RE = re.compile(r"\s[A-Z][a-z]+ [a-z]+")


# Where, on a computer or the web: a URL, a web address without its scheme ("docs.tidemark.io/harbor"), a path; not a
# documentation cross-reference (":doc:`../topics/caching`", "url=../../cli/").
_PATH_RE = re.compile(r"https?://\S+|" + DOMAIN + r"/[\w./%-]*|"
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
AKA_RE = re.compile(r"\b(?:aka|a\.k\.a|also known as|also called|otherwise known as|sometimes called|"
                     r"better known as|formerly known as|short for)\b", re.I)
# Asked whether something exists ("any flag to …", "is there a setting that …"), which a line saying there is none answers
_ANY_ASKED_RE = re.compile(r"(?:any|is there (?:an?|any)|are there any)\b", re.I)
_NO_WAY_RE = re.compile(r"\b(?:there is|there's|there are) no (?:way|option|flag|switch|setting|mechanism|means|support)\b|"
                        r"\bno (?:way|option|flag|setting) to\b|\b(?:is|are) not (?:possible|supported)\b", re.I)
# What a thing means or is asked, not what it does ("what does 'editable' install actually do")
MEANS_ASKED_RE = re.compile(r"\bmean(?:s|ing|t)?\b|\bstands? for\b|\bwhat(?:'s| is| are)\b", re.I)
# A shell redirection to a file: "> ~/.config/fish/completions/pip.fish", ">> log.txt" (not "->", "=>" or ">=")
_REDIRECT_RE = re.compile(r"(?<![-=>\w])>>?\s*([~./\w][^\s;|&]*)")
# Asked why someone left or switched, and a line saying what they went to
_LEAVING_ASKED_RE = re.compile(r"\b(?:leave|leaves|left|leaving|churn\w*|quit|switch\w*|cancel\w*|drop(?:ped)? us)\b", re.I)
_LEFT_FOR_RE = re.compile(r"\b(?:moved|switched|went|defected|churned|left|migrated)(?: over| back)? to\b", re.I)
_PERSONISH = ("person", "organisation", "organization", "team", "company", "")


def content_words(text: str, q: Asked) -> list[str]:
    return [w for w in words(text) if w.isalpha() and len(w) > 2 and w not in STOPWORDS and w not in VAGUE
            and stem(w) not in q.stems]


# A figure with a unit of its own ("26 months", "600 requests"), not a scale ("£1.2 million" on a header's sign).
_OTHER_UNIT_RE = re.compile(r"\d\s*(?!(?:million|billion|thousand|mn|bn|k)\b)[a-z]{2,}", re.I)
_URL_TOKEN_RE = re.compile(r"\S+://\S+")
_PIN_BEFORE_RE = re.compile(r"(?:~=|==|<=|<|!=)\s*$")
_PINNED_RE = re.compile(r"([A-Za-z][\w.-]*)\s*(?:==|>=|<=|~=|!=|>|<)\s*(\d)")


# Who owns or runs something, which a team may do: "who owns the dashboard now", "who looks after the runbook"
_OWNER_ASKED_RE = re.compile(r"\bwho(?:'s| is)? (?:owns|runs|maintains|looks after|handles|manages|is responsible for|"
                             r"(?:is )?in charge of|supports)\b", re.I)
_TEAM_OWNS_RE = re.compile(r"\b(?:owned|run|maintained|handled|managed|supported|looked after) by (?:the |our )?(?:[\w-]+ ){1,2}"
                           r"team\b|\b(?:[\w-]+ ){1,2}team (?:owns|runs|maintains|handles|looks after|is responsible)\b",
                           re.I)


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
                not FUTURE_ASKED_RE.search(q.text) or WILL_RE.search(text)):
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
        if _OWNER_ASKED_RE.search(q.text) and _TEAM_OWNS_RE.search(text):
            return 1.0  # "who owns the 'ingest health' dashboard now": "… now owned by the platform team"
        if any(posted(n, text) for n in unknown if len(n.split()) >= 2):
            return 1.0  # "Marcus Hale — partner at Greywater Ventures": a full name with its post beside it
        return WEAK if any(len(n.split()) >= 2 for n in unknown) or re.search(r"(?<!\w)@\w+", text) else 0.0
    if slot.head and k in ("person", "org", "project", "product", "place") and name_beside(slot.head, text, q):
        return 1.0  # "the Simply Secure team", "partner Marcus Hale"
    if k == "place" and placed(text, q):
        return 1.0  # "installing a G2 in a reefer - where should i put it": "at least 1.5 m above the floor, away from …"
    if k == "place" and writes_to(text, q):
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
        if (CAUSE_RE.search(text) or as_need(text) or REFUSAL_REASON_RE.search(text) or (
                BUT_NOT_RE.search(text) and WHY_NOT_RE.search(q.text)) or (
                _LEAVING_ASKED_RE.search(q.text) and _LEFT_FOR_RE.search(text))) and len(content_words(text, q)) >= 2:
            # (asked why someone left, what they left for: "both small food distributors who moved to a logger vendor
            # with a lower price")
            return 1.0
        return WEAK if len(content_words(text, q)) >= 4 else 0.0
    if k == "alias":
        # "Using a wheelhouse (AKA Installation Bundles)": a line that gives the thing another name, beside it; or
        # names what the wiki knows by the asked name by another of its names ("sam": "Samuel Achterberg: …").
        return 1.0 if (AKA_RE.search(text) and stems_of(slot.subject) <= stems_of(text)) or other_name(
            slot.subject, text, names) else 0.0
    if k == "role":
        if not says_subject(slot.subject, text, names) or not any(stem(m.group(0)) not in q.stems
                                                                  for m in titles(text)):
            return 0.0
        if _JOB_TITLE_ASKED_RE.search(q.text) and not any(not _PROJECT_ROLE_RE.search(text[max(0, m.start() - 12):m.end()])
                                                          for m in titles(text)):
            return WEAK  # "dan ferreira's job title": "Daniel Ferreira is the project lead" is a post on one project
        # "an engineer for Samuel's team", "Leila Haddad (Head of People) with Rory" give another's post
        return WEAK if only_owner(slot.subject, text, names) or others_post(slot.subject, text, names) else 1.0
    if k == "definition" and OPERATOR_RE.fullmatch(slot.subject):
        return 1.0 if defines_operator(slot.subject, text) else 0.0
    choice = slot.subject.strip("'\"`‘’“” ") if k == "definition" else ""
    letter = CHOICE_ASKED_RE.fullmatch(choice) if k == "definition" else None
    if letter:
        # "--exists-action b, what does the b choice do" (or "what does 'b' do"): the choice a prompt labels
        # "(b)ackup" is defined where the label stands
        return 1.0 if re.search(rf"\({letter.group(1)}\)[a-z]", text, re.I) else 0.0
    label = choice.split()[-1] if choice else ""
    if k == "definition" and re.fullmatch(r"[a-z]{3,}", label, re.I) and re.search(
            rf"\({re.escape(label[0])}\){re.escape(label[1:])}\b", text, re.I):
        # "(s)witch/(i)gnore/(w)ipe/(b)ackup — what does backup do", "exists-action (i)gnore meaning?": where
        # "(b)ackup" labels it
        return 1.0
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
        if len(content_words(text, q)) < 2:
            return 0.0
        if STANDS_FOR_RE.search(q.text) and acronyms(slot.subject) and not spells(slot.subject, text):
            return WEAK  # "what does IQ/OQ stand for": "Validation pack (IQ/OQ) complete: 28 August" names it only
        return 1.0 if not subject or defines(term, text) else WEAK
    if k == "procedure":
        return how_fill(text, q, len(content_words(text, q)))
    if k == "yesno":
        # "is the pip.pyz zipapp ok to use on prod servers": "$ python pip.pyz --help" is something to type, which
        # says neither yes nor no; asked whether one may or should, a line that rules on it ("should not be used in
        # production", "is not supported") answers, one that only describes the thing weakly
        if is_command(text):
            # "python -m pip install -c constraints.txt" says neither whether nor what pip then does; asked whether one
            # can do something, a command that does it with an option the question does not type shows that one can, and
            # how ("made a venv with --without-pip, can my global pip install into it?": "pip --python .venv install …")
            return 1.0 if shows_how(text, q) else 0.0
        if not [w for w in content_words(text, q) if w.casefold() not in LABEL_WORDS]:
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
    if COMMAND_RE.match(text) and OUTPUT_ASKED_RE.search(q.text) and _OUTPUT_AFTER_RE.search(text):
        return 1.0  # "what does pip check print": "$ python -m pip check No broken requirements found." shows what
    if COMMAND_RE.match(text) and not COMMAND_ASKED_RE.search(q.text):
        return WEAK  # "what does --debug do under pdb": "$ python -m pdb -m pip --debug" shows it, says nothing of it
    if figures_in(text, q, "") or dates_in(text, q) or any(is_new(m.group(0), q) for m in CODE_RE.finditer(text)):
        return 1.0
    return 1.0 if content_words(text, q) else 0.0


def stems_of(text: str) -> set[str]:
    return {stem(w) for w in words(text)}


# An address on the web or for email ("email for Ines?"), asked and given.
# (or the address of a thing on the web: "old coldtrace web app — what's the address now")
_WEB_ADDRESS_ASKED_RE = re.compile(r"\b(?:web|website|site|url|mail|internet)\s+address|\be-?mail\b|"
                                   r"\b(?:web ?app|website|web ?site|portal|dashboard|login page)\b[^.?!]{0,30}\baddress\b", re.I)
_WEB_PLACE_RE = re.compile(rf"{URL}|{EMAIL}|{DOMAIN}(?:/[\w./%-]*)?", re.I)

# "where should i put it", "where do we mount the gateway": where a thing is set in place, which a line says by what it
# is set against ("above the floor", "away from the evaporator fan", "on the wall"), not by a town
PLACEMENT_ASKED_RE = re.compile(r"\bwhere (?:should|do|can|would|must|to) (?:i |we |you |one )?(?:put|mount|place|install|"
                                r"fit|position|stick|attach|hang|fix|locate)\b|\bwhere (?:does|should) (?:it|the \w+) go\b",
                                re.I)
_FILE_ASKED_RE = re.compile(r"\b(?:files?|config\w*|conf|folder|director(?:y|ies)|dir|script|package|module|"
                            r"wheel|cache)\b|\w\.\w{2,4}\b", re.I)
_PLACED_RE = re.compile(r"\b(?:above|below|beneath|underneath|away from|next to|close to|clear of|on (?:the|a) (?:wall|"
                        r"ceiling|floor|roof|door|shelf|rack|dashboard)|at (?:a )?height|at least [\d.]+\s?(?:m|cm|mm|"
                        r"metres?|meters?|feet|ft)\b)", re.I)


def placement_asked(q: Asked) -> bool:
    """Where to put a thing is asked, a thing in a room, not a file ("where do i put a machine-wide pip.ini": a
    folder answers)."""
    return _placement_asked(q.text)


@lru_cache(maxsize=256)
def _placement_asked(question: str) -> bool:
    # the question's, read once for every line weighed
    return bool(PLACEMENT_ASKED_RE.search(question)) and not _FILE_ASKED_RE.search(question)


def placed(text: str, q: Asked) -> bool:
    """Asked where to put a thing, `text` says where by what it is set against."""
    return placement_asked(q) and bool(_PLACED_RE.search(text))


# Where one reports, sends or asks something: an address to write to, not a place.
CONTACT_ASKED_RE = re.compile(r"\b(?:where|(?:which|what) (?:e-?mail |email )?address) (?:do|should|can|would|could|must|"
                               r"does|did) (?:i|we|you|one|they|customers?|people|users?) (?:report|send|email|e-mail|mail|"
                               r"submit|file|raise|post|flag|log|escalate|direct|reach|contact|ask|disclose|forward|"
                               r"write)\b", re.I)
_CONTACT_RE = re.compile(rf"{EMAIL}|{URL}|(?<![\w&])#[a-z][\w-]{{2,}}", re.I)


# A prompt's choice asked by its letter ("b", "the b choice", "picking b").
CHOICE_NOUNS = ("choice", "option", "letter", "key", "answer")
CHOICE_VERBS = ("picking", "choosing", "pressing", "selecting", "typing", "answering")
CHOICE_ASKED_RE = re.compile(rf"(?:the |(?:{'|'.join(CHOICE_VERBS)}) )?([a-z])(?: (?:{'|'.join(CHOICE_NOUNS)}))?", re.I)


def writes_to(text: str, q: Asked) -> bool:
    """Asked where to report, send or ask something, the line gives an address to write to (an email address, a web
    page, a channel) the question does not hold."""
    return bool(CONTACT_ASKED_RE.search(q.text)) and any(is_new(m.group(0), q) for m in _CONTACT_RE.finditer(text))


def other_name(name: str, text: str, names: Names) -> bool:
    """The line names the entity the wiki knows as `name` by another of its names."""
    ent = names.entity(name)
    ws = words(text)
    return ent is not None and any(e.page == ent.page and fold(" ".join(ws[a:b])) != fold(name)
                                   for a, b, e in names.found(text))
