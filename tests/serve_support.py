"""A real `stigmergy serve` application on 127.0.0.1 for the tests: uvicorn in a thread of the test
process, on a port of its own, over a wiki built by test_answer_support.build_wiki."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from test_index_support import HashEmbedder

from stigmergy.server.app import build_app, listen
from stigmergy.server.config import ServeConfig
from stigmergy.server.guard import FailureLimiter
from stigmergy.server.tokens import TokenStore
from stigmergy.service import Identity, WikiService
from stigmergy.settings import load_settings


@dataclass
class Running:
    url: str
    port: int
    config: ServeConfig
    tokens: TokenStore


@contextmanager
def running_server(root: Path, tokens_file: Path, *, allow_capture: bool = False, routes: Any = (),
                   limiter: FailureLimiter | None = None) -> Iterator[Running]:
    import uvicorn

    settings = load_settings(root, {})
    service = WikiService(root, settings, Identity(""), {}, embedder=HashEmbedder())
    store = TokenStore(tokens_file)
    config = ServeConfig(service=service, tokens=store, allow_capture=allow_capture,
                         limiter=limiter or FailureLimiter())
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(config, routes), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{port}", port, config, store)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        config.close()
        sock.close()
