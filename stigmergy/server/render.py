"""HTML for the web view. Every value that came from the repository, the index or the request goes
through `e` (or `attr`) on its way in; nothing else is ever interpolated into markup."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import quote

from stigmergy.errors import StigmergyError
from stigmergy.server.markdown import page_url, render_markdown

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
.claim{background:#fff;border:1px solid #e3c9a8;border-radius:4px;padding:.5em .8em;min-width:0;overflow-wrap:anywhere}
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


def _lines_label(start: int, end: int) -> str:
    return f"L{start}" + (f"-L{end}" if end != start else "")


def cite_link(path: str, start: int, end: int, text: str | None = None) -> str:
    label = text if text is not None else f"{path}#{_lines_label(start, end)}"
    return f"<a class=citation href=\"{e(page_url(path, (start, end)))}\">{e(label)}</a>"


def page_link(path: str, title: str | None = None) -> str:
    return f"<a href=\"{e(page_url(path))}\">{e(title or path)}</a>"


def home_page(session: Any, status: dict[str, Any], listed: dict[str, Any] | None) -> str:
    by_type: dict[str, list[dict[str, Any]]] = {}
    for p in (listed or {}).get("pages", []):
        by_type.setdefault(p["type"], []).append(p)
    sections = "".join(
        f"<h2>{e(t)} ({len(ps)})</h2><ul>" + "".join(
            f"<li>{page_link(p['path'], p['title'])} <span class=meta>{e(p.get('status') or '')} "
            f"{e((p.get('trust') or {}).get('tier', ''))} {e(p.get('date') or '')}</span></li>" for p in ps) + "</ul>"
        for t, ps in sorted(by_type.items()) if t != "source")
    total = (listed or {}).get("total")
    body = (f"<h1>Wiki</h1><p>You read as <b>{e(status['reader'])}</b>; layers: "
            f"{e(', '.join(status['layers']))}. Pages: {e(total if total is not None else 'no index')}; "
            f"contradictions open: {e((status.get('contradictions') or {}).get('open', 0))} "
            "(<a href='/contradictions'>list</a>).</p>"
            + ("<p><a href='/capture' id=capture-link>Capture</a> text into the wiki.</p>" if status.get("capture") else "")
            + sections)
    return layout("Home", body, session, status.get("index"))


# ------------------------------------------------------------ a page


def _contradiction(block: dict[str, Any]) -> str:
    claims = "".join(
        f"<div class=claim><div class=meta>{e(c['date'])}</div><p>{e(c['text'])}</p>"
        f"{cite_link(c['path'], c['start'], c['end'])}</div>" for c in block["claims"])
    resolution = ""
    if block.get("resolution"):
        r = block["resolution"]
        resolution = (f"<p><b>Resolved {e(r['date'])}:</b> {e(r['rationale'])} "
                      f"({page_link(r['path'], r['source'])})</p>")
    return (f"<section class=contradiction id=\"{e(block['id'])}\"><h3>Contradiction "
            f"<span class=status>{e(block['status'])}</span>: {e(block['subject'])}</h3>"
            f"<p>{e(block['explanation'])}</p><div class=claims>{claims}</div>{resolution}</section>")


def _body_lines(content: str) -> tuple[list[str], int]:
    """The file's lines after its front matter, and the file line number of the first of them."""
    lines = content.split("\n")
    if lines and lines[0] == "---":
        for i in range(1, len(lines)):
            if lines[i] in ("---", "..."):
                return lines[i + 1:], i + 2
    return lines, 1


def wiki_body(page: dict[str, Any]) -> str:
    """The page's Markdown as HTML, each contradiction block drawn from its record instead of its text."""
    links = {(link["target"] or "").casefold(): link["path"] for link in page["links"] if link.get("path")}
    lines, first = _body_lines(page["content"])
    by_start = {b["start"]: b for b in page.get("blocks", [])}
    out: list[str] = []
    chunk: list[str] = []
    n = first
    i = 0
    while i < len(lines):
        block = by_start.get(n)
        if block is not None:
            out.append(render_markdown("\n".join(chunk), page["path"], links))
            chunk = []
            out.append(_contradiction(block))
            skip = block["end"] - block["start"] + 1
            i += skip
            n += skip
            continue
        chunk.append(lines[i])
        i += 1
        n += 1
    out.append(render_markdown("\n".join(chunk), page["path"], links))
    return "".join(out)


