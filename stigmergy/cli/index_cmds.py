"""index, search, hooks: parse options, call stigmergy.index, render."""


import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from stigmergy.cli.context import AppContext
from stigmergy.cli.shared import (
    AsOption,
    JsonOption,
    check_search_filters,
    console,
    print_freshness,
    print_json,
    reading,
)


def index_cmd(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Start over (cached vectors are reused).")] = False,
    check: Annotated[bool, typer.Option("--check", help="Verify the index against the repository (exit 4 on drift).")] = False,
    prepare: Annotated[bool, typer.Option("--prepare", help="Export the embedding model to ONNX once, then stop.")] = False,
    hook: Annotated[bool, typer.Option("--hook", hidden=True, help="Run as the git hooks do (lock + dirty loop).")] = False,
    push: Annotated[bool, typer.Option("--push", hidden=True, help="With --hook: the server's hook after a push.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Bring the search index up to date with the repository (incremental)."""
    app_ctx = reading(ctx, None, json_out)
    as_json = app_ctx.json
    service = app_ctx.service
    service.require_root()
    if prepare:
        path = service.prepare_model()
        print_json({"onnx": str(path)}) if as_json else typer.echo(f"embedding model ready: {path}")
        return
    if check:
        from stigmergy.errors import CheckFailedError

        try:
            report = service.check_index()
        except CheckFailedError as exc:
            rep = getattr(exc, "report", None)
            if rep is not None:
                if as_json:
                    print_json({"ok": False, **asdict(rep)})
                else:
                    for problem in rep.problems:
                        typer.echo(problem)
            raise
        print_json({"ok": True, **asdict(report)}) if as_json else typer.echo(
            f"index ok: {report.pages} pages, {report.fragments} fragments")
        return
    if hook:
        service.index_hook(from_push=push)
        return
    report = _build_with_progress(service, rebuild, quiet=as_json)
    if as_json:
        print_json(asdict(report))
        return
    if report.note:
        typer.echo(report.note)
        return
    rate = report.fragments_embedded / report.embed_seconds if report.embed_seconds else 0.0
    typer.echo(
        f"indexed {report.pages_indexed} pages ({report.pages_removed} removed) at {(report.commit or 'no commit')[:10]}: "
        f"{report.pages_total} pages, {report.fragments_total} fragments; embedded {report.fragments_embedded}"
        + (f" ({rate:.1f}/s)" if rate else "") + f", reused {report.fragments_reused}; {report.seconds:.2f} s"
    )


def _build_with_progress(service: Any, rebuild: bool, quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty():
        return service.index(rebuild=rebuild)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("embedding"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} fragments/s"), TimeRemainingColumn(),
        console=console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task("embed", total=None, rate=0.0)

        def progress(done: int, total: int) -> None:
            elapsed = bar.tasks[0].elapsed or 0.0
            bar.update(task, completed=done, total=total, rate=done / elapsed if elapsed else 0.0)

        return service.index(rebuild=rebuild, progress=progress)


def search_cmd(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int | None, typer.Option("-k", help="How many pages (default [search] k = 5).")] = None,
    type_: Annotated[str | None, typer.Option("--type", help="source | note | concept | entity | project")] = None,
    entity: Annotated[str | None, typer.Option("--entity", help="Only pages about this entity (name or alias).")] = None,
    status: Annotated[str | None, typer.Option("--status", help="seed | developing | mature | evergreen")] = None,
    layer: Annotated[str | None, typer.Option("--layer", help="Only this layer.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only pages updated (or sources dated) on/after this ISO date.")] = None,
    as_reader: AsOption = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each arm's rank and each factor.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Hybrid search (lexical + vector + entity + graph) over the pages you may read."""
    from stigmergy.service import filters

    check_search_filters(k, type_, status, since)
    app_ctx = reading(ctx, as_reader, json_out)
    as_json = app_ctx.json
    result = app_ctx.service.search(query, k=k, filters=filters(type_, entity, status, layer, since))
    if as_json:
        print_json(result.to_dict())
        return
    out = console()
    print_freshness(result.index.to_dict())
    if not result.hits:
        typer.echo("no matching pages")
    for i, hit in enumerate(result.hits, 1):
        tier = hit.trust.get("tier", "-") + ("" if hit.trust.get("status", "candidate") == "candidate"
                                             else f" {hit.trust['status']}")
        out.print(f"{i}. {hit.title}  [{hit.type}{', ' + hit.status if hit.status else ''}]  {tier}  "
                  f"score {hit.score:.4f}", markup=False)
        out.print(f"   {hit.path}#{hit.fragment}  (lines {hit.lines[0]}-{hit.lines[1]})", markup=False)
        out.print(f"   {hit.snippet}", markup=False)
        if explain:
            arms = "  ".join(f"{a}={r if r is not None else '-'}" for a, r in hit.arms.items())
            factors = "  ".join(f"{f}={v:.3f}" for f, v in hit.factors.items())
            out.print(f"   arms: {arms}   rrf {hit.rrf:.5f}   factors: {factors}", markup=False)
            t = hit.trust
            if t:
                out.print(f"   trust: confidence {t['confidence']:.3f} (Beta {t['alpha']:.2f}, {t['beta']:.2f}), "
                          f"{t['feedback']} feedback, {t['decay']}, {t['status']}", markup=False)


def index_worker_cmd(ctx: typer.Context) -> None:
    """Keep the embedding model loaded and index each push the server's post-receive hook hands over (run in
    the hook's checkout, as the hook's user; stops on SIGTERM or Ctrl-C). Without it the hook indexes itself."""
    import signal
    import threading

    app_ctx: AppContext = ctx.obj
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    err = console(stderr=True)

    def say(line: str) -> None:
        err.print(line, markup=False, highlight=False)

    app_ctx.service.index_worker(stop, log=say, ready=lambda path: say(f"index worker listening at {path}"))


hooks_app = typer.Typer(help="Git hooks that keep the index current.", no_args_is_help=True)


@hooks_app.command("install")
def hooks_install(
    ctx: typer.Context,
    server: Annotated[Path | None, typer.Option("--server", help="A bare repository: install post-receive there.")] = None,
    checkout: Annotated[
        Path | None, typer.Option("--checkout", help="With --server: the checkout to update and index (else only the gate).")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Install post-commit/merge/checkout/rewrite hooks (or, with --server, a post-receive hook that indexes
    and a pre-receive hook that runs the preservation gates on every pushed commit)."""
    app_ctx = reading(ctx, None, json_out)
    _print_changes(app_ctx.service.install_hooks(server, checkout), app_ctx.json)


@hooks_app.command("uninstall")
def hooks_uninstall(
    ctx: typer.Context,
    server: Annotated[Path | None, typer.Option("--server", help="The bare repository to clean.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Remove exactly the lines `hooks install` added, keeping other hooks intact."""
    app_ctx = reading(ctx, None, json_out)
    _print_changes(app_ctx.service.uninstall_hooks(server), app_ctx.json)


@hooks_app.command("pre-receive", hidden=True)
def hooks_pre_receive(ctx: typer.Context) -> None:
    """Run by the server's pre-receive hook: judge every pushed commit by the gates; exit 1 rejects the push."""
    app_ctx: AppContext = ctx.obj
    err = console(stderr=True)
    try:
        commits, findings = app_ctx.service.judge_push(Path.cwd(), sys.stdin.read().splitlines())
    except Exception as exc:  # noqa: BLE001 - the gate fails closed: a push it cannot judge is not taken
        err.print(f"stigmergy: push rejected: the gate could not judge it ({type(exc).__name__}: {exc})",
                  markup=False, highlight=False)
        raise typer.Exit(1) from None
    if not findings:
        return
    err.print(f"stigmergy: push rejected: {len(findings)} preservation gate rule(s) broken in {commits} commit(s)",
              markup=False, highlight=False)
    for f in findings:
        err.print("  " + f.render(), markup=False, highlight=False)
    err.print("stigmergy: keep cited lines, attributions, source pages and contradiction blocks as they are; "
              "uncited lines may be added or edited freely", markup=False, highlight=False)
    raise typer.Exit(1)


def _print_changes(changes: list[Any], as_json: bool) -> None:
    if as_json:
        print_json({"hooks": [asdict(c) for c in changes]})
        return
    for c in changes:
        typer.echo(f"{c.action:8} {c.path}")
    if not changes:
        typer.echo("nothing to do")


def register(app: typer.Typer) -> None:
    app.command("index")(index_cmd)
    app.command("search")(search_cmd)
    app.command("index-worker")(index_worker_cmd)
    app.add_typer(hooks_app, name="hooks")
