"""`stigmergy lint`: parse options, call `lint_repository`, render. Exit 4 when anything is found."""

from __future__ import annotations

import typer

from stigmergy.cli.shared import AsOption, JsonOption, print_json, reading
from stigmergy.errors import EXIT_CHECK


def lint(ctx: typer.Context, as_reader: AsOption = None, json_out: JsonOption = False) -> None:
    """Check the whole repository against the page, citation and contradiction contracts."""
    from stigmergy.gates.lint import lint_repository

    app_ctx = reading(ctx, as_reader, json_out)
    report = lint_repository(app_ctx.require_root(), app_ctx.settings)
    if app_ctx.json:
        print_json(report.to_dict())
    else:
        for f in report.findings:
            where = f"{f.path}:{f.line}" if f.line else f.path
            typer.echo(f"{where}  [{f.rule}]  {f.message}")
        counts = report.to_dict()["counts"]
        summary = ", ".join(f"{n} {rule}" for rule, n in counts.items()) or "no findings"
        typer.echo(f"{report.pages} pages, {report.sources} sources: {summary}")
    if not report.ok:
        raise typer.Exit(EXIT_CHECK)


def register(app: typer.Typer) -> None:
    app.command("lint")(lint)
