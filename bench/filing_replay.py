"""Replay one filing window on a kept wiki: where a capture's CPU goes after N documents, against a fresh wiki.

`bench/filing.py --team N` files every window again (~10 minutes for 2,000 documents on 2 shared cores) and
keeps nothing. This keeps the wiki: `build` files N generated documents (bench/team_docs.py or
bench/varied_docs.py) window by window into RIG/wiki, and keeps the first window and the window after N as
RIG/batch-first and RIG/batch-after; `replay` then files batch-first into a fresh wiki and batch-after into a
copy of RIG/wiki, with each checkout's python given (its own stigmergy), the checkouts interleaved round by
round, and prints CPU seconds of the capture process and its git children, the git children by subcommand
(a small wrapper, compiled with `cc` when there is one, reads each child's CPU from wait4), and the load.

    .venv/bin/python bench/filing_replay.py build RIG [--n 2000] [--window 100] [--generator team|varied]
    .venv/bin/python bench/filing_replay.py replay RIG --python A/.venv/bin/python [--python B/...] [--split B/...]
        [--rounds 3] [--per-document K] [--json out.json]

`--per-document K` files the first K documents of each batch one process each, as git hooks and cron jobs do:
what a new process reads of the wiki before its first plan then counts per document (`build` leaves in RIG/wiki
what its own processes kept for the next, `.stigmergy/memo/`, and the copies keep it: they keep the files' times).

A copy of the wiki has new inodes and ctimes: the replay refreshes the copy's index first (`update-index
--refresh`, as the original had it) so that git does not hash every file again, and for a `--split` python
splits it (`core.splitIndex`), as that checkout's own commits would have left it.

The copies go under the system's temporary folder: `TMPDIR=/dev/shm` puts them on tmpfs, where a window's CPU is
steadier for an A/B of code (on this machine's ext4 the same code's first window took 5.4 to 8.0 CPU-s from one
round to the next, the file writes' system time; on tmpfs 4.5 to 4.7).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from capture import git_env  # noqa: E402

WRAPPER_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/resource.h>
int main(int argc, char **argv) {
    const char *sub = "?";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "-C")) { i++; continue; }
        if (argv[i][0] == '-') continue;
        sub = argv[i]; break;
    }
    pid_t pid = fork();
    if (pid == 0) { execv(REAL_GIT, argv); _exit(127); }
    int status; struct rusage ru;
    wait4(pid, &status, 0, &ru);
    const char *log = getenv("GITWRAP_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s %.6f\n", sub, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
        fclose(f);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
"""


