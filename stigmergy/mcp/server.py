"""The MCP server: each tool is a thin wrapper over `tools`, its result returned as structured content
(and the same JSON as text, for clients that only read text), its failure as an MCP tool error carrying
the CLI's one-line reason.

The reader is a property of the server, set when it starts: no tool takes a reader argument, so a client
cannot read as anyone else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from stigmergy.errors import StigmergyError
from stigmergy.mcp import tools
from stigmergy.mcp.tools import Session

# An agent's context is the budget: no tool answer is larger than this (a larger one is an error that says
# how to ask for less).
MAX_RESULT_CHARS = 120_000
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "A team wiki compiled from source documents. Every factual line of a wiki page cites the source lines "
    "it rests on. Use `ask` for a cited answer (or an honest refusal), `search` then `read` (PATH or PATH#n "
    "fragments, `evidence` for the cited source lines) to look yourself, `describe` for an entity. Every "
    "answer says which commit the index reflects and whether it is `stale`. You read as {reader}."
)


def error_result(exc: StigmergyError) -> CallToolResult:
    text = f"error: {exc.message}" + (f"\nhint: {exc.hint}" if exc.hint else "")
    error: dict[str, Any] = {"message": exc.message, "hint": exc.hint, "exit_code": exc.exit_code,
                             "kind": type(exc).__name__}
    details = getattr(exc, "details", None)
    if details is not None:
        error["details"] = details
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"error": error},
                          is_error=True)


def _result(call: Callable[[], dict[str, Any]]) -> CallToolResult:
    try:
        data = call()
    except StigmergyError as exc:
        return error_result(exc)
    text = json.dumps(data, ensure_ascii=False, default=str)
    if len(text) > MAX_RESULT_CHARS:
        return error_result(StigmergyError(
            f"the answer is {len(text)} characters, over the {MAX_RESULT_CHARS}-character limit of a tool result",
            hint="ask for fewer pages, a fragment (PATH#n), a smaller k or limit, or leave out evidence"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=json.loads(text))


Str = Annotated[str | None, Field(default=None)]


# Who a tool call reads as: the server's one session (stdio, `mcp --http`), or the session of the person
# whose token the HTTP request carried (`stigmergy serve`), found from the request, never its arguments.
Resolver = Callable[["Context | None"], Session]


def build_server(session: Session | Resolver, *, allow_capture: bool | None = None,
                 reader_label: str | None = None) -> MCPServer:
    """An MCPServer whose tools are scoped by the session's reader; `capture` only with `allow_capture`
    (default: the session's). `session` is one fixed session or a resolver from the call's context."""
    if isinstance(session, Session):
        fixed = session
        found: Resolver = lambda _ctx: fixed  # noqa: E731
        allow_capture = fixed.allow_capture if allow_capture is None else allow_capture
        reader_label = reader_label or fixed.reader or "(no identity)"
    else:
        found = session

    def resolve(ctx: Context | None) -> Session:
        # Readers are read again whenever stigmergy.toml changed (inside the call, so a file that no longer
        # parses is the call's error): someone removed from a layer mid-session loses it at the next call.
        s = found(ctx)
        s.service.refresh_settings()
        return s

    # Warnings and errors only, as uvicorn's: the SDK's default (INFO through Rich, on the root logger) wrote
    # a line per MCP session opened and closed, ~4% of a loaded server's CPU.
    server = MCPServer("stigmergy", instructions=INSTRUCTIONS.format(reader=reader_label or "the holder of your token"),
                       log_level="WARNING")

    @server.tool(annotations=READ_ONLY, description=(
        "Hybrid search (lexical + vector + entity + graph) over the pages you may read. Each hit names a page, "
        "its best fragment (read it with PATH#n), the fragment's line range and a snippet."))
    def search(
        query: Annotated[str, Field(description="What to look for.", max_length=1000)],
        k: Annotated[int | None, Field(description="How many pages (default 5, at most 50).")] = None,
        type: Annotated[str | None, Field(description="source | note | concept | entity | project")] = None,
        entity: Annotated[str | None, Field(description="Only pages about this entity (name or alias).")] = None,
        status: Annotated[str | None, Field(description="seed | developing | mature | evergreen")] = None,
        layer: Annotated[str | None, Field(description="Only this layer.")] = None,
        since: Annotated[str | None, Field(description="Only pages updated (or sources dated) on/after this ISO date.")] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return _result(lambda: tools.search(resolve(ctx), query, k, type, entity, status, layer, since))

    @server.tool(annotations=READ_ONLY, description=(
        "Read up to 5 pages: PATH gives the page head (6,000 characters by default), PATH#n fragment n with "
        "its neighbours (about 256 word pieces on each side); with links, backlinks, open contradictions and, "
        "with evidence, the source lines each cited line rests on."))
    def read(
        refs: Annotated[list[str], Field(description="PATH or PATH#n, at most 5.", min_length=1, max_length=5)],
        evidence: Annotated[bool, Field(description="Under each cited line, the source lines it cites.")] = False,
        chars: Annotated[int | None, Field(description="Head length (default 6000, at most 20000).")] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return _result(lambda: tools.read(resolve(ctx), refs, evidence, chars))

    @server.tool(name="list", annotations=READ_ONLY, description="List the pages you may read, with filters.")
    def list_(
        type: Annotated[str | None, Field(description="source | note | concept | entity | project")] = None,
        entity: Annotated[str | None, Field(description="Pages about this entity (name or alias).")] = None,
        status: Annotated[str | None, Field(description="seed | developing | mature | evergreen")] = None,
        layer: Str = None,
        since: Annotated[str | None, Field(description="ISO date")] = None,
        limit: Annotated[int, Field(description="At most this many rows (1-200).")] = 200,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return _result(lambda: tools.list_(resolve(ctx), type, entity, status, layer, since, limit))

    @server.tool(annotations=READ_ONLY, description=(
        "An entity: aliases, the pages about it, a dated timeline of the facts they cite, contradictions."))
    def describe(entity: Annotated[str, Field(description="Entity name or alias.", max_length=300)],
                 ctx: Context | None = None) -> CallToolResult:
        return _result(lambda: tools.describe(resolve(ctx), entity))

    @server.tool(annotations=READ_ONLY, description=(
        "Contradiction blocks on the pages you may read: both claims with their dates and cited sources."))
    def contradictions(
        status: Annotated[str | None, Field(description="open | resolved (default: both)")] = None,
        limit: Annotated[int, Field(description="At most this many (1-200).")] = 200,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return _result(lambda: tools.contradictions(resolve(ctx), status, limit))

    @server.tool(annotations=READ_ONLY, description=(
        "Answer a question from the wiki only: one sentence per part of the question, each with the citations "
        "it rests on (wiki line and source lines); a line answers only when it holds what the question asks "
        "for (a name for who, a date for when, a figure for how many…); later and final claims beat earlier "
        "and draft ones, which are listed as superseded; a part the wiki does not cover is listed as "
        "uncovered. When nothing answers, the answer is a refusal ('the wiki does not say') with the "
        "nearest lines and why each falls short."))
    def ask(
        question: Annotated[str, Field(description="The question.", max_length=1000)],
        evidence: Annotated[bool, Field(description="Include the text of every cited line.")] = False,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return _result(lambda: tools.ask(resolve(ctx), question, evidence))

    @server.tool(annotations=READ_ONLY, description=(
        "Who you read as, your layers, the index's commit and whether it is stale, pages and contradictions."))
    def status(ctx: Context | None = None) -> CallToolResult:
        return _result(lambda: tools.status(resolve(ctx)))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
                 description=(
        "Say whether a page you read was useful, wrong or outdated (recorded as you; it changes the page's "
        "confidence and ranking from the next search). `page`: PATH (the whole page), PATH#n for the passage a "
        "search hit showed (its `fragment`: judges only that passage; with `query`, for queries like it), PATH#Ln for "
        "a line."))
    def feedback(
        page: Annotated[str, Field(description="PATH, PATH#n or PATH#Ln.", max_length=1000)],
        verdict: Annotated[Literal["useful", "wrong", "outdated"], Field(description="useful | wrong | outdated")],
        note: Annotated[str, Field(description="Why (at most 500 characters).", max_length=500)] = "",
        query: Annotated[str, Field(description="The search query a passage (PATH#n) was judged from: the "
                                    "judgement then ranks only queries like it.", max_length=300)] = "",
        ctx: Context | None = None,
    ) -> CallToolResult:
        return _result(lambda: tools.feedback(resolve(ctx), page, verdict, note, query))

    if allow_capture:
        @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
                     description=(
            "Capture text into the wiki through the normal path: evidence store, immutable source page, "
            "planner, preservation gates, one commit. Submitted as you; only into a layer you may read."))
        def capture(
            text: Annotated[str, Field(description="The material to capture (Markdown or plain text).")],
            title: Str = None,
            occurred_at: Annotated[str | None, Field(description="When it happened (ISO date).")] = None,
            layer: Annotated[str, Field(description="Layer to file into (default public).")] = "public",
            project: Str = None,
            resolves: Annotated[str | None, Field(description="A contradiction id (con_…) this capture resolves.")] = None,
            rationale: Annotated[str | None, Field(description="Why it resolves it (with resolves).")] = None,
            ctx: Context | None = None,
        ) -> CallToolResult:
            return _result(lambda: tools.capture(resolve(ctx), text, title, occurred_at, layer, project, resolves, rationale))

    return server
