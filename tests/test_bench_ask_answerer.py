"""`bench/ask.py --answerer`: the bench measures a model answerer through the real `ask` and a local server that
speaks the OpenAI chat completions protocol; its options are checked before any work."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import load_bench
from test_answer_support import build_wiki
from test_index_support import HashEmbedder
from test_llm_planners import Server, openai_reply

import stigmergy.index.search as search_module


def _args(**kw: Any) -> argparse.Namespace:
    return argparse.Namespace(**{"answerer": None, "key_env": None, "llm_pool": None, "llm_floor": None, **kw})


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    s = Server()
    yield s
    s.close()


def test_answerer_option_is_parsed_and_refused_when_malformed() -> None:
    b = load_bench("ask")
    assert b.answer_settings(_args()) == {}
    got = b.answer_settings(_args(answerer="openai:llama3.1@http://localhost:11434/v1", key_env="MY_KEY",
                                  llm_pool="eligible", llm_floor=0.3))
    assert got == {"kind": "openai", "model": "llama3.1", "base_url": "http://localhost:11434/v1",
                   "api_key_env": "MY_KEY", "llm_pool": "eligible", "llm_floor": 0.3}
    assert b.answerer_name(got) == "openai:llama3.1 (pool eligible, floor 0.3)"
    assert b.answerer_name({}) == "deterministic"
    for bad in ("llama3.1", "openai:llama3.1", "ollama:llama3.1@http://localhost:11434/v1",
                "openai:llama3.1@file:///etc/passwd"):
        with pytest.raises(SystemExit, match="KIND:MODEL@BASE_URL"):
            b.answer_settings(_args(answerer=bad))
    with pytest.raises(SystemExit, match="go with --answerer"):
        b.answer_settings(_args(llm_pool="eligible"))


def test_worker_asks_through_the_model_answerer(tmp_path: Path, server: Server,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    b = load_bench("ask")
    wiki = build_wiki(tmp_path / "w")
    real = search_module.Searcher
    monkeypatch.setattr(search_module, "Searcher", lambda root, settings: real(root, settings, HashEmbedder()))
    spec = tmp_path / "set.json"
    spec.write_text(json.dumps({"questions": [{"id": "q1", "q": "What was Aurora revenue in Q1 2026?"}]}))
    rows = tmp_path / "rows.json"
    server.script.append((200, {}, openai_reply("Aurora revenue was $1.3M in Q1 2026 [1]."), 0.0))
    answer = b.answer_settings(_args(answerer=f"openai:test-model@{server.url}/v1", llm_pool="eligible"))
    b.worker(spec, wiki.root, rows, None, answer)
    [row] = json.loads(rows.read_text())["rows"]
    assert row["answerer"] == "openai:test-model" and row["answered"]
    assert [s["text"] for s in row["sentences"]] == ["Aurora revenue was $1.3M in Q1 2026."]
    [request] = server.requests
    assert request["body"]["model"] == "test-model" and "$1.3M" in request["body"]["messages"][1]["content"]
