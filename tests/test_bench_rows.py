"""The benches' README rows: each bench's row formatter gives back the rows of its committed results
file from the figures in the same file (a formatter that no longer runs is found here, not after a 2-minute
bench run)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_bench

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_search_latency_rows_come_back_from_their_figures() -> None:
    saved = json.loads((BENCH / "results" / "search.json").read_text())
    rows = load_bench("search")._latency_rows(saved["figures"], saved["bench"])
    assert rows == saved["readme_rows"]


def _saved(name: str) -> dict:
    return json.loads((BENCH / "results" / f"{name}.json").read_text())


def test_the_indexing_and_maintenance_rows_come_back_from_their_figures() -> None:
    saved = _saved("index")
    assert load_bench("index").readme_rows(saved, saved["bench"]) == saved["readme_rows"]
    saved = _saved("maintenance")
    assert load_bench("maintenance").readme_rows(saved, saved["bench"]) == saved["readme_rows"]


def test_the_retrieval_rows_come_back_from_their_figures() -> None:
    public = load_bench("public_search")
    for name in ("sphinx", "pytest", "git", "pip"):
        saved = _saved(f"retrieval-{name}")
        label = public.CORPORA[name].label
        row = public.readme_row(label, saved["questions"], saved["default"]["fused"]["strict"]["all"],
                                saved["plain_bm25_1000_char_chunks"], saved["bench"])
        assert [row] == saved["readme_rows"], name
    saved = _saved("search-quality")
    assert load_bench("search")._quality_rows(saved["figures"]) == saved["readme_rows"]


def test_the_filing_quality_rows_come_back_from_their_figures() -> None:
    quality = load_bench("filing_quality")
    paths = sorted((BENCH / "results").glob("filing_quality-*.json"))
    assert paths
    for path in paths:
        d = json.loads(path.read_text())
        assert quality.readme_rows(d) == d["readme_rows"], path.name


def test_the_filing_rows_come_back_from_their_figures() -> None:
    filing = load_bench("filing")
    for path in sorted((BENCH / "results").glob("filing-*.json")):
        d = json.loads(path.read_text())
        n = d["documents"] - d["window"]  # `--team N` files N documents and then one window more
        rows = filing._readme_rows(d["bench"], d["generator"], n, d["window"], d["windows"], d["refused"],
                                   d["largest_page"], d["git"], d.get("repeats"))
        assert rows == d["readme_rows"], path.name
