"""Real servers on loopback for the tests and the benches that need them: PostgreSQL with pgvector (the
binaries the `pgserver` PyPI package bundles) and an S3-protocol server (moto's server mode).

Not a test module: `tests/conftest.py` starts one of each per test session (each test gets its own schema
or bucket), and `bench/team.py` starts its own. Both listen on 127.0.0.1 only and stop when asked (and at
interpreter exit).

PostgreSQL refuses to run as root, so as root the server runs as a dedicated system user (`stigmergy-pg`,
made with `useradd` when missing) over a data folder it owns; the bundled binaries must be reachable by
that user, so the folders above them gain the others' traverse bit (o+x) where they lack it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PG_USER = "stigmergy-pg"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_bin() -> Path:
    """The bin folder of the PostgreSQL (16, with pgvector) that the `pgserver` package ships."""
    import importlib.util

    # Found, not imported: importing pgserver starts its own machinery (lock files, a runtime folder).
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the pgserver package is not installed (make install puts it in the venv)")
    return Path(next(iter(spec.submodule_search_locations))).resolve() / "pginstall" / "bin"


def _traversable(path: Path) -> None:
    """Give the others' execute bit to `path` and each folder above it that lacks it (no read bit)."""
    for p in (path, *path.parents):
        mode = p.stat().st_mode
        if not mode & stat.S_IXOTH:
            p.chmod(mode | stat.S_IXOTH)


def _pg_user() -> tuple[int, int] | None:
    """(uid, gid) to run the server as when we are root, else None."""
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        entry = pwd.getpwnam(PG_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
                       check=True, capture_output=True)
        entry = pwd.getpwnam(PG_USER)
    return entry.pw_uid, entry.pw_gid


@dataclass
class Postgres:
    """One PostgreSQL server on 127.0.0.1:<port> over a fresh data folder (fsync off: test data)."""

    base: Path
    port: int
    settings: dict[str, str] = field(default_factory=dict)
    _user: tuple[int, int] | None = None
    keep: bool = False  # `stop` leaves the data folder (a bench's built schemas, reused by its next run)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def data(self) -> Path:
        return self.base / "data"

    def hnsw_rebuild_s(self, schema: str) -> float | None:
        """Seconds to build `schema`'s HNSW graph(s) again, the build step alone (REINDEX); None when it has none
        (pgvector builds none below the store's vector threshold). For the benches' size figures."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            names = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = %s AND "
                                                "indexname LIKE 'vec_hnsw%%'", (schema,)).fetchall()]
            if not names:
                return None
            start = time.perf_counter()
            for name in names:
                conn.execute(f'REINDEX INDEX "{schema}"."{name}"')
            return round(time.perf_counter() - start, 1)

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        kw: dict[str, object] = {}
        if self._user is not None:
            kw = {"user": self._user[0], "group": self._user[1], "extra_groups": []}
        return subprocess.run([str(pg_bin() / args[0]), *args[1:]], capture_output=True, text=True,
                              timeout=timeout, cwd=self.base, check=False, **kw)  # type: ignore[call-overload]

    @classmethod
    def start(cls, settings: dict[str, str] | None = None, keep_at: Path | None = None) -> Postgres:
        """`keep_at`: a folder kept between runs (a bench's): its data folder is reused when there, and
        `stop` leaves it."""
        base = keep_at or Path(tempfile.mkdtemp(prefix="stigmergy-pg-"))
        base.mkdir(parents=True, exist_ok=True)
        user = _pg_user()
        if user is not None:
            _traversable(pg_bin())
            os.chown(base, *user)
        server = cls(base, free_port(), dict(settings or {}), user, keep=keep_at is not None)
        if not (server.data / "PG_VERSION").exists():
            done = server._run("initdb", "-D", str(server.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                               "--locale=C", "--no-sync")
            if done.returncode != 0:
                if not server.keep:
                    shutil.rmtree(base, ignore_errors=True)
                raise RuntimeError(f"initdb failed: {done.stderr.strip()[-2000:]}")
        opts = {"listen_addresses": "127.0.0.1", "port": str(server.port), "unix_socket_directories": str(base),
                "fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "200",
                **server.settings}
        done = server._run("pg_ctl", "-D", str(server.data), "-l", str(base / "log"), "-w", "-t", "60",
                           "-o", " ".join(f"-c {k}={v}" for k, v in opts.items()), "start")
        if done.returncode != 0:
            log = (base / "log").read_text(errors="replace")[-2000:] if (base / "log").exists() else ""
            if not server.keep:
                shutil.rmtree(base, ignore_errors=True)
            raise RuntimeError(f"PostgreSQL did not start: {done.stderr.strip()} {log}")
        atexit.register(server.stop)
        return server

    def stop(self) -> None:
        if self.data.exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", timeout=60)
        if not self.keep:
            shutil.rmtree(self.base, ignore_errors=True)

    def _processes(self) -> list[tuple[Path, bool, list[str]]]:
        """The server's processes from /proc: (the /proc folder, whether it is the postmaster, the fields of
        its `stat` after the command name); empty when the server is not running."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return []
        out = []
        for p in Path("/proc").iterdir():
            if not p.name.isdigit():
                continue
            try:
                fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
                if int(p.name) == pid or int(fields[1]) == pid:  # the postmaster and its children
                    out.append((p, int(p.name) == pid, fields))
            except (OSError, ValueError, IndexError):
                continue
        return out

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) the server has used: the postmaster's own and its reaped backends'
        (its children's times), plus the live backends', from /proc."""
        ticks = 0
        for _, postmaster, fields in self._processes():
            ticks += sum(int(f) for f in fields[11:15]) if postmaster else int(fields[11]) + int(fields[12])  # utime stime [cutime cstime]
        return ticks / os.sysconf("SC_CLK_TCK")

    def rss_bytes(self) -> int:
        """Resident memory of every process of the server (postmaster and backends), from /proc."""
        total = 0
        for p, _, _ in self._processes():
            try:
                total += int((p / "statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, ValueError, IndexError):
                continue  # a backend that ended between the two reads
        return total


@dataclass
class S3Server:
    """moto's S3-protocol server on 127.0.0.1:<port> (a real HTTP server speaking the S3 protocol)."""

    server: object
    port: int

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    def start(cls) -> S3Server:
        import logging

        from moto.server import ThreadedMotoServer  # type: ignore[import-untyped]

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
        port = free_port()
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        server.start()
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.05)
        started = cls(server, port)
        atexit.register(started.stop)
        return started

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.server.stop()  # type: ignore[attr-defined]


