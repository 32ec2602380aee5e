"""Capture throughput: N generated 2 KB Markdown documents captured into a fresh wiki (one operation
each, archive only), beside a bare `git add` + `git commit` loop over the same documents; and the
wall time of `stigmergy --help`.

    .venv/bin/python bench/capture.py [--n 200] [--json bench/results/capture.json]

With `--json`, the file holds the run's date, the load average before and after, the figures, and
`readme_rows`, which `scripts/gen_docs.py` puts in the README's generated table.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import load_now, met, write

WORDS = (
    "roadmap latency customer migration budget rollout incident review platform team hiring revenue "
    "quarter launch pricing contract renewal support onboarding churn pipeline forecast release audit "
    "security vendor warehouse analytics dashboard retention capacity backlog sprint design"
).split()
PEOPLE = ["Mara Lindqvist", "Tomas Okafor", "Priya Raman", "Jonas Becker", "Elena Sato", "Farid Haddad"]


def make_documents(folder: Path, n: int, seed: int = 7) -> list[Path]:
    """N Markdown documents of about 2 KB each, with front matter, people, dates and figures."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        month = 1 + i % 12
        lines = [
            "---",
            f"title: Team update {i:04d}",
            f"date: 2026-{month:02d}-{1 + i % 28:02d}",
            "---",
            f"# Team update {i:04d}",
            "",
            "## Summary",
            "",
        ]
        while sum(len(x) + 1 for x in lines) < 1900:
            who = rng.choice(PEOPLE)
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
            figure = rng.randint(2, 900)
            lines.append(f"- {who} reported {words} at {figure} units in Q{1 + i % 4} 2026.")
        lines.append("")
        path = folder / f"update-{i:04d}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        paths.append(path)
    return paths


def git_env() -> dict[str, str]:
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    }


def bare_git_loop(docs: list[Path], work: Path) -> float:
    repo = work / "bare"
    repo.mkdir()
    env = git_env()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    start = time.perf_counter()
    for i, doc in enumerate(docs):
        target = repo / "sources" / f"{i:04d}.md"
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(doc, target)
        subprocess.run(["git", "add", "--", str(target)], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", f"add {i}"], cwd=repo, check=True, env=env)
    return time.perf_counter() - start


def stigmergy_capture(docs_dir: Path, work: Path, extra: list[str]) -> tuple[float, int]:
    wiki = work / "wiki"
    exe = [sys.executable, "-m", "stigmergy"]
    subprocess.run([*exe, "init", str(wiki)], check=True, env=git_env(), capture_output=True)
    start = time.perf_counter()
    proc = subprocess.run([*exe, "-C", str(wiki), "--json", "capture", str(docs_dir), *extra], env=git_env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"capture failed: {proc.stderr[-2000:]}")
    commits = int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=wiki, capture_output=True, text=True).stdout)
    return elapsed, commits - 1


def help_time(runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "stigmergy", "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--file", action="store_true", help="also file each capture (deterministic planner)")
    ap.add_argument("--json", type=Path, help="also write the figures with the README's rows here")
    args = ap.parse_args()
    load_before = load_now()
    with tempfile.TemporaryDirectory(prefix="stigmergy-bench-") as tmp:
        work = Path(tmp)
        docs = make_documents(work / "docs", args.n)
        bare = bare_git_loop(docs, work)
        extra = [] if args.file else ["--no-file"]
        ours, ops = stigmergy_capture(work / "docs", work, extra)
        assert ops == args.n, f"expected {args.n} operations, got {ops}"
        print(f"documents            {args.n} x ~2 KB Markdown")
        print(f"bare git add+commit  {bare:7.2f} s   {args.n / bare:7.1f} docs/s")
        label = "stigmergy capture+file" if args.file else "stigmergy capture"
        print(f"{label:20} {ours:7.2f} s   {args.n / ours:7.1f} captures/s   ({ops} operations)")
        print(f"ratio (stigmergy / bare git)  {ours / bare:5.2f}x   (target <= 3x)")
    helped = help_time()
    print(f"stigmergy --help     {helped:7.3f} s   (median of 5, target <= 0.3 s)")
    if args.json:
        command = "bench/capture.py" + (f" --n {args.n}" if args.n != 200 else "") + (" --file" if args.file else "")
        what = "capture + file" if args.file else "capture"
        write(args.json, command, [load_before, load_now()], [
                [f"{what}, {args.n} × 2 KB Markdown, one commit each, a new process (`{command}`)",
                 f"{args.n / ours:.1f} captures/s", f"a bare `git add` + `git commit` loop, same run: "
                 f"{args.n / bare:.1f} documents/s ({ours / bare:.2f}× its time)",
                 f"≤ 3× ({met(ours / bare <= 3)})"],
                [f"`stigmergy --help`, median of 5 new processes (`{command}`)", f"{helped:.3f} s"
                 + (" (each process compiling its modules: PYTHONDONTWRITEBYTECODE set)" if sys.flags.dont_write_bytecode
                    else " (modules' bytecode cached, as an installed package has it)"), "",
                 f"≤ 0.3 s ({met(helped <= 0.3)})"],
            ], {"documents": args.n, "stigmergy_s": round(ours, 2), "bare_git_s": round(bare, 2),
                "ratio": round(ours / bare, 2), "help_s": round(helped, 3)})


if __name__ == "__main__":
    main()
