"""Filing throughput: N generated 2 KB Markdown documents (bench/capture.py's generator) captured and filed
with the deterministic planner by the real `stigmergy capture`, one operation each; then the planner's
context size distribution per capture (from the change records), and the planner + gates time per capture
on the same wiki after 1,000 more entity pages are added (it must not grow with the wiki). For scale, a bare
`git add` + `git commit` loop over the same N documents is timed too (the floor any capture pays).

    .venv/bin/python bench/filing.py [--n 200] [--extra-pages 1000] [--json out.json]

Flat cost (`--team N`): N generated team documents (bench/team_docs.py: the same 12 people, 4 products and
8 customers recur, figures agree across documents, dates over three years) filed by the real `stigmergy
capture`, 200 at a time into one growing wiki; the captures/s of the first 200 against the 200 filed
after the first N, the planner's context/plan/gates milliseconds for both, refusals, and the largest page.

    .venv/bin/python bench/filing.py --team 2000 [--window 200] [--generator team|varied] [--repeats 4] [--json out.json]

`--repeats K` then files the first window K more times into fresh wikis and the window after N K more times
into copies of the wiki as it was after N documents, alternated, and reports the medians beside the run's own
two windows (the README's figures): one window's rate moves by a quarter from run to run on this machine.
`TMPDIR=/dev/shm` files the wikis on tmpfs (the run's command in its results says so): on ext4 the same window
of the same code took from 5.4 to 8.0 CPU-s between rounds, most of it the file writes' system time.

`--generator varied` files bench/varied_docs.py's corpus instead (one busy customer, figures that disagree,
documents of 300 B to 8 KB, repeated titles, technical notes). Each window prints the load average beside
its rate; the result names the longest pages (archives included) and `.git` against a packed clone.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capture import bare_git_loop, git_env, make_documents  # noqa: E402
from results_file import met  # noqa: E402


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def dist(values: list[float]) -> dict[str, float]:
    return {
        "min": min(values), "p50": pct(values, 50), "p90": pct(values, 90), "max": max(values),
        "mean": round(statistics.fmean(values), 1),
    }


def capture_folder(wiki: Path, folder: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "stigmergy", "-C", str(wiki), "--json", "capture", str(folder)],
        env=git_env(), capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"capture failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return time.perf_counter() - start


def records(wiki: Path) -> list[dict]:
    from stigmergy.repo.layout import Layout
    from stigmergy.repo.state import StateDB

    db = StateDB(Layout(wiki).state_db, readonly=True)
    try:
        ops = db.operations(limit=100_000, kind="capture")
    finally:
        db.close()
    return [op.manifest for op in ops if op.manifest.get("planner")]


def add_entity_pages(wiki: Path, n: int) -> None:
    """n entity pages in canonical form, committed as stigmergy would, to grow the wiki without filing."""
    from stigmergy.pages.wiki import WikiPage, new_page_id, render_wiki_page

    src = sorted((wiki / "sources").rglob("*.md"))[0]
    rel_src = src.relative_to(wiki).as_posix()
    line = src.read_text().split("\n").index("## Summary") + 3
    folder = wiki / "wiki" / "entities"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        title = f"Filler Org {i:04d}"
        body = f"# {title}\n\n- Mentioned once. ([source](../../{rel_src}#L{line}))\n"
        page = WikiPage(
            id=new_page_id("2026-01-01T00:00:00Z", title), type="entity", title=title, status="seed",
            created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z", layer="public", body=body,
            sources=(src.stem,), entity_type="organisation", aliases=(f"FO{i:04d}",),
        )
        (folder / f"{title}.md").write_text(render_wiki_page(page), encoding="utf-8")
    env = git_env()
    subprocess.run(["git", "add", "-A", "wiki"], cwd=wiki, check=True, env=env)
    subprocess.run(
        ["git", "commit", "-q", "-m", "bench: filler pages\n\nStigmergy-Operation: op_bench\nStigmergy-Kind: bench"],
        cwd=wiki, check=True, env=env,
    )


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def git_sizes(wiki: Path, work: Path) -> dict:
    """The repository's `.git` as filing left it, beside the same history packed by a fresh clone."""
    clone = work / "packed.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-local", str(wiki), str(clone)], check=True, env=git_env())
    git, packed = _dir_bytes(wiki / ".git"), _dir_bytes(clone)
    loose = sum(1 for p in (wiki / ".git" / "objects").glob("[0-9a-f][0-9a-f]/*"))
    return {"git_bytes": git, "packed_bytes": packed, "ratio_to_packed": round(git / max(packed, 1), 2),
            "loose_objects": loose}


