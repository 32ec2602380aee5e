"""Trust from use, measured (docs/trust.md): a simulated stream of reader feedback over the retrieval bench
(bench/questions.json on sample_corpus/, captured as bench/search.py --quality does), and the cost of
confidence at query time.

1. No feedback: every figure of every arm configuration, strict and lenient, and every question's rank,
   beside the same searcher with the trust factors switched off (they must be identical).
2. A feedback stream: for each question the fused search misses at rank 1 (strict) while a right page is in
   the top 10, three readers mark every page ranked above the first right one `wrong` and that right page
   `useful` (`--wrong-rule strict|lenient` spares pages that answer some question of the set by that rule). R@1 / MRR on those (affected) questions before and after, and every figure on the other
   questions (which must move by at most .01). Each passage judgement records the question it was given for
   (`--scope query`, the default: a search hit's control), or none (`--scope none`).
3. Latency, warm: a feedback call, and the next search's re-read of the records (`timings["trust"]`);
   p50 of a warm search with 100,000 pages' feedback on record beside the same search with none
   (interleaved query by query).

    .venv/bin/python bench/feedback.py                 # all of it; bench/out/feedback.json
    .venv/bin/python bench/feedback.py --work DIR      # where sample_corpus/ is captured (kept)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

from retrieval import CONFIGS, Judge, metrics, patched  # noqa: E402
from search import link_cache  # noqa: E402

from stigmergy.index import search as search_mod  # noqa: E402
from stigmergy.index.build import build_index  # noqa: E402
from stigmergy.settings import load_settings  # noqa: E402
from stigmergy.trust.book import TrustBook  # noqa: E402
from stigmergy.trust.records import Record, batch_relpath, render_record  # noqa: E402

READER = "reader@lanternfish.example"
RATERS = ("r1@lanternfish.example", "r2@lanternfish.example", "r3@lanternfish.example")


def prepare(work: Path, cache: Path) -> Path:
    """sample_corpus/ captured into `work` as bench/search.py --quality does (reused when present)."""
    corpus = HERE.parent / "sample_corpus"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b"}

    def cli(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=work, check=True, env=env,
                       capture_output=True)

    if not (work / ".stigmergy" / "captured").exists():
        work.mkdir(parents=True, exist_ok=True)
        cli("init")
        with (work / "stigmergy.toml").open("a") as fh:
            fh.write('\n[layers.board]\nreaders = ["maya@lanternfish.example"]\n')
        cli("capture", str(corpus), "--exclude", "README.md", "--exclude", "_restricted/*")
        cli("capture", str(corpus / "_restricted" / "board"), "--layer", "board", "--as", "maya@lanternfish.example")
        (work / ".stigmergy" / "captured").write_text("ok")
    link_cache(work, cache)
    return work


def ranks(searcher, questions, judge, arms):  # type: ignore[no-untyped-def]
    """{question id: (strict rank, lenient rank, top 10 paths, the passage (fragment) each hit showed)}."""
    out = {}
    for q in questions:
        hits = searcher.search(q["q"], READER, k=10, arms=arms, check_freshness=False).hits
        paths = [h.path for h in hits]
        strict = next((i + 1 for i, p in enumerate(paths) if judge.strict(p, q["expected"])), None)
        lenient = next((i + 1 for i, p in enumerate(paths) if judge.lenient(p, q["expected"])), None)
        out[q["id"]] = (strict, lenient, paths, [h.fragment for h in hits])
    return out


def figures(all_ranks, ids):  # type: ignore[no-untyped-def]
    """{config: {strict|lenient: metrics}} over the questions `ids`."""
    return {cfg: {rule: metrics([r[q][i] for q in ids]) for i, rule in ((0, "strict"), (1, "lenient"))}
            for cfg, r in all_ranks.items()}


def max_delta(a, b) -> float:  # type: ignore[no-untyped-def]
    return max(abs(a[c][r][m] - b[c][r][m]) for c in a for r in a[c] for m in a[c][r])


def all_configs(searcher, questions, judge):  # type: ignore[no-untyped-def]
    return {name: ranks(searcher, questions, judge, arms) for name, arms in CONFIGS.items()}


def trust_off():  # type: ignore[no-untyped-def]
    """The searcher as it was before trust from use: no records read, no factor applied."""
    return patched([(search_mod, "scope_trust", lambda scope: TrustBook()),
                    (search_mod, "confidence_factor", lambda p, s: 1.0),
                    (search_mod, "status_factor", lambda st, s: 1.0)])


def write_stream(root: Path, page_ids: dict[str, tuple[str, str]], wrong: set, useful: set,
                 passages: dict | None = None, asked: dict | None = None) -> int:
    """Three readers' records: on whole pages (`wrong`, `useful`: paths), or, with `passages` ({(path,
    fragment): (first line, text)}), on the passages search showed them (`PATH#n`, as `feedback` records it);
    with `asked` ({(kind, target): [question, ...]}), each judgement records the question it was given for (a
    search hit's control: `feedback PATH#n --query Q`), once per question that showed the passage."""
    from stigmergy.repo.ids import new_id
    from stigmergy.repo.operations import utc_now
    from stigmergy.trust.records import passage_sha

    at = utc_now()
    lines = []
    for kind, targets in (("wrong", wrong), ("useful", useful)):
        for target in sorted(targets):
            path, frag = target if passages is not None else (target, None)
            pid, layer = page_ids[path]
            line, sha = (passages[target][0], passage_sha(passages[target][1])) if passages is not None else (None, None)
            for query in (asked or {}).get((kind, target)) or [None]:
                for by in RATERS:
                    lines.append(render_record(Record(new_id("fb"), at, by, kind, pid, path, layer, line=line,
                                                      line_sha=sha, fragment=frag, query=query)))
    rel = batch_relpath("public", at, new_id("fb"))
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("".join(line + "\n" for line in lines))
    return len(lines)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def big_book(root: Path, n_pages: int, batches: int = 100) -> float:
    """Feedback on `n_pages` pages (two records each) in `batches` batch files; seconds to write them."""
    from stigmergy.repo.ids import new_id

    t = time.perf_counter()
    per = n_pages // batches
    for b in range(batches):
        rel = batch_relpath("public", "2026-11-01T00:00:00Z", new_id("fb"))
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        with (root / rel).open("w") as fh:
            for i in range(b * per, (b + 1) * per):
                pid = f"pg_{i:026d}".replace("0", "1", 1)[:29]
                for kind in ("useful", "wrong"):
                    fh.write(render_record(Record(new_id("fb"), "2026-11-01T00:00:00Z", RATERS[0], kind, pid,
                                                  f"wiki/notes/p{i}.md", "public")) + "\n")
    return time.perf_counter() - t


def latency(root: Path, settings, questions, n: int) -> dict:  # type: ignore[no-untyped-def]
    """A warm service: each feedback call, then the next search (whose `trust` timing is the re-read)."""
    from stigmergy.service import Identity, WikiService

    service = WikiService(root, settings, Identity(READER), {})
    pages = sorted(
        p.relative_to(root).as_posix() for p in (root / "wiki" / "notes").glob("*.md"))
    qs = [q["q"] for q in questions][:n]
    service.search(qs[0])
    record_ms, reread_ms, total_ms = [], [], []
    for i, q in enumerate(qs):
        t = time.perf_counter()
        service.feedback(pages[i % len(pages)], "useful" if i % 2 else "wrong")
        t1 = time.perf_counter()
        found = service.search(q)
        total_ms.append((time.perf_counter() - t) * 1000)
        record_ms.append((t1 - t) * 1000)
        reread_ms.append(found.timings_ms["trust"])
    service.close()
    shutil.rmtree(root / "feedback", ignore_errors=True)
    return {"feedback_call_p50": round(pct(record_ms, 50), 2), "feedback_call_p95": round(pct(record_ms, 95), 2),
            "next_search_reread_p50": round(pct(reread_ms, 50), 2),
            "next_search_reread_p95": round(pct(reread_ms, 95), 2),
            "feedback_plus_next_search_p50": round(pct(total_ms, 50), 2)}


def book_figures(root: Path, s, qs: list[str], pages: int, rounds: int) -> dict:  # type: ignore[no-untyped-def]
    """Feedback on `pages` pages on record: a warm search beside the same search with none, interleaved query
    by query; the difference of the medians, the median of the paired differences, and the trust step's own
    time inside the search."""
    s.search(qs[0], READER, check_freshness=False)  # warm (the model, the index) before any record exists
    out: dict = {"pages": pages, "write_s": round(big_book(root, pages), 2)}
    t = time.perf_counter()
    s.search(qs[0], READER, check_freshness=False)
    out["first_search_fold_s"] = round(time.perf_counter() - t, 2)
    pair: dict[str, list[float]] = {"with_100k": [], "without": []}
    trust_ms: list[float] = []
    for _ in range(rounds):
        for q in qs:
            for label in ("with_100k", "without"):
                ctx = trust_off() if label == "without" else patched([])
                with ctx:
                    t = time.perf_counter()
                    found = s.search(q, READER, check_freshness=False)
                    pair[label].append((time.perf_counter() - t) * 1000)
                if label == "with_100k":
                    trust_ms.append(found.timings_ms["trust"])
    out.update({k: {"p50_ms": round(pct(v, 50), 2), "p95_ms": round(pct(v, 95), 2)} for k, v in pair.items()})
    out["added_p50_ms"] = round(pct(pair["with_100k"], 50) - pct(pair["without"], 50), 2)
    out["paired_delta_p50_ms"] = round(statistics.median(a - b for a, b in zip(pair["with_100k"], pair["without"],
                                                                             strict=True)), 2)
    out["trust_step_p50_ms"] = round(statistics.median(trust_ms), 3)
    shutil.rmtree(root / "feedback", ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "stigmergy-bench-quality")
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--pages", type=int, default=100_000)
    ap.add_argument("--set", action="append", default=[], help="section.key=value settings override (trust.*)")
    ap.add_argument("--wrong-rule", choices=("strict", "lenient", "answer-passage", "none"), default="none",
                    help="a page that answers some question of the set by this rule is never marked wrong; "
                         "answer-passage: a passage some configuration shows as a question's (strict) answer")
    ap.add_argument("--target", choices=("passage", "page"), default="passage",
                    help="readers judge the passage search showed them (PATH#n), or the whole page")
    ap.add_argument("--scope", choices=("query", "none"), default="query",
                    help="passage judgements record the question they were given for (query-scoped), or none")
    ap.add_argument("--stream-only", action="store_true", help="only part 2")
    ap.add_argument("--latency-only", action="store_true", help="only part 3a")
    ap.add_argument("--book-only", action="store_true", help="only part 3b (100k judged pages)")
    ap.add_argument("--rounds", type=int, default=3, help="part 3b: rounds over the queries")
    args = ap.parse_args()
    from stigmergy.index.search import Searcher

    root = prepare(args.work, args.out / "model-cache" / "onnx")
    shutil.rmtree(root / "feedback", ignore_errors=True)
    overrides: dict = {}
    for item in args.set:
        key, _, value = item.partition("=")
        section, _, name = key.partition(".")
        overrides.setdefault(section, {})[name] = value
    settings = load_settings(root, overrides=overrides)
    build_index(root, settings)
    questions = json.loads((HERE / "questions.json").read_text())["questions"]
    s = Searcher(root, settings)
    judge = Judge(s.store.conn, lambda loc, exp: any(loc.endswith("sample_corpus/" + e) for e in exp))
    ids = [q["id"] for q in questions]
    report: dict = {"questions": len(questions), "loadavg_start": open("/proc/loadavg").read().split()[:3],
                    "overrides": overrides, "wrong_rule": args.wrong_rule}

    if args.latency_only:
        report["feedback_latency_ms"] = latency(root, settings, questions, args.queries)
        report["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
        print(json.dumps(report, indent=1))
        return
    if args.book_only:
        report["book"] = book_figures(root, s, [q["q"] for q in questions][: args.queries], args.pages, args.rounds)
        report["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
        print(json.dumps(report, indent=1))
        return
    # 1. No feedback: identical to the searcher without trust.
    on = all_configs(s, questions, judge)
    off = on
    if not args.stream_only:
        with trust_off():
            off = all_configs(s, questions, judge)
    report["no_feedback"] = {
        "max_figure_delta": max_delta(figures(off, ids), figures(on, ids)),
        "questions_with_another_ranking": sum(off[c][q][2] != on[c][q][2] for c in off for q in ids),
        "fused": figures(on, ids)["fused"],
    }

    # 2. The stream: wrong pages above the first right one, that right one useful.
    page_ids = {p: (pid, layer) for p, pid, layer in s.store.conn.execute("SELECT path, page_id, layer FROM pages")}
    wrong: set[str] = set()
    useful: set[str] = set()
    wrong_p: set[tuple[str, int]] = set()
    useful_p: set[tuple[str, int]] = set()
    affected = []
    shown: set[tuple[str, int]] = set()
    asked: dict[tuple[str, tuple[str, int]], list[str]] = {}
    for q in questions:
        strict, _, paths, frags = on["fused"][q["id"]]
        if strict is not None and strict > 1:
            affected.append(q["id"])
            wrong.update(paths[: strict - 1])
            useful.add(paths[strict - 1])
            shown.update(zip(paths[:strict], frags[:strict], strict=True))
            wrong_p.update(zip(paths[: strict - 1], frags[: strict - 1], strict=True))
            useful_p.add((paths[strict - 1], frags[strict - 1]))
            text = " ".join(q["q"].split())[:300]
            for i, t in enumerate(zip(paths[:strict], frags[:strict], strict=True)):
                asked.setdefault(("useful" if i == strict - 1 else "wrong", t), []).append(text)
    # A reader marks wrong a page that is wrong, not one that merely ranked above the answer they wanted:
    # a page that answers any question of the set (lenient rule) is off-topic for this one, never wrong.
    rule = {"strict": judge.strict, "lenient": judge.lenient}.get(args.wrong_rule, lambda p, e: False)
    right = {p for p in page_ids for q in questions if rule(p, q["expected"])}
    # A passage that is the answer to some question of the set is right: a reader of that question would
    # never mark it wrong (passage-level twin of the page rules above).
    answers = {(r[2][r[0] - 1], r[3][r[0] - 1]) for c in on.values() for r in c.values() if r[0] is not None}
    spared = len(wrong & right) if args.wrong_rule != "answer-passage" else len(wrong_p & answers)
    wrong -= right | useful
    wrong_p = {t for t in wrong_p if t[0] not in right and t not in useful_p
               and (args.wrong_rule != "answer-passage" or t not in answers)}
    passages = None
    if args.target == "passage":
        passages = {(path, seq): (start, s.store.fragment_text(fid)) for path, seq in shown
                    for fid, start in s.store.conn.execute(
                        "SELECT f.id, f.start_line FROM fragments f JOIN pages p ON p.id = f.page "
                        "WHERE p.path = ? AND f.seq = ?", (path, seq))}
    scoped = asked if passages is not None and args.scope == "query" else None
    report["stream"] = {"target": args.target, "scope": args.scope if passages is not None else "none",
                        "affected_questions": affected,
                        "pages_marked_wrong": len(wrong) if passages is None else len({p for p, _ in wrong_p}),
                        "passages_marked_wrong": len(wrong_p) if passages is not None else None,
                        "pages_above_the_answer_but_right_elsewhere": spared,
                        "pages_marked_useful": len(useful),
                        "records": write_stream(root, page_ids, wrong_p if passages is not None else wrong,
                                                useful_p if passages is not None else useful, passages, scoped)}
    after = all_configs(s, questions, judge)
    others = [q for q in ids if q not in affected]
    before_f, after_f = figures(on, affected), figures(after, affected)
    report["affected"] = {"before": before_f["fused"], "after": after_f["fused"]}
    report["others"] = {"max_figure_delta": max_delta(figures(on, others), figures(after, others)),
                        "max_delta_per_config": {c: max_delta({c: figures(on, others)[c]}, {c: figures(after, others)[c]})
                                                 for c in CONFIGS},
                        "before": figures(on, others)["fused"], "after": figures(after, others)["fused"]}
    report["all_questions"] = {"before": figures(on, ids)["fused"], "after": figures(after, ids)["fused"]}
    report["others_that_moved"] = [{"config": c, "id": q, "before": on[c][q][:2], "after": after[c][q][:2],
                                    "top_before": list(zip(on[c][q][2][:3], on[c][q][3][:3], strict=True)),
                                    "top_after": list(zip(after[c][q][2][:3], after[c][q][3][:3], strict=True))}
                                   for c in CONFIGS for q in others if on[c][q][:2] != after[c][q][:2]]
    shutil.rmtree(root / "feedback", ignore_errors=True)
    if args.stream_only:
        print(json.dumps(report, indent=1))
        return

    # 3a. A feedback call, and the next search's re-read of the records, warm.
    report["feedback_latency_ms"] = latency(root, settings, questions, args.queries)
    qs = [q["q"] for q in questions][: args.queries]

    # 3b. 100k pages' feedback on record: a warm search beside one with none, interleaved.
    report["book"] = book_figures(root, s, qs, args.pages, args.rounds)
    s.close()
    report["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "feedback.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
