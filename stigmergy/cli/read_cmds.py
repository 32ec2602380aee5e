"""read, list, describe: scoped reads of the wiki (shapes of --json in docs/schema.md)."""


from typing import Annotated, Any

import typer

from stigmergy.cli.shared import (
    AsOption,
    JsonOption,
    check_search_filters,
    console,
    print_freshness,
    print_json,
    reading,
)
from stigmergy.errors import UsageError


def read_cmd(
    ctx: typer.Context,
    refs: Annotated[list[str], typer.Argument(help="Up to 5 pages: PATH (head) or PATH#n (fragment n and its neighbours).")],
    evidence: Annotated[bool, typer.Option("--evidence", help="Under each cited line, print the source lines it cites.")] = False,
    chars: Annotated[int | None, typer.Option("--chars", help="Head length (default [search] read_head_chars).")] = None,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Read pages: head (or fragment), front matter, links, backlinks, open contradictions."""
    app_ctx = reading(ctx, as_reader, json_out)
    as_json = app_ctx.json
    result = app_ctx.service.read(refs, evidence=evidence, chars=chars)
    if as_json:
        print_json(result)
        return
    out = console()
    print_freshness(result["index"])
    for page in result["pages"]:
        out.rule(f"{page['path']}  ({page['type']}, {page['layer']})", characters="=")
        out.print(_trust_line(page["trust"]), markup=False)
        out.print(f"{page['note']}", markup=False)
        for claim in page["trust"]["claims"]:
            out.print(f"  line {claim['line']}: {claim['tier']} ({claim['confidence']:.2f}, {claim['feedback']} feedback)",
                      markup=False)
        for note in page["trust"]["notes"]:
            out.print(f"  {note['at'][:10]} {note['kind']} by {note['by']}: {note['note']}", markup=False)
        cited = {e["line"]: e for e in page.get("evidence", [])}
        first = page["lines"][0]
        for offset, line in enumerate(page["content"].split("\n")):
            out.print(line, markup=False, highlight=False)
            ev = cited.get(first + offset)
            if ev:
                for cite in ev["cites"]:
                    if cite["text"] is None:
                        out.print("    > (cited source not readable here)", markup=False)
                        continue
                    a, b = cite["lines"]
                    out.print(f"    > {cite['path']}#L{a}" + (f"-L{b}" if b != a else ""), markup=False)
                    for src_line in cite["text"].split("\n"):
                        out.print(f"    > {src_line}", markup=False)
        if page["truncated"]:
            out.print("[…]", markup=False)
        _print_refs(out, "links", page["links"], lambda x: f"[[{x['target']}]] -> {x['path'] or '(no page)'}")
        _print_refs(out, "backlinks", page["backlinks"], lambda x: f"{x['path']} (line {x['line']})")
        for con in page["contradictions"]:
            out.print(f"open contradiction {con['id']}: {con['subject']}", markup=False)


def _trust_line(t: dict[str, Any]) -> str:
    """`trust: MODERATE (0.62), verified, 4 feedback` (docs/trust.md)."""
    if not t:
        return "trust: -"
    extra = f" - {t['reason']}" if t.get("reason") else ""
    return f"trust: {t['tier']} ({t['confidence']:.2f}), {t['status']}, {t['feedback']} feedback, {t['decay']}{extra}"


def _print_refs(out: Any, label: str, items: list[dict[str, Any]], fmt: Any) -> None:
    if items:
        out.print(f"{label}:", markup=False)
        for item in items:
            out.print(f"  {fmt(item)}", markup=False)


def list_cmd(
    ctx: typer.Context,
    type_: Annotated[str | None, typer.Option("--type", help="source | note | concept | entity | project")] = None,
    entity: Annotated[str | None, typer.Option("--entity", help="Pages about this entity (name or alias).")] = None,
    status: Annotated[str | None, typer.Option("--status")] = None,
    layer: Annotated[str | None, typer.Option("--layer")] = None,
    since: Annotated[str | None, typer.Option("--since", help="ISO date")] = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many rows.")] = 200,
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """List the pages you may read, with filters."""
    from stigmergy.service import filters

    check_search_filters(None, type_, status, since)
    if limit < 1:
        raise UsageError(f"--limit {limit}: ask for at least one row")
    app_ctx = reading(ctx, as_reader, json_out)
    as_json = app_ctx.json
    result = app_ctx.service.list_pages(filters(type_, entity, status, layer, since), limit=limit)
    if as_json:
        print_json(result)
        return
    print_freshness(result["index"])
    out = console()
    for p in result["pages"]:
        t = p.get("trust") or {}
        trust = f"{t.get('tier', '-'):11} {float(t.get('confidence', 0.5)):.2f}"
        out.print(f"{p['type']:8} {(p['status'] or '-'):10} {trust}  {(p['date'] or '')[:10]:10}  {p['path']}",
                  markup=False)
    typer.echo(f"{len(result['pages'])} of {result['total']} pages")


def describe_cmd(
    ctx: typer.Context,
    entity: Annotated[str, typer.Argument(help="Entity name or alias.")],
    as_reader: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """An entity: aliases, pages about it, a dated timeline of cited facts, contradictions."""
    app_ctx = reading(ctx, as_reader, json_out)
    as_json = app_ctx.json
    result = app_ctx.service.describe(entity)
    if as_json:
        print_json(result)
        return
    print_freshness(result["index"])
    out = console()
    e = result["entity"]
    out.print(f"{e['title']} ({e['entity_type'] or 'entity'})  {e['path']}", markup=False)
    out.print(_trust_line(e["trust"]), markup=False)
    if e["aliases"]:
        out.print("aliases: " + ", ".join(e["aliases"]), markup=False)
    _print_refs(out, "pages", result["pages"],
                lambda p: f"{p['path']} [{p['type']}] {(p['trust'] or {}).get('tier', '-')}")
    _print_refs(out, "timeline", result["timeline"], lambda t: f"{(t['date'] or '?')[:10]}  {t['fact']}  ({t['source']})")
    for con in result["contradictions"]:
        out.print(f"contradiction {con['id']} [{con['status']}]: {con['subject']}  ({con['page']})", markup=False)


def register(app: typer.Typer) -> None:
    app.command("read")(read_cmd)
    app.command("list")(list_cmd)
    app.command("describe")(describe_cmd)