def _source_body(page: dict[str, Any], highlight: tuple[int, int] | None) -> str:
    fm = page["front_matter"]
    arts = fm.get("artifacts") or []
    rows = [("submitted by", fm.get("submitted_by")), ("occurred", fm.get("occurred_at")),
            ("captured", fm.get("captured_at")), ("origin", fm.get("origin")), ("locator", fm.get("locator")),
            ("layer", page["layer"])]
    for a in arts if isinstance(arts, list) else []:
        if isinstance(a, dict):
            rows += [("sha256", a.get("sha256")), ("media type", a.get("media_type")), ("bytes", a.get("bytes")),
                     ("extractor", f"{a.get('extractor')} {a.get('extractor_version')}")]
    prov = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
    original = (f"<p><a id=original href=\"/original/{e(quote(page['path']))}\">Original bytes</a> "
                "(downloaded, never shown inline)</p>") if arts else ""
    lo, hi = highlight or (0, -1)
    table = "".join(
        f"<tr id=L{n}{' class=hl' if lo <= n <= hi else ''}><td class=n><a href='#L{n}'>{n}</a></td>"
        f"<td>{e(line)}</td></tr>" for n, line in enumerate(page["content"].split("\n"), 1))
    return (f"<table class=prov id=provenance>{prov}</table>{original}"
            f"<table class=src id=source>{table}</table>")


def page_view(session: Any, result: dict[str, Any], highlight: tuple[int, int] | None,
              recorded: bool = False) -> str:
    page = result["pages"][0]
    fm = page["front_matter"]
    meta = [f"<span class=status>{e(page['type'])}</span>"]
    if page["type"] != "source":
        meta.append(f"status <span class=status id=status>{e(fm.get('status'))}</span>")
        trust = page.get("trust") or {}
        if trust:
            meta.append(f"confidence <span class=status id=confidence>{e(trust.get('confidence'))}</span> "
                        f"({e(trust.get('tier'))}, {e(trust.get('status'))}, {e(trust.get('feedback'))} feedback)")
        meta.append(f"updated {e(fm.get('updated'))}")
    meta.append(f"layer {e(page['layer'])}")
    meta.append(f"<a href=\"/history/{e(quote(page['path']))}\">history</a>")
    if page["type"] == "entity":
        meta.append(f"<a href=\"/entity/{e(quote(page['title']))}\">neighbourhood</a>")
    body = _source_body(page, highlight) if page["type"] == "source" else wiki_body(page)
    links = "".join(f"<li>{page_link(x['path'], x['title'])}</li>" for x in page["links"] if x.get("path"))
    backs = "".join(f"<li>{page_link(x['path'], x['title'])}</li>" for x in page["backlinks"])
    side = (f"<nav class=side><h3>Links</h3><ul id=links>{links or '<li>none</li>'}</ul>"
            f"<h3>Backlinks</h3><ul id=backlinks>{backs or '<li>none</li>'}</ul></nav>")
    title = f"<h1>{e(page['title'])}</h1>" if page["type"] == "source" else ""
    html_ = (f"{title}<p class=meta>{' · '.join(meta)}</p><p class=meta>{e(page['path'])}</p>"
             f"<article id=page>{body}</article>{side}{feedback_form(page, recorded)}")
    return layout(page["title"], html_, session, result.get("index"))


def feedback_form(page: dict[str, Any], recorded: bool) -> str:
    """Useful / wrong on the page (docs/trust.md), with the newest reader notes. A same-origin POST: the
    server records it as the signed-in person."""
    notes = "".join(f"<li><span class=meta>{e(n.get('at', '')[:10])} {e(n.get('by'))} ({e(n.get('kind'))})</span> "
                    f"{e(n.get('note'))}</li>" for n in (page.get("trust") or {}).get("notes") or [])
    done = "<p class=meta id=recorded>Recorded, thank you: it counts from the next search.</p>" if recorded else ""
    return (f"<section id=feedback><h3>Was this page right?</h3>{done}"
            f"<form action=\"/feedback/{e(quote(page['path']))}\" method=post>"
            "<input type=text name=note maxlength=500 placeholder='What is wrong or useful (optional)' "
            "aria-label=Note id=note> <button type=submit name=kind value=useful id=useful>Useful</button> "
            "<button type=submit name=kind value=wrong id=wrong>Wrong</button></form>"
            + (f"<ul id=notes>{notes}</ul>" if notes else "") + "</section>")


def history_page(session: Any, path: str, commits: list[dict[str, Any]], index: dict[str, Any] | None) -> str:
    rows = "".join(
        f"<tr><td><code>{e(c['commit'][:10])}</code></td><td>{e(c['date'])}</td>"
        + ("<td colspan=2 class=meta>(a change that also touched layers you do not read)</td>" if c["withheld"]
           else f"<td>{e(c['author'])}</td><td>{e(c['subject'])}</td>") + "</tr>"
        for c in commits)
    body = (f"<h1>History of {page_link(path)}</h1><table id=history><tr><th>commit</th><th>date</th>"
            f"<th>author</th><th>subject</th></tr>{rows}</table>")
    return layout("History", body, session, index)