def _capture(python: str, wiki: Path, batch: Path, env: dict[str, str]) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # -P: `python -m` would put the cwd first on sys.path, so a replay started inside one checkout ran that
    # checkout's stigmergy under every --python given, and both columns measured the same code.
    proc = subprocess.run([python, "-P", "-m", "stigmergy", "-C", str(wiki), "--json", "capture", str(batch)],
                          env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"capture failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, json.loads(proc.stdout).get("counts", {}).get("refused", 0)


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def build(rig: Path, n: int, window: int, generator: str) -> None:
    if generator == "varied":
        from varied_docs import make_varied_documents as make
    else:
        from team_docs import make_team_documents as make
    shutil.rmtree(rig, ignore_errors=True)
    rig.mkdir(parents=True)
    made = make(rig / "docs", n + window)
    docs = [(d, d.relative_to(rig / "docs")) for d in made]

    def batch(name: str, part: list[tuple[Path, Path]]) -> Path:
        out = rig / name
        for d, rel in part:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(d, out / rel)
        return out

    batch("batch-first", docs[:window])
    batch("batch-after", docs[n : n + window])
    wiki = rig / "wiki"
    subprocess.run([sys.executable, "-m", "stigmergy", "init", str(wiki)], check=True, env=git_env(), capture_output=True)
    for start in range(0, n, window):
        folder = batch(f"b{start:05d}", docs[start : start + window])
        cpu, refused = _capture(sys.executable, wiki, folder, git_env())
        print(f"  built {start:5d}-{start + window - 1:5d}: {window / cpu:.2f}/cpu-s, {refused} refused (load {_load()})",
              file=sys.stderr, flush=True)
        shutil.rmtree(folder)


def _wrapper(work: Path) -> Path | None:
    """A `git` that logs each child's CPU; None without a C compiler (then only the totals are printed)."""
    cc, real = shutil.which("cc"), shutil.which("git")
    if cc is None or real is None:
        return None
    folder = work / "gitwrap"
    folder.mkdir(exist_ok=True)
    (folder / "gw.c").write_text(WRAPPER_C)
    made = subprocess.run([cc, "-O2", f'-DREAL_GIT="{real}"', "-o", str(folder / "git"), str(folder / "gw.c")],
                          capture_output=True)
    return folder if made.returncode == 0 else None


def replay_once(rig: Path, python: str, kind: str, work: Path, wrap: Path | None, split: bool,
                per_document: int = 0) -> dict:
    wiki = Path(tempfile.mkdtemp(prefix="replay-", dir=work)) / "wiki"
    env = git_env()
    if kind == "fresh":
        subprocess.run([python, "-P", "-m", "stigmergy", "init", str(wiki)], check=True, env=env, capture_output=True)
        batch = rig / "batch-first"
    else:
        shutil.copytree(rig / "wiki", wiki, symlinks=True)
        pre = ["-c", "core.splitIndex=true"] if split else []
        subprocess.run(["git", *pre, "update-index", "-q", "--refresh"], cwd=wiki, check=True)
        batch = rig / "batch-after"
    log = wiki.parent / "git.log"
    if wrap is not None:
        env = {**env, "PATH": f"{wrap}{os.pathsep}{env.get('PATH', '')}", "GITWRAP_LOG": str(log)}
    if per_document:
        # One `capture` process per document, as a git hook or a cron job files them: what a process pays before
        # its first plan (reading what it keeps of the wiki) counts once per document, not once per window.
        cpu, refused, docs = 0.0, 0, 0
        for doc in sorted(p for p in batch.rglob("*") if p.is_file())[:per_document]:
            one, no = _capture(python, wiki, doc, env)
            cpu, refused, docs = cpu + one, refused + no, docs + 1
    else:
        cpu, refused = _capture(python, wiki, batch, env)
        docs = sum(1 for p in batch.rglob("*") if p.is_file())
    by: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    if log.exists():
        for line in log.read_text().splitlines():
            sub, _, secs = line.rpartition(" ")
            by[sub] += float(secs)
            calls[sub] += 1
    shutil.rmtree(wiki.parent)
    return {"kind": kind, "documents": docs, "cpu": round(cpu, 2), "captures_per_cpu_second": round(docs / cpu, 2), "git": round(sum(by.values()), 2), "refused": refused, "load": _load(),
            "git_by_subcommand": {k: [round(v, 2), calls[k]] for k, v in by.most_common()}}


def _compile(python: str) -> None:
    """Each side's bytecode written before any timing: with PYTHONDONTWRITEBYTECODE set (as on the development
    machine), a checkout made for the comparison compiled every module in every process (~90 ms a process,
    against none for a checkout whose bytecode an install or a test run had written)."""
    where = subprocess.run([python, "-P", "-c", "import os, stigmergy; print(os.path.dirname(stigmergy.__file__))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([python, "-P", "-m", "compileall", "-q", where], capture_output=True, check=False)


def replay(rig: Path, pythons: list[str], rounds: int, split: tuple[str, ...] = (), per_document: int = 0) -> list[dict]:
    out = []
    for python in pythons:
        _compile(python)
    with tempfile.TemporaryDirectory(prefix="stigmergy-replay-") as tmp:
        work = Path(tmp)
        wrap = _wrapper(work)
        for r in range(rounds):
            for python in pythons:
                for kind in ("fresh", "after"):
                    got = replay_once(rig, python, kind, work, wrap, python in split, per_document)
                    got.update({"python": python, "round": r, "per_document": bool(per_document)})
                    out.append(got)
                    top = ", ".join(f"{k} {v[0]:.2f} ({v[1]})" for k, v in list(got["git_by_subcommand"].items())[:4])
                    print(f"  {python} {kind:5s} round {r}: {got['captures_per_cpu_second']:.2f} captures/cpu-s ({got['cpu']} CPU-s, "
                          f"git {got['git']}: {top}; load {got['load']}, {got['refused']} refused)",
                          file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("rig", type=Path)
    b.add_argument("--n", type=int, default=2000)
    b.add_argument("--window", type=int, default=100)
    b.add_argument("--generator", choices=("team", "varied"), default="team")
    r = sub.add_parser("replay")
    r.add_argument("rig", type=Path)
    r.add_argument("--python", action="append", default=[])
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--split", action="append", default=[], help="a --python whose commits split the index")
    r.add_argument("--per-document", type=int, default=0, metavar="K",
                   help="file only the batch's first K documents, each in a capture process of its own")
    r.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.rig, args.n, args.window, args.generator)
        return
    text = json.dumps(replay(args.rig, args.python or [sys.executable], args.rounds, tuple(args.split),
                             args.per_document), indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
