"""The web view's routes: sign-in and sign-out, and the read-only pages (each renders what one service
method returns, through `render`). Every page needs a session; every repository string is escaped on
its way into HTML (`render.e`); no page loads anything from another host (the CSP says so too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

from stigmergy.errors import NotFoundError, StigmergyError
from stigmergy.mcp.tools import Session
from stigmergy.server import render
from stigmergy.server.guard import WebSession, origin_allowed

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from stigmergy.server.config import ServeConfig

COOKIE = "stigmergy_session"
MAX_FORM_BYTES = 16_384
MAX_CAPTURE_CHARS = 200_000  # as the MCP tool
MAX_CAPTURE_FORM_BYTES = 4 * MAX_CAPTURE_CHARS  # URL-encoded text is up to three bytes a character, plus fields


def _cookie_header(value: str, max_age: int | None = None) -> str:
    # HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it; Path=/: one cookie.
    age = f"; Max-Age={max_age}" if max_age is not None else ""
    return f"{COOKIE}={value}; HttpOnly; SameSite=Strict; Path=/{age}"


async def _form(request: Request, limit: int = MAX_FORM_BYTES) -> dict[str, str]:
    body = await request.body()
    if len(body) > limit:
        return {}
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in parsed.items()}


def _same_origin_post(request: Request, config: ServeConfig) -> bool:
    """A form post must say where it comes from (every browser sends Origin on a POST), and be us."""
    origin = request.headers.get("origin")
    server = request.scope.get("server")
    port = server[1] if server else None
    return origin is not None and origin_allowed(origin, config.host_names, port)


def routes(config: ServeConfig) -> list[Any]:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, RedirectResponse, Response
    from starlette.routing import Route

    def html(body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(body, status_code=status)

    def _person(email: str) -> Any:
        """The person's session, or an error page when stigmergy.toml changed and no longer parses (the
        session re-reads it: refusing beats serving by the old readers)."""
        try:
            return config.session_for(email)
        except StigmergyError as exc:
            return html(render.layout("Error", f"<h1>Error</h1><p class=error>{render.e(exc.message)}</p>"), 503)

    def current(request: Request) -> WebSession | None:
        assert config.sessions is not None
        return config.sessions.get(request.cookies.get(COOKIE))

    def signed_in(request: Request) -> Any:
        """The person's session, or the response that answers instead: the sign-in page, or an error page when
        the repository's settings no longer parse (say so, serve nothing)."""
        web = current(request)
        if web is None:
            return RedirectResponse("/signin", status_code=303)
        return _person(web.email)

    def page(handler: Callable[[Request, Any], str]) -> Callable[[Request], Any]:
        """A signed-in page: the handler gets the person's session and returns HTML (run in a worker
        thread: the service's reads are blocking); a typed error becomes an error page."""
        async def endpoint(request: Request) -> Response:
            session = signed_in(request)
            if not isinstance(session, Session):
                return session
            try:
                return html(await run_in_threadpool(handler, request, session))
            except NotFoundError as exc:
                return html(render.error_page(session, exc, 404), 404)
            except StigmergyError as exc:
                return html(render.error_page(session, exc, 400), 400)
        return endpoint

    async def signin_form(request: Request) -> Response:
        if current(request) is not None:
            return RedirectResponse("/", status_code=303)
        return html(render.signin_page())

    async def signin(request: Request) -> Response:
        if not _same_origin_post(request, config):
            return html(render.signin_page("This form must be sent from this server's own page."), 403)
        key = request.client.host if request.client else "unknown"
        if config.limiter.blocked(key):
            return html(render.signin_page("Too many failed sign-ins from this address. Wait a minute."), 429)
        token = (await _form(request)).get("token", "").strip()
        record = config.tokens.verify(token) if token else None
        if record is None:
            config.limiter.fail(key)
            return html(render.signin_page("That token is not valid."), 401)
        assert config.sessions is not None
        web = config.sessions.start(record)
        response = RedirectResponse("/", status_code=303)
        response.headers["set-cookie"] = _cookie_header(web.id)
        return response

    async def signout(request: Request) -> Response:
        if not _same_origin_post(request, config):
            return html(render.signin_page("This form must be sent from this server's own page."), 403)
        assert config.sessions is not None
        config.sessions.end(request.cookies.get(COOKIE))
        response = RedirectResponse("/signin", status_code=303)
        response.headers["set-cookie"] = _cookie_header("", max_age=0)
        return response

    async def stylesheet(_request: Request) -> Response:
        return Response(render.STYLESHEET, media_type="text/css")

    def home(request: Request, session: Any) -> str:
        from stigmergy.mcp import tools

        status = tools.status(session)
        try:
            listed = session.service.list_pages(limit=200)
        except NotFoundError:  # no index yet: the status line says so
            listed = None
        return render.home_page(session, status, listed)

    def wiki_page(request: Request, session: Any) -> str:
        return render.page_view(session, session.service.page(request.path_params["path"]),
                                _lines(request.query_params.get("hl")), request.query_params.get("fb") == "1")

    def history(request: Request, session: Any) -> str:
        path = request.path_params["path"]
        commits = session.service.history(path)
        return render.history_page(session, path, commits, session.service.freshness())

    def search(request: Request, session: Any) -> str:
        query = _text(request.query_params.get("q"))
        result = session.service.search(query, k=20).to_dict() if query else None
        return render.search_page(session, query, result, request.query_params.get("fb") == "1")

    def ask(request: Request, session: Any) -> str:
        question = _text(request.query_params.get("q"))
        return render.ask_page(session, question, session.service.ask(question) if question else None)

    def contradictions(request: Request, session: Any) -> str:
        status = request.query_params.get("status")
        status = status if status in ("open", "resolved") else None
        return render.contradictions_page(session, session.service.contradictions(status), status,
                                          session.service.freshness())

    def entity(request: Request, session: Any) -> str:
        return render.entity_page(session, session.service.describe(_text(request.path_params["name"])))

    def capture_form(request: Request, session: Any) -> str:
        if not config.allow_capture:
            raise NotFoundError("capture is off on this server", hint="its operator starts it with --allow-capture")
        return render.capture_page(session, None, {})

    async def capture(request: Request) -> Response:
        """A capture from the web form: the same checks and path as the MCP tool (only with --allow-capture,
        only into a layer the person may read, submitted as them), filed through the gates."""
        session = signed_in(request)
        if not isinstance(session, Session):
            return session
        if not _same_origin_post(request, config):
            return html(render.capture_page(session, "This form must be sent from this server's own page.", {}), 403)
        if not config.allow_capture:
            return html(render.error_page(session, NotFoundError("capture is off on this server"), 404), 404)
        form = await _form(request, MAX_CAPTURE_FORM_BYTES)
        try:
            outcome = await run_in_threadpool(
                session.service.capture_text, _capture_text(form.get("text")),
                title=form.get("title") or None, occurred_at=form.get("occurred_at") or None,
                layer=form.get("layer") or "public", origin="web")
        except StigmergyError as exc:
            return html(render.capture_page(session, exc.message, form), 400)
        return html(render.capture_page(session, None, form, outcome.to_dict()))

    async def feedback(request: Request) -> Response:
        """A reader's useful / wrong from a page view: the same call as the CLI and the MCP tool, as the
        signed-in person (no form field names anyone), scoped (a page they cannot read is absent)."""
        session = signed_in(request)
        if not isinstance(session, Session):
            return session
        path = request.path_params["path"]
        if not _same_origin_post(request, config):
            return html(render.error_page(session, StigmergyError("This form must be sent from this server's own "
                                                                  "page."), 403), 403)
        form = await _form(request)
        fragment = form.get("fragment", "")
        if fragment and not (fragment.isascii() and fragment.isdigit() and len(fragment) <= 6):
            return html(render.error_page(session, StigmergyError("fragment: a passage number"), 400), 400)
        ref = f"{path}#{fragment}" if fragment else path  # a search hit's passage, or the whole page
        try:
            back = _text(form["q"]) if "q" in form else None
            # A search hit's passage is judged for the search it was shown in (docs/trust.md: query-scoped).
            await run_in_threadpool(session.service.feedback, ref, form.get("kind", ""), form.get("note", ""),
                                    _judged_query(back) if (back is not None and fragment) else "")
        except NotFoundError as exc:
            return html(render.error_page(session, exc, 404), 404)
        except StigmergyError as exc:
            return html(render.error_page(session, exc, 400), 400)
        # Post/redirect/get: a reload does not send the judgement twice. Back to the search it came from (a
        # path on this server built here, never a URL from the form).
        if back is not None:
            return RedirectResponse(f"/search?q={quote(back, safe='')}&fb=1", status_code=303)
        return RedirectResponse(f"/page/{quote(path)}?fb=1#feedback", status_code=303)

    async def original(request: Request) -> Response:
        session = signed_in(request)
        if not isinstance(session, Session):
            return session
        try:
            data, _media, name = await run_in_threadpool(session.service.original, request.path_params["path"])
        except NotFoundError as exc:
            return html(render.error_page(session, exc, 404), 404)
        # Always a download of opaque bytes: an HTML or SVG original must never run in this origin.
        safe = "".join(c for c in name if c.isalnum() or c in "._- ")[:100].strip() or "original"
        return Response(data, media_type="application/octet-stream",
                        headers={"content-disposition": f'attachment; filename="{safe}"'})

    return [
        Route("/signin", signin_form, methods=["GET"]),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/static/style.css", stylesheet, methods=["GET"]),
        Route("/", page(home), methods=["GET"]),
        Route("/page/{path:path}", page(wiki_page), methods=["GET"]),
        Route("/history/{path:path}", page(history), methods=["GET"]),
        Route("/original/{path:path}", original, methods=["GET"]),
        Route("/feedback/{path:path}", feedback, methods=["POST"]),
        Route("/search", page(search), methods=["GET"]),
        Route("/ask", page(ask), methods=["GET"]),
        Route("/contradictions", page(contradictions), methods=["GET"]),
        Route("/entity/{name:path}", page(entity), methods=["GET"]),
        Route("/capture", page(capture_form), methods=["GET"]),
        Route("/capture", capture, methods=["POST"]),
    ]