def largest_pages(wiki: Path, k: int = 3) -> list[dict]:
    """The k longest pages (any page, archives included), by lines."""
    sized = []
    for p in (wiki / "wiki").rglob("*.md"):
        sized.append((p.read_text(encoding="utf-8").count("\n"), p.relative_to(wiki).as_posix()))
    return [{"path": path, "lines": lines} for lines, path in sorted(sized, reverse=True)[:k]]


def _readme_rows(command: str, generator: str, n: int, window: int, windows: list[dict], refused: int,
                 largest: dict, git: dict, reruns: dict | None = None) -> list[list[str]]:
    """The README rows of a flat-cost run (scripts/bench_table.py puts them in the README's table). The rate
    figures are the medians of the repeated windows (`_reruns`), with the run's own two windows beside; a
    run made without repeats (`--repeats 0`) has only its own two."""
    first, last = windows[0], windows[-1]
    if reruns is None or len(reruns["runs"]["first"]) < 2:
        reruns = _reruns_of(first, last)
    wall, cpu = reruns["ratio_after_to_first"], reruns["cpu_ratio_after_to_first"]
    mf, ma = reruns["median_first"], reruns["median_after"]
    times = len(reruns["runs"]["first"])
    corpus = {"team": "bench/team_docs.py", "varied": "bench/varied_docs.py"}[generator]
    docs = f"{n + window:,}"
    loads = f"at load {first['load_after'].split()[0]} → {last['load_after'].split()[0]}"
    if times > 1:
        after = (f"after {n:,}: {ma['captures_per_second']} captures/s wall, {ma['captures_per_cpu_second']}/CPU-s "
                 f"(median of {times} filings of that window, alternated with the first's; this run's own: "
                 f"{last['captures_per_second']}/s, {last['captures_per_cpu_second']}/CPU-s); {refused} refused")
        before = (f"first {window}: {mf['captures_per_second']}/s wall, {mf['captures_per_cpu_second']}/CPU-s (median of "
                  f"{times}; this run's own: {first['captures_per_second']}/s, {first['captures_per_cpu_second']}/CPU-s; "
                  f"after/first: {wall:.2f}× wall, {cpu:.2f}× CPU, {loads})")
    else:
        after = (f"after {n:,}: {last['captures_per_second']} captures/s wall, {last['captures_per_cpu_second']}/CPU-s; "
                 f"{refused} refused")
        before = (f"first {window}, same run: {first['captures_per_second']}/s wall, {first['captures_per_cpu_second']}"
                  f"/CPU-s (after/first: {wall:.2f}× wall {loads}, {cpu:.2f}× CPU)")
    return [
        [f"capture + file, {docs} generated documents ({corpus}), {window} per capture process (`{command}`)",
         after, before, f"≥ 0.8× ({met(wall >= 0.8)} wall, {met(cpu >= 0.8)} CPU)"],
        [f"longest page after {docs} documents ({corpus}), archive pages included",
         f"{largest['lines']} lines (`{largest['path'].rsplit('/', 1)[-1]}`)", "", f"≤ 600 ({met(largest['lines'] <= 600)})"],
        [f"`.git` after {docs} captures ({corpus})", f"{git['git_bytes'] / 1e6:.1f} MB",
         f"a packed clone of the same history: {git['packed_bytes'] / 1e6:.1f} MB ({git['ratio_to_packed']}×)",
         f"≤ 3× ({met(git['ratio_to_packed'] <= 3)})"],
    ]


def _file_window(wiki: Path, batch: Path) -> tuple[float, float, int]:
    """One capture process filing `batch` into `wiki`: (wall seconds, CPU seconds, documents refused)."""
    started = time.perf_counter()
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-m", "stigmergy", "-C", str(wiki), "--json", "capture", str(batch)],
        env=git_env(), capture_output=True, text=True,
    )
    if proc.returncode not in (0, 3):
        raise SystemExit(f"capture failed ({proc.returncode}): {proc.stderr[-2000:]}")
    elapsed = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds of the capture process and its git children: on a shared machine the wall rate follows
    # the other load; the CPU a capture costs does not.
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return elapsed, cpu, json.loads(proc.stdout).get("counts", {}).get("refused", 0)


