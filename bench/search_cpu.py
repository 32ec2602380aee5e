"""CPU a search in one process over bench/load.py's wiki: a warm `Searcher` per backend answers `--queries`
queries of bench/load_corpus.py (the real model embeds each), and the CPU seconds of this process and of
the PostgreSQL server are divided by the searches; the search's own timings (embed, lexical, vector, blend,
...) are summed per part. `--code DIR` measures another checkout's stigmergy (a baseline) over the same
indexes; `--profile` adds cProfile's top functions. Reuses bench/load.py's --out (wiki, indexes and the
PostgreSQL data folder); builds nothing. The store is kept warm as `serve` keeps its sessions (SQLite: a
token's posting list read at its first use and held between searches, `sqlite_postings`); `--warm N` searches
before the measured ones stand for a server that has been answering for a while.

    .venv/bin/python bench/search_cpu.py --out /work/wt/i21load/bench/out --size 200000
    /work/wt/base/.venv/bin/python bench/search_cpu.py --code /work/wt/base --out ... --size 200000
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from checkout import CODE, HERE  # noqa: E402  (first: --code's checkout first on the path)
from load_corpus import queries, sentence_pool  # noqa: E402

from stigmergy.settings import load_settings  # noqa: E402


def _cpu() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def measure(root: Path, env: dict[str, str], qs: list[str], pg: Any, warm: int, profile: bool) -> dict[str, Any]:
    from stigmergy.index.search import Searcher

    searcher = Searcher(root, load_settings(root, env))
    if hasattr(searcher.scope.store, "keep_warm"):  # as `serve` keeps its sessions (a baseline may not have it)
        searcher.scope.store.keep_warm()
    try:
        for q in qs[:warm]:
            searcher.search(q, "reader0@example.com", check_freshness=False)
        settle_t = time.perf_counter()
        for reader in threading.enumerate():  # what the warm-up started reading in the background (as serve)
            if reader.name.startswith("stigmergy-"):
                reader.join()
        settle_s = round(time.perf_counter() - settle_t, 1)
        parts: dict[str, float] = {}
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        c0, d0, t0 = _cpu(), pg.cpu_seconds() if pg else 0.0, time.perf_counter()
        for q in qs[warm:]:
            res = searcher.search(q, "reader0@example.com", check_freshness=False)
            for k, v in res.timings_ms.items():
                parts[k] = parts.get(k, 0.0) + v
        n = len(qs) - warm
        out = {"searches": n, "settle_s": settle_s, "client_cpu_ms": round((_cpu() - c0) / n * 1000, 1),
               "db_cpu_ms": round(((pg.cpu_seconds() if pg else 0.0) - d0) / n * 1000, 1),
               "wall_ms": round((time.perf_counter() - t0) / n * 1000, 1),
               "parts_wall_ms": {k: round(v / n, 1) for k, v in parts.items()}}
        if prof is not None:
            import io
            import pstats

            prof.disable()
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
            out["profile"] = buf.getvalue()
        return out
    finally:
        searcher.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE / "out", help="bench/load.py's --out")
    ap.add_argument("--size", type=int, default=200_000, help="the wiki of bench/load.py --sizes N")
    ap.add_argument("--backends", nargs="+", default=["postgres", "sqlite"], choices=["sqlite", "postgres"])
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--code", type=Path, help="the checkout whose stigmergy is measured (default: this one)")
    ap.add_argument("--schema", help="the PostgreSQL schema (default: bench/load.py's load_<size>); a copy lets a "
                    "newer schema version be measured beside a baseline that refuses it")
    args = ap.parse_args()
    from servers import Postgres

    os.environ["HF_HUB_OFFLINE"] = "1"
    out = args.out.resolve()
    root = out / f"load-{args.size}"
    pool = sentence_pool(out)
    # Queries after the ones bench/load.py's warm-up sends (the same generator, later draws).
    qs = queries(4000, pool)[1000:1000 + args.warm + args.queries]
    pg = None
    report: dict[str, Any] = {"code": str(CODE), "loadavg_before": Path("/proc/loadavg").read_text().split()[:3]}
    try:
        for label in args.backends:
            env: dict[str, str] = {}
            if label == "postgres":
                if pg is None:
                    pg = Postgres.start({"shared_buffers": "1GB", "max_connections": "300"}, keep_at=out / "load-pg")
                env = {"STIGMERGY_INDEX__BACKEND": "postgres", "STIGMERGY_INDEX__URL": pg.url,
                       "STIGMERGY_INDEX__SCHEMA": args.schema or f"load_{args.size}"}
            report[label] = measure(root, env, qs, pg if label == "postgres" else None, args.warm, args.profile)
            report[label]["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
            prof = report[label].pop("profile", None)
            print(json.dumps({label: report[label]}), flush=True)
            if prof:
                print(prof, flush=True)
    finally:
        if pg is not None:
            pg.stop()


if __name__ == "__main__":
    main()
