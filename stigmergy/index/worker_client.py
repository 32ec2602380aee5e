"""The post-receive hook's side of the index worker (index/worker.py): ask a warm worker to index this
checkout's HEAD, and say whether it did.

The hook runs this file by its path, `python -I -S .../worker_client.py` (index/hooks.py): standard
library only, nothing of stigmergy and no site-packages, since the hook's Python pays for every import
before the push can return; exit 0 means done, anything else and the hook indexes in-process. The request carries one commit id and nothing else: the worker re-reads everything from Git
itself, so a request can ask for work but never choose what is read, where, or what runs.

Who may talk to whom: the socket lives in the checkout's git directory (only its owner can write
there), is a socket owned by this user with no group or other permission bits, and the process that
answers runs as this user (SO_PEERCRED). Anything else is "no worker", and the hook indexes in-process.
"""

# (No `from __future__ import annotations`: the annotations here evaluate on 3.11, and each import counts.)

# The C modules under `socket` and `struct`: `socket` builds its enums at import (AddressFamily & co.), which
# cost ~40 ms of a loaded machine's wall time per hook run, and the calls used here are the same objects'.
import _socket
import _struct
import os
import stat
import sys

SOCKET_NAME = "stigmergy-index.sock"
PROTOCOL = b"stigmergy-index 1"
MAX_LINE = 256
# How long the hook waits for the worker's answer: a push of many pages embeds them all before it answers;
# past this the hook gives up on the worker and indexes in-process (the index lock keeps them apart).
ANSWER_TIMEOUT_S = 120.0
CONNECT_TIMEOUT_S = 2.0


def socket_path(git_dir: str) -> str:
    return os.path.join(git_dir, SOCKET_NAME)


def peer_uid(sock: _socket.socket) -> int | None:
    """The user id of the process at the other end of a Unix socket (Linux), or None where unknown."""
    opt = getattr(_socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    _pid, uid, _gid = _struct.unpack("3i", sock.getsockopt(_socket.SOL_SOCKET, opt, _struct.calcsize("3i")))
    return int(uid)


def head_commit(root: str) -> str | None:
    """HEAD's commit id from the files under `root`/.git (no subprocess): a branch's loose ref or its line
    in packed-refs, or a detached id. None when it cannot be read that way."""
    git_dir = os.path.join(root, ".git")
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="ascii") as f:
            ref = f.read().strip()
        if not ref.startswith("ref: "):
            return ref or None
        name = ref[5:]
        if ".." in name.split("/") or not name.startswith("refs/"):
            return None
        loose = os.path.join(git_dir, name)
        if os.path.isfile(loose):
            with open(loose, encoding="ascii") as f:
                return f.read().strip() or None
        with open(os.path.join(git_dir, "packed-refs"), encoding="ascii") as f:
            for line in f:
                if line.rstrip("\n").endswith(" " + name):
                    return line.split(" ", 1)[0]
    except (OSError, UnicodeDecodeError):
        return None
    return None


def is_commit_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def ask_worker(root: str, timeout: float = ANSWER_TIMEOUT_S) -> tuple[bool, str]:
    """Ask the worker of the repository at `root` to index its HEAD. Returns (done, why): done when the
    worker answered that the index reflects HEAD (or that the index lock's holder will); else why not,
    "" when there is no worker at all (the usual case: nothing to say)."""
    path = socket_path(os.path.join(root, ".git"))
    try:
        st = os.lstat(path)
    except OSError:
        return False, ""
    commit = head_commit(root)
    if commit is None or not is_commit_id(commit):
        return False, "HEAD could not be read from .git"
    uid = os.getuid()
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        return False, f"{path} is not this user's private socket (mode {st.st_mode & 0o7777:o}, owner {st.st_uid})"
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(path)
        if peer_uid(sock) != uid:
            return False, "the worker runs as another user"
        sock.sendall(PROTOCOL + b" " + commit.encode("ascii") + b"\n")
        sock.settimeout(timeout)
        answer = b""
        while b"\n" not in answer and len(answer) < MAX_LINE:
            chunk = sock.recv(MAX_LINE)
            if not chunk:
                break
            answer += chunk
    except OSError as exc:  # refused (a stale socket), path too long, timed out, reset
        return False, f"no answer ({exc.__class__.__name__}: {exc})" if not isinstance(exc, ConnectionRefusedError) else ""
    finally:
        sock.close()
    line = answer.split(b"\n", 1)[0].decode("utf-8", "replace")
    word, _, rest = line.partition(" ")
    if word in ("ok", "deferred"):
        return True, line
    return False, line or "the worker closed the connection without an answer"


def main(argv: list[str]) -> int:
    """`python -I -S worker_client.py [ROOT]` (ROOT: the checkout, default the working folder): exit 0 when
    the worker indexed HEAD, 3 when there is no worker, 1 when one answered otherwise."""
    done, why = ask_worker(argv[0] if argv else os.getcwd())
    if why and not done:
        sys.stderr.write(f"stigmergy: index worker: {why}\n")
    return 0 if done else (3 if not why else 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
