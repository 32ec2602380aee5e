"""The four arm queries of hybrid search, each one restricted to the reader's layers inside its SQL:
lexical (FTS5 bm25 over title + aliases, heading trail and body), vector (sqlite-vec nearest fragments,
exact scan on small layers, 1-bit prefilter + float rerank on large ones), entity (names and aliases
found in the query -> those entity pages, then the pages about them) and graph (pages linked from and
to the best hits of the other arms); with the query terms and depths they share. Each arm is a plain function of a
`session.SearchScope` returning its ranked fragments or pages for one query; `search` fuses them.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from stigmergy.index import store
from stigmergy.index.scope import marks
from stigmergy.index.session import SearchScope, index_fingerprint, vec_rows
from stigmergy.pages.paths import sanitise_stem
from stigmergy.pages.wikilinks import link_key
from stigmergy.settings import Settings

ARM_DEPTH = 50  # pages each arm contributes to the fusion
# Title (+ aliases), headings, body. The title is copied into every fragment of its page, so a higher title
# weight lets one title word outrank the body that answers ("merge base" for a rebase question); 1:1:1
# measured no worse than 10:4:1 on any set (docs/index.md). `[search] title_weight, headings_weight`.
BM25_WEIGHTS = (1.0, 1.0, 1.0)
ENTITY_ABOUT_DEPTH = 500
# Fragments each text arm fetches; they collapse to at most ARM_DEPTH pages. The vector arm's exact scan
# (layers up to EXACT_SCAN_MAX_ROWS) fetches 3x deeper so that one long file (a 130 KB manual is ~150
# fragments) cannot fill its candidates by itself; the scan costs the same at any depth there. Large layers
# keep the 1-bit prefilter's 2 x ARM_DEPTH candidates: 150 deep doubled p50 at 100k fragments (measured,
# docs/index.md), and neither question set moved with depth.
LEXICAL_DEPTH = 100
VECTOR_DEPTH = 150
SOURCE_MENTIONS = True  # the entity arm lists sources that name the entity (ablation switch, docs/index.md)
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have how i if in into is it its of on or our "
    "so than that the their them then there these they this to was we were what when where which who whom "
    "why will with would you your about after before can could should".split()
)
_WORD_RE = re.compile(r"\w+")
_NAME_TOKEN_RE = re.compile(r"\w[\w'&.+-]*\w|\w")


def query_terms(query: str) -> list[str]:
    seen: list[str] = []
    for w in _WORD_RE.findall(query.casefold()):
        if w not in STOPWORDS and w not in seen:
            seen.append(w)
    return seen


def _fts_query(terms: list[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def mention_query(names: list[str]) -> str:
    """An FTS5 query matching any of `names` as a phrase in the body column ('' when none has a word)."""
    phrases = ['"' + " ".join(_WORD_RE.findall(n)) + '"' for n in names if _WORD_RE.search(n)]
    return "body : (" + " OR ".join(phrases) + ")" if phrases else ""


def bm25_weights(settings: Settings) -> tuple[float, float, float]:
    """The lexical arm's column weights from `[search]`."""
    search = settings.search
    return (search.title_weight, search.headings_weight, 1.0)

def lexical(scope: SearchScope, terms: list[str], where: str, params: list[Any], layers: tuple[str, ...],
            filtered: bool, weights: tuple[float, float, float] = BM25_WEIGHTS) -> list[tuple[int, int]]:
    if not terms:
        return []
    w1, w2, w3 = weights
    rank = f"bm25(fts, {w1}, {w2}, {w3}, 0.0)"
    if not filtered:
        # Scope is inside the full-text query itself (the layer column); the best rows are then joined.
        sql = (
            f"SELECT f.id, f.page FROM (SELECT rowid, {rank} AS s FROM fts WHERE fts MATCH ? "
            f"AND layer IN ({marks(layers)}) ORDER BY s LIMIT ?) h "
            f"CROSS JOIN fragments f ON f.id = h.rowid CROSS JOIN pages p ON p.id = f.page WHERE {where} ORDER BY h.s"
        )
        return scope.conn.execute(sql, (_fts_query(terms), *layers, LEXICAL_DEPTH, *params)).fetchall()
    # With filters every match is checked against them before the cut, so none is lost to the LIMIT.
    # CROSS JOIN pins the order: the MATCH drives and pages are looked up by key.
    sql = (
        f"SELECT f.id, f.page FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p ON p.id = f.page "
        f"WHERE fts MATCH ? AND fts.layer IN ({marks(layers)}) AND {where} ORDER BY {rank} LIMIT ?"
    )
    return scope.conn.execute(sql, (_fts_query(terms), *layers, *params, LEXICAL_DEPTH)).fetchall()

