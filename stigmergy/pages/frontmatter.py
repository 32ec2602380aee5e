"""YAML front matter: one canonical rendering and a strict splitter, shared by source and wiki pages, and
the one YAML loader for every front matter stigmergy reads (pages and captured Markdown), with limits.

Front matter is untrusted input (anyone who can push writes pages; anyone who captures writes Markdown), so
`load_yaml_limited` refuses, before anything is built: more than MAX_FRONT_MATTER_BYTES of text, nesting
deeper than MAX_DEPTH, and a document whose aliases would expand past MAX_NODES nodes (the "billion
laughs": 600 bytes that build a structure of 10^9 nodes) or refer to themselves.
"""

from __future__ import annotations

import datetime
import re
from functools import lru_cache
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

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


def _dump(data: Any) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )


def render_yaml(meta: dict[str, Any]) -> str:
    # PyYAML's pure-Python emitter costs milliseconds per page (a `sources` list grows with every
    # capture), and pages are rendered on every parse (the canonical check) and every plan. The usual
    # shapes are assembled from per-scalar renderings made by that same emitter, so the bytes are
    # PyYAML's; anything else goes through yaml.dump whole.
    lines: list[str] = []
    if not meta or not _block_mapping(meta, "", lines, set()):
        return _dump(meta)
    return "\n".join(lines) + "\n"


# The fast path only takes scalars short enough that the emitter never folds them (width=10_000).
_MAX_SCALAR = 4_000
_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")
_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


# A page's `created`/`updated` (YYYY-MM-DDTHH:MM:SSZ, ASCII digits): YAML 1.1 reads it plain as a timestamp,
# so the emitter single-quotes it, and nothing in it needs escaping. Every operation writes a new one (a
# recompile's curation replay, 200 of them), and the emitter costs far more than writing it here;
# tests/test_frontmatter_render.py compares the two.
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


@lru_cache(maxsize=1 << 14, typed=True)
def _scalar_node(value: str | int | bool | None) -> str | None:
    """How the emitter writes `value` as a block-context node (a mapping value or a sequence item make
    the same style choice), or None when that is not one line."""
    if type(value) is str and _TIMESTAMP.fullmatch(value):
        return f"'{value}'"
    if isinstance(value, str) and (len(value) > _MAX_SCALAR or _BREAKS.search(value)):
        return None  # YAML line breaks are written with the indentation of their context
    out = _dump([value])
    if not out.startswith("- ") or out.count("\n") != 1 or not out.endswith("\n"):
        return None
    return out[2:-1]


def _scalar(value: Any) -> str | None:
    # Exact types only: the representers dispatch on the exact type, and subclasses go to yaml.dump.
    if value is None or type(value) in (str, int, bool):
        return _scalar_node(value)
    return None


def _key(key: Any) -> bool:
    return type(key) is str and _KEY_RE.fullmatch(key) is not None and _scalar_node(key) == key


def _block_mapping(meta: dict[str, Any], indent: str, lines: list[str], seen: set[int]) -> bool:
    """Append `meta` as a block mapping at `indent`; False when the fast path cannot render it exactly.
    Values: scalars, lists of scalars, lists of flat mappings, and mappings of those at any depth (a chat
    page's `metadata.chat`, an image's `metadata.ocr`: the emitter indents a nested mapping by two spaces
    and writes a sequence at its key's indentation)."""
    for key, value in meta.items():
        if not _key(key):
            return False
        kind = type(value)
        if kind is list or kind is dict:
            # The emitter writes anchors (&id001) for a container met twice: leave that to it.
            if id(value) in seen:
                return False
            seen.add(id(value))
            if not value:
                lines.append(f"{indent}{key}: {'[]' if kind is list else '{}'}")
            elif kind is dict:
                lines.append(f"{indent}{key}:")
                if not _block_mapping(value, indent + "  ", lines, seen):
                    return False
            else:
                lines.append(f"{indent}{key}:")
                if not _block_sequence(value, indent, lines, seen):
                    return False
            continue
        text = _scalar(value)
        if text is None:
            return False
        lines.append(f"{indent}{key}: {text}")
    return True


