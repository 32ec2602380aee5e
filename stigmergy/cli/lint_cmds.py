"""`stigmergy lint`: parse options, call `lint_repository` and the history audit, render. Exit 4 when
anything fails: an error finding, a commit since the last clean check that broke a gate rule, or (with
--strict) a person's uncited line."""


from typing import Annotated

import typer

from stigmergy.cli.shared import AsOption, JsonOption, print_json, reading
from stigmergy.errors import EXIT_CHECK


def lint(
    ctx: typer.Context,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
    strict: Annotated[bool, typer.Option("--strict", help="Information findings (a person's uncited lines) fail too.")] = False,
    accept_history: Annotated[
        bool, typer.Option("--accept-history", help="Mark history up to HEAD as reviewed after reading its findings.")
    ] = False,
) -> None:
    """Check the whole repository against the page, citation and contradiction contracts, and the commits
    since the last clean check against the gates."""
    app_ctx = reading(ctx, as_reader, json_out)
    result = app_ctx.service.lint(strict=strict, accept_history=accept_history)
    report, history, history_shown, history_hidden = result.report, result.history, result.shown, result.history_hidden
    if app_ctx.json:
        print_json(result.to_dict())
    else:
        for f in report.findings:
            where = f"{f.path}:{f.line}" if f.line else f.path
            tag = f"{f.rule}, info" if f.severity == "info" else f.rule
            typer.echo(f"{where}  [{tag}]  {f.message}")
        for h in history_shown.findings:
            typer.echo(f"history: {h.render()}")
        counts = report.to_dict()["counts"]
        summary = ", ".join(f"{n} {rule}" for rule, n in counts.items()) or "no findings"
        typer.echo(f"{report.pages} pages, {report.sources} sources: {summary}")
        if report.hidden or history_hidden:
            typer.echo(f"{report.hidden + history_hidden} findings in layers you cannot read")
        if history.commits or history.findings:
            verdict = "clean" if history.ok else f"{len(history.findings)} gate rule(s) broken"
            typer.echo(f"history: {history.commits} commit(s) since the last clean check: {verdict}"
                       + ("; accepted as reviewed" if accept_history and not history.ok else ""))
    if not result.ok:
        raise typer.Exit(EXIT_CHECK)


def register(app: typer.Typer) -> None:
    app.command("lint")(lint)
