"""log, show, status, fsck."""


from typing import Annotated

import typer

from stigmergy.cli.shared import AsOption, JsonOption, print_json, reading
from stigmergy.errors import CheckFailedError


def log_cmd(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many operations.")] = 20,
    kind: Annotated[str | None, typer.Option("--kind", help="Only operations of this kind.")] = None,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """List operations, newest first."""
    app_ctx = reading(ctx, as_reader, json_out)
    ops = app_ctx.service.log(limit=limit, kind=kind)
    if app_ctx.json:
        print_json({"operations": ops})
        return
    for o in ops:
        counts = ", ".join(f"{n} {a}" for a, n in sorted(o["manifest"].get("counts", {}).items()))
        commit = (o["commit"] or "-")[:10]
        typer.echo(f"{o['id']}  {o['finished_at'] or o['started_at']}  {o['kind']:9} {o['status']:10} {commit}  "
                   f"{o['summary'][:70]}")
        if counts:
            typer.echo(f"{'':33}{counts}")


def show_cmd(
    ctx: typer.Context,
    op: Annotated[str, typer.Argument(help="Operation id (or a unique prefix, or a commit).")],
    no_patch: Annotated[bool, typer.Option("--no-patch", help="Omit the exact patch.")] = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Print an operation's manifest and its exact patch."""
    app_ctx = reading(ctx, as_reader, json_out)
    row = app_ctx.service.show(op, patch=not no_patch)
    patch = row["patch"]
    if app_ctx.json:
        print_json(row)
        return
    typer.echo(f"operation {row['id']}\nkind      {row['kind']}\nstatus    {row['status']}\ncommit    {row['commit']}")
    typer.echo(f"started   {row['started_at']}\nfinished  {row['finished_at']}\nsummary   {row['summary']}")
    m = row["manifest"]
    typer.echo("paths:")
    for e in m.get("paths", []):
        typer.echo(f"  {e.get('action', '?'):7} {e['path']}")
    for key in ("reasons", "records"):
        if m.get(key):
            typer.echo(f"{key}:")
            for r in m[key]:
                typer.echo(f"  - {r}")
    if m.get("violations"):
        typer.echo("refused by:")
        for v in m["violations"]:
            typer.echo(f"  [{v['rule']}] {v['path']}: {v['message']}")
            for line in v.get("lines", [])[:10]:
                typer.echo(f"      | {line}")
    planner = m.get("planner")
    if planner:
        typer.echo("planner:")
        for key in sorted(planner):
            value = planner[key]
            if key in ("reply", "replies", "prompt"):
                continue
            typer.echo(f"  {key}: {value}")
        if planner.get("reply"):
            typer.echo("  reply:")
            typer.echo("    " + str(planner["reply"])[:4000].replace("\n", "\n    "))
    if patch:
        typer.echo("patch:")
        typer.echo(patch, nl=False)


def status_cmd(ctx: typer.Context, as_reader: AsOption = None, json_out: JsonOption = False) -> None:
    """Pending work, the last operation, and the repository's health."""
    app_ctx = reading(ctx, as_reader, json_out)
    data = app_ctx.service.status()
    if app_ctx.json:
        print_json(data)
        return
    typer.echo(f"repository  {data['root']}")
    typer.echo(f"HEAD        {data['head']}")
    c = data["counts"]
    typer.echo(f"captures    {c['captures']} ({c['unfiled']} not filed)   operations {c['operations']} ({c['refused']} refused)")
    typer.echo(f"pending     {len(data['pending'])}" + ("  (run `stigmergy resume`)" if data["pending"] else ""))
    if c["in_layers_you_cannot_read"]:
        typer.echo(f"            {c['in_layers_you_cannot_read']} in layers you cannot read (captures, operations, pending)")
    last = data["last_operation"]
    if last:
        typer.echo(f"last op     {last['id']} {last['kind']} {last['status']} {last['summary'][:60]}")
    idx = data["index"]
    if not idx["present"]:
        typer.echo("index       none (run `stigmergy index`)")
    elif idx["readable"] is False:
        typer.echo(f"index       UNREADABLE: {idx['error']}")
    elif idx["building"]:
        typer.echo("index       being built (the first `stigmergy index` has not finished)")
    else:
        behind = "  (behind HEAD: run `stigmergy index`)" if idx["behind_head"] else "  (current)"
        typer.echo(f"index       at {(idx['commit'] or '-')[:10]}{behind}")
    if data["evidence"]["originals_absent"]:
        typer.echo(
            f"evidence    {data['evidence']['originals_absent']} original(s) not present here "
            "(a clone, or `.stigmergy/` was lost): re-capture the files to restore them"
        )
    planner = data["planner"]
    if planner["recompile_would_change"]:
        typer.echo(f"planner     {planner['current']}; pages were written by {', '.join(planner['wrote_wiki'])}: "
                   "`stigmergy recompile` would change the wiki")
    if data["health"]["tracked_state"]:
        typer.echo(f"PROBLEM     {data['health']['tracked_state']} file(s) under .stigmergy/ are tracked by git "
                   "(run `git rm -r --cached .stigmergy` and commit)")
    if data["health"]["uncommitted_wiki_changes"]:
        typer.echo(f"uncommitted {data['health']['uncommitted_wiki_changes']} change(s) under sources/, wiki/ or layers/")


def fsck_cmd(ctx: typer.Context, as_reader: AsOption = None, json_out: JsonOption = False) -> None:
    """Re-hash every evidence object and check every source page's artifacts; exit 4 on any problem."""
    app_ctx = reading(ctx, as_reader, json_out)
    report = app_ctx.service.fsck()
    if app_ctx.json:
        print_json(report.to_dict())
    else:
        typer.echo(f"{report.objects} objects, {report.sources} source pages checked")
        for p in report.problems:
            typer.echo(f"problem: {p.get('path') or p.get('operation') or p.get('object')}: {p['problem']}")
        if report.absent:
            typer.echo(f"{len(report.absent)} original(s) not present here (not corruption): re-capture the files to restore them")
            for a in report.absent[:20]:
                typer.echo(f"  absent: {a['path']}")
        if report.hidden_problems or report.hidden_absent:
            typer.echo(f"{report.hidden_problems} problem(s) and {report.hidden_absent} absent original(s) in layers you cannot read")
    if not report.ok:
        raise CheckFailedError(f"fsck found {len(report.problems) + report.hidden_problems} problem(s)")


def register(app: typer.Typer) -> None:
    app.command("log")(log_cmd)
    app.command("show")(show_cmd)
    app.command("status")(status_cmd)
    app.command("fsck")(fsck_cmd)
