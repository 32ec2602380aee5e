"""One entry of the curation record (history/curation.py) replayed on a wiki tree: the same code that made
the rename, merge, delete or alias change proposes it again, with the operation's own id and time, so a
tree rebuilt from its sources comes out as people left it. Used by `recompile` (on its work tree).

An entry whose page is already as the entry left it is `in-effect`; one that cannot be replayed is
`not-replayed`, with the reason (the page is gone, its new title names another page, ...): never dropped
silently. A deleted page that a source captured after the deletion writes again is `brought-back`."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from stigmergy.errors import StigmergyError
from stigmergy.garden.carry import reapply_lines
from stigmergy.garden.delete import plan_delete
from stigmergy.garden.identity import plan_merge, plan_rename
from stigmergy.garden.proposal import Proposal
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.gates.engine import OperationInfo
from stigmergy.history.curation import CurationEntry
from stigmergy.pages.wikilinks import link_key
from stigmergy.repo.operations import Repository, commit_person_paths
from stigmergy.settings import Settings


@dataclass
class Replayed:
    status: str  # replayed | in-effect | not-replayed | brought-back
    changes: dict[str, str | None] = field(default_factory=dict)
    why: str = ""
    proposal: Proposal | None = None  # what to commit, when the replay is an operation of its own (import)


def replay_entry(root: Path, settings: Settings, entry: CurationEntry, snap: Snapshot,
                 later_sources: Collection[str] = ()) -> Replayed:
    """What replaying `entry` on the tree at `root` (read as `snap`) changes. `later_sources`: capture ids
    of sources captured after the entry (a deleted page that cites one of them is brought back)."""
    try:
        return _replay(root, settings, entry, snap, later_sources)
    except StigmergyError as exc:
        return Replayed("not-replayed", why=exc.message)


def _replay(root: Path, settings: Settings, e: CurationEntry, snap: Snapshot,
            later_sources: Collection[str]) -> Replayed:
    op_id = e.op_id or f"op_replay_{e.commit[:12]}"
    here = e.page in snap.texts
    if e.kind == "rename":
        assert e.to is not None and e.title is not None
        if not here:
            return Replayed("in-effect") if e.to in snap.texts else Replayed(
                "not-replayed", why=f"no source derives {e.page} any more")
        old, kept = snap.page(e.page), snap.page(e.to) if e.to != e.page else None
        if kept is not None and old is not None and old.type == kept.type and layer_of(e.page) == layer_of(e.to):
            # A later source wrote a page under the new title: the person's judgement is that they are one.
            p = plan_merge(root, settings, e.page, e.to, reader=None, op_id=op_id, timestamp=e.timestamp, snapshot=snap)
            return Replayed("replayed", dict(p.changes), why=f"{e.to} exists: merged into it", proposal=p)
        if old is not None and old.title == e.title:
            return Replayed("in-effect")
        p = plan_rename(root, settings, e.page, e.title, reader=None, op_id=op_id, timestamp=e.timestamp, snapshot=snap)
        return Replayed("replayed" if p.changes else "in-effect", dict(p.changes), why=p.nothing or "", proposal=p)
    if e.kind == "merge":
        assert e.to is not None
        if e.to not in snap.texts:
            return Replayed("not-replayed", why=f"the page it was merged into, {e.to}, is not derived any more")
        if not here:
            return Replayed("in-effect")
        p = plan_merge(root, settings, e.page, e.to, reader=None, op_id=op_id, timestamp=e.timestamp, snapshot=snap)
        return Replayed("replayed", dict(p.changes), proposal=p)
    if e.kind == "delete":
        if not here:
            return Replayed("in-effect")
        page = snap.page(e.page)
        back = sorted(set(page.sources) & set(later_sources)) if page is not None else []
        if back:
            return Replayed("brought-back", why=f"{e.page} is written again by {', '.join(back)}, captured after the delete")
        p = plan_delete(root, settings, e.page, f"replayed from the curation record (commit {e.commit[:12]})",
                        reader=None, op_id=op_id, timestamp=e.timestamp, snapshot=snap)
        if p.nothing:
            return Replayed("not-replayed", why=p.nothing)
        return Replayed("replayed", dict(p.changes), proposal=p)
    return _aliases(e, snap)


def _aliases(e: CurationEntry, snap: Snapshot) -> Replayed:
    page = snap.page(e.page)
    if page is None:
        return Replayed("not-replayed", why=f"no source derives {e.page} any more")
    gone = {link_key(a) for a in e.removed}
    aliases = [a for a in page.aliases if link_key(a) not in gone]
    have = {link_key(a) for a in aliases} | {link_key(page.title)}
    aliases += [a for a in e.added if link_key(a) not in have]
    if tuple(aliases) == page.aliases:
        return Replayed("in-effect")
    # A person's edit changes only the aliases; garden's learning also marks the page updated.
    changed = replace(page, aliases=tuple(aliases), updated=e.timestamp if e.by == "garden" else page.updated)
    changes: dict[str, str | None] = {e.page: snap.render(changed)}
    proposal = None
    if e.by == "garden" and e.op_id:
        proposal = Proposal(OperationInfo(op_id=e.op_id, kind="garden", timestamp=e.timestamp), "learn aliases",
                            changes, records=tuple(f"alias learned: {a!r} -> {e.page}" for a in e.added))
    return Replayed("replayed", changes, proposal=proposal)


# -- import: the record replayed as operations of this repository -------------------------------------


def replay_curation(repo: Repository, entry: CurationEntry, report: Any, *,
                    more: Sequence[CurationEntry] = ()) -> None:
    """Replay `entry` of a bundle's curation record here, as an operation of the same kind, id and time
    (so this repository's own record holds it), or a person's commit for a person's alias edit. What
    cannot be replayed is a note in `report`; what is already in effect (a second import) changes nothing.
    `more`: the other entries of the same garden operation (one commit learned aliases on several pages),
    replayed with it as that one operation: replayed one by one, the first would take the operation id
    and the rest would be skipped as already in effect."""
    from stigmergy.write.maintenance import run_proposal

    if entry.op_id and repo.state.has_operation(entry.op_id):
        report.curation["in-effect"] = report.curation.get("in-effect", 0) + 1 + len(more)
        return
    snap = Snapshot.load(repo.root, repo.settings)
    done = replay_entry(repo.root, repo.settings, entry, snap)
    if more and done.proposal is not None and entry.kind == "aliases":
        changes, records = dict(done.changes), list(done.proposal.records)
        for other in more:
            also = replay_entry(repo.root, repo.settings, other, snap.with_changes(changes))
            if also.status == "replayed":
                changes.update(also.changes)
                records += also.proposal.records if also.proposal is not None else ()
            report.curation[also.status] = report.curation.get(also.status, 0) + 1
            if also.status == "not-replayed":
                report.notes.append(f"curation not replayed: {other.describe()}: {also.why}")
        done = Replayed("replayed", changes, proposal=replace(done.proposal, changes=changes, records=tuple(records)))
    status = done.status
    if status == "replayed" and done.proposal is not None:
        outcome = run_proposal(repo, done.proposal, summary=done.proposal.title)
        if outcome.status != "committed":
            status, done.why = "not-replayed", outcome.message
    elif status == "replayed":
        _commit_as_person(repo, done.changes, entry)
    report.curation[status] = report.curation.get(status, 0) + 1
    if status == "not-replayed":
        report.notes.append(f"curation not replayed: {entry.describe()}: {done.why}")


def _person(author: str) -> tuple[str, str]:
    name, _, email = author.partition(" <")
    return (name.strip() or "a person"), (email.rstrip(">").strip() or "person@import.invalid")


def _commit_as_person(repo: Repository, changes: dict[str, str | None], entry: CurationEntry) -> None:
    """A person's edit replayed as a person's commit (no operation trailer): lines and aliases it writes
    stay theirs here, for the gates and for this repository's own curation record."""
    written = []
    for rel, text in changes.items():
        if text is not None:
            (repo.root / rel).write_text(text, encoding="utf-8")
            written.append(rel)
    layers = sorted({layer_of(rel) for rel in written} - {"public"})
    what = f"a person's edit in layer {', '.join(layers)}" if layers else entry.describe()
    name, email = _person(entry.author)
    commit_person_paths(repo, written, f"{what}\n\nReplayed by `stigmergy import` from commit {entry.commit[:12]}.\n",
                        name, email, when=entry.at // 1000)


def replay_human_lines(repo: Repository, blocks: Iterable[Any], report: Any) -> None:
    """Put back the runs of lines people wrote, each after the line that preceded it, as one person's
    commit; runs already there (a second import) are not repeated, pages not here are noted."""
    by_page: dict[str, list[tuple[str | None, list[str]]]] = {}
    for b in blocks:
        by_page.setdefault(b.page, []).append((b.anchor, list(b.lines)))
    changes: dict[str, str | None] = {}
    for rel, runs in sorted(by_page.items()):
        path = repo.root / rel
        if not path.is_file():
            report.notes.append(f"lines people wrote on {rel} were not put back: the page is not here")
            continue
        text = path.read_text(encoding="utf-8")
        new, put_back = reapply_lines(text, runs)
        if put_back:
            changes[rel] = new
            report.curation["human-lines"] = report.curation.get("human-lines", 0) + sum(1 for t in put_back if t.strip())
    if changes:
        written = sorted(changes)
        for rel in written:
            (repo.root / rel).write_text(str(changes[rel]), encoding="utf-8")
        identity = repo.settings.identity
        commit_person_paths(repo, written, "lines people wrote, replayed by `stigmergy import`\n\nThis commit carries "
                            "no operation trailer: the lines stay the people's, as they were in the exported "
                            "repository.\n", identity.name, identity.email)
