"""Git hooks that keep the index current.

Client hooks (post-commit, post-merge, post-checkout, post-rewrite) start `python -I -m stigmergy.cli.hook`
(what `stigmergy index --hook` does, without the Typer app's start-up) in the background, with the very Python that installed them, and return at once. Every hook runs
Python isolated (repo/child.py): it runs in a repository anyone can push to, and `-m` would otherwise
import a pushed `stigmergy.py` (or `typer.py`, ...) from the working folder instead of the installed code. The runner
never runs twice at once: a run that finds the index lock taken leaves a "dirty" mark, and the running
one loops once more before it lets go. A server hook (post-receive, in a bare repository) fast-forwards
a checkout and indexes it on every push.

Our lines sit between two marker comments inside the hook scripts, so `uninstall` removes exactly what
`install` added and leaves anyone else's hook lines alone.
"""

from __future__ import annotations

import shlex
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import UsageError
from stigmergy.index import worker_client
from stigmergy.index.freshness import try_index_lock
from stigmergy.repo.child import check_isolated_import, shell_python
from stigmergy.repo.layout import Layout

BEGIN = "# >>> stigmergy index hook (added by `stigmergy hooks install`; remove with `stigmergy hooks uninstall`) >>>"
END = "# <<< stigmergy index hook <<<"
CLIENT_HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
SERVER_HOOKS = ("post-receive",)
GATE_HOOKS = ("pre-receive",)  # the preservation gates on every pushed commit (gates/history.py)
SHEBANG = "#!/bin/sh"
_GIT_ENV = "GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE GIT_PREFIX GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_QUARANTINE_PATH"


@dataclass(frozen=True)
class HookChange:
    hook: str
    path: str
    action: str  # created | added | replaced | removed | deleted | absent


def _hooks_dir(repo: Path) -> Path:
    out = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=repo, capture_output=True, text=True)
    if out.returncode != 0:
        raise UsageError(f"{repo} is not a git repository", hint="run `git init` (or `stigmergy init`) first")
    path = Path(out.stdout.strip())
    return path if path.is_absolute() else (repo / path).resolve()


def _client_block(python: str) -> str:
    py = shell_python(python)
    return (
        f"{BEGIN}\n"
        'if stigmergy_root="$(git rev-parse --show-toplevel 2>/dev/null)" && [ -f "$stigmergy_root/stigmergy.toml" ]; then\n'
        '  mkdir -p "$stigmergy_root/.stigmergy"\n'
        f'  ( unset {_GIT_ENV}; cd "$stigmergy_root" && exec {py} -m stigmergy.cli.hook ) '
        '</dev/null >>"$stigmergy_root/.stigmergy/hook.log" 2>&1 &\n'
        "fi\n"
        f"{END}\n"
    )


def _server_block(python: str, checkout: Path) -> str:
    py, co = shell_python(python), shlex.quote(str(checkout))
    client = shlex.quote(str(Path(worker_client.__file__).resolve()))
    return (
        f"{BEGIN}\n"
        f"stigmergy_checkout={co}\n"
        '( unset ' + _GIT_ENV + '\n'
        '  cd "$stigmergy_checkout" || exit 0\n'
        '  branch="$(git symbolic-ref --short HEAD)"\n'
        '  git fetch -q origin "$branch" || exit 0\n'
        # Derived state is never taken from tracked files: a pushed `.stigmergy/` would overwrite the
        # checkout's index (git treats ignored files as expendable). Such a tree is not checked out.
        '  if [ -n "$(git ls-tree -r --name-only FETCH_HEAD -- .stigmergy)" ]; then\n'
        '    echo "stigmergy: $stigmergy_checkout not updated: the pushed tree tracks .stigmergy/ (local state;'
        ' remove it with git rm -r --cached .stigmergy and push again)" >&2\n'
        '    exit 0\n'
        '  fi\n'
        '  git merge -q --ff-only FETCH_HEAD && mkdir -p .stigmergy && '
        # The index worker, when one runs here, indexes with its model loaded (index/worker.py); its client is
        # the standard library alone (-S: not even site-packages), started only when the worker's socket is
        # there. Anything but "done" and we index ourselves.
        f'{{ [ -S .git/{worker_client.SOCKET_NAME} ] && {py} -S {client} || {py} -m stigmergy.cli.hook --push; }}'
        ' >>.stigmergy/hook.log 2>&1\n'
        ") </dev/null\n"
        f"{END}\n"
    )


def _gate_block(python: str) -> str:
    # Keeps git's object environment (a push's objects wait in quarantine until this hook says yes). The
    # ref list is read once and handed on, so hook lines after ours still get it on stdin.
    py = shell_python(python)
    return (
        f"{BEGIN}\n"
        'stigmergy_refs="$(mktemp)" && cat >"$stigmergy_refs"\n'
        f'{py} -m stigmergy hooks pre-receive <"$stigmergy_refs" || {{ rm -f "$stigmergy_refs"; exit 1; }}\n'
        'exec <"$stigmergy_refs"; rm -f "$stigmergy_refs"\n'
        f"{END}\n"
    )


