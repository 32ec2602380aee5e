"""The team backends beside the embedded ones, in the same run: the PostgreSQL + pgvector index beside SQLite,
S3 evidence (moto's S3-protocol server on loopback) beside the local folder. Servers: tests/servers.py.

    .venv/bin/python bench/shared_index.py --quality          # bench/questions.json on sample_corpus/, both backends
    .venv/bin/python bench/shared_index.py --load --sizes 10000 40000 --rate 50 --readers 50 --seconds 20
    .venv/bin/python bench/shared_index.py --incremental      # one changed page after the push hook
    .venv/bin/python bench/shared_index.py --evidence         # put/get throughput, S3 vs local
    .venv/bin/python bench/shared_index.py --build --sizes 5000  # full build, SQLite and PostgreSQL
    /work/wt/base/.venv/bin/python bench/shared_index.py --build --code /work/wt/base  # a baseline's, same bench

--load: `--readers` concurrent readers (threads over `--procs` processes, each process with one ONNX
embedder; every search embeds its query) issue `--rate` searches a second between them on an open-loop
schedule (a late search is not skipped: its latency counts from when it was due), against a generated wiki
of real words (bench/search.py's make_repo; stored vectors random, as there) indexed in SQLite and in a
PostgreSQL schema over loopback. Index size, HNSW build time and the server's memory are recorded per size
for the projection to 200,000 and 1,000,000 fragments (method in docs/team.md).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from checkout import CODE, HERE  # noqa: E402  (first: --code's checkout first on the path)
from search import RandomEmbedder, link_cache, make_repo, pct, queries  # noqa: E402

from stigmergy.index.build import build_index  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402

READER = "bench@example.com"


def _loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0:3].__str__()


def _pg_env(pg, schema: str) -> dict[str, str]:  # noqa: ANN001
    return {"STIGMERGY_INDEX__BACKEND": "postgres", "STIGMERGY_INDEX__URL": pg.url, "STIGMERGY_INDEX__SCHEMA": schema}


class MemoEmbedder:
    """The real embedder, remembering each text: the second backend indexes the same text without embedding
    it again (same vectors, half the time)."""

    def __init__(self, inner) -> None:  # noqa: ANN001
        self.inner, self.memo = inner, {}
        self.name, self.dimension = inner.name, inner.dimension
        self.batch_size = getattr(inner, "batch_size", 32)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.inner, name)

    def embed(self, texts):  # noqa: ANN001, ANN201
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if todo:
            for t, v in zip(todo, self.inner.embed(todo), strict=True):
                self.memo[t] = v
        return np.stack([self.memo[t] for t in texts]) if texts else self.inner.embed(texts)


# ------------------------------------------------------------------------------------------ quality

def quality(args: argparse.Namespace) -> dict:
    from retrieval import Judge, score_configs
    from search import quality as sqlite_quality
    from servers import Postgres

    from stigmergy.index.embedder import make_embedder
    from stigmergy.index.search import Searcher

    cache = args.out / "model-cache" / "onnx"
    root = args.work
    sqlite_report = sqlite_quality(args.out, cache, root)  # captures sample_corpus/ once, builds SQLite
    pg = Postgres.start()
    try:
        env = _pg_env(pg, "bench_quality")
        settings = load_settings(root, env)
        embedder = make_embedder(settings.embedder, root / ".stigmergy" / "cache")
        t = time.perf_counter()
        build_index(root, settings, embedder=embedder)
        build_s = time.perf_counter() - t
        questions = json.loads((HERE / "questions.json").read_text())["questions"]
        sqlite_s = Searcher(root, load_settings(root))

        def hit(loc: str, expected: list[str]) -> bool:
            return any(loc.endswith("sample_corpus/" + e) for e in expected)

        judge = Judge(sqlite_s.store.conn, hit)  # the same pages and citations: one commit
        pg_s = Searcher(root, settings, embedder)
        both = {"sqlite": score_configs(sqlite_s, questions, "reader@lanternfish.example", judge),
                "postgres": score_configs(pg_s, questions, "reader@lanternfish.example", judge)}
        canary = pg_s.search("CANARY-BOARD-7731 acquisition approach", "reader@lanternfish.example", k=20)
    finally:
        pg.stop()
    diffs = {}
    for config, rules in both["sqlite"].items():
        if config == "fused_strict_misses":
            continue
        for rule, kinds in rules.items():
            for kind, metrics in kinds.items():
                for name, value in metrics.items():
                    if isinstance(value, int | float):
                        other = both["postgres"][config][rule][kind][name]
                        diffs[f"{config}.{rule}.{kind}.{name}"] = round(other - value, 4)
    worst = max(diffs.items(), key=lambda kv: abs(kv[1]))
    return {"questions": len(questions), "pg_build_s": round(build_s, 1), "sqlite": both["sqlite"],
            "postgres": both["postgres"], "max_abs_difference": {"figure": worst[0], "pg_minus_sqlite": worst[1]},
            "figures_compared": len(diffs), "figures_beyond_0.01": {k: v for k, v in diffs.items() if abs(v) > 0.01},
            "canary_hits_for_public_reader_pg": sum(h.layer != "public" for h in canary.hits),
            "sqlite_summary": sqlite_report.get("summary"), "loadavg": _loadavg()}


def quality_hash(args: argparse.Namespace) -> dict:
    """The same comparison with the tests' deterministic bag-of-words embedder (tests/test_index_support.py)
    in place of the model, for a machine too busy to embed the corpus twice: both backends get identical
    vectors, so any difference is the backends' own (full text, vector arm, fusion inputs)."""
    import shutil

    from retrieval import Judge, score_configs
    from servers import Postgres
    from test_index_support import HashEmbedder

    from stigmergy.index.search import Searcher

    if not (args.work / "sources").is_dir():
        raise SystemExit(f"{args.work} holds no captured sample_corpus/: run bench/search.py --quality once")
    root = Path(tempfile.mkdtemp(prefix="stigmergy-qh-")) / "wiki"
    shutil.copytree(args.work, root, ignore=shutil.ignore_patterns("index.sqlite*", "*.lock"))
    questions = json.loads((HERE / "questions.json").read_text())["questions"]
    reader = "reader@lanternfish.example"
    pg = Postgres.start()
    try:
        env = _pg_env(pg, "bench_quality_hash")
        emb = HashEmbedder()
        t = time.perf_counter()
        build_index(root, load_settings(root), embedder=emb)
        sqlite_build = time.perf_counter() - t
        t = time.perf_counter()
        build_index(root, load_settings(root, env), embedder=emb)
        pg_build = time.perf_counter() - t
        sqlite_s = Searcher(root, load_settings(root), emb)

        def hit(loc: str, expected: list[str]) -> bool:
            return any(loc.endswith("sample_corpus/" + e) for e in expected)

        judge = Judge(sqlite_s.store.conn, hit)
        pg_s = Searcher(root, load_settings(root, env), emb)
        both = {"sqlite": score_configs(sqlite_s, questions, reader, judge),
                "postgres": score_configs(pg_s, questions, reader, judge)}
        canary = pg_s.search("CANARY-BOARD-7731 acquisition approach", reader, k=20)
        pages, frags = sqlite_s.store.totals()
    finally:
        pg.stop()
    diffs = {}
    for config, rules in both["sqlite"].items():
        if config == "fused_strict_misses":
            continue
        for rule, kinds in rules.items():
            for kind, metrics in kinds.items():
                for name, value in metrics.items():
                    if isinstance(value, int | float):
                        diffs[f"{config}.{rule}.{kind}.{name}"] = round(both["postgres"][config][rule][kind][name] - value, 4)
    worst = max(diffs.items(), key=lambda kv: abs(kv[1]))
    return {"embedder": "hash (tests)", "questions": len(questions), "pages": pages, "fragments": frags,
            "sqlite_build_s": round(sqlite_build, 1), "pg_build_s": round(pg_build, 1),
            "figures_compared": len(diffs), "max_abs_difference": {"figure": worst[0], "pg_minus_sqlite": worst[1]},
            "figures_beyond_0.01": {k: v for k, v in diffs.items() if abs(v) > 0.01},
            "fused_strict_all": {b: both[b]["fused"]["strict"]["all"] for b in both},
            "canary_hits_for_public_reader_pg": sum(h.layer != "public" for h in canary.hits), "loadavg": _loadavg()}


