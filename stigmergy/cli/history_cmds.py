"""erase (and its --audit), export, import."""


from pathlib import Path
from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import AsOption, JsonOption, print_json, reading
from stigmergy.errors import CheckFailedError, UsageError


def _list(title: str, items: list[str] | tuple[str, ...], limit: int = 20) -> None:
    typer.echo(f"{title} ({len(items)})" + (":" if items else ""))
    for item in list(items)[:limit]:
        typer.echo(f"  {item}")
    if len(items) > limit:
        typer.echo(f"  … and {len(items) - limit} more (--json lists them all)")


def _print_plan(plan: Any, done: bool) -> None:
    n = len(plan.captures)
    what = f"layer {plan.layer}: {n} capture(s)" if plan.layer else f"{n} capture(s)"
    typer.echo(f"{'erased' if done else 'would erase'} {what}")
    for c in plan.captures:
        typer.echo(f"  {c.capture_id}  {c.source_path}  ({len(c.objects)} evidence object(s), {len(c.operations)} operation(s))")
    typer.echo(
        f"commits: {len(plan.commits_touching)} hold erased content; {plan.commits_rewritten} "
        f"{'got' if done else 'get'} new ids (every commit after the first one that held it, on every ref)"
    )
    if not done:
        _list("commits to rewrite (holding erased content)", [c[:12] for c in plan.commits_touching])
    _list("pages changed", plan.pages_changed)
    _list("pages deleted", plan.pages_deleted)
    _list("evidence objects deleted" if done else "evidence objects to delete", plan.evidence_objects)
    typer.echo(f"change records of other operations whose patch is regenerated: {len(plan.patches_rewritten)}")
    remotes = [r for r in plan.remotes]
    if remotes:
        typer.echo("remotes that hold the old history and need a force push:")
        for r in remotes:
            held = f" (held by {', '.join(r.refs)})" if r.refs else " (check: this clone has no tracking ref holding it)"
            cd = f"cd {r.where} && " if r.where else ""
            typer.echo(f"  {r.where}{r.name} {r.url}{held}: {cd}git push --force --all {r.name} && "
                       f"git push --force --tags {r.name}")
    else:
        typer.echo("remotes: none configured")
    if plan.repositories != ("",):
        typer.echo("repositories rewritten: " + ", ".join(p or "this one" for p in plan.repositories))
    if plan.unreached:
        typer.echo(f"not reached (no checkout here; erase there too if it cites the capture): layer "
                   f"{', '.join(plan.unreached)}")


def erase_cmd(
    ctx: typer.Context,
    captures: Annotated[list[str] | None, typer.Argument(help="Capture ids (or unique prefixes of 8+ characters).")] = None,
    layer: Annotated[str | None, typer.Option("--layer", help="Erase every capture and page of this layer.")] = None,
    rationale: Annotated[str | None, typer.Option("--rationale", help="Why (recorded in the erasure commit; never the content).")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Really erase (without it: a dry run that changes nothing).")] = False,
    audit_needle: Annotated[
        str | None, typer.Option("--audit", help="Report where TEXT (or a SHA256 of content) is still found.")
    ] = None,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Erase captures or a layer from the history, evidence, index and records (dry run unless --yes)."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    service = app_ctx.service
    service.require_root()
    if audit_needle is not None:
        if captures or layer or rationale or yes:
            raise UsageError("--audit takes only the text or sha256 to look for")
        report = service.audit(audit_needle)
        if app_ctx.json:
            print_json(report.to_dict())
        else:
            typer.echo(f"audit ({report.kind}): " + ", ".join(f"{n} {k}" for k, n in report.searched.items()))
            if report.clean:
                typer.echo("not found anywhere this repository keeps bytes")
            for f in report.findings:
                typer.echo(f"FOUND  {f.place:14} {f.where}  {f.detail}")
            typer.echo("not searched: " + "; ".join(report.not_searched))
            typer.echo("cannot reach (check these yourself):")
            for place in report.unreachable:
                typer.echo(f"  - {place}")
        if not report.clean:
            raise CheckFailedError(f"found in {len(report.findings)} place(s)")
        return
    plan = service.plan_erase(captures or [], layer, rationale or "")
    if not yes:
        if app_ctx.json:
            print_json({"dry_run": True, **plan.to_dict()})
        else:
            _print_plan(plan, done=False)
            typer.echo("dry run: nothing changed. Run again with --yes to erase (history is rewritten; no undo).")
        return
    done = service.erase(plan)  # refused at once while another writer holds the lock
    if app_ctx.json:
        print_json({"dry_run": False, **done.to_dict()})
    else:
        _print_plan(done, done=True)
        typer.echo("residue: " + ("none found" if not done.residue else f"{len(done.residue)} place(s) (see --json)"))
        typer.echo("run `stigmergy index` to re-index the changed pages")
    if done.residue:
        raise CheckFailedError(f"the erase left residue in {len(done.residue)} place(s)")


def export_cmd(
    ctx: typer.Context,
    dest: Annotated[Path, typer.Argument(help="A new (or empty) folder for the bundle.")],
    layers: Annotated[
        list[str] | None, typer.Option("--layer", help="Export exactly these layers (default: every layer you read).")
    ] = None,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Write every capture's original bytes and metadata, in capture order, to a portable bundle."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    app_ctx.service.require_root()
    report = app_ctx.service.export(dest, layers)
    if app_ctx.json:
        print_json(report.to_dict())
        return
    typer.echo(f"exported {report.captures} capture(s) ({report.bytes} bytes) of {', '.join(report.layers)} to {report.path}")
    typer.echo(f"curation record: {report.curation} entries, {report.human_lines} line(s) people wrote"
               + (f"; {report.curation_unreadable} curation commit(s) Git does not describe (not carried)"
                  if report.curation_unreadable else ""))
    if report.skipped_layers:
        typer.echo(f"not exported (not readable by you): {', '.join(report.skipped_layers)}")


def import_cmd(
    ctx: typer.Context,
    src: Annotated[Path, typer.Argument(help="A bundle written by `stigmergy export`.")],
    json_out: JsonOption = False,
) -> None:
    """File every capture of a bundle again, through the gates, in its order (a second import files nothing)."""
    app_ctx: AppContext = reading(ctx, None, json_out)

    def on_event(kind: str, o: Any) -> None:
        if not app_ctx.json and kind != "acknowledged":
            typer.echo(f"{kind:9} {o.locator}" + (f"\n          {o.message}" if kind in ("failed", "refused") else ""))

    report = app_ctx.service.import_bundle(src, on_event)
    if app_ctx.json:
        print_json(report.to_dict())
    else:
        counts = report.to_dict()["counts"]
        typer.echo(f"{len(report.outcomes)} capture(s): " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
        if report.curation:
            typer.echo("curation: " + ", ".join(f"{n} {k}" for k, n in sorted(report.curation.items())))
        for note in report.notes:
            typer.echo(f"note: {note}")
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command("erase")(erase_cmd)
    app.command("export")(export_cmd)
    app.command("import")(import_cmd)


