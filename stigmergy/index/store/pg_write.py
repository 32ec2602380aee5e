"""The PostgreSQL store's page writes, batched: many pages in a handful of statements.

A build that wrote page by page paid a round trip per table per page, and one `terms` upsert per page: a
common lexeme's row was updated once per page inside one transaction, so each upsert walked a longer chain
of that row's versions (a 2,000-fragment rebuild spent 18 of its 33 s there). Here the rows of up to
`CHUNK_FRAGMENTS` fragments go in one `INSERT ... SELECT FROM unnest(arrays)` per table, and the
document frequencies of every page written are summed in Python and upserted once, at the end.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from stigmergy.index.store import pg_impact, pg_text
from stigmergy.index.store.protocol import IndexedPage, NewFragment

if TYPE_CHECKING:
    from stigmergy.index.pagedoc import PageDoc

CHUNK_FRAGMENTS = 4000  # rows per statement: bounds the size of one statement's arrays
CHUNK_TERMS = 50_000


def remove_pages(conn: Any, pages: Sequence[IndexedPage]) -> None:
    """Take pages out (their rows cascade), the lexemes' document frequencies with them."""
    if not pages:
        return
    ids = [p.id for p in pages]
    conn.execute(
        "WITH gone AS (SELECT u.lexeme, count(*) AS n FROM fragments f JOIN fts t ON t.id = f.id, "
        "unnest(t.tsv) u WHERE f.page = ANY(%s) GROUP BY u.lexeme) "
        "UPDATE terms SET df = terms.df - gone.n FROM gone WHERE terms.term = gone.lexeme", (ids,))
    pg_impact.remove(conn, ids)
    conn.execute("DELETE FROM pages WHERE id = ANY(%s)", (ids,))


def insert_pages(conn: Any, items: Sequence[tuple[PageDoc, str]]) -> list[NewFragment]:
    """Write pages (doc, blob sha) with their fragments, full text, names, links, citations and
    contradictions; returns the new fragments in the order given."""
    out: list[NewFragment] = []
    df: Counter[str] = Counter()
    chunk: list[tuple[PageDoc, str]] = []
    size = 0
    for item in items:
        chunk.append(item)
        size += len(item[0].fragments) + 1
        if size >= CHUNK_FRAGMENTS:
            out.extend(_insert_chunk(conn, chunk, df))
            chunk, size = [], 0
    if chunk:
        out.extend(_insert_chunk(conn, chunk, df))
    terms = sorted(df)
    for i in range(0, len(terms), CHUNK_TERMS):
        part = terms[i : i + CHUNK_TERMS]
        conn.execute(
            "INSERT INTO terms(term, df) SELECT * FROM unnest(%s::text[], %s::int[]) "
            "ON CONFLICT (term) DO UPDATE SET df = terms.df + excluded.df", (part, [df[t] for t in part]))
    return out