# ------------------------------------------------------------------------------------------ load

def _reader_proc(root: str, env: dict[str, str], threads: int, rate_each: float, seconds: float, offset: float,
                 start: Any, cache: str, out: mp.Queue, ready: mp.Queue, go: Any) -> None:
    """One process: one embedder, `threads` readers each with its own connection (Searcher)."""
    from stigmergy.index.embedder import make_embedder
    from stigmergy.index.search import Searcher

    settings = load_settings(Path(root), env)
    embedder = make_embedder(settings.embedder, Path(root) / ".stigmergy" / "cache")  # linked to `cache`
    embedder.embed(["warm up"])
    searchers = [Searcher(Path(root), settings, embedder) for _ in range(threads)]
    for s in searchers:
        s.search("warm up the connection", READER)
    ready.put(True)
    go.wait()  # every process warm: the clock starts for all at once
    start_at = start.value
    qs = queries(400, seed=int(offset * 1000) + 3)
    lat: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def run(i: int) -> None:
        s = searchers[i]
        period = 1.0 / rate_each
        due = start_at + (offset + i / threads) * period
        n = 0
        while due < start_at + seconds:
            now = time.time()
            if due > now:
                time.sleep(due - now)
            try:
                s.search(qs[(i * 37 + n) % len(qs)], READER)
                with lock:
                    lat.append((time.time() - due) * 1000)
            except Exception as exc:  # noqa: BLE001 - counted and reported, never hidden
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
            n += 1
            due += period

    ts = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put({"lat": lat, "errors": errors})


