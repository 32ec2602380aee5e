"""YAML front matter: one canonical rendering and a strict splitter, shared by source and wiki pages."""

from __future__ import annotations

from typing import Any

import yaml

from stigmergy.errors import ContractError

DELIM = "---"


class _Dumper(yaml.SafeDumper):
    pass


def _str_repr(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    # Multi-line strings as block literals keep provenance readable on GitHub.
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_repr)

# libyaml's loader parses identically and is several times faster (lint parses every page).
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def render_yaml(meta: dict[str, Any]) -> str:
    return yaml.dump(
        meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )


def render_front_matter(meta: dict[str, Any]) -> str:
    return f"{DELIM}\n{render_yaml(meta)}{DELIM}\n"


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """(metadata, body, number of lines before the body). Refuses a page without front matter."""
    if not text.startswith(DELIM + "\n"):
        raise ContractError("page does not start with '---' front matter")
    end = text.find(f"\n{DELIM}\n", len(DELIM))
    if end < 0:
        raise ContractError("front matter is not closed with '---'")
    raw = text[len(DELIM) + 1 : end + 1]
    try:
        meta = yaml.load(raw, Loader=_Loader) if raw.strip() else {}
    except yaml.YAMLError as exc:
        raise ContractError(f"front matter is not valid YAML: {exc}") from exc
    if not isinstance(meta, dict):
        raise ContractError("front matter must be a mapping")
    body = text[end + len(DELIM) + 2 :]
    head_lines = text[: end + len(DELIM) + 2].count("\n")
    return meta, body, head_lines
