"""The held-out `ask` question sets of issue #19, and the public corpus one of them is written over.

    bench/ask_user_questions.json    users' questions over sample_corpus/ (public reader + board reader)
    bench/ask_public_questions.json  users' questions over pip 25.1.1's documentation (docs/html of the sdist)
    bench/ask_fresh_sample_questions.json, bench/ask_fresh_public_questions.json  the same two corpora, written
                                     blind to the answerer on 3 December 2026 (a fresh held-out measure)
    bench/ask_tune_sample_questions.json, bench/ask_tune_public_questions.json  the same two corpora, written
                                     blind on 3 December 2026 as a calibration set (tune on these, not the rest)
    bench/ask_blind_sample_questions.json, bench/ask_blind_public_questions.json  the same two corpora again, written
                                     blind to the answerer in a second session on 3 December 2026, without reading any
                                     earlier set's questions (a second held-out measure)
    bench/ask_blind2_sample_questions.json, bench/ask_blind2_public_questions.json  the same two corpora, written
                                     blind by helpers on 5 December 2026 (a third held-out measure until the
                                     eighteenth session read its misses)
    bench/ask_blind3_sample_questions.json, bench/ask_blind3_public_questions.json  the same two corpora, written
                                     blind by helpers in the eighteenth session (a fourth held-out measure, never tuned
                                     on; its wrong answers read in the twenty-first session)
    bench/ask_blind4_sample_questions.json, bench/ask_blind4_public_questions.json  the same two corpora, written
                                     blind by helpers in the twenty-first session, every file stating an expected fact
                                     listed as a source (a fifth held-out measure; its misses read in the twenty-second
                                     session, once the fifth pair was written)
    bench/ask_blind5_sample_questions.json, bench/ask_blind5_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-second session, before it changed the
                                     answerer (a sixth held-out measure; its misses read in the twenty-third session,
                                     while the sixth pair was written)
    bench/ask_blind6_sample_questions.json, bench/ask_blind6_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-third session, committed before its
                                     answerer changes (a seventh held-out measure; its misses read in the twenty-fourth
                                     session, once the seventh pair was written)
    bench/ask_blind7_sample_questions.json, bench/ask_blind7_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-fourth session, committed before its
                                     answerer changes (an eighth held-out measure; its misses read in the twenty-fifth
                                     session, once the eighth pair was written)
    bench/ask_blind8_sample_questions.json, bench/ask_blind8_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-fifth session, committed before its
                                     answerer changes (a ninth held-out measure; its misses read in the twenty-sixth
                                     session, once the ninth pair was written)
    bench/ask_blind9_sample_questions.json, bench/ask_blind9_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-sixth session, committed before its
                                     answerer changes (a tenth held-out measure; its misses read in the twenty-seventh
                                     session, once the tenth pair was written)
    bench/ask_blind10_sample_questions.json, bench/ask_blind10_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-seventh session, committed before its
                                     answerer changes (an eleventh held-out measure; its misses read in the
                                     twenty-eighth session, once the eleventh pair was written)
    bench/ask_blind11_sample_questions.json, bench/ask_blind11_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-eighth session, committed before its
                                     answerer changes (a twelfth held-out measure; its misses read in the
                                     twenty-ninth session, once the twelfth pair was written)
    bench/ask_blind12_sample_questions.json, bench/ask_blind12_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the twenty-ninth session, committed before its
                                     answerer changes (a thirteenth held-out measure; its misses read in the
                                     thirtieth session, once the thirteenth pair was written)
    bench/ask_blind13_sample_questions.json, bench/ask_blind13_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirtieth session, committed before its
                                     answerer changes (a fourteenth held-out measure; its misses read in the
                                     thirty-first session, once the fourteenth pair was written)
    bench/ask_blind14_sample_questions.json, bench/ask_blind14_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirty-first session, committed before its
                                     answerer changes (a fifteenth held-out measure; its misses never read)
    bench/ask_blind15_sample_questions.json, bench/ask_blind15_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirty-second session, committed before its
                                     answerer changes (a sixteenth held-out measure; its misses read in the
                                     thirty-fourth session, once the sixteenth pair was written)
    bench/ask_blind16_sample_questions.json, bench/ask_blind16_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirty-fourth session, committed before its
                                     answerer changes (a seventeenth held-out measure; its misses read in the
                                     thirty-seventh session, once the seventeenth pair was written)
    bench/ask_blind17_sample_questions.json, bench/ask_blind17_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirty-seventh session, committed before its
                                     answerer changes (an eighteenth held-out measure; its misses read in the
                                     thirty-eighth session, once the eighteenth pair was written)
    bench/ask_blind18_sample_questions.json, bench/ask_blind18_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirty-eighth session, committed before its
                                     answerer changes (a nineteenth held-out measure; its misses read in the
                                     thirty-ninth session, once the nineteenth pair was written)
    bench/ask_blind19_sample_questions.json, bench/ask_blind19_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the thirty-ninth session, committed before its
                                     answerer changes (a twentieth held-out measure; its misses read in the fortieth
                                     session, once the twentieth pair was written)
    bench/ask_blind20_sample_questions.json, bench/ask_blind20_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the fortieth session, committed before its
                                     answerer changes (a twenty-first held-out measure; its misses read in the
                                     forty-first session, once the twenty-first pair was written)
    bench/ask_blind21_sample_questions.json, bench/ask_blind21_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-first session, committed before its
                                     answerer changes (a twenty-second held-out measure; its misses read in the
                                     forty-second session, once the twenty-second pair was written)
    bench/ask_blind22_sample_questions.json, bench/ask_blind22_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-second session, committed before its
                                     answerer changes (a twenty-third held-out measure; its misses read in the
                                     forty-third session, once the twenty-third pair was written)
    bench/ask_blind23_sample_questions.json, bench/ask_blind23_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-third session, committed before its
                                     answerer changes (a twenty-fourth held-out measure; its misses read in the
                                     forty-fourth session, once the twenty-fourth pair was written)
    bench/ask_blind24_sample_questions.json, bench/ask_blind24_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-fourth session, committed before its
                                     answerer changes (a twenty-fifth held-out measure; its misses read in the
                                     forty-fifth session, once the twenty-fifth pair was written)
    bench/ask_blind25_sample_questions.json, bench/ask_blind25_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-fifth session, committed before its
                                     answerer changes (a twenty-sixth held-out measure; its misses read in the
                                     forty-sixth session, once the twenty-sixth pair was written)
    bench/ask_blind26_sample_questions.json, bench/ask_blind26_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-sixth session, committed before its
                                     answerer changes (a twenty-seventh held-out measure; its misses read in the
                                     forty-seventh session, once the twenty-seventh pair was written)
    bench/ask_blind27_sample_questions.json, bench/ask_blind27_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-seventh session, committed before its
                                     answerer changes (a twenty-eighth held-out measure, never tuned on; counted by
                                     its totals only)
    bench/ask_blind28_sample_questions.json, bench/ask_blind28_public_questions.json  the same two corpora, written
                                     blind by helpers late in the forty-eighth session, after its changes (none
                                     changed a verdict): a twenty-ninth held-out measure, never tuned on
    bench/ask_blind29_sample_questions.json, bench/ask_blind29_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the forty-ninth session, committed before its
                                     answerer changes: a thirtieth held-out measure, its misses read in the fiftieth session
    bench/ask_blind30_sample_questions.json, bench/ask_blind30_public_questions.json  the same two corpora, written
                                     blind by helpers at the start of the fiftieth session, committed before its
                                     answerer changes: a thirty-first held-out measure, never tuned on

The first two were written before the answerer was changed, the fresh, tune and blind pairs without looking at it; all
are frozen. This module loads them, fetches the
public corpus (the ordinary package client, into bench/out/, git-ignored) and checks the sets against
their documents: every `source` exists and every `expect` string of an answerable question is in the
readable text of at least one of its sources (the text `stigmergy capture` keeps, so PDF, DOCX and HTML
count as captured), under the sets' own matching rule (case-insensitive, whitespace collapsed,
thousands separators ignored).

    .venv/bin/python bench/ask_sets.py            # fetch the pip docs if needed, verify every set
    .venv/bin/python bench/ask_sets.py --fetch    # only fetch; prints the docs folder

Capturing the public corpus for a bench run:
    stigmergy capture bench/out/ask-public/pip-25.1.1/docs/html --include '*.md' --include '*.rst' --no-file
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
USER_SET = HERE / "ask_user_questions.json"
PUBLIC_SET = HERE / "ask_public_questions.json"
FRESH_SAMPLE_SET = HERE / "ask_fresh_sample_questions.json"
FRESH_PUBLIC_SET = HERE / "ask_fresh_public_questions.json"
TUNE_SAMPLE_SET = HERE / "ask_tune_sample_questions.json"
TUNE_PUBLIC_SET = HERE / "ask_tune_public_questions.json"
BLIND_SAMPLE_SET = HERE / "ask_blind_sample_questions.json"
BLIND_PUBLIC_SET = HERE / "ask_blind_public_questions.json"
BLIND2_SAMPLE_SET = HERE / "ask_blind2_sample_questions.json"
BLIND2_PUBLIC_SET = HERE / "ask_blind2_public_questions.json"
BLIND3_SAMPLE_SET = HERE / "ask_blind3_sample_questions.json"
BLIND3_PUBLIC_SET = HERE / "ask_blind3_public_questions.json"
BLIND4_SAMPLE_SET = HERE / "ask_blind4_sample_questions.json"
BLIND4_PUBLIC_SET = HERE / "ask_blind4_public_questions.json"
BLIND5_SAMPLE_SET = HERE / "ask_blind5_sample_questions.json"
BLIND5_PUBLIC_SET = HERE / "ask_blind5_public_questions.json"
BLIND6_SAMPLE_SET = HERE / "ask_blind6_sample_questions.json"
BLIND6_PUBLIC_SET = HERE / "ask_blind6_public_questions.json"
BLIND7_SAMPLE_SET = HERE / "ask_blind7_sample_questions.json"
BLIND7_PUBLIC_SET = HERE / "ask_blind7_public_questions.json"
BLIND8_SAMPLE_SET = HERE / "ask_blind8_sample_questions.json"
BLIND8_PUBLIC_SET = HERE / "ask_blind8_public_questions.json"
BLIND9_SAMPLE_SET = HERE / "ask_blind9_sample_questions.json"
BLIND9_PUBLIC_SET = HERE / "ask_blind9_public_questions.json"
BLIND10_SAMPLE_SET = HERE / "ask_blind10_sample_questions.json"
BLIND10_PUBLIC_SET = HERE / "ask_blind10_public_questions.json"
BLIND11_SAMPLE_SET = HERE / "ask_blind11_sample_questions.json"
BLIND11_PUBLIC_SET = HERE / "ask_blind11_public_questions.json"
BLIND12_SAMPLE_SET = HERE / "ask_blind12_sample_questions.json"
BLIND12_PUBLIC_SET = HERE / "ask_blind12_public_questions.json"
BLIND13_SAMPLE_SET = HERE / "ask_blind13_sample_questions.json"
BLIND13_PUBLIC_SET = HERE / "ask_blind13_public_questions.json"
BLIND14_SAMPLE_SET = HERE / "ask_blind14_sample_questions.json"
BLIND14_PUBLIC_SET = HERE / "ask_blind14_public_questions.json"
BLIND15_SAMPLE_SET = HERE / "ask_blind15_sample_questions.json"
BLIND15_PUBLIC_SET = HERE / "ask_blind15_public_questions.json"
BLIND16_SAMPLE_SET = HERE / "ask_blind16_sample_questions.json"
BLIND16_PUBLIC_SET = HERE / "ask_blind16_public_questions.json"
BLIND17_SAMPLE_SET = HERE / "ask_blind17_sample_questions.json"
BLIND17_PUBLIC_SET = HERE / "ask_blind17_public_questions.json"
BLIND18_SAMPLE_SET = HERE / "ask_blind18_sample_questions.json"
BLIND18_PUBLIC_SET = HERE / "ask_blind18_public_questions.json"
BLIND19_SAMPLE_SET = HERE / "ask_blind19_sample_questions.json"
BLIND19_PUBLIC_SET = HERE / "ask_blind19_public_questions.json"
BLIND20_SAMPLE_SET = HERE / "ask_blind20_sample_questions.json"
BLIND20_PUBLIC_SET = HERE / "ask_blind20_public_questions.json"
BLIND21_SAMPLE_SET = HERE / "ask_blind21_sample_questions.json"
BLIND21_PUBLIC_SET = HERE / "ask_blind21_public_questions.json"
BLIND22_SAMPLE_SET = HERE / "ask_blind22_sample_questions.json"
BLIND22_PUBLIC_SET = HERE / "ask_blind22_public_questions.json"
BLIND23_SAMPLE_SET = HERE / "ask_blind23_sample_questions.json"
BLIND23_PUBLIC_SET = HERE / "ask_blind23_public_questions.json"
BLIND24_SAMPLE_SET = HERE / "ask_blind24_sample_questions.json"
BLIND24_PUBLIC_SET = HERE / "ask_blind24_public_questions.json"
BLIND25_SAMPLE_SET = HERE / "ask_blind25_sample_questions.json"
BLIND25_PUBLIC_SET = HERE / "ask_blind25_public_questions.json"
BLIND26_SAMPLE_SET = HERE / "ask_blind26_sample_questions.json"
BLIND26_PUBLIC_SET = HERE / "ask_blind26_public_questions.json"
BLIND27_SAMPLE_SET = HERE / "ask_blind27_sample_questions.json"
BLIND27_PUBLIC_SET = HERE / "ask_blind27_public_questions.json"
BLIND28_SAMPLE_SET = HERE / "ask_blind28_sample_questions.json"
BLIND28_PUBLIC_SET = HERE / "ask_blind28_public_questions.json"
BLIND29_SAMPLE_SET = HERE / "ask_blind29_sample_questions.json"
BLIND29_PUBLIC_SET = HERE / "ask_blind29_public_questions.json"
BLIND30_SAMPLE_SET = HERE / "ask_blind30_sample_questions.json"
BLIND30_PUBLIC_SET = HERE / "ask_blind30_public_questions.json"
SAMPLE_CORPUS = REPO / "sample_corpus"
PUBLIC_PACKAGE = "pip==25.1.1"
PUBLIC_SDIST = "pip-25.1.1.tar.gz"
PUBLIC_DOCS = "pip-25.1.1/docs/html/"
PUBLIC_READER = "someone@example.com"


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def items(spec: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Every question with the reader who asks it: `questions` as the public reader, `restricted` as `as`."""
    return [(q, PUBLIC_READER) for q in spec["questions"]] + [(q, q["as"]) for q in spec.get("restricted", [])]


