"""The public search question sets are shaped for bench/public_search.py, and the fourth (pip's docs, written
blind in the eighteenth session) keeps to its corpus: no answer on a page capture refuses."""

from __future__ import annotations

import json
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_every_public_search_set_names_its_expected_pages() -> None:
    for name in ("public_questions.json", "public2_questions.json", "public3_questions.json", "public4_questions.json"):
        qs = json.loads((BENCH / name).read_text())["questions"]
        ids = [q["id"] for q in qs]
        assert len(ids) == len(set(ids)) >= 50, name
        assert all(q["q"].strip() and q["expected"] for q in qs), name


def test_the_pip_search_set_was_written_blind_and_keeps_to_its_corpus() -> None:
    spec = json.loads((BENCH / "public4_questions.json").read_text())
    assert "written blind" in spec["written"] and "never to be tuned on" in spec["written"]
    assert {q["kind"] for q in spec["questions"]} <= set(spec["kinds"])
    expected = {e for q in spec["questions"] for e in q["expected"]}
    assert all(e.endswith((".md", ".rst")) and not e.startswith(("/", "html/")) for e in expected)
    assert "topics/authentication.md" not in expected  # refused at capture: it holds an example credential