def _block_sequence(items: list[Any], indent: str, lines: list[str], seen: set[int]) -> bool:
    for item in items:
        if type(item) is dict:
            if id(item) in seen:
                return False
            seen.add(id(item))
            if not item:
                lines.append(f"{indent}- {{}}")
                continue
            first = len(lines)
            for key, value in item.items():
                text = _scalar(value)
                if text is None or not _key(key):
                    return False
                lines.append(f"{indent}  {key}: {text}")
            lines[first] = f"{indent}- {lines[first][len(indent) + 2 :]}"
            continue
        text = _scalar(item)
        if text is None:
            return False
        lines.append(f"{indent}- {text}")
    return True


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
    if len(raw) > MAX_FRONT_MATTER_BYTES:
        raise FrontMatterLimitError(
            "yaml-size", f"front matter is {len(raw):,} characters, over the limit of {MAX_FRONT_MATTER_BYTES:,}"
        )
    if "&" in raw or "*" in raw:  # anchors and aliases: shared (even recursive) values, loaded afresh
        meta = _load(raw)
    else:
        meta = _copy(_load_cached(raw))
    if not isinstance(meta, dict):
        raise ContractError("front matter must be a mapping")
    body = text[end + len(DELIM) + 2 :]
    head_lines = text[: end + len(DELIM) + 2].count("\n")
    return meta, body, head_lines


MAX_FRONT_MATTER_BYTES = 64_000
MAX_DEPTH = 32
MAX_NODES = 20_000


class FrontMatterLimitError(ContractError):
    """Front matter over a limit (size, depth, alias expansion). `rule` names the limit."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def _check_node_graph(root: yaml.Node) -> None:
    """Refuse a composed document whose expansion (every alias counted as a full copy) is deeper than
    MAX_DEPTH or larger than MAX_NODES, or that contains itself. Shared nodes are sized once (memo), so
    this costs the number of distinct nodes, not the expansion it guards against."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(node: yaml.Node, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise FrontMatterLimitError("yaml-depth", f"front matter nests deeper than {MAX_DEPTH} levels")
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_:
            raise FrontMatterLimitError("yaml-alias", "front matter holds a value that contains itself (recursive alias)")
        total = 1
        if isinstance(node, yaml.SequenceNode | yaml.MappingNode):
            open_.add(key)
            children = node.value if isinstance(node, yaml.SequenceNode) else [n for pair in node.value for n in pair]
            for child in children:
                total += size(child, depth + 1)
                if total > MAX_NODES:
                    raise FrontMatterLimitError(
                        "yaml-alias", f"front matter expands to more than {MAX_NODES:,} values (alias expansion)"
                    )
            open_.discard(key)
        sizes[key] = total
        return total

    size(root, 0)


def load_yaml_limited(raw: str) -> Any:
    """Load untrusted YAML with the limits above (FrontMatterLimitError), or ContractError when it is
    not YAML. libyaml composes (it has its own nesting cap); the node graph is checked before any
    Python object is constructed."""
    if len(raw) > MAX_FRONT_MATTER_BYTES:
        raise FrontMatterLimitError(
            "yaml-size", f"front matter is {len(raw):,} characters, over the limit of {MAX_FRONT_MATTER_BYTES:,}"
        )
    if not raw.strip():
        return {}
    loader = _Loader(raw)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node_graph(node)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        # One line: libyaml's messages span several ("while parsing …\n  in "<unicode string>" …").
        raise ContractError(f"front matter is not valid YAML: {' '.join(str(exc).split())[:200]}") from exc
    except RecursionError as exc:
        raise FrontMatterLimitError("yaml-depth", f"front matter nests deeper than {MAX_DEPTH} levels") from exc
    except (ValueError, OverflowError) as exc:
        # A timestamp the resolver recognised but the calendar does not have (`date: 2026-02-30`).
        raise FrontMatterLimitError("bad-value", f"front matter holds an impossible value ({exc})") from exc
    finally:
        loader.dispose()


