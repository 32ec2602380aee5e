"""contradictions, overview."""


from typing import Annotated

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import AsOption, JsonOption, print_json, reading


def contradictions_cmd(
    ctx: typer.Context,
    status: Annotated[str | None, typer.Option("--status", help="open | resolved")] = None,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """List contradiction blocks across the wiki (open and resolved)."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    found = app_ctx.service.contradictions(status)
    if app_ctx.json:
        print_json({"contradictions": found})
        return
    if not found:
        typer.echo("no contradictions")
    for c in found:
        if c["status"] == "malformed":
            typer.echo(f"MALFORMED {c['page']}:{c['line']}: {c['error']}")
            continue
        typer.echo(f"{c['id']}  {c['status']:8}  {c['subject']}")
        typer.echo(f"    on {c['page']} (line {c['line']})")
        for claim in c["claims"]:
            typer.echo(f"    - {claim['date']}: {claim['text']}  [{claim['path']}#L{claim['start']}-L{claim['end']}]")
        if c.get("resolution"):
            typer.echo(f"    resolved {c['resolution']['date']}: {c['resolution']['rationale']}")


def overview_cmd(ctx: typer.Context, as_reader: AsOption = None, json_out: JsonOption = False) -> None:
    """What the wiki learned: pages per type, entities with their aliases, contradictions."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    data = app_ctx.service.overview()
    if app_ctx.json:
        print_json(data)
        return
    typer.echo("pages: " + ", ".join(f"{n} {t}" for t, n in data["pages"].items()))
    typer.echo(f"entities ({len(data['entities'])}):")
    for e in data["entities"]:
        aliases = f"  aka {', '.join(e['aliases'])}" if e["aliases"] else ""
        typer.echo(f"  {e['title']} [{e['entity_type'] or '?'}] ({e['sources']} sources){aliases}")
    c = data["contradictions"]
    typer.echo(f"contradictions: {c['open']} open, {c['resolved']} resolved" + (f", {c['malformed']} malformed" if c["malformed"] else ""))


def register(app: typer.Typer) -> None:
    app.command("contradictions")(contradictions_cmd)
    app.command("overview")(overview_cmd)
