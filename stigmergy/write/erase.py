"""Erase captures (or a whole layer) from everywhere this repository holds them.

`plan_erase` works out what an erase would do and changes nothing (the dry run); `run_erase` does it:
1. a journal (`.stigmergy/erase.json`) records what is being erased, so `resume` can finish the erase
   if the process dies anywhere after this point (every later step is idempotent);
2. remote-tracking refs that held erased commits are deleted (they would lie about the remote);
3. every ref's history is rewritten with git-filter-repo (`rewrite.py`), the working tree follows HEAD,
   then reflogs are expired and unreachable objects pruned;
4. the evidence store, the state database and the index are purged (`purge.py`);
5. one empty commit records that an erasure happened: the rationale and the sha256 of each erased id,
   never the ids or the content;
6. the journal is deleted.

A restricted layer kept in a Git repository of its own (checked out at `layers/<l>/`) is rewritten the same
way, before this repository, when it holds an erased capture or a commit naming one (`erase_trees.py`);
this repository is then rewritten only if it names one too. The closing audit searches both.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from stigmergy.errors import EXIT_REFUSED, NotFoundError, StigmergyError, UsageError
from stigmergy.history.rewrite import RewriteSpec, drop_unreachable, rewrite_history
from stigmergy.history.scrub import sweep_working_tree
from stigmergy.pages.source import CAPTURE_ID_RE
from stigmergy.repo import page_memo
from stigmergy.repo.git import Git
from stigmergy.repo.ids import new_id
from stigmergy.repo.layout import classify, layer_prefix
from stigmergy.repo.operations import Repository, commit_message, utc_now
from stigmergy.repo.state import OperationRow
from stigmergy.settings import PUBLIC_LAYER
from stigmergy.write.erase_trees import (
    HERE,
    Tree,
    commits_naming,
    diff_of,
    tree_at,
    tree_of,
    trees,
    unreached,
)


class EraseRefusedError(StigmergyError):
    """The erase will not start now (pending captures, uncommitted edits, shared evidence); exit 3."""

    exit_code = EXIT_REFUSED


MAP_FILE = "erase-commit-map.json"


@dataclass(frozen=True)
class ErasedCapture:
    capture_id: str
    layer: str
    source_path: str
    objects: tuple[str, ...]  # evidence objects: original and readable bytes
    operations: tuple[str, ...]  # operation ids of its capture and filing


@dataclass(frozen=True)
class Remote:
    name: str
    url: str
    refs: tuple[str, ...]  # remote-tracking refs that held erased commits (deleted by the erase)
    where: str = HERE  # the repository it is a remote of: "" this one, "layers/<l>/" a layer's own


@dataclass(frozen=True)
class ErasePlan:
    op_id: str
    rationale: str
    layer: str | None
    captures: tuple[ErasedCapture, ...]
    commits_touching: tuple[str, ...]
    commits_rewritten: int
    pages_changed: tuple[str, ...]
    pages_deleted: tuple[str, ...]
    evidence_objects: tuple[str, ...]  # originals, readable text, and patches of the erased operations
    patches_rewritten: tuple[str, ...]  # operations of other captures whose patch names an erased one
    remotes: tuple[Remote, ...]
    head: str | None
    residue: tuple[dict[str, str], ...] = field(default=())
    # Objects a capture of a layer the eraser cannot read holds too: that layer's own evidence, kept (not
    # purged, not audited) and never named, so the plan reads the same whether or not such a capture exists.
    kept: tuple[str, ...] = field(default=())
    # The repositories whose history is rewritten, by prefix ("" this one, "layers/<l>/" a layer's own),
    # layers first, and the HEAD each had when the erase was planned.
    repositories: tuple[str, ...] = field(default=(HERE,))
    repository_heads: tuple[str, ...] = field(default=())
    # Layers kept in a repository this clone has no checkout of: not searched, not rewritten.
    unreached: tuple[str, ...] = field(default=())

    @property
    def erased_ids(self) -> tuple[str, ...]:
        return tuple(c.capture_id for c in self.captures)

    @property
    def erased_hashes(self) -> tuple[str, ...]:
        return tuple(hashlib.sha256(c.capture_id.encode()).hexdigest() for c in self.captures)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("kept")
        data["erased_hashes"] = list(self.erased_hashes)
        return data


def _scan_sources(repo: Repository) -> dict[str, str]:
    """{capture id: source page path} for every source page Git tracks (here and in each layer's own
    repository checked out here)."""
    out: dict[str, str] = {}
    for tree in trees(repo):
        for local in tree.git.ls_files(*(("sources",) if tree.prefix else ("sources", "layers"))):
            path = tree.prefix + local
            kind = classify(path)
            if kind and kind[0] == "source":
                out[posixpath.basename(path)[:-3]] = path
    return out


def _source_text(repo: Repository, path: str) -> str:
    """The source page as the working tree has it, else as the last commit that had it (a deleted source)."""
    try:
        return (repo.root / path).read_text(encoding="utf-8")
    except OSError:
        pass
    tree = tree_of(trees(repo), path)
    commit = tree.run("log", "--all", "-1", "--format=%H", "--diff-filter=A", "--", tree.local(path)).strip()
    return tree.run("show", f"{commit}:{tree.local(path)}") if commit else ""


def _in_history(repo: Repository, name: str) -> list[tuple[str, str, str]]:
    """A full capture id whose source page only history still has (deleted with `stigmergy delete`)."""
    if not CAPTURE_ID_RE.match(name):
        return []
    paths: list[str] = []
    for tree in trees(repo):
        out = tree.run("log", "--all", "--diff-filter=A", "--name-only", "--format=", "--",
                       f"sources/*/*/{name}.md", *(() if tree.prefix else (f"layers/*/sources/*/*/{name}.md",)))
        paths += [tree.prefix + p for p in out.split("\n") if p.strip()]
    paths = sorted(set(paths))
    return [(name, (classify(p) or ("", PUBLIC_LAYER))[1], p) for p in paths[:1]]


def _artifact_objects(repo: Repository, path: str) -> tuple[str, ...]:
    from stigmergy.pages.frontmatter import split_front_matter

    try:
        meta, _, _ = split_front_matter(_source_text(repo, path))
    except StigmergyError:
        return ()
    objects: list[str] = []
    for a in meta.get("artifacts") or []:
        if isinstance(a, dict):
            objects += [str(a[k]) for k in ("sha256", "readable_sha256") if isinstance(a.get(k), str)]
    return tuple(dict.fromkeys(objects))


def _resolve_targets(repo: Repository, captures: Sequence[str], layer: str | None,
                     readable: set[str] | None = None) -> list[tuple[str, str, str]]:
    """(capture id, layer, source path) for each capture named, or for every capture of `layer`. With
    `readable`, a capture of another layer is not there: a real restricted id and a made-up one get the
    same answer."""
    on_disk = _scan_sources(repo)
    known = {r.capture_id: (r.layer, r.source_path) for r in repo.state.captures()}
    for cid, path in on_disk.items():
        known.setdefault(cid, ((classify(path) or ("", PUBLIC_LAYER))[1], path))
    if layer is not None:
        return sorted((cid, lay, path) for cid, (lay, path) in known.items() if lay == layer)
    if readable is not None:
        known = {cid: v for cid, v in known.items() if v[0] in readable}
    out: dict[str, tuple[str, str, str]] = {}
    for name in captures:
        matches = [cid for cid in known if cid == name or (len(name) >= 8 and cid.startswith(name))]
        if not matches:
            for cid, lay, path in _in_history(repo, name):
                if readable is None or lay in readable:
                    known[cid] = (lay, path)
                    matches = [cid]
        if len(matches) != 1:
            raise NotFoundError(
                f"capture {name!r}: {'no' if not matches else 'more than one'} capture matches",
                hint="`stigmergy log --kind capture` lists them",
            )
        cid = matches[0]
        out[cid] = (cid, *known[cid])
    return sorted(out.values())


def _operations_of(repo: Repository, targets: Sequence[tuple[str, str, str]]) -> dict[str, list[str]]:
    """{capture id: its operations}: from the state database, and from the trailer of every commit that
    added its source page (the state may have been lost; the commit message still names the capture)."""
    ops: dict[str, list[str]] = {cid: [] for cid, _, _ in targets}
    all_trees = trees(repo)
    for cid, _, path in targets:
        tree = tree_of(all_trees, path)
        out = tree.run("log", "--all", "--diff-filter=A", "--format=%(trailers:key=Stigmergy-Operation,valueonly)",
                       "--", tree.local(path))
        ops[cid] += [op for op in out.split() if op.startswith("op_") and op not in ops[cid]]
    for row in repo.state.captures():
        if row.capture_id in ops:
            ops[row.capture_id].append(row.op_id)
    for record in repo.state.operation_records():
        capture = json.loads(record.manifest_json).get("capture")
        if capture in ops and record.id not in ops[capture]:
            ops[capture].append(record.id)
    return ops


def _touching_commits(repo: Repository, ids: Sequence[str], layer: str | None) -> list[str]:
    if layer is not None:
        out = repo.git.run("log", "--all", "--format=%H", "--", layer_prefix(layer).rstrip("/"))
    else:
        out = repo.git.run("log", "--all", "--format=%H", "--pickaxe-regex", "-S", "|".join(ids))
    return [line for line in out.split() if line]


def _rewritten_count(git: Git, touching: Sequence[str]) -> int:
    """How many commits of all refs descend from (or are) a commit that touches erased content."""
    if not touching:
        return 0
    out = git.run("rev-list", "--all", "--topo-order", "--reverse", "--parents")
    marked = set(touching)
    for line in out.splitlines():
        sha, *parents = line.split()
        if any(p in marked for p in parents):
            marked.add(sha)
    return len(marked)


def _remotes(tree: Tree, touching: Sequence[str]) -> list[Remote]:
    names = [n for n in tree.run("remote").split() if n]
    held: dict[str, set[str]] = {}
    if touching:
        # The oldest touching commits are enough: a ref that holds a later one holds them too, or not.
        for commit in touching[-8:]:
            refs = tree.run("for-each-ref", "--format=%(refname)", "--contains", commit, "refs/remotes")
            for ref in refs.split():
                held.setdefault(ref.split("/")[2], set()).add(ref)
    return [
        Remote(name, tree.run("remote", "get-url", name).strip(), tuple(sorted(held.get(name, ()))), tree.prefix)
        for name in names
    ]


def _page_effects(repo: Repository, sources: Sequence[str], layer: str | None) -> tuple[list[str], list[str]]:
    """(pages changed, pages deleted) in the working tree: the reference sweep for the erased sources, or
    every page of an erased layer."""
    if layer is not None:
        prefix = layer_prefix(layer)
        pages = [p for p in repo.git.ls_files(prefix.rstrip("/")) if (classify(p) or ("source",))[0] != "source"]
        return [], sorted(pages)
    changes, _ = sweep_working_tree(repo.root, repo.settings, sources, utc_now())
    wiki = {p: t for p, t in changes.items() if (classify(p) or ("source",))[0] != "source"}
    return sorted(p for p, t in wiki.items() if t is not None), sorted(p for p, t in wiki.items() if t is None)


def _shared_objects(repo: Repository, objects: set[str], erased_paths: set[str]) -> dict[str, tuple[str, str]]:
    """Evidence objects of the erased captures that another capture holds too: {object: (capture, layer)}."""
    shared: dict[str, tuple[str, str]] = {}
    for cid, path in sorted(_scan_sources(repo).items()):
        if path in erased_paths:
            continue
        for obj in _artifact_objects(repo, path):
            if obj in objects:
                shared.setdefault(obj, (cid, (classify(path) or ("", PUBLIC_LAYER))[1]))
    return shared


def _patch_mentions(repo: Repository, erased: set[str], erased_ops: set[str]) -> tuple[list[str], list[str]]:
    """(patch objects of the erased operations, other operations whose patch names an erased capture)."""
    own, others = [], []
    for op_id, patch_sha in repo.state.patches():
        if op_id in erased_ops:
            own.append(patch_sha)
            continue
        try:
            data = repo.evidence.get(patch_sha, verify=False)
        except StigmergyError:
            continue
        if any(cid.encode() in data for cid in erased):
            others.append(op_id)
    return own, others


def plan_erase(
    repo: Repository, captures: Sequence[str], layer: str | None, rationale: str, *, reader: str | None = None
) -> ErasePlan:
    """What an erase would do. Changes nothing. With `reader`, a capture or layer they may not read is
    refused (the plan lists its pages' paths)."""
    if not rationale.strip():
        raise UsageError("--rationale is required: say why this is erased (it is recorded; never put the erased content in it)")
    if bool(captures) == (layer is not None):
        raise UsageError("name the captures to erase, or one --layer, not both")
    if layer is not None:
        if layer == PUBLIC_LAYER:
            raise UsageError("--layer public would erase the whole wiki; name captures instead")
        if repo.settings.layer(layer).repository:
            raise UsageError(f"layer {layer} lives in its own repository: erasing all of it is deleting that "
                             "repository at its host (and every clone of it); nothing changed",
                             hint="name its captures to erase them from its history, or delete the repository")
    readable: set[str] | None = None
    if reader is not None:
        from stigmergy.layers import readable_layers

        readable = set(readable_layers(repo.settings, reader))
    targets = _resolve_targets(repo, captures, layer, readable)
    if not targets and layer is None:
        raise NotFoundError("nothing to erase")
    if reader is not None:
        hidden = sorted({lay for _, lay, _ in targets} - set(readable_layers(repo.settings, reader)))
        if layer is not None and layer not in readable_layers(repo.settings, reader):
            hidden = sorted({*hidden, layer})
        if hidden:
            raise EraseRefusedError(
                f"{reader or 'this identity'} is not a reader of layer {', '.join(hidden)}",
                hint="erase as one of its readers (--as)",
            )
    # The captures of a layer kept in a repository of its own are erased there (its checkout must be here);
    # the whole of such a layer is its repository, which its host deletes: not rewritten to nothing here.
    own = repo.own_repository_layers
    all_trees = trees(repo, required={lay for _, lay, _ in targets} & own)
    ids = {cid for cid, _, _ in targets}
    ops = _operations_of(repo, targets)
    erased_caps = tuple(
        ErasedCapture(cid, lay, path, _artifact_objects(repo, path), tuple(sorted(ops.get(cid, ()))))
        for cid, lay, path in targets
    )
    objects = {o for c in erased_caps for o in c.objects}
    shared = _shared_objects(repo, objects, {c.source_path for c in erased_caps})
    kept = {o for o, (_, lay) in shared.items() if readable is not None and lay not in readable}
    shared = {o: cid for o, (cid, _) in shared.items() if o not in kept}
    if shared:
        obj, other = sorted(shared.items())[0]
        raise EraseRefusedError(
            f"capture {other} holds the same bytes (evidence {obj[:12]}…) as a capture being erased",
            hint=f"erase {other} too, or the bytes stay in the evidence store",
        )
    erased_ops = {o for c in erased_caps for o in c.operations}
    own_patches, others = _patch_mentions(repo, ids, erased_ops)
    touching: dict[str, list[str]] = {}
    for tree in all_trees:
        if tree.prefix:
            touching[tree.prefix] = commits_naming(tree, sorted(ids))
        else:
            touching[HERE] = _touching_commits(repo, sorted(ids), layer) if (ids or layer) else []
    # A layer's repository is rewritten when it holds one of the captures or a commit naming one (its pages
    # may cite a public source); this one as before, unless only layers' own repositories hold anything.
    holders = {tree_of(all_trees, c.source_path).prefix for c in erased_caps}
    if layer is None and HERE not in holders:
        touching[HERE] = commits_naming(tree_at(all_trees, HERE), sorted(ids))
    rewritten = [t for t in all_trees if t.prefix in holders or touching[t.prefix] or (not t.prefix and layer)]
    changed, deleted = _page_effects(repo, [c.source_path for c in erased_caps], layer)
    if reader is not None:
        from stigmergy.layers import check_erase, path_layer

        check_erase(repo.settings, reader, {lay for _, lay, _ in targets} | ({layer} if layer else set())
                    | {path_layer(p) for p in (*changed, *deleted)})
    return ErasePlan(
        op_id=new_id("op"),
        rationale=rationale.strip(),
        layer=layer,
        captures=erased_caps,
        commits_touching=tuple(c for t in rewritten for c in touching[t.prefix]),
        commits_rewritten=sum(_rewritten_count(t.git, touching[t.prefix]) for t in rewritten),
        pages_changed=tuple(changed),
        pages_deleted=tuple(deleted),
        evidence_objects=tuple(sorted(objects | set(own_patches))),
        patches_rewritten=tuple(sorted(others)),
        remotes=tuple(r for t in rewritten for r in _remotes(t, touching[t.prefix])),
        head=repo.git.head(),
        kept=tuple(sorted(kept)),
        repositories=tuple(t.prefix for t in rewritten),
        repository_heads=tuple(t.git.head() or "" for t in rewritten),
        unreached=unreached(repo),
    )


# ---------------------------------------------------------------- running it


def _write_journal(repo: Repository, plan: ErasePlan) -> None:
    path = repo.layout.erase_journal
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**plan.to_dict(), "kept": list(plan.kept)}, sort_keys=True))
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _plan_from_journal(data: dict[str, Any]) -> ErasePlan:
    data = dict(data)
    data.pop("erased_hashes", None)
    data["captures"] = tuple(
        ErasedCapture(**{k: tuple(v) if isinstance(v, list) else v for k, v in c.items()})  # type: ignore[arg-type]
        for c in data["captures"]
    )
    data["remotes"] = tuple(Remote(r["name"], r["url"], tuple(r["refs"]), r.get("where", HERE))
                            for r in data["remotes"])
    data["residue"] = ()
    data["kept"] = data.get("kept", [])
    data.setdefault("repositories", [HERE])
    for key in ("commits_touching", "pages_changed", "pages_deleted", "evidence_objects", "patches_rewritten", "kept",
                "repositories", "repository_heads", "unreached"):
        data[key] = tuple(data.get(key, ()))
    return ErasePlan(**data)


