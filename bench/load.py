"""Issue #21's reader load, over loopback: `stigmergy serve` over a wiki of real text (bench/load_corpus.py),
its index in SQLite and in PostgreSQL + pgvector, and `--readers` MCP clients (each its own person and
token) calling the `search` tool `--rate` times a second between them on an open-loop schedule: a search
that is due while its reader still waits for the last one is sent late, and its latency counts from when it
was due, so queueing shows. Every search embeds its query in the server (the real model); stored vectors are
random. A hit from the `board` layer, which no reader may read, counts as an error. After `--warm`
searches the window waits until the server and its database have been idle two seconds (`settle_s`): what
the warm-up started in the background (a PostgreSQL session reads its posting lists and vectors ahead) is
done, as on a server that has been up a while.

    .venv/bin/python bench/load.py --sizes 200000                 # build (kept in --out), then the load
    .venv/bin/python bench/load.py --sizes 25000 50000 100000 200000 --load-at 200000   # + projection points
    .venv/bin/python bench/load.py --sizes 200000 --backends postgres --seconds 60

Per size it records, for the projection to 1,000,000 fragments (method in docs/team.md): build wall and
CPU seconds of each backend, the SQLite file and PostgreSQL schema sizes, the HNSW index's size and its
build time alone (REINDEX), and resident memory of the database server and of `serve`. Under load it
records p50/p95/max latency, errors, the searches actually completed per second, and CPU seconds per
search of `serve`, of PostgreSQL and of the load driver itself, with the load average before and after.
Built wikis, the SQLite indexes and the PostgreSQL data folder stay in --out between runs.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # `import mcp` is the SDK, not a bench
sys.path.insert(0, str(HERE.parent))
sys.path.append(str(HERE))
sys.path.append(str(HERE.parent / "tests"))

import load_corpus  # noqa: E402
from search import RandomEmbedder, link_cache, pct  # noqa: E402

from stigmergy.settings import load_settings  # noqa: E402

PROTOCOL = "2025-06-18"


def loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its reaped children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    """`pid` and its live descendants (serve's search workers: `--search-processes`)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                pass
    return out


def _quiet(pid: int, pg: Any, most_s: float = 300.0) -> float:
    """Seconds until the server (and its database) have been all but idle for two seconds running: what
    the warm-up started in the background (PostgreSQL: a warm session reads every posting list and the
    vectors of each large layer ahead) is done, as on a server that has been up a while. At most `most_s`."""
    t0 = time.time()
    calm = 0
    last = _tree_cpu(pid) + (pg.cpu_seconds() if pg else 0.0)
    while calm < 2 and time.time() - t0 < most_s:
        time.sleep(1.0)
        now = _tree_cpu(pid) + (pg.cpu_seconds() if pg else 0.0)
        calm = calm + 1 if now - last < 0.05 else 0
        last = now
    return round(time.time() - t0, 1)


def _tree_cpu(pid: int) -> float:
    """CPU seconds of `pid` and of its live descendants (each with its own reaped children)."""
    total = 0.0
    for p in _descendants(pid):
        try:
            total += _proc_cpu(p)
        except OSError:
            pass
    return total


def _proc_pss_mb(pid: int) -> float:
    """Proportional set size of `pid` and its live descendants: SQLite's memory-mapped file counted once,
    not once per connection."""
    total = 0.0
    for p in _descendants(pid):
        try:
            lines = Path(f"/proc/{p}/smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        total += sum(int(line.split()[1]) / 1024 for line in lines if line.startswith("Pss:"))
    return total


def _cpu_self() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def pg_env(pg: Any, n: int) -> dict[str, str]:
    return {"STIGMERGY_INDEX__BACKEND": "postgres", "STIGMERGY_INDEX__URL": pg.url,
            "STIGMERGY_INDEX__SCHEMA": f"load_{n}"}


# ------------------------------------------------------------------------------------------ build

def _built(root: Path, env: dict[str, str]) -> bool:
    """The index for these settings holds the repository's HEAD (then it is not built again)."""
    from stigmergy.index.store import index_location, open_index
    from stigmergy.repo.layout import Layout

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    loc = index_location(Layout(root), load_settings(root, env))
    if not loc.exists():
        return False
    store = open_index(loc)
    try:
        return store.meta("commit") == head
    finally:
        store.close()


def _fragments(root: Path, env: dict[str, str]) -> int | None:
    from stigmergy.index.store import index_location, open_index
    from stigmergy.repo.layout import Layout

    loc = index_location(Layout(root), load_settings(root, env))
    if not loc.exists():
        return None
    store = open_index(loc)
    try:
        return store.totals()[1]
    finally:
        store.close()


def _pg_sizes(pg: Any, schema: str) -> dict[str, float]:
    import psycopg

    with psycopg.connect(pg.url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relkind, pg_total_relation_size(c.oid), pg_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'i')",
            (schema,)).fetchall()
    total = sum(t for _, kind, t, _ in rows if kind == "r")
    hnsw = sum(r for name, kind, _, r in rows if kind == "i" and name.startswith("vec_hnsw"))
    return {"pg_schema_mb": round(total / 2**20, 1), "pg_hnsw_mb": round(hnsw / 2**20, 1)}


def build(args: argparse.Namespace, n: int, pg: Any, pool: list[str]) -> dict[str, Any]:
    from stigmergy.index.build import build_index

    root = args.out / f"load-{n}"
    res: dict[str, Any] = {}
    if not (root / ".git").exists():
        t = time.perf_counter()
        load_corpus.make_wiki(root, n, pool)
        res["generate_s"] = round(time.perf_counter() - t, 1)
    link_cache(root, args.out / "model-cache" / "onnx")
    for label in args.backends:
        env = pg_env(pg, n) if label == "postgres" else {}
        if _built(root, env):
            continue
        la, t, c, s = loadavg(), time.perf_counter(), _cpu_self(), pg.cpu_seconds() if pg else 0.0
        rep = build_index(root, load_settings(root, env), embedder=RandomEmbedder(), rebuild=True)
        res[f"{label}_build"] = {"wall_s": round(time.perf_counter() - t, 1), "cpu_s": round(_cpu_self() - c, 1),
                                 "db_cpu_s": round((pg.cpu_seconds() if pg else 0.0) - s, 1), "loadavg": la,
                                 "fragments": rep.fragments_total}
        print(json.dumps({n: {f"{label}_build": res[f"{label}_build"]}}), flush=True)
    res["fragments"] = _fragments(root, pg_env(pg, n) if pg is not None and "postgres" in args.backends else {})
    sqlite_file = root / ".stigmergy" / "index.sqlite"
    if sqlite_file.exists():
        res["sqlite_mb"] = round(sqlite_file.stat().st_size / 2**20, 1)
    if pg is not None and "postgres" in args.backends:
        res.update(_pg_sizes(pg, f"load_{n}"))
        if args.hnsw_rebuild:
            res["hnsw_build_s"] = pg.hnsw_rebuild_s(f"load_{n}")
            res["hnsw_build_loadavg"] = loadavg()
        res["pg_rss_mb_idle"] = round(pg.rss_bytes() / 2**20, 1)
    return res


# ------------------------------------------------------------------------------------------ load

class McpReader:
    """One reader: a keep-alive HTTP connection, an MCP session (initialize, initialized), then `search` calls
    as JSON-RPC over POST. The answer may come as JSON or as one server-sent event."""

    def __init__(self, port: int, token: str) -> None:
        import http.client

        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.headers = {"authorization": f"Bearer {token}", "content-type": "application/json",
                        "accept": "application/json, text/event-stream", "host": f"127.0.0.1:{port}"}
        self.next_id = 1
        init = self.call("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                        "clientInfo": {"name": "bench-load", "version": "1"}})
        self.headers["mcp-protocol-version"] = init.get("protocolVersion", PROTOCOL)
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, body: dict[str, Any]) -> Any:
        import http.client

        try:
            self.conn.request("POST", "/mcp", json.dumps(body), self.headers)
            r = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # uvicorn closes a connection idle for 5 s; a client opens another, as any HTTP client does.
            self.conn.close()
            self.conn.request("POST", "/mcp", json.dumps(body), self.headers)
            r = self.conn.getresponse()
        data = r.read()
        if r.status >= 400:
            raise RuntimeError(f"HTTP {r.status}: {data[:200]!r}")
        session = r.getheader("mcp-session-id")
        if session:
            self.headers["mcp-session-id"] = session
        if not data:
            return None
        if (r.getheader("content-type") or "").startswith("text/event-stream"):
            for line in data.decode().splitlines():
                if line.startswith("data:"):
                    return json.loads(line[5:])
            raise RuntimeError("an event stream without data")
        return json.loads(data)

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        answer = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def search(self, query: str) -> dict[str, Any]:
        result = self.call("tools/call", {"name": "search", "arguments": {"query": query}})
        if result.get("isError"):
            raise RuntimeError(f"search: {str(result.get('content'))[:200]}")
        return json.loads(result["content"][0]["text"])


def _driver(port: int, tokens: list[str], rate: float, seconds: float, warm: int, qs: list[str],
            out: Any, go: Any) -> None:
    """The load, in a process of its own (its CPU is the driver's, not the server's)."""
    try:
        _drive(port, tokens, rate, seconds, warm, qs, out, go)
    except BaseException as exc:
        out.put({"failed": f"{type(exc).__name__}: {exc}"[:2000]})
        raise


def _drive(port: int, tokens: list[str], rate: float, seconds: float, warm: int, qs: list[str],
           out: Any, go: Any) -> None:
    readers = [McpReader(port, tok) for tok in tokens]
    for i in range(warm):  # the model, the connections, the caches the first queries fill
        readers[i % len(readers)].search(qs[-1 - i])
    out.put("warmed")
    go.wait()  # the server's background reads the warm-up started are done (`_quiet`)
    lat: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    period = len(readers) / rate
    start = time.time() + 1.0
    cpu0 = _cpu_self()
    out.put("warm")

    def run(i: int) -> None:
        due = start + i * period / len(readers)
        k = 0
        while due < start + seconds:
            wait = due - time.time()
            if wait > 0:
                time.sleep(wait)
            q = qs[(i + k * len(readers)) % len(qs)]
            try:
                found = readers[i].search(q)
                leaks = [h["path"] for h in found.get("hits", []) if str(h.get("path", "")).startswith("layers/board")]
                if leaks:
                    raise RuntimeError(f"board page shown to a public reader: {leaks[0]}")
                with lock:
                    lat.append((time.time() - due) * 1000)
            except Exception as exc:  # noqa: BLE001 - counted and reported: the figure is "no error"
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}"[:300])
            k += 1
            due += period

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(readers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put({"lat": lat, "errors": errors, "drain_s": round(time.time() - start - seconds, 1),
             "driver_cpu_s": _cpu_self() - cpu0})


def _tokens(path: Path, readers: int) -> list[str]:
    from stigmergy.server.tokens import TokenStore

    path.unlink(missing_ok=True)
    store = TokenStore(path)
    return [store.add(f"reader{i}@example.com")[1] for i in range(readers)]


def serve_load(args: argparse.Namespace, n: int, label: str, pg: Any, qs: list[str]) -> dict[str, Any]:
    root = args.out / f"load-{n}"
    tokens_file = args.out / f"load-tokens-{n}.json"
    tokens = _tokens(tokens_file, args.readers)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(HERE.parent),
           **(pg_env(pg, n) if label == "postgres" else {})}
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "serve", "--port", "0", "--tokens-file",
                             str(tokens_file), "--search-processes", str(args.search_processes)], cwd=root, env=env, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    assert proc.stderr is not None
    port = 0
    for line in proc.stderr:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
        if m:
            port = int(m.group(1))
            break
    if not port:
        raise RuntimeError(f"serve did not start: {proc.wait()}")
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()
    try:
        go = ctx.Event()
        driver = ctx.Process(target=_driver, args=(port, tokens, args.rate, args.seconds, args.warm, qs, q, go))
        la = loadavg()
        driver.start()
        warmed = q.get(timeout=900)
        if warmed != "warmed":
            raise RuntimeError(f"the load driver failed in its warm-up: {warmed}")
        settle_s = _quiet(proc.pid, pg if label == "postgres" else None)
        go.set()
        warm = q.get(timeout=900)  # warm: the CPU counters start a second before the window opens
        if warm != "warm":
            raise RuntimeError(f"the load driver failed before the window: {warm}")
        cpu_serve0, cpu_db0 = _tree_cpu(proc.pid), (pg.cpu_seconds() if label == "postgres" else 0.0)
        got = q.get(timeout=args.seconds + 900)
        driver.join()
        cpu_serve = _tree_cpu(proc.pid) - cpu_serve0
        cpu_db = (pg.cpu_seconds() if label == "postgres" else 0.0) - cpu_db0
        pss = _proc_pss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    lat, errors = got["lat"], got["errors"]
    done = max(1, len(lat))
    res = {"searches": len(lat), "errors": len(errors), "error_examples": errors[:3],
           "done_per_s": round(len(lat) / (args.seconds + max(0.0, got["drain_s"])), 1),
           "p50_ms": round(pct(lat, 50), 1) if lat else None, "p95_ms": round(pct(lat, 95), 1) if lat else None,
           "max_ms": round(max(lat), 1) if lat else None, "drain_s": got["drain_s"], "settle_s": settle_s,
           "serve_cpu_ms_per_search": round(cpu_serve / done * 1000, 1),
           "db_cpu_ms_per_search": round(cpu_db / done * 1000, 1),
           "driver_cpu_ms_per_search": round(got["driver_cpu_s"] / done * 1000, 1),
           "serve_pss_mb": round(pss, 1), "loadavg_before": la, "loadavg_after": loadavg()}
    if label == "postgres":
        res["pg_rss_mb"] = round(pg.rss_bytes() / 2**20, 1)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200_000], help="fragments per wiki (default 200000)")
    ap.add_argument("--load-at", type=int, nargs="*", help="sizes to put under load (default: every size)")
    ap.add_argument("--backends", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    ap.add_argument("--readers", type=int, default=50)
    ap.add_argument("--rate", type=float, default=50.0, help="searches a second, all readers together")
    ap.add_argument("--seconds", type=float, default=30.0, help="the load window")
    ap.add_argument("--warm", type=int, default=20, help="searches before the window (model, caches)")
    ap.add_argument("--search-processes", type=int, default=1,
                    help="serve's search workers (default 1: its own threads); CPU and memory count them all")
    ap.add_argument("--no-hnsw-rebuild", dest="hnsw_rebuild", action="store_false",
                    help="skip timing a second build of the HNSW graph alone")
    ap.add_argument("--out", type=Path, default=HERE / "out", help="kept between runs: wikis, indexes, PostgreSQL")
    args = ap.parse_args()
    from servers import Postgres

    args.out = args.out.resolve()  # the database server runs in its own folder
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"readers": args.readers, "rate_per_s": args.rate, "seconds": args.seconds,
                              "cores": os.cpu_count(), "search_processes": args.search_processes, "loadavg_before": loadavg(), "sizes": {}}
    pool = load_corpus.sentence_pool(args.out)
    qs = load_corpus.queries(4000, pool)
    pg = None
    if "postgres" in args.backends:
        pg = Postgres.start({"shared_buffers": "1GB", "maintenance_work_mem": "1GB", "max_connections": "300"},
                            keep_at=args.out / "load-pg")
    try:
        for n in args.sizes:
            res = build(args, n, pg, pool)
            report["sizes"][n] = res
            if args.load_at is None or n in args.load_at:
                for label in args.backends:
                    res[label] = serve_load(args, n, label, pg, qs)
                    print(json.dumps({n: {label: res[label]}}), flush=True)
            (args.out / "load.json").write_text(json.dumps(report, indent=1))
    finally:
        if pg is not None:
            pg.stop()
    report["loadavg_after"] = loadavg()
    (args.out / "load.json").write_text(json.dumps(report, indent=1))
    print(table(report))