# Credentials for the loopback S3 server only (moto accepts any); the standard AWS chain reads them.
S3_TEST_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


class FaultyS3Proxy:
    """A loopback HTTP proxy in front of `S3Server` that breaks object uploads on purpose: from the
    `fail_from`-th PUT of an evidence object (counting from 0) on, `mode` "cut" drops the connection after
    half the body arrived (a network failure mid-upload: the server never gets the request, as S3 stores
    nothing of an incomplete PUT), and "flip" delivers the body with one byte changed (damage on the way
    that the server does not catch). Everything else passes through. One request per connection."""

    def __init__(self, upstream_port: int, mode: str = "cut", fail_from: int = 0) -> None:
        import threading

        self.upstream_port, self.mode, self.fail_from = upstream_port, mode, fail_from
        self.object_puts = 0
        self.faults = 0
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(32)
        self.port = int(self._sock.getsockname()[1])
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        import threading

        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    @staticmethod
    def _read_head(conn: socket.socket) -> tuple[bytes, bytes]:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data, b""
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        return head, rest

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            head, body = self._read_head(conn)
            if not head:
                return
            lines = head.split(b"\r\n")
            method, target = lines[0].split(b" ")[:2]
            headers = [h for h in lines[1:] if not h.lower().startswith(b"expect:")]
            length = next((int(h.split(b":", 1)[1]) for h in headers if h.lower().startswith(b"content-length:")), 0)
            if any(h.lower().startswith(b"expect:") for h in lines[1:]):
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            fault = False
            if method == b"PUT" and b"/objects/" in target:
                with self._lock:
                    fault = self.object_puts >= self.fail_from
                    self.object_puts += 1
                    self.faults += fault
            want = length // 2 if fault and self.mode == "cut" else length
            while len(body) < want:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                body += chunk
            if fault and self.mode == "cut":
                conn.shutdown(socket.SHUT_RDWR)
                return
            if fault and self.mode == "flip" and body:
                body = bytes([body[0] ^ 0x01]) + body[1:]
            with socket.create_connection(("127.0.0.1", self.upstream_port)) as up:
                up.sendall(b"\r\n".join([lines[0], *headers]) + b"\r\n\r\n" + body)
                while chunk := up.recv(65536):
                    conn.sendall(chunk)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