def norm(text: str) -> str:
    """The sets' matching rule: case-insensitive, whitespace collapsed, thousands separators ignored."""
    return re.sub(r"(?<=\d),(?=\d{3})", "", " ".join(text.casefold().split()))


def fetch_public(out: Path = HERE / "out" / "ask-public") -> Path:
    """pip's sdist via pip, its docs/html/**/*.md and *.rst unpacked under `out` (tarfile's data filter)."""
    out.mkdir(parents=True, exist_ok=True)
    sdist = out / PUBLIC_SDIST
    if not sdist.is_file():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        PUBLIC_PACKAGE, "-d", str(out)], check=True, capture_output=True)
    docs = out / PUBLIC_DOCS
    if not docs.is_dir():
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers()
                       if m.name.startswith(PUBLIC_DOCS) and m.name.endswith((".md", ".rst"))]
            tar.extractall(out, members=members, filter="data")
    return docs


def readable(path: Path) -> str:
    """The text capture keeps of one file (PDF, DOCX and HTML through the capture extractors)."""
    from stigmergy.capture.extract import extract
    from stigmergy.settings import CaptureSettings

    return extract(path.read_bytes(), path.name, CaptureSettings()).text


def verify(spec: dict[str, Any], root: Path) -> list[str]:
    """Problems with one set over its corpus folder `root` (empty when every source and expect checks)."""
    problems: list[str] = []
    seen: set[str] = set()
    texts: dict[str, str] = {}
    for q, _reader in items(spec):
        qid = q["id"]
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if not q.get("answerable"):
            if q.get("expect") is not None or not q.get("why"):
                problems.append(f"{qid}: an unanswerable question needs expect: null and a why")
            continue
        if not q.get("expect") or not q.get("source") or not q.get("kind"):
            problems.append(f"{qid}: an answerable question needs expect, source and kind")
            continue
        for src in q["source"]:
            path = root / src
            if not path.is_file():
                problems.append(f"{qid}: source {src} does not exist")
            elif src not in texts:
                texts[src] = norm(readable(path))
        for e in q["expect"]:
            if not any(norm(e) in texts.get(src, "") for src in q["source"]):
                problems.append(f"{qid}: {e!r} is in none of its sources")
        parts = q.get("parts")
        if parts is not None:
            covered = [e for p in parts if p["covered"] for e in p["expect"]]
            if covered != q["expect"]:
                problems.append(f"{qid}: expect must be the covered parts' strings")
    return problems


