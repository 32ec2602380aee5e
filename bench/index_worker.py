"""One changed page pushed to a server repository whose post-receive hook indexes into PostgreSQL: the time
from the hook's start to the page being searchable in the shared index, and the hook's own wall and CPU,
with the index worker running (`stigmergy index-worker`, index/worker.py) and without it (the hook
indexes in-process). A real bare repository, the real hooks (`install_server`), a real PostgreSQL
(tests/servers.py), the real embedding model for the changed fragments.

    .venv/bin/python bench/index_worker.py --repeat 8                     # worker and in-process, this checkout
    /work/wt/base/.venv/bin/python bench/index_worker.py --code /work/wt/base  # a baseline (in-process only)
    .venv/bin/python bench/index_worker.py --hogs 2                       # with 2 busy processes beside it

The pre-receive gate is removed from the bare repository: it runs before the push is accepted, the same
with and without a worker, and is not what is measured. The hook's start and end are stamped by `date`
lines around the hook's own lines; "searchable" is when the first check that finds the shared index's
commit to be the pushed one began (a page's rows and that commit change in one transaction), the first
check beginning when the push returns.
CPU: the push's processes (git, the hook, its Python), and the worker's own from /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import CODE, HERE  # noqa: E402  (first: --code's checkout first on the path)
from search import RandomEmbedder, link_cache, make_repo  # noqa: E402

from stigmergy.index.build import build_index  # noqa: E402
from stigmergy.index.hooks import install_server  # noqa: E402
from stigmergy.index.store import index_location, open_index  # noqa: E402
from stigmergy.repo.layout import Layout  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402


def _loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split(" ")[0:3]


def _children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _stamp_hook(hook: Path, stamps: Path) -> None:
    """`date` lines before and after the hook's own lines (after the shebang, at the end)."""
    first, _, rest = hook.read_text().partition("\n")
    hook.write_text(f"{first}\ndate +%s.%N >{stamps}/start\n{rest}date +%s.%N >{stamps}/end\n")


def _hogs(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "max": round(max(values), 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=Path, help="the checkout whose stigmergy is measured (default: this one)")
    ap.add_argument("--fragments", type=int, default=4_000, help="size of the generated wiki")
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--hogs", type=int, default=0, help="busy processes beside the measurement (load)")
    ap.add_argument("--modes", nargs="+", default=["in-process", "worker"], choices=["in-process", "worker"])
    ap.add_argument("--worker-nice", type=int, default=0,
                    help="the worker's niceness (as systemd's Nice=; below 0 needs root)")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "stigmergy-bench-model-cache" / "onnx")
    ap.add_argument("--out", type=Path, default=HERE / "out" / "index_worker.json")
    args = ap.parse_args()
    from servers import Postgres

    pg = Postgres.start()
    hogs: list[subprocess.Popen] = []
    out: dict = {"code": str(CODE), "fragments": args.fragments, "repeat": args.repeat, "hogs": args.hogs,
                 "loadavg_before": _loadavg()}
    try:
        work = Path(tempfile.mkdtemp(prefix="stigmergy-worker-"))
        src, bare, checkout, stamps = work / "src", work / "hub.git", work / "served", work / "stamps"
        stamps.mkdir()
        env = {**os.environ, "STIGMERGY_INDEX__BACKEND": "postgres", "STIGMERGY_INDEX__URL": pg.url,
               "STIGMERGY_INDEX__SCHEMA": "bench_worker", "HF_HUB_OFFLINE": "1",
               "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
        make_repo(src, args.fragments)
        _git(work, "init", "-q", "--bare", str(bare), env=env)
        _git(src, "remote", "add", "origin", str(bare), env=env)
        _git(src, "push", "-q", "origin", "HEAD:main", env=env)
        _git(bare, "symbolic-ref", "HEAD", "refs/heads/main", env=env)
        install_server(bare, checkout, python=sys.executable)
        (bare / "hooks" / "pre-receive").unlink()
        _stamp_hook(bare / "hooks" / "post-receive", stamps)
        link_cache(checkout, args.cache)
        settings = load_settings(checkout, env)
        build_index(checkout, settings, embedder=RandomEmbedder(), from_push=True)  # the wiki, already indexed
        page = sorted((src / "wiki" / "notes").iterdir())[5]
        n = 0

        def push_one() -> dict[str, float]:
            nonlocal n
            n += 1
            page.write_text(page.read_text().replace("## Part 1\n\n", f"## Part 1\n\nRevision {n} of this part. ", 1))
            _git(src, "commit", "-qam", f"edit {n}", env=env)
            head = _git(src, "rev-parse", "HEAD", env=env)
            c0, t0 = _children_cpu(), time.time()
            subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=src, env=env, check=True, capture_output=True)
            pushed, cpu = time.time(), _children_cpu() - c0
            while True:
                # Searchable at least from when a check that finds it began (opening the check's own
                # connection is the bench's time, not the hook's).
                searchable = time.time()
                store = open_index(index_location(Layout(checkout), settings))
                try:
                    if store.meta("commit") == head:
                        break
                finally:
                    store.close()
                if time.time() - pushed > 120:
                    raise SystemExit(f"not indexed after 120 s: {(checkout / '.stigmergy' / 'hook.log').read_text()[-2000:]}")
                time.sleep(0.02)
            start, end = (float((stamps / s).read_text()) for s in ("start", "end"))
            return {"searchable_after_hook_start_s": searchable - start, "hook_wall_s": end - start,
                    "push_wall_s": pushed - t0, "push_cpu_s": cpu}

        hogs = _hogs(args.hogs)
        push_one()  # warm-up: the ONNX export into the cache when it is new, the first PostgreSQL connection
        has_worker = (CODE / "stigmergy" / "index" / "worker.py").is_file()
        modes = [m for m in args.modes if m == "in-process" or has_worker]
        out["worker_nice"] = args.worker_nice
        for mode in modes:
            worker = None
            if mode == "worker":
                worker = subprocess.Popen(["nice", "-n", str(args.worker_nice), sys.executable, "-I", "-m", "stigmergy",
                                           "index-worker"], cwd=checkout, env=env, stderr=subprocess.PIPE, text=True)
                assert worker.stderr is not None
                line = worker.stderr.readline()
                assert "listening" in line, line
            rows = []
            for _ in range(args.repeat):
                w0 = _proc_cpu(worker.pid) if worker else 0.0
                s0 = pg.cpu_seconds()
                row = push_one()
                row["worker_cpu_s"] = (_proc_cpu(worker.pid) - w0) if worker else 0.0
                row["pg_cpu_s"] = pg.cpu_seconds() - s0
                rows.append(row)
            out[mode] = {k: _summary([r[k] for r in rows]) for k in rows[0]}
            if worker is not None:
                worker.terminate()
                _, log = worker.communicate(timeout=30)
                # The worker's own time per request, from its log lines ("... ok <commit> (0.123 s)").
                took = [float(line.rsplit("(", 1)[1].split()[0]) for line in log.splitlines() if " ok " in line]
                out[mode]["worker_request_s"] = _summary(took)
            out[mode]["loadavg"] = _loadavg()
            print(json.dumps({mode: out[mode]}), flush=True)
        log = (checkout / ".stigmergy" / "hook.log")
        out["hook_log_tail"] = log.read_text()[-500:] if log.exists() else ""
    finally:
        for h in hogs:
            h.kill()
        pg.stop()
    out["loadavg_after"] = _loadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
