"""One run, several checkouts: capture, filing, index, new-process search, warm search, the MCP round trip
and `stigmergy --help`, each measured for every checkout in turn (interleaved measure by measure, best of
`--repeat`), reported as each checkout's time over the first one's. Issue #25 asks for the refactor to
stay within noise (<= 1.05x) of the commit before it.

    .venv/bin/python bench/before_after.py --checkout base=/work/wt/base25 --checkout head=. [--n 30]

Each checkout runs with its own interpreter (CHECKOUT/.venv/bin/python, which imports that checkout's
stigmergy) on its own wiki: N generated 2 KB documents (bench/capture.py's generator) captured without
filing (capture), and filed by the deterministic planner into a second wiki (filing), which is then indexed
with the real model (index: a full build after an untimed one has prepared the ONNX export) and searched
(one `stigmergy search` process per query; a warm in-process `Searcher`; an MCP `search` through the SDK's
client over stdio to that checkout's `stigmergy mcp`). The load average is printed beside the figures, and
the CPU seconds of each command (user + system, with the git processes it ran) beside its wall time: on a
shared machine the wall time is mostly waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # `import mcp` is the SDK
READER = "bench@example.com"
QUERIES = ["quarterly revenue forecast", "who leads the platform team", "incident review latency",
           "customer renewal contract pricing", "warehouse analytics dashboard", "hiring budget for the launch",
           "security vendor audit", "release roadmap migration", "support onboarding churn", "capacity backlog sprint"]

WARM = """
import json, sys, time
from pathlib import Path
from stigmergy.index.search import Searcher
from stigmergy.settings import load_settings
root, qs, reader = Path(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
s = Searcher(root, load_settings(root))
for q in qs[:3]:
    s.search(q, reader)
times = []
for q in qs:
    t = time.perf_counter(); s.search(q, reader); times.append((time.perf_counter() - t) * 1000)
s.close()
print(json.dumps(times))
"""


def _bench_module(name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "HF_HUB_OFFLINE": "1", "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


CPU: dict[str, float] = {}  # the last _run's CPU seconds (user + system, it and the processes it waited for)


def _run(python: str, *args: str, cwd: Path | None = None, ok: tuple[int, ...] = (0,)) -> tuple[float, str]:
    # -I and a neutral folder: `python -m stigmergy` run from a checkout would import that folder's
    # stigmergy/ before the interpreter's own (this bench's first run measured one checkout three times).
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([python, "-I", *args], cwd=cwd or Path(tempfile.gettempdir()), env=_env(),
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in ok:
        raise SystemExit(f"{python} {args[:4]} failed ({proc.returncode}): {proc.stderr[-1500:]}")
    return took, proc.stdout


def _stig(python: str, *args: str, ok: tuple[int, ...] = (0,)) -> float:
    took = _run(python, "-m", "stigmergy", *args, ok=ok)[0]
    CPU["sum"] = CPU.get("sum", 0.0) + CPU["last"]
    return took


def _mcp_p50(python: str, root: Path, qs: list[str]) -> float:
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=python, args=["-I", "-m", "stigmergy", "-C", str(root), "mcp", "--as", READER],
                                   cwd=str(root),
                                   env=_env())

    async def main() -> list[float]:
        async with Client(params, read_timeout_seconds=600) as client:
            for q in qs[:3]:
                await client.call_tool("search", {"query": q})
            times = []
            for q in qs:
                t = time.perf_counter()
                r = await client.call_tool("search", {"query": q})
                times.append((time.perf_counter() - t) * 1000)
                assert not r.is_error, r.content
            return times

    return statistics.median(anyio.run(main))


class Checkout:
    def __init__(self, label: str, path: Path, work: Path) -> None:
        self.label, self.path, self.work = label, path.resolve(), work / label
        self.python = str(self.path / ".venv" / "bin" / "python")
        self.work.mkdir(parents=True)
        self.filed = self.work / "filed"

    def capture(self, docs: Path, n: int, file: bool) -> float:
        wiki = self.filed if file else self.work / f"captured-{n}-{time.monotonic_ns()}"
        if wiki.exists():
            subprocess.run(["rm", "-rf", str(wiki)], check=True)
        _stig(self.python, "init", str(wiki))
        CPU["sum"] = 0.0  # the init is not measured
        return _stig(self.python, "-C", str(wiki), "capture", str(docs), *([] if file else ["--no-file"]), ok=(0, 4))

    def index(self) -> float:
        if not any((self.filed / ".stigmergy").glob("index.sqlite*")):
            _stig(self.python, "-C", str(self.filed), "index")  # untimed: prepares the ONNX export
        for f in (self.filed / ".stigmergy").glob("index.sqlite*"):
            f.unlink()
        CPU["sum"] = 0.0  # the export run is not measured
        return _stig(self.python, "-C", str(self.filed), "index")

    def search_new_process(self, qs: list[str]) -> float:
        times, cpus = [], []
        for q in qs:
            times.append(_stig(self.python, "-C", str(self.filed), "--as", READER, "--json", "search", q))
            cpus.append(CPU["last"])
        CPU["sum"] = statistics.median(cpus)
        return statistics.median(times)

    def warm_search(self, qs: list[str]) -> float:
        return statistics.median(json.loads(_run(self.python, "-c", WARM, str(self.filed), json.dumps(qs), READER)[1]))

    def mcp(self, qs: list[str]) -> float:
        return _mcp_p50(self.python, self.filed, qs) / 1000

    def help(self) -> float:
        times, cpus = [], []
        for _ in range(5):
            times.append(_stig(self.python, "--help"))
            cpus.append(CPU["last"])
        CPU["sum"] = statistics.median(cpus)
        return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", action="append", required=True, metavar="LABEL=PATH",
                    help="a checkout with its .venv; the first is the baseline")
    ap.add_argument("--n", type=int, default=30, help="documents captured and filed")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    make_documents = _bench_module("capture").make_documents
    out: dict[str, object] = {"documents": args.n, "repeat": args.repeat, "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="stigmergy-before-after-") as tmp:
        work = Path(tmp)
        docs = work / "docs"
        make_documents(docs, args.n)
        checkouts = [Checkout(label, Path(path), work) for label, path in (c.split("=", 1) for c in args.checkout)]
        out["commits"] = {c.label: subprocess.run(["git", "-C", str(c.path), "log", "-1", "--format=%h %s"],
                                                  capture_output=True, text=True).stdout.strip()[:80]
                          for c in checkouts}
        measures = [
            ("capture_s", lambda c: c.capture(docs, args.n, file=False)),
            ("filing_s", lambda c: c.capture(docs, args.n, file=True)),
            ("index_s", lambda c: c.index()),
            ("search_new_process_s", lambda c: c.search_new_process(QUERIES[:5])),
            ("warm_search_ms", lambda c: c.warm_search(QUERIES * 2)),
            ("mcp_round_trip_s", lambda c: c.mcp(QUERIES * 2)),
            ("help_s", lambda c: c.help()),
        ]
        figures: dict[str, dict[str, float]] = {}
        for name, measure in measures:
            best = {c.label: float("inf") for c in checkouts}
            cpu = {c.label: float("inf") for c in checkouts}
            for _ in range(args.repeat):
                for c in checkouts:
                    CPU["sum"] = 0.0
                    best[c.label] = min(best[c.label], measure(c))
                    cpu[c.label] = min(cpu[c.label], CPU["sum"])
            figures[name] = {k: round(v, 4) for k, v in best.items()}
            print(name, figures[name], flush=True)
            if name not in ("warm_search_ms", "mcp_round_trip_s"):  # in-process latencies: wall time only
                figures[name.replace("_s", "_cpu_s")] = {k: round(v, 3) for k, v in cpu.items()}
                print(name.replace("_s", "_cpu_s"), figures[name.replace("_s", "_cpu_s")], flush=True)
    base = checkouts[0].label
    out["figures"] = figures
    out["ratios"] = {name: {k: round(v / f[base], 3) for k, v in f.items() if k != base} for name, f in figures.items()}
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
