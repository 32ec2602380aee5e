"""HTML for the web view. Every value that came from the repository, the index or the request goes
through `e` (or `attr`) on its way in; nothing else is ever interpolated into markup."""

from __future__ import annotations

import html
from typing import Any

from stigmergy.errors import StigmergyError

STYLESHEET = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#fafafa}
header{background:#1d2430;color:#fff;padding:.5em 1em;display:flex;gap:1em;align-items:center;flex-wrap:wrap}
header a{color:#cfe0ff}header form{margin:0}header .who{margin-left:auto;font-size:.9em}
main{max-width:70em;margin:0 auto;padding:1em 1.5em}
.fresh{font-size:.85em;padding:.3em 1em;background:#eef5ee;border-bottom:1px solid #cde0cd}
.fresh.stale{background:#fff4e0;border-color:#f0c070}
input[type=text],input[type=password]{padding:.35em;min-width:20em}
.meta{color:#5a6270;font-size:.9em}
.hl{background:#fff1a8}
table.src{border-collapse:collapse;font:13px/1.45 ui-monospace,monospace;width:100%}
table.src td{vertical-align:top;padding:0 .6em;white-space:pre-wrap;word-break:break-word}
table.src td.n{color:#8a92a0;text-align:right;user-select:none;width:4em}
table.src td.n a{color:inherit;text-decoration:none}
.contradiction{border:2px solid #d9822b;border-radius:6px;padding:.6em 1em;margin:1em 0;background:#fff8ef}
.claims{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.claim{background:#fff;border:1px solid #e3c9a8;border-radius:4px;padding:.5em .8em}
.status{display:inline-block;padding:0 .5em;border-radius:3px;background:#e4e9f2;font-size:.85em}
.hit{margin:.8em 0}.hit .snippet{color:#333}
details{margin:.3em 0}.error{color:#a01818}
nav.side{font-size:.9em}
""".strip()


def e(value: Any) -> str:
    """Escaped text (also safe inside a double-quoted attribute)."""
    return html.escape("" if value is None else str(value), quote=True)


def layout(title: str, body: str, session: Any = None, index: dict[str, Any] | None = None) -> str:
    head = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{e(title)} - stigmergy</title><link rel=stylesheet href='/static/style.css'></head><body>"
    )
    bar = ""
    if session is not None:
        bar = (
            "<header><a href='/'><b>stigmergy</b></a>"
            "<form action='/search' method=get><input type=text name=q placeholder='Search' aria-label=Search>"
            "</form><form action='/ask' method=get><input type=text name=q placeholder='Ask a question' "
            "aria-label=Ask></form><a href='/contradictions'>Contradictions</a>"
            f"<span class=who>{e(session.reader)}</span>"
            "<form action='/signout' method=post><button type=submit>Sign out</button></form></header>"
        )
        bar += freshness(index)
    return f"{head}{bar}<main>{body}</main></body></html>"


def freshness(index: dict[str, Any] | None) -> str:
    if index is None:
        return "<div class='fresh stale' id=fresh>No index yet: run <code>stigmergy index</code>.</div>"
    commit = e((index.get("commit") or "nothing")[:10])
    if index.get("stale") or index.get("ahead"):
        changed = index.get("changed") or []
        return (f"<div class='fresh stale' id=fresh>Index at {commit}: STALE, {len(changed)} page(s) changed "
                "since. Run <code>stigmergy index</code>.</div>")
    return f"<div class=fresh id=fresh>Index at {commit} (current).</div>"


def signin_page(message: str | None = None) -> str:
    note = f"<p class=error role=alert>{e(message)}</p>" if message else ""
    body = (
        "<h1>Sign in</h1>" + note +
        "<form action='/signin' method=post><label>Token <input type=password name=token id=token "
        "autocomplete=off></label> <button type=submit id=signin>Sign in</button></form>"
        "<p class=meta>Ask the server's operator for a token (<code>stigmergy tokens add EMAIL</code>).</p>"
    )
    return layout("Sign in", body)


def error_page(session: Any, exc: StigmergyError, status: int) -> str:
    hint = f"<p class=meta>{e(exc.hint)}</p>" if exc.hint else ""
    return layout("Not found" if status == 404 else "Error",
                  f"<h1>{'Not found' if status == 404 else 'Error'}</h1><p class=error>{e(exc.message)}</p>{hint}",
                  session, session.service.freshness())


def home_page(session: Any) -> str:
    from stigmergy.mcp import tools

    status = tools.status(session)
    rows = "".join(f"<li>{e(t)}: {e(n)}</li>" for t, n in (status.get("pages_by_type") or {}).items())
    body = (f"<h1>Wiki</h1><p>You read as <b>{e(status['reader'])}</b>, layers: "
            f"{e(', '.join(status['layers']))}.</p><ul>{rows}</ul>")
    return layout("Home", body, session, status.get("index"))