def counts(spec: dict[str, Any]) -> dict[str, Any]:
    qs = [q for q, _ in items(spec)]
    by_kind: dict[str, dict[str, int]] = {}
    for q in qs:
        slot = by_kind.setdefault(q["kind"], {"answerable": 0, "unanswerable": 0})
        slot["answerable" if q["answerable"] else "unanswerable"] += 1
    return {"questions": len(qs), "answerable": sum(q["answerable"] for q in qs),
            "unanswerable": sum(not q["answerable"] for q in qs), "by_kind": by_kind}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fetch", action="store_true", help="only fetch the public corpus")
    args = ap.parse_args()
    docs = fetch_public()
    if args.fetch:
        print(docs)
        return
    sys.path.insert(0, str(REPO))
    bad = 0
    for path, root in ((USER_SET, SAMPLE_CORPUS), (PUBLIC_SET, docs),
                       (FRESH_SAMPLE_SET, SAMPLE_CORPUS), (FRESH_PUBLIC_SET, docs),
                       (TUNE_SAMPLE_SET, SAMPLE_CORPUS), (TUNE_PUBLIC_SET, docs),
                       (BLIND_SAMPLE_SET, SAMPLE_CORPUS), (BLIND_PUBLIC_SET, docs),
                       (BLIND2_SAMPLE_SET, SAMPLE_CORPUS), (BLIND2_PUBLIC_SET, docs),
                       (BLIND3_SAMPLE_SET, SAMPLE_CORPUS), (BLIND3_PUBLIC_SET, docs),
                       (BLIND4_SAMPLE_SET, SAMPLE_CORPUS), (BLIND4_PUBLIC_SET, docs),
                       (BLIND5_SAMPLE_SET, SAMPLE_CORPUS), (BLIND5_PUBLIC_SET, docs),
                       (BLIND6_SAMPLE_SET, SAMPLE_CORPUS), (BLIND6_PUBLIC_SET, docs),
                       (BLIND7_SAMPLE_SET, SAMPLE_CORPUS), (BLIND7_PUBLIC_SET, docs),
                       (BLIND8_SAMPLE_SET, SAMPLE_CORPUS), (BLIND8_PUBLIC_SET, docs),
                       (BLIND9_SAMPLE_SET, SAMPLE_CORPUS), (BLIND9_PUBLIC_SET, docs),
                       (BLIND10_SAMPLE_SET, SAMPLE_CORPUS), (BLIND10_PUBLIC_SET, docs),
                       (BLIND11_SAMPLE_SET, SAMPLE_CORPUS), (BLIND11_PUBLIC_SET, docs),
                       (BLIND12_SAMPLE_SET, SAMPLE_CORPUS), (BLIND12_PUBLIC_SET, docs),
                       (BLIND13_SAMPLE_SET, SAMPLE_CORPUS), (BLIND13_PUBLIC_SET, docs),
                       (BLIND14_SAMPLE_SET, SAMPLE_CORPUS), (BLIND14_PUBLIC_SET, docs),
                       (BLIND15_SAMPLE_SET, SAMPLE_CORPUS), (BLIND15_PUBLIC_SET, docs),
                       (BLIND16_SAMPLE_SET, SAMPLE_CORPUS), (BLIND16_PUBLIC_SET, docs),
                       (BLIND17_SAMPLE_SET, SAMPLE_CORPUS), (BLIND17_PUBLIC_SET, docs),
                       (BLIND18_SAMPLE_SET, SAMPLE_CORPUS), (BLIND18_PUBLIC_SET, docs),
                       (BLIND19_SAMPLE_SET, SAMPLE_CORPUS), (BLIND19_PUBLIC_SET, docs),
                       (BLIND20_SAMPLE_SET, SAMPLE_CORPUS), (BLIND20_PUBLIC_SET, docs),
                       (BLIND21_SAMPLE_SET, SAMPLE_CORPUS), (BLIND21_PUBLIC_SET, docs),
                       (BLIND22_SAMPLE_SET, SAMPLE_CORPUS), (BLIND22_PUBLIC_SET, docs),
                       (BLIND23_SAMPLE_SET, SAMPLE_CORPUS), (BLIND23_PUBLIC_SET, docs),
                       (BLIND24_SAMPLE_SET, SAMPLE_CORPUS), (BLIND24_PUBLIC_SET, docs),
                       (BLIND25_SAMPLE_SET, SAMPLE_CORPUS), (BLIND25_PUBLIC_SET, docs),
                       (BLIND26_SAMPLE_SET, SAMPLE_CORPUS), (BLIND26_PUBLIC_SET, docs),
                       (BLIND27_SAMPLE_SET, SAMPLE_CORPUS), (BLIND27_PUBLIC_SET, docs),
                       (BLIND28_SAMPLE_SET, SAMPLE_CORPUS), (BLIND28_PUBLIC_SET, docs),
                       (BLIND29_SAMPLE_SET, SAMPLE_CORPUS), (BLIND29_PUBLIC_SET, docs),
                       (BLIND30_SAMPLE_SET, SAMPLE_CORPUS), (BLIND30_PUBLIC_SET, docs)):
        spec = load(path)
        problems = verify(spec, root)
        bad += len(problems)
        print(json.dumps({"set": path.name, **counts(spec), "problems": problems}, indent=1))
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