def refuse_unless_idle(repo: Repository) -> None:
    """An erase rewrites everything: it needs no capture in flight and a clean tracked working tree."""
    pending = repo.state.pending()
    if pending:
        raise EraseRefusedError(
            f"{len(pending)} capture(s) are pending", hint="run `stigmergy resume` to finish them, then erase"
        )
    for tree in trees(repo):
        if tree.run("status", "--porcelain=v1", "--untracked-files=no").strip():
            where = f" of {tree.prefix}" if tree.prefix else ""
            raise EraseRefusedError(
                f"the working tree{where} has uncommitted changes to tracked files (the history rewrite would "
                "discard them)",
                hint="commit or stash them first",
            )


def run_erase(repo: Repository, plan: ErasePlan) -> ErasePlan:
    """Erase what `plan` names. Call with the writer lock held. Returns the plan with the residue the
    closing audit found (empty when nothing remains)."""
    if repo.layout.erase_journal.exists():
        raise EraseRefusedError("an interrupted erase is waiting", hint="run `stigmergy resume` to finish it first")
    refuse_unless_idle(repo)
    all_trees = trees(repo, required=[p.split("/")[1] for p in plan.repositories if p])
    heads = tuple(tree_at(all_trees, p).git.head() or "" for p in plan.repositories)
    if plan.head != repo.git.head() or (plan.repository_heads and heads != plan.repository_heads):
        raise EraseRefusedError("the repository changed since this erase was planned", hint="run the erase again")
    _write_journal(repo, plan)
    return _finish(repo, plan)


