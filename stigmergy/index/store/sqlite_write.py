"""The SQLite index builder's writes (index/build.py, through the store): pages in and out with their
fragments, full text, names, links, citations and contradictions; the vector cache and each layer's vec0
table; each page's descriptor vectors.

Apart from the store's reads (sqlite.py) because only the builder, holding `.stigmergy/index.lock`, calls
them, and every statement that changes the index's pages or vectors is then in one place. Functions over a
connection, as the PostgreSQL store's pg_write.py; `SqliteIndexStore` forwards its protocol methods here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from stigmergy.index.store.protocol import IndexedPage, Integrity, LayerVectors, NewFragment
from stigmergy.index.store.sqlite_schema import marks

if TYPE_CHECKING:
    import numpy as np

    from stigmergy.index.pagedoc import PageDoc


def vec_table(conn: Any, layer: str, dimension: int | None = None) -> str | None:
    """The vec0 table of `layer`; created when `dimension` is given and it does not exist yet."""
    row = conn.execute("SELECT name, dimension FROM vec_tables WHERE layer = ?", (layer,)).fetchone()
    if row is not None:
        return str(row[0])
    if dimension is None:
        return None
    n = conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM vec_tables").fetchone()[0]
    name = f"vec_layer_{n}"
    conn.execute(
        f"CREATE VIRTUAL TABLE {name} USING vec0(embedding float[{dimension}] distance_metric=cosine, "
        f"bits bit[{dimension}])"
    )
    conn.execute("INSERT INTO vec_tables(layer, name, dimension) VALUES (?, ?, ?)", (layer, name, dimension))
    return name


def clear(conn: Any) -> None:
    conn.execute("DELETE FROM pages")
    conn.execute("DELETE FROM fts")
    for (name,) in conn.execute("SELECT name FROM vec_tables").fetchall():
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute("DELETE FROM vec_tables")


def remove_pages(conn: Any, pages: Sequence[IndexedPage]) -> None:
    for page in pages:
        _remove_page(conn, page)


def _remove_page(conn: Any, page: IndexedPage) -> None:
    ids = [r[0] for r in conn.execute("SELECT id FROM fragments WHERE page = ?", (page.id,))]
    if ids:
        conn.execute(f"DELETE FROM fts WHERE rowid IN ({marks(ids)})", ids)
        table = vec_table(conn, page.layer)
        if table:
            conn.execute(f"DELETE FROM {table} WHERE rowid IN ({marks(ids)})", ids)
    conn.execute("DELETE FROM pages WHERE id = ?", (page.id,))


def insert_pages(conn: Any, items: Sequence[tuple[PageDoc, str]]) -> list[NewFragment]:
    return [f for doc, sha in items for f in _insert_page(conn, doc, sha)]


def _insert_page(conn: Any, doc: PageDoc, blob_sha: str) -> list[NewFragment]:
    from stigmergy.index.analysis import extra_text, has_cjk
    from stigmergy.index.pagedoc import meta_str
    from stigmergy.pages.wikilinks import link_key

    m = doc.meta
    stem = link_key(doc.path.rsplit("/", 1)[-1][:-3])
    cur = conn.execute(
        "INSERT INTO pages(path, stem, layer, type, title, page_id, status, created, updated, occurred_at, "
        "captured_at, locator, blob_sha, meta, n_fragments, n_claims, n_cited) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            doc.path, stem, doc.layer, doc.type, doc.title, meta_str(m, "id"), doc.status,
            meta_str(m, "created"), meta_str(m, "updated"), meta_str(m, "occurred_at"),
            meta_str(m, "captured_at"), meta_str(m, "locator"), blob_sha,
            json.dumps(m, default=str, ensure_ascii=False), len(doc.fragments), doc.claim_lines,
            len(doc.citations),
        ),
    )
    pid = cur.lastrowid
    title_col = " ".join((doc.title, *doc.aliases))
    # Only a page that holds CJK text or has a stemmer besides English's gets an `extra` column.
    analysed = bool(doc.languages) or has_cjk(doc.text)
    out = []
    for f in doc.fragments:
        h = f.content_hash(doc.title)
        fid = conn.execute(
            "INSERT INTO fragments(page, seq, layer, trail, start_char, end_char, start_line, end_line, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pid, f.seq, doc.layer, json.dumps(list(f.trail), ensure_ascii=False), f.start_char, f.end_char,
             f.start_line, f.end_line, h),
        ).lastrowid
        heads = " ".join(f.trail)
        extra = extra_text(f"{title_col}\n{heads}\n{f.text}", doc.languages) if analysed else ""
        conn.execute(
            "INSERT INTO fts(rowid, title, headings, body, extra, layer) VALUES (?, ?, ?, ?, ?, ?)",
            (fid, title_col, heads, f.text, extra, doc.layer),
        )
        out.append(NewFragment(fid, doc.layer, h))
    if doc.type == "entity":
        names = {link_key(doc.title): "title"}
        for alias in doc.aliases:
            names.setdefault(link_key(alias), "alias")
        conn.executemany("INSERT INTO entity_names(name, page, kind) VALUES (?, ?, ?)",
                         [(n, pid, k) for n, k in names.items() if n])
    conn.executemany("INSERT INTO page_entities(page, entity) VALUES (?, ?)",
                     [(pid, e) for e in sorted({link_key(e) for e in doc.entities})])
    conn.executemany("INSERT INTO links(src, target, line) VALUES (?, ?, ?)",
                     [(pid, link_key(ln.target), ln.line) for ln in doc.links])
    conn.executemany(
        "INSERT INTO citations(src, line, source_path, capture_id, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?)",
        [(pid, line, c.path, c.capture_id, c.start, c.end) for line, cs in doc.citations.items() for c in cs],
    )
    conn.executemany(
        "INSERT INTO contradictions(page, con_id, status, data) VALUES (?, ?, ?, ?)",
        [(pid, c.id, c.status, json.dumps(c.to_dict(), ensure_ascii=False)) for c in doc.contradictions],
    )
    return out


def cached_vectors(conn: Any, fingerprint: str, hashes: Sequence[str]) -> set[str]:
    have: set[str] = set()
    for i in range(0, len(hashes), 500):
        chunk = list(hashes[i : i + 500])
        have.update(r[0] for r in conn.execute(
            f"SELECT hash FROM vectors WHERE fingerprint = ? AND hash IN ({marks(chunk)})", (fingerprint, *chunk)))
    return have


def put_vectors(conn: Any, fingerprint: str, rows: Iterable[tuple[str, np.ndarray]]) -> None:
    """Into the vector cache; the store runs it inside a transaction."""
    import numpy as np

    conn.executemany(
        "INSERT OR REPLACE INTO vectors(hash, fingerprint, vector) VALUES (?, ?, ?)",
        [(h, fingerprint, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for h, v in rows],
    )


def attach_vectors(conn: Any, fragments: Sequence[NewFragment], fingerprint: str, dimension: int | None) -> None:
    if not fragments:
        return
    if dimension is None:
        row = conn.execute("SELECT vector FROM vectors WHERE fingerprint = ? LIMIT 1", (fingerprint,)).fetchone()
        dimension = len(row[0]) // 4
    by_layer: dict[str, list[tuple[int, str]]] = {}
    for f in fragments:
        by_layer.setdefault(f.layer, []).append((f.id, f.hash))
    for layer, rows in by_layer.items():
        table = vec_table(conn, layer, dimension)
        conn.executemany(
            f"INSERT INTO {table}(rowid, embedding, bits) SELECT ?, vector, vec_quantize_binary(vector) "
            "FROM vectors WHERE hash = ? AND fingerprint = ?",
            [(fid, h, fingerprint) for fid, h in rows],
        )
    _page_vectors(conn, [f.id for f in fragments], fingerprint)


def _page_vectors(conn: Any, fragments: Sequence[int], fingerprint: str) -> None:
    """Each page of `fragments` (all of a page's fragments are new together): the mean of its fragment
    vectors and its first fragment's vector."""
    import numpy as np

    pages: dict[int, list[tuple[int, bytes]]] = {}
    for i in range(0, len(fragments), 500):
        chunk = fragments[i : i + 500]
        for pid, seq, blob in conn.execute(
                f"SELECT f.page, f.seq, v.vector FROM fragments f JOIN vectors v ON v.hash = f.hash "
                f"AND v.fingerprint = ? WHERE f.id IN ({marks(chunk)})", (fingerprint, *chunk)):
            pages.setdefault(pid, []).append((seq, blob))
    rows = []
    for pid, got in pages.items():
        got.sort()
        mat = np.frombuffer(b"".join(b for _, b in got), dtype=np.float32).reshape(len(got), -1)
        mean = mat.mean(axis=0)
        mean /= max(float(np.linalg.norm(mean)), 1e-12)
        rows.append((pid, mean.astype(np.float32).tobytes(), mat[0].tobytes(), len(got)))
    conn.executemany(
        "INSERT OR REPLACE INTO page_vectors(page, centroid, lead, fragments) VALUES (?, ?, ?, ?)", rows)


def prune_vectors(conn: Any, keep_fingerprint: str | None = None) -> None:
    if keep_fingerprint is not None:
        conn.execute("DELETE FROM vectors WHERE fingerprint != ?", (keep_fingerprint,))
        conn.execute("DELETE FROM line_vectors WHERE fingerprint NOT LIKE ? || ':%'", (keep_fingerprint,))
    conn.execute("DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM fragments f WHERE f.hash = vectors.hash)")


def drop_layer_vectors(conn: Any, layer: str) -> None:
    table = vec_table(conn, layer)
    if table:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute("DELETE FROM vec_tables WHERE layer = ?", (layer,))


def integrity(conn: Any, fingerprint: str) -> Integrity:
    """What `index --check` compares: fragments, full-text rows, missing vectors, each layer's vec0 rows."""
    q = conn.execute
    n_frag = q("SELECT count(*) FROM fragments").fetchone()[0]
    n_fts = q("SELECT count(*) FROM fts").fetchone()[0]
    missing = q("SELECT count(*) FROM fragments f WHERE NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.hash = f.hash AND v.fingerprint = ?)", (fingerprint,)).fetchone()[0]
    layers = []
    for layer, table in q("SELECT layer, name FROM vec_tables").fetchall():
        n = q(f"SELECT count(*) FROM {table}").fetchone()[0]
        want = q("SELECT count(*) FROM fragments WHERE layer = ?", (layer,)).fetchone()[0]
        layers.append(LayerVectors(layer, n, want))
    return Integrity(n_frag, n_fts, missing, tuple(layers))
