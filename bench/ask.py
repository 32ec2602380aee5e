"""`stigmergy ask`: answer quality on bench/ask_questions.json (written before the answerer) and the
latency of `ask` as a new process at 10k fragments, beside `stigmergy search` as a new process.

    .venv/bin/python bench/ask.py                 # quality on sample_corpus/ (built once in a temp folder)
    .venv/bin/python bench/ask.py --latency       # new-process ask vs search at 10k fragments

Quality counts, per question: answered correctly (an answer, and every expected string is in its
sentences), refused correctly (an unanswerable question refused), wrong (an answer to an unanswerable
question, or an answer missing an expected string), missed (an answerable question refused), and figures
not traceable to a cited line: every figure of every sentence checked against the source lines that
sentence cites (the verifier's rule; must be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# This folder stays off the path (bench modules load by file), so `import mcp` always finds the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from stigmergy.gates.figures import missing_figures  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402

PUBLIC = "someone@example.com"


def build_sample_wiki(root: Path) -> None:
    corpus = HERE.parent / "sample_corpus"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b", "PYTHONPATH": str(HERE.parent)}

    def cli(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=root, check=True, env=env, capture_output=True)

    root.mkdir(parents=True, exist_ok=True)
    cli("init")
    with (root / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["ceo@lanternfish.example"]\n')
    subprocess.run(["git", "commit", "-qm", "board layer", "stigmergy.toml"], cwd=root, check=True, env=env)
    cli("capture", str(corpus), "--exclude", "README.md", "--exclude", "_restricted/*")
    cli("capture", str(corpus / "_restricted" / "board"), "--layer", "board")
    cli("index")


def _norm(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", " ".join(text.casefold().split()))


def untraceable(answer: dict) -> list[str]:
    """Figures of the answer's sentences that are not in the source lines each sentence cites."""
    bad = []
    for s in answer["sentences"]:
        source_text = "\n".join(c.get("text") or "" for c in s["citations"] if c["path"].startswith(("sources/", "layers/"))
                                and "/sources/" in "/" + c["path"])
        for raw in missing_figures(s["text"], source_text):
            bad.append(f"{raw} in {s['text'][:80]!r}")
    return bad


def quality(root: Path) -> dict:
    from stigmergy.answer.service import ask
    from stigmergy.index.search import Searcher

    settings = load_settings(root)
    spec = json.loads((HERE / "ask_questions.json").read_text())
    searcher = Searcher(root, settings)
    counts = {"answered_correctly": 0, "refused_correctly": 0, "wrong": 0, "missed": 0}
    untraced: list[str] = []
    rows = []
    items = [(q, PUBLIC) for q in spec["questions"]] + [(q, q["as"]) for q in spec.get("restricted", [])]
    t0 = time.perf_counter()
    for q, reader in items:
        a = ask(root, settings, reader, q["q"], evidence=True, searcher=searcher)
        text = _norm(" ".join(s["text"] for s in a["sentences"]))
        if q["expect"] is None:
            verdict = "refused_correctly" if not a["answered"] else "wrong"
        elif not a["answered"]:
            verdict = "missed"
        else:
            verdict = "answered_correctly" if all(_norm(e) in text for e in q["expect"]) else "wrong"
        counts[verdict] += 1
        bad = untraceable(a)
        untraced.extend(f"{q['id']}: {b}" for b in bad)
        rows.append({"id": q["id"], "verdict": verdict, "best": a["evidence"]["best"],
                     "sentences": len(a["sentences"]), "contradictions": len(a["contradictions"])})
    return {"questions": len(items), **counts, "figures_not_traceable": len(untraced), "untraceable": untraced,
            "seconds_per_question_warm": round((time.perf_counter() - t0) / len(items), 3), "rows": rows}


def latency(out: Path, runs: int) -> dict:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_mcp", HERE / "mcp_latency.py")
    bench_mcp = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(bench_mcp)  # type: ignore[union-attr]
    bench_search = bench_mcp.bench_search  # bench/search.py: the same 10k-fragment repository and queries
    root = bench_mcp.ten_k_repo(out)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(HERE.parent)}
    qs = bench_search.queries(runs, seed=11)
    walls: dict[str, list[float]] = {"search": [], "ask": []}
    for q in qs:  # interleaved, so that load on the machine hits both alike
        for cmd in ("search", "ask"):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "stigmergy", cmd, q, "--json"], cwd=root, env=env,
                           capture_output=True, check=True)
            walls[cmd].append(time.perf_counter() - t)
    med = {k: round(statistics.median(v), 3) for k, v in walls.items()}
    return {"fragments": 10_000, "runs": runs, "new_process_median_s": med,
            "max_s": {k: round(max(v), 3) for k, v in walls.items()}, "ask_over_search": round(med["ask"] / med["search"], 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wiki", type=Path, help="an indexed sample-corpus wiki (default: built once in a temp folder)")
    ap.add_argument("--latency", action="store_true")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    args = ap.parse_args()
    if args.latency:
        print(json.dumps(latency(args.out, args.runs), indent=1))
        return
    root = args.wiki or Path(tempfile.gettempdir()) / "stigmergy-bench-ask"
    if not (root / ".stigmergy" / "index.sqlite").exists():
        build_sample_wiki(root)
    report = quality(root)
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1))
    for r in report["rows"]:
        if r["verdict"] in ("wrong", "missed"):
            print(f"  {r['id']}: {r['verdict']} (best {r['best']})")


if __name__ == "__main__":
    main()