def _reruns(work: Path, n: int, window: int, repeats: int, first: dict, last: dict) -> dict:
    """The first window and the window after n, each filed `repeats` more times, alternated: the first into
    a fresh wiki, the one after n into a copy of the wiki as it was after n documents. On this machine one
    window's rate moved by ±25% from one run of the same code to the next at a load of 1 (the host's, not
    ours), so the first and the last window of one run, minutes apart, gave after/first ratios from 0.44 to
    0.78 for one code; the median of windows filed side by side is what a change can be judged by."""
    runs: dict[str, list[tuple[float, float]]] = {
        "first": [(first["captures_per_second"], first["captures_per_cpu_second"])],
        "after": [(last["captures_per_second"], last["captures_per_cpu_second"])],
    }
    for r in range(repeats):
        for kind in ("first", "after"):
            wiki = work / f"rerun-{kind}-{r}"
            if kind == "first":
                subprocess.run([sys.executable, "-m", "stigmergy", "init", str(wiki)], check=True, env=git_env(),
                               capture_output=True)
                batch = work / "batch-00000"
            else:
                shutil.copytree(work / "wiki-at-n", wiki, symlinks=True)
                # A copy has new inodes: refreshed first, as the original's index had them, so git does not
                # hash every file again inside the timed window.
                subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=wiki, env=git_env(), check=False,
                               capture_output=True)
                batch = work / f"batch-{n:05d}"
            count = sum(1 for p in batch.rglob("*") if p.is_file())
            elapsed, cpu, _ = _file_window(wiki, batch)
            runs[kind].append((round(count / elapsed, 2), round(count / max(cpu, 1e-9), 2)))
            print(f"  again {kind:5s} {r}: {count / elapsed:.2f}/s, {count / max(cpu, 1e-9):.2f}/cpu-s", file=sys.stderr,
                  flush=True)
            shutil.rmtree(wiki)
    return _summary(runs)


def _reruns_of(first: dict, last: dict) -> dict:
    return _summary({"first": [(first["captures_per_second"], first["captures_per_cpu_second"])],
                     "after": [(last["captures_per_second"], last["captures_per_cpu_second"])]})


def _summary(runs: dict[str, list[tuple[float, float]]]) -> dict:
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    return {
        "runs": {k: [{"captures_per_second": w, "captures_per_cpu_second": c} for w, c in v] for k, v in runs.items()},
        "median_first": {"captures_per_second": med["first"][0], "captures_per_cpu_second": med["first"][1]},
        "median_after": {"captures_per_second": med["after"][0], "captures_per_cpu_second": med["after"][1]},
        "ratio_after_to_first": round(med["after"][0] / med["first"][0], 2),
        "cpu_ratio_after_to_first": round(med["after"][1] / med["first"][1], 2),
    }


