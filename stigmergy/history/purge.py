"""Purge erased captures from the evidence store, the state database and the index.

Each purge is idempotent (a resumed erase runs it again) and ends with the database rewritten
(VACUUM, then the WAL truncated), because deleted rows stay readable in free pages and the WAL until then.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import Any

from stigmergy.errors import StigmergyError
from stigmergy.garden.snapshot import layer_of
from stigmergy.pages.moc import map_link
from stigmergy.repo.layout import layer_prefix, map_relpath
from stigmergy.repo.operations import Repository

REDACTED = "[erased]"


def purge_evidence(repo: Repository, objects: Collection[str]) -> int:
    return sum(1 for obj in objects if repo.evidence.delete(obj))


def _redact(value: Any, erased: Collection[str]) -> Any:
    if isinstance(value, str):
        return REDACTED if any(cid in value for cid in erased) else value
    if isinstance(value, list):
        return [_redact(v, erased) for v in value]
    if isinstance(value, dict):
        return {k: _redact(v, erased) for k, v in value.items()}
    return value


def _blank_ids(text: str, erased: Collection[str]) -> str:
    """Erased ids (and paths) left in keys (a manifest keyed by path) or summaries are blanked."""
    for cid in erased:
        text = text.replace(cid, "cap_[erased]" if cid.startswith("cap_") else REDACTED)
    return text


def purge_state(
    repo: Repository, erased: Collection[str], erased_ops: Collection[str], mapping: Mapping[str, str | None],
    gone_pages: Collection[str] = (), diff: Callable[[str], bytes | None] | None = None,
) -> None:
    """Drop the erased captures' rows and operations; point every other change record at its rewritten
    commit; redact manifests and regenerate patches that named an erased capture (`diff`: a commit's patch,
    from whichever repository holds it; this one's by default)."""
    ids = tuple(erased)
    erased = (*ids, *gone_pages)  # what a change record must not name: the ids, and pages only they made
    state = repo.state
    old_patches: set[str] = set()
    state.drop_erased(ids, tuple(erased_ops))
    rows = state.operation_records()
    # A patch that wrote a map of content names a gone page by its map link (its title on the same line).
    patch_needles = [*erased, *(map_link(map_relpath(layer_of(p)), p) for p in gone_pages)]
    for record in rows:
        op_id, commit, manifest_text, patch_sha, summary = (
            record.id, record.commit_sha, record.manifest_json, record.patch_sha, record.summary)
        new_commit = mapping.get(commit, commit) if commit else commit
        manifest = json.loads(manifest_text)
        named = any(cid in manifest_text or cid in summary for cid in erased)
        patch_named = False
        if patch_sha:
            try:
                stored = repo.evidence.get(patch_sha, verify=False)
                patch_named = any(cid.encode() in stored for cid in patch_needles)
            except StigmergyError:
                patch_named = False
        if new_commit == commit and not named and not patch_named:
            continue
        if named:
            manifest = json.loads(_blank_ids(json.dumps(_redact(manifest, erased)), erased))
        if commit and new_commit is None:
            manifest.setdefault("reasons", []).append("its commit held only erased content and was removed by an erase")
        new_patch = patch_sha
        if patch_named and patch_sha:
            old_patches.add(patch_sha)
            new_patch = None
            if new_commit:
                patch = (diff(new_commit) if diff is not None else
                         repo.git.run_bytes("diff-tree", "-p", "--binary", "--root", "-r", "--no-commit-id", new_commit))
                new_patch = repo.evidence.put(patch) if patch else None
        state.rewrite_operation(op_id, new_commit, manifest, new_patch, _blank_ids(summary, erased))
    still = {patch for _op, patch in state.patches()}
    for obj in old_patches - still:
        repo.evidence.delete(obj)
    head = repo.git.head()
    if head:
        repo.state.set_meta("last_commit", head)
    state.compact()


def purge_index(repo: Repository, touched: Collection[str], layer: str | None, new_commit: str | None,
                mapping: Mapping[str, str | None] | None = None) -> None:
    """Remove every index row of a touched page (and of the erased layer), the vectors no fragment uses any
    more, and the full-text segments that held them. Touched pages that still exist are left for the next
    `stigmergy index` (marked dirty), which re-embeds only what changed."""
    from stigmergy.index.build import LAYER_COMMIT
    from stigmergy.index.freshness import index_lock
    from stigmergy.index.store import index_location, open_index

    where = index_location(repo.layout, repo.settings)
    if not where.exists():
        return
    with index_lock(repo.layout, repo.settings.lock.timeout_seconds):
        store = open_index(where)
        try:
            with store.transaction():
                prefix = layer_prefix(layer) if layer else None
                gone = [page for path, page in store.indexed_pages().items()
                        if path in touched or (prefix and path.startswith(prefix)) or _stale(repo, path, page.blob_sha)]
                store.remove_pages(gone)
                paths = sorted({*touched, *(page.path for page in gone)})
                if layer:
                    store.drop_layer_vectors(layer)
                store.prune_vectors()
                store.optimize_fulltext()
                # Planner statistics keep sample keys of indexed columns (page ids and paths): rebuilt in full.
                store.analyze(full=True)
                dirty = set(json.loads(store.meta("dirty") or "[]"))
                dirty |= {p for p in paths if (repo.root / p).is_file()}
                store.set_meta("dirty", json.dumps(sorted(dirty)))
                if new_commit:
                    store.set_meta("commit", new_commit)
                for own in sorted(repo.own_repository_layers):
                    # The commit a layer's own repository was indexed at, rewritten there too.
                    key = f"{LAYER_COMMIT}{layer_prefix(own)}"
                    if (was := store.meta(key)) and (now := (mapping or {}).get(was)):
                        store.set_meta(key, now)
            store.compact()
        finally:
            store.close()


def _stale(repo: Repository, path: str, sha: str) -> bool:
    """A row indexed from other content than the working tree holds now: it may hold erased text (a page a
    `delete` swept before the index caught up), so it goes and is indexed again."""
    from stigmergy.repo.git import blob_sha

    try:
        return blob_sha((repo.root / path).read_bytes()) != sha
    except OSError:
        return True
