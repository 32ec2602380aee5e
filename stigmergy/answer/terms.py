"""Question terms: tokens, Porter stems (the same stemmer family as the index's FTS5 `porter` tokenizer),
and how much each term tells, measured on the reader's own part of the index."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from stigmergy.answer import platforms
from stigmergy.answer.function_words import ASKING_VERBS, AUX
from stigmergy.answer.spelling import american
from stigmergy.answer.what_forms import OPERATOR_RE
from stigmergy.gates.figures import MONTH_NAMES

if TYPE_CHECKING:
    from stigmergy.index.store import IndexStore

# Words that shape a question but say nothing about what it asks for.
STOPWORDS = frozenset(
    "a an and are as at be been being but by can could did do does doing for from had has have how i if in "
    "into is it its me my of on or our out so than that the their them then there these they this those to "
    "up us was we were what when where which while who whom whose why will with would you your about after "
    "before should any all also just more most much many some such very per one tell told know say said says "
    "wiki go goes going went gone get gets got become becomes became come comes came make makes made take "
    "takes took upon onto unto".split()
) | frozenset(
    # The asker's fillers: "when is Grace *usually around* for the Leeds *folks*", "all of pip's cached *stuff*"
    # say how sure or how often, not what a line must say; "--upgrade *vs* --upgrade-strategy" sets two side by side.
    "usually typical typically normally basically around too folks guys anyway please exactly am supposed stuff"
    " vs versus really actually precisely officially".split()
) | frozenset(
    # Pronouns that stand for what the question asks ("why didn't *anything* page us") and the stems of "n't"
    # forms ("didn't" is "didn" to the tokenizer; a line says "did not", "no alert" or nothing of the kind).
    "once anything something everything nothing anyone someone everyone anybody somebody everybody "
    "didn doesn isn wasn aren weren don hasn haven hadn won wouldn couldn shouldn".split()
) | frozenset(
    # The same forms typed without their apostrophe ("im there late", "theres an http folder", "dont declare one"),
    # and "like" as the asker's hedge ("like after 8pm", "eating like 3gb"): no line says them.
    "im ive youre theyre dont doesnt didnt isnt wasnt arent werent hasnt havent hadnt wouldnt couldnt shouldnt "
    "cant whats thats theres heres like".split()
) | frozenset(
    # What the tokenizer leaves of "i've", "we'll", "you're": no line says them.
    "ve ll re".split()
)
HOW_WORDS = frozenset("long late early soon far big large old often fast high low small heavy tall wide deep quick "
                      "quickly snappy speedy zippy slow laggy sluggish".split())
_TOKEN_RE = re.compile(r"[\w][\w.\-]*[\w]|[\w]")
_DF_PROBE = 5000  # document frequencies above this count as "everywhere"
COMMON_SHARE = 0.05
# A word on a third of the reader's fragments says what the whole wiki is about ("pip" on most pages of pip's
# documentation): saying it does not put a line on a question's topic.
EVERYWHERE_SHARE = 1 / 3


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


@lru_cache(maxsize=1)
def _porter2() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """Casefolded, accents dropped (the index's unicode61 tokenizer does the same): "Inês" is "ines"."""
    text = text.replace("’", "'").replace("‘", "'")
    if text.isascii():
        return text.casefold()
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)).casefold()


# Small numbers in words, each at its value ("two" is 2): what a count may be written as.
NUMERALS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    w = fold(word)
    if w.endswith("'s") or w.endswith("’s"):
        w = w[:-2]
    w = american(w)  # "organisation" and "organization" are one word
    got = _stemmer().stemWord(w)
    if got.endswith("li") and w.endswith("ly"):
        # an adverb is its adjective ("eagerly" is said by "eager"): Porter keeps "-li", Porter2 drops it where the
        # adjective stands alone, and then stems it as Porter stems the adjective
        plain = _porter2().stemWord(w)
        return plain if not plain.endswith("li") else got
    return got


# A prompt's choice labelled by its letter ("(b)ackup", "(a)bort") is the word.
PROMPT_LABEL_RE = re.compile(r"\((\w)\)(?=\w)")


def tokens(text: str) -> list[str]:
    """Word tokens, keeping `4.0`, `eu-west-2`, `Q1` whole."""
    text = PROMPT_LABEL_RE.sub(r"\1", text.replace("’", "'"))
    if "_" in text:  # (most lines have none: the emphasis pattern is not run on them)
        text = _EMPHASIS_RE.sub(r"\1", text)
    return [t.strip(".-") for t in _TOKEN_RE.findall(text) if t.strip(".-")]


# Words a page stresses with underscores ("pip uses an _isolated environment_", "Do _not_ use quotes"): the words
# themselves (a dunder name, "__init__", keeps its underscores).
_EMPHASIS_RE = re.compile(r"(?<![\w_])_(?!_)([^_\n]+?)(?<!_)_(?![\w_])")


# A day written as an ordinal ("the 15th of sept"): the number a date line writes ("15 September").
_ORDINAL_RE = re.compile(r"^([0-9]{1,2})(?:st|nd|rd|th)$", re.I)


# A level or a series typed in capitals with its number ("SEV-2", "COVID-19"); a name in lower case ("eu-2") is not
# run together.
_LETTERS_DASH_DIGITS_RE = re.compile(r"[A-Z]+-\d+")


