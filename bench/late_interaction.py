"""A second-stage rerank by late interaction, measured over an index a quality bench already built (#20).

For each question, the first `--depth` pages of today's search; each page's shown fragment (its best) is
encoded by the packaged model token by token (title + heading trail + text, what the index embeds), and
scored by MaxSim against the query's tokens (ColBERT's rule: for each query token, its best cosine over the
fragment's tokens, averaged; [CLS] and [SEP] left out). The rerank blends the two stages' min-max normalised
scores over the candidates, (1 - w) x first stage + w x MaxSim, so that a strong first-stage match is not
buried; w = 0 is today's order. Scored strict as the benches score (bench/retrieval.py `Judge`), and timed:
the token encoding of the candidates (what a search would pay without a cache; wall and CPU time, the CPU
figure being the one a loaded machine does not inflate) and the MaxSim itself (what it would pay with the
candidates' token vectors cached by content hash), warm, the query embedder's one thread, per query.

    .venv/bin/python bench/late_interaction.py --set sphinx --root /tmp/i20/sphinx/sources/default
    .venv/bin/python bench/late_interaction.py --set sample --root /tmp/i20/sample
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

from corpora import CORPORA  # noqa: E402
from retrieval import Judge, metrics  # noqa: E402

from stigmergy.index.search import Searcher  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402


def token_vectors(embedder: Any, texts: list[str]) -> list[np.ndarray]:
    """Each text's token embeddings (L2-normalised, special tokens and padding left out)."""
    tok, session = embedder._tok, embedder._session
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in embedder._inputs:
        feeds["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
    hidden = session.run(None, feeds)[0]
    out = []
    for i, e in enumerate(enc):
        keep = [j for j, (m, s) in enumerate(zip(e.attention_mask, e.special_tokens_mask, strict=True)) if m and not s]
        v = hidden[i, keep]
        out.append(v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-12, None))
    return out


def maxsim(q: np.ndarray, d: np.ndarray) -> float:
    return float((q @ d.T).max(axis=1).mean()) if len(q) and len(d) else 0.0


def minmax(values: list[float]) -> list[float]:
    lo, hi = min(values), max(values)
    return [(v - lo) / (hi - lo) if hi - lo > 1e-12 else 1.0 for v in values]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True, choices=[*sorted(CORPORA), "sample"])
    ap.add_argument("--root", type=Path, required=True, help="a captured and indexed repository")
    ap.add_argument("--depth", type=int, default=30)
    ap.add_argument("--weights", default="0,0.1,0.2,0.3,0.5,1")
    args = ap.parse_args()
    if args.set == "sample":
        questions = json.loads((HERE / "questions.json").read_text())["questions"]
        reader = "reader@lanternfish.example"

        def hit(loc: str, expected: list[str]) -> bool:
            return any(loc.endswith("sample_corpus/" + e) for e in expected)
    else:
        corpus = CORPORA[args.set]
        questions, reader, hit = corpus.load_questions(), "reader@example.com", corpus.hit
    weights = [float(w) for w in args.weights.split(",")]
    s = Searcher(args.root, load_settings(args.root))
    judge = Judge(s.store.conn, hit)
    emb = s.embedder
    ranks: dict[float, list[int | None]] = {w: [] for w in weights}
    encode_ms: list[float] = []
    encode_cpu_ms: list[float] = []
    score_ms: list[float] = []
    search_ms: list[float] = []
    for q in questions:
        t = time.perf_counter()
        hits = s.search(q["q"], reader, k=args.depth, check_freshness=False).hits
        search_ms.append((time.perf_counter() - t) * 1000)
        rows = [s.store.conn.execute(
            "SELECT f.id, f.trail FROM fragments f JOIN pages p ON p.id = f.page WHERE p.path = ? AND f.seq = ?",
            (h.path, h.fragment)).fetchone() for h in hits]
        bodies = s.store.fragment_texts([r[0] for r in rows if r])
        texts = []
        for h, r in zip(hits, rows, strict=True):
            trail = " > ".join(json.loads(r[1])) if r and r[1] else ""
            body = bodies.get(r[0], "") if r else ""
            texts.append(f"{h.title}\n{trail}\n{body}" if trail else f"{h.title}\n{body}")
        t, c = time.perf_counter(), time.process_time()
        qv = token_vectors(emb, [q["q"]])[0]
        dv = token_vectors(emb, texts) if texts else []
        t2, c2 = time.perf_counter(), time.process_time()
        late = [maxsim(qv, d) for d in dv]
        t3 = time.perf_counter()
        encode_ms.append((t2 - t) * 1000)
        encode_cpu_ms.append((c2 - c) * 1000)
        score_ms.append((t3 - t2) * 1000)
        first = minmax([h.score for h in hits]) if hits else []
        second = minmax(late) if late else []
        for w in weights:
            order = sorted(range(len(hits)), key=lambda i: -((1 - w) * first[i] + w * second[i]))
            rank = next((n + 1 for n, i in enumerate(order) if judge.strict(hits[i].path, q["expected"])), None)
            ranks[w].append(rank)
    s.close()
    report = {"set": args.set, "depth": args.depth, "questions": len(questions),
              "by_weight": {str(w): metrics(r) for w, r in ranks.items()},
              "search_p50_ms": round(statistics.median(search_ms), 1),
              "encode_candidates_p50_ms": round(statistics.median(encode_ms), 1),
              "encode_candidates_cpu_p50_ms": round(statistics.median(encode_cpu_ms), 1),
              "maxsim_p50_ms": round(statistics.median(score_ms), 2)}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
