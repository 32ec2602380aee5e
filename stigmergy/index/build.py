"""Build, update and check the index.

`build_index` is incremental: it diffs the indexed commit against the working tree (which includes HEAD)
and re-reads only the pages whose git blob id changed. Vectors come from the content-addressed cache when
the embedded text (title + heading trail + fragment) was seen before under the same fingerprint, so
renames and re-indexing never embed anything twice.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from stigmergy.errors import CheckFailedError, LockTimeoutError
from stigmergy.index import store
from stigmergy.index.embedder import (
    Embedder,
    export_onnx,
    fingerprint,
    fragment_tokens,
    make_embedder,
    model_key,
    quantize_mode,
    resolve_model,
)
from stigmergy.index.pagedoc import PageDoc, meta_str, parse_page
from stigmergy.pages.wikilinks import link_key
from stigmergy.repo.containment import contained_file
from stigmergy.repo.git import Git, blob_sha
from stigmergy.repo.layout import Layout, classify
from stigmergy.repo.lock import WriterLock
from stigmergy.settings import PUBLIC_LAYER, Settings

PAGE_PATHSPEC = ("sources", "wiki", "layers")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class IndexReport:
    commit: str | None
    full: bool
    pages_indexed: int
    pages_removed: int
    pages_total: int
    fragments_total: int
    fragments_embedded: int
    fragments_reused: int
    embed_seconds: float
    seconds: float


@dataclass(frozen=True)
class Freshness:
    """Which commit the index reflects, and whether the repository (as this reader sees it) is ahead."""

    commit: str | None
    head: str | None
    stale: bool
    changed: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"commit": self.commit, "head": self.head, "stale": self.stale, "changed": list(self.changed)}


# ---------------------------------------------------------------- repository listing


def _split_z(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def _page_files(git: Git) -> set[str]:
    tracked = _split_z(git.run_bytes("ls-files", "-z", "--", *PAGE_PATHSPEC))
    untracked = _split_z(git.run_bytes("ls-files", "-z", "--others", "--exclude-standard", "--", *PAGE_PATHSPEC))
    return {p for p in (*tracked, *untracked) if classify(p) is not None and contained_file(git.root, p) is not None}


def _commit_exists(git: Git, commit: str) -> bool:
    return bool(git.run("cat-file", "-t", commit, check=False).strip() == "commit")


def _changed_since(git: Git, commit: str) -> set[str]:
    """Pages that differ between `commit` and the working tree, plus untracked pages."""
    changed = _split_z(git.run_bytes("diff", "--name-only", "--no-renames", "-z", commit, "--", *PAGE_PATHSPEC))
    untracked = _split_z(git.run_bytes("ls-files", "-z", "--others", "--exclude-standard", "--", *PAGE_PATHSPEC))
    return {p for p in (*changed, *untracked) if classify(p) is not None}


def _dirty(git: Git, head: str | None) -> set[str]:
    """Pages whose working-tree content is not HEAD's."""
    if head is None:
        return _page_files(git)
    return _changed_since(git, head)


# ---------------------------------------------------------------- writing pages


def _remove_page(conn: Any, page_id: int, layer: str) -> None:
    ids = [r[0] for r in conn.execute("SELECT id FROM fragments WHERE page = ?", (page_id,))]
    if ids:
        marks = ",".join("?" * len(ids))
        conn.execute(f"DELETE FROM fts WHERE rowid IN ({marks})", ids)
        table = store.vec_table(conn, layer)
        if table:
            conn.execute(f"DELETE FROM {table} WHERE rowid IN ({marks})", ids)
    conn.execute("DELETE FROM pages WHERE id = ?", (page_id,))


def _insert_page(conn: Any, doc: PageDoc, sha: str) -> list[tuple[int, str, str, str]]:
    """Write the page's rows; return (fragment id, layer, hash, embed text) for its fragments."""
    m = doc.meta
    stem = link_key(doc.path.rsplit("/", 1)[-1][:-3])
    cur = conn.execute(
        "INSERT INTO pages(path, stem, layer, type, title, page_id, status, created, updated, occurred_at, "
        "captured_at, locator, blob_sha, meta, n_fragments, n_claims, n_cited) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            doc.path, stem, doc.layer, doc.type, doc.title, meta_str(m, "id"), doc.status,
            meta_str(m, "created"), meta_str(m, "updated"), meta_str(m, "occurred_at"),
            meta_str(m, "captured_at"), meta_str(m, "locator"), sha, json.dumps(m, default=str, ensure_ascii=False),
            len(doc.fragments), doc.claim_lines, len(doc.citations),
        ),
    )
    pid = cur.lastrowid
    title_col = " ".join((doc.title, *doc.aliases))
    out = []
    for f in doc.fragments:
        h = f.content_hash(doc.title)
        fid = conn.execute(
            "INSERT INTO fragments(page, seq, layer, trail, start_char, end_char, start_line, end_line, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (pid, f.seq, doc.layer, json.dumps(list(f.trail), ensure_ascii=False), f.start_char, f.end_char,
             f.start_line, f.end_line, h),
        ).lastrowid
        conn.execute(
            "INSERT INTO fts(rowid, title, headings, body, layer) VALUES (?, ?, ?, ?, ?)",
            (fid, title_col, " ".join(f.trail), f.text, doc.layer),
        )
        out.append((fid, doc.layer, h, f.embed_text(doc.title)))
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