@lru_cache(maxsize=16384)
def stems(text: str) -> frozenset[str]:
    """Every stem of `text`, plus the parts of hyphenated or dotted tokens (`eu-west-2` also gives `west`).
    Memoised: a warm server scores the same lines for every question and every part."""
    out: set[str] = set()
    for tok in tokens(text):
        out.add(stem(tok))
        ordinal = _ORDINAL_RE.match(tok)
        if ordinal:
            out.add(ordinal.group(1))  # "the 15th" says the day "15 September" says
        if "-" in tok or "." in tok:
            out.update(stem(p) for p in re.split(r"[.\-]", tok) if p)
        if "-" in tok and tok.replace("-", "").isalpha():
            out.add(stem(tok.replace("-", "")))  # "Wi-Fi" says the asker's "wifi", "e-mail" their "email"
        elif _LETTERS_DASH_DIGITS_RE.fullmatch(tok):
            out.add(tok.replace("-", "").casefold())  # "SEV-2" says the asker's "sev2", "COVID-19" their "covid19"
    return frozenset(out)


@dataclass(frozen=True)
class Term:
    word: str  # as written in the question
    stem: str
    name: bool  # capitalised inside the question: a name of something
    figure: bool  # holds a digit (Q1, 2026, 4.0): must be matched exactly
    weight: float = 1.0
    common: bool = False  # in at least COMMON_SHARE of the reader's fragments: the wiki's recurring subject
    proper: bool = False  # a proper name (Hull, Asia, ResolutionTooDeep, a known entity): a constraint when rare
    everywhere: bool = False  # in at least EVERYWHERE_SHARE of the reader's fragments ("pip" in pip's docs)
    option: bool = False  # typed as a command-line option ("--debug"): said only with its dashes
    absent: bool = False  # a plain word no fragment of the reader's says: the asker's own word, or a typo
    initials: tuple[str, ...] = ()  # the initialisms of the runs of question words it is in ("PR" for "pull requests")
    # A figure the asker brings, not a constraint: "example" (a pin's version, credited where a line says it, as a
    # word is) or "check" (the value a yes-or-no question puts to the wiki, which the answer may contradict); a name
    # said only in a remark after the question: "aside" (`motive`).
    claim: str = ""
    # The product a version figure is of ("python" for "python 2.7"): a line that names the product's major release
    # ("supported Python 2") says it, outside a yes-or-no question (`claimed`)
    series: str = ""
    # The same product, in any question: a line that bounds the product's releases ("On Python 3.10 or later", "On
    # Python 3.9 or earlier") speaks of every release of that major version and of any within the bound (series.py)
    bounded: str = ""

    @property
    def constraint(self) -> bool:
        """What a line must say, in itself or its context, to be about the question at all (select.word_score): a
        figure the question names, not one it puts to the wiki, or a rare proper name (Hull, Asia)."""
        return (self.figure and not self.claim) or (self.proper and not self.common and self.claim not in ("aside", "example"))


CALENDAR = frozenset("january february march april may june july august september october november december "
                     "monday tuesday wednesday thursday friday saturday sunday".split())
_PERIOD_RE = re.compile(r"^(?:q[1-4]|h[12]|fy\d{2}|" + "|".join(sorted(CALENDAR)) + r")$", re.I)
# A year: matched whole for a token, found anywhere in a text (select.openings).
YEAR_RE = re.compile(r"(?<![\w.])(?:19|20)\d\d(?![\w.])")
_IDENT_RE = re.compile(r"(?<![\w-])--?[a-z][\w-]*(?:=[\w.-]+)?|\b[a-z]+(?:_[a-z0-9]+)+\b|\b[A-Z]+(?:_[A-Z0-9]+)+\b|"
                       r"\b[A-Za-z]\w*\.[a-z_]\w*\(\)")
_SLOT_NOUNS = frozenset("date day time year month".split())
WAY_WORDS = frozenset("best right easiest quickest simplest fastest recommended proper correct preferred".split())
_EDGE_WORDS = frozenset("closed closes ended ends finished began started opened".split())
# "a machine-wide pip.ini": what a configuration calls global
_GLOBAL_RE = re.compile(r"^(?:machine|system|computer|server|site)-wide$", re.I)
_SUFFIXED_RE = re.compile(r"^([A-Za-z][\w.]{2,})-(?:wide|based|only|specific|related|level|scoped)$", re.I)
# A person the question has named already, or a name the answer gives: never a word a line must say (pronouns.py reads
# the same words as a subject to resolve)
PERSONAL = frozenset("he she him her his hers they them their theirs".split())
# "with a capital P": the letter itself, as written, not a label named by it.
_LETTER_CASE = frozenset("capital lowercase uppercase small big letter".split())


# A month as people type it short ("15th of sept", "end of feb"); "mar" and "may" are as often other words.
MONTH_SHORT = {"jan": 0, "feb": 1, "apr": 3, "jun": 5, "jul": 6, "aug": 7, "sep": 8, "sept": 8, "oct": 9,
               "nov": 10, "dec": 11}


def month_index(tok: str) -> int | None:
    """0-11 for a month named in full or typed short ("sept"), else None."""
    low = tok.casefold().rstrip(".")
    return MONTH_NAMES.index(low) if low in MONTH_NAMES else MONTH_SHORT.get(low)


