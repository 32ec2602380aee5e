"""The background reads of a long-lived session (`keep_warm`): at most one running per key, a failure
swallowed (the read was only ahead of need: the statements it stands for still answer), and a way for
tests and benches to wait for them. Used by `pg_postings` (the lists read ahead), `pg_nearest` (the
layers' and pages' vectors) and `pg_fill` (the small rows read whole)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any


class Readers:
    """Daemon threads named `name`, one registered per key while it runs."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.threads: dict[Hashable, threading.Thread] = {}
        self._lock = threading.Lock()

    def running(self, key: Hashable) -> bool:
        with self._lock:
            return key in self.threads

    def start(self, key: Hashable, target: Callable[..., Any], *args: Any) -> None:
        """Run `target(*args)` in the background under `key` (a newer start for the key takes its place)."""
        thread = threading.Thread(target=self._run, args=(key, target, args), name=self.name, daemon=True)
        with self._lock:
            self.threads[key] = thread
        thread.start()

    def _run(self, key: Hashable, target: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            target(*args)
        except Exception:  # noqa: BLE001 - a read ahead that fails leaves its statements answering, as before
            pass
        finally:
            with self._lock:
                if self.threads.get(key) is threading.current_thread():
                    self.threads.pop(key)

    def settle(self) -> None:
        """Wait for the reads running now."""
        with self._lock:
            running = list(self.threads.values())
        for thread in running:
            thread.join()
