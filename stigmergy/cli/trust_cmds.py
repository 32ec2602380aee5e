"""feedback, verify, invalidate, reinstate: trust from use (docs/trust.md)."""


from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import AsOption, JsonOption, print_json, reading
from stigmergy.errors import UsageError

PageArg = Annotated[str, typer.Argument(
    help="PATH (the whole page), PATH#n (passage n, a search hit's fragment: ranks only queries matching it) "
         "or PATH#Ln (line n).")]


def _render(data: dict[str, Any], json_out: bool) -> None:
    if json_out:
        print_json(data)
        return
    rec, t = data["record"], data["trust"]
    where = f"{rec['path']}" + (f"#L{rec['line']}" if rec.get("line") else f"#{rec['fragment']}" if rec.get("fragment") else "")
    done = f"committed {data['committed'][:10]}" if data.get("committed") else f"recorded in {data['batch']}"
    typer.echo(f"{rec['kind']}: {where} ({done})")
    typer.echo(f"now {t['tier']} {t['status']}, confidence {t['confidence']:.2f} "
               f"(Beta {t['alpha']:.1f}, {t['beta']:.1f}; {t['feedback']} feedback)")


def feedback_cmd(
    ctx: typer.Context,
    page: PageArg,
    useful: Annotated[bool, typer.Option("--useful", help="The page (or line) helped and is right.")] = False,
    wrong: Annotated[bool, typer.Option("--wrong", help="It says something false.")] = False,
    outdated: Annotated[bool, typer.Option("--outdated", help="It was right once; it is not any more.")] = False,
    note: Annotated[str, typer.Option("--note", help="Why (at most 500 characters; readers of the page see it).")] = "",
    query: Annotated[str, typer.Option(
        "--query", help="The search a passage (PATH#n) or line was judged from: it then ranks only queries like "
                        "this one (at most 300 characters).")] = "",
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Say whether a page, fragment or claim line was useful, wrong or outdated (recorded as you; counts in
    the next search; `maintain` commits it)."""
    chosen = [k for k, on in (("useful", useful), ("wrong", wrong), ("outdated", outdated)) if on]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --useful, --wrong, --outdated")
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    _render(app_ctx.service.feedback(page, chosen[0], note, query), app_ctx.json)


ReasonOption = Annotated[str, typer.Option("--reason", help="Why (recorded; shown to readers of the page).")]


def verify_cmd(ctx: typer.Context, page: PageArg, reason: ReasonOption = "", as_reader: AsOption = None,
               json_out: JsonOption = False) -> None:
    """Mark a page verified (a maintainer of its layer); committed at once."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    _render(app_ctx.service.verify(page, reason), app_ctx.json)


def invalidate_cmd(ctx: typer.Context, page: PageArg, reason: ReasonOption = "", as_reader: AsOption = None,
                   json_out: JsonOption = False) -> None:
    """Reject a page (a maintainer of its layer, with a reason): search and ask leave it out, `read` says why."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    _render(app_ctx.service.invalidate(page, reason), app_ctx.json)


def reinstate_cmd(ctx: typer.Context, page: PageArg, reason: ReasonOption = "", as_reader: AsOption = None,
                  json_out: JsonOption = False) -> None:
    """Put a rejected or stale page back to candidate (a maintainer of its layer, with a reason)."""
    app_ctx: AppContext = reading(ctx, as_reader, json_out)
    _render(app_ctx.service.reinstate(page, reason), app_ctx.json)


def register(app: typer.Typer) -> None:
    app.command("feedback")(feedback_cmd)
    app.command("verify")(verify_cmd)
    app.command("invalidate")(invalidate_cmd)
    app.command("reinstate")(reinstate_cmd)