def _periods(toks: list[str]) -> list[str]:
    """A period and its year are one figure: "Q4 2026" must be said together, not "Q4" of 2025 beside 2026; so
    is a month and its year ("the end of june 2025": not the cash of Q4 2025 beside a June)."""
    out: list[str] = []
    for tok in toks:
        if out and YEAR_RE.fullmatch(tok) and _PERIOD_RE.match(out[-1]) and any(ch.isdigit() for ch in out[-1]):
            out[-1] = f"{out[-1]} {tok}"
        elif out and YEAR_RE.fullmatch(tok) and month_index(out[-1]) is not None:
            out[-1] = f"{MONTH_NAMES[month_index(out[-1]) or 0]} {tok}"
        else:
            out.append(tok)
    return out


def period_forms(figure: str) -> tuple[str, ...]:
    """The ways a line writes a two-word period figure, folded: "june 2025" is also "jun 2025", "q2 2025" and
    "2025 06" (an ISO month, its hyphen folded); any other ("q4 2026") only itself."""
    first, _, year = figure.partition(" ")
    if first not in MONTH_NAMES:
        return (figure,)
    n = MONTH_NAMES.index(first)
    shorts = [k for k, v in MONTH_SHORT.items() if v == n]
    # "the headcount goal for dec 2026": "growth to 68 people by end of 2026" (the year's end is its December)
    ends = (f"end of {year}", f"year end {year}", f"end of year {year}") if n == 11 else ()
    return (figure, *(f"{k} {year}" for k in shorts), f"q{n // 3 + 1} {year}", f"{year} {n + 1:02d}", *ends)


def _near_month(toks: list[str], i: int) -> bool:
    """Whether the ordinal at `i` is a day: a month within two words of it ("15th of sept", "sept 15th"), or a day
    of a month left unsaid ("on the 15th", "by the 3rd", "the 22nd of")."""
    if any(month_index(t) is not None for t in toks[max(0, i - 2) : i + 3] if t is not toks[i]):
        return True
    low = [t.casefold() for t in toks]
    return (i + 1 < len(low) and low[i + 1] == "of") or (
        i >= 2 and low[i - 1] == "the" and low[i - 2] in _DAY_PREPOSITIONS)


_DAY_PREPOSITIONS = frozenset("on by until till before after from since".split())


# Words that say how to answer, not what: "what kicked it off in the first place", "root cause in a sentence".
_FILLER_RE = re.compile(r"\b(?:in the first place|in (?:a|one) (?:sentence|line|word|nutshell)|in short|in brief|"
                        r"tl;?dr|in plain (?:terms|english|words)|"
                        # how the asker opens or excuses the question: "quick q:", "sorry, who is 'Tomek' on slack?
                        # never met him"
                        r"(?:quick|dumb|silly|stupid|random) (?:q|qn|question)\b|sorry|"
                        r"(?:i'?ve |i have )?never (?:met|heard of|worked with) (?:him|her|them)|"
                        # "think i found a security bug, how do i report it": how sure the asker is ("when does
                        # greywater think we should start" asks what someone thinks)
                        r"(?:^\W*|\bi )(?:think|guess|believe|suspect)(?: that)?(?= i\b| we\b| it\b| there\b| this\b))",
                        re.I)
# A placeholder the asker types for any package or name ("`pip install X`", "pip show Y"), not a label to find.
_PLACEHOLDER_RE = re.compile(r"(?:`[^`]*\b[XYZN]\b[^`]*`|\b(?:install|uninstall|download|show|wheel|package|pkg|module|"
                             r"import)\s+[XYZN]\b)")


