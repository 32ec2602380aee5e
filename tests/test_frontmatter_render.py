"""Front matter's fast renderer writes exactly the bytes PyYAML's emitter writes (the canonical form every
page is checked against), for nested mappings too: a chat page's `metadata.chat`, an image's
`metadata.ocr`, a mail's headers."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from stigmergy.pages import frontmatter
from stigmergy.pages.frontmatter import _dump, render_yaml

WORDS = ["a", "yes", "no", "null", "1.0", "2026-01-05", "x: y", "- z", "#c", "'q'", '"d"', "Ann Lee", "ünï", "",
         " lead", "trail ", "@at", "*star", "&amp", "!bang", "%p", "`tick", "{b}", "[l]", "a,b", "0x1F", "1e3", "~",
         "on", "off", "12:30", "cap_01J8", "Ann Lee <ann@example.com>", "?", "a #b", "tab\there", "two\nlines"]


def _random_meta(rng: random.Random) -> dict[str, Any]:
    def scalar() -> Any:
        r = rng.random()
        if r < 0.6:
            return rng.choice(WORDS)
        if r < 0.7:
            return rng.randint(-5, 10**6)
        if r < 0.8:
            return rng.choice([True, False, None])
        return "".join(rng.choice(string.printable[:-5]) for _ in range(rng.randint(0, 12)))

    def key() -> str:
        return rng.choice(["id", "title", "chat", "ocr", "authors", "confidence", "k_1", "date", "x"]) + str(rng.randint(0, 50))

    def value(depth: int) -> Any:
        r = rng.random()
        if depth < 4 and r < 0.25:
            return {key(): value(depth + 1) for _ in range(rng.randint(0, 4))}
        if r < 0.4:
            return [scalar() for _ in range(rng.randint(0, 4))]
        if r < 0.45:
            return [{key(): scalar() for _ in range(rng.randint(0, 3))} for _ in range(rng.randint(1, 3))]
        return scalar()

    return {key(): value(0) for _ in range(rng.randint(1, 6))}


def test_the_fast_renderer_writes_the_emitters_bytes() -> None:
    rng = random.Random(7)
    for _ in range(1000):
        meta = _random_meta(rng)
        assert render_yaml(meta) == _dump(meta), meta


@pytest.mark.parametrize("metadata", [
    {"date": "2026-03-02", "chat": {"tool": "slack", "channel": "#general", "channel_id": "C0GENERAL", "kind": "public",
                                    "day": "2026-03-02", "messages": 3, "threads": 1, "authors": ["Ann Lee", "Bob Ray"]}},
    {"ocr": {"engine": "tesseract 5.3.0", "min_confidence": 60, "confidence": [96, 91, 42, 88]}},
    {"from": "Ann <ann@example.com>", "to": ["bob@example.com"], "headers": {"subject": "Re: plan", "in_reply_to": None}},
])
def test_nested_metadata_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch, metadata: dict[str, Any]) -> None:
    meta = {"id": "cap_01J8", "type": "source", "metadata": metadata}
    expected = _dump(meta)
    frontmatter._scalar_node.cache_clear()
    whole: list[Any] = []
    real = frontmatter._dump
    monkeypatch.setattr(frontmatter, "_dump", lambda data: (whole.append(data) if isinstance(data, dict) else None) or real(data))
    assert render_yaml(meta) == expected
    assert whole == []  # assembled from scalars, never the whole document through the emitter


@settings(max_examples=300, deadline=None)
@example("2026-03-10T12:00:00Z")
@example("9999-99-99T99:99:99Z")
@given(st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", fullmatch=True)
       | st.sampled_from(["2026-03-10T12:00:00Z ", "2026-03-10T12:00:00", "2026-03-10 12:00:00Z", "٢٠٢٦-03-10T12:00:00Z",
                          "2026-03-10T12:00:00Z\n", "2026-3-10T12:00:00Z"]))
def test_a_timestamp_is_written_as_the_emitter_writes_it(value: str) -> None:
    # `created`/`updated` are written without the emitter (each operation has a new one): the same bytes.
    frontmatter._scalar_node.cache_clear()
    node = frontmatter._scalar_node(value)
    out = _dump([value])
    assert (node is None and (out.count("\n") != 1 or not out.startswith("- "))) or out == f"- {node}\n"
