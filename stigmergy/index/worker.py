"""The index worker (`stigmergy index-worker`): a long-lived process beside a server's checkout that keeps
the embedding model loaded and indexes on request, so that the post-receive hook's update after a push
costs no model load and no start-up of its own.

The post-receive hook (index/hooks.py) runs index/worker_client.py, which sends one line, `stigmergy-index 1 <commit>`, the
HEAD it fast-forwarded to. The worker never takes a path, an option or code from a request: it checks
that the commit is one its checkout has and HEAD contains, then runs what the hook would have run
(`run_hook_index` over `build_index(from_push=True)`, settings re-read from the repository, the user's
file and the worker's own environment each time) and answers `ok <commit>` once the index reflects it,
`deferred` when another process holds the index lock (that one loops once more, index/hooks.py),
`refused <why>` or `error <why>`. Anything but ok/deferred, or no answer, and the hook indexes in-process
(`python -I -m stigmergy.cli.hook --push`) exactly as it does without a worker.

Who may ask: the socket is created inside the checkout's git directory (which must be this user's and
writable by no one else) with mode 0600, and each connection's peer must run as this user (SO_PEERCRED);
anyone else is answered `refused` and nothing runs. Requests are served one at a time.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stigmergy.errors import StigmergyError, UsageError
from stigmergy.index.worker_client import MAX_LINE, PROTOCOL, SOCKET_NAME, is_commit_id, peer_uid
from stigmergy.settings import EmbedderSettings, Settings, load_settings

if TYPE_CHECKING:
    from stigmergy.index.build import IndexReport
    from stigmergy.index.store import IndexLocation, IndexStore

REQUEST_TIMEOUT_S = 2.0  # a client that connects and says nothing does not hold up the next push
# Room for the socket's path in sockaddr_un (108 bytes on Linux, with its terminating NUL).
MAX_SOCKET_PATH = 107


def _private_git_dir(root: Path) -> Path:
    """The checkout's git directory, refused unless it is a plain folder of this user's that no one else
    may write: whoever can write there could plant a socket (or simply a hook)."""
    git_dir = root / ".git"
    try:
        st = os.lstat(git_dir)
    except OSError as exc:
        raise UsageError(f"{root} has no .git folder", hint="run the worker in the server's checkout") from exc
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{git_dir} is not a folder (a worktree or submodule)",
                         hint="run the worker in a plain checkout (the one `hooks install --server --checkout` made)")
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise UsageError(f"{git_dir} must belong to the user running the worker and be writable by no one else",
                         hint=f"run the worker as the user the hooks run as; chmod go-w {git_dir}")
    return git_dir


def bind_socket(root: Path) -> socket.socket:
    """A listening Unix socket at `<root>/.git/stigmergy-index.sock`, mode 0600. A stale socket (no one
    answers) is replaced; a live one means another worker runs here, and anything else at the path is
    left alone and refused."""
    path = _private_git_dir(root) / SOCKET_NAME
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise UsageError(f"{path} is too long for a Unix socket ({MAX_SOCKET_PATH} bytes at most)",
                         hint="put the checkout at a shorter path")
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(path)
        if not stat.S_ISSOCK(st.st_mode):
            raise UsageError(f"{path} exists and is not a socket", hint="remove it if it is not needed")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
            raise UsageError(f"another index worker already listens at {path}")
        except ConnectionRefusedError:
            path.unlink()  # stale: its worker is gone
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # created 0600: no moment in which another user could connect
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(16)
    return sock


@dataclass
class WarmIndexer:
    """What a request runs: the hook's index update with the embedder kept between requests. Settings are
    re-read each time (a push may change the chunking or the model: a new embedder is made then)."""

    root: Path
    env: dict[str, str]
    _embedder: object | None = None
    _embedder_for: tuple[EmbedderSettings, Path] | None = None
    _store: IndexStore | None = None
    _store_for: IndexLocation | None = None
    runs: int = field(default=0)

    def settings(self) -> Settings:
        return load_settings(self.root, env=self.env)

    def embedder(self, settings: Settings) -> object:
        from stigmergy.repo.layout import Layout

        key = (settings.embedder, Layout(self.root).cache_dir)
        if self._embedder is None or self._embedder_for != key:
            self._embedder, self._embedder_for = _BySize(settings.embedder, key[1]), key
        return self._embedder

    def store(self, settings: Settings) -> IndexStore | None:
        """The shared index's connection, kept open between requests (a new one costs its handshake, a fresh
        server process and that process's cold caches); None for a SQLite index (opened per run, cheaply)."""
        from stigmergy.index.store import index_location, open_index
        from stigmergy.repo.layout import Layout

        loc = index_location(Layout(self.root), settings)
        if not loc.shared:
            return None
        conn = getattr(self._store, "conn", None)
        if self._store is not None and (self._store_for != loc or conn is None or conn.closed or conn.broken):
            self.close()
        if self._store is None:
            self._store, self._store_for = open_index(loc), loc
        return self._store

    def close(self) -> None:
        if self._store is not None:
            with contextlib.suppress(Exception):  # a connection already gone
                self._store.close()
        self._store = self._store_for = None

    def warm(self) -> None:
        """Load the model now, not on the first push."""
        settings = self.settings()
        self.embedder(settings).embed(["warm"])  # type: ignore[attr-defined]
        self.store(settings)

    def __call__(self, commit: str) -> str:
        from stigmergy.index.build import build_index
        from stigmergy.index.freshness import is_ancestor
        from stigmergy.index.hooks import run_hook_index
        from stigmergy.repo.git import Git

        git = Git(self.root)
        head = git.fast_head()
        if head is None or (commit != head and not (git.is_commit(commit) and is_ancestor(git, commit, head))):
            return "refused the commit is not in this checkout's HEAD"
        settings = self.settings()
        reports: list[IndexReport] = []

        def run() -> None:
            reports.append(build_index(self.root, settings, lock=False, from_push=True, store=self.store(settings),
                                       embedder=lambda: self.embedder(settings)))  # type: ignore[arg-type, return-value]

        try:
            self.runs += run_hook_index(self.root, run)
        except Exception:
            self.close()  # whatever failed, the next request starts from a new connection
            raise
        if not reports:
            return "deferred"
        indexed = reports[-1].commit  # the commit the index reflects after the last run (its note says why not)
        if indexed and (indexed == commit or is_ancestor(git, commit, indexed)):
            return f"ok {indexed}"
        return f"error the index is at {str(indexed)[:12]}, not at {commit[:12]}: {reports[-1].note or ''}"


