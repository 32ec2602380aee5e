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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import CheckFailedError, StigmergyError
from stigmergy.index.embedder import (
    Embedder,
    export_onnx,
    fragment_tokens,
    make_embedder,
    quantize_mode,
    resolve_model,
)
from stigmergy.index.fragments import Tokens
from stigmergy.index.freshness import (
    Freshness,
    changed_since,
    checkout_page_files,
    commit_exists,
    current_fingerprint,
    current_lexicon,
    dirty_pages,
    freshness,
    index_building,
    index_lock,
    layer_checkouts,
    page_files,
    read_blobs,
    relation,
    tree_pages,
    try_index_lock,
)
from stigmergy.index.pagedoc import PageDoc, parse_page
from stigmergy.index.store import IndexedPage, IndexStore, NewFragment, index_location, open_index
from stigmergy.repo.containment import contained_file
from stigmergy.repo.git import Git, blob_sha
from stigmergy.repo.layout import Layout, layer_prefix
from stigmergy.settings import PUBLIC_LAYER, Settings

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
    note: str | None = None  # why nothing was written (a shared index ahead of this clone)


class SharedIndexAheadError(StigmergyError):
    """This clone lacks the commit the shared index reflects: writing would take it back."""


def embed_missing(
    store: IndexStore, texts: dict[str, str], fp: str, embedder_factory: Callable[[], Embedder],
    progress: Progress | None, pause: Callable[[str], None] = lambda point: None,
) -> tuple[int, float, int | None]:
    """Embed the texts (hash -> embedded text) whose vectors the cache lacks, committing each batch.

    The cache is content-addressed, so a batch is safe to keep on its own: a run killed half-way keeps
    what it embedded, and the next run starts from there. Returns (embedded, seconds, dimension or None)."""
    hashes = sorted(texts)
    have = store.cached_vectors(fp, hashes)
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
        store.put_vectors(fp, [(h, v) for (h, _), v in zip(batch, vecs, strict=True)])
        if progress:
            progress(min(total, i + step), total)
        pause("index-batch")
    return total, embed_seconds, embedder.dimension


