"""Feedback and lifecycle judgements, written: a record appended to its layer's open batch (feedback needs
no lock: one append of one line), and the open batches committed as one operation (`maintain`, or at once
for a maintainer's verify / invalidate / reinstate, whose judgement should not wait for a scheduler).

Why batches of append-only JSONL rather than a commit per feedback: a reader's click must be cheap (an
append, no lock, no Git process) and must not fill the history with one commit per click; batches named by
fresh ULIDs never conflict between clones, a committed batch is never edited, and the records carry the
capture ids they concern so an erase takes them along (history/rewrite.py, write/erase.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from stigmergy.errors import StigmergyError
from stigmergy.repo.files import write_atomic
from stigmergy.repo.ids import new_id
from stigmergy.repo.operations import Repository, utc_now
from stigmergy.repo.state import OperationRow
from stigmergy.trust.records import OPEN_FILE, Record, append, batch_files, batch_relpath, parse_record
from stigmergy.write.operation import Operation, commit


def _open_state(state_dir: Path) -> dict[str, str]:
    try:
        data = json.loads((state_dir / OPEN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _save_state(state_dir: Path, state: dict[str, str]) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(state_dir / OPEN_FILE, json.dumps(state, sort_keys=True).encode())


def record(root: Path, state_dir: Path, rec: Record) -> str:
    """Append `rec` to the open batch of its layer (opening one when there is none); its path."""
    state = _open_state(state_dir)
    rel = state.get(rec.layer)
    if rel is None:
        rel = batch_relpath(rec.layer, rec.at, new_id("fb"))
        state[rec.layer] = rel
        _save_state(state_dir, state)
    append(root, rel, rec)
    return rel


def make_record(kind: str, by: str, page: str, path: str, layer: str, captures: Sequence[str] = (),
                line: int | None = None, line_sha: str | None = None, fragment: int | None = None,
                note: str = "", query: str | None = None) -> Record:
    return Record(new_id("fb"), utc_now(), by or "unknown", kind, page, path, layer, tuple(captures), line,
                  line_sha, fragment, note, query)


def open_batches(repo: Repository) -> list[str]:
    """Batch files in the working tree that Git does not track yet."""
    tracked = set(repo.git.ls_files("feedback", "layers"))
    for layer in sorted(repo.own_repository_layers):
        # A layer with a Git repository of its own keeps its batches there (apply_and_commit routes them).
        try:
            tracked |= {f"layers/{layer}/{p}" for p in repo.layer_git(layer).ls_files("feedback")}
        except StigmergyError:
            continue  # no checkout here: no batch of it can have been written here either
    return [b.relpath for b in batch_files(repo.root) if b.relpath not in tracked]


def commit_batches(repo: Repository, kind: str, title: str, summary: str = "",
                   manifest: dict[str, object] | None = None) -> OperationRow | None:
    """Commit every open batch as one operation (the caller holds the writer lock); None when none is open."""
    paths = open_batches(repo)
    if not paths:
        return None
    texts = {rel: (repo.root / rel).read_text(encoding="utf-8") for rel in paths}
    # A batch's text is cut at its last whole line: a line being appended right now stays for the next batch.
    texts = {rel: text[: text.rfind("\n") + 1] for rel, text in texts.items()}
    texts = {rel: text for rel, text in texts.items() if text}
    if not texts:
        return None
    op = Operation.start(kind)
    try:
        done = commit(repo, op, title, texts, summary=summary, manifest={"batches": sorted(texts), **(manifest or {})},
                      track_inflight=False, new_paths=frozenset(texts))
    except BaseException:
        for rel, text in texts.items():  # a failed commit puts "new" files away: the records are not lost
            if not (repo.root / rel).exists():
                write_atomic(repo.root / rel, text.encode("utf-8"))
        raise
    state = _open_state(repo.layout.state_dir)
    _save_state(repo.layout.state_dir, {k: v for k, v in state.items() if v not in texts})
    for rel, text in texts.items():
        now = (repo.root / rel).read_text(encoding="utf-8")
        if now != text:
            # Appended while we committed: those lines open the next batch, the committed one stays as committed.
            write_atomic(repo.root / rel, text.encode("utf-8"))
            for line in now[len(text):].split("\n"):
                if line:
                    try:
                        record(repo.root, repo.layout.state_dir, parse_record(line))
                    except Exception:  # noqa: BLE001 - a torn line is dropped, never committed
                        continue
    return done
