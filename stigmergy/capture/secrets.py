"""Credentials never reach the wiki: detection with detect-secrets (Yelp's maintained rule set) and
redaction.

Every plugin the detector ships is used, with its own false-positive filters (templated values,
sequential strings, UUIDs, indirect references …). Lines are scanned as a configuration file would be,
so that `password: …` and `db_password=…` count as assignments, not just quoted ones. A finding is
(line, kind); the secret's value stays in memory only for redaction and is never printed.

The detector's generic rules (its keyword detector, the high-entropy strings and basic-auth URLs) are
judged by the words around the value, since prose is not configuration: documentation that shows how to
set a password is not a leak, and a person's note that gives one in a sentence is.

- A value counts only when it is shaped like a secret (`secret_shaped`: at least 8 characters mixing
  letters with digits or symbols, or a long high-entropy run; not a placeholder such as `secret`,
  `<token>`, `xxxx`, `${VAR}`, `changeme`, not a code reference, option, path or URL, and not one of the
  detector's own filtered shapes: templated, sequential, UUID, no letters).
- A high-entropy string counts only when a credential word (the keyword detector's deny list, plus
  `token`, `passphrase`, `api key` …) stands within a few words before it on its line.
- The same keyword context catches secrets given in a sentence, which the keyword detector (made for
  assignments) does not see: "the db password is Tr0ub4dor-3-horse", "use aws secret wJalr…".
- A line that says it is an example (`example`, `e.g.`, `sample`, `placeholder`, `dummy`, `fake`, `for
  instance`), or an interpreter prompt (`>>>`), holds examples, not credentials: generic findings there do not
  count. The format-specific rules (AWS, GitHub, Slack, Stripe, private keys, JWT …) count everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# Scanned as YAML: the keyword plugin then knows `key: value` and `key=value` assignments as well as
# quoted ones (as plain text it would only see `password = "…"`).
_SCAN_AS = "capture.yaml"
_PRIVATE_KEY = "Private Key"
_END_KEY = re.compile(r"-----END[ A-Z0-9]*PRIVATE KEY[ A-Z0-9]*-----|END (?:OPENSSH|SSH2|RSA|DSA|EC|PGP) PRIVATE KEY")
REDACTED = "[REDACTED {kind}]"


@dataclass(frozen=True)
class SecretFinding:
    line: int  # 1-based line of the scanned text
    kind: str  # the detector's secret type, e.g. "AWS Access Key"
    value: str  # kept for redaction only; never shown

    def __repr__(self) -> str:  # a finding must not print its secret by accident
        return f"SecretFinding(line={self.line}, kind={self.kind!r})"


# A public IP address is something the detector can flag, not a credential: meeting notes name servers.
NOT_CREDENTIALS = ("Public IP (ipv4)",)


@lru_cache(maxsize=1)
def _detector() -> tuple[Any, list[dict[str, str]], Any, Any, Any]:
    # Lazy: detect-secrets imports its whole plugin set (and requests), which `--help` must not pay for.
    from detect_secrets.core import scan
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import get_plugins, transient_settings
    from detect_secrets.util.code_snippet import get_code_snippet

    mapping: dict[str, Any] = get_mapping_from_secret_type_to_class()
    plugins = [{"name": cls.__name__} for kind, cls in mapping.items() if kind not in NOT_CREDENTIALS]
    return scan, plugins, transient_settings, get_plugins, get_code_snippet


def known_kinds() -> list[str]:
    """Every credential type the detector knows (its secret types but NOT_CREDENTIALS)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    return sorted(k for k in get_mapping_from_secret_type_to_class() if k not in NOT_CREDENTIALS)


# The detector's generic rules: their findings are judged by their context (see the module's docstring).
GENERIC_KINDS = frozenset({"Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String",
                           "Basic Auth Credentials"})
PROSE_KIND = "Secret Keyword"


@lru_cache(maxsize=1)
def _keyword_re() -> re.Pattern[str]:
    from detect_secrets.plugins.keyword import DENYLIST

    words = [*DENYLIST, "passphrase", "pass ?code", "token", "api[ _-]key", "access[ _-]key", "secret[ _-]key",
             "auth[ _-]token", "access[ _-]token", "client[ _-]secret", "credentials?"]
    return re.compile(r"(?i)(?<![a-z])(?:" + "|".join(words) + r")(?![a-z])")