# ---------------------------------------------------------------- entry points


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
    from_push: bool = False,
    store: IndexStore | None = None,
) -> IndexReport:
    """Bring the index up to date: `.stigmergy/index.sqlite` with the working tree, or a shared index with
    HEAD's committed pages. `embedder` may be an Embedder or a factory; by default one is made from
    settings, and only when something needs embedding. `lock=False` when the caller already holds the index
    lock (the hook runner). `from_push`: the server's hook after a push, whose HEAD is the shared history
    (it writes whatever the shared index held before). `store`: an open shared index to write through and
    leave open (the index worker's warm connection), instead of opening and closing one."""
    t_start = time.perf_counter()
    layout = Layout(root)
    git = Git(root)
    fp = current_fingerprint(settings, layout)
    lexicon = current_lexicon(settings)
    tokens, window = fragment_tokens(settings.embedder)
    if embedder is None:
        def factory() -> Embedder:
            return make_embedder(settings.embedder, layout.cache_dir)
    elif callable(embedder) and not hasattr(embedder, "embed"):
        factory = embedder  # type: ignore[assignment]
    else:
        def factory() -> Embedder:
            return embedder  # type: ignore[return-value]

    loc = index_location(layout, settings)
    with index_lock(layout, settings.lock.timeout_seconds) if lock else contextlib.nullcontext():
        own = store is None
        store = open_index(loc, rebuild=rebuild) if store is None else store
        try:
            with store.writer_lock(settings.lock.timeout_seconds):
                head = git.head()
                indexed = store.meta("commit")
                if store.shared:
                    full, docs, gone, note, commits = _shared_changes(
                        store, git, head, indexed, fp, settings, tokens, window,
                        rebuild=rebuild or store.meta("lexicon") != lexicon, from_push=from_push)
                    if note is not None:
                        pages_total, frags_total = store.totals()
                        return IndexReport(commit=indexed, full=False, pages_indexed=0, pages_removed=0,
                                           pages_total=pages_total, fragments_total=frags_total, fragments_embedded=0,
                                           fragments_reused=0, embed_seconds=0.0,
                                           seconds=round(time.perf_counter() - t_start, 3), note=note)
                else:
                    commits = {"": head or ""}
                    full = (rebuild or store.meta("fingerprint") != fp or store.meta("lexicon") != lexicon
                            or not indexed or not commit_exists(git, indexed))
                    docs, gone = _worktree_changes(store, git, root, indexed, full, settings, tokens, window)
                # 2. Embed what the vector cache lacks, a committed batch at a time (a killed run resumes here).
                texts = {f.content_hash(doc.title): f.embed_text(doc.title) for doc, _, _ in docs for f in doc.fragments}
                embedded, embed_s, dimension = embed_missing(store, texts, fp, factory, progress, pause)
                # 3. Swap the page rows in one transaction: readers see the old index or the new one.
                with store.transaction():
                    if full:
                        store.clear()
                    store.remove_pages([*gone, *(old_row for _, _, old_row in docs if old_row)])
                    need: list[NewFragment] = store.insert_pages([(doc, sha) for doc, sha, _ in docs])
                    store.attach_vectors(need, fp, dimension)
                    indexed_n, removed_n = len(docs), len(gone)
                    reused = len(need) - embedded
                    if full:
                        # The cache keeps vectors of other fingerprints and of vanished text until a full build.
                        store.prune_vectors(keep_fingerprint=fp)
                    store.analyze(full)
                    for prefix, commit in commits.items():
                        store.set_meta(LAYER_COMMIT + prefix if prefix else "commit", commit)
                    # A shared index holds committed pages only: another clone's edits never reach it.
                    store.set_meta("dirty", "[]" if store.shared else json.dumps(sorted(dirty_pages(git, head))))
                    store.set_meta("fingerprint", fp)
                    store.set_meta("lexicon", lexicon)
                    # Every stemmer some page's text went through: a query is stemmed with each of them.
                    known_languages = set(json.loads(store.meta("languages") or "[]")) if not full else set()
                    known_languages.update(lang for doc, _, _ in docs for lang in doc.languages)
                    store.set_meta("languages", json.dumps(sorted(known_languages)))
                    store.set_meta("model", settings.embedder.model)
                    store.set_meta("built_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
                    pause("index-swap")
                pages_total, frags_total = store.totals()
        finally:
            if own:
                store.close()
    return IndexReport(
        commit=head, full=full, pages_indexed=indexed_n, pages_removed=removed_n, pages_total=pages_total,
        fragments_total=frags_total, fragments_embedded=embedded, fragments_reused=max(0, reused),
        embed_seconds=round(embed_s, 3), seconds=round(time.perf_counter() - t_start, 3),
    )


Changes = list[tuple[PageDoc, str, IndexedPage | None]]


def _worktree_changes(store: IndexStore, git: Git, root: Path, indexed: str | None, full: bool, settings: Settings,
                      tokens: Tokens | None, window: int) -> tuple[Changes, list[IndexedPage]]:
    """1. Read the working-tree pages that changed since the indexed commit (no transaction: readers keep
    the last complete index)."""
    if full:
        candidates = page_files(git)
        known: dict[str, IndexedPage] = {}
    else:
        assert indexed is not None
        candidates = changed_since(git, indexed)
        candidates |= set(json.loads(store.meta("dirty") or "[]"))
        known = store.indexed_pages()
        # A layer in a repository of its own moves without this repository's commits: every page of its
        # checkout is a candidate (unchanged blobs are skipped below), and every indexed one that went.
        prefixes = tuple(layer_checkouts(root))
        candidates |= checkout_page_files(git) | {p for p in known if prefixes and p.startswith(prefixes)}
    docs: Changes = []
    gone: list[IndexedPage] = []
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
        if old and old.blob_sha == sha:
            continue
        doc = parse_page(path, data.decode("utf-8", "replace"), settings.index, tokens, window)
        if doc is not None:
            docs.append((doc, sha, old))
    return docs, gone


def _repositories(store: IndexStore, git: Git, head: str | None, settings: Settings) -> list[_Repo]:
    """The public repository and each layer checked out here as a repository of its own, with the commit
    the shared index reflects for it. A layer that names a repository but is not checked out here is left
    out: its indexed pages are someone else's to update, never this clone's to remove."""
    checkouts = layer_checkouts(git.root)
    own = tuple(sorted({*(layer_prefix(layer.name) for layer in settings.layers if layer.repository), *checkouts}))
    repos = [_Repo("", git, head, store.meta("commit"), own)]
    for prefix, folder in checkouts.items():
        inner = Git(folder)
        repos.append(_Repo(prefix, inner, inner.head(), store.meta(LAYER_COMMIT + prefix) or None, ()))
    return repos


@dataclass(frozen=True)
class _Repo:
    prefix: str  # "" for the public repository, else `layers/<l>/`
    git: Git
    head: str | None
    indexed: str | None
    others: tuple[str, ...]  # prefixes inside this one's tree that belong to other repositories

    def holds(self, path: str) -> bool:
        return path.startswith(self.prefix) and not path.startswith(self.others) if self.others else \
            path.startswith(self.prefix)


LAYER_COMMIT = "commit:"  # meta key of the commit a layer's own repository was indexed at, + its prefix


def _shared_changes(store: IndexStore, git: Git, head: str | None, indexed: str | None, fp: str, settings: Settings,
                    tokens: Tokens | None, window: int, *, rebuild: bool, from_push: bool
                    ) -> tuple[bool, Changes, list[IndexedPage], str | None, dict[str, str]]:
    """1. For a shared index: HEAD's committed pages whose blob differs from the indexed one (never the
    working tree: an edit not committed and pushed is this clone's alone), in the public repository and
    in each layer checked out as a repository of its own (each judged by its own commits). A clone behind
    the shared index writes nothing for that repository; one that lacks the indexed commit is refused
    unless it rebuilds on purpose. Returns also the commit to record for each repository written."""
    repos = _repositories(store, git, head, settings)
    rel = {r.prefix: relation(r.git, r.indexed, r.head) for r in repos}
    full = rebuild or store.meta("fingerprint") != fp or rel[""] == "none"
    take: list[_Repo] = []
    notes: list[str] = []
    for r in repos:
        where = f" for {r.prefix.rstrip('/')}" if r.prefix else ""
        if full or rel[r.prefix] in ("ahead", "none") or (from_push and rel[r.prefix] != "same"):
            take.append(r)
        elif rel[r.prefix] in ("behind", "unknown"):
            notes.append(f"the shared index is ahead of this clone{where} (at {str(r.indexed)[:10]}"
                         + (", a commit this clone does not have" if rel[r.prefix] == "unknown" else "")
                         + "): nothing written; `git pull` brings its pages here")
        elif rel[r.prefix] == "diverged":
            raise SharedIndexAheadError(
                f"the shared index reflects commit {str(r.indexed)[:10]}{where}, which this clone has diverged from; "
                "nothing written",
                hint="`git pull` first (or `stigmergy index --rebuild` to index this clone's HEAD anyway)")
    if not take:
        return False, [], [], (notes[0] if notes else "the shared index already reflects this commit"), {}
    known = {} if full else store.indexed_pages()
    docs: Changes = []
    gone: list[IndexedPage] = []
    for r in take:
        tree = tree_pages(r.git, r.head, r.prefix)
        mine = {p: row for p, row in known.items() if r.holds(p)}
        wanted = sorted(p for p, sha in tree.items() if p not in mine or mine[p].blob_sha != sha)
        gone += [row for p, row in sorted(mine.items()) if p not in tree]
        blobs = read_blobs(r.git, [tree[p] for p in wanted])
        for path in wanted:
            data = blobs.get(tree[path])
            if data is None:
                continue
            doc = parse_page(path, data.decode("utf-8", "replace"), settings.index, tokens, window)
            if doc is not None:
                docs.append((doc, tree[path], mine.get(path)))
            elif path in mine:
                gone.append(mine[path])
    commits = {r.prefix: r.head or "" for r in take}
    if full:  # every row goes: a layer this clone has not checked out is indexed again by one that has
        commits.update({key[len(LAYER_COMMIT):]: "" for key in store.all_meta()
                        if key.startswith(LAYER_COMMIT) and key[len(LAYER_COMMIT):] not in commits})
    return full, docs, gone, None, commits


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
    loc = index_location(layout, settings)
    if not loc.exists():
        raise CheckFailedError("there is no index yet", hint="run `stigmergy index`")
    store = open_index(loc)
    try:
        fp = current_fingerprint(settings, layout)
        if store.meta("fingerprint") != fp:
            problems.append("embedding fingerprint differs from the configured model/chunking")
        if store.meta("lexicon") != current_lexicon(settings):
            problems.append("full-text rows were analysed with other [index] languages or an older analysis")
        indexed = store.page_shas()
        # A shared index is checked against the commit it reflects, a local one against the working tree.
        if store.shared:
            shas = {}
            for r in _repositories(store, git, git.head(), settings):
                at = r.indexed if r.indexed and commit_exists(r.git, r.indexed) else r.head
                shas.update({p: sha for p, sha in tree_pages(r.git, at, r.prefix).items() if r.holds(p)})
            # Pages of a layer in a repository not checked out here cannot be checked from this clone.
            elsewhere = tuple(p for p in _repositories(store, git, None, settings)[0].others
                              if not (root / p).joinpath(".git").exists())
            indexed = {p: sha for p, sha in indexed.items() if not (elsewhere and p.startswith(elsewhere))}
        else:
            shas = {p: blob_sha((root / p).read_bytes()) for p in page_files(git)}
        files = set(shas)
        for path in sorted(files - set(indexed)):
            problems.append(f"not indexed: {path}")
        for path in sorted(set(indexed) - files):
            problems.append(f"indexed but gone: {path}")
        for path in sorted(files & set(indexed)):
            if shas[path] != indexed[path]:
                problems.append(f"changed since indexed: {path}")
        counts = store.integrity(fp)
        n_frag = counts.fragments
        if counts.fulltext_rows != n_frag:
            problems.append(f"full-text rows {counts.fulltext_rows} != fragments {n_frag}")
        if counts.fragments_without_vector:
            problems.append(f"{counts.fragments_without_vector} fragments have no vector")
        n_vec = 0
        for lv in counts.layers:
            if lv.vectors != lv.fragments:
                problems.append(f"layer {lv.layer}: {lv.vectors} vectors for {lv.fragments} fragments")
            n_vec += lv.vectors
        if n_vec != n_frag and not any(p.startswith("layer ") for p in problems):
            problems.append(f"vector rows {n_vec} != fragments {n_frag}")
    finally:
        store.close()
    report = CheckReport(pages=len(indexed), fragments=n_frag, problems=tuple(problems))
    if problems:
        err = CheckFailedError(f"the index has drifted from the repository ({len(problems)} problems)",
                               hint="run `stigmergy index` (or `stigmergy index --rebuild`)")
        err.report = report  # type: ignore[attr-defined]
        raise err
    return report


__all__ = [
    "PUBLIC_LAYER", "CheckReport", "Freshness", "IndexReport", "build_index", "check_index", "freshness",
    "index_building", "prepare", "try_index_lock",
]
