"""A long-lived service's searches in worker processes (`[search] processes`, service/search_workers.py): real
processes started with spawn over a real wiki and index. They answer as the server's own threads would,
keep each reader to their layers, follow the server's settings at the next search, survive a worker
killed under them, pass a refusal through as itself, and stop with the service."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_answer_support import BOARD, CANARY, PUBLIC, build_wiki
from test_index_support import HashEmbedder

from stigmergy.errors import ConfigError, NotFoundError, StigmergyError
from stigmergy.service import Identity, WikiService
from stigmergy.settings import load_settings, settings_from_mapping


@pytest.fixture(scope="module")
def wiki_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wiki(tmp_path_factory.mktemp("pool") / "w").root


def _service(root: Path, processes: int, reader: str = PUBLIC) -> WikiService:
    settings = load_settings(root, {})
    settings = replace(settings, search=replace(settings.search, processes=processes))
    return WikiService(root, settings, Identity(reader), {}, embedder=HashEmbedder(), long_lived=True)


def _answer(service: WikiService, query: str) -> dict[str, Any]:
    return service.search(query, k=10).to_dict()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def pooled(wiki_root: Path) -> Any:
    service = _service(wiki_root, 2)
    pool = service.search_workers()
    assert pool is not None
    pids = {f.result(timeout=120) for f in pool.warm()}
    yield service, pids
    service.close()


QUERIES = ("Aurora revenue in Q1", "who offered to acquire Aurora", f"{CANARY} Orbis", "excursion temperature",
           "Lisbon office opening", "headcount")


def test_workers_answer_each_reader_as_the_servers_own_threads_do(wiki_root: Path, pooled: Any) -> None:
    service, pids = pooled
    assert os.getpid() not in pids and all(_alive(p) for p in pids)
    threads = _service(wiki_root, 1)
    board_pool, board_threads = service.for_caller(Identity(BOARD)), threads.for_caller(Identity(BOARD))
    try:
        assert threads.search_workers() is None
        for query in QUERIES:
            public = _answer(service, query)
            assert public == _answer(threads, query), query
            assert CANARY not in str(public["hits"]) and not any(h["layer"] == "board" for h in public["hits"]), query
            assert _answer(board_pool, query) == _answer(board_threads, query), query
        board = _answer(board_pool, f"{CANARY} Orbis")
        assert board["reader"] == BOARD and any(h["path"].startswith("layers/board/") for h in board["hits"])
    finally:
        threads.close()


def test_a_reader_removed_from_a_layer_loses_it_in_the_workers_at_the_next_search(pooled: Any) -> None:
    service, _pids = pooled
    board = service.for_caller(Identity(BOARD))
    assert any(h["layer"] == "board" for h in _answer(board, f"{CANARY} Orbis")["hits"])
    before = board.settings
    board.adopt_settings(settings_from_mapping({"layers": {"board": {"readers": ["someone@example.com"]}}}, before))
    try:
        after = _answer(board, f"{CANARY} Orbis")
        assert after["hits"] and not any(h["layer"] == "board" for h in after["hits"]) and CANARY not in str(after["hits"])
    finally:
        board.adopt_settings(before)
    assert any(h["layer"] == "board" for h in _answer(board, f"{CANARY} Orbis")["hits"])


def test_a_worker_killed_under_the_server_is_replaced_and_the_search_answered(wiki_root: Path) -> None:
    service = _service(wiki_root, 2)
    try:
        pool = service.search_workers()
        expected = _answer(_service(wiki_root, 1), "Aurora revenue in Q1")
        pids = {f.result(timeout=120) for f in pool.warm()}
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _answer(service, "Aurora revenue in Q1") == expected
        assert _answer(service, "Aurora revenue in Q1") == expected
    finally:
        service.close()


def test_closing_the_service_stops_its_workers_and_a_refusal_comes_through_as_itself(
        tmp_path: Path) -> None:
    root = build_wiki(tmp_path / "w", index=False).root
    service = _service(root, 2)
    pool = service.search_workers()
    pids: set[int] = set()
    try:
        with pytest.raises(NotFoundError) as refused:
            service.search("Aurora revenue")
        assert "no index" in refused.value.message and "stigmergy index" in (refused.value.hint or "")
        pids = {p.pid for p in pool._executor._processes.values()}  # type: ignore[union-attr]
        assert pids and all(_alive(p) for p in pids)
    finally:
        service.close()
    assert not any(_alive(p) for p in pids)
    with pytest.raises(StigmergyError, match="closed"):
        pool.search(service.settings, "Aurora", PUBLIC, None, None)


def test_a_command_never_starts_workers_and_the_count_is_bounded(wiki_root: Path) -> None:
    settings = load_settings(wiki_root, {})
    command = WikiService(wiki_root, replace(settings, search=replace(settings.search, processes=4)),
                          Identity(PUBLIC), {}, embedder=HashEmbedder())
    assert command.search_workers() is None and command.search("Aurora").hits
    for bad in (0, -1, 65):
        with pytest.raises(ConfigError, match="search.processes"):
            load_settings(wiki_root, {"STIGMERGY_SEARCH__PROCESSES": str(bad)})


def test_workers_that_cannot_start_give_a_plain_error(wiki_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies as it starts (its initializer fails) breaks every try: the caller gets one
    StigmergyError saying so, with the way around it, not a traceback of the executor."""
    service = _service(wiki_root, 2)
    try:
        pool = service.search_workers()
        assert pool is not None
        pool._args = (None, *pool._args[1:])  # type: ignore[assignment]  # Path(None): the worker's start raises
        with pytest.raises(StigmergyError, match="search worker stopped") as failed:
            pool.search(service.settings, "Aurora", PUBLIC, None, None)
        assert "--search-processes 1" in (failed.value.hint or "")
    finally:
        service.close()
