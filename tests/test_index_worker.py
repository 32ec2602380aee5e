"""The index worker (index/worker.py) and the hook's side of it (index/worker_client.py): who may ask it for
work, what a request may say, and a real push through a bare repository's hooks into a real PostgreSQL
index, with the worker and after it is gone (the hook indexes in-process again)."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_index_support import RepoBuilder, git, link_model_cache

from stigmergy.errors import UsageError
from stigmergy.index.store import index_location, open_index
from stigmergy.index.worker import WarmIndexer, bind_socket, parse_request, serve
from stigmergy.index.worker_client import PROTOCOL, SOCKET_NAME, ask_worker, head_commit
from stigmergy.repo.layout import Layout


class Recorder:
    """A stand-in for the index run: records what it was asked and answers ok."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, commit: str) -> str:
        self.asked.append(commit)
        return f"ok {commit}"


def _repo(root: Path) -> RepoBuilder:
    b = RepoBuilder(root)
    b.wiki("note", "First", "The first page.\n")
    b.commit("first")
    return b


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[tuple[RepoBuilder, Recorder, list[str]]]:
    yield from _serving(tmp_path)


@pytest.fixture
def open_worker() -> Iterator[tuple[RepoBuilder, Recorder, list[str]]]:
    # Another user must be able to walk to the socket, so its folders are opened to others; a folder of
    # its own under /tmp, because pytest resets its shared base folder to 0700 whenever another pytest
    # run on the machine starts, which would close the way mid-test.
    base = Path(tempfile.mkdtemp(prefix="stigmergy-worker-"))
    try:
        yield from _serving(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _serving(base: Path) -> Iterator[tuple[RepoBuilder, Recorder, list[str]]]:
    b = _repo(base / "w")
    run, lines = Recorder(), []
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(bind_socket(b.root), run, stop, lines.append), daemon=True)
    thread.start()
    yield b, run, lines
    stop.set()
    thread.join(5)
    assert not (b.root / ".git" / SOCKET_NAME).exists()


def _raw(root: Path, payload: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(root / ".git" / SOCKET_NAME))
        try:  # the worker stops reading past one line's worth and answers
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        return s.recv(4096)


def test_the_hook_asks_with_the_commit_alone_and_is_told_it_is_done(worker) -> None:  # noqa: ANN001
    b, run, _ = worker
    head = git(b.root, "rev-parse", "HEAD").strip()
    sock = b.root / ".git" / SOCKET_NAME
    assert oct(sock.stat().st_mode & 0o777) == "0o600"
    assert head_commit(str(b.root)) == head
    assert ask_worker(str(b.root)) == (True, f"ok {head}")
    assert run.asked == [head]
    # Packed refs (after gc) are read too, without a subprocess.
    git(b.root, "pack-refs", "--all")
    assert head_commit(str(b.root)) == head


@pytest.mark.parametrize("payload", [
    b"stigmergy-index 1 ../../etc/passwd\n",
    b"stigmergy-index 1 HEAD\n",
    b"stigmergy-index 1 " + b"a" * 40 + b" --rebuild\n",
    b"stigmergy-index 2 " + b"a" * 40 + b"\n",
    b"index " + b"a" * 40 + b"\n",
    b"stigmergy-index 1 " + b"A" * 40 + b"\n",
    b"stigmergy-index 1 " + b"a" * 40,  # no end of line
    b"stigmergy-index 1 " + b"a" * 4000 + b"\n",
    b"\x00" * 300,
    b"",
])
def test_a_malformed_request_runs_nothing_and_the_worker_keeps_serving(worker, payload: bytes) -> None:  # noqa: ANN001
    b, run, _ = worker
    assert _raw(b.root, payload).startswith(b"refused ")
    assert run.asked == []
    assert ask_worker(str(b.root))[0]