def _finish(repo: Repository, plan: ErasePlan) -> ErasePlan:
    from stigmergy.history.audit import audit
    from stigmergy.history.purge import purge_evidence, purge_index, purge_state

    all_trees = trees(repo, required=[p.split("/")[1] for p in plan.repositories if p])
    for remote in plan.remotes:
        for ref in remote.refs:
            tree_at(all_trees, remote.where).run("update-ref", "-d", ref)
    old_index_commit = _index_commit(repo)
    erased_ops = tuple(sorted({o for c in plan.captures for o in c.operations}))
    repo.pause("erase-journal")
    map_file = repo.layout.state_dir / MAP_FILE
    saved = json.loads(map_file.read_text()) if map_file.exists() else {"map": {}, "gone": []}
    mapping, gone = saved["map"], set(saved["gone"])
    for prefix in plan.repositories:  # layers' own repositories first (the scrub reads this tree as it was)
        spec = RewriteSpec(
            erased=plan.erased_ids,
            drop_paths=tuple(c.source_path for c in plan.captures),
            drop_prefixes=(layer_prefix(plan.layer),) if plan.layer else (),
            dead_pages=() if plan.layer else plan.pages_deleted,
            erased_ops=erased_ops,
            prefix=prefix,
            root=str(repo.root),
        )
        tree = tree_at(all_trees, prefix)
        mapping, gone_here = rewrite_history(tree.root, spec, mapping)
        gone |= set(gone_here)
        # Commit ids and paths only (no content): the purges below need them, and a resumed rewrite maps new
        # to new and finds nothing more to remove. Commit ids of the repositories never collide.
        map_file.write_text(json.dumps({"map": mapping, "gone": sorted(gone)}))
        drop_unreachable(tree.root)
        if prefix:
            repo.pause("erase-layer-rewritten")
    _scrub_open_feedback(repo, plan)
    page_memo.drop(repo.root)  # kept page titles and capture ids: read again from the rewritten pages
    repo.pause("erase-rewritten")
    purge_evidence(repo, tuple(o for o in plan.evidence_objects if o not in plan.kept))
    # Pages that no longer exist anywhere because of the erase name it in their path (a note's title):
    # change records that mention them are redacted like the ids.
    gone_pages = [p for p in gone if not (repo.root / p).exists()]
    purge_state(repo, plan.erased_ids, set(erased_ops), mapping, gone_pages, diff=lambda c: diff_of(all_trees, c))
    touched = {*plan.pages_changed, *plan.pages_deleted, *(c.source_path for c in plan.captures)}
    purge_index(repo, touched, plan.layer, mapping.get(old_index_commit or "", None), mapping)
    _record(repo, plan, all_trees)
    repo.layout.erase_journal.unlink(missing_ok=True)
    map_file.unlink(missing_ok=True)
    needles = sorted({*plan.erased_ids, *plan.evidence_objects} - set(plan.kept))
    residue = [f.to_dict() for f in audit(repo.root, needles, evidence=repo.evidence).findings] if needles else []
    return ErasePlan(**{**plan.__dict__, "residue": tuple(residue)})


