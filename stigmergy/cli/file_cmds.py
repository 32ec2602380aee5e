"""`stigmergy file [CAPTURE…]`: file archived captures (all unfiled ones by default) into the wiki."""


from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import console, print_json


def file_cmd(
    ctx: typer.Context,
    captures: Annotated[
        list[str] | None, typer.Argument(help="Capture ids (or unique prefixes); default: every unfiled capture.")
    ] = None,
) -> None:
    """File captures into the wiki with the configured planner, one operation each, through the gates."""
    app_ctx: AppContext = ctx.obj
    out = console(stderr=True)

    def on_event(kind: str, o: Any) -> None:
        if app_ctx.json:
            return
        line = f"{kind:9} {o.source_path or o.locator}"
        if kind in ("refused", "waiting", "unchanged"):
            line += f"\n          {o.message}"
        elif o.pages:
            line += f" (+{len(o.pages)} wiki pages)"
        out.print(line, markup=False, highlight=False)

    report = app_ctx.service.file(captures or None, on_event=on_event)
    outcomes = report.outcomes
    if app_ctx.json:
        print_json(report.to_dict())
    else:
        counts = report.to_dict()["counts"]
        typer.echo(f"{len(outcomes)} capture(s): " + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "nothing to file"))
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command("file")(file_cmd)
