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

    .venv/bin/python bench/filing.py --team 2000 [--window 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capture import bare_git_loop, git_env, make_documents  # noqa: E402


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


def team(n: int, window: int) -> dict:
    from team_docs import make_team_documents

    with tempfile.TemporaryDirectory(prefix="stigmergy-bench-team-") as tmp:
        work = Path(tmp)
        docs = make_team_documents(work / "docs", n + window)
        wiki = work / "wiki"
        subprocess.run([sys.executable, "-m", "stigmergy", "init", str(wiki)], check=True, env=git_env(), capture_output=True)
        rates: list[tuple[int, float]] = []
        refused = 0
        for start in range(0, n + window, window):
            batch = work / f"batch-{start:05d}"
            batch.mkdir()
            for d in docs[start : start + window]:
                d.rename(batch / d.name)
            started = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "stigmergy", "-C", str(wiki), "--json", "capture", str(batch)],
                env=git_env(), capture_output=True, text=True,
            )
            if proc.returncode not in (0, 3):
                raise SystemExit(f"capture failed ({proc.returncode}): {proc.stderr[-2000:]}")
            elapsed = time.perf_counter() - started
            refused += json.loads(proc.stdout).get("counts", {}).get("refused", 0)
            rates.append((start, len(docs[start : start + window]) / elapsed))
            print(f"  captures {start:5d}-{start + window - 1:5d}: {rates[-1][1]:.2f}/s", file=sys.stderr, flush=True)
        recs = records(wiki)
        first, last = recs[:window], recs[-window:]

        def split(rs: list[dict]) -> dict:
            return {k: dist([float(r["planner"][k]) for r in rs]) for k in ("context_ms", "plan_ms", "gates_ms", "ms")}

        pages = sorted((p.stat().st_size, p.relative_to(wiki).as_posix()) for p in (wiki / "wiki").rglob("*.md"))
        largest = pages[-1]
        titles = {p.rsplit("/", 1)[1][:-3] for _, p in pages if "/notes/" not in p}
        archives = [p for _, p in pages if "/notes/" not in p and p[-11:-9] == " (" and p.rsplit("/", 1)[1][:-10] in titles]
        return {
            "documents": n + window,
            "window": window,
            "captures_per_second_first": round(rates[0][1], 2),
            f"captures_per_second_after_{n}": round(rates[-1][1], 2),
            "ratio_after_to_first": round(rates[-1][1] / rates[0][1], 2),
            "captures_per_second_by_window": [round(r, 2) for _, r in rates],
            "refused": refused,
            "filing_ms_first": split(first),
            f"filing_ms_after_{n}": split(last),
            "wiki_pages": len(pages),
            "archive_pages": len(archives),
            "largest_page": {"path": largest[1], "bytes": largest[0],
                             "lines": (wiki / largest[1]).read_text(encoding="utf-8").count("\n")},
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--team", type=int, default=0, help="flat-cost run over this many generated team documents")
    ap.add_argument("--window", type=int, default=200)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--extra-pages", type=int, default=1000)
    ap.add_argument("--after", type=int, default=20, help="captures filed after the extra pages are added")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.team:
        text = json.dumps(team(args.team, args.window), indent=2)
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
