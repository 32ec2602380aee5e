"""How well a line tells *how*: an option, a command to type, a way in, a named method or a step to take. The
`procedure` slot's fill (kind_fill.kind_fill hands it here)."""

from __future__ import annotations

import re

from stigmergy.answer.cues import (
    COMMAND_RE,
    DATA_RE,
    DONE_TO_RE,
    INSTRUCTS_RE,
    STANDARD_RE,
    WAY_IN_ASKED_RE,
    WAY_IN_RE,
)
from stigmergy.answer.terms import WAY_WORDS, stem, stems
from stigmergy.answer.values import Asked, is_new
from stigmergy.answer.which import CODE_RE, WEAK

# A command to type: at a prompt, or a module run by Python ("python -m pip lock -e .").
_INVOKE_RE = re.compile(r"^\s*(?:[$%>]\s+)?(?:python3?|py)(?:\s+-\w+)*\s+-m\s+\w+\s+\S", re.I)
# What runs a command rather than saying which: typed alone before a file the question names, it is no how.
_RUNNERS = frozenset("python python3 py pip pip3 -m".split())
_RUN_ASKED_RE = re.compile(r"\bhow (?:do|can|should) (?:i|we|you) (?:run|execute|launch|invoke|start)\b", re.I)
# Words in quotes ("Dependency Groups") name a thing, and so does a reStructuredText link's name ("from PyPI_"):
# neither is code to type.
_QUOTED_WORDS_RE = re.compile(r"[\"“][\w ]+[\"”]|[A-Za-z]+_")


# A version number alone ("only certifi is used on Python 3.9 or earlier") is no option, command or file to use.
_VERSION_ONLY_RE = re.compile(r"v?\d+(?:\.\d+)+")


# A bare name in code (`setuptools`, `requested`): no option, command, path or setting to use.
_BARE_NAME_RE = re.compile(r"`*[A-Za-z][A-Za-z0-9]*`*(?:'s)?")


# A tool's own command with its options ("pip install \ --dry-run --report - \ …"), or a git command typed alone ("git
# fetch upstream"): usage, shown.
_TOOL_COMMAND_RE = re.compile(r"^\s*pip3?\s+[a-z]+\b.*(?:\s-{1,2}\w|\s\\\s)|^\s*git\s+(?:fetch|pull|push|clone|checkout|switch|"
                              r"commit|add|rebase|merge|remote|branch|log|diff|status|reset|stash|tag|init|config|"
                              r"cherry-pick|bisect|restore)\b[^.!?]*$", re.I)


def is_command(text: str) -> bool:
    """The line is a command to type: at a prompt, a module run by Python, or pip with its options. It shows how a
    term is used; it says neither what the term is nor yes or no."""
    return bool(COMMAND_RE.match(text) or _INVOKE_RE.match(text) or _TOOL_COMMAND_RE.match(text))


# Whether one can do something, asked ("can my global pip install into it", "can i still …").
_ABILITY_ASKED_RE = re.compile(r"\bcan (?:i|we|you|one|my|our)\b", re.I)


def shows_how(command: str, q: Asked) -> bool:
    """Asked whether one can do something, the command does it with an option the question does not type (code's
    options are two characters or more: Python's "-m" that runs the tool is none)."""
    return bool(_ABILITY_ASKED_RE.search(q.text)) and any(
        m.group(0).startswith("-") and _new_option(m.group(0), q) for m in CODE_RE.finditer(command))


_CHECK_ASKED_RE = re.compile(r"\bhow (?:do|can|should|would|does|could) (?:i|we|you|they|one|[\w']+ \w+) (?:check|verify|"
                             r"confirm|validate|tell|know|prove|make sure)\b", re.I)
_BEST_WAY_ASKED_RE = re.compile(r"\b(?:" + "|".join(sorted(WAY_WORDS)) + r") way\b|\bhow (?:should|do) i best\b", re.I)
_PREFERS_RE = re.compile(r"\b(?:prefers?|preferred|would rather|likes? it best|asks? (?:that|people to|everyone to))\b",
                         re.I)


