"""A paragraph-sized vector arm beside today's search, emulated from two indexes of the same captures (issue 20,
ninth look): the index as built (windows of 256 word pieces) and one built with windows of 128 (the length
all-MiniLM-L6-v2 was trained on). Each question is searched in both; the second index contributes only its
vector arm's page ranks, added to the first's fused order as one more reciprocal-rank arm of weight W:

    score(page) = 1 / (k + fused rank in the index as built) + W / (k + vector rank in the 128 index)

This is what an index holding a second, shorter vector per window would do if the passage vectors only found
and lifted candidates and the windows kept ranking them. `--rerank` scores the smaller build instead: each of the
50 pages the index as built returns gets its best cosine with the query over its own short passages (read exactly
from the short index's stored vectors), and its rank among the 50 by that cosine takes the vector rank's place.
Nothing in stigmergy search uses either yet.

Build the two indexes per set with the quality bench, then score a grid of W and k on the whole sets and on
the calibration and held-out halves (sha256(set/id) even: calibration, as bench/ask.py's `split()`):

    .venv/bin/python bench/public_search.py --set SET --only fused --work W/SET                 # as built
    .venv/bin/python bench/public_search.py --set SET --only fused --work W/SET \\
        --variant w128=index.fragment_tokens=128 --no-default                                  # W/SET/sources/w128
    .venv/bin/python bench/passage_arm.py --work W [--sets sphinx,pytest,git] [--short w128:128] [--rerank]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from corpora import CORPORA  # noqa: E402
from retrieval import Judge, metrics, triple  # noqa: E402

from stigmergy.index.search import Searcher  # noqa: E402
from stigmergy.index.session import index_fingerprint, scope_embedder  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402

READER = "reader@example.com"
Ranked = list[tuple[str, bool, int | None]]  # (page path, answers the question, its vector arm rank)


def _searcher(work: Path, name: str, variant: str, tokens: int | None) -> Searcher:
    root = work / name / "sources" / variant
    if not (root / ".stigmergy").exists():
        raise SystemExit(f"{root}: build it first (see this file's docstring)")
    settings = load_settings(root, overrides={"index": {"fragment_tokens": tokens}}) if tokens else load_settings(root)
    return Searcher(root, settings)


def runs(work: Path, name: str, short: str, tokens: int) -> tuple[list[str], list[Ranked], list[Ranked]]:
    """Question ids, and per question the first 50 pages of each index (as built, then the short one)."""
    corpus = CORPORA[name]
    questions = corpus.load_questions()
    out: list[list[Ranked]] = []
    for variant, size in (("default", None), (short, tokens)):
        searcher = _searcher(work, name, variant, size)
        judge = Judge(searcher.store.conn, corpus.hit)
        lists = []
        for q in questions:
            hits = searcher.search(q["q"], READER, k=50, check_freshness=False).hits
            lists.append([(h.path, judge.strict(h.path, q["expected"]), (h.arms or {}).get("vector")) for h in hits])
        out.append(lists)
    return [q["id"] for q in questions], out[0], out[1]


def reranked(work: Path, name: str, short: str, tokens: int) -> tuple[list[str], list[Ranked], list[Ranked]]:
    """As `runs`, but the second list is the first's 50 pages, each ranked among them by its best cosine with the
    query over its own passages in the short index."""
    corpus = CORPORA[name]
    questions = corpus.load_questions()
    base = _searcher(work, name, "default", None)
    passages = _searcher(work, name, short, tokens)
    judge = Judge(base.store.conn, corpus.hit)
    fingerprint = index_fingerprint(passages.scope)
    embedder = scope_embedder(base.scope)
    first: list[Ranked] = []
    second: list[Ranked] = []
    for q in questions:
        hits = base.search(q["q"], READER, k=50, check_freshness=False).hits
        qvec = embedder.embed([q["q"]])[0]
        best: dict[str, float] = {}
        for h in hits:
            ids = [r[0] for r in passages.store.conn.execute(
                "SELECT f.id FROM fragments f JOIN pages p ON p.id = f.page WHERE p.path = ?", (h.path,))]
            vectors = passages.store.fragment_vectors(ids, fingerprint)
            best[h.path] = max((float(v @ qvec) for v in vectors.values()), default=-1.0)
        ranked = sorted(best, key=lambda p: (-best[p], p))
        first.append([(h.path, judge.strict(h.path, q["expected"]), None) for h in hits])
        second.append([(p, judge.strict(p, q["expected"]), i + 1) for i, p in enumerate(ranked)])
    return [q["id"] for q in questions], first, second


def half(name: str, qid: str) -> str:
    return "calibrate" if int(hashlib.sha256(f"{name}/{qid}".encode()).hexdigest(), 16) % 2 == 0 else "held_out"


def combined(base: Ranked, short: Ranked, weight: float, k: int) -> int | None:
    """The answer's rank (≤ 10) once the 128 index's vector ranks are added to the built index's order."""
    score: dict[str, float] = {}
    good: dict[str, bool] = {}
    for i, (path, ok, _) in enumerate(base):
        score[path] = score.get(path, 0.0) + 1.0 / (k + i + 1)
        good[path] = ok
    for path, ok, vrank in short:
        if vrank:
            score[path] = score.get(path, 0.0) + weight / (k + vrank)
            good.setdefault(path, ok)
    order = sorted(score, key=lambda p: (-score[p], p))
    rank = next((i + 1 for i, p in enumerate(order) if good[p]), None)
    return rank if rank is not None and rank <= 10 else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--sets", default="sphinx,pytest,git")
    ap.add_argument("--weights", default="0,0.1,0.2,0.3,0.4")
    ap.add_argument("--k", default="30,60,100")
    ap.add_argument("--short", default="w128:128", help="the short index's variant name and window, NAME:TOKENS")
    ap.add_argument("--rerank", action="store_true", help="the passages rerank the first index's 50 pages")
    args = ap.parse_args()
    short, _, tokens = args.short.partition(":")
    sets = args.sets.split(",")
    source = reranked if args.rerank else runs
    data = {name: source(args.work, name, short, int(tokens)) for name in sets}
    print("| part | W | k | " + " | ".join(sets) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in sets) + " |")
    for part in ("all", "calibrate", "held_out"):
        for weight in (float(w) for w in args.weights.split(",")):
            for k in (int(x) for x in args.k.split(",")):
                cells = []
                for name in sets:
                    ids, base, short = data[name]
                    ranks = [combined(b, s, weight, k) for qid, b, s in zip(ids, base, short, strict=True)
                             if part == "all" or half(name, qid) == part]
                    m = metrics(ranks)
                    cells.append(triple(m))
                print(f"| {part} | {weight:g} | {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