# Words that say a line shows an example (not inside a host name: `git.example.com` is no such word).
_EXAMPLE_RE = re.compile(r"(?i)(?<![\w.@/-])(?:examples?|e\.g\.|eg\.|for instance|samples?|placeholders?|dummy|fake)"
                         r"(?![\w@/-]|\.\w)|^\s*(?:>>>|\.\.\.)\s")
_PLACEHOLDERS = frozenset({
    "secret", "secrets", "password", "passwd", "changeme", "change_me", "changeit", "example", "sample", "token",
    "mypassword", "yourpassword", "your_password", "password1", "password123", "letmein", "hunter2", "qwerty",
    "admin", "root", "test", "testing", "dummy", "foobar", "foo", "bar", "baz", "none", "null", "true", "false",
    "redacted", "hidden", "masked", "default", "value", "secret_key", "api_key", "apikey",
})
_TRIM = "\"'`.,;:!?)([]{}*"
_CODE_RE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?$|^[A-Za-z_]\w*\(.*\)$")
_SYMBOLS = set("!#$%&+/=?@^~|\\*")  # not '-', '_' or '.': hyphenated words and identifiers are no mix
_MARKUP_RE = re.compile(r"<[A-Za-z/!][^>]*>")


def secret_shaped(value: str) -> bool:
    """Whether a value found in a credential's context reads as a secret rather than a placeholder, a
    word, a code reference, an option, a path or a URL."""
    from detect_secrets.filters.heuristic import (
        is_not_alphanumeric_string,
        is_potential_uuid,
        is_sequential_string,
        is_templated_secret,
    )

    v = value.strip(_TRIM)
    if len(v) < 8 or len(v) > 400:
        return False
    low = v.casefold()
    if (low in _PLACEHOLDERS or set(low) <= {"x", "*", ".", "-", "#", "•"} or "<" in v or ">" in v
            or v.startswith(("-", "$", "/", "~", "%", "&", "#")) or "://" in v or _CODE_RE.match(v)
            or any(c.isspace() or c in "'\"()[]{}¶`," for c in v) or re.search(r"&#?\w+;", v)
            or _path_like(v)
            or is_templated_secret(v) or is_sequential_string(v) or is_potential_uuid(v) or is_not_alphanumeric_string(v)
            or re.fullmatch(r"(?i)(?:your|my|the|some)[-_]?\w+|x{3,}\w*|\w*x{4,}", v)):
        return False
    classes = sum((any(c.islower() for c in v), any(c.isupper() for c in v), any(c.isdigit() for c in v),
                   any(c in _SYMBOLS for c in v)))
    if classes >= 3 and any(c.isalpha() for c in v) and (any(c.isdigit() for c in v) or any(c in _SYMBOLS for c in v)):
        return True
    # Two kinds of character (hex, lower-case and digits): only a long, high-entropy run.
    return classes == 2 and len(v) >= 16 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v) \
        and _entropy(v) >= 3.0


def _path_like(v: str) -> bool:
    """A file path or a relative reference (`path123/bar.c`, `docs/setup`), not a key with slashes in it."""
    if not re.fullmatch(r"[\w.-]+(?:/[\w.-]+)+/?", v):
        return False
    return bool(re.search(r"\.[A-Za-z]{1,5}$", v)) or all(seg == seg.lower() for seg in v.split("/"))


def _entropy(value: str) -> float:
    import math
    from collections import Counter

    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


# A value after these names where a secret is kept ("the password is in 1Password", "from Vault"), not it.
_WHERE = frozenset({"in", "from", "via", "with", "using", "on", "at", "into", "by", "inside", "through", "see"})


def _in_context(line: str, start: int, value: str) -> bool:
    """A credential word within the six words before `value` (at `start`) on its line, and no sign that
    the line shows an example."""
    before = line[:start]
    previous = before.split()[-1].strip(_TRIM).casefold() if before.split() else ""
    if previous in _WHERE:
        return False
    window = " ".join(before.split()[-6:]) if before.strip() else ""
    rest = before + " " + line[start + len(value):]
    return bool(_keyword_re().search(window) or _keyword_re().search(value.split("=")[0] if "=" in value else "")) \
        and not _EXAMPLE_RE.search(rest)