def _strip_block(text: str) -> tuple[str, bool]:
    lines = text.splitlines(keepends=True)
    out, inside, found = [], False, False
    for line in lines:
        if line.rstrip("\n") == BEGIN:
            inside, found = True, True
            continue
        if inside:
            if line.rstrip("\n") == END:
                inside = False
            continue
        out.append(line)
    return "".join(out), found


def _write_hook(path: Path, block: str) -> str:
    if path.exists():
        text = path.read_text(encoding="utf-8")
        rest, found = _strip_block(text)
        first, nl, tail = rest.partition("\n")
        if first.startswith("#!"):
            # Right after the shebang: a trailing `exit 0` in someone else's hook cannot skip us.
            new = first + nl + block + tail
        else:
            new = block + rest
        action = "replaced" if found else "added"
    else:
        new, action = f"{SHEBANG}\n{block}", "created"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return action


def _interpreter(python: str | None) -> str:
    """The hooks' Python: the one running now, once it is known to import this stigmergy isolated."""
    if python is not None:
        return python
    check_isolated_import(sys.executable)
    return sys.executable


def install(repo: Path, python: str | None = None) -> list[HookChange]:
    """Install the client hooks in `repo` (a working repository)."""
    hooks = _hooks_dir(repo)
    block = _client_block(_interpreter(python))
    return [HookChange(h, str(hooks / h), _write_hook(hooks / h, block)) for h in CLIENT_HOOKS]


def install_server(bare: Path, checkout: Path | None, python: str | None = None) -> list[HookChange]:
    """Install, in the bare repository `bare`, a pre-receive hook that rejects a push whose commits break a
    preservation gate, and (given `checkout`) a post-receive hook that fast-forwards `checkout` (cloned
    now if absent) and indexes it on every push."""
    out = subprocess.run(["git", "rev-parse", "--is-bare-repository"], cwd=bare, capture_output=True, text=True)
    if out.stdout.strip() != "true":
        raise UsageError(f"{bare} is not a bare repository", hint="pass the bare repository people push to")
    hooks = _hooks_dir(bare)
    changes = []
    if checkout is not None:
        checkout = checkout.resolve()
        if not checkout.exists():
            cloned = subprocess.run(["git", "clone", "-q", str(bare.resolve()), str(checkout)], capture_output=True, text=True)
            if cloned.returncode != 0:
                raise UsageError(f"could not clone {bare} into {checkout}: {cloned.stderr.strip()}")
        block = _server_block(_interpreter(python), checkout)
        changes = [HookChange(h, str(hooks / h), _write_hook(hooks / h, block)) for h in SERVER_HOOKS]
    gate = _gate_block(_interpreter(python))
    return changes + [HookChange(h, str(hooks / h), _write_hook(hooks / h, gate)) for h in GATE_HOOKS]


def uninstall(repo: Path) -> list[HookChange]:
    """Remove our block from every hook; delete a hook file only when nothing but our block was in it."""
    hooks = _hooks_dir(repo)
    changes = []
    for h in (*CLIENT_HOOKS, *SERVER_HOOKS, *GATE_HOOKS):
        path = hooks / h
        if not path.exists():
            continue
        rest, found = _strip_block(path.read_text(encoding="utf-8"))
        if not found:
            continue
        if rest.strip() in ("", SHEBANG):
            path.unlink()
            changes.append(HookChange(h, str(path), "deleted"))
        else:
            path.write_text(rest, encoding="utf-8")
            changes.append(HookChange(h, str(path), "removed"))
    return changes


def run_hook_index(root: Path, run: Callable[[], object]) -> int:
    """Run `run` (an incremental index, lock already held) until no new request came in meanwhile.
    Returns how many runs this process made (0 when another process holds the lock and will loop)."""
    layout = Layout(root)
    layout.state_dir.mkdir(parents=True, exist_ok=True)
    dirty = layout.state_dir / "index.dirty"
    # Mark first, then try the lock: a holder that has not released yet will see the mark.
    dirty.touch()
    runs = 0
    while True:
        lock = try_index_lock(layout)
        if lock is None:
            return runs
        try:
            while dirty.exists():
                dirty.unlink(missing_ok=True)
                run()
                runs += 1
        finally:
            lock.release()
        # A request that arrived between our last check and the release must not be lost.
        if not dirty.exists():
            return runs


def installed(repo: Path) -> dict[str, bool]:
    hooks = _hooks_dir(repo)
    return {h: (hooks / h).is_file() and BEGIN in (hooks / h).read_text(encoding="utf-8") for h in
            (*CLIENT_HOOKS, *SERVER_HOOKS, *GATE_HOOKS)}


__all__ = ["install", "install_server", "installed", "run_hook_index", "uninstall", "HookChange"]
