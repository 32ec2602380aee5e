"""init, capture, resume."""


import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import AsOption, JsonOption, console, print_json, reading


def init_cmd(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Folder of the knowledge repository (created if needed).")] = Path("."),
) -> None:
    """Create a knowledge repository: stigmergy.toml, librarian_skill.md, sources/, wiki/, first commit."""
    from stigmergy.service import init_repository

    app_ctx: AppContext = ctx.obj
    result = init_repository(path, app_ctx.service.settings)
    if app_ctx.json:
        print_json(
            {"root": str(result.root), "created": list(result.created), "commit": result.commit, "already": result.already}
        )
        return
    if result.already:
        typer.echo(f"{result.root} is already a stigmergy repository; nothing to do.")
    else:
        typer.echo(f"Initialised a stigmergy repository in {result.root} ({len(result.created)} files, commit {result.commit[:10]}).")


def capture_cmd(
    ctx: typer.Context,
    inputs: Annotated[list[str] | None, typer.Argument(help="Files, directories, or - for stdin.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="Capture this text.")] = None,
    title: Annotated[str | None, typer.Option("--title", help="Title (single input only).")] = None,
    occurred_at: Annotated[str | None, typer.Option("--occurred-at", help="When it happened (ISO date).")] = None,
    by: Annotated[str | None, typer.Option("--by", help="Submitter (default: Git user).")] = None,
    layer: Annotated[str, typer.Option("--layer", help="Layer the capture belongs to.")] = "public",
    project: Annotated[str | None, typer.Option("--project", help="Project the capture belongs to.")] = None,
    resolves: Annotated[str | None, typer.Option("--resolves", help="Contradiction id this capture resolves.")] = None,
    rationale: Annotated[str | None, typer.Option("--rationale", help="Why it resolves it.")] = None,
    include: Annotated[list[str] | None, typer.Option("--include", help="Glob of files to take from directories.")] = None,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", help="Glob of files to skip.")] = None,
    hidden: Annotated[bool, typer.Option(
        "--include-hidden", help="Take dot-files and files Git ignores from directories too (never .git/).")] = False,
    force: Annotated[bool, typer.Option("--force", help="Capture again even if the same bytes were captured.")] = False,
    no_file: Annotated[bool, typer.Option("--no-file", help="Archive only: do not file into the wiki.")] = False,
    redact: Annotated[bool, typer.Option(
        "--redact", help="Store a redacted copy of an input that holds a credential, instead of refusing it.")] = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Capture artifacts: store the bytes, write an immutable source page, file it into the wiki."""
    from stigmergy.service import CaptureRequest

    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    service = app_ctx.service
    gathered = service.gather(CaptureRequest(
        inputs=tuple(inputs or ()), text=text, stdin=sys.stdin.buffer.read, include=tuple(include or ()),
        exclude=tuple(exclude or ()), hidden=hidden, title=title, occurred_at=occurred_at, submitted_by=by, layer=layer,
        project=project, resolves=resolves, rationale=rationale, force=force, file=not no_file, redact=redact,
    ))
    items, skipped = gathered.items, gathered.skipped
    out = console(stderr=True)
    if not app_ctx.json:
        for f in gathered.failed:
            out.print(f"failed    {f.message}", markup=False, highlight=False)
        for s in skipped:
            out.print(f"skipped   {s.locator} ({s.reason}: only regular files are captured)", markup=False,
                      highlight=False)
    icons = {"filed": "filed", "captured": "captured", "exists": "exists", "refused": "refused", "failed": "failed"}

    def on_event(kind: str, o: Any) -> None:
        if app_ctx.json or kind == "acknowledged":
            if kind == "acknowledged" and o.capture_id:
                print(f"acknowledged {o.capture_id}", file=sys.stderr) if len(items) == 1 and not app_ctx.json else None
            return
        line = f"{icons.get(kind, kind):9} {o.locator}"
        if o.source_path and kind != "failed":
            line += f" -> {o.source_path}"
        if kind in ("failed", "refused", "waiting") or (kind in ("exists", "captured") and o.message and (
                "restored" in o.message or "same bytes" in o.message)):
            line += f"\n          {o.message}"
        elif o.pages:
            line += f" (+{len(o.pages)} wiki pages)"
        out.print(line, markup=False, highlight=False)

    progress = None
    if len(items) > 1 and not app_ctx.json and out.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        progress = Progress(
            TextColumn("capturing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=out, transient=True,
        )
        task = progress.add_task("capture", total=len(items))
        line_event = on_event

        def on_event(kind: str, o: Any) -> None:  # noqa: F811 — wraps the line printer
            line_event(kind, o)
            if kind != "acknowledged":
                progress.advance(task)

    if progress is not None:
        with progress:
            captured = service.capture(gathered, on_event=on_event)
    else:
        captured = service.capture(gathered, on_event=on_event)
    report = captured.report
    outcomes = report.outcomes
    if app_ctx.json:
        print_json(captured.to_dict())
    else:
        counts = report.to_dict()["counts"]
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        typer.echo(f"{len(outcomes)} input(s): {summary}")
        bad = [o for o in outcomes if o.status == "failed"]
        if bad:
            typer.echo("failed: " + ", ".join(o.locator for o in bad))
    raise typer.Exit(report.exit_code)


def resume_cmd(ctx: typer.Context) -> None:
    """Finish captures a crash interrupted and rebuild bookkeeping for commits that landed."""
    app_ctx: AppContext = ctx.obj
    outcomes = app_ctx.service.resume()
    if app_ctx.json:
        print_json({"resumed": [o.to_dict() for o in outcomes]})
    else:
        typer.echo(f"resumed {len(outcomes)} capture(s)" + "".join(f"\n  {o.status:9} {o.locator}" for o in outcomes))


def register(app: typer.Typer) -> None:
    app.command("init")(init_cmd)
    app.command("capture")(capture_cmd)
    app.command("resume")(resume_cmd)
