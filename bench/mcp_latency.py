"""MCP `search` round trip on a warm server at 10k fragments, with the SDK's own client, beside the same
queries through a warm in-process `Searcher` and the CLI's new-process `stigmergy search`, in one run.

    .venv/bin/python bench/mcp_latency.py                    # stdio and HTTP, 50 queries each
    .venv/bin/python bench/mcp_latency.py --queries 30 --cli-runs 5

The repository is bench/search.py's 10k-fragment one (random stored vectors; the query path is real: the
ONNX model embeds every query and all four arms run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Named mcp_latency.py (not mcp.py) so that `import mcp` always finds the SDK, whatever the bench modules
# it loads put on the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))


def _bench_module(name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


bench_search = _bench_module("search")  # the 10k-fragment repository, random vectors, queries, percentiles
results_file = _bench_module("results_file")  # what --json writes for the README's table

from stigmergy.settings import load_settings  # noqa: E402

READER = "bench@example.com"
TOKEN = "bench-token-0123456789abcdef"


def ten_k_repo(out: Path) -> Path:
    from stigmergy.index.build import build_index

    root = out / "search-10000"
    if not (root / ".stigmergy" / "index.sqlite").exists():
        bench_search.make_repo(root, 10_000)
        bench_search.link_cache(root, out / "model-cache" / "onnx")
        build_index(root, load_settings(root), embedder=bench_search.RandomEmbedder())
    bench_search.link_cache(root, out / "model-cache" / "onnx")
    return root


def _stats(ms: list[float]) -> dict[str, float]:
    return {"p50_ms": round(bench_search.pct(ms, 50), 2), "p95_ms": round(bench_search.pct(ms, 95), 2)}


async def _round_trips(client, qs: list[str]) -> list[float]:  # type: ignore[no-untyped-def]
    for q in qs[:5]:  # warm: model loaded, connection open, caches filled
        await client.call_tool("search", {"query": q})
    times = []
    for q in qs:
        t = time.perf_counter()
        r = await client.call_tool("search", {"query": q})
        times.append((time.perf_counter() - t) * 1000)
        assert not r.is_error, r.content
    return times


def mcp_stdio(root: Path, qs: list[str], env: dict[str, str]) -> list[float]:
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "stigmergy", "mcp", "--as", READER],
                                   cwd=str(root), env=env)

    async def main() -> list[float]:
        async with Client(params, read_timeout_seconds=300) as client:
            return await _round_trips(client, qs)

    return anyio.run(main)


def mcp_http(root: Path, qs: list[str], env: dict[str, str]) -> list[float]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "mcp", "--http", "--port", "0", "--as", READER],
                            cwd=root, env={**env, "STIGMERGY_MCP_TOKEN": TOKEN}, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        url = ""
        while not url:
            line = proc.stderr.readline()
            if not line:
                raise RuntimeError("the HTTP server did not start")
            m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
            url = m.group(1) if m else ""

        async def main() -> list[float]:
            async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=300) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return await _round_trips(client, qs)

        return anyio.run(main)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def in_process(root: Path, qs: list[str]) -> list[float]:
    from stigmergy.index.search import Searcher

    s = Searcher(root, load_settings(root))
    for q in qs[:5]:
        s.search(q, READER)
    times = []
    for q in qs:
        t = time.perf_counter()
        s.search(q, READER)
        times.append((time.perf_counter() - t) * 1000)
    s.close()
    return times


def cli_new_process(root: Path, qs: list[str], env: dict[str, str]) -> list[float]:
    times = []
    for q in qs:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "stigmergy", "--as", READER, "search", q, "--json"], cwd=root, env=env,
                       capture_output=True, check=True)
        times.append((time.perf_counter() - t) * 1000)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--json", type=Path, help="also write the report with the README's row here")
    args = ap.parse_args()
    load_before = results_file.load_now()
    root = ten_k_repo(args.out)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(HERE.parent)}
    qs = bench_search.queries(args.queries, seed=5)
    report = {
        "fragments": 10_000, "queries": args.queries,
        "in_process_searcher": _stats(in_process(root, qs)),
        "mcp_stdio_round_trip": _stats(mcp_stdio(root, qs, env)),
        "mcp_http_round_trip": _stats(mcp_http(root, qs, env)),
        "cli_new_process": _stats(cli_new_process(root, qs[: args.cli_runs], env)),
    }
    base = report["in_process_searcher"]["p50_ms"]
    report["mcp_stdio_over_in_process_p50"] = round(report["mcp_stdio_round_trip"]["p50_ms"] / base, 2)
    report["cli_new_process_over_mcp_stdio_p50"] = round(
        report["cli_new_process"]["p50_ms"] / report["mcp_stdio_round_trip"]["p50_ms"], 1)
    print(json.dumps(report, indent=1))
    print(f"(median of the CLI's {args.cli_runs} runs: {statistics.median([report['cli_new_process']['p50_ms']]):.0f} ms)")
    if args.json:
        command = "bench/mcp_latency.py" + (f" --queries {args.queries}" if args.queries != 50 else "") + (
            f" --cli-runs {args.cli_runs}" if args.cli_runs != 5 else "")
        stdio = report["mcp_stdio_round_trip"]
        row = [f"MCP `search` round trip, a warm server over stdio, 10k fragments, p50 (p95) (`{command}`)",
               f"{stdio['p50_ms']} ({stdio['p95_ms']}) ms; over HTTP {report['mcp_http_round_trip']['p50_ms']} ms p50",
               f"in-process warm search {base} ms in the same run ({report['mcp_stdio_over_in_process_p50']}×); "
               f"a new CLI process {report['cli_new_process']['p50_ms']} ms "
               f"({report['cli_new_process_over_mcp_stdio_p50']}× the MCP round trip)",
               f"≤ 50 ms ({results_file.met(stdio['p50_ms'] <= 50)})"]
        results_file.write(args.json, command, [load_before, results_file.load_now()], [row], report)


if __name__ == "__main__":
    main()
