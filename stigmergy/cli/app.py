"""The composition root: parse global options, resolve settings once, hand a frozen context to commands.

Commands live in sibling modules, each exposing `register(app)`; this module calls them explicitly.
"""


import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from stigmergy.cli import (
    agent_cmds,
    capture_cmds,
    file_cmds,
    history_cmds,
    index_cmds,
    lint_cmds,
    maintenance_cmds,
    ops_cmds,
    read_cmds,
    serve_cmds,
    trust_cmds,
    wiki_cmds,
)
from stigmergy.cli.context import AppContext, identity
from stigmergy.cli.shared import print_error
from stigmergy.errors import EXIT_CHECK, EXIT_REFUSED, StigmergyError
from stigmergy.service import WikiService, locate
from stigmergy.settings import load_settings

# Every command module, in `--help` order. Each exposes `register(app)`; importing one registers nothing.
COMMAND_MODULES = (
    capture_cmds, ops_cmds, lint_cmds, file_cmds, maintenance_cmds, index_cmds, read_cmds, wiki_cmds, agent_cmds,
    history_cmds, serve_cmds, trust_cmds,
)

# Every command may end 0 (ok), 1 (failure) or 2 (usage); these also end 3 (a gate refused) or 4 (a check
# found problems). docs/cli.md prints this table, and tests/conftest.py's `run_cli` fails any test in
# which a command ends with a code it does not declare here, so the table follows the code.
EXTRA_EXIT_CODES: dict[str, tuple[int, ...]] = {
    "capture": (EXIT_REFUSED,), "file": (EXIT_REFUSED,), "import": (EXIT_REFUSED,),
    "lint": (EXIT_CHECK,), "fsck": (EXIT_CHECK,), "index": (EXIT_CHECK,), "maintain": (EXIT_CHECK,),
    "erase": (EXIT_REFUSED, EXIT_CHECK),
    **{name: (EXIT_REFUSED, EXIT_CHECK) for name in ("garden", "delete", "merge", "rename", "recompile")},
}


class _Group(TyperGroup):
    """Maps stigmergy's typed errors to their exit codes once, for every command."""

    def invoke(self, ctx):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except StigmergyError as exc:
            print_error(exc)
            ctx.exit(exc.exit_code)


app = typer.Typer(
    name="stigmergy",
    cls=_Group,
    help="Compile a team's raw material into a Git-backed Markdown wiki that people and agents can trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help and usage errors: Typer's rich formatter imports rich (~250 ms), more than the whole
    # rest of `stigmergy --help`; the commands' own output is rendered by cli/shared.py as before.
    rich_markup_mode=None,
)


@app.callback()
def _root(
    ctx: typer.Context,
    repo: Annotated[
        Path | None, typer.Option("--repo", "-C", help="The knowledge repository (default: found from the cwd).")
    ] = None,
    as_reader: Annotated[
        str | None, typer.Option("--as", help="Read as this identity (a Git e-mail); default: git user.email.")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Machine-readable output on reading commands.")] = False,
) -> None:
    env = dict(os.environ)
    root = locate(repo if repo is not None else Path.cwd())
    settings = load_settings(root, env=env)
    service = WikiService(root, settings, identity(as_reader, env, root), env, on_wait=_say)
    ctx.call_on_close(service.close)
    ctx.obj = AppContext(service=service, json=json_out, reader_given=as_reader is not None)


def _say(message: str) -> None:
    """Told while another writer holds the lock."""
    from stigmergy.cli.shared import console

    console(stderr=True).print(message, markup=False)


for _module in COMMAND_MODULES:
    _module.register(app)


def main() -> None:
    try:
        app()
    except StigmergyError as exc:  # raised while resolving settings, before a command runs
        print_error(exc)
        sys.exit(exc.exit_code)