def table(report: dict[str, Any]) -> str:
    lines = [f"{report['readers']} readers, {report['rate_per_s']:g} searches/s, {report['seconds']:g} s window, "
             f"{report['cores']} cores, {report.get('search_processes', 1)} search process(es); "
             f"load before {' '.join(report['loadavg_before'])}",
             "| size | backend | p50 ms | p95 ms | errors | done/s | CPU ms/search serve+db | load after |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n, res in report["sizes"].items():
        for label in ("sqlite", "postgres"):
            r = res.get(label)
            if r:
                lines.append(f"| {n:,} | {label} | {r['p50_ms']} | {r['p95_ms']} | {r['errors']} | {r['done_per_s']} | "
                             f"{r['serve_cpu_ms_per_search']} + {r['db_cpu_ms_per_search']} | "
                             f"{' '.join(r['loadavg_after'])} |")
    lines += ["", "| size (fragments) | SQLite MB | PG schema MB | HNSW MB | HNSW build s | PG RSS MB idle | builds s (SQLite, PG) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for n, res in report["sizes"].items():
        builds = ", ".join(str(res.get(f"{b}_build", {}).get("wall_s", "kept")) for b in ("sqlite", "postgres"))
        lines.append(f"| {n:,} ({res.get('fragments')}) | {res.get('sqlite_mb')} | {res.get('pg_schema_mb')} | {res.get('pg_hnsw_mb')} | "
                     f"{res.get('hnsw_build_s')} | {res.get('pg_rss_mb_idle')} | {builds} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