def how_fill(text: str, q: Asked, content: int) -> float:
    """How well `text` tells how to do what `q` asks; `content` is how many content words it says that the question
    does not."""
    if DATA_RE.match(text):
        return 0.0  # "get pip list output as json": '{ "version": "1", "installed": [ …' is what comes out, not how
    done = DONE_TO_RE.search(q.text)
    code = [m.group(0) for m in CODE_RE.finditer(text) if (is_new(m.group(0), q) or _new_option(m.group(0), q)) and not
            _QUOTED_WORDS_RE.fullmatch(m.group(0)) and not _VERSION_ONLY_RE.fullmatch(m.group(0))]
    if code and (len(text.split()) == 1 or not all(_BARE_NAME_RE.fullmatch(c) for c in code)):
        # an option, a command, a file: what "how do I…" is usually after; a file named alone
        # ("./downloads/numpy-1.9.2-cp34-none-win32.whl.", a listing's line) says nothing of how, and a package's bare
        # name ("Newer versions of `setuptools` will use `pip` …") names a thing, not what to type: read on
        return WEAK if len(text.split()) == 1 else 1.0
    if _CONFIG_RE.match(text) and _types_new(text, q):
        return 1.0  # "set a different timeout only for pip freeze in pip.conf": "[freeze] timeout = 10" is what to write
    if (COMMAND_RE.match(text) or _INVOKE_RE.match(text)) and (_RUN_ASKED_RE.search(q.text) or _types_new(text, q)):
        # "how do i make a lock file with pip": "python -m pip lock -e ." is what to type; "$ python
        # get-pip.py" types nothing the question does not name, unless it asks how to run it
        return 1.0
    if WAY_IN_ASKED_RE.search(q.text) and WAY_IN_RE.search(text) and content >= 2:
        return 1.0  # "how do i get into the office after 8pm": "the side door on Travessa do Carvalho is the only entrance"
    if (done or _CHECK_ASKED_RE.search(q.text)) and any(is_new(m.group(0), q) for m in STANDARD_RE.finditer(text)):
        # "how are payloads signed", "how do I check a webhook really came from us": "with HMAC-SHA256", a named method
        return 1.0
    if done and stem(done.group(1)) in stems(text) and content >= 2:
        return 1.0  # "how do i get my travel expenses approved": "Rory's finance team approves within five days"
    if not done and INSTRUCTS_RE.search(text) and not text.rstrip().endswith("?") and content >= 2:
        return 1.0  # "…; create an amendment instead": a step to take, in a document that is not about code
    if _BEST_WAY_ASKED_RE.search(q.text) and _PREFERS_RE.search(text) and content >= 2:
        # "whats the best way to ask grace an SRE question": "She prefers a written question in #sre to a direct
        # message" says which way
        return 1.0
    return WEAK if content >= 2 else 0.0


# A configuration file's lines: an INI section with its settings ("[freeze] timeout = 10"), or a setting alone
_CONFIG_RE = re.compile(r"^\s*(?:\[[\w. -]{1,40}\](?:\s+[\w.-]+\s*=\s*\S+)*|[a-z][\w.-]*\s*=\s*\S+(?:\s+[\w.-]+\s*=\s*\S+)*)\s*$")


def _types_new(command: str, q: Asked) -> bool:
    """The command types a word the question does not say, other than what runs it (python, -m, pip)."""
    said = q.text.casefold()
    typed = (w.strip(".,;:").casefold() for w in command.split())
    return any(t not in said and t not in _RUNNERS for t in typed if re.search(r"\w", t))


def _new_option(token: str, q: Asked) -> bool:
    """An option the question describes in words and the line spells ("in zsh": `--zsh`, "for my user only":
    `--user`): the option is how it is done. One the question spells itself ("what does --user do") is not new."""
    return token.startswith("-") and token.casefold() not in q.text.casefold()
