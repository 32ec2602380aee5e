"""`bench/ask_rank.py`: the eligible lines' features and labels per answerable question, a listwise fit over them,
and the count of questions whose right line comes first in either order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import load_bench
from test_bench_ask_funnel import OPENED, _tiny_set


def test_dump_gives_a_feature_row_and_a_label_per_eligible_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    _, b = _tiny_set(tmp_path, monkeypatch, [
        OPENED, {"id": "u1", "q": "What is the salary of the Lisbon office manager?", "answerable": False,
                 "expect": None}])
    r = load_bench("ask_rank")
    opened: dict[str, Any] = {}
    groups = r.dump_set(b, "tiny", tmp_path, opened)
    for _, searcher, _ in opened.values():
        searcher.close()
    assert len(groups) == 1  # the unanswerable question has no right line to learn from
    g = groups[0]
    assert g["rows"] and len(g["rows"]) == len(g["right"]) and all(len(x) == len(r.FEATURES) for x in g["rows"])
    assert g["right"][0] and r.firsts(groups, None) == 1
    assert g["rows"][0][r.FEATURES.index("score_ratio")] == 1.0  # the answerer's best line is its own best


def test_fit_learns_the_feature_that_marks_the_right_line_and_counts_firsts() -> None:
    r = load_bench("ask_rank")
    rng = np.random.default_rng(7)
    dim = len(r.FEATURES)
    groups = []
    for _ in range(30):
        rows = rng.normal(size=(4, dim))
        rows[:, 3] = [0.0, 0.0, 1.0, 0.0]  # the right line (third) alone has this feature
        groups.append({"rows": rows.tolist(), "right": [False, False, True, False]})
    w = r.fit(groups, steps=200)
    assert w[3] == max(w) > 0
    assert r.firsts(groups, None) == 0 and r.firsts(groups, w) == 30
    # a question with no eligible line counts for neither order
    assert r.firsts([{"rows": [], "right": []}], w) == 0