class _BySize:
    """The model twice over, for the worker's two kinds of job: a push of a page or two embeds a handful of
    fragments on one thread (onnxruntime's pool on every core only waits on a busy machine: measured at load
    ~13 on 2 cores, 0.06 s CPU and 0.18-0.48 s wall per one-page update against 0.14 s and 0.53-0.98 s),
    while a push of many pages gets every core from a second session, made the first time one comes."""

    SMALL = 32  # texts: one batch of the default batch size

    def __init__(self, settings: EmbedderSettings, cache_dir: Path) -> None:
        from stigmergy.index.embedder import make_embedder

        self._make = lambda threads: make_embedder(settings, cache_dir, threads=threads)
        self._one = self._make(1)
        self._all: object | None = None
        self.name, self.dimension = self._one.name, self._one.dimension
        self.batch_size = getattr(self._one, "batch_size", 32)

    def embed(self, texts: list[str]) -> object:
        if len(texts) <= self.SMALL:
            return self._one.embed(texts)
        if self._all is None:
            self._all = self._make(0)
        return self._all.embed(texts)  # type: ignore[attr-defined]


def parse_request(line: bytes) -> str | None:
    """The commit id of a well-formed request line, else None."""
    text = line.decode("ascii", "replace").rstrip("\n")
    head, _, commit = text.rpartition(" ")
    return commit if head == PROTOCOL.decode() and is_commit_id(commit) else None


def _read_line(conn: socket.socket) -> bytes:
    """One request line, read within REQUEST_TIMEOUT_S in all (a byte now and then does not hold the worker)."""
    data = b""
    deadline = time.monotonic() + REQUEST_TIMEOUT_S
    while b"\n" not in data and len(data) <= MAX_LINE:
        left = deadline - time.monotonic()
        if left <= 0:
            return b""
        conn.settimeout(left)
        chunk = conn.recv(MAX_LINE + 1)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0] + b"\n" if b"\n" in data else b""


def handle(conn: socket.socket, run: Callable[[str], str], log: Callable[[str], None]) -> str:
    """Serve one connection: who asks, what, the run, the answer. Returns the answer."""
    t0 = time.perf_counter()
    uid = peer_uid(conn)
    if uid != os.getuid():
        answer = "refused not this worker's user"
    else:
        try:
            commit = parse_request(_read_line(conn))
        except OSError:
            commit = None
        if commit is None:
            answer = "refused a request is one line: stigmergy-index 1 <commit>"
        else:
            try:
                answer = run(commit)
            except StigmergyError as exc:
                answer = f"error {exc.message}"
            except Exception as exc:  # noqa: BLE001 (the worker outlives a failed run; the hook falls back)
                answer = f"error {exc.__class__.__name__}: {exc}"
    answer = " ".join(answer.split())[: MAX_LINE - 1]
    with contextlib.suppress(OSError):
        conn.settimeout(REQUEST_TIMEOUT_S)
        conn.sendall(answer.encode("utf-8") + b"\n")
    log(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} uid={uid} {answer} "
        f"({time.perf_counter() - t0:.3f} s)")
    return answer


def serve(sock: socket.socket, run: Callable[[str], str], stop: threading.Event,
          log: Callable[[str], None] = lambda line: None) -> None:
    """Answer requests one at a time until `stop` is set; the socket file is removed on the way out."""
    path = sock.getsockname()
    sock.settimeout(0.5)  # how soon `stop` is noticed
    try:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            with conn:
                handle(conn, run, log)
    finally:
        sock.close()
        with contextlib.suppress(OSError):
            os.unlink(path)


__all__ = ["WarmIndexer", "bind_socket", "handle", "parse_request", "serve"]
