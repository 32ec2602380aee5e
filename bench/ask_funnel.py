"""Where `ask` loses an answerable question, stage by stage, and what a model answerer could reach: counts only.

For each answerable question of the sets, over the wikis `bench/ask.py` left in WORK (`{sample,public}-this`,
indexed by this checkout), with the bench's own judging (every expected string in the line, a citation of an
expected source):

- in evidence: a line the answerer read holds the fact;
- eligible: such a line fills the asked slot and is on topic;
- first: it is the best eligible line (what the deterministic answerer says, before its threshold);
- in the model's lines, `near_best` / `eligible`: it is among the numbered lines a model answerer reads
  (`service.model_lines`) with `[answer] llm_pool` as built, or "eligible" past `llm_floor`. This is a
  model's ceiling, not its figure: what the model makes of the lines needs a model (`bench/ask.py --answerer`).

For each unanswerable question: whether any line reaches the model (which must then say NOT IN THE WIKI).

`--reorder KIND=W` also counts "first" with the eligible lines put in another order, without changing which
questions are answered (the threshold reads the best score as before): `novelty=W` scales a line's score by
1 - W + W x (the share of its words the question does not say), `rank=W` takes W x log(search rank of its page)
from it, `meaning=W` weighs meaning W and words 1 - W. The twentieth session's three, none kept (docs/agents.md).
No question's text is printed: the blind sets are counted here, never read (docs/agents.md, issue 19, nineteenth
pass).

    .venv/bin/python bench/ask.py --sets blind3_sample,blind3_public        # builds the wikis, once
    .venv/bin/python bench/ask_funnel.py --sets blind3_sample,blind3_public [--floor 0.35] [--json out.json]
    .venv/bin/python bench/ask_funnel.py --sets user,blind3_sample --reorder novelty=0.15
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")

STAGES = ("answerable", "in_evidence", "eligible", "first", "near_best", "eligible_pool")
REORDERS = ("novelty", "rank", "meaning")


def reorder_key(kind: str, weight: float, question: str) -> Any:
    """A scored line's sort key (higher first) under `--reorder KIND=WEIGHT`."""
    from stigmergy.answer.terms import STOPWORDS, stems

    said = stems(question)

    def novelty(sc: Any) -> float:
        own = {s for s in stems(sc.line.text) if s not in STOPWORDS and not s.isdigit()}
        return sc.score * (1 - weight + weight * len(own - said) / max(1, len(own)))

    def rank(sc: Any) -> float:
        return float(sc.score - weight * math.log(max(1, sc.line.rank)))

    def meaning(sc: Any) -> float:
        return float((weight * max(sc.meaning, 0.0) + (1 - weight) * sc.words) * sc.fill)

    if kind not in REORDERS:
        raise SystemExit(f"--reorder {kind}: one of {', '.join(REORDERS)}")
    return {"novelty": novelty, "rank": rank, "meaning": meaning}[kind]


