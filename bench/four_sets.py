"""All four question sets in one process, over indexes already built, one line per search-time variant:
fused strict R@1 / R@5 / MRR@10 on Sphinx, pytest, git and the sample set, with the process's CPU seconds
and the load average beside each line, so that every variant is compared with the base in the same run
(docs/index.md, issue 20, fourth pass).

Build the indexes once with the two quality benches (`--work` keeps them):

    .venv/bin/python bench/public_search.py --set sphinx --only fused --work W/sphinx    # and pytest, git
    .venv/bin/python bench/search.py --quality --work W/sample

then score variants over them (NAME=section.CONSTANT=value[,...], a module constant of stigmergy.index.<section>,
as in bench/public_search.py; `base` is always scored first):

    .venv/bin/python bench/four_sets.py --work W --variant off=search.DESCRIBE=0
    .venv/bin/python bench/four_sets.py --work W --misses out.json   # each question's rank and arm ranks
    .venv/bin/python bench/four_sets.py --work W --oracle   # what a reranker must do (issue 20, thirteenth look)

A variant that needs its own index (embedder or index settings) is not for this bench: use public_search.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from corpora import CORPORA  # noqa: E402
from public_search import parse_variant  # noqa: E402
from retrieval import Judge, metrics, patched, split_overrides, triple  # noqa: E402

from stigmergy.index.build import build_index  # noqa: E402
from stigmergy.index.search import Searcher  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402

SETS = ("sphinx", "pytest", "git", "sample")


def open_set(work: Path, name: str) -> tuple[Searcher, list[dict], Judge, str]:
    """The set's searcher over its built index (refusing one that would need embedding: not built yet, or
    built by another model or fragmenting), its questions, its judge and its reader."""
    root = work / "sample" if name == "sample" else work / name / "sources" / "default"
    settings = load_settings(root)
    if build_index(root, settings).fragments_embedded:
        raise SystemExit(f"{root}: the index was not up to date (build it with the quality bench first)")
    s = Searcher(root, settings)
    if name == "sample":
        questions = json.loads((HERE / "questions.json").read_text())["questions"]

        def hit(loc: str, expected: list[str]) -> bool:
            return any(loc.endswith("sample_corpus/" + e) for e in expected)

        return s, questions, Judge(s.store.conn, hit), "reader@lanternfish.example"
    corpus = CORPORA[name]
    return s, corpus.load_questions(), Judge(s.store.conn, corpus.hit), "reader@example.com"


def score(s: Searcher, questions: list[dict], judge: Judge, reader: str) -> tuple[dict[str, float], list[dict]]:
    ranks, rows = [], []
    for q in questions:
        hits = s.search(q["q"], reader, k=50, check_freshness=False).hits
        rank = next((i + 1 for i, h in enumerate(hits) if judge.strict(h.path, q["expected"])), None)
        ranks.append(rank if rank is not None and rank <= 10 else None)
        answer = hits[rank - 1] if rank else None
        rows.append({"id": q["id"], "rank": rank, "answer_arms": answer.arms if answer else None,
                     "top": [(h.path, h.arms) for h in hits[:5]]})
    return metrics(ranks), rows


def oracle(rows: list[dict]) -> dict[str, float]:
    """R@1 and R@5 if an oracle chose, per question and after seeing the answer, the ordering that ranks the
    answering page best: among the fused list and the lexical and vector arms' pages, and among every arm; and
    how many fused firsts no single arm ranks first. Not a bound on every reranker: a new scorer can put first a
    page that no ordering does (docs/index.md, issue 20, thirteenth look)."""
    n = max(1, len(rows))
    out = {"fused_r1": 0.0, "fused_r5": 0.0, "text_r1": 0.0, "text_r5": 0.0, "any_r1": 0.0, "any_r5": 0.0,
           "fused_first_no_arm_first": 0}
    for row in rows:
        arms = {k: v for k, v in (row["answer_arms"] or {}).items() if v}
        fused = row["rank"]
        text = min([r for r in (fused, arms.get("lexical"), arms.get("vector")) if r] or [0]) or None
        best = min([r for r in (fused, *arms.values()) if r] or [0]) or None
        for key, rank in (("fused", fused), ("text", text), ("any", best)):
            out[f"{key}_r1"] += (rank == 1) / n
            out[f"{key}_r5"] += (rank is not None and rank <= 5) / n
        out["fused_first_no_arm_first"] += fused == 1 and all(r != 1 for r in arms.values())
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, required=True, help="folder holding sphinx/, pytest/, git/, sample/")
    ap.add_argument("--variant", action="append", default=[], help="NAME=section.CONSTANT=value,... (repeatable)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--misses", type=Path, help="write each variant's per-question ranks and arm ranks here")
    ap.add_argument("--oracle", action="store_true",
                    help="also print, for the base, R@1 / R@5 with the best ordering chosen per question")
    args = ap.parse_args()
    names = args.sets.split(",")
    opened = {name: open_set(args.work, name) for name in names}
    detail: dict[str, Any] = {}
    print("| variant | " + " | ".join(names) + " | CPU s | load |")
    for name, overrides in [("base", {})] + [parse_variant(v) for v in args.variant]:
        settings, patches = split_overrides(overrides)
        if settings:
            raise SystemExit(f"{name}: settings overrides need their own index (bench/public_search.py)")
        t = time.process_time()
        cells, detail[name] = [], {}
        with patched(patches):
            for set_name, (s, questions, judge, reader) in opened.items():
                m, rows = score(s, questions, judge, reader)
                cells.append(triple(m))
                detail[name][set_name] = rows
        load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
        print(f"| {name} | " + " | ".join(cells) + f" | {time.process_time() - t:.0f} | {load} |", flush=True)
    if args.oracle:
        print("\n| set | fused R@1 / R@5 | best of fused, lexical, vector | best of every arm | fused firsts no arm has first |")
        print("| --- | --- | --- | --- | --- |")
        for set_name, rows in detail["base"].items():
            o = oracle(rows)
            print(f"| {set_name} ({len(rows)}) | {o['fused_r1']:.3f} / {o['fused_r5']:.3f} | {o['text_r1']:.3f} / "
                  f"{o['text_r5']:.3f} | {o['any_r1']:.3f} / {o['any_r5']:.3f} | {o['fused_first_no_arm_first']} |")
    for s, *_ in opened.values():
        s.close()
    if args.misses:
        args.misses.write_text(json.dumps(detail, indent=1))


if __name__ == "__main__":
    main()