def _judged(line: str, kind: str, value: str) -> bool:
    """Whether a generic rule's finding is a credential, judged by its shape and the words around it."""
    if kind not in GENERIC_KINDS:
        return True
    if not value:
        return False
    at = line.find(value)
    if _EXAMPLE_RE.search(line[:max(at, 0)] + " " + line[at + len(value):] if at >= 0 else line):
        return False
    if kind == "Basic Auth Credentials":
        return secret_shaped(value)
    if kind == "Secret Keyword":
        return secret_shaped(value)
    # A high-entropy string: only where a credential word stands before it.
    return at >= 0 and _in_context(line, at, value)


def _prose(line: str) -> list[str]:
    """Values a sentence gives as a credential: a secret-shaped word within six words after a credential
    word ("the db password is Tr0ub4dor-3-horse")."""
    if not _keyword_re().search(line) or _MARKUP_RE.search(line):
        return []  # markup is read as its readable text, which is scanned too
    out = []
    for m in re.finditer(r"\S+", line):
        word = m.group(0)
        value = word.strip(_TRIM)
        if "=" in value or ":" in value.rstrip(":"):
            value = re.split(r"[=:]", value, maxsplit=1)[-1].strip(_TRIM)
        if value and secret_shaped(value) and _in_context(line, m.start(), word):
            out.append(value)
    return out


# detect-secrets' rules are regular expressions that take time quadratic in a line's length on some
# inputs (a line of 50,000 backticks took 20 s): a line longer than WINDOW is scanned in windows of at
# most WINDOW characters that overlap by OVERLAP and end at a space where one is near, so the time is
# linear in the line and any credential up to OVERLAP characters (with the words before it) lies whole
# in one window; a whitespace-free run longer than that is cut, and its windows are scanned as parts.
WINDOW = 1024
OVERLAP = 256


def windows(line: str) -> list[str]:
    """`line` itself when short, else overlapping pieces of at most WINDOW characters covering it."""
    if len(line) <= WINDOW:
        return [line]
    out, start = [], 0
    while True:
        end = start + WINDOW
        if end >= len(line):
            out.append(line[start:])
            return out
        cut = line.rfind(" ", end - OVERLAP, end)
        end = cut if cut > start + OVERLAP else end
        out.append(line[start:end])
        nxt = line.find(" ", end - OVERLAP, end)
        start = nxt + 1 if nxt != -1 else end - OVERLAP


def find_secrets(text: str) -> list[SecretFinding]:
    """Credentials in `text`, in line order (one finding per line and kind)."""
    return find_secrets_each([text])[0]


def find_secrets_each(texts: Sequence[str]) -> list[list[SecretFinding]]:
    """`find_secrets` of each text, under one setup of the detector: each setup clears its caches and makes
    its plugins again, and a capture asks about three texts (the original, the readable text, the metadata)."""
    wanted = [i for i, text in enumerate(texts) if len(text.strip()) >= 8]  # shorter: no rule can match
    found: list[list[SecretFinding]] = [[] for _ in texts]
    if not wanted:
        return found
    scan, plugin_config, transient_settings, get_plugins, snippet = _detector()
    with transient_settings({"plugins_used": plugin_config}):
        plugins = [(plugin, _denylist(plugin)) for plugin in get_plugins()]
        for i in wanted:
            lines = texts[i].split("\n")
            out = found[i]
            for n, whole in enumerate(lines, 1):
                if len(whole) < 8 or not whole.strip():
                    continue
                seen: set[tuple[str, str]] = set()
                for line in windows(whole):
                    _scan(scan, plugins, snippet, lines, n, line, seen, out)
    return found


