"""Benchmark the gates: `evaluate` on a plan touching 10 pages, and `lint_repository`, in a 1,000-page wiki.

    .venv/bin/python bench/gates.py [--pages 1000] [--runs 7] [--json bench/results/gates.json]

Builds the wiki (sources, cited pages, wikilinks, a Git history whose commits carry the stigmergy
trailer) in a temporary folder, then prints a small table of medians. With `--json`, the file holds the run's
date, the load average before and after, the medians, and `readme_rows` for the README's generated table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from results_file import load_now, met, write  # noqa: E402

from stigmergy.gates.authorship import Authorship  # noqa: E402
from stigmergy.gates.engine import OperationInfo, evaluate  # noqa: E402
from stigmergy.gates.lint import lint_repository  # noqa: E402
from stigmergy.pages.citations import cite  # noqa: E402
from stigmergy.pages.paths import page_relpath  # noqa: E402
from stigmergy.pages.source import Artifact, SourcePage, render_source_page  # noqa: E402
from stigmergy.pages.wiki import WikiPage, new_page_id, render_wiki_page  # noqa: E402
from stigmergy.plan.schema import CreatePage, Plan, UpdatePage  # noqa: E402
from stigmergy.repo.git import Git  # noqa: E402
from stigmergy.repo.ids import ulid  # noqa: E402
from stigmergy.repo.init import init_repository  # noqa: E402
from stigmergy.repo.layout import source_relpath  # noqa: E402
from stigmergy.repo.operations import commit_message  # noqa: E402
from stigmergy.settings import Settings  # noqa: E402

TS = "2026-03-10T12:00:00Z"
TYPES = ["entity"] * 2 + ["project"] + ["concept"] + ["note"] * 6


def build(root: Path, n_pages: int, n_commits: int) -> tuple[list[str], list[tuple[str, SourcePage]]]:
    init_repository(root)
    git = Git(root)
    sources = []
    for i in range(max(20, n_pages // 5)):
        lines = [f"Item {i}.{k}: Aurora unit {i} shipped {100 + k} widgets in week {k % 52 + 1} of 2026." for k in range(20)]
        page = SourcePage(
            id=f"cap_{ulid(1_773_000_000_000 + i)}", title=f"Report {i}", captured_at=TS, occurred_at="2026-03-01",
            submitted_by="bench@example.com", layer="public", origin="cli", locator=f"r{i}.md",
            artifacts=(Artifact("0" * 64, 1, "text/plain", "0" * 64, "text", "1"),), text="\n".join(lines) + "\n",
        )
        rel = source_relpath("public", TS, page.id)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(render_source_page(page))
        sources.append((rel, page))
    titles = [f"{TYPES[i % len(TYPES)].title()} {i:04d}" for i in range(n_pages)]
    entities = [t for i, t in enumerate(titles) if TYPES[i % len(TYPES)] == "entity"]
    pages = []
    for i, title in enumerate(titles):
        ptype = TYPES[i % len(TYPES)]
        rel = page_relpath(ptype, title, "public")
        ent = entities[(i * 7) % len(entities)]
        lines = [f"# {title}", "", f"Related: [[{ent}]], [[{titles[(i + 1) % n_pages]}]]", ""]
        for k in range(5):
            src_rel, src = sources[(i * 5 + k) % len(sources)]
            idx = (i + k) % 20
            text = src.text.split("\n")[idx]
            lines.append(f"- {text} {cite(rel, src_rel, src.line_of(idx))}")
        body = "\n".join(lines) + "\n"
        page = WikiPage(
            id=new_page_id(TS, rel), type=ptype, title=title, status="seed", created=TS, updated=TS, layer="public",
            body=body, entities=(ent,), entity_type="product" if ptype == "entity" else None,
        ).with_body(body, rel)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(render_wiki_page(page))
        pages.append(rel)
    paths = [s[0] for s in sources] + pages
    chunk = max(1, len(paths) // n_commits)
    for c in range(0, len(paths), chunk):
        git.commit_paths(paths[c : c + chunk], commit_message("capture", f"batch {c}", f"op_{ulid()}"), "stigmergy", "s@l")
    return pages, sources


def plan_for(root: Path, pages: list[str], sources: list) -> Plan:
    src_rel, src = sources[3]
    mutations = []
    for rel in pages[100:108]:
        text = (root / rel).read_text()
        body = text.split("\n---\n", 1)[1]
        extra = src.text.split("\n")[7]
        body = body.rstrip("\n") + f"\n- {extra} {cite(rel, src_rel, src.line_of(7))}\n"
        mutations.append(UpdatePage(rel, body))
    for j in range(2):
        title = f"New note {j}"
        rel = page_relpath("note", title, "public")
        line = src.text.split("\n")[j]
        mutations.append(CreatePage("note", title, f"# {title}\n\n- [[Entity 0000]]: {line} {cite(rel, src_rel, src.line_of(j))}\n"))
    return Plan(tuple(mutations), summary="bench")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--commits", type=int, default=50)
    ap.add_argument("--json", type=Path, help="also write the medians with the README's rows here")
    args = ap.parse_args()
    load_before = load_now()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "kb"
        t0 = time.perf_counter()
        pages, sources = build(root, args.pages, args.commits)
        build_s = time.perf_counter() - t0
        settings = Settings()
        plan = plan_for(root, pages, sources)
        op = OperationInfo("op_bench", "capture", "2026-03-11T09:00:00Z", capture_id=sources[3][1].id)
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            verdict = evaluate(plan, root, settings, op)
            times.append(time.perf_counter() - t)
        assert verdict.ok, verdict.violations
        lint_times = []
        for _ in range(3):
            t = time.perf_counter()
            report = lint_repository(root, settings)
            lint_times.append(time.perf_counter() - t)
        fast, blame = [], []
        for _ in range(args.runs):
            auth = Authorship(root)
            t = time.perf_counter()
            auth.prefetch(pages[100:110])
            for rel in pages[100:110]:
                auth.human_lines(rel)
            fast.append(time.perf_counter() - t)
            auth = Authorship(root)
            t = time.perf_counter()
            auth._blame(pages[100])
            blame.append(time.perf_counter() - t)
        rows = [
            ("build wiki (once)", build_s, f"{len(pages)} pages, {len(sources)} sources, {args.commits} commits"),
            ("evaluate, 10-page plan (median)", statistics.median(times), f"{args.runs} runs, ok={verdict.ok}"),
            ("  evaluate min / max", min(times), f"max {max(times) * 1000:.1f} ms"),
            ("authorship, 10 files, fast path", statistics.median(fast), "status + log, no blame"),
            ("authorship, git blame of 1 file", statistics.median(blame), "the slow path, per file"),
            ("lint_repository (median of 3)", statistics.median(lint_times), f"{len(report.findings)} findings {report.to_dict()['counts']}"),
        ]
        print(f"{'measure':<36} {'ms':>9}  note")
        for name, seconds, note in rows:
            print(f"{name:<36} {seconds * 1000:>9.1f}  {note}")
        if args.json:
            command = "bench/gates.py" + (f" --pages {args.pages}" if args.pages != 1000 else "")
            gate_ms, lint_s = statistics.median(times) * 1000, statistics.median(lint_times)
            write(args.json, command, [load_before, load_now()], [
                    [f"gates, a 10-page plan in a {len(pages):,}-page wiki, median of {args.runs} (`{command}`)",
                     f"{gate_ms:.1f} ms", "", f"< 100 ms ({met(gate_ms < 100)})"],
                    [f"`lint`, {len(pages):,} pages, median of 3 (`{command}`)", f"{lint_s:.2f} s", "",
                     f"< 3 s ({met(lint_s < 3)})"],
                ], {"rows_ms": {name.strip(): round(seconds * 1000, 1) for name, seconds, _ in rows}})


if __name__ == "__main__":
    main()