def vector(scope: SearchScope, qvec: np.ndarray, where: str, params: list[Any], layers: tuple[str, ...],
           filtered: bool) -> list[tuple[int, int]]:
    blob = np.ascontiguousarray(qvec, dtype=np.float32).tobytes()
    want = VECTOR_DEPTH * (3 if filtered else 1)
    prefilter = ARM_DEPTH * (6 if filtered else 1) * 2
    scored: list[tuple[float, int]] = []
    for layer in layers:
        table = store.vec_table(scope.conn, layer)
        if table is None:
            continue
        rows = vec_rows(scope, layer, table)
        if rows == 0:
            continue
        if rows <= store.EXACT_SCAN_MAX_ROWS:
            scored.extend((d, fid) for fid, d in scope.conn.execute(
                f"SELECT rowid, distance FROM {table} WHERE embedding MATCH ? AND k = ?", (blob, want)))
        else:
            # 1-bit prefilter, then exact cosine on the float vectors of the candidates.
            cand = [r[0] for r in scope.conn.execute(
                f"SELECT rowid FROM {table} WHERE bits MATCH vec_quantize_binary(?) AND k = ?",
                (blob, prefilter))]
            if not cand:
                continue
            fp = index_fingerprint(scope)
            got = scope.conn.execute(
                f"SELECT f.id, v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash AND v.fingerprint = ? "
                f"WHERE f.id IN ({marks(cand)})", (fp, *cand)).fetchall()
            if got:
                mat = np.frombuffer(b"".join(v for _, v in got), dtype=np.float32).reshape(len(got), -1)
                dist = 1.0 - mat @ np.asarray(qvec, dtype=np.float32)
                scored.extend((float(d), fid) for (fid, _), d in zip(got, dist, strict=True))
    scored.sort()
    ids = [fid for _, fid in scored[:want]]
    if not ids:
        return []
    ok = dict(scope.conn.execute(
        f"SELECT f.id, f.page FROM fragments f JOIN pages p ON p.id = f.page WHERE f.id IN ({marks(ids)}) AND {where}",
        (*ids, *params)).fetchall())
    return [(fid, ok[fid]) for fid in ids if fid in ok]

def entity(scope: SearchScope, query: str, where: str, params: list[Any], layers: tuple[str, ...],
           terms: list[str] | None = None, relevance: dict[int, float] | None = None,
           ) -> tuple[list[int], int, float]:
    """(entity pages named in the query followed by the pages about them, how many of those are named
    entity pages, the share of the query's terms that their names cover)."""
    tokens = _NAME_TOKEN_RE.findall(query.casefold())
    grams = set()
    for n in range(1, 7):
        for i in range(len(tokens) - n + 1):
            gram = " ".join(tokens[i : i + n])
            grams.add(gram)
            grams.add(gram.rstrip("."))
            if gram.endswith("'s"):
                grams.add(gram[:-2])
    grams = {g for g in grams if len(g) >= 2 and g not in STOPWORDS}
    if not grams:
        return [], 0, 0.0
    grams_l = sorted(grams)
    found = scope.conn.execute(
        f"SELECT en.name, en.page FROM entity_names en JOIN pages p ON p.id = en.page "
        f"WHERE en.name IN ({marks(grams_l)}) AND +p.layer IN ({marks(layers)})", (*grams_l, *layers)).fetchall()
    if not found:
        return [], 0, 0.0
    terms = query_terms(query) if terms is None else terms
    named = {w for name, _ in found for w in _WORD_RE.findall(name)}
    coverage = sum(t in named for t in terms) / len(terms) if terms else 1.0
    found.sort(key=lambda r: (-len(r[0]), r[1]))
    entity_pages: list[int] = []
    for _, pid in found:
        if pid not in entity_pages:
            entity_pages.append(pid)
    keys = sorted({r[0] for r in scope.conn.execute(
        f"SELECT name FROM entity_names WHERE page IN ({marks(entity_pages)})", entity_pages)})
    allowed = {r[0] for r in scope.conn.execute(
        f"SELECT p.id FROM pages p WHERE p.id IN ({marks(entity_pages)}) AND {where}", (*entity_pages, *params))}
    ranked = [pid for pid in entity_pages if pid in allowed]
    n_named = len(ranked)
    about = scope.conn.execute(
        f"SELECT p.id, count(*) AS n FROM page_entities pe JOIN pages p ON p.id = pe.page "
        f"WHERE pe.entity IN ({marks(keys)}) AND {where} GROUP BY p.id "
        f"ORDER BY n DESC, CASE p.status WHEN 'evergreen' THEN 0 WHEN 'mature' THEN 1 WHEN 'developing' THEN 2 "
        f"ELSE 3 END, p.updated DESC LIMIT ?", (*keys, *params, ENTITY_ABOUT_DEPTH)).fetchall()
    # Among the pages about those entities, the ones the lexical and vector arms liked come first: the
    # arm says "about Tomasz", the text arms say which of Tomasz's pages is about the question.
    # Sources have no `entities` front matter: the ones whose text names the entity are about it too.
    listed = {pid for pid, _ in about}
    about.extend((pid, 1) for pid in mentions(scope, keys, where, params, layers) if pid not in listed)
    relevance = relevance or {}
    about.sort(key=lambda r: (-r[1], -relevance.get(r[0], 0.0)))
    ranked.extend(pid for pid, _ in about if pid not in ranked)
    return ranked[:ARM_DEPTH], n_named, coverage

