"""Does a line name the asked thing? "Which X" wants a name, a code token or a word beside X that says which X
the line means ("the modem component"), not an X it only counts or calls vague ("one component"); *who*, *which
organisation* and *which project* want a name, of the asked kind where the wiki knows it. slots.py asks these for
every slot that wants a name, and the context's credit (a heading, a title) asks `known_kind`.
"""

from __future__ import annotations

import re

from stigmergy.answer.heads import ORG_HEADS, PERSON_HEADS, PLACE_HEADS, PRODUCT_HEADS, PROJECT_HEADS
from stigmergy.answer.names import Names, words
from stigmergy.answer.question import Slot
from stigmergy.answer.terms import STOPWORDS, fold, stem
from stigmergy.answer.values import CALENDAR, Asked, is_new, is_new_name

WEAK = 0.6  # calibrated: bench/ask.py --fit (docs/agents.md); slots.py fills with it too

# A cross-reference ("{ref}`wheel cache <wheel-caching>`", ":doc:`../topics/caching`") points at another section: its
# text is no code a line gives.
CODE_RE = re.compile(r"(?<!\{ref\})(?<!\{doc\})(?<!\{any\})(?<!:ref:)(?<!:doc:)(?<!:any:)`[^`]+`|\b\w+(?:[._]\w+)+\b|"
                     r"(?<!\w)--?[a-z][\w-]+|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|"
                     r"(?<!\w):(?!(?:ref|doc|any|numref):)[a-z]+:|\b\w+\(\)|\"[^\"]{2,60}\"|“[^”]{2,60}”")
# Two capitalised words that open a line: a name ("Marcus Hale — …"), unless the first is a function word ("The …")
_OPENING_NAME_RE = re.compile(r"([A-Z][a-z]+)\s+[A-Z][a-z]+\b")
_CAP_RE = re.compile(r"\b[A-Z][\w'’.-]*[A-Za-z0-9](?:\s+(?:of|de|da|do|von|van|der|la|le|du|y)?\s*[A-Z][\w'’.-]*[A-Za-z0-9])*")
# A reference link's text names what it links to ("[pip-tools] is a package that…").
_LINK_TEXT_RE = re.compile(r"\[([^\]\s][^\]]{1,40})\](?!\()")
PROJECT_RE = re.compile(r"\b(?i:project)\s+([A-Z]\w+)|\b([A-Z]\w+)\s+(?i:project)\b")
VAGUE = frozenset(
    "one ones some someone something another other others certain several various thing things part parts item "
    "items stuff kind sort type each every both either neither few many lot lots new old same different "
    "particular specific main key".split())


