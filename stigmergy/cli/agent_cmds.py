"""ask, mcp: the agents' commands. Parse, call stigmergy.answer / stigmergy.mcp, render."""


from typing import Annotated, Any

import typer

from stigmergy.cli.shared import AsOption, JsonOption, console, print_freshness, print_json, reading

TOKEN_ENV = "STIGMERGY_MCP_TOKEN"


def ask_cmd(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question.")],
    evidence: Annotated[bool, typer.Option("--evidence", help="Under each sentence, the lines it cites.")] = False,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Answer from the wiki only: cited sentences, contradictions that touch them, or an honest refusal."""
    app_ctx = reading(ctx, as_reader, json_out)
    result = app_ctx.service.ask(question, evidence=evidence)
    if app_ctx.json:
        print_json(result)
        return
    print_freshness(result["index"])
    render_answer(result)


def _cited(out: Any, citations: list[dict[str, Any]], indent: str) -> None:
    for c in citations:
        a, b = c["lines"]
        out.print(f"{indent}{c['path']}#L{a}" + (f"-L{b}" if b != a else ""), markup=False)
        for line in (c.get("text") or "").split("\n") if "text" in c else []:
            out.print(f"{indent}  > {line}", markup=False)


def render_answer(result: dict[str, Any]) -> None:
    """The answer's sentences (each with its citations), then what it supersedes, the parts it cannot
    answer, the contradictions that touch it; a refusal lists the nearest lines and why each falls short."""
    out = console()
    if not result["answered"]:
        out.print(f"{result['refusal']}.", markup=False)
        if result.get("nearest_lines"):
            out.print("nearest lines:", markup=False)
            for n in result["nearest_lines"]:
                out.print(f"  - {n['text']}" + (f"  ({n['why']})" if n["why"] else ""), markup=False)
                _cited(out, n["citations"], "      ")
        if result["nearest"]:
            out.print("nearest pages:", markup=False)
            for n in result["nearest"]:
                out.print(f"  {n['path']}#{n['fragment']}  ({n['title']})", markup=False)
        for w in result["withheld"]:
            out.print(f"withheld: {w['text']}  ({'; '.join(w['reasons'])})", markup=False)
        return
    out.print(" ".join(s["text"] for s in result["sentences"]), markup=False)
    if result["trust"]["caution"]:
        out.print(f"caution: {result['trust']['caution']}", markup=False)
    for part in result.get("uncovered", []):
        out.print(f"The wiki does not say: {part}.", markup=False)
    out.print("", markup=False)
    for i, s in enumerate(result["sentences"], 1):
        out.print(f"[{i}] {s['title']}  [{s['type']}]", markup=False)
        _cited(out, s["citations"], "    ")
        for a in s.get("also", []):
            out.print(f"    also said in: {a['title']} ({a['path']})", markup=False)
    for sup in result.get("superseded", []):
        out.print(f"superseded: {sup['text']}  ({sup['why']})", markup=False)
        _cited(out, sup["citations"], "    ")
    for con in result["contradictions"]:
        out.print(f"sources disagree ({con['id']}): {con['subject']}", markup=False)
        for i, claim in enumerate(con["claims"]):
            a, b = claim["citation"]["lines"]
            later = "  <- later" if con["later"] == i else ""
            out.print(f"  {claim['date']}: {claim['text']}  ({claim['citation']['path']}#L{a}-L{b}){later}", markup=False)
    for w in result["withheld"]:
        out.print(f"withheld: {w['text']}  ({'; '.join(w['reasons'])})", markup=False)


def mcp_cmd(
    ctx: typer.Context,
    as_reader: Annotated[str | None, typer.Option("--as", help="Serve as this reader (default: STIGMERGY_READER, else git user.email). Clients cannot change it.")] = None,
    allow_capture: Annotated[bool, typer.Option("--allow-capture", help="Offer the capture tool (files through the gates).")] = False,
    http: Annotated[bool, typer.Option("--http", help=f"Streamable HTTP on 127.0.0.1 instead of stdio; needs ${TOKEN_ENV}.")] = False,
    port: Annotated[int, typer.Option("--port", help="With --http: the port (0 picks a free one).")] = 8765,
) -> None:
    """Serve the wiki to agents over MCP (stdio by default): search, read, list, describe, contradictions, ask, status."""
    from stigmergy.errors import ConfigError
    from stigmergy.mcp.tools import Session

    app_ctx = reading(ctx, as_reader, False)
    service = app_ctx.service.serving()  # a server lives long: Git reads through GitPython (repo/gitpython.py)
    service.require_root()
    session = Session(service, allow_capture=allow_capture)
    try:
        if http:
            from stigmergy.mcp.http import serve_http

            token = service.env.get(TOKEN_ENV, "")
            if not token:
                raise ConfigError(f"--http needs a bearer token in ${TOKEN_ENV}",
                                  hint=f"export {TOKEN_ENV}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')")
            serve_http(session, token, port)
        else:
            from stigmergy.mcp.server import build_server

            build_server(session).run("stdio")
    finally:
        session.close()


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_cmd)
    app.command("mcp")(mcp_cmd)
