"""Question terms: tokens, Porter stems (the same stemmer family as the index's FTS5 `porter` tokenizer),
and how much each term tells, measured on the reader's own part of the index."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from stigmergy.answer.function_words import SPEED_WORDS
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
# ("how frequently", as "how often", asks a frequency: wh_slots.how_slot)
HOW_WORDS = frozenset("long far big large old often frequently fast high low small heavy tall wide deep".split()) | SPEED_WORDS
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
    if "," in text:
        # "per 1,000 shipments" says the asker's "per 1000 shipments": a figure with its thousands separators (not
        # one that would read as a year: "2,026 shipments" says nothing of 2026)
        out.update(j for m in _THOUSANDS_RE.finditer(text) if (j := _joined(m)) != m.group(0))
    return frozenset(out)


_THOUSANDS_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)")


def _joined(m: re.Match[str]) -> str:
    joined = m.group(0).replace(",", "")
    return m.group(0) if YEAR_RE.fullmatch(joined) else joined


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
    # said only in a remark after the question: "aside" (`asides.motive`).
    claim: str = ""
    # The product a version figure is of ("python" for "python 2.7"): a line that names the product's major release
    # ("supported Python 2") says it, outside a yes-or-no question (`asides.claimed`)
    series: str = ""
    # The same product, in any question: a line that bounds the product's releases ("On Python 3.10 or later", "On
    # Python 3.9 or earlier") speaks of every release of that major version and of any within the bound (series.py)
    bounded: str = ""

    @property
    def period(self) -> bool:
        """A period or a year ("q4 2026", "Q2", "2025"): which figure is asked about, not a figure asked."""
        return " " in self.stem or bool(PERIOD_RE.match(self.stem) or YEAR_RE.fullmatch(self.stem))

    @property
    def constraint(self) -> bool:
        """What a line must say, in itself or its context, to be about the question at all (select.word_score): a
        figure the question names, not one it puts to the wiki, or a rare proper name (Hull, Asia)."""
        return (self.figure and not self.claim) or (self.proper and not self.common and self.claim not in ("aside", "example"))


CALENDAR = frozenset("january february march april may june july august september october november december "
                     "monday tuesday wednesday thursday friday saturday sunday".split())
PERIOD_RE = re.compile(r"^(?:q[1-4]|h[12]|fy\d{2}|" + "|".join(sorted(CALENDAR)) + r")$", re.I)
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
        if out and YEAR_RE.fullmatch(tok) and PERIOD_RE.match(out[-1]) and any(ch.isdigit() for ch in out[-1]):
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


def near_month(toks: list[str], i: int) -> bool:
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
    # "the 2,140 pilot shipments": one figure, as a line's stems hold it (`stems`), not "2" and "140"
    question = _THOUSANDS_RE.sub(_joined, question) if "," in question else question
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
        country = tok == "US"  # "how many respondents were from the US": the country, not the asker's "us"
        if (low in STOPWORDS and not letter and not country) or (
                len(low) < 2 and not low.isdigit() and not letter) or low in shell:
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
        if low in _EDGE_WORDS and i and (PERIOD_RE.match(toks[i - 1].split()[0]) or YEAR_RE.fullmatch(toks[i - 1])):
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
        plain = bool(ordinal) and not near_month(toks, i)
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


WH_RE = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)


def jargon(terms: list[Term], known: frozenset[str]) -> list[Term]:
    """A plain word no fragment of the reader's says (`absent`), typed without a vowel, and no whole word of the
    model's English vocabulary (vocabulary.known_words) is a term of art the wiki never names ("gpg"), not the asker's
    own word for something a line says otherwise ("mess", "plug", "tarball"): it is a rare proper name, a
    constraint, so "does pip verify gpg signatures" is not answered by a line about hashes. So is an acronym typed in
    capitals that no fragment writes ("does pip support NTLM auth for our corporate proxy": not a line about proxies;
    one that spells it out still says it, saying.says). A typo of a word the evidence says ("relase") is still said
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
            # the asker's own figure, if it is one (`asides.claimed`), or an acronym the wiki never writes (`jargon`): weighed
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
