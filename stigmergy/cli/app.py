"""The composition root: parse global options, resolve settings once, hand a frozen context to commands.

Commands live in sibling modules, each exposing `register(app)`; this module calls them explicitly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from stigmergy.errors import NotARepositoryError, StigmergyError
from stigmergy.repo.layout import find_root
from stigmergy.settings import Settings, load_settings


@dataclass(frozen=True)
class AppContext:
    root: Path | None
    settings: Settings
    json: bool
    env: dict[str, str]
    reader_override: str | None = None

    @cached_property
    def reader(self) -> str:
        """Who reads (--as, else STIGMERGY_READER, else git user.email). Resolved on first use: only
        reading commands need it, and a `git config` process per command start is not free."""
        return self.reader_override or self.env.get("STIGMERGY_READER") or git_config(self.root or Path.cwd(), "user.email")

    def require_root(self) -> Path:
        if self.root is None:
            raise NotARepositoryError(
                "not inside a stigmergy repository", hint="run `stigmergy init` first, or pass --repo PATH"
            )
        return self.root


class _Group(TyperGroup):
    """Maps stigmergy's typed errors to their exit codes once, for every command."""

    def invoke(self, ctx):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except StigmergyError as exc:
            from stigmergy.cli.render import print_error

            print_error(exc)
            ctx.exit(exc.exit_code)


app = typer.Typer(
    name="stigmergy",
    cls=_Group,
    help="Compile a team's raw material into a Git-backed Markdown wiki that people and agents can trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def git_config(cwd: Path, key: str) -> str:
    """A value of the user's git configuration ('' when unset or git is missing)."""
    try:
        out = subprocess.run(["git", "config", key], cwd=cwd, capture_output=True, text=True)
    except OSError:
        return ""
    return out.stdout.strip()


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
    root: Path | None
    start = repo if repo is not None else Path.cwd()
    try:
        root = find_root(start)
    except NotARepositoryError:
        root = None
    settings = load_settings(root, env=env)
    ctx.obj = AppContext(root=root, settings=settings, json=json_out, env=env, reader_override=as_reader)


def _register_all() -> None:
    from stigmergy.cli import capture_cmds, ops_cmds

    capture_cmds.register(app)
    ops_cmds.register(app)
    for name in ("lint_cmds", "file_cmds", "index_cmds", "read_cmds", "wiki_cmds"):
        # Sibling command modules are optional while the project grows; each registers explicitly.
        try:
            module = __import__(f"stigmergy.cli.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"stigmergy.cli.{name}":
                raise
            continue
        module.register(app)


_register_all()


def main() -> None:
    try:
        app()
    except StigmergyError as exc:  # raised while resolving settings, before a command runs
        from stigmergy.cli.render import print_error

        print_error(exc)
        sys.exit(exc.exit_code)