class LimitedYAMLHandler(YAMLHandler):
    """python-frontmatter's YAML handler with the limited loader: the same splitting rules as the
    library, and none of its unbounded `yaml.load`."""

    def load(self, fm: str, **kwargs: object) -> Any:
        return load_yaml_limited(fm)


def _load(raw: str) -> Any:
    return load_yaml_limited(raw)


@lru_cache(maxsize=256)
def _load_cached(raw: str) -> Any:
    # A page's front matter is loaded by the planner, by each gate that reads it, and as the next plan's
    # page on disk. Callers get their own copy (_copy), so the cached value is never changed.
    fast = _fast_load(raw)
    return _load(raw) if fast is None else fast


# What the fast loader reads: `key: scalar`, `key: []`, `key: {}`, and `key:` followed by `- scalar`
# lines (or by nothing: null). Each scalar is loaded on its own by the same YAML loader, as the item of
# a one-line sequence (the same block context); any other line sends the whole text to yaml.load.
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,63}):(?: (.*))?")
_LEAVES = (str, int, float, bool, type(None), bytes, datetime.date, datetime.datetime)
_FAIL = object()
_ODD_BREAKS = re.compile("[\r\x85\u2028\u2029\ufeff]")  # line breaks YAML sees and str.split does not


def load_lines(raw: str) -> dict[str, Any] | None:
    """The mapping `raw` (front matter between its delimiters, newline-terminated, with no '&' or '*':
    anchors and aliases join lines) loads as, read line by line: None when a line is not one the fast
    loader reads (the caller then loads it with YAML)."""
    return _fast_load(raw)


def _fast_load(raw: str) -> dict[str, Any] | None:
    if not raw.endswith("\n") or _ODD_BREAKS.search(raw):
        return None
    lines = raw[:-1].split("\n")
    meta: dict[str, Any] = {}
    i, n = 0, len(lines)
    while i < n:
        m = _KEY_LINE.fullmatch(lines[i])
        if m is None or _load_scalar(m.group(1)) != m.group(1):
            return None
        key, rest = m.group(1), m.group(2)
        i += 1
        if rest is None:
            items = []
            while i < n and lines[i].startswith("- "):
                item = _load_scalar(lines[i][2:])
                if item is _FAIL:
                    return None
                items.append(item)
                i += 1
            meta[key] = items or None
        elif rest == "[]":
            meta[key] = []
        elif rest == "{}":
            meta[key] = {}
        else:
            value = _load_scalar(rest)
            if value is _FAIL:
                return None
            meta[key] = value
    return meta


@lru_cache(maxsize=1 << 14)
def _load_scalar(text: str) -> Any:
    """The immutable scalar `text` loads as, or _FAIL (a container, a block scalar, anything that may
    reach into the following lines, or an error)."""
    if not text or text[0] in "|>" or text.strip() != text:
        return _FAIL
    try:
        value = yaml.load(f"- {text}\n", Loader=_Loader)
    except yaml.YAMLError:
        return _FAIL
    if type(value) is not list or len(value) != 1 or type(value[0]) not in _LEAVES:
        return _FAIL
    return value[0]


def line_round_trips(value: Any) -> bool:
    """True when the string `value` is written by the fast renderer as one line (`key: text` or `- text`)
    that the fast loader reads back as the same string, with nothing that sends a front matter to the full
    YAML loader (anchor and alias marks, odd line breaks). pages/wiki.py `parses_back` rests on it."""
    if type(value) is not str:
        return False
    text = _scalar_node(value)
    if text is None or "&" in text or "*" in text or _ODD_BREAKS.search(text) or text in ("[]", "{}"):
        return False
    loaded = _load_scalar(text)
    return type(loaded) is str and loaded == value


def _copy(value: Any) -> Any:
    """A copy of loaded YAML deep enough that no container is shared (leaves are immutable)."""
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}
    if kind is list:
        return [_copy(v) for v in value]
    if kind is set:
        return set(value)
    if kind is tuple:
        return tuple(_copy(v) for v in value)
    return value