def _scan(scan: Any, plugins: Any, snippet: Any, lines: list[str], n: int, line: str, seen: set[tuple[str, str]],
          out: list[SecretFinding]) -> None:
    """The findings of line `n` (or a window of it, `line`) not already in `seen`, appended to `out`."""
    context = None
    for plugin, denylist in plugins:
        if denylist is not None and not any(regex.search(line) for regex in denylist):
            continue  # none of its expressions occurs in the line: the plugin would find nothing
        # The detector's own per-line scan and filters (scan.scan_line forces "eager" search,
        # which flags ordinary words as high-entropy strings, so the line scanner is used directly).
        for found in scan._scan_line(plugin=plugin, filename=_SCAN_AS, line=line, line_number=n,
                                     enable_eager_search=False, context=context or snippet(lines, n)):
            context = context or snippet(lines, n)
            if scan._is_filtered_out(required_filter_parameters=["context"], filename=_SCAN_AS,
                                     secret=found.secret_value, plugin=plugin, line=line, context=context):
                continue
            key = (found.type, found.secret_value or "")
            if key not in seen and _judged(line, found.type, found.secret_value or ""):
                seen.add(key)
                out.append(SecretFinding(n, found.type, found.secret_value or ""))
    for value in _prose(line):
        if not any(value == v or value in v or v in value for _, v in seen if v):
            seen.add((PROSE_KIND, value))
            out.append(SecretFinding(n, PROSE_KIND, value))


def _denylist(plugin: Any) -> tuple[re.Pattern[str], ...] | None:
    """Expressions one of which occurs in every line the plugin finds anything in, else None (scan every
    line). Most lines hold none, and asking them first skips the detector's per-plugin call machinery,
    which cost more than the matching: a chat export's credential check was a tenth of its capture
    (issue 24). Only for plugins whose analysis is the detector's own, checked by identity:
    - a RegexBasedDetector finds the matches of its `denylist`;
    - a high-entropy plugin, without eager search (see _scan), finds quoted strings (its `regex`);
    - the keyword plugin, without keyword_exclude, needs one of its DENYLIST words in every rule."""
    from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
    from detect_secrets.plugins.keyword import DENYLIST, KeywordDetector

    cls = type(plugin)
    if isinstance(plugin, RegexBasedDetector):
        if cls.analyze_line is not BasePlugin.analyze_line or cls.analyze_string is not RegexBasedDetector.analyze_string:
            return None
        patterns = tuple(plugin.denylist)
    elif isinstance(plugin, HighEntropyStringsPlugin):
        if (cls.analyze_line is not HighEntropyStringsPlugin.analyze_line
                or cls.analyze_string is not HighEntropyStringsPlugin.analyze_string):
            return None
        patterns = (plugin.regex,)
    elif isinstance(plugin, KeywordDetector):
        if (cls.analyze_line is not KeywordDetector.analyze_line or cls.analyze_string is not KeywordDetector.analyze_string
                or plugin.keyword_exclude is not None):
            return None
        patterns = (_keyword_words(tuple(DENYLIST)),)
    else:
        return None
    return patterns if all(isinstance(p, re.Pattern) for p in patterns) else None


@lru_cache(maxsize=1)
def _keyword_words(words: tuple[str, ...]) -> re.Pattern[str]:
    # Case-insensitive and unanchored: it matches wherever any of the keyword plugin's rules could.
    return re.compile("|".join(words), re.IGNORECASE)


def redact(text: str, findings: Iterable[SecretFinding]) -> str:
    """`text` with every word that holds a finding's value replaced by a marker (a word, not just the
    value: some rules report only a token's prefix, e.g. `ghp`), and a private key's whole block (the
    detector flags the BEGIN line only). Line numbers do not move."""
    lines = text.split("\n")
    for f in sorted(findings, key=lambda f: f.line):
        i = f.line - 1
        if not 0 <= i < len(lines):
            continue
        marker = REDACTED.format(kind=f.kind)
        if f.kind == _PRIVATE_KEY:
            end = next((j for j in range(i, len(lines)) if _END_KEY.search(lines[j])), len(lines) - 1)
            lines[i : end + 1] = [marker] + [""] * (end - i)
        elif f.value:
            lines[i] = re.sub(r"\S*" + re.escape(f.value) + r"\S*", _constant(marker), lines[i])
    return "\n".join(lines)


def _constant(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement that is `text` itself (never read for backslash escapes, as a string would be)."""
    return lambda _m: text