# ------------------------------------------------------------ search, ask, contradictions, entity


def search_page(session: Any, query: str, result: dict[str, Any] | None, recorded: bool = False) -> str:
    form = (f"<form action='/search' method=get><input type=text name=q value=\"{e(query)}\" id=q> "
            "<button type=submit>Search</button></form>")
    if result is None:
        return layout("Search", "<h1>Search</h1>" + form, session, session.service.freshness())
    hits = []
    for h in result["hits"]:
        arms = ", ".join(f"{e(k)} #{e(v)}" for k, v in h["arms"].items() if v is not None)
        factors = ", ".join(f"{e(k)} {float(v):.3g}" for k, v in h["factors"].items())
        a, b = h["lines"]
        frag = f"fragment {h['fragment']}, lines {a}-{b}"
        hits.append(
            f"<div class=hit><div>{page_link(h['path'], h['title'])} <span class=meta>{e(h['type'])} · "
            f"{e(h['layer'])} · {e(h.get('status') or '')}</span></div>"
            f"<div class=snippet>{_marked(h['snippet'])}</div>"
            f"<div class=meta>{cite_link(h['path'], a, b, frag)} {e((h.get('trust') or {}).get('tier', ''))}</div>"
            f"{_passage_form(h, query)}"
            f"<details class=explain><summary>why this hit</summary><p>score {float(h['score']):.4g}, "
            f"fused {float(h['rrf']):.4g}; arms: {arms or 'none'}; factors: {factors or 'none'}</p></details></div>")
    done = "<p class=meta id=recorded>Recorded, thank you: it counts from this search on.</p>" if recorded else ""
    body = (f"<h1>Search</h1>{form}{done}<p class=meta>{len(result['hits'])} hits; arms: "
            f"{e(', '.join(result['arms']))}</p><div id=hits>{''.join(hits) or '<p>No hits.</p>'}</div>")
    return layout(f"Search: {query}", body, session, result.get("index"))


def _passage_form(hit: dict[str, Any], query: str) -> str:
    """Useful / wrong on the passage this hit showed (`PATH#n`), for this search: search ranks by it only for
    queries that match the same passage and are like this one (docs/trust.md); back to this search afterwards."""
    return (f"<form action=\"/feedback/{e(quote(hit['path']))}\" method=post class=passage-feedback>"
            f"<input type=hidden name=fragment value=\"{e(hit['fragment'])}\">"
            f"<input type=hidden name=q value=\"{e(query)}\">"
            "<button type=submit name=kind value=useful>Useful</button> "
            "<button type=submit name=kind value=wrong>Wrong</button></form>")


def _marked(snippet: str) -> str:
    """A snippet with its matched words (`**word**` in the index's snippet) marked, the rest escaped."""
    import re

    return re.sub(r"\*\*(.+?)\*\*", r"<mark>\1</mark>", e(snippet))


def _citations(cites: list[dict[str, Any]]) -> str:
    return " ".join(cite_link(c["path"], c["lines"][0], c["lines"][1]) for c in cites)


def _also(sources: list[dict[str, str]]) -> str:
    """The other sources that state a sentence's value (answer/corroborate.py)."""
    if not sources:
        return ""
    return " <span class=meta>also said in: " + ", ".join(page_link(a["path"], a["title"]) for a in sources) + "</span>"


def ask_page(session: Any, question: str, result: dict[str, Any] | None) -> str:
    form = (f"<form action='/ask' method=get><input type=text name=q value=\"{e(question)}\" id=q> "
            "<button type=submit>Ask</button></form>")
    if result is None:
        return layout("Ask", "<h1>Ask</h1>" + form, session, session.service.freshness())
    parts: list[str] = []
    if not result["answered"]:
        parts.append(f"<p id=answer class=refusal>{e(result.get('refusal', 'the wiki does not say'))}.</p>")
        near = "".join(f"<li>{e(n['text'])} <span class=meta>{e(n['why'])}</span> {_citations(n['citations'])}</li>"
                       for n in result.get("nearest_lines", []))
        if near:
            parts.append(f"<h3>Nearest lines</h3><ul>{near}</ul>")
    else:
        sentences = "".join(
            f"<li>{e(s['text'])} <span class=meta>({page_link(s['page'], s['title'])})</span> "
            f"{_citations(s['citations'])}{_also(s.get('also', []))}</li>" for s in result["sentences"])
        parts.append(f"<ol id=answer>{sentences}</ol>")
        for u in result.get("uncovered", []):
            parts.append(f"<p class=meta>The wiki does not say: {e(u)}.</p>")
        for sup in result.get("superseded", []):
            parts.append(f"<p class=meta>Superseded: {e(sup['text'])} ({e(sup['why'])}) {_citations(sup['citations'])}</p>")
    for con in result.get("contradictions", []):
        claims = "".join(
            f"<div class=claim><div class=meta>{e(c['date'])}</div><p>{e(c['text'])}</p>"
            f"{cite_link(c['citation']['path'], c['citation']['lines'][0], c['citation']['lines'][1])}</div>"
            for c in con["claims"])
        parts.append(f"<section class=contradiction><h3>Sources disagree: {e(con['subject'])}</h3>"
                     f"<div class=claims>{claims}</div></section>")
    for w in result.get("withheld", []):
        parts.append(f"<p class=meta>Withheld: {e(w['text'])} ({e('; '.join(w['reasons']))})</p>")
    return layout(f"Ask: {question}", f"<h1>Ask</h1>{form}{''.join(parts)}", session, result.get("index"))


