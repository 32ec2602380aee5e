"""The server's pre-receive gate: what a push may change, judged before any ref moves.

Every commit a push brings that the repository does not have yet is judged by the history gates
(gates/history.py), merges by their own changes. A push that replaces a branch tip with one that does not
descend from it (a force push, a rewind, an orphan commit) is also judged as one change: the new tip
against the old, so whatever the old tip held that the new one drops must be something the new history
itself is allowed to drop. Where the files of both tips were changed since their common history, that is
the difference between the new tip and Git's automatic merge of the two; where Git cannot merge a file, the
file against the old tip.

An erase rewrites history and its force push is expected: the rewritten history ends in an erase record
(`Stigmergy-Kind: erase`, one `Erased-Id-Sha256` per erased capture). The replacement is then judged as a
`delete` of exactly the source pages whose capture ids hash to those values (and, for an erased layer, its
folder): what a delete of them may retire, nothing else. Anyone who may push may run an erase; the gate
checks that the replacement is one.

Unverifiable kinds (recompile) are trusted only when the bare repository says so:
`git config stigmergy.trustRecompile true` (server-side configuration, which no push can change).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from stigmergy.gates.feedback_batches import ERASED_HASHES, ERASED_LAYERS
from stigmergy.gates.history import (
    HistoryFinding,
    _Commit,
    _commits,
    _judge_tree,
    audit_commits,
    common_findings,
)
from stigmergy.gates.trees import auto_merge, tree_changes
from stigmergy.repo.git import Git
from stigmergy.repo.gitpython import close_walker, walker
from stigmergy.repo.layout import classify
from stigmergy.settings import Settings

_ZERO = "0" * 40
_ERASED_RE = re.compile(r"^Erased-Id-Sha256: ([0-9a-f]{64})$", re.M)
_ERASED_LAYER_RE = re.compile(r"^erase: layer (\S+) \(")
TRUST_RECOMPILE = "stigmergy.trustRecompile"


def audit_push(git: Git, updates: Iterable[str], settings: Settings) -> tuple[int, list[HistoryFinding]]:
    """For a `pre-receive` hook: every commit a push brings that the repository does not have yet, and
    every branch tip it replaces, judged by the gates. `updates` are the hook's stdin lines (`old new
    ref`). Returns (commits judged, findings)."""
    shas: list[str] = []
    replaced: list[tuple[str, str]] = []
    for line in updates:
        parts = line.split()
        if len(parts) != 3 or parts[1] == _ZERO:
            continue  # a ref deletion changes no page (git itself refuses to delete the served branch)
        old, new, _ref = parts
        fresh = git.run("rev-list", "--reverse", new, "--not", "--all").split()
        shas.extend(s for s in fresh if s not in shas)
        if old != _ZERO and not git.ok("merge-base", "--is-ancestor", old, new):
            replaced.append((old, new))
    trust = git.run("config", "--bool", TRUST_RECOMPILE, check=False).strip() == "true"
    settings = with_served_layer_repositories(git, settings)
    walk = walker(git.root, len(shas))  # a push of many commits is read through GitPython (repo/gitpython.py)
    try:
        findings = audit_commits(walk, shas, settings, (lambda _c: True) if trust else None)
        for old, new in replaced:
            findings.extend(judge_replacement(walk, old, new, settings, trust))
    finally:
        close_walker(walk)
    return len(shas) + len(replaced), findings


def with_served_layer_repositories(git: Git, settings: Settings) -> Settings:
    """`settings` plus the layers that the served branch's stigmergy.toml (what the server holds, never what
    the push brings) puts in repositories of their own: their files are refused in this one. A bare
    repository has no working tree, so its own settings do not know them."""
    import tomllib

    from stigmergy.errors import StigmergyError
    from stigmergy.settings import settings_from_mapping

    text = git.run("show", "HEAD:stigmergy.toml", check=False)
    try:
        served = settings_from_mapping({"layers": tomllib.loads(text).get("layers", {})}) if text else None
    except (tomllib.TOMLDecodeError, StigmergyError):
        return settings
    known = set(settings.layer_names())
    extra = tuple(layer for layer in (served.layers if served else ()) if layer.repository and layer.name not in known)
    return replace(settings, layers=(*settings.layers, *extra)) if extra else settings


def judge_replacement(git: Git, old: str, new: str, settings: Settings, trusted: bool = False) -> list[HistoryFinding]:
    """The new tip of a branch against the old tip it replaces (not its descendant)."""
    [tip] = _commits(git, [new])
    label = f"the new tip against the old tip {old[:10]} it replaces"
    commit = _as_replacement(git, tip, old, new)
    auto = auto_merge(git, old, new)
    with tempfile.TemporaryDirectory(prefix="stigmergy-push-") as tmp:
        empty = Path(tmp)
        if auto is None:
            return _judge_tree(git, commit, tree_changes(git, old, new), settings, empty, old, trusted, label)
        own = [e for e in tree_changes(git, auto.tree, new) if e["path"] not in auto.conflicted]
        found = _judge_tree(git, commit, own, settings, empty, auto.tree, trusted, label)
        if auto.conflicted:
            entries = [e for e in tree_changes(git, old, new) if e["path"] in auto.conflicted]
            found += common_findings([_judge_tree(git, commit, entries, settings, empty, old, trusted, label)])
    return found


def _as_replacement(git: Git, tip: _Commit, old: str, new: str) -> _Commit:
    """The replacement as one commit on top of the old tip: a person's, or, when the new history ends in
    an erase record, a delete of the erased captures' source pages."""
    messages = git.run("log", "--format=%B%x1e", new, "--not", old).split("\x1e")
    hashes: set[str] = set()
    layers: set[str] = set()
    op = None
    for message in messages:
        if not re.search(r"^Stigmergy-Kind: erase$", message, re.M):
            continue
        hashes |= set(_ERASED_RE.findall(message))
        m = _ERASED_LAYER_RE.match(message.strip())
        if m:
            layers.add(m.group(1))
        op = op or (re.search(r"^Stigmergy-Operation: (\S+)$", message, re.M) or [None, None])[1]
    if not hashes:
        return _Commit(tip.sha, (old,), tip.author, {})
    # What the erase may take out of feedback batches (gates/feedback_batches.py).
    erased = {ERASED_HASHES: sorted(hashes), ERASED_LAYERS: sorted(layers)}
    targets = []
    for e in tree_changes(git, old, new):
        path = str(e["path"])
        if e["action"] != "delete":
            continue
        stem = path.rsplit("/", 1)[-1].removesuffix(".md")
        is_source = (classify(path) or ("", ""))[0] == "source"
        if (is_source and hashlib.sha256(stem.encode()).hexdigest() in hashes) or any(
            path.startswith(f"layers/{layer}/") for layer in layers
        ):
            targets.append(path)
    if not targets:
        return _Commit(tip.sha, (old,), tip.author, erased)
    trailers = {"Stigmergy-Operation": [op or "op_erase"], "Stigmergy-Kind": ["delete"], "Stigmergy-Target": targets,
                **erased}
    return _Commit(tip.sha, (old,), tip.author, trailers)


__all__ = ["TRUST_RECOMPILE", "audit_push", "judge_replacement"]