def question_terms(question: str) -> list[Term]:
    out: list[Term] = []
    seen: set[str] = set()
    question = _FILLER_RE.sub(" ", question)
    placeholders = {t for m in _PLACEHOLDER_RE.finditer(question) for t in re.findall(r"\b[XYZN]\b", m.group(0))}
    # "one Lanternfish-wide key", "a machine-wide pip.ini": the word and how far it reaches, which a line says in its
    # own words ("per customer", "global"); the word alone is what the question names
    toks = [_SUFFIXED_RE.sub(r"\1", _GLOBAL_RE.sub("global", t)) for t in _periods(tokens(question))]
    # An option, a setting or an identifier names one thing exactly ("--use-deprecated=out-of-tree-build",
    # "PIP_CONFIG_FILE", "Configuration.items"): a line that does not say it is about something else.
    # An option given a value ("--upgrade-strategy=to-satisfy-only") names the value exactly; the option's name is
    # said by the list or heading the value sits under as often as by the value's own line.
    code = {t.casefold() for m in _IDENT_RE.finditer(question) for t in tokens(m.group(0).partition("=")[2] or m.group(0))}
    # "I used to rm -rf ~/.cache/pip/http": a shell command's own words, which no page of the wiki need say
    shell = {t.casefold() for m in _SHELL_RE.finditer(question) for t in tokens(m.group(0))}
    # "--debug" is the option, not the `pip debug` command nor debugging: a page titled "pip debug" does not say it.
    options = {tokens(m.group(0))[0].casefold() for m in _IDENT_RE.finditer(question) if m.group(0).startswith("-")}
    for i, tok in enumerate(toks):
        low = tok.casefold()
        # A capital letter alone inside a question is a label ("the O prefix", "plan B"), not a stray letter: a
        # constraint like a rare proper name, so the line must say it ("O - Operating System"). "I" is the asker;
        # "a capital P" is the letter itself.
        letter = (len(tok) == 1 and tok.isalpha() and tok.isupper() and tok != "I" and i > 0
                  and toks[i - 1].casefold() not in _LETTER_CASE and tok not in placeholders
                  # "Hannah L — which city": a capitalised first name's initial of the surname, which the line
                  # spells out ("Hannah Lindqvist"); "plan B", "the O prefix" follow a lower-case word
                  and not (toks[i - 1].isalpha() and len(toks[i - 1]) >= 3 and toks[i - 1].istitle()))
        if (low in STOPWORDS and not letter) or (len(low) < 2 and not low.isdigit() and not letter) or low in shell:
            continue
        if low in PERSONAL and i:
            continue  # "Hannah L — which city does she work out of": whom the asker means, which the line names
        if i and toks[i - 1].casefold() == "how" and low in HOW_WORDS:
            continue  # "how long", "how late": the slot, not what the line must say
        if low == "back" and _BACK_THEN_RE.match(" ".join(toks[i + 1 : i + 3])):
            continue  # "back in 10.0", "back in may", "back then": when, which the figure or period says
        if low in _SLOT_NOUNS and (not i or toks[i - 1].casefold() in ("what", "which")):
            # "what date did it ship", "date of the next board meeting?": the slot again ("2 June" never says "date")
            continue
        if low in ("week", "month", "year") and [t.casefold() for t in toks[max(0, i - 3) : i]] == ["day", "of", "the"]:
            continue  # "what day of the week": the slot too ("Thursday" never says "week")
        if low in _EDGE_WORDS and i and (_PERIOD_RE.match(toks[i - 1].split()[0]) or YEAR_RE.fullmatch(toks[i - 1])):
            continue  # "when Q2 closed": the period's edge, which a figure for the period answers ("Q2 2026: 56")
        if low == "end" and i >= 2 and [t.casefold() for t in toks[i - 2 : i]] == ["in", "the"] and (
                i + 1 == len(toks) or toks[i + 1].casefold() != "of"):
            continue  # "what was Q2 revenue in the end": finally, not the end of anything ("at the end of Q2")
        if (low == "way" and i + 1 < len(toks) and toks[i + 1].casefold() == "to") or (
                low in WAY_WORDS and i + 1 < len(toks) and toks[i + 1].casefold() == "way"):
            continue  # "what's the best way to ask grace": how, which the answering line says in its own words
        if low == "since" and i + 1 < len(toks) and toks[i + 1].casefold() in ("which", "what", "when"):
            continue  # "since which version": the slot too ("New in version 22.3" never says "since")
        ordinal = _ORDINAL_RE.match(tok)
        # "the 15th of sept" is a day; "the 2nd gen gateway", "a 3rd party lib" name a kind of thing, which a
        # line says in other words ("Beacon G2", "a separate package"): a plain word, no figure to find.
        plain = bool(ordinal) and not _near_month(toks, i)
        s = " ".join(fold(tok).split()) if " " in tok else ordinal.group(1) if ordinal and not plain else stem(tok)
        if s in seen:
            continue
        seen.add(s)
        figure = any(ch.isdigit() for ch in tok) and not plain
        # The first word of a question is capitalised by grammar, not because it names something; a month is a
        # month however it is typed ("in Sept", "the 3rd of Aug" are said by "September", "August" as the lowercase
        # forms are), not a rare name no line writes.
        name = not figure and tok[:1].isupper() and i > 0 and month_index(low) is None
        # Titlecase or CamelCase, not an acronym (CI, PEP, ARR name a kind of thing as often as one thing).
        # An acronym's plural ("URLs", "APIs") is an acronym too.
        proper = name and len(tok) >= 3 and not tok.isupper() and tok[1:] != tok[1:].upper() and low not in CALENDAR and not (
            tok.endswith("s") and tok[:-1].isupper())
        proper = proper or (low in code and not figure) or letter
        out.append(Term(tok, s, name, figure, proper=proper, option=low in options and not figure))
    # "what happens if i pick (b)", "picking w": a prompt's choice, labelled "(b)ackup" where the docs explain it
    # "pip asks what to do … one choice is (b)": a letter in brackets, where the question speaks of a prompt's choices
    labelled = list(_LABEL_RE.finditer(question)) if _CHOICES_SAID_RE.search(question) else []
    for m in [*_PICKED_RE.finditer(question), *_OPTION_LETTER_RE.finditer(question), *labelled]:
        bare = m.group(2) if m.re is _PICKED_RE else m.group(1) or m.group(2)
        if bare and bare.casefold() in "ai" and re.match(r"\s+\w", question[m.end():]):
            continue  # "if i type a name", "--target a folder": the article, not the choice
        label = f"({(m.group(1) or m.group(2)).casefold()})"
        if label not in seen:
            seen.add(label)
            out.append(Term(label, label, False, False, proper=True))
    # "what does the ~= operator mean", "pin everything with ==": a version operator typed alone is what the question
    # is about, said as it is typed; one inside the asker's example pin ("requests==2.31") is only a word of it
    for m in OPERATOR_RE.finditer(question):
        if m.group(0) not in seen:
            seen.add(m.group(0))
            alone = not re.match(r"[\w.*]", question[m.end() : m.end() + 1]) and not re.search(r"\w$", question[: m.start()])
            out.append(Term(m.group(0), m.group(0), False, False, proper=alone))
    return out


_SHELL_RE = re.compile(r"(?<![\w-])(?:sudo\s+)?(?:rm|cp|mv|ls|chmod|chown|mkdir|rmdir|du|cat|tar|curl|wget|grep|find)"
                       r"(?:\s+-{1,2}[a-z][\w-]*)+(?![\w-])", re.I)