def embed_missing(
    conn: Any, texts: dict[str, str], fp: str, embedder_factory: Callable[[], Embedder], progress: Progress | None,
    pause: Callable[[str], None] = lambda point: None,
) -> tuple[int, float, int | None]:
    """Embed the texts (hash -> embedded text) whose vectors the cache lacks, committing each batch.

    The cache is content-addressed, so a batch is safe to keep on its own: a run killed half-way keeps
    what it embedded, and the next run starts from there. Returns (embedded, seconds, dimension or None)."""
    hashes = sorted(texts)
    have: set[str] = set()
    for i in range(0, len(hashes), 500):
        chunk = hashes[i : i + 500]
        have.update(r[0] for r in conn.execute(
            f"SELECT hash FROM vectors WHERE fingerprint = ? AND hash IN ({','.join('?' * len(chunk))})", (fp, *chunk)
        ))
    todo = [(h, texts[h]) for h in hashes if h not in have]
    if not todo:
        return 0, 0.0, None
    embedder = embedder_factory()
    total = len(todo)
    if progress:
        progress(0, total)
    step = max(8, 8 * getattr(embedder, "batch_size", 32))
    embed_seconds = 0.0
    for i in range(0, total, step):
        batch = todo[i : i + step]
        t0 = time.perf_counter()
        vecs = embedder.embed([t for _, t in batch])
        embed_seconds += time.perf_counter() - t0
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO vectors(hash, fingerprint, vector) VALUES (?, ?, ?)",
                [(h, fp, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for (h, _), v in zip(batch, vecs, strict=True)],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if progress:
            progress(min(total, i + step), total)
        pause("index-batch")
    return total, embed_seconds, embedder.dimension


def _attach_vectors(conn: Any, need: list[tuple[int, str, str, str]], fp: str, dimension: int | None) -> None:
    """Fill each layer's vec0 table for the fragments in `need` from the (already complete) cache."""
    if not need:
        return
    if dimension is None:
        row = conn.execute("SELECT vector FROM vectors WHERE fingerprint = ? LIMIT 1", (fp,)).fetchone()
        dimension = len(row[0]) // 4
    by_layer: dict[str, list[tuple[int, str]]] = {}
    for fid, layer, h, _ in need:
        by_layer.setdefault(layer, []).append((fid, h))
    for layer, rows in by_layer.items():
        table = store.vec_table(conn, layer, dimension)
        conn.executemany(
            f"INSERT INTO {table}(rowid, embedding, bits) SELECT ?, vector, vec_quantize_binary(vector) "
            "FROM vectors WHERE hash = ? AND fingerprint = ?",
            [(fid, h, fp) for fid, h in rows],
        )


# ---------------------------------------------------------------- entry points


def index_lock(layout: Layout, timeout: float) -> WriterLock:
    return WriterLock(layout.state_dir / "index.lock", timeout)


def current_fingerprint(settings: Settings, layout: Layout) -> str:
    info = resolve_model(settings.embedder)
    return fingerprint(info, model_key(info.path, layout.cache_dir), settings.index, quantize_mode(settings.embedder))


def prepare(root: Path, settings: Settings) -> Path:
    """Export the ONNX model into the cache (needs torch; once per model content)."""
    info = resolve_model(settings.embedder)
    return export_onnx(info, Layout(root).cache_dir, quantize_mode(settings.embedder))


def build_index(
    root: Path,
    settings: Settings,
    *,
    rebuild: bool = False,
    embedder: Embedder | Callable[[], Embedder] | None = None,
    progress: Progress | None = None,
    lock: bool = True,
    pause: Callable[[str], None] = lambda point: None,
) -> IndexReport:
    """Bring `.stigmergy/index.sqlite` up to date with the working tree. `embedder` may be an Embedder or a
    factory; by default one is made from settings, and only when something needs embedding. `lock=False`
    when the caller already holds the index lock (the hook runner)."""
    t_start = time.perf_counter()
    layout = Layout(root)
    git = Git(root)
    fp = current_fingerprint(settings, layout)
    tokens, window = fragment_tokens(settings.embedder)
    if embedder is None:
        def factory() -> Embedder:
            return make_embedder(settings.embedder, layout.cache_dir)
    elif callable(embedder) and not hasattr(embedder, "embed"):
        factory = embedder  # type: ignore[assignment]
    else:
        def factory() -> Embedder:
            return embedder  # type: ignore[return-value]

    with index_lock(layout, settings.lock.timeout_seconds) if lock else contextlib.nullcontext():
        conn = store.open_for_rebuild(layout.index_db) if rebuild else store.connect(layout.index_db)
        try:
            head = git.head()
            indexed = store.get_meta(conn, "commit")
            full = (
                rebuild or store.get_meta(conn, "fingerprint") != fp or not indexed
                or not _commit_exists(git, indexed)
            )
            # 1. Read the pages that changed (no transaction: readers keep the last complete index).
            if full:
                candidates = _page_files(git)
                known: dict[str, tuple[int, str, str]] = {}
            else:
                assert indexed is not None
                candidates = _changed_since(git, indexed)
                candidates |= set(json.loads(store.get_meta(conn, "dirty") or "[]"))
                known = {r[0]: (r[1], r[2], r[3]) for r in conn.execute("SELECT path, id, layer, blob_sha FROM pages")}
            docs: list[tuple[PageDoc, str, tuple[int, str, str] | None]] = []
            gone: list[tuple[int, str, str]] = []
            for path in sorted(candidates):
                # A page reached through a symlink is not indexed: its bytes may live in another layer.
                file = contained_file(root, path)
                old = known.get(path)
                if file is None:
                    if old:
                        gone.append(old)
                    continue
                data = file.read_bytes()
                sha = blob_sha(data)
                if old and old[2] == sha:
                    continue
                doc = parse_page(path, data.decode("utf-8", "replace"), settings.index, tokens, window)
                if doc is not None:
                    docs.append((doc, sha, old))
            # 2. Embed what the vector cache lacks, a committed batch at a time (a killed run resumes here).
            texts = {f.content_hash(doc.title): f.embed_text(doc.title) for doc, _, _ in docs for f in doc.fragments}
            embedded, embed_s, dimension = embed_missing(conn, texts, fp, factory, progress, pause)
            # 3. Swap the page rows in one transaction: readers see the old index or the new one.
            conn.execute("BEGIN IMMEDIATE")
            try:
                if full:
                    conn.execute("DELETE FROM pages")
                    conn.execute("DELETE FROM fts")
                    store.drop_vec_tables(conn)
                for old_row in gone:
                    _remove_page(conn, old_row[0], old_row[1])
                need: list[tuple[int, str, str, str]] = []
                for doc, sha, old_row in docs:
                    if old_row:
                        _remove_page(conn, old_row[0], old_row[1])
                    need.extend(_insert_page(conn, doc, sha))
                _attach_vectors(conn, need, fp, dimension)
                indexed_n, removed_n = len(docs), len(gone)
                reused = len(need) - embedded
                if full:
                    # The cache keeps vectors of other fingerprints and of vanished text until a full build.
                    conn.execute("DELETE FROM vectors WHERE fingerprint != ?", (fp,))
                    conn.execute("DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM fragments f WHERE f.hash = vectors.hash)")
                # Planner statistics: without them SQLite may drive a query from the (unselective) layer index.
                conn.execute("ANALYZE" if full else "PRAGMA optimize")
                store.set_meta(conn, "commit", head or "")
                store.set_meta(conn, "dirty", json.dumps(sorted(_dirty(git, head))))
                store.set_meta(conn, "fingerprint", fp)
                store.set_meta(conn, "model", settings.embedder.model)
                store.set_meta(conn, "built_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
                pause("index-swap")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            pages_total, frags_total = conn.execute(
                "SELECT (SELECT count(*) FROM pages), (SELECT count(*) FROM fragments)").fetchone()
        finally:
            conn.close()
    return IndexReport(
        commit=head, full=full, pages_indexed=indexed_n, pages_removed=removed_n, pages_total=pages_total,
        fragments_total=frags_total, fragments_embedded=embedded, fragments_reused=max(0, reused),
        embed_seconds=round(embed_s, 3), seconds=round(time.perf_counter() - t_start, 3),
    )


def fast_head(git: Git) -> str | None:
    """HEAD's commit id without a subprocess (see Git.fast_head)."""
    return git.fast_head()


def freshness(conn: Any, git: Git, readable: Iterable[str]) -> Freshness:
    """The indexed commit and, restricted to layers the reader can see, the pages that changed since."""
    layers = set(readable)
    indexed = store.get_meta(conn, "commit") or None
    head = fast_head(git)
    candidates: set[str] = set()
    if indexed is None:
        candidates = _page_files(git) if head else set()
    elif indexed == head or _commit_exists(git, indexed):
        candidates = _changed_since(git, indexed) | set(json.loads(store.get_meta(conn, "dirty") or "[]"))
    else:
        candidates = _page_files(git)
    known = dict(conn.execute("SELECT path, blob_sha FROM pages").fetchall()) if candidates else {}
    changed = []
    for path in sorted(candidates):
        kind = classify(path)
        if kind is None or kind[1] not in layers:
            continue
        file = contained_file(git.root, path)
        sha = blob_sha(file.read_bytes()) if file is not None else None
        if sha != known.get(path):
            changed.append(path)
    return Freshness(commit=indexed, head=head, stale=bool(changed), changed=tuple(changed))


@dataclass(frozen=True)
class CheckReport:
    pages: int
    fragments: int
    problems: tuple[str, ...]


def check_index(root: Path, settings: Settings) -> CheckReport:
    """Verify the index against the repository; raise CheckFailedError (exit 4) on any drift."""
    layout = Layout(root)
    git = Git(root)
    problems: list[str] = []
    if not layout.index_db.is_file():
        raise CheckFailedError("there is no index yet", hint="run `stigmergy index`")
    conn = store.connect(layout.index_db)
    try:
        fp = current_fingerprint(settings, layout)
        if store.get_meta(conn, "fingerprint") != fp:
            problems.append("embedding fingerprint differs from the configured model/chunking")
        indexed = {r[0]: r[1] for r in conn.execute("SELECT path, blob_sha FROM pages")}
        files = _page_files(git)
        for path in sorted(files - set(indexed)):
            problems.append(f"not indexed: {path}")
        for path in sorted(set(indexed) - files):
            problems.append(f"indexed but gone: {path}")
        for path in sorted(files & set(indexed)):
            if blob_sha((root / path).read_bytes()) != indexed[path]:
                problems.append(f"changed since indexed: {path}")
        n_frag = conn.execute("SELECT count(*) FROM fragments").fetchone()[0]
        n_fts = conn.execute("SELECT count(*) FROM fts").fetchone()[0]
        if n_fts != n_frag:
            problems.append(f"full-text rows {n_fts} != fragments {n_frag}")
        missing = conn.execute(
            "SELECT count(*) FROM fragments f WHERE NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.hash = f.hash AND v.fingerprint = ?)", (fp,)).fetchone()[0]
        if missing:
            problems.append(f"{missing} fragments have no vector")
        n_vec = 0
        for layer, table in conn.execute("SELECT layer, name FROM vec_tables").fetchall():
            n = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            want = conn.execute("SELECT count(*) FROM fragments WHERE layer = ?", (layer,)).fetchone()[0]
            if n != want:
                problems.append(f"layer {layer}: {n} vectors for {want} fragments")
            n_vec += n
        if n_vec != n_frag and not any(p.startswith("layer ") for p in problems):
            problems.append(f"vector rows {n_vec} != fragments {n_frag}")
    finally:
        conn.close()
    report = CheckReport(pages=len(indexed), fragments=n_frag, problems=tuple(problems))
    if problems:
        err = CheckFailedError(f"the index has drifted from the repository ({len(problems)} problems)",
                               hint="run `stigmergy index` (or `stigmergy index --rebuild`)")
        err.report = report  # type: ignore[attr-defined]
        raise err
    return report


def index_building(layout: Layout) -> bool:
    """Is an index build running now (someone holds the index lock)?"""
    lock = try_index_lock(layout)
    if lock is None:
        return True
    lock.release()
    return False


def try_index_lock(layout: Layout) -> WriterLock | None:
    lock = index_lock(layout, 0.0)
    try:
        lock.acquire()
    except LockTimeoutError:
        return None
    return lock


__all__ = [
    "PUBLIC_LAYER", "CheckReport", "Freshness", "IndexReport", "build_index", "check_index", "freshness", "prepare",
]
