"""Shared by the retrieval-quality benches (bench/search.py --quality, bench/public_search.py): scoring a
question set per arm configuration under the strict and lenient rules, and the plain BM25 baseline.

The baseline is what a user could build in ten lines: FTS5 bm25 (porter unicode61, one column) over
fixed-size 1,000-character chunks of the same texts, query terms OR-ed with the same stopwords dropped,
a file ranked by its best chunk. It reads the readable text of the captured source pages (the bytes the
index sees), so a PDF or DOCX counts as the same words.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from stigmergy.index.arms import query_terms
from stigmergy.index.search import ARMS
from stigmergy.index.store.sqlite import fts_query as _fts_query

CONFIGS = {
    "lexical": ("lexical",),
    "vector": ("vector",),
    "literal": ("literal",),
    "entity": ("entity",),
    "lexical+graph": ("lexical", "graph"),
    "fused-no-graph": ("lexical", "vector", "literal", "entity"),
    "fused": ARMS,
}
CHUNK_CHARS = 1000


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {"R@1": round(sum(r == 1 for r in ranks) / n, 3),
            "R@5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
            "MRR@10": round(sum(1 / r for r in ranks if r and r <= 10) / n, 3), "n": len(ranks)}


def triple(m: dict[str, float]) -> str:
    """R@1 / R@5 / MRR@10 as the benches and docs print them."""
    return f"{m['R@1']:.3f} / {m['R@5']:.3f} / {m['MRR@10']:.3f}"


class Judge:
    """Which index pages answer a question: `hit(locator, expected)` says whether a source locator is one
    of the expected files; lenient counts any page citing one, strict the source itself or a wiki page
    at least half of whose citations point at expected sources (an entity page citing twenty documents
    does not count)."""

    def __init__(self, conn: Any, hit: Callable[[str, list[str]], bool]) -> None:
        self.hit = hit
        self.source_loc = dict(conn.execute("SELECT path, locator FROM pages WHERE type = 'source'").fetchall())
        self.cites: dict[str, list[str]] = {}
        for path, loc in conn.execute(
                "SELECT p.path, src.locator FROM citations c JOIN pages p ON p.id = c.src "
                "JOIN pages src ON src.path = c.source_path"):
            self.cites.setdefault(path, []).append(loc or "")

    def lenient(self, path: str, expected: list[str]) -> bool:
        if path in self.source_loc:
            return self.hit(self.source_loc[path] or "", expected)
        return any(self.hit(loc, expected) for loc in self.cites.get(path, ()))

    def strict(self, path: str, expected: list[str]) -> bool:
        if path in self.source_loc:
            return self.hit(self.source_loc[path] or "", expected)
        locs = self.cites.get(path, [])
        return bool(locs) and sum(self.hit(loc, expected) for loc in locs) * 2 >= len(locs)


def score_configs(searcher: Any, questions: list[dict], reader: str, judge: Judge,
                  configs: dict[str, tuple[str, ...]] = CONFIGS) -> dict[str, Any]:
    """{config: {"strict": {kind: metrics}, "lenient": {...}}} and each question's fused ranks."""
    report: dict[str, Any] = {}
    misses: list[dict[str, Any]] = []
    for name, arms in configs.items():
        per: dict[str, dict[str, list[int | None]]] = {"strict": {}, "lenient": {}}
        for q in questions:
            hits = searcher.search(q["q"], reader, k=10, arms=arms, check_freshness=False).hits
            for rule, ok in (("strict", judge.strict), ("lenient", judge.lenient)):
                rank = next((i + 1 for i, h in enumerate(hits) if ok(h.path, q["expected"])), None)
                per[rule].setdefault("all", []).append(rank)
                per[rule].setdefault(q.get("kind", "all"), []).append(rank)
                if name == "fused" and rule == "strict" and rank != 1:
                    misses.append({"id": q["id"], "rank": rank, "top": [h.path for h in hits[:3]]})
        report[name] = {rule: {kind: metrics(r) for kind, r in kinds.items()} for rule, kinds in per.items()}
    report["fused_strict_misses"] = misses
    return report


def bm25_baseline(texts: dict[str, str], questions: list[dict], hit: Callable[[str, list[str]], bool],
                  chunk_chars: int = CHUNK_CHARS) -> dict[str, float]:
    """Plain FTS5 BM25 over fixed `chunk_chars` chunks of `texts` (locator -> text); a file's rank is its
    best chunk's."""
    try:
        import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover
        import sqlite3
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE c USING fts5(body, loc UNINDEXED, tokenize='porter unicode61')")
    rows = [(text[i : i + chunk_chars], loc) for loc, text in texts.items() for i in range(0, len(text), chunk_chars)]
    conn.executemany("INSERT INTO c(body, loc) VALUES (?, ?)", rows)
    ranks: list[int | None] = []
    for q in questions:
        terms = query_terms(q["q"])
        files: list[str] = []
        if terms:
            for (loc,) in conn.execute("SELECT loc FROM c WHERE c MATCH ? ORDER BY bm25(c) LIMIT 400", (_fts_query(terms),)):
                if loc not in files:
                    files.append(loc)
        ranks.append(next((i + 1 for i, loc in enumerate(files[:10]) if hit(loc, q["expected"])), None))
    conn.close()
    return {**metrics(ranks), "chunks": len(rows)}


