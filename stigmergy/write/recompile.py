"""`recompile [--from DATE] [--resume]`: rebuild every derived page from the source pages, in `occurred_at`
order, in a work tree under `.stigmergy/recompile/`, then swap the result in as one commit.

Each source is filed into the work tree by the configured planner through the gates, exactly as capture
files it, with the capture's own operation id and time (so a deterministic planner reproduces the same
ids). Progress is saved after every source, with the pre-images of what the step writes, so a killed run
is continued by `--resume` from the last finished source. The swap carries over page ids, aliases,
contradiction records and human-written lines (garden/carry.py) and passes the gates as a `recompile`."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.capture.fsck import source_paths
from stigmergy.errors import EXIT_REFUSED, StigmergyError, UsageError
from stigmergy.garden.carry import carry_over
from stigmergy.garden.delete import refresh_maps
from stigmergy.garden.proposal import Proposal
from stigmergy.garden.snapshot import Snapshot, wiki_paths
from stigmergy.gates.authorship import MachineWritten
from stigmergy.gates.engine import OperationInfo
from stigmergy.history.curation import CurationEntry, read_curation
from stigmergy.history.layer_repos import curation as layer_curation
from stigmergy.history.layer_repos import people_lines, present
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.ids import id_ms
from stigmergy.repo.operations import Repository, restore
from stigmergy.write.curation import replay_entry
from stigmergy.write.maintenance import Outcome, new_operation, run_proposal

if TYPE_CHECKING:
    from stigmergy.write.filing import PlannerFactory

WORK_DIR = "recompile"
WIKI_PLANNER = "wiki_planner"  # state meta: the planner version of the last whole recompile, and its commit
_COPIED = ("stigmergy.toml", "librarian_skill.md")


class RecompileRefused(StigmergyError):
    """Recompile will not start now (pending captures, uncommitted edits, a changed repository)."""

    exit_code = EXIT_REFUSED


@dataclass
class Progress:
    op_id: str
    timestamp: str
    head: str | None
    from_date: str | None
    order: list[str]
    done: int = 0
    refused: list[dict[str, str]] = field(default_factory=list)
    # Sources and curation entries in the order they are replayed: a source path, or `curation:N` for
    # entry N of `curation` (the record read from Git when the recompile started).
    steps: list[str] = field(default_factory=list)
    curation: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[dict[str, str]] = field(default_factory=list)
    replayed: list[dict[str, str]] = field(default_factory=list)  # {step, status, why}
    by_occurred: bool = False


def work_root(repo: Repository) -> Path:
    return repo.layout.state_dir / WORK_DIR


def _progress_path(repo: Repository) -> Path:
    return work_root(repo) / "progress.json"


def _step_path(repo: Repository) -> Path:
    return work_root(repo) / "step.json"


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _curation_path(repo: Repository) -> Path:
    return work_root(repo) / "curation.json"


def _save(repo: Repository, progress: Progress) -> None:
    # Its fields are JSON already: dumped as they are, not deep-copied by dataclasses.asdict. The curation
    # record never changes during a run: it is written once (`_start`), not again with every source filed.
    _write_json(_progress_path(repo), {k: v for k, v in vars(progress).items() if k != "curation"})


def interrupted(repo: Repository) -> Progress | None:
    """The progress of a recompile that did not finish, if any."""
    try:
        data = json.loads(_progress_path(repo).read_text(encoding="utf-8"))
        if "curation" not in data:  # an older version kept the record in the progress itself
            data["curation"] = json.loads(_curation_path(repo).read_text(encoding="utf-8"))
        return Progress(**data)
    except (OSError, ValueError, TypeError):
        return None


def _order(repo: Repository, from_date: str | None, by_occurred: bool) -> tuple[list[str], list[str]]:
    """(sources to file, in capture order or occurred_at order, and sources before `from_date` that stay
    as they are). Capture order is the order the wiki was built in: a deterministic planner then rebuilds
    the same wiki, and a planner that improved shows only its improvements."""
    keyed = []
    for rel in source_paths(repo, checkouts=True):
        try:
            page = parse_source_page((repo.root / rel).read_text(encoding="utf-8"), rel)
        except Exception:  # noqa: BLE001 - a broken source page is lint's finding; it cannot be filed
            continue
        occurred = str(page.occurred_at)[:19]
        key = (occurred, page.captured_at, page.id) if by_occurred else (page.captured_at, page.id, occurred)
        keyed.append((key, occurred[:10], rel))
    keyed.sort()
    if from_date is None:
        return [rel for _, _, rel in keyed], []
    return [rel for _, day, rel in keyed if day >= from_date], [rel for _, day, rel in keyed if day < from_date]


def _setup(repo: Repository, progress: Progress) -> None:
    work = work_root(repo) / "tree"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in _COPIED:
        if (repo.root / name).is_file():
            shutil.copy2(repo.root / name, work / name)
    for rel in source_paths(repo, checkouts=True):
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(repo.root / rel, target)  # sources are immutable: a hard link is a free copy
        except OSError:
            shutil.copy2(repo.root / rel, target)
    if progress.from_date is not None:
        # Keep what rests on earlier sources; sweep away what rests on the sources filed again.
        from stigmergy.garden.sweep import sweep_references

        snap = Snapshot.load(repo.root, repo.settings)
        sweep = sweep_references(repo.root, repo.settings, progress.order, timestamp=progress.timestamp, snapshot=snap)
        for rel, text in snap.texts.items():
            new = sweep.changes.get(rel, text)
            if new is not None:
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                (work / rel).write_text(new, encoding="utf-8")


def content_layers(repo: Repository) -> list[str]:
    """The declared layers that hold anything: the public one, and each whose folder exists."""
    from stigmergy.repo.layout import layer_prefix

    return [n for n in repo.settings.layer_names() if not layer_prefix(n) or (repo.root / layer_prefix(n)).is_dir()]


def _capture_ops(repo: Repository) -> dict[str, str]:
    return {row.capture_id: row.op_id for row in repo.state.captures()}


def recompile(
    repo: Repository,
    *,
    from_date: str | None = None,
    by_occurred: bool = False,
    resume: bool = False,
    dry_run: bool = False,
    planners: PlannerFactory | None = None,
    on_step: Callable[[int, int, str], None] | None = None,
    reader: str | None = None,
) -> Outcome:
    """Rebuild the wiki from its sources and swap it in as one commit. Call with the writer lock held.
    With `reader`: refused unless they maintain every layer the wiki has (a recompile rewrites them all)."""
    from stigmergy.write.filing import default_planners, propose

    if reader is not None:
        from stigmergy.layers import check_recompile

        check_recompile(repo.settings, reader, content_layers(repo))
    if repo.state.pending():
        raise RecompileRefused("captures are pending; recompile refuses until they are filed",
                           hint="run `stigmergy resume` (or `stigmergy maintain`) first")
    dirty = [ln for ln in repo.git.status_porcelain("sources", "wiki", "layers") if ln]
    for layer in present(repo):  # a layer kept in its own repository is recompiled from its checkout
        dirty += [ln for ln in repo.layer_git(layer).status_porcelain("sources", "wiki") if ln]
    if dirty:
        raise RecompileRefused(f"{len(dirty)} uncommitted change(s) under sources/, wiki/ or layers/",
                           hint="commit or discard them first; recompile replaces the wiki as committed")
    if from_date is not None and not (len(from_date) == 10 and from_date[4] == "-" and from_date[7] == "-"):
        raise UsageError(f"--from {from_date!r} is not a date (YYYY-MM-DD)")
    notes: list[str] = []
    head = repo.git.head()
    progress = interrupted(repo)
    if resume:
        if progress is None:
            raise UsageError("there is no interrupted recompile to resume", hint="run `stigmergy recompile`")
        if progress.head != head:
            raise RecompileRefused("the repository changed since the interrupted recompile started",
                               hint="run `stigmergy recompile` to start afresh")
        notes.append(f"resumed an interrupted recompile at {progress.done}/{len(progress.order)} sources")
    else:
        if progress is not None:
            notes.append(f"an interrupted recompile ({progress.done}/{len(progress.order)} sources) was found "
                         "and discarded; starting afresh (`--resume` continues one)")
        op_id, ts = new_operation("recompile")
        order, _kept = _order(repo, from_date, by_occurred)
        record = read_curation(repo.git)
        # The curation record of each layer kept in its own repository is in that repository's history.
        record.entries = sorted([*record.entries, *layer_curation(repo, present(repo))], key=lambda e: e.at)
        progress = Progress(op_id, ts, head, from_date, order, curation=[e.to_dict() for e in record.entries],
                            unreadable=record.unreadable, by_occurred=by_occurred)
        progress.steps = _steps(order, record.entries, by_occurred)
        shutil.rmtree(work_root(repo), ignore_errors=True)
        work_root(repo).mkdir(parents=True)
        _setup(repo, progress)
        _write_json(_curation_path(repo), progress.curation)
        _save(repo, progress)
    work = work_root(repo) / "tree"
    step = _step_path(repo)
    if step.exists():  # a kill in the middle of writing a step: take it back, then file that source again
        restore(work, json.loads(step.read_text(encoding="utf-8")))
        step.unlink()
    _undo_journal(repo, progress, work)
    planner = (planners or default_planners(repo.settings))()
    authorship = MachineWritten()
    ops = _capture_ops(repo)
    steps = progress.steps or progress.order
    total = len(steps)
    entries = [CurationEntry.from_dict(d) for d in progress.curation]
    snap: Snapshot | None = None  # the work tree, kept across consecutive curation steps
    while progress.done < total:
        rel = steps[progress.done]
        if rel.startswith(_CURATION):
            # A run of curation entries is one step, replayed in memory on the snapshot of the work tree
            # (each entry sees what the ones before it did) and written once at the end: a rename relinks
            # pages that the next entries change again, and writing every intermediate page cost more than
            # the replay itself (bench/maintenance.py --curation). Before the write, the pre-images of
            # every path it changes are journaled (one line, fsynced with the progress that follows); a
            # kill before the progress is saved takes the run back, and it is replayed again.
            start = progress.done
            snap = snap or Snapshot.load(work, repo.settings)
            while progress.done < total and steps[progress.done].startswith(_CURATION):
                rel = steps[progress.done]
                entry = entries[int(rel[len(_CURATION):])]
                later = _later_sources(progress, entry) if progress.by_occurred else ()
                done = replay_entry(work, repo.settings, entry, snap, later)
                snap = snap.applied(done.changes) if done.changes else snap
                progress.replayed.append({"step": rel, "status": done.status, "why": done.why})
                progress.done += 1
                if on_step is not None:
                    on_step(progress.done, total, rel)
            written = snap.unwritten
            if written:
                journal = _journal_path(repo)
                pre = {p: ((work / p).read_text(encoding="utf-8") if (work / p).is_file() else None) for p in written}
                _write_json(journal, {"start": start, "pre": pre})
                repo.pause("recompile-curation")
                _apply(work, written)
                snap.unwritten = {}
            _save(repo, progress)
            _journal_path(repo).unlink(missing_ok=True)
            continue
        snap = None
        page = parse_source_page((work / rel).read_text(encoding="utf-8"), rel)
        op = OperationInfo(
            op_id=ops.get(page.id, "op_" + page.id[4:]), kind="file", timestamp=page.captured_at,
            capture_id=page.id, source_path=rel,
            resolves=page.resolution.resolves if page.resolution else None,
            rationale=page.resolution.rationale if page.resolution else None,
        )
        result = propose(work, repo.settings, rel, op, planner, authorship)
        if result.verdict.ok:
            changes = dict(result.verdict.changes)
            pre = {p: ((work / p).read_text(encoding="utf-8") if (work / p).is_file() else None) for p in changes}
            _write_json(step, pre)
            repo.pause("recompile-step")
            _apply(work, changes)
        else:
            v = result.verdict.violations[0]
            progress.refused.append({"source": rel, "rule": v.rule, "message": v.message})
        progress.done += 1
        _save(repo, progress)
        step.unlink(missing_ok=True)
        if on_step is not None:
            on_step(progress.done, total, rel)
    proposal = _swap(repo, progress, work)
    proposal.report["curation"] = _curation_report(progress, work)
    # Resolutions are the curation a source page carries itself: each was filed again with its intent.
    proposal.report["curation"]["resolutions"] = sum(
        1 for rel in progress.order if "\nresolution:" in (work / rel).read_text(encoding="utf-8").split("\n---\n", 1)[0])
    summary = (f"recompile{' from ' + from_date if from_date else ''}: {len(progress.order)} sources; "
               f"{proposal.report['pages_changed']} changed, {proposal.report['pages_added']} added, "
               f"{proposal.report['pages_removed']} removed")
    proposal.report["notes"] = notes
    outcome = run_proposal(repo, proposal, dry_run=dry_run, summary=summary)
    if outcome.status in ("committed", "nothing", "dry-run"):
        shutil.rmtree(work_root(repo), ignore_errors=True)
    if outcome.status in ("committed", "nothing") and from_date is None:
        from stigmergy.write.filing import planner_version

        repo.state.set_meta(WIKI_PLANNER, json.dumps({"version": planner_version(repo.settings, repo.root),
                                                      "commit": repo.git.head()}))
    if outcome.status == "nothing":
        return Outcome("recompile", "nothing", "; ".join([*notes, "the wiki is already what its sources compile to"]),
                       report=proposal.report)
    return outcome


_CURATION = "curation:"


def _steps(order: list[str], entries: list[CurationEntry], by_occurred: bool) -> list[str]:
    """Sources and curation entries in replay order: in capture order each entry goes between the sources
    captured before and after it (so a later source finds the renamed page, as it did); filed by
    occurred_at, the sources have no such place, and every entry follows them, in history order."""
    curation = [f"{_CURATION}{i}" for i in range(len(entries))]
    if by_occurred:
        return [*order, *curation]
    out: list[str] = []
    i = 0
    for rel in order:
        ms = id_ms(rel.rsplit("/", 1)[-1].removesuffix(".md"))
        while i < len(entries) and ms is not None and entries[i].at < ms:
            out.append(curation[i])
            i += 1
        out.append(rel)
    return out + curation[i:]


def _later_sources(progress: Progress, entry: CurationEntry) -> set[str]:
    """Capture ids of the sources captured after `entry` (filed before it when filing by occurred_at)."""
    out = set()
    for rel in progress.order:
        cid = rel.rsplit("/", 1)[-1].removesuffix(".md")
        ms = id_ms(cid)
        if ms is not None and ms > entry.at:
            out.add(cid)
    return out


def _journal_path(repo: Repository) -> Path:
    return work_root(repo) / "curation-step.jsonl"


def _undo_journal(repo: Repository, progress: Progress, work: Path) -> None:
    """A kill while a run of curation entries was being written: take back what it wrote, unless its
    progress was saved (then the run finished and only the journal is left)."""
    journal = _journal_path(repo)
    if not journal.exists():
        return
    # One line {start, pre}; a journal an older version left has the pre-images on lines of their own.
    lines = [json.loads(ln) for ln in journal.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if lines and progress.done <= int(lines[0].get("start", 0)):
        first: dict[str, str | None] = dict(lines[0].get("pre") or {})
        for pre in lines[1:]:
            for path, text in pre.items():
                first.setdefault(path, text)
        restore(work, first)
    journal.unlink()


def _apply(work: Path, changes: Mapping[str, str | None]) -> None:
    for p, text in changes.items():
        if text is None:
            (work / p).unlink(missing_ok=True)
        else:
            (work / p).parent.mkdir(parents=True, exist_ok=True)
            (work / p).write_text(text, encoding="utf-8")


def _curation_report(progress: Progress, work: Path) -> dict[str, Any]:
    """What became of each entry of the curation record: counts, and every entry not replayed with why."""
    entries = [CurationEntry.from_dict(d) for d in progress.curation]
    counts: dict[str, int] = {}
    missed: list[dict[str, Any]] = []
    back: list[str] = []
    for done in progress.replayed:
        e = entries[int(done["step"][len(_CURATION):])]
        counts[done["status"]] = counts.get(done["status"], 0) + 1
        if done["status"] == "not-replayed":
            missed.append({"kind": e.kind, "page": e.page, "to": e.to, "commit": e.commit, "what": e.describe(),
                           "why": done["why"]})
        elif done["status"] == "brought-back" or (e.kind == "delete" and done["status"] == "replayed"
                                                  and (work / e.page).is_file()):
            back.append(f"{e.page}: {done['why'] or 'written again by a source captured after the delete'}")
    missed += [{"kind": u["kind"], "page": "", "to": None, "commit": u["commit"], "what": f"{u['kind']} in {u['commit'][:12]}",
                "why": u["why"]} for u in progress.unreadable]
    return {"entries": len(entries), "replayed": counts.get("replayed", 0), "in_effect": counts.get("in-effect", 0),
            "brought_back": back, "not_replayed": missed}


def _swap(repo: Repository, progress: Progress, work: Path) -> Proposal:
    """The changes that turn the committed wiki into the recompiled one, with everything carried over."""
    layers = repo.settings.layer_names()
    old_texts = {rel: (repo.root / rel).read_text(encoding="utf-8") for rel in wiki_paths(repo.root, layers)}
    new_texts = {rel: (work / rel).read_text(encoding="utf-8") for rel in wiki_paths(work, layers)}
    human = people_lines(repo, old_texts)  # each page blamed in the repository that holds it
    texts, report = carry_over(old_texts, new_texts, human, progress.timestamp)
    changes: dict[str, str | None] = {rel: None for rel in old_texts if rel not in texts}
    changes.update({rel: t for rel, t in texts.items() if old_texts.get(rel) != t})
    snap = Snapshot(repo.root, repo.settings, dict(texts))
    refresh_maps(repo.root, snap, changes, set(layers))
    op = OperationInfo(op_id=progress.op_id, kind="recompile", timestamp=progress.timestamp)
    data = {**report.to_dict(), "sources": len(progress.order), "from": progress.from_date,
            "refused_sources": progress.refused}
    records = tuple(f"filed source-only (refused: [{r['rule']}] {r['message']}): {r['source']}" for r in progress.refused)
    return Proposal(op, "rebuild the wiki from its sources", changes, data, records=records,
                    nothing=None if changes else "the wiki is already what its sources compile to")


def planner_state(repo: Repository) -> dict[str, Any]:
    """The planner versions that wrote the wiki (the last whole recompile's, and every filing's since) and
    whether a recompile would change the wiki because the current planner is another one."""
    from stigmergy.write.filing import planner_version

    current = planner_version(repo.settings, repo.root)
    state = repo.reader_state()
    try:
        raw = state.meta(WIKI_PLANNER)
        last = json.loads(raw) if raw else None
        versions: set[str] = {last["version"]} if last else set()
        for op in state.operations(limit=100_000):
            if last and op.commit_sha == last.get("commit"):
                break
            if op.kind in ("capture", "file") and op.status == "committed":
                version = (op.manifest.get("planner") or {}).get("planner_version")
                versions.add(version or "unrecorded")
    finally:
        state.close()
    older = sorted(v for v in versions if v != current)
    return {"current": current, "wrote_wiki": sorted(versions), "recompile_would_change": bool(older)}
