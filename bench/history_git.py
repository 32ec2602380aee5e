"""GitPython beside the git binary where a process walks many commits (repo/gitpython.py): the history
audit (`lint`, `garden --check`, the pre-receive gate) of a wiki whose history is N captures (N generated
documents filed by the deterministic planner, one commit each), judged through `Git` (a `git` process per
blob or tree read) and through `LongLivedGit` (GitPython's persistent `cat-file`), each walk in a fresh
process as a hook's is (GitPython's import counted in its walk), alternated, best of `--repeat`; the
walk of the first `--short` commits the same way; and what importing GitPython costs a fresh process.

    .venv/bin/python bench/history_git.py [--n 120] [--repeat 3] [--json out.json]

`walk_threshold_commits` is the import cost over the per-commit saving: the walk length past which
GitPython pays for itself (repo/gitpython.WALK_THRESHOLD is set from it).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capture import git_env, make_documents  # noqa: E402


def _import_cost(repeat: int) -> float:
    """Seconds importing GitPython adds to a fresh interpreter (best of `repeat` each)."""
    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start

    # What GitPython adds to a process that has stigmergy's history audit loaded already (they share
    # subprocess, shutil, ...), which is what a hook or `lint` pays for it.
    base = "import stigmergy.gates.history, stigmergy.repo.gitpython"
    bare = min(run(base) for _ in range(repeat))
    return max(0.0, min(run(base + "; import git") for _ in range(repeat)) - bare)


def _walk(wiki: Path, kind: str, commits: int) -> tuple[float, int]:
    proc = subprocess.run([sys.executable, __file__, "--worker", str(wiki), kind, str(commits)], capture_output=True,
                          text=True, check=True)
    took, found = proc.stdout.split()
    return float(took), int(found)


def worker(wiki: Path, kind: str, commits: int) -> None:
    """One walk in this fresh process: the first `commits` commits, through `kind`'s Git; prints seconds
    (GitPython's import and its reader's start included) and the number of findings."""
    from stigmergy.gates.history import audit_commits
    from stigmergy.repo.git import Git
    from stigmergy.repo.gitpython import LongLivedGit
    from stigmergy.settings import load_settings

    shas = subprocess.run(["git", "rev-list", "--reverse", "HEAD"], cwd=wiki, capture_output=True, text=True,
                          check=True).stdout.split()[:commits]
    settings = load_settings(wiki)
    start = time.perf_counter()
    git = Git(wiki) if kind == "binary" else LongLivedGit(wiki)
    findings = audit_commits(git, shas, settings)
    took = time.perf_counter() - start
    if isinstance(git, LongLivedGit):
        git.close()
    print(took, len(findings))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=120, help="captures in the history")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--repo", type=Path, help="keep the generated wiki here (reused when it exists)")
    ap.add_argument("--short", type=int, default=10, help="commits in the short walk")
    ap.add_argument("--worker", nargs=3, metavar=("WIKI", "KIND", "COMMITS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(Path(args.worker[0]), args.worker[1], int(args.worker[2]))
        return

    out: dict[str, object] = {"captures": args.n, "load_before": Path("/proc/loadavg").read_text().split()[:3]}
    with tempfile.TemporaryDirectory() as tmp:
        wiki, docs = (args.repo or Path(tmp)) / "wiki", Path(tmp) / "docs"
        if not wiki.exists():
            make_documents(docs, args.n)
            env = git_env()
            subprocess.run([sys.executable, "-m", "stigmergy", "init", str(wiki)], env=env, check=True,
                           capture_output=True)
            proc = subprocess.run([sys.executable, "-m", "stigmergy", "-C", str(wiki), "capture", str(docs)], env=env,
                                  capture_output=True, text=True)
            if proc.returncode not in (0, 4):
                raise SystemExit(proc.stderr[-2000:])
        shas = subprocess.run(["git", "rev-list", "--reverse", "HEAD"], cwd=wiki, capture_output=True, text=True,
                              check=True).stdout.split()
        out["commits"] = len(shas)
        for label, count in (("", len(shas)), ("short_", min(args.short, len(shas)))):
            best = {"binary": float("inf"), "gitpython": float("inf")}
            found: dict[str, int] = {}
            for _ in range(args.repeat):
                for name in ("binary", "gitpython"):
                    took, found[name] = _walk(wiki, name, count)
                    best[name] = min(best[name], took)
            if found["binary"] != found["gitpython"]:
                raise SystemExit(f"the two walks disagree: {found}")
            out[f"{label}walk_commits"] = count
            out[f"{label}audit_binary_s"] = round(best["binary"], 3)
            out[f"{label}audit_gitpython_s"] = round(best["gitpython"], 3)
            out[f"{label}ratio_gitpython_vs_binary"] = round(best["gitpython"] / best["binary"], 3)
        out["findings"] = found["binary"]
        best = {"binary": out["audit_binary_s"], "gitpython": out["audit_gitpython_s"]}  # type: ignore[dict-item]
    cost = _import_cost(args.repeat)
    out["import_gitpython_s"] = round(cost, 3)
    saving = (best["binary"] - best["gitpython"] + cost) / max(1, len(shas))  # per commit, import apart
    out["saving_per_commit_ms"] = round(saving * 1000, 2)
    out["walk_threshold_commits"] = round(cost / saving) if saving > 0 else None
    out["load_after"] = Path("/proc/loadavg").read_text().split()[:3]
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
