"""`stigmergy serve` at 1,000 pages: the web view's page and search latency beside the same service calls
made in process, 20 concurrent signed-in sessions, and MCP `search` over serve beside `stigmergy mcp --http`,
all in one run.

    .venv/bin/python bench/serve.py                      # 1,000 pages, 100 page views, 40 queries
    .venv/bin/python bench/serve.py --views 50 --queries 20 --sessions 20

The repository is bench/search.py's generator at 4,000 fragments (1,000 pages, random stored vectors; the
query path is real: the ONNX model embeds every query and all four arms run). Both servers are real
processes on 127.0.0.1 (`python -m stigmergy serve` / `mcp --http`), asked over real HTTP.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # `import mcp` is the SDK
sys.path.insert(0, str(HERE.parent))


def _bench_module(name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


bench_search = _bench_module("search")

from stigmergy.settings import load_settings  # noqa: E402

READER = "bench@example.com"
MCP_TOKEN = "bench-token-0123456789abcdef"


def repo(out: Path, fragments: int) -> Path:
    from stigmergy.index.build import build_index

    root = out / f"serve-{fragments}"
    if not (root / ".stigmergy" / "index.sqlite").exists():
        if root.exists():
            import shutil

            shutil.rmtree(root)
        bench_search.make_repo(root, fragments)
        bench_search.link_cache(root, out / "model-cache" / "onnx")
        build_index(root, load_settings(root), embedder=bench_search.RandomEmbedder())
    bench_search.link_cache(root, out / "model-cache" / "onnx")
    return root


def stats(ms: list[float]) -> dict[str, float]:
    return {"n": len(ms), "p50_ms": round(bench_search.pct(ms, 50), 2), "p95_ms": round(bench_search.pct(ms, 95), 2)}


def start(args: list[str], cwd: Path, env: dict[str, str], pattern: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", *args], cwd=cwd, env=env, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError(f"{args[0]} did not start")
        m = re.search(pattern, line)
        if m:
            return proc, m.group(1)


def timed(fn: Any, items: list[Any], warm: int = 3) -> list[float]:
    for item in items[:warm]:
        fn(item)
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


def sign_in(url: str, token: str) -> Any:
    import httpx

    client = httpx.Client(base_url=url, timeout=300)
    r = client.post("/signin", data={"token": token}, headers={"origin": url})
    assert r.status_code == 303, r.text
    return client


def ok(client: Any, path: str) -> None:
    r = client.get(path)
    if r.status_code != 200:
        raise RuntimeError(f"{path}: {r.status_code}")


def concurrent(url: str, tokens: list[str], pages: list[str], qs: list[str], per_session: int) -> dict[str, Any]:
    """Each session signs in with its own token, then views pages and searches, all at once."""
    errors: list[str] = []
    times: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(tokens))

    def session(i: int, token: str) -> None:
        try:
            client = sign_in(url, token)
            rng = random.Random(i)
            barrier.wait()
            for k in range(per_session):
                path = f"/page/{quote(rng.choice(pages))}" if k % 2 == 0 else f"/search?q={quote(rng.choice(qs))}"
                t = time.perf_counter()
                r = client.get(path)
                with lock:
                    times.append((time.perf_counter() - t) * 1000)
                    if r.status_code != 200:
                        errors.append(f"{path}: {r.status_code}")
        except Exception as exc:  # noqa: BLE001 - counted: the figure is "no error"
            with lock:
                errors.append(repr(exc))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=session, args=(i, tok)) for i, tok in enumerate(tokens)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"sessions": len(tokens), "requests": len(times), "errors": len(errors), "error_samples": errors[:5],
            "wall_s": round(wall, 1), **stats(times)}


def mcp_search(url: str, token: str, qs: list[str]) -> list[float]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> list[float]:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=300) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                for q in qs[:3]:
                    await client.call_tool("search", {"query": q})
                out = []
                for q in qs:
                    t = time.perf_counter()
                    r = await client.call_tool("search", {"query": q})
                    out.append((time.perf_counter() - t) * 1000)
                    assert not r.is_error, r.content
                return out

    return anyio.run(main)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fragments", type=int, default=4000, help="4 per page: 4,000 is 1,000 pages")
    ap.add_argument("--views", type=int, default=100)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--per-session", type=int, default=10)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    args = ap.parse_args()
    root = repo(args.out, args.fragments)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(HERE.parent)}
    rng = random.Random(7)
    pages = sorted(p.relative_to(root).as_posix() for p in (root / "wiki").rglob("*.md"))
    views = [rng.choice(pages) for _ in range(args.views)]
    qs = bench_search.queries(args.queries, seed=11)

    from stigmergy.server.tokens import TokenStore
    from stigmergy.service import Identity, WikiService

    tokens_file = args.out / "serve-tokens.json"
    tokens_file.unlink(missing_ok=True)
    store = TokenStore(tokens_file)
    people = [store.add(f"person{i}@example.com")[1] for i in range(args.sessions)]
    bench_token = store.add(READER)[1]

    report: dict[str, Any] = {"pages": len(pages), "loadavg_before": Path("/proc/loadavg").read_text().split()[:3]}
    # The same requests in process: one warm service, as the server holds one per person.
    from stigmergy.mcp.tools import Session
    from stigmergy.server import render

    service = WikiService(root, load_settings(root), Identity(READER), {})
    session = Session(service)
    report["in_process_page"] = stats(timed(lambda p: service.page(p), views))
    # The same, rendered to the HTML the server sends: what HTTP adds is the rest.
    report["in_process_page_rendered"] = stats(timed(lambda p: render.page_view(session, service.page(p), None), views))
    report["in_process_search"] = stats(timed(lambda q: service.search(q), qs))
    service.close()

    serve, url = start(["serve", "--port", "0", "--tokens-file", str(tokens_file)], root, env,
                       r"listening on (http://127\.0\.0\.1:\d+)/")
    mcp_http, mcp_url = start(["mcp", "--http", "--port", "0", "--as", READER], root,
                              {**env, "STIGMERGY_MCP_TOKEN": MCP_TOKEN}, r"(http://127\.0\.0\.1:\d+/mcp)")
    try:
        client = sign_in(url, bench_token)
        # The floor: a round trip that does no work (the stylesheet), through the same checks.
        report["serve_round_trip_floor"] = stats(timed(lambda _p: ok(client, "/static/style.css"), views))
        report["serve_page_view"] = stats(timed(lambda p: ok(client, f"/page/{quote(p)}"), views))
        report["serve_search_warm"] = stats(timed(lambda q: ok(client, f"/search?q={quote(q)}"), qs))
        report["concurrent"] = concurrent(url, people, pages, qs, args.per_session)
        # MCP over serve and over `mcp --http`, interleaved halves so load drifts hit both alike.
        half = len(qs) // 2
        a1 = mcp_search(url + "/mcp", bench_token, qs[:half])
        b1 = mcp_search(mcp_url, MCP_TOKEN, qs[:half])
        b2 = mcp_search(mcp_url, MCP_TOKEN, qs[half:])
        a2 = mcp_search(url + "/mcp", bench_token, qs[half:])
        report["mcp_over_serve"] = stats(a1 + a2)
        report["mcp_http"] = stats(b1 + b2)
    finally:
        for proc in (serve, mcp_http):
            proc.terminate()
            proc.wait(timeout=30)
    report["mcp_serve_over_mcp_http_p50"] = round(report["mcp_over_serve"]["p50_ms"] / report["mcp_http"]["p50_ms"], 2)
    report["serve_page_over_in_process_p50"] = round(
        report["serve_page_view"]["p50_ms"] / report["in_process_page"]["p50_ms"], 2)
    report["serve_search_over_in_process_p50"] = round(
        report["serve_search_warm"]["p50_ms"] / report["in_process_search"]["p50_ms"], 2)
    report["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