def contradictions_page(session: Any, found: list[dict[str, Any]], status: str | None,
                        index: dict[str, Any] | None) -> str:
    items = []
    for c in found:
        if c.get("id") is None:
            continue  # a malformed block: `stigmergy lint` reports it
        items.append(f"<div>On {page_link(c['page'])} (line {e(c['line'])}):{_contradiction(c)}</div>")
    tabs = " · ".join(f"<a href='/contradictions?status={s}'>{s}</a>" for s in ("open", "resolved"))
    body = (f"<h1>Contradictions ({e(status or 'all')})</h1><p>{tabs} · <a href='/contradictions'>all</a></p>"
            f"<div id=contradictions>{''.join(items) or '<p>None.</p>'}</div>")
    return layout("Contradictions", body, session, index)


def entity_page(session: Any, d: dict[str, Any]) -> str:
    ent = d["entity"]
    pages = "".join(f"<li>{page_link(p['path'], p['title'])} <span class=meta>{e(p['type'])}</span></li>"
                    for p in d["pages"])
    timeline = "".join(
        f"<li><b>{e(t['date'])}</b> {e(t['fact'])} <span class=meta>({page_link(t['page'])})</span>"
        + (f" {cite_link(t['source'], t['source_lines'][0], t['source_lines'][1], 'source')}"
           if t.get("source") and t.get("source_lines") else "") + "</li>"
        for t in d["timeline"])
    cons = "".join(_contradiction(c) for c in d["contradictions"])
    body = (f"<h1>{page_link(ent['path'], ent['title'])}</h1><p class=meta>{e(ent.get('entity_type') or '')}; "
            f"aliases: {e(', '.join(ent['aliases']) or 'none')}</p><h2>Pages about it</h2><ul id=neighbours>"
            f"{pages or '<li>none</li>'}</ul><h2>Timeline</h2><ul>{timeline or '<li>none</li>'}</ul>{cons}")
    return layout(ent["title"], body, session, d.get("index"))


def capture_page(session: Any, message: str | None, form: dict[str, str],
                 outcome: dict[str, Any] | None = None) -> str:
    layers = "".join(f"<option value=\"{e(name)}\"{' selected' if form.get('layer') == name else ''}>{e(name)}</option>"
                     for name in session.service.readable())
    note = f"<p class=error role=alert>{e(message)}</p>" if message else ""
    done = ""
    if outcome is not None:
        paths = "".join(f"<li>{page_link(p)}</li>" for p in outcome.get("pages", []) or [])
        source = outcome.get("source_path")
        done = (f"<div id=captured><p>Capture <b>{e(outcome.get('status'))}</b>"
                + (f": {page_link(source)}" if source else "")
                + (f" ({e(outcome.get('rule'))})" if outcome.get("rule") else "") + f"</p><ul>{paths}</ul></div>")
    body = (
        f"<h1>Capture</h1>{note}{done}<form action='/capture' method=post>"
        f"<p><label>Title <input type=text name=title id=title value=\"{e(form.get('title', ''))}\"></label></p>"
        f"<p><label>Occurred (YYYY-MM-DD) <input type=text name=occurred_at value=\"{e(form.get('occurred_at', ''))}\">"
        f"</label> <label>Layer <select name=layer id=layer>{layers}</select></label></p>"
        f"<p><textarea name=text id=text rows=12 cols=90>{e(form.get('text', '') if outcome is None else '')}</textarea></p>"
        "<p><button type=submit id=capture>Capture</button> <span class=meta>Filed through the planner and the "
        "preservation gates, submitted as you.</span></p></form>")
    return layout("Capture", body, session, session.service.freshness())
