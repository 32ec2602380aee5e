"""How stigmergy starts its own Python: isolated, so that no repository folder is on the module path.

Anyone who can push can add any file to a repository, and hooks and child processes run with a repository
(or a server's checkout of it) as their working folder. `python -m stigmergy` there puts that folder first
on `sys.path`, so a pushed `stigmergy.py`, `stigmergy/` package or `typer.py` would be imported instead of
the installed code. `python -I` (isolated mode) leaves the working folder, `PYTHONPATH`, every other
`PYTHON*` variable and the user's site-packages off the path; the interpreter's own site-packages (where
`pip install`, editable installs included, put stigmergy and its dependencies) stay.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from stigmergy.errors import UsageError

ISOLATED = "-I"


def python_argv(module: str, *args: str, python: str | None = None) -> list[str]:
    """`[python, -I, -m, module, *args]`, with the running interpreter unless `python` is given."""
    return [python or sys.executable, ISOLATED, "-m", module, *args]


def shell_python(python: str) -> str:
    """The interpreter as a hook script starts it: quoted, isolated."""
    return f"{shlex.quote(python)} {ISOLATED}"


def check_isolated_import(python: str) -> None:
    """Refuse a hook whose interpreter cannot import this stigmergy in isolated mode (an install that
    works only through PYTHONPATH): the hook would fail at every commit, silently."""
    here = str(Path(__file__).resolve().parents[1])
    probe = "import stigmergy, os; print(os.path.dirname(os.path.realpath(stigmergy.__file__)))"
    try:
        out = subprocess.run([python, ISOLATED, "-c", probe], capture_output=True, text=True, cwd="/",
                             stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"cannot run {python}: {exc}") from exc
    got = out.stdout.strip()
    if out.returncode != 0 or got != here:
        raise UsageError(
            f"{python} -I does not import this stigmergy ({got or 'not importable'}; this one is {here})",
            hint="hooks run Python isolated (-I: no PYTHONPATH, no working folder on the path); install stigmergy "
            "into that interpreter (pip install, or pip install -e), or pass the interpreter that has it",
        )


__all__ = ["ISOLATED", "check_isolated_import", "python_argv", "shell_python"]
