"""`ask`: a question in, a cited answer or an honest refusal out (shape in docs/agents.md).

Scope is the reader's, through the same search and `read_pages` the CLI uses: an answer can only rest on
lines the reader could read themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stigmergy.answer import llm
from stigmergy.answer.evidence import Cite, Evidence, Line, gather
from stigmergy.answer.select import ANSWER_THRESHOLD, Scored, group, select
from stigmergy.answer.terms import Term, question_terms, stems, weigh
from stigmergy.answer.verify import split_cited, unsupported
from stigmergy.errors import UsageError
from stigmergy.index.search import Searcher
from stigmergy.layers import readable_layers
from stigmergy.settings import Settings

MAX_QUESTION_CHARS = 1000
NEAREST = 3
REFUSAL = "the wiki does not say"
LLM_POOL = 12  # evidence lines a model may cite
NOT_IN_WIKI = "NOT IN THE WIKI"


def ask(
    root: Path, settings: Settings, reader: str, question: str, *, evidence: bool = False,
    searcher: Searcher | None = None, env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Answer `question` from the wiki as `reader`; `searcher` is a warm session (the MCP server's)."""
    question = " ".join(question.split())
    if not question:
        raise UsageError("ask needs a question")
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(f"the question is {len(question)} characters; ask takes at most {MAX_QUESTION_CHARS}")
    ep = llm.endpoint(settings, env or {})  # a misconfigured answerer fails before any work
    own = searcher is None
    s = searcher or Searcher(root, settings)
    try:
        found = s.search(question, reader, k=settings.answer.k)
        terms = weigh(s.store, question_terms(question), readable_layers(settings, reader))
    finally:
        if own:
            s.close()
    hits = [h.to_dict() for h in found.hits]
    ev = gather(root, settings, reader, hits)
    out: dict[str, Any] = {
        "question": question, "reader": reader, "index": found.index.to_dict(),
        "answerer": "deterministic" if ep is None else f"{ep.kind}:{ep.model}",
    }
    if ep is None:
        kept, best = select(ev.lines, terms, question)
        sentences = [_sentence(sc.line, sc.line.text, [sc.line], evidence) for grp in group(kept) for sc in grp]
        withheld: list[dict[str, Any]] = []
    else:
        pool, best = select(ev.lines, terms, question, keep_ratio=0.5, max_lines=LLM_POOL)
        sentences, withheld = _llm_sentences(ep, question, pool, evidence) if pool else ([], [])
    out["evidence"] = {"threshold": ANSWER_THRESHOLD, "best": round(best, 4), "lines_considered": len(ev.lines)}
    if not sentences:
        out.update(answered=False, refusal=REFUSAL, sentences=[], contradictions=[], withheld=withheld,
                   nearest=[_nearest(h) for h in hits[:NEAREST]])
        return out
    out.update(answered=True, sentences=sentences, withheld=withheld,
               contradictions=_contradictions(ev, sentences, terms), nearest=[])
    return out


def _sentence(line: Line, text: str, rests_on: list[Line], with_text: bool) -> dict[str, Any]:
    cites: list[Cite] = []
    for ln in rests_on:
        if ln.type != "source":
            cites.append(ln.wiki_cite)
        cites.extend(ln.cites)
    unique = list(dict.fromkeys(cites))
    return {"text": text, "page": line.page, "title": line.title, "type": line.type, "line": line.line,
            "citations": [c.to_dict(with_text) for c in unique]}


def _llm_sentences(ep: llm.Endpoint, question: str, pool: list[Scored], with_text: bool
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    lines = [sc.line for sc in pool]
    prose = llm.complete(ep, question, [ln.text for ln in lines])
    if prose.strip().upper().startswith(NOT_IN_WIKI):
        return [], []
    kept: list[dict[str, Any]] = []
    withheld: list[dict[str, Any]] = []
    for text, nums in split_cited(prose):
        cited = [lines[n - 1] for n in dict.fromkeys(nums) if 1 <= n <= len(lines)]
        if not cited:
            withheld.append({"text": text, "reasons": ["cites no evidence line"]})
            continue
        problems = unsupported(text, "\n".join(ln.support_text() for ln in cited))
        if problems:
            withheld.append({"text": text, "reasons": problems})
            continue
        kept.append(_sentence(cited[0], text, cited, with_text))
    return kept, withheld


def _overlaps(claim: dict[str, Any], cites: set[tuple[str, int, int]]) -> bool:
    return any(p == claim["path"] and a <= claim["end"] and claim["start"] <= b for p, a, b in cites)


def _contradictions(ev: Evidence, sentences: list[dict[str, Any]], terms: list[Term]) -> list[dict[str, Any]]:
    """Open contradictions on the pages read for this answer that touch it: a claim says what an answer
    sentence says, or cites lines the answer cites and is about what the question asks (a question term
    that is not a name or a figure is in its subject or claims). Both claims, both citations, which is later."""
    topic = {t.stem for t in terms if not (t.name or t.figure)}
    cites = {(c["path"], c["lines"][0], c["lines"][1]) for s in sentences for c in s["citations"]}
    said = {" ".join(s["text"].casefold().split()) for s in sentences}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for page in ev.pages:
        for con in page.get("contradictions", []):
            if con["id"] in seen or con.get("status") != "open":
                continue
            claims = con["claims"]
            about = bool(topic & stems(" ".join([con["subject"], *(c["text"] for c in claims)])))
            if not any(" ".join(c["text"].casefold().split()) in said or (about and _overlaps(c, cites))
                       for c in claims):
                continue
            seen.add(con["id"])
            dates = [c["date"] for c in claims]
            later = max(range(len(claims)), key=lambda i: dates[i]) if len(set(dates)) > 1 else None
            out.append({
                "id": con["id"], "page": page["path"], "subject": con["subject"], "explanation": con["explanation"],
                "claims": [{"text": c["text"], "date": c["date"], "citation": {"path": c["path"], "lines": [c["start"], c["end"]]}}
                           for c in claims],
                "later": later,
            })
    return out


def _nearest(hit: dict[str, Any]) -> dict[str, Any]:
    return {"path": hit["path"], "title": hit["title"], "type": hit["type"], "fragment": hit["fragment"],
            "lines": hit["lines"]}
