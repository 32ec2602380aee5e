"""Credentials never reach the wiki: detection with detect-secrets (Yelp's maintained rule set) and
redaction.

Every plugin the detector ships is used, with its own false-positive filters (templated values,
sequential strings, UUIDs, indirect references …). Lines are scanned as a configuration file would be,
so that `password: …` and `db_password=…` count as assignments, not just quoted ones. A finding is
(line, kind); the secret's value stays in memory only for redaction and is never printed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
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


def find_secrets(text: str) -> list[SecretFinding]:
    """Credentials in `text`, in line order (one finding per line and kind)."""
    if len(text.strip()) < 8:  # shorter than any rule's match: skip the detector's per-call setup
        return []
    scan, plugin_config, transient_settings, get_plugins, snippet = _detector()
    lines = text.split("\n")
    out: list[SecretFinding] = []
    with transient_settings({"plugins_used": plugin_config}):
        plugins = get_plugins()
        for n, line in enumerate(lines, 1):
            if len(line) < 8 or not line.strip():
                continue
            context = None
            seen: set[tuple[str, str]] = set()
            for plugin in plugins:
                # The detector's own per-line scan and filters (scan.scan_line forces "eager" search,
                # which flags ordinary words as high-entropy strings, so the line scanner is used directly).
                for found in scan._scan_line(plugin=plugin, filename=_SCAN_AS, line=line, line_number=n,
                                             enable_eager_search=False, context=context or snippet(lines, n)):
                    context = context or snippet(lines, n)
                    if scan._is_filtered_out(required_filter_parameters=["context"], filename=_SCAN_AS,
                                             secret=found.secret_value, plugin=plugin, line=line, context=context):
                        continue
                    key = (found.type, found.secret_value or "")
                    if key not in seen:
                        seen.add(key)
                        out.append(SecretFinding(n, found.type, found.secret_value or ""))
    return out


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