def team(n: int, window: int, generator: str = "team", repeats: int = 4) -> dict:
    if generator == "varied":
        from varied_docs import make_varied_documents as make
    else:
        from team_docs import make_team_documents as make

    with tempfile.TemporaryDirectory(prefix="stigmergy-bench-team-") as tmp:
        work = Path(tmp)
        made = make(work / "docs", n + window)
        docs = [(d, d.relative_to(work / "docs")) for d in made]
        wiki = work / "wiki"
        subprocess.run([sys.executable, "-m", "stigmergy", "init", str(wiki)], check=True, env=git_env(), capture_output=True)
        windows: list[dict] = []
        refused = 0
        for start in range(0, n + window, window):
            if start == n and repeats:
                # The wiki as it was after n documents: the window after n is filed again into copies of it.
                shutil.copytree(wiki, work / "wiki-at-n", symlinks=True)
            batch = work / f"batch-{start:05d}"
            batch.mkdir()
            for d, rel in docs[start : start + window]:
                (batch / rel).parent.mkdir(parents=True, exist_ok=True)
                d.rename(batch / rel)
            load_before = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
            elapsed, cpu, got = _file_window(wiki, batch)
            load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
            refused += got
            count = len(docs[start : start + window])
            windows.append({"first": start, "last": start + count - 1, "captures_per_second": round(count / elapsed, 2),
                            "captures_per_cpu_second": round(count / max(cpu, 1e-9), 2),
                            "refused": got, "load_before": load_before, "load_after": " ".join(load)})
            print(f"  captures {start:5d}-{start + count - 1:5d}: {count / elapsed:.2f}/s, {count / max(cpu, 1e-9):.2f}"
                  f"/cpu-s (load {' '.join(load)}, "
                  f"largest {largest_pages(wiki, 1)[0]['lines']} lines)", file=sys.stderr, flush=True)
        reruns = _reruns(work, n, window, repeats, windows[0], windows[-1])
        recs = records(wiki)[::-1]  # the state database lists the newest first: the first window is the oldest
        first, last = recs[:window], recs[-window:]

        def split(rs: list[dict]) -> dict:
            return {k: dist([float(r["planner"][k]) for r in rs]) for k in ("context_ms", "plan_ms", "gates_ms", "ms")}

        pages = sorted((p.stat().st_size, p.relative_to(wiki).as_posix()) for p in (wiki / "wiki").rglob("*.md"))
        titles = {p.rsplit("/", 1)[1][:-3] for _, p in pages if "/notes/" not in p}
        archives = [p for _, p in pages if "/notes/" not in p and " (" in p and p.rsplit("/", 1)[1].rsplit(" (", 1)[0] in titles]
        top = largest_pages(wiki)
        first_rate, last_rate = windows[0]["captures_per_second"], windows[-1]["captures_per_second"]
        first_cpu, last_cpu = windows[0]["captures_per_cpu_second"], windows[-1]["captures_per_cpu_second"]
        loads = [float(w["load_after"].split()[0]) for w in windows if w["load_after"]]
        load = f"{min(loads):.1f}–{max(loads):.1f}" if loads else "?"
        git = git_sizes(wiki, work)
        # Where the wikis were filed is part of the run: on tmpfs (`TMPDIR=/dev/shm`) the disk's own time, which moved
        # a window's CPU by a third from round to round on this machine's ext4, is out of the figures.
        place = f"TMPDIR={os.environ['TMPDIR']} " if os.environ.get("TMPDIR") else ""
        command = f"{place}bench/filing.py --team {n} --window {window} --generator {generator} --repeats {repeats}"
        return {
            "bench": command,
            "generator": generator,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "load": load,
            "readme_rows": _readme_rows(command, generator, n, window, windows, refused, top[0], git, reruns),
            "documents": n + window,
            "window": window,
            "captures_per_second_first": first_rate,
            f"captures_per_second_after_{n}": last_rate,
            "ratio_after_to_first": round(last_rate / first_rate, 2),
            "captures_per_cpu_second_first": first_cpu,
            f"captures_per_cpu_second_after_{n}": last_cpu,
            "cpu_ratio_after_to_first": round(last_cpu / first_cpu, 2),
            "repeats": reruns,
            "windows": windows,
            "refused": refused,
            "filing_ms_first": split(first),
            f"filing_ms_after_{n}": split(last),
            "wiki_pages": len(pages),
            "archive_pages": len(archives),
            "largest_page": top[0],
            "largest_pages": top,
            "git": git,
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--team", type=int, default=0, help="flat-cost run over this many generated team documents")
    ap.add_argument("--window", type=int, default=200)
    ap.add_argument("--generator", choices=("team", "varied"), default="team",
                    help="team: bench/team_docs.py; varied: bench/varied_docs.py (a busy customer, disagreeing figures)")
    ap.add_argument("--repeats", type=int, default=4,
                    help="--team: file the first window and the window after N this many more times, alternated")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--extra-pages", type=int, default=1000)
    ap.add_argument("--after", type=int, default=20, help="captures filed after the extra pages are added")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.team:
        text = json.dumps(team(args.team, args.window, args.generator, args.repeats), indent=2)
        print(text)
        if args.json:
            args.json.write_text(text + "\n")
        return
    with tempfile.TemporaryDirectory(prefix="stigmergy-bench-filing-") as tmp:
        work = Path(tmp)
        docs = make_documents(work / "docs", args.n + args.after)
        first, later = work / "first", work / "later"
        first.mkdir()
        later.mkdir()
        for i, d in enumerate(docs):
            d.rename((first if i < args.n else later) / d.name)
        wiki = work / "wiki"
        subprocess.run([sys.executable, "-m", "stigmergy", "init", str(wiki)], check=True, env=git_env(), capture_output=True)
        elapsed = capture_folder(wiki, first)
        bare = bare_git_loop(sorted(first.iterdir()), work)
        recs = records(wiki)
        filed = sum(1 for r in recs if r.get("planner"))
        total = [float(sum(r["planner"]["context"]["bytes"].values())) for r in recs]
        parts = {k: [float(r["planner"]["context"]["bytes"][k]) for r in recs] for k in recs[0]["planner"]["context"]["bytes"]}
        ms = [float(r["planner"]["ms"]) for r in recs]
        split = {k: dist([float(r["planner"][k]) for r in recs]) for k in ("context_ms", "plan_ms", "gates_ms")}
        pages = sum(1 for _ in (wiki / "wiki").rglob("*.md"))
        add_entity_pages(wiki, args.extra_pages)
        elapsed_after = capture_folder(wiki, later)
        recs_after = records(wiki)[: args.after]
        ms_after = [float(r["planner"]["ms"]) for r in recs_after]
        split_after = {k: dist([float(r["planner"][k]) for r in recs_after]) for k in ("context_ms", "plan_ms", "gates_ms")}
        out = {
            "captures": args.n,
            "filed": filed,
            "seconds": round(elapsed, 2),
            "captures_per_second": round(args.n / elapsed, 1),
            "bare_git_loop_per_second": round(args.n / bare, 1),
            "ratio_to_bare_git_loop": round(elapsed / bare, 1),
            "wiki_pages_after": pages,
            "context_bytes_total": dist(total),
            "context_bytes_by_part": {k: dist(v) for k, v in parts.items()},
            "filing_ms": dist(ms),
            "filing_ms_split": split,
            f"filing_ms_with_{args.extra_pages}_more_pages": dist(ms_after),
            f"filing_ms_split_with_{args.extra_pages}_more_pages": split_after,
            "captures_per_second_with_more_pages": round(args.after / elapsed_after, 1),
        }
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