def load(root: Path, env: dict[str, str], readers: int, procs: int, rate: float, seconds: float, cache: Path) -> dict:
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()
    ready: mp.Queue = ctx.Queue()
    go = ctx.Event()
    start = ctx.Value("d", 0.0)
    per = [readers // procs + (1 if i < readers % procs else 0) for i in range(procs)]
    ps = [ctx.Process(target=_reader_proc, args=(str(root), env, n, rate / readers, seconds, i / procs, start,
                                                 str(cache), q, ready, go)) for i, n in enumerate(per)]
    for p in ps:
        p.start()
    for _ in ps:
        ready.get(timeout=900)
    start.value = start_at = time.time() + 1.0
    go.set()
    results = [q.get(timeout=seconds + 900) for _ in ps]
    for p in ps:
        p.join()
    lat = [v for r in results for v in r["lat"]]
    errors = [e for r in results for e in r["errors"]]
    late_start = time.time() - start_at - seconds
    return {"searches": len(lat), "errors": len(errors), "error_examples": errors[:3],
            "achieved_per_s": round(len(lat) / seconds, 1), "p50_ms": round(pct(lat, 50), 1) if lat else None,
            "p95_ms": round(pct(lat, 95), 1) if lat else None, "max_ms": round(max(lat), 1) if lat else None,
            "drain_s_after_window": round(late_start, 1), "loadavg_after": _loadavg()}


def _pg_sizes(pg, schema: str) -> dict:  # noqa: ANN001
    import psycopg

    with psycopg.connect(pg.url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = "
            "c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'i', 'm')", (schema,)).fetchall()
        total = conn.execute("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                             "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'", (schema,)).fetchone()
    hnsw = sum(size for name, size in rows if name.startswith("vec_hnsw"))
    return {"schema_mb": round(int(total[0] or 0) / 2**20, 1), "hnsw_mb": round(hnsw / 2**20, 1)}


def load_bench(args: argparse.Namespace) -> dict:
    from servers import Postgres

    cache = args.out / "model-cache" / "onnx"
    if args.pg_base:  # a server an earlier run of this bench left with its schemas built (it is stopped at the end)
        pg = Postgres(Path(args.pg_base), args.pg_port)
    else:
        pg = Postgres.start({"shared_buffers": "512MB", "maintenance_work_mem": "512MB"})
    results: dict = {"readers": args.readers, "procs": args.procs, "rate_per_s": args.rate, "seconds": args.seconds,
                     "loadavg_before": _loadavg(), "sizes": {}}
    try:
        for n in args.sizes:
            root = args.out / f"shared-{n}"
            res: dict = {}
            if not (root / ".git").exists():
                make_repo(root, n)
            link_cache(root, cache)
            t = time.perf_counter()
            rep = build_index(root, load_settings(root), embedder=RandomEmbedder())
            res["sqlite_build_s"] = round(time.perf_counter() - t, 1)
            res["fragments"] = rep.fragments_total
            env = _pg_env(pg, f"bench_{n}")
            t = time.perf_counter()
            build_index(root, load_settings(root, env), embedder=RandomEmbedder())
            res["pg_build_s"] = round(time.perf_counter() - t, 1)
            res["sqlite_mb"] = round((root / ".stigmergy" / "index.sqlite").stat().st_size / 2**20, 1)
            res.update(_pg_sizes(pg, f"bench_{n}"))
            res["hnsw_build_s"] = pg.hnsw_rebuild_s(f"bench_{n}")
            res["pg_rss_mb_idle"] = round(pg.rss_bytes() / 2**20, 1)
            for rate in args.rates or [args.rate]:
                for label, e in (("sqlite", {}), ("postgres", env)):
                    key = f"{label}@{rate:g}/s"
                    res[key] = load(root, e, args.readers, args.procs, rate, args.seconds, cache)
                    if label == "postgres":
                        res[key]["pg_rss_mb_after"] = round(pg.rss_bytes() / 2**20, 1)
                    print(json.dumps({n: {key: res[key]}}), flush=True)
            results["sizes"][n] = res
    finally:
        pg.stop()
    return results


# ------------------------------------------------------------------------------------------ build

def _cpu() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def _children_cpu() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def build_bench(args: argparse.Namespace) -> dict:
    """A full index build (random stored vectors, so the model is not what is measured) into SQLite and into
    a fresh PostgreSQL schema, then a rebuild of each (vectors cached): wall, this process's CPU seconds and
    the database server's, with the load average."""
    from servers import Postgres

    pg = Postgres.start()
    out: dict = {"code": str(CODE), "sizes": {}}
    try:
        for n in args.sizes:
            root = args.out / f"shared-{n}"
            if not (root / ".git").exists():
                make_repo(root, n)
            link_cache(root, args.out / "model-cache" / "onnx")
            res: dict = {}
            env = _pg_env(pg, f"build_{n}_{os.getpid()}")
            for label, e in (("sqlite", {}), ("postgres", env)):
                for kind, rebuild in (("first", label == "sqlite"), ("rebuild", True)):
                    load, t, c, s = _loadavg(), time.perf_counter(), _cpu(), pg.cpu_seconds()
                    rep = build_index(root, load_settings(root, e), embedder=RandomEmbedder(), rebuild=rebuild)
                    res[f"{label}_{kind}"] = {"wall_s": round(time.perf_counter() - t, 2), "cpu_s": round(_cpu() - c, 2),
                                              "server_cpu_s": round(pg.cpu_seconds() - s, 2), "loadavg": load}
                    res["fragments"] = rep.fragments_total
                print(json.dumps({n: {label: {k: v for k, v in res.items() if k.startswith(label)}}}), flush=True)
            out["sizes"][n] = res
    finally:
        pg.stop()
    return out


# ------------------------------------------------------------------------------------------ hnsw

def hnsw(args: argparse.Namespace) -> dict:
    """pgvector alone at several sizes, for the projection: insert n random unit vectors (384 dimensions, as
    MiniLM), time the HNSW build (cosine, m 16, ef_construction 64: the store's settings), its size, and
    the top-50 query time through the index (ef_search 100) and by exact scan, 100 queries each."""
    import numpy as np
    import psycopg
    from servers import Postgres

    pg = Postgres.start({"shared_buffers": "512MB", "maintenance_work_mem": "1GB"})
    out: dict = {"loadavg_before": _loadavg(), "points": {}}
    rng = np.random.default_rng(0)
    try:
        with psycopg.connect(pg.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("SET max_parallel_maintenance_workers = 0")  # one core per build, as the projection assumes
            for n in args.hnsw_sizes:
                conn.execute("DROP TABLE IF EXISTS v")
                conn.execute("CREATE TABLE v(id bigint PRIMARY KEY, embedding vector(384))")
                vecs = rng.standard_normal((n, 384)).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                with conn.cursor().copy("COPY v(id, embedding) FROM STDIN") as cp:
                    for i, row in enumerate(vecs):
                        cp.write_row((i, "[" + ",".join(f"{x:.6f}" for x in row) + "]"))
                table_mb = conn.execute("SELECT pg_total_relation_size('v')").fetchone()[0] / 2**20
                t = time.perf_counter()
                conn.execute("CREATE INDEX v_hnsw ON v USING hnsw (embedding vector_cosine_ops) "
                             "WITH (m = 16, ef_construction = 64)")
                build = time.perf_counter() - t
                index_mb = conn.execute("SELECT pg_relation_size('v_hnsw')").fetchone()[0] / 2**20
                qs = rng.standard_normal((100, 384)).astype(np.float32)
                lit = ["[" + ",".join(f"{x:.6f}" for x in q) + "]" for q in qs]
                timings: dict[str, list[float]] = {"hnsw": [], "exact": []}
                conn.execute("SET hnsw.ef_search = 100")
                for label, setup in (("hnsw", "SET enable_seqscan = off"), ("exact", "SET enable_indexscan = off")):
                    conn.execute("RESET enable_seqscan")
                    conn.execute("RESET enable_indexscan")
                    conn.execute(setup)
                    for q in lit:
                        t = time.perf_counter()
                        conn.execute("SELECT id FROM v ORDER BY embedding <=> %s::vector LIMIT 50", (q,)).fetchall()
                        timings[label].append((time.perf_counter() - t) * 1000)
                conn.execute("RESET enable_seqscan")
                conn.execute("RESET enable_indexscan")
                out["points"][n] = {"hnsw_build_s": round(build, 2), "hnsw_index_mb": round(index_mb, 1),
                                    "table_mb": round(table_mb, 1),
                                    **{f"{k}_p50_ms": round(pct(v, 50), 2) for k, v in timings.items()},
                                    **{f"{k}_p95_ms": round(pct(v, 95), 2) for k, v in timings.items()},
                                    "pg_rss_mb": round(pg.rss_bytes() / 2**20, 1), "loadavg": _loadavg()}
                print(json.dumps({n: out["points"][n]}), flush=True)
    finally:
        pg.stop()
    return out


# ------------------------------------------------------------------------------------------ incremental

def incremental(args: argparse.Namespace) -> dict:
    """A server repository with the post-receive hook (`index --hook --push`) indexing into PostgreSQL; a
    clone changes one page and pushes; the time from the push's end to the shared index holding the new
    commit is the hook's (it runs inside the push); also the hook's own in-process time."""
    from servers import Postgres

    from stigmergy.index.store import index_location, open_index
    from stigmergy.repo.layout import Layout

    cache = args.out / "model-cache" / "onnx"
    pg = Postgres.start()
    out: dict = {"loadavg_before": _loadavg()}
    try:
        work = Path(tempfile.mkdtemp(prefix="stigmergy-incr-"))
        src = work / "src"
        make_repo(src, args.incremental_fragments)
        env = {**os.environ, **_pg_env(pg, "bench_incr"), "HF_HUB_OFFLINE": "1",
               "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
        link_cache(src, cache)
        build_index(src, load_settings(src, env), embedder=RandomEmbedder())
        out["fragments"] = args.incremental_fragments
        page = sorted((src / "wiki" / "notes").iterdir())[5]
        times: list[float] = []
        cpus: list[float] = []
        server: list[float] = []
        for i in range(args.repeat):
            text = page.read_text()
            page.write_text(text.replace("## Part 1\n\n", f"## Part 1\n\nRevision {i} of this part. ", 1))
            subprocess.run(["git", "commit", "-qam", f"edit {i}"], cwd=src, check=True, env=env)
            head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, capture_output=True, text=True).stdout.strip()
            t, c, sc = time.perf_counter(), _children_cpu(), pg.cpu_seconds()
            # What the server's hook runs (a checkout from before stigmergy/cli/hook.py: the CLI command).
            hook = (["stigmergy.cli.hook", "--push"] if (CODE / "stigmergy" / "cli" / "hook.py").is_file()
                    else ["stigmergy", "index", "--hook", "--push"])
            proc = subprocess.run([sys.executable, "-I", "-m", *hook], cwd=src, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t
            cpus.append(_children_cpu() - c)
            server.append(pg.cpu_seconds() - sc)
            store = open_index(index_location(Layout(src), load_settings(src, env)))
            assert store.meta("commit") == head, proc.stderr
            store.close()
            times.append(wall)
        # In-process (a warm hook runner: the model loaded once), the build call alone.
        from stigmergy.index.embedder import make_embedder

        settings = load_settings(src, env)
        emb = make_embedder(settings.embedder, src / ".stigmergy" / "cache")
        emb.embed(["warm"])
        warm, warm_cpu = [], []
        for i in range(args.repeat):
            text = page.read_text()
            page.write_text(text.replace("## Part 2\n\n", f"## Part 2\n\nWarm revision {i}. ", 1))
            subprocess.run(["git", "commit", "-qam", f"warm {i}"], cwd=src, check=True, env=env)
            t, c = time.perf_counter(), _cpu()
            build_index(src, settings, embedder=emb, from_push=True)
            warm.append(time.perf_counter() - t)
            warm_cpu.append(_cpu() - c)
        out["hook_process_wall_s"] = {"median": round(statistics.median(times), 3), "max": round(max(times), 3)}
        out["hook_process_cpu_s"] = {"median": round(statistics.median(cpus), 3), "max": round(max(cpus), 3)}
        out["hook_server_cpu_s"] = {"median": round(statistics.median(server), 3), "max": round(max(server), 3)}
        out["index_call_warm_s"] = {"median": round(statistics.median(warm), 3), "max": round(max(warm), 3)}
        out["index_call_warm_cpu_s"] = {"median": round(statistics.median(warm_cpu), 3)}
        out["loadavg_after"] = _loadavg()
    finally:
        pg.stop()
    return out


# ------------------------------------------------------------------------------------------ evidence

def evidence(args: argparse.Namespace) -> dict:
    import boto3
    from servers import S3_TEST_ENV, S3Server

    from stigmergy.repo.evidence import LocalEvidenceStore
    from stigmergy.repo.evidence.s3 import S3EvidenceStore, S3Location

    os.environ.update(S3_TEST_ENV)
    server = S3Server.start()
    out: dict = {"loadavg_before": _loadavg()}
    try:
        boto3.client("s3", endpoint_url=server.endpoint).create_bucket(Bucket="bench-evidence")
        stores = {"local": LocalEvidenceStore(Path(tempfile.mkdtemp(prefix="stigmergy-ev-")) / "objects"),
                  "s3": S3EvidenceStore(S3Location("bench-evidence", "bench/", server.endpoint, wiki="b" * 40))}
        for size in (64 * 1024, 1024 * 1024):
            blobs = [os.urandom(size) for _ in range(args.objects)]
            row: dict = {}
            for name, store in stores.items():
                t = time.perf_counter()
                ids = [store.put(b) for b in blobs]
                put = time.perf_counter() - t
                t = time.perf_counter()
                for oid in ids:
                    store.get(oid)
                get = time.perf_counter() - t
                row[name] = {"put_MB_s": round(len(blobs) * size / put / 2**20, 1),
                             "get_MB_s": round(len(blobs) * size / get / 2**20, 1),
                             "put_per_s": round(len(blobs) / put, 1), "get_per_s": round(len(blobs) / get, 1)}
            row["s3_over_local"] = {k: round(row["s3"][k] / row["local"][k], 3) for k in row["s3"]}
            out[f"{size // 1024}KiB x {args.objects}"] = row
        out["loadavg_after"] = _loadavg()
    finally:
        server.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quality", action="store_true")
    ap.add_argument("--load", action="store_true")
    ap.add_argument("--incremental", action="store_true")
    ap.add_argument("--evidence", action="store_true")
    ap.add_argument("--hnsw", action="store_true")
    ap.add_argument("--quality-hash", action="store_true")
    ap.add_argument("--build", action="store_true", help="full index build, SQLite and PostgreSQL")
    ap.add_argument("--code", type=Path, help="the checkout whose stigmergy is measured (default: this one)")
    ap.add_argument("--pg-base", type=Path, help="--load: reuse this bench's server left at this folder")
    ap.add_argument("--pg-port", type=int, default=0)
    ap.add_argument("--hnsw-sizes", type=int, nargs="+", default=[5_000, 10_000, 20_000])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 40_000])
    ap.add_argument("--rate", type=float, default=50.0)
    ap.add_argument("--rates", type=float, nargs="*", default=[])
    ap.add_argument("--readers", type=int, default=50)
    ap.add_argument("--procs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--incremental-fragments", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--objects", type=int, default=40)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "stigmergy-bench-quality")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    for flag, fn in (("evidence", evidence), ("hnsw", hnsw), ("incremental", incremental), ("quality", quality), ("quality_hash", quality_hash),
                     ("load", load_bench), ("build", build_bench)):
        if getattr(args, flag):
            report[flag] = fn(args)
            print(json.dumps({flag: report[flag]}, indent=1, default=str), flush=True)
    (args.out / "shared_index.json").write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
