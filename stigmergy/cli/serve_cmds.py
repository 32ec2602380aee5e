"""serve, tokens: the team server and the tokens it accepts. Parse, call stigmergy.server, render."""


import os
from pathlib import Path
from typing import Annotated, Any

import typer

from stigmergy.cli.shared import JsonOption, print_json, reading

TOKENS_ENV = "STIGMERGY_TOKENS_FILE"

TokensFileOption = Annotated[Path | None, typer.Option(
    "--tokens-file", help=f"The tokens file (default: ${TOKENS_ENV}, else ~/.config/stigmergy/tokens.json).")]

tokens_app = typer.Typer(help="Per-person tokens for `stigmergy serve` (stored hashed, outside the repository).",
                         no_args_is_help=True)


def _store(path: Path | None) -> Any:
    from stigmergy.server.tokens import TokenStore, default_tokens_file

    env = os.environ
    chosen = path or (Path(env[TOKENS_ENV]) if env.get(TOKENS_ENV) else default_tokens_file(env))
    return TokenStore(chosen.expanduser())


def _refuse_inside_repository(ctx: typer.Context, path: Path) -> None:
    """A tokens file inside the knowledge repository could be committed and pushed with it."""
    from stigmergy.errors import UsageError

    root = ctx.obj.service.root if ctx.obj else None
    if root is not None and path.resolve().is_relative_to(Path(root).resolve()):
        raise UsageError(f"{path}: the tokens file must live outside the repository",
                         hint="leave out --tokens-file (default ~/.config/stigmergy/tokens.json)")


@tokens_app.command("add")
def tokens_add(
    ctx: typer.Context,
    email: Annotated[str, typer.Argument(help="The person's e-mail (their identity in [layers] readers).")],
    tokens_file: TokensFileOption = None,
    json_out: JsonOption = False,
) -> None:
    """Issue a token to a person; it is printed once and stored only as its SHA-256."""
    store = _store(tokens_file)
    _refuse_inside_repository(ctx, store.path)
    record, token = store.add(email)
    if json_out or ctx.obj.json:
        print_json({**record.public(), "token": token, "tokens_file": str(store.path)})
        return
    typer.echo(token)
    typer.echo(f"token {record.id} for {record.email} (shown once; stored hashed in {store.path})", err=True)


@tokens_app.command("list")
def tokens_list(ctx: typer.Context, tokens_file: TokensFileOption = None, json_out: JsonOption = False) -> None:
    """The tokens issued: id, e-mail, when, and whether revoked (never a token or its hash)."""
    store = _store(tokens_file)
    rows = [r.public() for r in store.records()]
    if json_out or ctx.obj.json:
        print_json({"tokens_file": str(store.path), "tokens": rows})
        return
    for r in rows:
        state = f"revoked {r['revoked']}" if r["revoked"] else "active"
        typer.echo(f"{r['id']}  {r['email']}  {r['created']}  {state}")


@tokens_app.command("revoke")
def tokens_revoke(
    ctx: typer.Context,
    who: Annotated[str, typer.Argument(help="A token id (tok_…) or an e-mail (all of that person's tokens).")],
    tokens_file: TokensFileOption = None,
    json_out: JsonOption = False,
) -> None:
    """Revoke tokens; a running server ends their sessions at their next request."""
    store = _store(tokens_file)
    done = store.revoke(who)
    if json_out or ctx.obj.json:
        print_json({"revoked": [r.public() for r in done]})
        return
    for r in done:
        typer.echo(f"revoked {r.id} ({r.email})")


def serve_cmd(
    ctx: typer.Context,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback unless --allow-host names the public name).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="The port (0 picks a free one).")] = 8766,
    allow_capture: Annotated[bool, typer.Option("--allow-capture", help="Offer capture (MCP tool) into layers the person may write.")] = False,
    allow_host: Annotated[list[str] | None, typer.Option("--allow-host", help="Another Host name clients use (a proxy's); repeatable.")] = None,
    tokens_file: TokensFileOption = None,
    slack: Annotated[bool, typer.Option("--slack", help="Also serve the Slack endpoint: /slack/events captures the "
                                        "configured channels, /slack/commands answers /wiki (docs/serve.md).")] = False,
    slack_config: Annotated[Path | None, typer.Option(
        "--slack-config", help="The Slack endpoint's settings (default: ~/.config/stigmergy/slack.toml).")] = None,
    search_processes: Annotated[int | None, typer.Option(
        "--search-processes", min=1, max=64,
        help="Answer searches in this many worker processes, up to one per core (default [search] processes).")] = None,
) -> None:
    """Serve the wiki to a team: MCP for agents at /mcp and a read-only web view, each person by their token."""
    from stigmergy.server.app import serve
    from stigmergy.server.config import ServeConfig
    from stigmergy.server.guard import LOOPBACK_NAMES

    service = reading(ctx).service.serving()  # a server lives long: Git reads through GitPython (repo/gitpython.py)
    service.require_root()
    if search_processes is not None:
        from dataclasses import replace

        service.adopt_settings(replace(service.settings, search=replace(service.settings.search,
                                                                         processes=search_processes)))
    pool = service.search_workers()
    if pool is not None:
        pool.warm()  # the workers load the model and open the index while the server starts
    store = _store(tokens_file)
    _refuse_inside_repository(ctx, store.path)
    names = (*LOOPBACK_NAMES, *(allow_host or ()))
    config = ServeConfig(service=service, tokens=store, allow_capture=allow_capture, host_names=names)
    active = sum(1 for r in store.records() if r.active)
    if not active:
        typer.echo(f"note: no active token in {store.path}; issue one with `stigmergy tokens add EMAIL`", err=True)
    if not slack:
        serve(config, host, port)
        return
    from stigmergy.server.slack import endpoint

    chat = endpoint(config, config_path=slack_config, web_url=f"http://{host}:{port}" if port else "")
    if chat.capturer is None:
        typer.echo("note: no channel to capture (or no capture_as / [roles] service): /slack/events captures nothing",
                   err=True)
    try:
        serve(config, host, port, routes=chat.routes())
    finally:
        chat.close()


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_cmd)
    app.add_typer(tokens_app, name="tokens")