def _ask_bench() -> Any:
    """bench/ask.py, loaded by file (the bench folder stays off the path)."""
    spec = importlib.util.spec_from_file_location("bench_ask_for_funnel", HERE / "ask.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def count_set(b: Any, set_name: str, work: Path, floor: float | None, opened: dict[str, Any],
              reorder: tuple[str, float] | None = None) -> dict[str, int]:
    """The stage counts of one set over the captured wiki of its corpus (`opened` keeps a searcher per corpus);
    with `reorder`, also `first_reordered`: the right line first among the eligible lines in that order."""
    from stigmergy.answer.service import analyse, model_lines
    from stigmergy.index.search import Searcher
    from stigmergy.layers import readable_layers
    from stigmergy.settings import load_settings

    file, corpus = b.SETS[set_name]
    root = work / f"{corpus}-this"
    if not (root / ".stigmergy" / "index.sqlite").is_file():
        raise SystemExit(f"{root}: no indexed wiki; run bench/ask.py --sets {set_name} --work {work} first")
    if corpus not in opened:
        settings = load_settings(root)
        opened[corpus] = (settings, Searcher(root, settings), b.Locators(root))
    settings, searcher, loc = opened[corpus]
    wide = settings.answer.llm_floor if floor is None else floor
    spec = json.loads((HERE / file).read_text())
    c = dict.fromkeys((*STAGES, "unanswerable", "unanswerable_near_best", "unanswerable_eligible_pool"), 0)
    if reorder:
        c["first_reordered"] = 0
    for q, reader in b.items_of(spec):
        an = analyse(root, settings, reader, " ".join(q["q"].split()), searcher)
        layers = readable_layers(settings, reader)
        near, _, _ = model_lines(an.parts, an.ev, root, layers, settings.answer.threshold)
        pooled, _, _ = model_lines(an.parts, an.ev, root, layers, settings.answer.threshold, near=False, floor=wide)
        facts = b.expected(q)
        if facts is None:
            c["unanswerable"] += 1
            c["unanswerable_near_best"] += bool(near)
            c["unanswerable_eligible_pool"] += bool(pooled)
            continue
        sources = b.expected_sources(q)

        def right(line: Any, facts: list[str] = facts, sources: list[str] = sources) -> bool:
            return bool(b.line_right(line, facts, sources, loc))

        c["answerable"] += 1
        c["in_evidence"] += any(right(ln) for ln in an.ev.lines)
        eligible = [sc for sc in an.parts[0][2] if sc.eligible] if an.parts else []
        c["eligible"] += any(right(sc.line) for sc in eligible)
        c["first"] += bool(eligible) and right(eligible[0].line)
        if reorder and eligible:
            key = reorder_key(*reorder, an.parts[0][0].text)
            # Ties keep the answerer's own order (max takes the first of equals).
            c["first_reordered"] += right(max(eligible, key=key).line)
        c["near_best"] += any(right(ln) for ln in near)
        c["eligible_pool"] += any(right(ln) for ln in pooled)
    return c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", required=True, help="comma-separated set names of bench/ask.py")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "stigmergy-bench-ask")
    ap.add_argument("--floor", type=float, help="llm_floor for the eligible pool (default: the wiki's setting)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--reorder", help="KIND=WEIGHT: also count the right line first in another order "
                    f"(KIND one of {', '.join(REORDERS)})")
    args = ap.parse_args()
    reorder = None
    if args.reorder:
        kind, _, weight = args.reorder.partition("=")
        try:
            reorder = (kind, float(weight))
        except ValueError:
            raise SystemExit(f"--reorder {args.reorder!r}: KIND=WEIGHT, WEIGHT a number") from None
        reorder_key(*reorder, "")  # an unknown kind fails before any work
    sys.path.insert(0, str(HERE.parent))
    b = _ask_bench()
    opened: dict[str, Any] = {}
    got = {name: count_set(b, name, args.work, args.floor, opened, reorder) for name in args.sets.split(",")}
    for _, searcher, _ in opened.values():
        searcher.close()
    total = {k: sum(c[k] for c in got.values()) for k in next(iter(got.values()))}
    print("| set | answerable | in evidence | eligible | first | in the model's lines: near_best | … eligible "
          "| unanswerable sending lines: near_best / eligible |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, c in [*got.items(), ("total", total)]:
        n = max(1, c["answerable"])
        print(f"| {name} | {c['answerable']} | " + " | ".join(f"{c[k]} ({c[k] / n:.0%})" for k in STAGES[1:])
              + f" | {c['unanswerable_near_best']} / {c['unanswerable_eligible_pool']} of {c['unanswerable']} |")
    if reorder:
        print(f"\nfirst among the eligible, --reorder {args.reorder}: " + ", ".join(
            f"{name} {c['first']} -> {c['first_reordered']}" for name, c in [*got.items(), ("total", total)]))
    if args.json:
        args.json.write_text(json.dumps({"sets": got, "total": total, "floor": args.floor, "reorder": args.reorder},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