MAX_QUERY_CHARS = 1000


def _judged_query(query: str) -> str:
    """The search a passage was judged from, as the record keeps it: at most MAX_QUERY characters (a longer
    search is cut at a word boundary: its first words are what it asks)."""
    from stigmergy.service import MAX_FEEDBACK_QUERY as most

    words = " ".join(query.split())
    return words if len(words) <= most else words[:most + 1].rsplit(" ", 1)[0][:most]


def _text(value: str | None) -> str:
    from stigmergy.errors import UsageError

    text = (value or "").strip()
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"at most {MAX_QUERY_CHARS} characters, please")
    return text


def _capture_text(value: str | None) -> str:
    from stigmergy.errors import UsageError

    text = value or ""
    if not text.strip():
        raise UsageError("nothing to capture: the text is empty")
    if len(text) > MAX_CAPTURE_CHARS:
        raise UsageError(f"the text is {len(text)} characters; a capture here takes at most {MAX_CAPTURE_CHARS}")
    return text


def _lines(value: str | None) -> tuple[int, int] | None:
    """`hl=31-32` (or `31`) as a line range; anything else highlights nothing."""
    if not value:
        return None
    a, _, b = value.partition("-")
    if not a.isdigit() or (b and not b.isdigit()) or len(value) > 20:
        return None
    start, end = int(a), int(b or a)
    return (start, end) if start <= end else None