def source_texts(conn: Any, root: Any) -> dict[str, str]:
    """Locator -> the readable text of each captured source page (its body after the `# Title` line)."""
    from stigmergy.pages.frontmatter import split_front_matter

    out: dict[str, str] = {}
    for path, loc in conn.execute("SELECT path, locator FROM pages WHERE type = 'source'"):
        _, body, _ = split_front_matter((root / path).read_text(encoding="utf-8"))
        out[loc or path] = body.split("\n", 2)[-1] if body.startswith("# ") else body
    return out


def summary(name: str, report: dict[str, Any], base: dict[str, float]) -> str:
    """The one line the README quotes."""
    f = report["fused"]
    s, le = f["strict"]["all"], f["lenient"]["all"]
    arms = [a for a in ("lexical", "vector") if a in report]  # `--only fused` scores no single arm
    best_arm = max(arms, key=lambda a: report[a]["strict"]["all"]["MRR@10"]) if arms else "fused"
    b = report[best_arm]["strict"]["all"]
    return (f"{name}: {s['n']} questions; fused strict R@1 {s['R@1']:.3f} R@5 {s['R@5']:.3f} MRR@10 {s['MRR@10']:.3f}"
            f" | lenient {triple(le)} | best single arm ({best_arm}) {triple(b)} | plain BM25 1k-char chunks {triple(base)}")


def overflow(conn: Any, root: Any, window: int = 256) -> dict[str, Any]:
    """The share of fragments whose embedded text (title, heading trail, text) is longer than the model's
    window in word pieces, per page type, and the share of their word pieces the model never sees; plus
    the share with no heading trail. Reads the index and the page files only, so it measures any index."""
    import json as _json

    from tokenizers import Tokenizer

    from stigmergy.index.embedder import resolve_model
    from stigmergy.settings import EmbedderSettings

    tok = Tokenizer.from_file(str(resolve_model(EmbedderSettings()).path / "tokenizer.json"))
    tok.no_truncation()
    per: dict[str, list[int]] = {}
    no_trail: dict[str, int] = {}
    files: dict[str, str] = {}
    rows = conn.execute("SELECT p.path, p.type, p.title, f.trail, f.start_char, f.end_char FROM fragments f "
                        "JOIN pages p ON p.id = f.page").fetchall()
    for path, ptype, title, trail, a, b in rows:
        if path not in files:
            files[path] = (root / path).read_text(encoding="utf-8")
        head = " > ".join(_json.loads(trail))
        text = files[path][a:b]
        embed = f"{title}\n{head}\n{text}" if head else f"{title}\n{text}"
        kind = "source" if ptype == "source" else "wiki"
        per.setdefault(kind, []).append(len(tok.encode(embed).ids))  # with [CLS] and [SEP]
        no_trail[kind] = no_trail.get(kind, 0) + (not head)
    out: dict[str, Any] = {}
    for kind, sizes in sorted(per.items()):
        over = [n for n in sizes if n > window]
        out[kind] = {"fragments": len(sizes), "over_window": round(len(over) / len(sizes), 3),
                     "median_tokens": sorted(sizes)[len(sizes) // 2],
                     "tokens_never_embedded": round(sum(n - window for n in over) / sum(sizes), 3),
                     "no_heading_trail": round(no_trail[kind] / len(sizes), 3)}
    return out


def split_overrides(overrides: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[tuple[Any, str, Any]]]:
    """(settings overrides, (module, constant, value) patches)."""
    import importlib

    settings: dict[str, dict[str, Any]] = {}
    patches = []
    for section, fields in overrides.items():
        for field, value in fields.items():
            if field.isupper():
                module = importlib.import_module(f"stigmergy.index.{section}")
                old = getattr(module, field)
                patches.append((module, field, type(old)(float(value)) if isinstance(old, int | float) else value))
            else:
                settings.setdefault(section, {})[field] = value
    return settings, patches



@contextlib.contextmanager
def patched(patches: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """Module constants set for the duration (search-time ablations), restored after."""
    saved = [(m, f, getattr(m, f)) for m, f, _ in patches]
    for module, field, value in patches:
        setattr(module, field, value)
    try:
        yield
    finally:
        for module, field, value in saved:
            setattr(module, field, value)
