"""What the Git hooks run to keep the index current: `python -I -m stigmergy.cli.hook [--push]`, the same
as `stigmergy index --hook [--push]` without the Typer app.

A push hook's index update is a new process each time, and most of its time was starting up: the app
imports every command module, and Typer 0.29 parsed every option through pydantic (pyproject.toml now keeps
Typer below 0.29); together ~0.3-0.6 s of CPU on a loaded 2-core machine, against ~0.1 s for the update
itself. This entry point composes the service as the app's callback does (settings from the repository,
the user's file and the environment) and maps errors to the same one-line messages and exit codes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

USAGE = "usage: python -m stigmergy.cli.hook [--push]"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--push"]):
        sys.stderr.write(USAGE + "\n")
        return 2
    from stigmergy.cli.context import identity
    from stigmergy.errors import StigmergyError
    from stigmergy.service import WikiService, locate
    from stigmergy.settings import load_settings

    env = dict(os.environ)
    try:
        root = locate(Path.cwd())
        settings = load_settings(root, env=env)
        service = WikiService(root, settings, identity(None, env, root), env)
        try:
            service.index_hook(from_push=bool(args))
        finally:
            service.close()
    except StigmergyError as exc:
        # As cli/shared.print_error (imported from there it would bring Typer back in).
        sys.stderr.write(f"error: {exc.message}\n" + (f"hint: {exc.hint}\n" if exc.hint else ""))
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
