"""A file or a code span the question names ("is there a max line length for lines in requirements.txt", "which pip
release first shipped the `pip lock` command"): the page that answers is one that names it. Documentation holds
rules for many files; a line on the documentation conventions page ("Limit all lines to a maximum of 72
characters") is no rule for requirements.txt, though every word of the question but the file's name is on it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from stigmergy.repo.containment import contained_file

# A name with a dot and a short extension, not a version or a figure ("requirements.txt", "pip.conf", ".pypirc",
# "pyproject.toml"); a domain ("pypi.org") is a place, not a file.
_EXTENSIONS = r"txt|toml|cfg|ini|conf|json|ya?ml|lock|py|rst|md|in|sh|bat|ps1|pypirc|pth|whl|zip|gz"
_FILE_RE = re.compile(rf"(?<![\w.-])(\.?[A-Za-z][\w-]*(?:\.[\w-]+)*\.(?:{_EXTENSIONS}))(?![\w.-]*[\w-])", re.I)
_DOT_FILE_RE = re.compile(r"(?<![\w.-])(\.[a-z][\w-]{2,})(?![\w.])", re.I)  # ".pypirc", ".netrc"


_CODE_RE = re.compile(r"`([^`\n]{2,60})`")
_SHELL_WORDS = frozenset("export set setx echo cd source sudo env unset".split())


# ("like a `pip sdist`" is an example; "like `pip freeze` does" a comparison with a command that exists)
_EXAMPLE_BEFORE_RE = re.compile(r"\b(?:like\s+(?:a|an)|e\.g\.?|such as(?:\s+(?:a|an))?)\s+$", re.I)


def named(question: str) -> frozenset[str]:
    """The file names the question says, and what it quotes as code ("the `pip lock` command"), casefolded."""
    out = {m.group(1).casefold() for m in _FILE_RE.finditer(question)}
    # A command typed with the asker's own arguments ("`pip search requests`") is named by its first two words.
    # Not an option with the asker's own argument ("`-e ./mylib`") nor a shell line of their own ("`export
    # PIP_NO_CACHE_DIR=`"): the option is read as a term is, and the docs write such a line with their own names.
    # Nor a command given as an example of what the asker wishes existed ("is there a subcommand to build an sdist,
    # like a `pip sdist`?"): the page that answers says there is none, and never names it.
    spans = [m.group(1).split()[:2] for m in _CODE_RE.finditer(question)
             if not _EXAMPLE_BEFORE_RE.search(question[: m.start()])]
    out |= {" ".join(ws).casefold() for ws in spans if ws and not ws[0].startswith("-") and ws[0] not in _SHELL_WORDS}
    out |= {m.group(1).casefold() for m in _DOT_FILE_RE.finditer(question) if m.group(1).count(".") == 1}
    return frozenset(out)


@lru_cache(maxsize=256)
def file_named(name: str) -> re.Pattern[str]:
    """A file a word names without its extension ("get-pip" for "get-pip.py"), as a line writes it."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}\.(?:{_EXTENSIONS})\b", re.I)


@lru_cache(maxsize=256)
def kind_word(name: str) -> str:
    """The word a page calls a file the asker names by its usual name ("constraints" for "constraints.txt": "a
    constraints file"), or "" for anything else."""
    m = _FILE_RE.fullmatch(name)
    base = m.group(1).split(".")[0] if m else ""
    return base if base.isalpha() else ""


def pages_naming(files: frozenset[str], pages: Iterable[dict[str, Any]], root: Path | None = None) -> frozenset[str]:
    """The pages, as read for the answer, whose title or text says one of the commands named ("does `pip list
    --format=freeze` give the same info as `pip freeze`": `pip list`'s page says "Contrary to the ``freeze``
    command" and never "pip freeze"), or every one of `files` where a file is named: the page that answers names it
    ("can `pip lock` write a poetry.lock"). A page is read in pieces (one per fragment search found): the
    configuration page names `pip.conf` in one and `pip freeze` in another, and `pip install`'s page names
    requirements.txt in a piece search did not find; with `root`, the whole page (the reader's already: it is in the
    evidence) is read, within `MAX_PAGE_BYTES`."""
    said: dict[str, str] = {}
    for p in pages:
        said[p["path"]] = f"{said.get(p['path'], '')}\n{p.get('title', '')}\n{p.get('content', '')}".casefold()
    count: dict[str, int] = {}
    forms = {f: _spoken(f) for f in files}
    for path, text in said.items():
        if not all(any(x in text for x in forms[f]) for f in files) and root is not None:
            text = f"{text}\n{_whole_page(root, path)}"
        count[path] = sum(any(x in text for x in forms[f]) for f in files)
    if any(_FILE_RE.fullmatch(f) or _DOT_FILE_RE.fullmatch(f) for f in files):
        return frozenset(path for path, n in count.items() if n == len(files))
    return frozenset(path for path, n in count.items() if n > 0)


def _spoken(name: str) -> tuple[str, ...]:
    """A file's name as a page writes it: itself, and for a plain text file named by a word its kind in words
    ("requirements.txt": "requirements file", "requirement file"), as pip's pages say "Do not use quotes in
    requirement files"."""
    word = kind_word(name) if name.endswith((".txt", ".ini", ".cfg")) else ""
    return (name, f"{word} file", f"{word.removesuffix('s')} file") if word else (name,)


MAX_PAGE_BYTES = 2 * 1024 * 1024  # a page read whole to find a file's name: no more than this


def _whole_page(root: Path, path: str) -> str:
    """The casefolded text of a contained page file of at most `MAX_PAGE_BYTES`, else "" (resolved once)."""
    whole = contained_file(root, path)
    try:
        if whole is None or whole.stat().st_size > MAX_PAGE_BYTES:
            return ""
        return whole.read_bytes().decode("utf-8", "replace").casefold()
    except OSError:
        return ""
