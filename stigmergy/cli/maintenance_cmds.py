"""garden, delete, merge, rename, recompile, maintain: parse, call the service (which takes the writer lock
and finishes what a crash left first), render. Every command has --dry-run and --json."""


import os
from pathlib import Path
from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import AsOption, JsonOption, console, print_json, reading

DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Show the plan and its report; change nothing.")]


def _render(app_ctx: AppContext, outcome: Any, verbose: bool = False) -> None:
    if app_ctx.json:
        print_json(outcome.to_dict())
    else:
        head = f"{outcome.kind}: {outcome.status}"
        if outcome.commit:
            head += f" ({outcome.op_id}, commit {outcome.commit[:10]})"
        typer.echo(f"{head}: {outcome.message}")
        for action, path in outcome.paths[:50]:
            typer.echo(f"  {action:7} {path}")
        if len(outcome.paths) > 50:
            typer.echo(f"  … and {len(outcome.paths) - 50} more")
        for v in outcome.violations:
            typer.echo(f"  refused [{v['rule']}] {v['path']}: {v['message']}")
            for line in v.get("lines", [])[:5]:
                typer.echo(f"      | {line}")
        if verbose or outcome.status == "dry-run":
            for record in outcome.records[:40]:
                typer.echo(f"  - {record}")
    raise typer.Exit(outcome.exit_code)


def garden_cmd(
    ctx: typer.Context,
    check: Annotated[bool, typer.Option("--check", help="Change nothing; exit 4 when a repair is pending.")] = False,
    dry_run: DryRunOption = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Lint the wiki and repair what can be repaired deterministically, as one gated operation. What it
    repairs does not depend on the reader; what it names of layers the reader cannot read is a count."""
    app_ctx = reading(ctx, as_reader, json_out)
    outcome = app_ctx.service.garden(check=check, dry_run=dry_run)
    if not app_ctx.json:
        rep = outcome.report
        for m in rep.get("merge_proposals", []):
            typer.echo(f"  merge proposal: {m['page']} -> {m['into']} ({m['why']}): {m['command']}")
        for left in (rep.get("left") or [])[:20]:
            typer.echo(f"  left: [{left['finding']}] {left['path']}: {left['why']}")
        for f in (rep.get("findings_left") or [])[:20]:
            typer.echo(f"  lint: [{f['rule']}] {f['path']}: {f['message']}")
        hidden = sum(rep.get("hidden", {}).values())
        if hidden:
            typer.echo(f"  {hidden} repairs, findings or proposals in layers you cannot read")
        if rep.get("unwritten"):
            typer.echo(f"  {rep['unwritten']} repairs not made in layers you cannot read or write (left to their readers)")
        _print_trust(rep.get("trust"))
    _render(app_ctx, outcome)


def _print_trust(trust: dict[str, Any] | None) -> None:
    """garden --check: what maintain's trust step would mark, and what needs a person (docs/trust.md)."""
    if not trust:
        return
    for item in trust["stale"][:20]:
        typer.echo(f"  trust: would mark stale {item['path']}: {item['reason']}")
    for item in trust["contradictions"][:20]:
        typer.echo(f"  trust: contradiction {item['contradiction']} open {item['open_days']} days on {item['path']}")
    for item in trust["popular"][:20]:
        typer.echo(f"  trust: popular but unexamined {item['path']} ({item['accesses']} reads, "
                   f"confidence {item['confidence']:.2f})")
    for item in trust["resets"][:20]:
        typer.echo(f"  trust: prior reset due {item['path']} ({item['errors']} of {item['feedback']} feedback "
                   "against its posterior)")
    if trust["hidden"]:
        typer.echo(f"  trust: {trust['hidden']} more in layers you cannot read")
    if trust["refused_records"]:
        typer.echo(f"  trust: {trust['refused_records']} feedback record(s) refused (not canonical, or in another "
                   "layer's folder)")


def delete_cmd(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="A wiki page path, a source page path, a capture id, or a page title.")],
    rationale: Annotated[str, typer.Option("--rationale", help="Why (kept in the change record).")],
    dry_run: DryRunOption = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Delete a page or a capture's source page, sweeping the links, lines and claims that rest on it."""
    app_ctx = reading(ctx, as_reader, json_out)
    outcome = app_ctx.service.delete(_repo_relative(app_ctx, target), rationale, dry_run=dry_run)
    _render(app_ctx, outcome)