def _insert_chunk(conn: Any, items: Sequence[tuple[PageDoc, str]], df: Counter[str]) -> list[NewFragment]:
    from stigmergy.index.analysis import extra_text, has_cjk
    from stigmergy.index.pagedoc import meta_str
    from stigmergy.pages.wikilinks import link_key

    cols: list[list[Any]] = [[] for _ in range(17)]
    for doc, sha in items:
        m = doc.meta
        row = (doc.path, link_key(doc.path.rsplit("/", 1)[-1][:-3]), doc.layer, doc.type, doc.title,
               meta_str(m, "id"), doc.status, meta_str(m, "created"), meta_str(m, "updated"),
               meta_str(m, "occurred_at"), meta_str(m, "captured_at"), meta_str(m, "locator"), sha,
               json.dumps(m, default=str, ensure_ascii=False), len(doc.fragments), doc.claim_lines,
               len(doc.citations))
        for col, value in zip(cols, row, strict=True):
            col.append(value)
    pid = dict((path, i) for i, path in conn.execute(
        "INSERT INTO pages(path, stem, layer, type, title, page_id, status, created, updated, occurred_at, "
        "captured_at, locator, blob_sha, meta, n_fragments, n_claims, n_cited) SELECT * FROM unnest("
        + ", ".join(["%s::text[]"] * 14 + ["%s::int[]"] * 3) + ") RETURNING id, path", cols).fetchall())

    frag: list[list[Any]] = [[] for _ in range(10)]
    fts_layer: list[str] = []
    fts_ntok: list[int] = []
    fts_tsv: list[str] = []
    hashes: list[tuple[PageDoc, str]] = []
    names: list[list[Any]] = [[], [], []]
    entities: list[list[Any]] = [[], []]
    links: list[list[Any]] = [[], [], []]
    cites: list[list[Any]] = [[] for _ in range(6)]
    cons: list[list[Any]] = [[] for _ in range(4)]

    def add(table: list[list[Any]], *row: Any) -> None:
        for col, value in zip(table, row, strict=True):
            col.append(value)

    for doc, _ in items:
        page = pid[doc.path]
        title_col = " ".join((doc.title, *doc.aliases))
        # Only a page that holds CJK text or has a stemmer besides English's gets an `extra` column.
        analysed = bool(doc.languages) or has_cjk(doc.text)
        for f in doc.fragments:
            h = f.content_hash(doc.title)
            add(frag, page, f.seq, doc.layer, json.dumps(list(f.trail), ensure_ascii=False), f.start_char,
                f.end_char, f.start_line, f.end_line, h, f.text)
            hashes.append((doc, h))
            heads = " ".join(f.trail)
            extra = extra_text(f"{title_col}\n{heads}\n{f.text}", doc.languages) if analysed else ""
            tsv, ntok, lexemes = pg_text.document((title_col, heads, f.text, extra))
            fts_layer.append(doc.layer)
            fts_ntok.append(ntok)
            fts_tsv.append(tsv)
            df.update(lexemes)
        if doc.type == "entity":
            seen = {link_key(doc.title): "title"}
            for alias in doc.aliases:
                seen.setdefault(link_key(alias), "alias")
            for n, kind in seen.items():
                if n:
                    add(names, n, page, kind)
        for e in sorted({link_key(e) for e in doc.entities}):
            add(entities, page, e)
        for ln in doc.links:
            add(links, page, link_key(ln.target), ln.line)
        for line, cs in doc.citations.items():
            for c in cs:
                add(cites, page, line, c.path, c.capture_id, c.start, c.end)
        for c in doc.contradictions:
            add(cons, page, c.id, c.status, json.dumps(c.to_dict(), ensure_ascii=False))

    out: list[NewFragment] = []
    if frag[0]:
        # WITH ORDINALITY keeps the ids in the order the rows were given (RETURNING's order is not promised).
        ids = [r[0] for r in conn.execute(
            "WITH ins AS (INSERT INTO fragments(page, seq, layer, trail, start_char, end_char, start_line, "
            "end_line, hash, body) SELECT p, s, l, t, sc, ec, sl, el, h, b FROM unnest(%s::bigint[], %s::int[], "
            "%s::text[], %s::text[], %s::int[], %s::int[], %s::int[], %s::int[], %s::text[], %s::text[]) "
            "AS u(p, s, l, t, sc, ec, sl, el, h, b) RETURNING id, page, seq) "
            "SELECT ins.id FROM unnest(%s::bigint[], %s::int[]) WITH ORDINALITY AS k(p, s, o) "
            "JOIN ins ON ins.page = k.p AND ins.seq = k.s ORDER BY k.o",
            (*frag, frag[0], frag[1])).fetchall()]
        conn.execute(
            "INSERT INTO fts(id, layer, ntok, tsv) SELECT i, l, n, t::tsvector "
            "FROM unnest(%s::bigint[], %s::text[], %s::int[], %s::text[]) AS u(i, l, n, t)",
            (ids, fts_layer, fts_ntok, fts_tsv))
        pg_impact.add(conn, ids)  # in the page swap's transaction, as every other row of the page
        out = [NewFragment(fid, doc.layer, h) for fid, (doc, h) in zip(ids, hashes, strict=True)]
    if names[0]:
        conn.execute("INSERT INTO entity_names(name, page, kind) SELECT * FROM unnest(%s::text[], %s::bigint[], "
                     "%s::text[])", names)
    if entities[0]:
        conn.execute("INSERT INTO page_entities(page, entity) SELECT * FROM unnest(%s::bigint[], %s::text[])",
                     entities)
    if links[0]:
        conn.execute("INSERT INTO links(src, target, line) SELECT * FROM unnest(%s::bigint[], %s::text[], "
                     "%s::int[])", links)
    if cites[0]:
        conn.execute("INSERT INTO citations(src, line, source_path, capture_id, start_line, end_line) "
                     "SELECT * FROM unnest(%s::bigint[], %s::int[], %s::text[], %s::text[], %s::int[], %s::int[])",
                     cites)
    if cons[0]:
        conn.execute("INSERT INTO contradictions(page, con_id, status, data) SELECT * FROM unnest(%s::bigint[], "
                     "%s::text[], %s::text[], %s::text[])", cons)
    return out
