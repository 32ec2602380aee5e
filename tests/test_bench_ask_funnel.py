"""`bench/ask_funnel.py`: stage counts of answerable questions (in evidence, eligible, first, in a model's
lines) and of unanswerable ones that send a model lines, over a small wiki with the bench's own judging."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import load_bench
from test_answer_support import build_wiki
from test_index_support import HashEmbedder

import stigmergy.index.search as search_module

OPENED = {"id": "a1", "q": "When did the Lisbon office open?", "answerable": True, "expect": ["2 March 2026"]}


def _tiny_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, questions: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The funnel and bench/ask.py, with a set "tiny" of `questions` over a small wiki where the bench looks for
    the sample corpus's (the hash embedder in place of the model)."""
    f = load_bench("ask_funnel")
    b = f._ask_bench()
    build_wiki(tmp_path / "sample-this")
    real = search_module.Searcher
    monkeypatch.setattr(search_module, "Searcher", lambda root, settings: real(root, settings, HashEmbedder()))
    spec = tmp_path / "set.json"
    spec.write_text(json.dumps({"questions": questions}))
    monkeypatch.setitem(b.SETS, "tiny", (str(spec), "sample"))
    return f, b


def test_funnel_counts_each_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, b = _tiny_set(tmp_path, monkeypatch, [
        OPENED,
        {"id": "a2", "q": "When did the Lisbon office open?", "answerable": True, "expect": ["3 April 2031"]},
        {"id": "u1", "q": "What is the salary of the Lisbon office manager?", "answerable": False, "expect": None},
    ])
    opened: dict[str, Any] = {}
    c = f.count_set(b, "tiny", tmp_path, 0.0, opened)
    for _, searcher, _ in opened.values():
        searcher.close()
    # The first question's fact is found, eligible, first and in both pools; the second's is nowhere.
    assert {k: c[k] for k in f.STAGES} == {"answerable": 2, "in_evidence": 1, "eligible": 1, "first": 1,
                                             "near_best": 1, "eligible_pool": 1}
    assert c["unanswerable"] == 1 and c["unanswerable_near_best"] == 0


def test_funnel_refuses_a_work_folder_without_the_bench_wiki(tmp_path: Path) -> None:
    f = load_bench("ask_funnel")
    b = f._ask_bench()
    with pytest.raises(SystemExit, match="run bench/ask.py"):
        f.count_set(b, "user", tmp_path, None, {})


def test_funnel_reorder_counts_first_in_another_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, b = _tiny_set(tmp_path, monkeypatch, [OPENED])
    opened: dict[str, Any] = {}
    # Meaning weighed as the answerer weighs it is the answerer's own order, and a small page-rank prior keeps
    # it; ranked by novelty alone, "Headcount reached 12 people." (none of the question's words) comes before
    # "The Lisbon office opened on 2 March 2026." (three of them).
    got = [f.count_set(b, "tiny", tmp_path, 0.0, opened, (kind, w))["first_reordered"]
           for kind, w in (("meaning", 0.5), ("rank", 0.05), ("novelty", 1.0))]
    for _, searcher, _ in opened.values():
        searcher.close()
    assert got == [1, 1, 0]
    with pytest.raises(SystemExit, match="--reorder colour"):
        f.reorder_key("colour", 0.5, "q")
