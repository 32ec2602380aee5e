"""Which eligible line `ask` should put first, learned from the read question sets: counts only.

`ask` answers with its best eligible line (`select.Scored.score`). The funnel (bench/ask_funnel.py) shows where the
blind sets lose: a line that holds the fact is eligible for many more questions than it comes first for. This tool
dumps, for every answerable question of the sets, the eligible lines' features (`features`) and whether each is
right (the bench's own judge), fits a linear listwise order on some sets (`--train`) and counts, on others
(`--test`), how often the right line comes first in the answerer's order and in the learned one. `--folds` also
holds each training set out in turn (trained on the others), so a gain is seen on sets the weights never saw.
No question's text is printed: a blind set is counted here, never read (docs/agents.md, issue 19). Its result on the
32 read sets (thirty-second pass): held out set by set, the learned order puts the right line first 888 times against
the answerer's own 890, so the answerer keeps its order.

    .venv/bin/python bench/ask_rank.py --dump --sets user,blind3_sample --work /tmp/wikis --out /tmp/rank
    .venv/bin/python bench/ask_rank.py --out /tmp/rank --train user,blind3_sample --test blind14_sample --folds
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")


# A scored line's features, each read from what `select` already computed and the line itself (nothing here embeds
# or searches); relative to the question's eligible lines where a raw value means different things for different
# questions (a score of 0.6 is the best for one question, the tenth for another).
FEATURES = ("score_ratio", "order", "words_gap", "meaning_gap", "fill", "via_context", "said_topic", "page_rank",
            "source_page", "length", "novelty", "table_row", "list_item", "heading_share", "figure", "echoes")
_LIST_RE = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")
_FIGURE_RE = re.compile(r"\d")


def _content(text: str) -> set[str]:
    from stigmergy.answer.terms import STOPWORDS, stems

    return {s for s in stems(text) if s not in STOPWORDS and not s.isdigit()}


def features(part: Any, eligible: Sequence[Any]) -> list[list[float]]:
    """One row of `FEATURES` per eligible line, in the given order."""
    if not eligible:
        return []
    best = max(sc.score for sc in eligible) or 1.0
    top_words = max(sc.words for sc in eligible)
    top_meaning = max(sc.meaning for sc in eligible)
    asked = _content(part.text)
    said = Counter(" ".join(sc.line.text.casefold().split()) for sc in eligible)
    rows = []
    for i, sc in enumerate(eligible):
        line = sc.line
        own = _content(line.text)
        context = _content(" ".join([line.title, *line.headings]))
        rows.append([
            sc.score / best,
            math.log1p(i),
            sc.words - top_words,
            sc.meaning - top_meaning,
            sc.fill,
            float(sc.via_context),
            float(sc.said_topic),
            math.log(max(1, line.rank)),
            float(line.page.startswith("sources/")),
            math.log1p(len(line.text.split())),
            len(own - asked) / max(1, len(own)),
            float(line.raw.lstrip().startswith("|")),
            float(bool(_LIST_RE.match(line.raw))),
            len(asked & context) / max(1, len(asked)),
            float(bool(_FIGURE_RE.search(line.text))),
            math.log(said[" ".join(line.text.casefold().split())]),
        ])
    return rows


def _ask_bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_ask_for_rank", HERE / "ask.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def dump_set(b: Any, set_name: str, work: Path, opened: dict[str, Any]) -> list[dict[str, Any]]:
    """Per answerable question: its eligible lines' feature rows (answerer's order) and which are right."""
    from stigmergy.answer.service import analyse
    from stigmergy.index.search import Searcher
    from stigmergy.settings import load_settings

    file, corpus = b.SETS[set_name]
    root = work / f"{corpus}-this"
    if corpus not in opened:
        settings = load_settings(root)
        opened[corpus] = (settings, Searcher(root, settings), b.Locators(root))
    settings, searcher, loc = opened[corpus]
    spec = json.loads((HERE / file).read_text())
    out = []
    for q, reader in b.items_of(spec):
        facts = b.expected(q)
        if facts is None:
            continue
        an = analyse(root, settings, reader, " ".join(q["q"].split()), searcher)
        if not an.parts:
            out.append({"rows": [], "right": []})
            continue
        part, _, scored = an.parts[0]
        eligible = [sc for sc in scored if sc.eligible]
        sources = b.expected_sources(q)
        right = [bool(b.line_right(sc.line, facts, sources, loc)) for sc in eligible]
        out.append({"rows": features(part, eligible), "right": right})
    return out


def fit(groups: list[dict[str, Any]], l2: float = 0.01, steps: int = 400, lr: float = 0.5) -> np.ndarray:
    """Linear weights maximising the softmax probability of a right line among each question's eligible lines."""
    use = [(np.array(g["rows"], dtype=float), np.array(g["right"], dtype=bool)) for g in groups
           if any(g["right"]) and len(g["right"]) > 1]
    dim = len(use[0][0][0])
    w = np.zeros(dim)
    for _ in range(steps):
        grad = l2 * w
        for x, y in use:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            py = p[y] / p[y].sum()
            grad -= (py @ x[y] - p @ x) / len(use)
        w -= lr * grad
    return w


def firsts(groups: list[dict[str, Any]], w: np.ndarray | None) -> int:
    """How many questions have a right line first: in the answerer's order (w None) or by the weights."""
    n = 0
    for g in groups:
        if not g["rows"]:
            continue
        i = 0 if w is None else int(np.argmax(np.array(g["rows"], dtype=float) @ w))
        n += g["right"][i]
    return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", help="comma-separated set names to dump")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "stigmergy-bench-ask")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--train", help="sets whose dumps the weights are fitted on")
    ap.add_argument("--test", help="sets counted with the fitted weights")
    ap.add_argument("--folds", action="store_true")
    ap.add_argument("--l2", type=float, default=0.01)
    ap.add_argument("--weights", type=Path, help="write the fitted weights here")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE.parent))
    args.out.mkdir(parents=True, exist_ok=True)
    if args.dump:
        b = _ask_bench()
        opened: dict[str, Any] = {}
        for name in args.sets.split(","):
            (args.out / f"{name}.json").write_text(json.dumps(dump_set(b, name, args.work, opened)))
        for _, searcher, _ in opened.values():
            searcher.close()
    if not args.train:
        return
    load = {n: json.loads((args.out / f"{n}.json").read_text()) for n in
            [*args.train.split(","), *(args.test.split(",") if args.test else [])]}
    train = args.train.split(",")
    if args.folds:
        base = got = 0
        for held in train:
            w = fit([g for n in train if n != held for g in load[n]], args.l2)
            a, c = firsts(load[held], None), firsts(load[held], w)
            base, got = base + a, got + c
            print(f"held out {held}: first {a} -> {c} of {sum(1 for g in load[held])}")
        print(f"folds total: first {base} -> {got}")
    w = fit([g for n in train for g in load[n]], args.l2)
    print("weights: " + ", ".join(f"{k} {v:+.3f}" for k, v in zip(FEATURES, w, strict=True)))
    for name in args.test.split(",") if args.test else []:
        print(f"test {name}: first {firsts(load[name], None)} -> {firsts(load[name], w)} of {len(load[name])}")
    if args.weights:
        args.weights.write_text(json.dumps(dict(zip(FEATURES, [round(float(v), 4) for v in w], strict=True)),
                                           indent=1) + "\n")


if __name__ == "__main__":
    main()