def _scrub_open_feedback(repo: Repository, plan: ErasePlan) -> None:
    """Feedback batches not committed yet (the rewrite took the committed ones): their records about an
    erased capture or a page that goes are dropped in place (docs/trust.md)."""
    from stigmergy.repo.files import write_atomic
    from stigmergy.trust.book import SAVED
    from stigmergy.trust.records import batch_files, without

    # The saved fold holds reader notes about the erased pages: it goes (the next read folds again).
    (repo.layout.state_dir / SAVED).unlink(missing_ok=True)
    erased = frozenset(plan.erased_ids)
    dead = frozenset(() if plan.layer else plan.pages_deleted)
    for batch in batch_files(repo.root):
        path = repo.root / batch.relpath
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        kept = "" if plan.layer and batch.layer == plan.layer else without(text, erased, dead)
        if kept != text:
            if kept:
                write_atomic(path, kept.encode("utf-8", "surrogateescape"))
            else:
                path.unlink()


def _index_commit(repo: Repository) -> str | None:
    from stigmergy.index.store import index_location, open_index

    where = index_location(repo.layout, repo.settings)
    if not where.exists():
        return None
    store = open_index(where)
    try:
        return store.meta("commit")
    finally:
        store.close()


def _record(repo: Repository, plan: ErasePlan, all_trees: Sequence[Tree]) -> None:
    """One empty commit that says an erasure happened, and its operation row. Skipped when it landed. When
    every erased capture was a layer's kept in its own repository, the commit is made there: its rationale
    is for that layer's readers, and the public history does not learn that the layer lost anything."""
    if repo.state.has_operation(plan.op_id):
        return
    holders = {tree_of(all_trees, c.source_path).prefix for c in plan.captures}
    git = tree_at(all_trees, holders.pop()).git if len(holders) == 1 and HERE not in holders else repo.git
    head = git.head()
    landed = head is not None and plan.op_id in git.run("log", "-1", "--format=%B", head)
    n = len(plan.captures)
    what = f"layer {plan.layer} ({n} capture(s))" if plan.layer else f"{n} capture(s)"
    body = (
        f"Erased {what} from the history, the evidence store, the index and the change records.\n\n"
        f"Rationale: {' '.join(plan.rationale.split())}\n\n"
        + "".join(f"Erased-Id-Sha256: {h}\n" for h in plan.erased_hashes)
    )
    if not landed:
        identity = repo.settings.identity
        env = {
            "GIT_AUTHOR_NAME": identity.name, "GIT_AUTHOR_EMAIL": identity.email,
            "GIT_COMMITTER_NAME": identity.name, "GIT_COMMITTER_EMAIL": identity.email,
        }
        git.run(
            "commit", "-q", "--no-verify", "--allow-empty", "-F", "-",
            input=commit_message("erase", what, plan.op_id, body).encode(), env=env,
        )
        head = git.head()
    now = utc_now()
    repo.state.record_operation(
        OperationRow(
            id=plan.op_id, kind="erase", status="committed", commit_sha=head, started_at=now, finished_at=now,
            summary=f"erased {what}", patch_sha=None,
            manifest={
                "paths": [], "counts": {"captures": n, "commits_rewritten": plan.commits_rewritten},
                "rationale": plan.rationale, "erased_id_sha256": list(plan.erased_hashes), "layer": plan.layer,
                "reasons": [f"erase: {plan.rationale}"],
            },
        )
    )


def resume_erase(repo: Repository) -> ErasePlan | None:
    """Finish an erase a crash interrupted (every step is idempotent). Call with the writer lock held."""
    path = repo.layout.erase_journal
    if not path.exists():
        return None
    plan = _plan_from_journal(json.loads(path.read_text()))
    return _finish(repo, plan)