# "--exists-action b : what does 'b' do": the letter given to an option, or quoted alone, is a prompt's choice
_OPTION_LETTER_RE = re.compile(r"(?:--[\w-]+[ =]([a-z])|['‘\"“]([a-z])['’\"”])(?![\w(/])", re.I)
_LABEL_RE = re.compile(r"(?<![\w(])\(([a-z])\)()(?![\w(/])", re.I)  # (the empty group: read as the others are)
_CHOICES_SAID_RE = re.compile(r"\b(?:choices?|options?|prompts?|asks?|asked|asking|menu)\b", re.I)
_BACK_THEN_RE = re.compile(r"(?:then\b|in (?:\d|v\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|the day\b|q\d))",
                           re.I)
_PICKED_RE = re.compile(r"\b(?:pick(?:s|ed|ing)?|choos(?:e|es|ing)|chose|answer(?:s|ed|ing)?|press(?:es|ed|ing)?|hit(?:ting)?|"
                        r"select(?:s|ed|ing)?|typ(?:e|es|ed|ing)|enter(?:s|ed|ing)?)\s+(?:option\s+)?(?:\(([a-z])\)|([a-z]))"
                        r"(?![\w(/])", re.I)


# A figure given as an example: a pin's version ("requests==2.31", "something like foo[extra]==1.2", "a pin like
# ~=3.1.2"), which the docs explain with their own.
_PIN_RE = re.compile(r"(?:[=~<>!]=|===)\s*([\w.*+!-]+)")
# A value, not a name with a digit in it ("md5", "G2", "utf-8"): a figure first, or after a hyphen ("under-2-minute").
_VALUE_RE = re.compile(r"(?:^|-)[£$€]?[0-9]")
WH_RE = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)


# "a version number like 24.3", "e.g. 3.12": an example the asker makes up, which the docs explain with their own.
_LIKE = r"\b(?:like|e\.g\.?|eg|say|such as)\s+"  # what the asker's example follows
_LIKE_RE = re.compile(_LIKE + r"v?(\d[\w.]*\w)", re.I)
_LIKE_MORE_RE = re.compile(_LIKE + r"v?\d[\w.]*\w((?:\s*(?:,|or|and|/)\s*v?\d[\w.]*\w)+)", re.I)
# "pip options like --index-url", "a python lib like pygit2": an option or a name the asker gives as one of a kind,
# which the line that answers for the kind need not name.
_LIKE_THING_RE = re.compile(_LIKE + r"[`'\"]?(--?[a-z][\w-]*|[a-z][\w.-]*\d[\w.-]*)", re.I)
_VAR_REFERENCE_RE = re.compile(r"(?:\$\{?|%)([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+)\}?%?")
# A measure typed with its unit ("3gb", "40-char", "500mb"), and what a number the asker gives is the number of.
_OWN_MEASURE_RE = re.compile(r"\d+(?:\.\d+)?-?(?:[kmgt]i?b|bytes?|k|ms|s|secs?|mins?|h|hrs?|chars?|characters?|lines?|"
                             r"digits?|px|x)", re.I)
_OWN_ID = r"(?:\bissues?|\bprs?|\bpull requests?|\btickets?|\bbugs?|#)"
_EXPECTED_RE = re.compile(r"\b(?:expect\w*|supposed to|plan(?:ned|s)?|scheduled|due|promised|meant to|targett?ed|forecast\w*|"
                          r"estimated)\b[^.?!;,]*", re.I)
# "the may call said 412", "I remember it being 14% or so": a figure the asker recalls, which the answer may correct
_SAID_RE = re.compile(r"\b(?:said|says|showed|shows|listed|lists|quoted|quotes|stated|states|mentioned|mentions|reported|"
                      r"reports|claimed|claims|remember|remembered|recall|recalled|thought)\s+(?:it\s+(?:was|is|'s|"
                      r"being|as)\s+|about\s+|around\s+|roughly\s+)?([£$€]?\d[\w.,]*\w|\d)", re.I)
_NOW_RE = re.compile(r"\b(?:now|currently|today|these days|nowadays|any ?more|at the moment|at present)\b", re.I)
# … or a date or figure asked again in doubt of it ("the blog says the 16th but … what day did it actually go GA?")
# "what did we actually book", "when did it really happen": what came to pass, against what was said or planned
DOUBT_RE = re.compile(r"\b(?:actually|actual|really|in fact|truly|in the end|in reality)\b", re.I)
# … or the figure it came to in the end ("had ~2k pilot shipments; what was the final number", "was like 14% of ARR
# at end of last year - what's the most recent share")
_SETTLED_RE = re.compile(r"\b(?:final|finally|in the end|ended up|end up|eventually|most recent|latest|newest)\b", re.I)
_WHICH_ONE_RE = re.compile(r"\bwhich (?:one|ones|of (?:them|the two|these|those))\b", re.I)
_CLAUSE_END_RE = re.compile(r"[.,;:!—–-]\s*$")
_MAJOR_OF_RE = re.compile(r"\b([a-z][\w-]*)\s+v?(\d{1,3})\b(?![.\d%])", re.I)
_VERSION_OF_RE = re.compile(r"\b([a-z][\w-]*)\s+v?(\d+\.\d+(?:\.\d+)*)\b(?![.\d%])", re.I)