def mentions(scope: SearchScope, names: list[str], where: str, params: list[Any], layers: tuple[str, ...]) -> list[int]:
    """Source pages whose text contains one of `names` as a phrase (readable layers, filters applied)."""
    match = mention_query(names)
    if not match or not SOURCE_MENTIONS:
        return []
    return [r[0] for r in scope.conn.execute(
        f"SELECT DISTINCT p.id FROM fts CROSS JOIN fragments f ON f.id = fts.rowid CROSS JOIN pages p ON p.id = f.page "
        f"WHERE fts MATCH ? AND fts.layer IN ({marks(layers)}) AND p.type = 'source' AND {where} LIMIT ?",
        (match, *layers, *params, ENTITY_ABOUT_DEPTH))]

def graph(scope: SearchScope, seeds: list[int], where: str, params: list[Any]) -> list[int]:
    if not seeds:
        return []
    weight = {pid: 1.0 / (i + 1) for i, pid in enumerate(seeds)}
    score: dict[int, float] = {}
    # Outgoing: the seeds' wikilink targets, resolved by stem (raw or sanitised) or by entity name.
    out_rows = scope.conn.execute(
        f"SELECT src, target FROM links WHERE src IN ({marks(seeds)})", seeds).fetchall()
    targets: dict[str, set[int]] = {}
    for src, target in out_rows:
        targets.setdefault(target, set()).add(src)
        targets.setdefault(link_key(sanitise_stem(target)), set()).add(src)
    if targets:
        keys = sorted(targets)
        for pid, stem in scope.conn.execute(
            f"SELECT p.id, p.stem FROM pages p WHERE p.stem IN ({marks(keys)}) AND {where}", (*keys, *params)):
            for src in targets.get(stem, ()):
                score[pid] = score.get(pid, 0.0) + weight[src]
        for pid, name in scope.conn.execute(
            f"SELECT p.id, en.name FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name IN ({marks(keys)}) AND {where}", (*keys, *params)):
            for src in targets.get(name, ()):
                score[pid] = score.get(pid, 0.0) + weight[src]
    # Incoming: pages whose wikilinks name a seed by stem, title or alias.
    names: dict[str, int] = {}
    for pid, stem, title in scope.conn.execute(
        f"SELECT id, stem, title FROM pages WHERE id IN ({marks(seeds)})", seeds):
        names.setdefault(stem, pid)
        names.setdefault(link_key(title), pid)
    for name, pid in scope.conn.execute(
        f"SELECT name, page FROM entity_names WHERE page IN ({marks(seeds)})", seeds):
        names.setdefault(name, pid)
    if names:
        keys = sorted(names)
        for src, target in scope.conn.execute(
            f"SELECT DISTINCT l.src, l.target FROM links l JOIN pages p ON p.id = l.src "
            f"WHERE l.target IN ({marks(keys)}) AND {where}", (*keys, *params)):
            score[src] = score.get(src, 0.0) + weight[names[target]]
    for pid in seeds:
        score.pop(pid, None)
    if score:
        # Hubs (a company page every note links to) neighbour everything; like IDF, a link to a page
        # with many links says little about this query.
        cand = sorted(score)
        degree = dict.fromkeys(cand, 0)
        for pid, n in scope.conn.execute(
            f"SELECT src, count(*) FROM links WHERE src IN ({marks(cand)}) GROUP BY src", cand):
            degree[pid] += n
        names: dict[str, list[int]] = {}
        for pid, stem, title in scope.conn.execute(
            f"SELECT id, stem, title FROM pages WHERE id IN ({marks(cand)})", cand):
            for name in {stem, link_key(title)}:
                names.setdefault(name, []).append(pid)
        for name, pid in scope.conn.execute(
            f"SELECT name, page FROM entity_names WHERE page IN ({marks(cand)})", cand):
            names.setdefault(name, []).append(pid)
        keys = sorted(names)
        for target, n in scope.conn.execute(
            f"SELECT target, count(*) FROM links WHERE target IN ({marks(keys)}) GROUP BY target", keys):
            for pid in set(names[target]):
                degree[pid] += n
        score = {pid: v / math.log2(2 + degree[pid]) for pid, v in score.items()}
    return [pid for pid, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))][:ARM_DEPTH]