def test_a_client_that_drips_bytes_is_cut_off_and_the_next_push_served(worker) -> None:  # noqa: ANN001
    b, run, lines = worker
    t0 = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(b.root / ".git" / SOCKET_NAME))
        try:
            for byte in b"stigmergy-index 1 ":  # a byte every 0.4 s: each recv alone would wait forever
                s.sendall(bytes([byte]))
                time.sleep(0.4)
        except OSError:
            pass
        answer = s.recv(400)
    assert answer.startswith(b"refused"), answer
    assert time.monotonic() - t0 < 8.0  # cut at ~2 s, not after the whole drip
    assert run.asked == []
    assert ask_worker(str(b.root))[0]


def test_parse_request_takes_one_commit_id_and_nothing_else() -> None:
    assert parse_request(PROTOCOL + b" " + b"0" * 40 + b"\n") == "0" * 40
    assert parse_request(PROTOCOL + b" " + b"f" * 64 + b"\n") == "f" * 64
    assert parse_request(PROTOCOL + b" " + b"0" * 39 + b"\n") is None
    assert parse_request(PROTOCOL + b"  " + b"0" * 40 + b"\n") is None


def _as_user(uid: int, gid: int, sock: Path, payload: bytes) -> bytes:
    """Connect and send as another user: a forked child drops to `uid` (no new interpreter, which that user
    may not be allowed to run) and hands the answer back through a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: socket calls only, then out
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(10)
                s.connect(str(sock))
                try:  # the worker may answer and close before reading a word from a stranger
                    s.sendall(payload)
                    s.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                os.write(write_end, s.recv(400))
        except BaseException as exc:  # noqa: BLE001
            os.write(write_end, f"child failed: {exc!r}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        answer = f.read()
    os.waitpid(pid, 0)
    return answer


def _nobody() -> tuple[int, int]:
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


@pytest.mark.skipif(os.geteuid() != 0, reason="running a client as another user needs root")
def test_another_user_is_refused_even_through_an_open_socket(open_worker) -> None:  # noqa: ANN001
    b, run, lines = open_worker
    sock = b.root / ".git" / SOCKET_NAME
    sock.chmod(0o666)  # as if the mode were lost: the peer's user is still checked
    for p in (b.root / ".git", b.root, *b.root.parents):
        p.chmod(p.stat().st_mode | 0o001)
    head = git(b.root, "rev-parse", "HEAD").strip()
    uid, gid = _nobody()
    answer = _as_user(uid, gid, sock, f"stigmergy-index 1 {head}\n".encode())
    assert answer.startswith(b"refused not this worker's user"), answer
    assert run.asked == []
    assert f"uid={uid} refused" in lines[-1]


@pytest.mark.skipif(os.geteuid() != 0, reason="a socket of another user needs root to make")
def test_the_hook_trusts_no_socket_but_its_users_private_one(tmp_path: Path) -> None:
    b = _repo(tmp_path / "w")
    path = b.root / ".git" / SOCKET_NAME
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    try:
        path.chmod(0o666)
        done, why = ask_worker(str(b.root))
        assert not done and "not this user's private socket" in why
        path.chmod(0o600)
        os.chown(path, *_nobody())
        done, why = ask_worker(str(b.root))
        assert not done and "not this user's private socket" in why
    finally:
        listener.close()


def test_no_worker_is_silent_and_a_stale_socket_is_no_worker(tmp_path: Path) -> None:
    b = _repo(tmp_path / "w")
    assert ask_worker(str(b.root)) == (False, "")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(b.root / ".git" / SOCKET_NAME))
    stale.close()  # bound, never listening: what a killed worker leaves
    (b.root / ".git" / SOCKET_NAME).chmod(0o600)
    assert ask_worker(str(b.root)) == (False, "")
    # A new worker replaces the stale socket.
    sock = bind_socket(b.root)
    sock.close()


def test_the_worker_refuses_a_shared_git_dir_a_foreign_file_and_a_second_worker(tmp_path: Path) -> None:
    b = _repo(tmp_path / "w")
    git_dir = b.root / ".git"
    git_dir.chmod(0o777)
    with pytest.raises(UsageError, match="writable by no one else"):
        bind_socket(b.root)
    git_dir.chmod(0o755)
    (git_dir / SOCKET_NAME).write_text("not a socket")
    with pytest.raises(UsageError, match="not a socket"):
        bind_socket(b.root)
    assert (git_dir / SOCKET_NAME).read_text() == "not a socket"  # left alone
    (git_dir / SOCKET_NAME).unlink()
    first = bind_socket(b.root)
    try:
        with pytest.raises(UsageError, match="already listens"):
            bind_socket(b.root)
    finally:
        first.close()


def test_a_commit_not_in_head_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    b = _repo(tmp_path / "w")
    indexer = WarmIndexer(b.root, {})
    assert indexer("0" * 40).startswith("refused")
    # A real commit that HEAD does not contain (another branch's).
    git(b.root, "checkout", "-q", "-b", "side")
    b.wiki("note", "Side", "A side page.\n")
    b.commit("side")
    side = git(b.root, "rev-parse", "HEAD").strip()
    git(b.root, "checkout", "-q", "main")
    assert indexer(side).startswith("refused")
    assert indexer.runs == 0 and not Layout(b.root).index_db.exists()


# ------------------------------------------------------------- a real push, a real hook, a real PostgreSQL

_MARK = 'import pathlib; pathlib.Path({path!r}).write_text("imported")\n'
# What the hook's side imports before it knows whether a worker answers, and stigmergy itself.
HOSTILE = ("socket.py", "struct.py", "stat.py", "stigmergy/__init__.py", "stigmergy/index/worker_client.py")


def _stigmergy(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-m", "stigmergy", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **env})


def _indexed(checkout: Path, env: dict[str, str]) -> str | None:
    store = open_index(index_location(Layout(checkout), RepoBuilder(checkout, env=env).settings))
    try:
        return store.meta("commit")
    finally:
        store.close()


@pytest.mark.model
def test_a_push_is_indexed_by_the_worker_and_by_the_hook_once_it_is_gone(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, pg_env: dict[str, str]) -> None:
    bare, checkout, markers = tmp_path / "hub.git", tmp_path / "served", tmp_path / "markers"
    markers.mkdir()
    git(tmp_path, "init", "-q", "--bare", str(bare))
    dev = RepoBuilder(tmp_path / "dev", env=pg_env)
    dev.wiki("note", "Seed", "Seed page.\n")
    dev.commit("seed")
    git(dev.root, "remote", "add", "origin", str(bare))
    git(dev.root, "push", "-q", "origin", "main")
    proc = _stigmergy(["hooks", "install", "--server", str(bare), "--checkout", str(checkout)], tmp_path, pg_env)
    assert proc.returncode == 0, proc.stderr
    link_model_cache(checkout, tmp_path_factory.getbasetemp())
    env = {**os.environ, **pg_env}
    worker = subprocess.Popen([sys.executable, "-I", "-m", "stigmergy", "index-worker"], cwd=checkout, env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert worker.stderr is not None
        ready = worker.stderr.readline()
        assert "index worker listening at" in ready, ready + (worker.stderr.read() if worker.poll() is not None else "")
        # 1. With the worker: a changed page, and files that would run if the hook imported from the checkout.
        dev.wiki("note", "Marmalade", "Seville orange marmalade recipe for the team offsite.\n")
        for name in HOSTILE:
            dev.write(name, _MARK.format(path=str(markers / name.replace("/", "__"))))
        dev.commit("marmalade")
        push = subprocess.run(["git", "push", "origin", "main"], cwd=dev.root, capture_output=True, text=True, env=env)
        assert push.returncode == 0, push.stderr
        head = git(dev.root, "rev-parse", "HEAD").strip()
        assert _indexed(checkout, pg_env) == head  # the push returned after the index reflected it
        out = _stigmergy(["search", "orange marmalade offsite", "--json"], checkout, pg_env)
        assert out.returncode == 0 and "wiki/notes/Marmalade.md" in out.stdout, out.stderr
        worker.send_signal(signal.SIGTERM)
        _, log = worker.communicate(timeout=30)
        assert f"ok {head}" in log, log
        assert worker.returncode == 0, log
        assert not (checkout / ".git" / "stigmergy-index.sock").exists()
        assert sorted(markers.iterdir()) == []
        hook_log = (checkout / ".stigmergy" / "hook.log")
        assert "index worker:" not in (hook_log.read_text() if hook_log.exists() else "")

        # 2. Without it: the hook indexes in-process, as before.
        dev.wiki("note", "Quince", "Quince paste pairs with the manchego at the offsite.\n")
        dev.commit("quince")
        t0 = time.monotonic()
        push = subprocess.run(["git", "push", "origin", "main"], cwd=dev.root, capture_output=True, text=True, env=env)
        assert push.returncode == 0, push.stderr
        assert time.monotonic() - t0 < 120
        assert _indexed(checkout, pg_env) == git(dev.root, "rev-parse", "HEAD").strip()
        assert sorted(markers.iterdir()) == []

        # 3. A worker that answers but fails: the hook says so and indexes in-process.
        stop = threading.Event()
        failing = threading.Thread(target=serve, args=(bind_socket(checkout), lambda c: "error the database is gone",
                                                       stop), daemon=True)
        failing.start()
        try:
            dev.wiki("note", "Medlar", "Medlar jelly for the winter offsite.\n")
            dev.commit("medlar")
            push = subprocess.run(["git", "push", "origin", "main"], cwd=dev.root, capture_output=True, text=True,
                                  env=env)
            assert push.returncode == 0, push.stderr
        finally:
            stop.set()
            failing.join(5)
        assert _indexed(checkout, pg_env) == git(dev.root, "rev-parse", "HEAD").strip()
        assert "stigmergy: index worker: error the database is gone" in hook_log.read_text()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_the_worker_keeps_its_connection_and_reconnects_after_losing_it(tmp_path: Path, pg_env: dict[str, str]) -> None:
    from test_index_support import HashEmbedder
    from test_shared_index import _psql

    b = RepoBuilder(tmp_path / "w", env=pg_env)
    b.wiki("note", "First", "The first page.\n")
    b.commit("first")
    indexer = WarmIndexer(b.root, dict(pg_env))
    embedder = HashEmbedder()
    indexer.embedder = lambda settings: embedder  # type: ignore[method-assign]  # no model: this is about the store
    head = git(b.root, "rev-parse", "HEAD").strip()
    assert indexer(head) == f"ok {head}"
    store = indexer._store
    assert store is not None and not store.conn.closed  # kept open for the next request
    b.wiki("note", "Second", "The second page.\n")
    b.commit("second")
    head = git(b.root, "rev-parse", "HEAD").strip()
    assert indexer(head) == f"ok {head}" and indexer._store is store
    # The server ends the session (a restart, an administrator): one request may fail, then a new one.
    url, schema = pg_env["STIGMERGY_INDEX__URL"], pg_env["STIGMERGY_INDEX__SCHEMA"]
    pid = store.conn.info.backend_pid
    _psql(url, schema, f"SELECT pg_terminate_backend({pid})")
    b.wiki("note", "Third", "The third page.\n")
    b.commit("third")
    head = git(b.root, "rev-parse", "HEAD").strip()
    answers = []
    for _ in range(2):
        try:
            answers.append(indexer(head))
        except Exception as exc:  # noqa: BLE001 (what handle() turns into an "error" answer)
            answers.append(f"error {exc}")
        if answers[-1].startswith("ok"):
            break
    assert answers[-1] == f"ok {head}", answers
    assert indexer._store is not store
    assert _indexed(b.root, pg_env) == head
    indexer.close()