MOTIVE_WEIGHT = 0.5  # a word of the asker's motive, which the answering line need not say
# The asker recalling what they had, heard or were told: "I remember …", "I had 412 in my notes" (and, by _SAID_RE,
# what a report said: "the draft said 58")
_RECALLED_RE = re.compile(r"\b(?:i|we)\s+(?:remember(?:ed)?|recall(?:ed)?|thought|had|heard|saw|read|noted|wrote down|"
                          r"(?:was|were) told)\b", re.I)
# A remark that opens a clause with an auxiliary asks too ("wasn't it the end of may", "did that change").
_ASKING_OPEN_RE = re.compile(r"(?:^|[.!;:,]\s)\s*(?:and|also|or|but|so)?\s*(?:" + "|".join(AUX) + r")(?:n['’]?t)?\b|"
                             r"(?:^|[.!;:,]\s)\s*can['’]?t\b", re.I)


def without_motive(text: str) -> str:
    """The question up to its question mark when what follows it is a remark that asks nothing (`motive`)."""
    at = text.rfind("?")
    tail = text[at + 1 :] if at >= 0 else ""
    if len(tail.split()) < 2 or WH_RE.search(tail) or _ASKING_OPEN_RE.search(tail):
        return text
    return text[: at + 1]


# "sending a calendar invite to tomek, what's his full surname": what the asker is doing, before what they ask
# ("need to email Sam from the hardware lab, …"), and before a case the question puts ("for a customer call tomorrow —
# if their G2 box loses mains power, how long …")
_SITUATION_RE = re.compile(r"^\s*(?:[a-z]+ing|for|before|while|prepping|prep|(?:i )?(?:need|want|have|got) to|"
                           r"(?:i |we )?just [a-z]+ed|"
                           # who asks ("pharma prospect asking: do you store patient data?")
                           r"(?:[\w'-]+\s+){1,4}(?:" + "|".join(ASKING_VERBS) + r"))\b"
                           r"[^?,;:—–]{0,80}?(?:,|;|:|\s[—–-])\s*"
                           r"(?=(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|did|do|can|will|"
                           r"if)\b)", re.I)


# A guess put after the question ("… - was it tomek?", "…, or was it Sam?", "… is it Maya?").
_GUESS_RE = re.compile(r"(?:,|\s[-—–])\s*(?:or\s+)?(?:was|is)\s+it\s+(?:really\s+|actually\s+)?([\w .'-]{2,40}?)\s*\??\s*$",
                       re.I)


def motive(terms: list[Term], text: str) -> list[Term]:
    """ "where does pip stash its download cache? want to clear some disk space": a remark after the question mark
    that asks nothing says why the question is asked; its own words weigh half, since the line that answers speaks of
    the cache, not of disk space. So does what the asker says they are doing before the question ("sending a calendar
    invite to tomek, …"). A figure or a name in it keeps its weight (a claim to check, a hint)."""
    guess = _GUESS_RE.search(text)
    if guess:
        # "who actually led driftwood - was it tomek?": the asker's guess, a name the answer may confirm or correct
        guessed = {stem(w) for w in tokens(guess.group(1))} - {stem(w) for w in tokens(text[: guess.start()])}
        terms = [replace(t, claim="aside") if t.stem in guessed and t.proper and not t.figure and not t.claim else t
                 for t in terms]
    asking = without_motive(text)
    situation = _SITUATION_RE.match(asking)
    if situation and len(asking[situation.end() :].split()) < 3:
        situation = None  # "for a clean CI job i want pip to not read any config files, how?": the clause asks
    if asking == text and not situation:
        return terms
    remark = text[len(asking) :]
    said = remark + (" " + situation.group(0) if situation else "")
    asking = asking[situation.end() :] if situation else asking
    only = {stem(w) for w in tokens(said)} - {stem(w) for w in tokens(asking)}
    # "… in the end? I remember a number around 2.4M", "… now? I had 412 in my notes": what the asker recalls of an
    # earlier figure says nothing the answering line must (the figure itself stays a claim to check)
    weight = 0.0 if _RECALLED_RE.search(said) or _SAID_RE.search(said) else MOTIVE_WEIGHT
    # "when did the g2 stock actually show up in leeds? sam was hoping for early aug": a name said only in the remark
    # after the question says who hoped or who asks, not what the answering line is about (a hint, no constraint)
    after = {stem(w) for w in tokens(remark)} - {stem(w) for w in tokens(asking)}
    return [replace(t, weight=t.weight * weight) if t.stem in only and not (t.figure or t.name) else
            replace(t, claim="aside") if t.stem in after and t.proper and not t.figure and not t.claim else t
            for t in terms]


def _of_asked_kind(t: Term, toks: list[str], kind: str) -> bool:
    """Whether `t` is a value of the kind a date or quantity question asks: a day, or the month beside it ("the 15th of
    sept", which is then the date the asker was told), for a date; a figure that is no day of a month, for a
    quantity ("how long did the outage on 19 august last": the day says which outage, it is not the asker's
    guess at the answer)."""
    at = [i for i, tok in enumerate(toks) if tok == t.word]
    day = any(_near_month(toks, i) for i in at)
    if kind == "date":
        return (t.figure and day) or month_index(t.word) is not None
    return t.figure and not day and not (" " in t.stem or _PERIOD_RE.match(t.stem) or YEAR_RE.fullmatch(t.stem)) and \
        bool(_VALUE_RE.search(t.word))


