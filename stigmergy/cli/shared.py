"""Options and printers shared by the command modules (the only place besides cli/ that may touch rich).

Every reading command takes `as_reader: AsOption = None, json_out: JsonOption = False` and calls
`reading(ctx, as_reader, json_out)`: the per-command flags win over the global `--as` / `--json`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.errors import StigmergyError, UsageError

AsOption = Annotated[
    str | None, typer.Option("--as", help="Read as this identity (default: the global --as or git user.email).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output (shapes in docs/).")]


def reading(ctx: typer.Context, as_reader: str | None = None, json_out: bool = False) -> AppContext:
    """The app context with this command's own `--as` / `--json` applied over the global ones."""
    app_ctx: AppContext = ctx.obj
    if as_reader is None and not json_out:
        return app_ctx
    return dataclasses.replace(app_ctx.as_reader(as_reader), json=json_out or app_ctx.json)


def print_freshness(index: dict[str, Any]) -> None:
    """One line on stderr: the commit the index is at, and whether pages changed since."""
    commit = (index.get("commit") or "nothing")[:10]
    if index.get("ahead"):
        changed = index.get("changed") or []
        typer.echo(f"shared index at {commit}, ahead of this checkout: {len(changed)} pages differ here"
                   + (f" ({', '.join(changed[:5])}{' ...' if len(changed) > 5 else ''})" if changed else "")
                   + " - run `git pull`", err=True)
    elif index.get("stale"):
        changed = index.get("changed") or []
        more = f" (+{len(changed) - 5} more)" if len(changed) > 5 else ""
        typer.echo(f"index at {commit}; STALE: {len(changed)} pages changed since: {', '.join(changed[:5])}{more}"
                   " - run `stigmergy index`", err=True)
    else:
        typer.echo(f"index at {commit} (current)", err=True)


def print_error(exc: StigmergyError) -> None:
    # Messages may quote file names or captured text: print them as plain text, never as markup.
    sys.stderr.write(f"error: {exc.message}\n")
    if exc.hint:
        sys.stderr.write(f"hint: {exc.hint}\n")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False, default=str) + "\n")


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def check_search_filters(k: int | None, type_: str | None, status: str | None, since: str | None) -> None:
    """A filter that can match nothing is a typo: say so (exit 2) rather than "no matching pages"."""
    from datetime import date

    from stigmergy.service import PAGE_STATUSES as STATUSES
    from stigmergy.service import PAGE_TYPES

    if k is not None and k < 1:
        raise UsageError(f"-k {k}: ask for at least one page")
    if type_ is not None and type_ not in ("source", *PAGE_TYPES):
        raise UsageError(f"--type {type_!r}: not a page type (source, {', '.join(PAGE_TYPES)})")
    if status is not None and status not in STATUSES:
        raise UsageError(f"--status {status!r}: not a page status ({', '.join(STATUSES)})")
    if since is not None:
        try:
            date.fromisoformat(since[:10])
        except ValueError:
            raise UsageError(f"--since {since!r}: not an ISO date (YYYY-MM-DD)") from None