def names_in(text: str, names: Names, q: Asked, kinds: tuple[str, ...] | None,
             apart: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(known names of the asked kinds, less those of the `apart` kinds; unknown capitalised names), neither in the
    question."""
    known, spans = [], []
    for i, j, ent in names.found(text):
        spans.append((i, j))
        if ent.page in q.entities or not any(stem(w) not in q.stems for n in [ent.title] for w in words(n)):
            continue
        if (kinds is None or ent.kind in kinds) and ent.kind not in apart:
            known.append(ent.title)
    unknown = []
    # The first word is capitalised by grammar, unless a name opens the line ("Marcus Hale — partner at Greywater")
    opening = _OPENING_NAME_RE.match(text)
    body = text[1:] if text[:1].isupper() and not (opening and opening.group(1).casefold() not in STOPWORDS) else text
    for m in _CAP_RE.finditer(body):
        name = m.group(0)
        ws = words(name)
        if not ws or all(w in STOPWORDS or w in VAGUE or w in CALENDAR for w in ws) or names.entity(name) is not None:
            continue
        if any(stem(w) in q.stems or stem(w.split("-")[0]) in q.stems for w in ws) or not is_new(name, q):
            continue  # "German-language" for "a german report" is the question's word again
        unknown.append(name)
    return known, unknown


# Nouns of the same kind as the asked one: "which logger company…" is not answered by "a logger hardware vendor".
_KIN = {"org": ORG_HEADS, "person": PERSON_HEADS, "place": PLACE_HEADS, "project": PROJECT_HEADS,
        "product": PRODUCT_HEADS}
_INDEFINITE = frozenset("a an one some another any two three four five several few more other certain second third "
                        "fourth".split())


def unnamed(slot: Slot, text: str, asked_stems: frozenset[str] = frozenset()) -> bool:
    """The line speaks of the asked X without naming it: "a network provider outage", "one component",
    "two more carriers", "the second Nordic customer success manager" — it knows there is one, not which.
    The question's own words before X ("Nordic customer success") do not count towards the three looked at."""
    if not slot.head or not slot.named:
        return False
    kin = {stem(slot.head)} | {stem(h) for h in _KIN.get(slot.kind, ())}
    ws = words(text)
    kin |= _spelled_out(slot.head, ws)
    for i, w in enumerate(ws):
        if stem(w) not in kin:
            continue
        before = [x for x in ws[max(0, i - 6) : i] if stem(x) not in asked_stems or x in _INDEFINITE][-3:]
        if any(x in _INDEFINITE for x in before) and not _named_after(text, w):
            return True
        if "new" in before and not (_named_after(text, w) or re.search(
                r"[A-Z][\w'’.-]+(?:\s+(?:is|was|as|becomes|became)|,)\s+(?:now\s+)?(?:the|our|their|its)\s+new\b", text)):
            return True  # "introduce the new Nordic customer success manager": one is coming, not who ("Maya is the new CEO")
        if before and before[-1] in _POSSESSIVE and not (_named_after(text, w) or _name_before(text, w) or re.search(
                r"\b" + re.escape(w) + r"\w*\s+(?:is|was|are|were)\s+(?:now\s+|still\s+)?[A-Z`\"“]", text)):
            # "an outage at our SMS provider": whose, not which ("Twilio, our SMS provider", "our SMS provider is
            # Twilio" name it)
            return True
    return False


_POSSESSIVE = frozenset("our their its my your his her".split())


def _spelled_out(head: str, ws: list[str]) -> set[str]:
    """An acronym asked about ("the second Nordic CSM") as the line spells it ("customer success manager"): the
    stem of the spelled-out phrase's last word, which the line's other words qualify as they would the acronym."""
    if not (2 <= len(head) <= 5 and head.isalpha()):
        return set()
    n = len(head)
    return {stem(ws[i + n - 1]) for i in range(len(ws) - n + 1)
            if "".join(w[:1] for w in ws[i : i + n]) == head.casefold()
            and all(len(w) >= 3 and w not in STOPWORDS for w in ws[i : i + n])}


def _name_before(text: str, word: str) -> bool:
    """ "Twilio, our SMS provider": a capitalised name in the few words before the possessive that leads to the noun."""
    m = re.search(r"([A-Z][\w'’.-]*)[\w\s,'’.-]{0,12}\b(?:our|their|its|my|your|his|her)\s+(?:[\w-]+\s+){0,2}"
                  + re.escape(word), text)
    return bool(m and not (m.group(1).isupper() and len(m.group(1)) <= 4) and m.start() > 0)


def name_beside(head: str, text: str, q: Asked) -> bool:
    """A capitalised name (not the question's) right before or after the head noun."""
    hs = stem(head)
    for m in re.finditer(r"[\w'’.-]+", text):
        if stem(fold(m.group(0))) != hs:
            continue
        # "Marcus Hale — partner at …", "Aoife Brennan, quality director": a name, then its role
        before = re.search(r"((?:[A-Z][\w'’.-]+\s+){1,3})(?:[—–,:-]\s*(?:an?\s+|the\s+)?)?$", text[: m.start()])
        after = re.match(r"\s*[:(,—-]?\s*((?:[A-Z][\w'’.-]+\s*){1,3})", text[m.end() :])
        for got in (before, after):
            if got and all(w.isupper() and len(w) <= 4 for w in got.group(1).split() if w.lower() not in STOPWORDS):
                continue  # "SMS provider", "CI service": an acronym says what kind, not which one
            if got and is_new_name(got.group(1), q) and not all(w in CALENDAR or w in STOPWORDS
                                                              for w in words(got.group(1))):
                return True
    return False


def qualified(head: str, text: str, q: Asked) -> bool:
    """The line speaks of a particular X by a word of its own ("our fallback provider"), not of the page's
    X ("the project lead" on the project's kickoff page)."""
    hs = stem(head)
    ws = words(text)
    return any(stem(w) == hs and i and ws[i - 1].isalpha() and ws[i - 1] not in STOPWORDS and ws[i - 1] not in VAGUE
               and stem(ws[i - 1]) not in q.stems for i, w in enumerate(ws))


def _named_after(text: str, word: str) -> bool:
    """ "provider Twilio", "component: the LTE modem (…)": a name right after the noun; after a colon, whatever
    follows names it ("two AWS regions: eu-west-2 (London) …")."""
    m = re.search(r"\b" + re.escape(word) + r"\w*\s*[:(,—-]?\s*(?:the\s+)?([A-Z`\"“][\w`\"”.-]*)", text, re.I)
    return bool(m and m.group(1)[:1] in "`\"“" or (m and m.group(1)[:1].isupper())) or bool(
        re.search(r"\b" + re.escape(word) + r"\w*\s*:\s*\w", text, re.I)) or bool(
        # "Three names reached the council: Tidemark, Meridian and Keel": the list the clause goes on to give
        re.search(r"\b" + re.escape(word) + r"\w*\b[^.;:!?]{0,40}:\s*(?:the\s+)?[A-Z`\"“]", text, re.I))


def known_kind(slot: Slot, text: str, names: Names, q: Asked) -> bool:
    want = {"person": ("person", "organisation", "organization"), "org": ("organisation", "organization"),
            "project": ("project",), "product": ("product",), "place": ("place",)}.get(slot.kind)
    if want is None:
        return True
    known, _ = names_in(text, names, q, want)
    return bool(known) or (slot.kind == "project" and any(is_new(a or b, q) for a, b in PROJECT_RE.findall(text)))


# What a page may call the asked kind of thing instead: "which library is the resolver built on" is answered by
# "based on a separate package, resolvelib".
_THING_KIN = {"library": ("package", "module"), "package": ("library", "module"), "module": ("package", "library"),
              "lib": ("library", "package", "module")}


def thing_fill(head: str, text: str, names: Names, q: Asked) -> float:
    """ "Which X": a name, a code token or quoted text the question does not hold, or a word right beside X
    that qualifies it ("the modem component", "component modem"), not a vague one ("one component"). A person the
    wiki knows is no thing ("which programming language": not "Grace Nakamura owns the runbook")."""
    known, unknown = names_in(text, names, q, None, apart=("person",))
    if head in ("one", "ones"):
        # "timeout is set in /etc/pip.conf and in my user config. which one does pip use": of what the asker has,
        # the one that prevails ("… then the latter value will be used", "environment variables override …")
        return 1.0 if _PREVAILS_RE.search(text) else 0.0
    if singular(head) in ("link", "url"):
        # "direct download link for the pip zipapp": a web address the question does not hold (a URL, or a domain
        # written without its scheme: "what url do we use for coldtrace now": "app.tidemark.io")
        return 1.0 if any(m.group(0).strip("<>()[].,").casefold() not in q.text.casefold()
                          for m in _WEB_ADDRESS_RE.finditer(text)) else 0.0
    if singular(head) in _VARIABLE_HEADS:
        # "what env var sets --find-links": a variable's name ("PIP_FIND_LINKS"), not the option's own line
        return 1.0 if any(is_new(m.group(0), q) for m in _VARIABLE_RE.finditer(text)) else 0.0
    if singular(head) in _SYNTAX_HEADS and any(_spelled_anew(m.group(0), q) for m in CODE_RE.finditer(text)):
        return 1.0  # "what syntax makes pip expand API_TOKEN": "`${API_TOKEN}`" writes the name the new way
    if singular(head) in _OPTION_HEADS:
        # "which pip flag overrides that": an option the line spells ("--break-system-packages"), not a line that
        # speaks of flags ("Allowing the user to override the default behaviour (using flags)")
        return 1.0 if any(is_new(m.group(0), q) for m in _OPTION_RE.finditer(text)) else 0.0
    if singular(head) in _FOLDER_HEADS:
        # "which folder are the built docs in": a folder is a path ("docs/build"); a file ("noxfile.py") or a
        # command ("nox -s docs") the line names is no folder.
        if any(is_new(m.group(0), q) for m in _FOLDER_PATH_RE.finditer(text)) or any(
                _folder_name(m.group(0), text[: m.start()]) and is_new(m.group(0), q) for m in CODE_RE.finditer(text)):
            return 1.0
    elif singular(head) == "file":
        # "what file does pip lock write": a file's name ("pylock.toml"), not the option a line names ("--report")
        if any(is_new(m.group(0), q) for m in _FILE_NAME_RE.finditer(text)) or any(
                is_new(m.group(0), q) for m in _VARIABLE_RE.finditer(text)):
            return 1.0  # a variable that names the file counts ("PIP_CONFIG_FILE … a configuration file loaded last")
    elif known or any(is_new(m.group(0), q) and not _NUMBER_ONLY_RE.fullmatch(m.group(0)) and not (
            singular(head) in _NOT_OPTION_HEADS and _not_named(m.group(0).strip("`"))) for m in CODE_RE.finditer(
            text)) or any(
            is_new(m.group(1), q) for m in _LINK_TEXT_RE.finditer(text)):
        return 1.0
    if singular(head) == "file":
        return WEAK if unknown else 0.0  # "a lock file format" names no file
    low = fold(text)
    if any(is_new(m.group(0), q) for m in re.finditer(rf"\b{re.escape(fold(singular(head)))}[- ]?\d+\b", low)):
        return 1.0  # "what sev was it": "Grace Nakamura declares SEV-2" (a grade said by its kind and number)
    if any(is_new(m.group(1), q) for m in re.finditer(rf"\b(\d+(?:st|nd|rd|th))[- ]{re.escape(fold(singular(head)))}s?\b",
                                                       low)):
        return 1.0  # "which floor is the new office on": "Rua do Alecrim 38, 3rd floor" (its number before it)
    hs = {stem(head)} | {stem(w) for w in _THING_KIN.get(singular(head), ())}
    ws = words(low)
    for i, w in enumerate(ws):
        # the noun, not the verb's -ing form of its stem ("the specifics of Python packaging" names no package)
        if stem(w) not in hs or (w.endswith("ing") and not head.endswith("ing")):
            continue
        # "the triage-new-issues bot": a compound beside X names it, though it repeats the question's words
        near = [x for x in ws[max(0, i - 1) : i] + ws[i + 1 : i + 2]
                if x.replace("-", "").isalpha() and x not in STOPWORDS and x not in VAGUE and stem(x) not in q.stems
                and not _initials_of(x, ws[: i + 1])]
        if near:
            return 1.0
    return WEAK if unknown else 0.0


def _not_named(token: str) -> bool:
    """A command-line option, a file's name or an environment variable, which no library, backend or algorithm is
    ("setup.py" for "what build backend does pip assume", "PIP_CERT" for "what package reads the OS certificates")."""
    return bool(_OPTION_RE.fullmatch(token) or _FILE_NAME_RE.fullmatch(token) or _VARIABLE_RE.fullmatch(token))


def _folder_name(token: str, before: str) -> bool:
    """A code token that may name a folder (`cache-v2`, `.venv`): not a command (`nox -s docs`), a file
    (`noxfile.py`), a role or what it refers to (:pypi:`nox`, a package), an option or a number."""
    t = token.strip("`\"“”")
    if not t or before.endswith(":") or re.search(r"\s", t) or t.startswith((":", "-")):
        return False
    return not re.search(r"\w\.[A-Za-z]\w{0,4}$|\(\)$", t) and not re.fullmatch(r"[\d.]+", t)


def _initials_of(word: str, before: list[str]) -> bool:
    """ "version control systems (VCS)": the acronym of the words it follows names them again, not one of
    them."""
    n = len(word)
    return 2 <= n <= 5 and len(before) >= n and "".join(w[0] for w in before[-n:]) == word


# The parts of an address: a URL, an email address, a domain without its scheme ("app.tidemark.io").
URL = r"\bhttps?://[^\s>)\]]+"
EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
DOMAIN = r"(?<![\w@/.-])(?:[a-z0-9-]+\.)+(?:io|com|org|net|dev|app|co|uk|eu|ai)\b"
# A web address: a URL, or a domain with its path ("app.tidemark.io", "pypi.org/search")
_WEB_ADDRESS_RE = re.compile(rf"{URL}|{DOMAIN}(?:/[\w./%-]*)?", re.I)
_PREVAILS_RE = re.compile(r"\b(?:overrides?|overridden|overriding|precedence|priority|the latter|the former|wins|"
                          r"takes? effect|(?:is|are|will be|gets?) used|prevails?)\b", re.I)
_FOLDER_HEADS = frozenset(("folder", "directory", "directories", "dir"))
# "which library does the resolver use", "which hash algo", "what build backend": a kind of named thing that a
# command-line option ("--use-feature=2020-resolver") or a file's name ("setup.py") never is (`_not_named`).
_NOT_OPTION_HEADS = frozenset("library lib package module backend algorithm algo encoding tool language plugin extension "
                              "field class function method".split())
# A file's name: a known extension after a name ("pylock.toml", "news/1234.bugfix.rst", "$HOME/.pip/pip.conf").
_FILE_NAME_RE = re.compile(r"(?<![\w/.$~-])[\w$~./-]*[\w-]\.(?:toml|txt|cfg|ini|conf|json|ya?ml|py|pyz|whl|zip|tar\.gz|gz|"
                           r"lock|log|rst|md|sh|bat|exe|html|csv|pem|crt)\b", re.I)
# "which library is the resolver built on": "Pip 20.3 has a new dependency resolver" names a release, not a library.
_NUMBER_ONLY_RE = re.compile(r"v?\d+(?:[.,]\d+)*")
_VARIABLE_HEADS = frozenset(("variable", "envvar"))
_SYNTAX_HEADS = frozenset(("syntax", "notation", "format", "spelling", "form"))


def _spelled_anew(token: str, q: Asked) -> bool:
    """A code token that is not typed in the question as it stands, though it may wrap a name it types."""
    t = token.strip("`\"“”")
    return len(t) > 1 and fold(t) not in fold(q.text) and not t.isalnum()
_VARIABLE_RE = re.compile(r"\$?\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\$[A-Z][A-Z0-9_]+\b|%[A-Za-z]+%")
_OPTION_HEADS = frozenset(("flag", "switch"))  # "which option": a choice, as often as a command-line option
_OPTION_RE = re.compile(r"(?<![\w-])--?[a-zA-Z][\w-]*(?:=\S+)?")


def names_option(text: str, q: Asked) -> bool:
    """The line spells an option or a setting's name the question does not ("--require-hashes", "PIP_NO_CACHE_DIR")."""
    return any(is_new(m.group(0), q) for m in _OPTION_RE.finditer(text)) or any(
        is_new(m.group(0), q) for m in _VARIABLE_RE.finditer(text))
# A relative path names a folder too ("docs/build", "dist/"), where `_PATH_RE` wants an absolute one or two steps.
_FOLDER_PATH_RE = re.compile(r"(?<![\w/:.])[\w.~-]+(?:/[\w.-]+)+/?|(?<![\w/:.])[\w.~-]+/(?![\w/])")
def singular(word: str) -> str:
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]  # "boxes", "branches", "addresses"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word