def merge_cmd(
    ctx: typer.Context,
    words: Annotated[list[str], typer.Argument(help="PAGE INTO PAGE: paths or titles.", metavar="PAGE INTO PAGE")],
    dry_run: DryRunOption = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Merge one page into another: every section and cited line moves, the old title becomes an alias,
    links are rewritten. Both pages must be of one layer and one type."""
    from stigmergy.errors import UsageError

    if len(words) != 3 or words[1].casefold() != "into":
        raise UsageError("usage: stigmergy merge PAGE INTO PAGE (e.g. merge \"Olly Brandt\" INTO \"Oliver Brandt\")")
    app_ctx = reading(ctx, as_reader, json_out)
    page, into = _repo_relative(app_ctx, words[0]), _repo_relative(app_ctx, words[2])
    outcome = app_ctx.service.merge(page, into, dry_run=dry_run)
    _render(app_ctx, outcome)


def rename_cmd(
    ctx: typer.Context,
    page: Annotated[str, typer.Argument(help="The page: a path or a title.")],
    title: Annotated[str, typer.Argument(help="Its new title.")],
    dry_run: DryRunOption = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Rename a page: new title and path, same id, the old title kept as an alias, links rewritten."""
    app_ctx = reading(ctx, as_reader, json_out)
    outcome = app_ctx.service.rename(_repo_relative(app_ctx, page), title, dry_run=dry_run)
    _render(app_ctx, outcome)


def recompile_cmd(
    ctx: typer.Context,
    from_date: Annotated[str | None, typer.Option("--from", help="Re-file only sources that occurred on or after DATE.")] = None,
    by_occurred: Annotated[bool, typer.Option("--by-occurred", help="File sources in occurred_at order (default: capture order).")] = False,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a recompile that was interrupted.")] = False,
    dry_run: DryRunOption = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Rebuild every derived page from the source pages (capture order, or --by-occurred) and swap the result in as one
    commit, keeping page ids, human lines and contradiction records. Refuses while captures are pending."""
    app_ctx = reading(ctx, as_reader, json_out)
    app_ctx.service.require_root()
    out = console(stderr=True)

    def on_step(done: int, total: int, rel: str) -> None:
        if not app_ctx.json and (done == total or done % 25 == 0):
            out.print(f"recompile: {done}/{total} sources filed", markup=False, highlight=False)

    outcome = app_ctx.service.recompile(from_date=from_date, by_occurred=by_occurred, resume=resume, dry_run=dry_run,
                                        on_step=on_step)
    if not app_ctx.json:
        rep = outcome.report
        for note in rep.get("notes", []):
            typer.echo(f"note: {note}")
        if "pages_changed" in rep:
            typer.echo(
                f"pages: {rep['pages_added']} added, {rep['pages_removed']} removed, {rep['pages_changed']} changed; "
                f"cited lines: {rep['cited_gained']} gained, {rep['cited_lost']} lost; contradictions: "
                f"{len(rep.get('contradictions_gained_list', []))} gained, {rep['contradictions_lost']} lost; "
                f"human lines: {rep['human_reapplied']} re-applied, {rep['human_listed']} listed"
            )
        cur = rep.get("curation")
        if cur:
            typer.echo(f"curation: {cur['entries']} entries, {cur['replayed']} replayed, {cur['in_effect']} already in effect, "
                       f"{len(cur['not_replayed'])} not replayed, {len(cur['brought_back'])} deleted page(s) brought back, "
                       f"{cur.get('resolutions', 0)} resolution(s) filed again")
            for m in cur["not_replayed"][:50]:
                typer.echo(f"  not replayed: {m['what']} ({m['commit'][:10]}): {m['why']}")
            for b in cur["brought_back"][:50]:
                typer.echo(f"  brought back: {b}")
            more = max(0, len(cur["not_replayed"]) - 50) + max(0, len(cur["brought_back"]) - 50)
            if more:  # never dropped silently: --json lists every one
                typer.echo(f"  and {more} more (--json lists them all)")
    _render(app_ctx, outcome)


def maintain_cmd(
    ctx: typer.Context,
    no_index: Annotated[bool, typer.Option("--no-index", help="Skip bringing the search index up to date.")] = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """For cron: resume, file what is pending, garden, index, pack Git; one summary line. Exit 0 ok (or
    another run holds the lock), 4 something needs a person, 1 a step failed. Acts as `--as`, else as the
    `[roles] service` identity, else as the reader: garden writes only in the layers that identity may write."""
    app_ctx = reading(ctx, as_reader, json_out)
    report = app_ctx.service.maintain(index=not no_index, as_caller=app_ctx.reader_given)
    if app_ctx.json:
        print_json(report.to_dict())
    else:
        typer.echo(report.summary())
    raise typer.Exit(report.exit_code)


def _repo_relative(app_ctx: AppContext, target: str) -> str:
    """A path given on the command line (relative to the cwd, or absolute) as a repository-relative path."""
    root = app_ctx.service.require_root().resolve()
    candidate = Path(target)
    if candidate.exists() and (candidate.is_absolute() or os.sep in target):
        try:
            return candidate.resolve().relative_to(root).as_posix()
        except ValueError:
            return target
    return target


def register(app: typer.Typer) -> None:
    app.command("garden")(garden_cmd)
    app.command("delete")(delete_cmd)
    app.command("merge")(merge_cmd)
    app.command("rename")(rename_cmd)
    app.command("recompile")(recompile_cmd)
    app.command("maintain")(maintain_cmd)
