"""`ask`: a question in, a cited answer or an honest refusal out (shape in docs/agents.md).

Scope is the reader's, through the same search and `read_pages` the CLI uses: an answer can only rest on
lines the reader could read themselves.

question -> parts, each with its slot (question.py) -> hybrid search -> evidence lines (evidence.py) ->
each line scored per part by meaning and words and checked for the slot (select.py, slots.py) -> later
and final beat earlier and draft (supersede.py) -> sentences with citations (compose.py), or, with an LLM
answerer, the same slot-filling lines numbered for the model and its sentences verified (llm.py, verify.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from stigmergy.answer import files, llm, platforms
from stigmergy.answer.asides import claimed, motive, without_motive
from stigmergy.answer.asked_slot import Slot
from stigmergy.answer.casing import truecase
from stigmergy.answer.compose import readable, sentence
from stigmergy.answer.corroborate import also_said, corroborating
from stigmergy.answer.evidence import RUNNERS, Cite, Evidence, Line, follow_on, gather, said_before
from stigmergy.answer.lead_in import example_after, items_after, ways_lead_in
from stigmergy.answer.meaning import LineVectors
from stigmergy.answer.most import asks_most, top_row
from stigmergy.answer.names import Names, load, words
from stigmergy.answer.pronouns import resolved, topic_carried
from stigmergy.answer.question import Part, parts
from stigmergy.answer.select import Scored, best, pool, said_anywhere, score_part
from stigmergy.answer.supersede import decide
from stigmergy.answer.terms import (
    STOPWORDS,
    Term,
    fold,
    jargon,
    month_index,
    question_terms,
    stem,
    stems,
    weigh,
)
from stigmergy.answer.values import asked
from stigmergy.answer.verify import split_cited, unsupported
from stigmergy.answer.vocabulary import known_words
from stigmergy.errors import ConfigError, UsageError
from stigmergy.index.search import Searcher
from stigmergy.index.session import index_fingerprint
from stigmergy.layers import readable_layers
from stigmergy.settings import Settings

MAX_QUESTION_CHARS = 1000
NEAREST = 3
REFUSAL = "the wiki does not say"
LLM_POOL = 12  # evidence lines a model may cite
LLM_POOLS = ("near_best", "eligible")  # `[answer] llm_pool` (settings.AnswerSettings)
NOT_IN_WIKI = "NOT IN THE WIKI"
_WHY_NOT = {
    "person": "names no person or organisation the question does not", "org": "names no organisation",
    "place": "names no place", "project": "names no project", "product": "names no product",
    "thing": "does not say which", "date": "holds no date the question does not", "reason": "gives no reason",
    "quantity": "holds no figure of the asked kind", "definition": "does not say what it is",
    "procedure": "does not say how", "value": "adds nothing to the question", "yesno": "",
    "alias": "gives it no other name",
    "role": "names no post they hold",
}


@dataclass
class Analysis:
    """Everything the answerers decide from: the search, the evidence, the names, and each part's lines
    scored (best first)."""

    found: Any
    hits: list[dict[str, Any]]
    ev: Evidence
    names: Names
    parts: list[tuple[Part, list[Term], list[Scored]]]
    embedded: int


def analyse(root: Path, settings: Settings, reader: str, question: str, s: Searcher) -> Analysis:
    """Search, gather the evidence and score every line for every part of `question` (the bench's view of
    an answer, too)."""
    layers = readable_layers(settings, reader)
    found = s.search(question, reader, k=settings.answer.k, runners=RUNNERS)
    hits = [h.to_dict() for h in found.hits]
    ev = gather(root, settings, reader, hits, store=s.store,
                also=[f"{h.path}#{n}" for h in found.hits for n in h.runners])
    names = load(s.store, layers)
    # "what exit code on resolutionimpossible": an identifier read as the evidence (the reader's lines) writes it
    question = truecase(question, (ln.text for ln in ev.lines))
    asked_parts = topic_carried([resolved(p, names) for p in parts(question)], names)
    vectors = LineVectors(s.store, index_fingerprint(s.scope), s.embedder) if ev.lines else None
    # what the question asks, without the asker's motive after it (asides.motive), is what its meaning is
    qvecs = s.embedder.embed([without_motive(p.text) for p in asked_parts]) if ev.lines else None
    scored_parts: list[tuple[Part, list[Term], list[Scored]]] = []
    known = known_words(settings)
    systems = platforms.named(question)
    # A file the question names is named on the page that answers (files.py): the other pages' lines are not read.
    asked_files = files.named(question)
    naming = files.pages_naming(asked_files, ev.pages, root) if asked_files else frozenset()
    lines = tuple(ln for ln in ev.lines if ln.page in naming) if asked_files else ev.lines
    first: list[Term] = []
    for i, part in enumerate(asked_parts):
        terms = weigh(s.store, _named(question_terms(part.text), part.text, names), layers)
        terms = claimed(_spelled(jargon(terms, known), ev.lines) if part.slot.kind == "yesno" else terms, part.text,
                        part.slot.kind)
        terms = motive(_instances(terms, ev.lines), part.text)
        terms = first_constraints(_asked_again(terms, first), first, ev.lines) if i else terms
        terms = _about(terms, part.carried)
        terms = [*terms, *commands(part.text, terms, ev.lines)]
        first = first or terms
        q = asked(part.text, names, frozenset(t.stem for t in terms if t.everywhere))
        scored = score_part(lines, part, terms, names, q, vectors,
                            qvecs[i] if qvecs is not None else None, systems) if _names_something(terms) and not (
            _quoted_unsaid(part.text, part.slot, ev.lines)) else []
        scored_parts.append((part, terms, scored))
    return Analysis(found, hits, ev, names, scored_parts, vectors.embedded if vectors is not None else 0)


# A list of short choices, comma-separated: "ignore, wipe, backup, abort".
_CHOICES_RE = re.compile(r"\s*[\w()-]+(?: [\w()-]+)?(?:\s*,\s*[\w()-]+(?: [\w()-]+)?){2,}\s*")
# What a quoted phrase is called ("the 'backup was not restored' message"), and what introduces an example of the
# asker's own ("requirement strings like 'foo>=1.0'")
_QUOTE_KINDS = frozenset("message notice error warning phrase line text output prompt wording".split())
_EXAMPLE_BEFORE_RE = re.compile(r"\b(?:like|e\.g\.?|eg|such as|say)\s*$", re.I)
# Words the asker quotes ("the 'a new release of pip is available' notice"): a message or a phrase, three words or more.
_QUOTED_RE = re.compile(r"(?<!\w)['‘\"“]([^'‘’\"“”]{8,160}?)['’\"”](?!\w)")


def _quoted_unsaid(text: str, slot: Slot, lines: tuple[Line, ...]) -> bool:
    """The part quotes a phrase that no line of the evidence writes ("env var to shut up the 'a new release of pip is
    available' notice?" over docs that never print that notice): the wiki does not speak of what is asked about, and
    no line about its other words answers. Not where the part asks what a word outside the quote means ("people keep
    saying 'pin your versions' - what does pinning mean here"): the quote is where the asker met the word."""
    # (a list of choices, "(i)gnore, (w)ipe, (b)ackup, (a)bort", is no phrase: the docs describe each on its own)
    # (nor is an example of the asker's own, "requirement strings like 'foo>=1.0; python_version<3.8'")
    quoted = [" ".join(words(m.group(1))) for m in _QUOTED_RE.finditer(text) if not _CHOICES_RE.fullmatch(m.group(1))
              and not _EXAMPLE_BEFORE_RE.search(text[: m.start()])]
    quoted = [p for p in quoted if len(p.split()) >= 3]
    if not quoted:
        return False
    # (the quote's own kind is no such word: "what does the 'backup was not restored' message mean")
    meant = [w for w in words(slot.subject) if w not in STOPWORDS and w not in _QUOTE_KINDS] if (
        slot.kind == "definition") else []
    if meant and not any(w in p.split() for w in meant for p in quoted):
        return False
    said = [" ".join(words(ln.text)) for ln in lines]
    return any(not any(p in s for s in said) for p in quoted)


def _spelled(terms: list[Term], lines: tuple[Line, ...]) -> list[Term]:
    """An acronym typed in capitals that the evidence spells out ("GA": "generally available") is a thing the wiki
    knows, said by the asker as context ("do beta users have to rotate their keys now that 1.0 is GA?"), not the
    thing a line must name; one the evidence never says ("NTLM") stays a constraint (terms.jargon)."""
    return [replace(t, proper=False) if t.proper and t.name and t.absent and said_anywhere(t, lines) else t
            for t in terms]


# An environment variable's name ("PIP_NO_CACHE_DIR"): its prefix, which a page's placeholder writes
# ("PIP_<UPPER_LONG_NAME>")
_VARIABLE_NAME_RE = re.compile(r"([A-Z][A-Z0-9]*)_[A-Z0-9_]+")


def _instances(terms: list[Term], lines: tuple[Line, ...]) -> list[Term]:
    """A variable the asker names that no line of the evidence writes, of a kind a page writes as a pattern ("i exported
    PIP_NO_CACHE_DIR= empty": "settings are given as environment variables of the format `PIP_<UPPER_LONG_NAME>`"):
    one instance of what the docs speak of in general ("Environment variables set to an empty string … will not be
    treated as false"), not a name a line must say."""
    asked = {t.word: m.group(1) for t in terms if t.proper and (m := _VARIABLE_NAME_RE.fullmatch(t.word))}
    if not asked:
        return terms
    written = {w for w, prefix in asked.items() if any(f"{prefix}_<" in ln.text for ln in lines)
               and not any(w in ln.text for ln in lines)}
    return [replace(t, proper=False) if t.word in written else t for t in terms]


def _names_something(terms: list[Term]) -> bool:
    """A question made only of figures and months ("£14.5k?", "in october?") names nothing to look for: the honest
    answer is a refusal, not the line nearest a figure (it was "Revenue is £2.36M, not £2.41M")."""
    return any(not t.figure and month_index(t.word) is None for t in terms)


def commands(text: str, terms: list[Term], lines: tuple[Line, ...]) -> list[Term]:
    """A command the question types with its subcommand ("if i run *pip cache remove* numpy"), as the evidence writes
    it: the wiki's own subject word (on a third of the reader's fragments: "pip") and the two words after it, said
    together by some line. A line that does not say it is about another command ("pip cache purge")."""
    subject = {t.word.casefold() for t in terms if t.everywhere}
    if not subject:
        return []
    found = list(re.finditer(r"[\w.-]+", text.casefold()))
    toks = [m.group(0) for m in found]
    out = []
    for i in range(len(toks) - 2):
        if toks[i] not in subject or not all(w.isalpha() and w not in STOPWORDS for w in toks[i + 1 : i + 3]):
            continue
        # "`pip install x` then `pip install y`", "a plain pip install path/", "pip install git+…@main": the third word
        # is what the asker passes (a placeholder letter, a path, a URL), not a subcommand the line must write
        if len(toks[i + 2]) == 1 or text[found[i + 2].end() : found[i + 2].end() + 1] in ("+", "/", "@", "[", "="):
            continue
        phrase = " ".join(toks[i : i + 3])
        # typed as a command: at a line's start, after a prompt or in code ("the pip config file" is prose)
        typed = re.compile(r"(?:^|[`$>]\s*)" + re.escape(phrase) + r"\b")
        if any(typed.search(" ".join(fold(line.text).split())) for line in lines):
            out.append(Term(phrase, phrase, False, True))
    return out


def _asked_again(terms: list[Term], first: list[Term]) -> list[Term]:
    """A later part that says only another period ("norrland excursions per 1000 shipments, what was it in q2 and what
    in q3") asks the first part's question of that period: the first part's words and figures, less its periods."""
    if _names_something(terms):
        return terms
    have = {t.stem for t in terms}
    return [*terms, *(t for t in first if t.stem not in have and not t.period and month_index(t.word) is None)]


def first_constraints(terms: list[Term], first: list[Term], lines: tuple[Line, ...]) -> list[Term]:
    """A later part that names nothing of its own ("we going for a series B? when do talks start?") asks about
    what the first part names; where no line of the evidence says one of the first part's figures or rare names,
    the wiki does not know that thing, and this part is about it too: it becomes this part's constraint, or any
    line about talks that start answers it. (A name the evidence does say is left to the first part: "when do
    the v0 endpoints go, and do beta keys need rotating?" is answered by a line about the keys that does not
    repeat "v0".)"""
    if any(t.constraint for t in terms):
        return terms
    have = {t.stem for t in terms}
    unknown = [t for t in first if t.constraint and t.stem not in have and not said_anywhere(t, lines)]
    return [*terms, *unknown]


ABOUT_WORDS = 3


def _about(terms: list[Term], carried: str) -> list[Term]:
    """ "dependency groups: how do i install one, and which pip version first supported that?": the second part is
    about what its pronoun stands for, and a line that does not speak of it ("pip 20.3 was the last version of pip
    that supported Python 2") answers another question; its rare words are the part's constraints."""
    # A subject of a few words; a longer one is a clause ("PEP brought in ensurepip"), not a thing
    about = stems(carried) if carried and len(carried.split()) <= ABOUT_WORDS else frozenset()
    return [replace(t, proper=True) if t.stem in about and not (t.figure or t.everywhere) else t for t in terms]


def _named(terms: list[Term], text: str, names: Names) -> list[Term]:
    """A question word that is a word of an entity's name the question says ("leeds", "norrland") is a
    proper name however it is typed."""
    said = {stem(w) for _, _, e in names.found(text) for n in e.names for w in n.split()}
    return [replace(t, name=True, proper=True) if t.stem in said and not t.figure else t for t in terms]


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
    if settings.answer.llm_pool not in LLM_POOLS:
        raise ConfigError(f"unknown [answer] llm_pool {settings.answer.llm_pool!r}", hint=" | ".join(LLM_POOLS))
    own = searcher is None
    s = searcher or Searcher(root, settings)
    layers = readable_layers(settings, reader)
    try:
        an = analyse(root, settings, reader, question, s)
    finally:
        if own:
            s.close()
    ev, names, scored_parts, hits = an.ev, an.names, an.parts, an.hits
    out: dict[str, Any] = {
        "question": question, "reader": reader, "index": an.found.index.to_dict(),
        "answerer": "deterministic" if ep is None else f"{ep.kind}:{ep.model}",
    }
    top = max((best(sc) for _, _, sc in scored_parts), default=0.0)
    threshold = settings.answer.threshold
    out["evidence"] = {"threshold": threshold, "best": round(top, 4), "lines_considered": len(ev.lines),
                       "lines_embedded": an.embedded}
    all_terms = [t for _, terms, _ in scored_parts for t in terms]
    if ep is None:
        sentences, superseded, report = _deterministic(scored_parts, ev, names, root, layers, evidence, threshold)
        withheld: list[dict[str, Any]] = []
    else:
        sentences, superseded, withheld, report = _llm_answer(
            ep, question, scored_parts, ev, root, layers, evidence, threshold,
            near=settings.answer.llm_pool == "near_best", floor=settings.answer.llm_floor)
    uncovered = [r["question"] for r in report if not r["answered"]]
    out["parts"] = report
    if not sentences:
        out.update(answered=False, refusal=REFUSAL, sentences=[], contradictions=[], withheld=withheld,
                   superseded=[], uncovered=uncovered, nearest=[_nearest(h) for h in hits[:NEAREST]],
                   nearest_lines=_nearest_lines(scored_parts, evidence), trust={"pages": [], "caution": None})
        return out
    out.update(answered=True, sentences=sentences, withheld=withheld, superseded=superseded, uncovered=uncovered,
               contradictions=_contradictions(ev, sentences, all_terms), nearest=[], nearest_lines=[])
    out["trust"] = _trust(hits, {str(s.get("page")) for s in sentences})
    return out


# Tiers an answer warns about: a reader should know when what they are told rests on a page that readers
# judged wrong, or that has gone stale (docs/trust.md).
CAUTION_TIERS = ("LOW", "STALE")


def _trust(hits: list[dict[str, Any]], used: set[str]) -> dict[str, Any]:
    """The tier of every page the answer's sentences come from, and a caution when one is LOW or STALE."""
    pages = [{"path": h["path"], "page_id": h.get("page_id"), **{k: h["trust"][k] for k in ("tier", "status", "confidence")}}
             for h in hits if h["path"] in used and h.get("trust")]
    weak = [p["path"] for p in pages if p["tier"] in CAUTION_TIERS]
    caution = (f"this answer rests on {len(weak)} page(s) of LOW or STALE confidence: {', '.join(weak)}"
               if weak else None)
    return {"pages": pages, "caution": caution}


OTHER_PART_MARGIN = 0.03


WHOLE_MARGIN = 0.005  # a line that says all the best line says and more, scored this near it, is the answer
# A second line of the best line's own section scoring at least this share of it is said beside it (`_beside`).
NEAR_TIE = 0.7


def _whole(top: Scored, scored: list[Scored], taken: set[str]) -> Scored:
    """ "Is 15 September still the date?": a page's paragraph ("General availability on 22 September. Oliver has
    confirmed the date with the customers told 15 September.") scored level with another page's copy of its last
    sentence says what the sentence says and what it leaves out; the paragraph answers."""
    key = _key(top.line.text)
    return next((sc for sc in scored if sc.eligible and sc.score >= top.score - WHOLE_MARGIN and key in _key(
        sc.line.text) and len(_key(sc.line.text)) > len(key) and _key(sc.line.text) not in taken), top)


def _beside(top: Scored, scored: list[Scored], taken: set[str]) -> Scored | None:
    """The other line of the best line's section that answers nearly as well, said after it. A section's topic
    sentence and the sentence that holds its value often score within a few points of each other ("In practice the
    `egg` fragment is only required to help pip determine the VCS clone location in editable mode." after "In all
    other circumstances, the `egg` fragment is not necessary"): words and meaning cannot tell which of the two
    answers, and a reader of the section reads both. Only an eligible line of the same page and heading trail scoring
    at least `NEAR_TIE` of the best (which is past the threshold), neither holding the best line's words nor held in
    them, and not said for another part; measured on every question set (docs/agents.md, thirty-second pass)."""
    page, trail, key = top.line.page, top.line.headings, _key(top.line.text)
    return next((sc for sc in scored if sc.eligible and sc.score >= NEAR_TIE * top.score
                 and sc.line.page == page and sc.line.headings == trail and _key(sc.line.text) != key
                 and key not in _key(sc.line.text) and _key(sc.line.text) not in key
                 and _key(sc.line.text) not in taken), None)


def _deterministic(scored_parts: list[tuple[Part, list[Term], list[Scored]]], ev: Evidence, names: Names,
                   root: Path, layers: tuple[str, ...], with_text: bool, threshold: float
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    sentences: list[dict[str, Any]] = []
    superseded: list[dict[str, Any]] = []
    report: list[dict[str, Any]] = []
    said: set[str] = set()
    used: dict[tuple[str, str], set[str]] = {}  # the lines earlier parts took, by the kind of value they asked
    for part, _, scored in scored_parts:
        # "How many levels are there, and how many did they suggest?": a second part asking for the same kind
        # of value asks for another value, so it takes another line.
        taken = used.setdefault((part.slot.kind, part.slot.unit), set())
        top = next((sc for sc in scored if sc.eligible and _key(sc.line.text) not in taken), None)
        earlier = set().union(*used.values())
        if top is not None and _key(top.line.text) in earlier:
            # "where does my per-user config live, and what env var points pip at another file?": a part asking for
            # something else that the line an earlier part took only nearly answers as well as another line is
            # asking for that other line
            other = next((sc for sc in scored if sc.eligible and _key(sc.line.text) not in earlier), None)
            if other is not None and other.score >= max(threshold, top.score - OTHER_PART_MARGIN):
                top = other
        if top is not None:
            top = _whole(top, scored, taken)
        ok = top is not None and top.score >= threshold
        if top is not None and ok and asks_most(part.text, part.slot.kind):
            row = top_row(top.line, ev.lines, part.text)
            top = replace(top, line=row, via_context=False) if row is not None else top
        if top is not None and ok:
            taken.add(_key(top.line.text))
        entry: dict[str, Any] = {"question": part.text, "asks": part.slot.kind, "answered": False, "sentences": [],
                                 "best": round(top.score, 4) if top else 0.0}
        report.append(entry)
        if top is None or not ok:
            continue
        decision = decide(top, scored, ev.lines, ev.contradictions, root, layers, part.slot.kind, part.text)
        q = asked(part.text, names)
        lost = {_key(s["text"]) for s in decision.superseded}
        # (not beside a line an earlier part said: the other-part margin has already weighed the lines beside it)
        beside = (_beside(top, scored, taken)
                  if decision.lines == [top.line] and _key(top.line.text) not in earlier else None)
        if beside is not None:
            taken.add(_key(beside.line.text))
        for n, line in enumerate([*decision.lines, *([beside.line] if beside is not None else [])]):
            via = top.via_context if line is top.line else False
            lead = ways_lead_in(line, ev.lines) if n == 0 and part.slot.kind == "procedure" else None
            steps = part.slot.kind == "procedure"
            if lead is not None and _key(lead.text) not in said:
                # the lead-in of a list of ways says every way (or, past eight, what follows it)
                line, then = lead, items_after(lead, ev.lines) or follow_on(lead, ev.lines, steps=steps)
            else:
                then = follow_on(line, ev.lines, part.slot.kind == "reason", steps) or items_after(line, ev.lines) or (
                    example_after(line, ev.lines) if part.slot.kind in ("procedure", "value") else None)
            made = sentence(line, part.slot, via, names, q, root, layers, with_text,
                            then if then is not None and _key(then.text) not in said else None,
                            said_before(line, ev.lines))
            if n == 0 and not via:
                # The other sources that state the same value are cited with it (answer/corroborate.py); a claim
                # the decision set aside is never one of them.
                agree = corroborating(line, top, [sc for sc in scored if _key(sc.line.text) not in lost],
                                      part.slot, names, q, threshold)
                more = [c.to_dict(with_text) for ln in agree for c in ln.cites]
                made["citations"] += [c for c in more if c not in made["citations"]]
                if agree:
                    made["also"] = also_said(agree)
            key = " ".join(made["text"].casefold().split())
            # a sentence an earlier one already says, whole or within it (the line before a ruling, said with it
            # as its context: "The zip application is currently experimental. … should not be used in production")
            within = said_within(key, sentences)
            if within is not None:
                entry["sentences"].append(within)
                continue
            said.add(key)
            entry["sentences"].append(len(sentences))
            sentences.append(made)
        for sup in decision.superseded:
            sup["by"] = entry["sentences"][0] if entry["sentences"] else None
            if not with_text:
                for c in sup["citations"]:
                    c.pop("text", None)
            superseded.append(sup)
        entry["answered"] = bool(entry["sentences"])
    return sentences, superseded, report


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def said_within(key: str, sentences: list[dict[str, Any]]) -> int | None:
    """The first of `sentences` that says `key` (a sentence's `_key`), whole or as whole words within it."""
    return next((i for i, s in enumerate(sentences) if f" {key} " in f" {_key(s['text'])} "), None)


def model_lines(scored_parts: list[tuple[Part, list[Term], list[Scored]]], ev: Evidence, root: Path,
                layers: tuple[str, ...], threshold: float, near: bool = True, floor: float = 0.0
                ) -> tuple[list[Line], list[dict[str, Any]], list[dict[str, Any]]]:
    """The numbered lines a model answerer reads (at most LLM_POOL), the claims they supersede, and each part's
    report: per part, its pool (`[answer] llm_pool`: the eligible lines near the best past `threshold`, or the
    best eligible lines past `floor`), later and final claims in place of the ones they supersede, and the
    sentence that goes on from a chosen line. bench/ask_funnel.py counts what these lines hold."""
    lines: list[Line] = []
    superseded: list[dict[str, Any]] = []
    report = []
    for part, _, scored in scored_parts:
        got = pool(scored, LLM_POOL, threshold) if near else pool(scored, LLM_POOL, floor, near=False)
        report.append({"question": part.text, "asks": part.slot.kind, "answered": bool(got), "sentences": [],
                       "best": round(best(scored), 4)})
        if got:
            decision = decide(got[0], scored, ev.lines, ev.contradictions, root, layers, part.slot.kind, part.text)
            superseded.extend(decision.superseded)
            lost = {" ".join(s["text"].casefold().split()) for s in decision.superseded}
            goes_on = [then for then in (follow_on(ln, ev.lines) for ln in decision.lines) if then is not None]
            for ln in [*decision.lines, *goes_on, *(sc.line for sc in got[1:])]:
                if ln not in lines and " ".join(ln.text.casefold().split()) not in lost:
                    lines.append(ln)
    return lines[:LLM_POOL], superseded, report


def _llm_answer(ep: llm.Endpoint, question: str, scored_parts: list[tuple[Part, list[Term], list[Scored]]],
                ev: Evidence, root: Path, layers: tuple[str, ...], with_text: bool, threshold: float,
                near: bool = True, floor: float = 0.0
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The model writes over the lines that fill each part's slot (`model_lines`); the verifier keeps what they
    support."""
    lines, superseded, report = model_lines(scored_parts, ev, root, layers, threshold, near, floor)
    if not lines:
        return [], [], [], report
    prose = llm.complete(ep, question, [readable(ln) for ln in lines])
    if prose.strip().upper().startswith(NOT_IN_WIKI):
        return [], [], [], [{**r, "answered": False} for r in report]
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
        kept.append(_llm_sentence(cited[0], text, cited, with_text))
    if not with_text:
        for sup in superseded:
            for c in sup["citations"]:
                c.pop("text", None)
    return kept, (superseded if kept else []), withheld, report


def _llm_sentence(line: Line, text: str, rests_on: list[Line], with_text: bool) -> dict[str, Any]:
    cites: list[Cite] = []
    for ln in rests_on:
        if ln.type != "source":
            cites.append(ln.wiki_cite)
        cites.extend(ln.cites)
    unique = list(dict.fromkeys(cites))
    return {"text": text, "page": line.page, "title": line.title, "type": line.type, "line": line.line,
            "citations": [c.to_dict(with_text) for c in unique]}


def _nearest_lines(scored_parts: list[tuple[Part, list[Term], list[Scored]]], with_text: bool
                   ) -> list[dict[str, Any]]:
    """The lines that came closest, and why each does not answer: the refusal's reading list."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    by_text: dict[str, dict[str, Any]] = {}
    for part, _, scored in scored_parts:
        ranked = sorted(scored, key=lambda sc: (-(0.5 * max(sc.meaning, 0.0) + 0.5 * sc.words), sc.line.rank))
        for sc in ranked[:NEAREST]:
            if (sc.line.page, sc.line.line) in seen:
                continue
            seen.add((sc.line.page, sc.line.line))
            cites = [sc.line.wiki_cite] if sc.line.type != "source" else []
            cites.extend(sc.line.cites)
            cited = [c.to_dict(with_text) for c in dict.fromkeys(cites)]
            text = readable(sc.line)
            # A wiki line that quotes its source says what the source line says: one entry, with both places.
            same = by_text.get(" ".join(text.casefold().split()))
            if same is not None:
                same["citations"].extend(c for c in cited if c not in same["citations"])
                continue
            why = (_WHY_NOT.get(part.slot.kind, "") if sc.fill == 0 else
                   "off the question's topic" if not sc.on_topic else "too far from the question")
            entry = {"text": text, "page": sc.line.page, "line": sc.line.line, "why": why, "citations": cited}
            by_text[" ".join(text.casefold().split())] = entry
            out.append(entry)
    return out[:NEAREST * max(1, len(scored_parts))]


def _overlaps(claim: dict[str, Any], cites: set[tuple[str, int, int]]) -> bool:
    return any(p == claim["path"] and a <= claim["end"] and claim["start"] <= b for p, a, b in cites)


def _contradictions(ev: Evidence, sentences: list[dict[str, Any]], terms: list[Term]) -> list[dict[str, Any]]:
    """Open contradictions on the pages read for this answer that touch it: a claim says what an answer
    sentence says, or cites lines the answer cites and is about what the question asks (a question term
    that is not a name or a figure is in its subject or claims). Both claims, both citations, which is later."""
    topic = {t.stem for t in terms if not (t.name or t.figure)}
    cites = {(c["path"], c["lines"][0], c["lines"][1]) for s in sentences for c in s["citations"]}
    said = {" ".join(s["text"].casefold().rstrip(".").split()) for s in sentences}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for page in ev.pages:
        for con in page.get("contradictions", []):
            if con["id"] in seen or con.get("status") != "open":
                continue
            claims = con["claims"]
            about = bool(topic & stems(" ".join([con["subject"], *(c["text"] for c in claims)])))
            if not any(" ".join(c["text"].casefold().rstrip(".").split()) in said or (about and _overlaps(c, cites))
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
            "lines": hit["lines"], "tier": (hit.get("trust") or {}).get("tier")}