def claimed(terms: list[Term], text: str, kind: str) -> list[Term]:
    """The terms, a figure the asker brings marked a claim: an example's version (`_PIN_RE`), and in a question
    that asks for a yes or no ("did it ship on the 15th?", "norrland still on 412 gateways?") every value but a
    period or a year; a name with a digit ("md5", "G2") stays what the question is about. The line that answers
    may give another figure ("No: 22 September", "455 gateways now"), so such a figure is credited where a line
    says it and required of none. A period or a year ("Q2 2026", "2025") stays the constraint it is: it says
    which figure is asked about, as does the version of a thing it names ("on python 3.9 will pip …")."""
    examples = {stem(m.group(1)).strip(".") for m in _PIN_RE.finditer(text)}
    examples |= {stem(m.group(1)).strip(".") for m in _LIKE_RE.finditer(text)}
    # "look like 24.2 or 25.1": every example the asker lists
    examples |= {stem(x).strip(".") for m in _LIKE_MORE_RE.finditer(text) for x in re.findall(r"\d[\w.]*\w", m.group(1))}
    kind_examples = {stem(m.group(1).lstrip("-")) for m in _LIKE_THING_RE.finditer(text)}
    # "can i write $MY_TOKEN or %MY_TOKEN% in requirements.txt": a variable of the asker's own, referenced as a shell
    # would, which the docs show with one of theirs ("${API_TOKEN}")
    kind_examples |= {stem(m.group(1)) for m in _VAR_REFERENCE_RE.finditer(text)}
    # "… now? the may call said 412": a figure the asker says an earlier report gave, which the answer may correct
    reported = {stem(m.group(1)).strip(".") for m in _SAID_RE.finditer(text)}
    # "on python 3.9 will pip …": the version of a thing the question names says which case is asked about.
    of = {m.group(2): m.group(1).casefold() for m in _VERSION_OF_RE.finditer(text) if m.group(1).casefold() not in STOPWORDS}
    versions = set(of)
    majors = {w.split(".")[0]: s for w, s in of.items()}
    # "im on pip 23": a major release of a thing the question names
    released = {m.group(2): m.group(1).casefold() for m in _MAJOR_OF_RE.finditer(text)
                if m.group(1).casefold() not in STOPWORDS}
    # "windows 10 - where should my personal pip.ini live": the asker's own release of their system, which the docs
    # that answer for every release never name; still what a yes-or-no question asks about ("does pip run on win 7")
    if kind != "yesno":
        examples |= {stem(m.group(1)) for m in platforms.RELEASE_RE.finditer(text)}
    confirm = kind == "yesno" or (kind == "value" and not WH_RE.search(text))
    # "PIP_TIMEOUT=30 … but my pip.conf says timeout = 60. which one does pip go with": the asker's own settings,
    # which the line that says which prevails need not repeat
    choosing = bool(_WHICH_ONE_RE.search(text))
    # "sam was expecting the stock by 3 aug - when did it actually turn up?": the date that was expected is the
    # one the answer may correct, not the one it must say.
    expected = " ".join(m.group(0) for m in _EXPECTED_RE.finditer(text)) if kind == "date" else ""
    # "norrland had 412 gateways back in may, how many do they run now?": a figure said before a question about
    # what holds now is the earlier state, which the answer may correct
    wh = WH_RE.search(text)
    asking = text[wh.start() :] if wh else ""
    before = text[: wh.start()] if wh and (_NOW_RE.search(asking) or (kind in ("date", "quantity") and (
        DOUBT_RE.search(asking) or _SETTLED_RE.search(asking)))) and _CLAUSE_END_RE.search(text[: wh.start()]) else ""
    # "how many gateways does norrland run now? I had 412 in my notes": in a question that asks for a figure or a
    # date, one of that kind the asker states after the question, in a remark that asks nothing, is what they
    # believe or were told, which the answer may correct
    aside = text[len(without_motive(text)) :] if kind in ("date", "quantity") else ""
    toks = tokens(text) if aside or (before and kind == "date") else []
    out = []
    for t in terms:
        period = " " in t.stem or _PERIOD_RE.match(t.stem) or YEAR_RE.fullmatch(t.stem) or t.word in versions
        if t.word in of and re.fullmatch(r"\d+\.\d+", t.word):
            t = replace(t, series=of[t.word] if kind != "yesno" else "", bounded=of[t.word])
        elif t.figure and t.word.isdigit() and t.word in released:
            t = replace(t, bounded=released[t.word])  # "im on pip 23": "with pip v22.2 or later, you must opt in"
        elif t.figure and re.fullmatch(r"py\d\.\d+", t.word, re.I):
            t = replace(t, bounded="python")  # "pip on py3.12 now uses the OS trust store": "On Python 3.10 or later"
        elif t.figure and re.fullmatch(r"\d+\.\d+", t.word) and t.word.split(".")[0] in majors:
            t = replace(t, bounded=majors[t.word.split(".")[0]])  # "my python 3.9 venv … but the 3.11 one": Python's
        if t.figure and t.stem in examples:
            t = replace(t, claim="example")
        elif (t.option or t.proper or t.figure) and t.stem in kind_examples and kind in ("yesno", "procedure"):
            t = replace(t, claim="example")  # "can i put pip options like --index-url in a dependency group"
        elif t.figure and t.word.isdigit() and any(t.word in e.split(".") for e in examples if "." in e):
            t = replace(t, claim="example")  # "versions look like 24.2 - what does the 2 part mean": a piece of it
        elif t.figure and t.stem in reported and not period:
            t = replace(t, claim="check")
        elif t.figure and expected and not period and _VALUE_RE.search(t.word) and re.search(
                rf"(?<![\w.]){re.escape(t.word)}(?![\w.])", expected):
            t = replace(t, claim="check")
        elif before and t.figure and not period and _VALUE_RE.search(t.word) and re.search(
                rf"(?<![\w.]){re.escape(t.word)}(?![\w.])", before):
            t = replace(t, claim="check")
        elif any(clause and _of_asked_kind(t, toks, kind) and re.search(rf"(?<![\w.]){re.escape(t.word)}(?![\w.])", clause)
                 for clause in (aside, before if kind == "date" else "")):
            t = replace(t, claim="check")  # … and the month of a date told before ("the 15th of sept — when, actually")
        elif t.figure and t.absent and not period and (_OWN_MEASURE_RE.fullmatch(t.word) or re.search(
                rf"{_OWN_ID}\s*{re.escape(t.word)}(?![\w.])", text, re.I)):
            # "a cache eating like 3gb", "a full 40-char sha", "a PR for issue 4521": the asker's own measure or
            # number, which no page says; the docs explain the case with their own
            t = replace(t, claim="example")
        elif t.figure and choosing and not period and _VALUE_RE.search(t.word):
            t = replace(t, claim="example")
        elif t.figure and confirm and not period and _VALUE_RE.search(t.word):
            t = replace(t, claim="check")
        out.append(t)
    return out


