"""The reading commands' `--json` answers match stigmergy/json_shapes.py, from which docs/schema.md is
generated: every key declared, every required key present, every value of the declared kind. The answers
come from the same library calls the commands print (search, ask: with the hash embedder) and from the
CLI itself for status."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import run_cli
from test_index_support import HashEmbedder, RepoBuilder
from test_reads import READER, repo  # noqa: F401  (the fixture wiki: a note, an entity, a contradiction)

from stigmergy import json_shapes as shapes
from stigmergy.answer.service import ask
from stigmergy.index.reads import describe_entity, list_pages, read_pages
from stigmergy.index.search import Filters, Searcher, search


def _printed(data: Any) -> Any:
    """What `print_json` writes, read back (tuples become lists, as on stdout)."""
    return json.loads(json.dumps(data, default=str))


def _assert_shape(data: Any, shape: type) -> None:
    problems = shapes.mismatches(_printed(data), shape)
    assert problems == [], "\n".join(problems)


def test_search_read_list_describe_match_their_shapes(repo: RepoBuilder) -> None:  # noqa: F811
    root, settings = repo.root, repo.settings
    found = search(root, settings, "Aurora ARR", READER, embedder=HashEmbedder()).to_dict()
    assert found["hits"]
    _assert_shape(found, shapes.SearchResult)
    for refs, evidence in ((["wiki/notes/Aurora.md#2"], True), (["wiki/notes/Aurora.md"], False)):
        _assert_shape(read_pages(root, settings, READER, refs, evidence=evidence), shapes.ReadResult)
    _assert_shape(list_pages(root, settings, READER, Filters()), shapes.ListResult)
    described = describe_entity(root, settings, READER, "Acme Corp")
    _assert_shape(described, shapes.DescribeResult)


def test_ask_answered_and_refused_match_the_shape(repo: RepoBuilder) -> None:  # noqa: F811
    searcher = Searcher(repo.root, repo.settings, HashEmbedder())
    try:
        answered = ask(repo.root, repo.settings, READER, "What ARR did Aurora reach?", evidence=True,
                       searcher=searcher)
        refused = ask(repo.root, repo.settings, READER, "zebra quantum pineapple?", searcher=searcher)
    finally:
        searcher.close()
    assert answered["answered"] and not refused["answered"]
    _assert_shape(answered, shapes.AskResult)
    _assert_shape(refused, shapes.AskResult)


def test_status_matches_the_shape_before_and_after_an_operation(repo: RepoBuilder) -> None:  # noqa: F811
    for step in ([], ["capture", "--text", "status shape check", "--no-file"]):
        if step:
            assert run_cli(step, cwd=repo.root)[0] == 0
        code, out, _ = run_cli(["--json", "status"], cwd=repo.root)
        assert code == 0
        _assert_shape(json.loads(out), shapes.StatusResult)
    assert json.loads(out)["last_operation"] is not None


@pytest.mark.parametrize(("value", "expected"), [
    ({"query": "q", "reader": "r", "arms": [], "hits": []}, "$.index: missing"),
    ({"query": "q", "reader": "r", "arms": [], "hits": [], "index": {}, "extra": 1}, "$.extra: not declared"),
    ({"query": 1, "reader": "r", "arms": [], "hits": [],
      "index": {"commit": None, "head": None, "stale": False, "changed": []}}, "$.query: expected str"),
])
def test_a_departure_from_the_shape_is_named(value: dict[str, Any], expected: str) -> None:
    assert any(p.startswith(expected) for p in shapes.mismatches(value, shapes.SearchResult))
