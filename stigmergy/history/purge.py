"""Purge erased captures from the evidence store, the state database and the index.

Each purge is idempotent (a resumed erase runs it again) and ends with the database rewritten
(VACUUM, then the WAL truncated), because deleted rows stay readable in free pages and the WAL until then.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
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


def _vacuum(conn: Any) -> None:
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def purge_state(
    repo: Repository, erased: Collection[str], erased_ops: Collection[str], mapping: Mapping[str, str | None],
    gone_pages: Collection[str] = (),
) -> None:
    """Drop the erased captures' rows and operations; point every other change record at its rewritten
    commit; redact manifests and regenerate patches that named an erased capture."""
    ids = tuple(erased)
    erased = (*ids, *gone_pages)  # what a change record must not name: the ids, and pages only they made
    conn = repo.state.conn
    marks_c = ",".join("?" * len(ids)) or "NULL"
    ops = tuple(erased_ops)
    marks_o = ",".join("?" * len(ops)) or "NULL"
    old_patches: set[str] = set()
    with repo.state.tx() as c:
        c.execute(f"DELETE FROM captures WHERE capture_id IN ({marks_c})", ids)
        c.execute(f"DELETE FROM queue WHERE capture_id IN ({marks_c})", ids)
        c.execute(f"DELETE FROM operations WHERE id IN ({marks_o})", ops)
        c.execute(f"DELETE FROM inflight WHERE op_id IN ({marks_o})", ops)
    rows = conn.execute("SELECT id, commit_sha, manifest, patch_sha, summary FROM operations").fetchall()
    # A patch that wrote a map of content names a gone page by its map link (its title on the same line).
    patch_needles = [*erased, *(map_link(map_relpath(layer_of(p)), p) for p in gone_pages)]
    for op_id, commit, manifest_text, patch_sha, summary in rows:
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
        if patch_named:
            old_patches.add(patch_sha)
            new_patch = None
            if new_commit:
                patch = repo.git.run_bytes("diff-tree", "-p", "--binary", "--root", "-r", "--no-commit-id", new_commit)
                new_patch = repo.evidence.put(patch) if patch else None
        with repo.state.tx() as c:
            c.execute(
                "UPDATE operations SET commit_sha=?, manifest=?, patch_sha=?, summary=? WHERE id=?",
                (new_commit, json.dumps(manifest, sort_keys=True, default=str), new_patch,
                 _blank_ids(summary, erased), op_id),
            )
    still = {r[0] for r in conn.execute("SELECT patch_sha FROM operations WHERE patch_sha IS NOT NULL")}
    for obj in old_patches - still:
        repo.evidence.delete(obj)
    head = repo.git.head()
    if head:
        repo.state.set_meta("last_commit", head)
    _vacuum(conn)


def purge_index(repo: Repository, touched: Collection[str], layer: str | None, new_commit: str | None) -> None:
    """Remove every index row of a touched page (and of the erased layer), the vectors no fragment uses any
    more, and the full-text segments that held them. Touched pages that still exist are left for the next
    `stigmergy index` (marked dirty), which re-embeds only what changed."""
    if not repo.layout.index_db.exists():
        return
    from stigmergy.index import store
    from stigmergy.index.build import _remove_page, index_lock  # the index's own row removal

    with index_lock(repo.layout, repo.settings.lock.timeout_seconds):
        conn = store.connect(repo.layout.index_db)
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                paths = sorted(touched)
                prefix = layer_prefix(layer) if layer else None
                rows = conn.execute("SELECT id, path, layer, blob_sha FROM pages").fetchall()
                gone = [(pid, path, lay) for pid, path, lay, sha in rows
                        if path in touched or (prefix and path.startswith(prefix)) or _stale(repo, path, sha)]
                for pid, _path, lay in gone:
                    _remove_page(conn, pid, lay)
                paths = sorted({*paths, *(path for _pid, path, _lay in gone)})
                if layer:
                    table = store.vec_table(conn, layer)
                    if table:
                        conn.execute(f"DROP TABLE IF EXISTS {table}")
                        conn.execute("DELETE FROM vec_tables WHERE layer = ?", (layer,))
                conn.execute("DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM fragments f WHERE f.hash = vectors.hash)")
                conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
                # Planner statistics (sqlite_stat4) keep sample keys of indexed columns: page ids and paths.
                conn.execute("ANALYZE")
                dirty = set(json.loads(store.get_meta(conn, "dirty") or "[]"))
                dirty |= {p for p in paths if (repo.root / p).is_file()}
                store.set_meta(conn, "dirty", json.dumps(sorted(dirty)))
                if new_commit:
                    store.set_meta(conn, "commit", new_commit)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            _vacuum(conn)
        finally:
            conn.close()


def _stale(repo: Repository, path: str, sha: str) -> bool:
    """A row indexed from other content than the working tree holds now: it may hold erased text (a page a
    `delete` swept before the index caught up), so it goes and is indexed again."""
    from stigmergy.repo.git import blob_sha

    try:
        return blob_sha((repo.root / path).read_bytes()) != sha
    except OSError:
        return True