def jargon(terms: list[Term], known: frozenset[str]) -> list[Term]:
    """A plain word no fragment of the reader's says (`absent`), typed without a vowel, and no whole word of the
    model's English vocabulary (vocabulary.known_words) is a term of art the wiki never names ("gpg"), not the asker's
    own word for something a line says otherwise ("mess", "plug", "tarball"): it is a rare proper name, a
    constraint, so "does pip verify gpg signatures" is not answered by a line about hashes. So is an acronym typed in
    capitals that no fragment writes ("does pip support NTLM auth for our corporate proxy": not a line about proxies;
    one that spells it out still says it, select._says). A typo of a word the evidence says ("relase") is still said
    by that word (select.misspelt)."""
    if not known:
        return terms
    return [replace(t, proper=True, common=False) if t.absent and not t.figure and t.word.isalpha() and (
        (t.name and _ACRONYM_RE.fullmatch(t.word)) or (not t.name and not _VOWEL_RE.search(t.word)
                                                      and not _english(fold(t.word), known))) else t for t in terms]


# A term of art typed in lower case is an acronym ("gpg", "npm", "ssh"): the asker's own English words the model's
# vocabulary lacks ("browse", "prod") have vowels.
_VOWEL_RE = re.compile(r"[aeiouy]", re.I)


def _english(word: str, known: frozenset[str]) -> bool:
    """A word of the vocabulary, or two of them run together ("tarball", "switchover": the asker's English for an
    archive, a cutover), each of at least three letters."""
    return word in known or any(word[:i] in known and word[i:] in known for i in range(3, len(word) - 2))


def weigh(store: IndexStore, terms: list[Term], layers: tuple[str, ...]) -> list[Term]:
    """Each term weighted by its inverse document frequency over the fragments of the reader's layers (a
    term in every fragment tells nothing; a term the reader's wiki never uses gets the highest weight, so
    that a question about it cannot be answered by its other words)."""
    if not terms:
        return []
    if not layers:
        return [replace(t, weight=1.0) for t in terms]
    n = store.fragment_count(layers) or 1
    out = []
    absent = []
    for t in terms:
        df = store.term_frequency(t.word, _DF_PROBE, layers)
        out.append(replace(t, weight=math.log(1 + n / (df + 0.5)), common=df >= COMMON_SHARE * n,
                           everywhere=df >= EVERYWHERE_SHARE * n))
        if df == 0 and not (t.figure or t.name):
            absent.append(len(out) - 1)
        elif df == 0 and (t.figure or (t.name and _ACRONYM_RE.fullmatch(t.word))):
            # the asker's own figure, if it is one (`claimed`), or an acronym the wiki never writes (`jargon`): weighed
            # as it is
            out[-1] = replace(out[-1], absent=True)
    # A plain word the reader's wiki never uses is the asker's own word ("the april ingestion *mess*", "who
    # *pulled the plug*"): no line can say it, so it weighs like the lightest word the wiki does use; the
    # meaning score carries it. (Names and figures keep their weight: they are what the question is about.)
    present = [t.weight for i, t in enumerate(out) if i not in absent]
    light = min(present) if present else None
    return [replace(t, absent=True, weight=light if light is not None else t.weight) if i in absent else t
            for i, t in enumerate(out)]


_ACRONYM_RE = re.compile(r"[A-Z]{2,5}")
_SPELL_WORD_RE = re.compile(r"[A-Za-z][\w'-]*")


def spelled_out(acronym: str, text: str) -> bool:
    """ "GA" is said by "generally available", "MKT" by "mean kinetic temperature": consecutive words of the
    line, none of them a stopword, whose initials spell the acronym the question typed in capitals."""
    if not acronym.isupper() or not _ACRONYM_RE.fullmatch(acronym):
        return False
    ws = _SPELL_WORD_RE.findall(text)
    n = len(acronym)
    want = acronym.casefold()
    for i in range(len(ws) - n + 1):
        run = ws[i : i + n]
        if "".join(w[0] for w in run).casefold() == want and all(
                len(w) >= 3 and w.casefold() not in STOPWORDS for w in run):
            return True
    return False
