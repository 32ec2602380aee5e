"""Filing without passes over every page (issue 27): the listings and counts that filing keeps across
captures in one process follow what changed on disk, and answer exactly as a fresh pass would."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from test_filing_bounds import ENTITY, _blocks, _disagreeing
from test_plan_support import make_repo

from stigmergy.pages.wikilinks import folder_listing, stem_listing
from stigmergy.plan.deterministic.contradiction_assembly import recorded_claims
from stigmergy.repo import watch


@pytest.fixture(autouse=True, params=["kernel", "stamps"])
def how_changes_are_seen(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test twice: with the kernel's word on what changed (repo/watch.py, where Linux gives it), and
    with the stamps alone (mtime and size), as on a system or file system without it."""
    monkeypatch.setattr(watch, "_WATCHER", None)
    monkeypatch.setattr(watch, "_MADE_IN", None if request.param == "kernel" else os.getpid())


def _age(folder: Path) -> None:
    """Date the folder an hour back, so its listing is trusted until an entry changes it again."""
    past = folder.stat().st_mtime - 3600
    os.utime(folder, (past, past))


def test_kept_listings_follow_pages_added_and_removed(tmp_path: Path) -> None:
    notes, entities = tmp_path / "wiki" / "notes", tmp_path / "wiki" / "entities"
    notes.mkdir(parents=True)
    entities.mkdir()
    (notes / "Weekly sync.md").write_text("x")
    (entities / "Acme Corp.md").write_text("x")
    (notes / "skipped.txt").write_text("x")
    _age(notes)
    _age(entities)
    first = folder_listing(tmp_path, "wiki/notes")
    assert first == ["wiki/notes/Weekly sync.md"]
    assert folder_listing(tmp_path, "wiki/notes") is first  # unchanged folder: the kept list itself
    assert stem_listing(tmp_path, ["public"])["acme corp"] == ["wiki/entities/Acme Corp.md"]
    (notes / "Acme Corp.md").write_text("x")  # a second page with the same stem, in another folder
    (notes / "Weekly sync.md").unlink()
    listing = stem_listing(tmp_path, ["public"])
    assert listing["acme corp"] == ["wiki/entities/Acme Corp.md", "wiki/notes/Acme Corp.md"]
    assert "weekly sync" not in listing
    assert folder_listing(tmp_path, "wiki/notes") == ["wiki/notes/Acme Corp.md"]
    (entities / "Acme Corp.md").unlink()
    (entities / "Link.md").symlink_to(entities.parent / "notes" / "Acme Corp.md")  # a link is no page
    assert stem_listing(tmp_path, ["public"])["acme corp"] == ["wiki/notes/Acme Corp.md"]
    assert "link" not in stem_listing(tmp_path, ["public"])


def test_a_listing_made_in_the_folders_own_tick_is_made_again(tmp_path: Path) -> None:
    # A folder changed twice within one tick of its mtime keeps that mtime: a listing taken then must not
    # be trusted, or the second change would never be seen. The tick is held open by an mtime just ahead of
    # the clock (a read cannot stamp a later access time), as a coarse file-system clock would leave it.
    notes = tmp_path / "wiki" / "notes"
    notes.mkdir(parents=True)
    (notes / "A.md").write_text("x")
    ahead = time.time_ns() + 10**9
    os.utime(notes, ns=(ahead - 1, ahead))
    assert folder_listing(tmp_path, "wiki/notes") == ["wiki/notes/A.md"]
    stamp = notes.stat().st_mtime_ns
    (notes / "B.md").write_text("x")
    os.utime(notes, ns=(stamp, stamp))  # the same mtime as when it was listed
    assert folder_listing(tmp_path, "wiki/notes") == ["wiki/notes/A.md", "wiki/notes/B.md"]


def test_a_listing_soon_after_a_change_is_shared_once_the_file_system_clock_has_passed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The notes folder changes with every capture, and the next capture's catalogue lists it well within
    # _RACY_NS of that change; the gates' stem index then listed it again. A read stamps the folder's access
    # time from the file system's clock: once that is later than the mtime, no later change can keep the
    # mtime, so the one listing serves the whole capture.
    notes = tmp_path / "wiki" / "notes"
    notes.mkdir(parents=True)
    (notes / "A.md").write_text("x")
    changed = time.time_ns() - 50_000_000  # 50 ms ago: within _RACY_NS, and no read since
    os.utime(notes, ns=(changed - 1, changed))
    reads: list[str] = []
    real = os.scandir

    def counted(path: object) -> object:
        reads.append(str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", counted)
    assert folder_listing(tmp_path, "wiki/notes") == ["wiki/notes/A.md"]
    if notes.stat().st_atime_ns <= changed:
        pytest.skip("this file system does not stamp access times on a folder read (noatime)")
    listed = len(reads)
    assert folder_listing(tmp_path, "wiki/notes") == ["wiki/notes/A.md"]
    assert "a" in stem_listing(tmp_path, ["public"])
    assert sum(r.endswith("notes") for r in reads[listed:]) == 0  # the catalogue's listing, shared
    (notes / "B.md").write_text("x")  # a change from now on moves the mtime: listed again
    assert folder_listing(tmp_path, "wiki/notes") == ["wiki/notes/A.md", "wiki/notes/B.md"]
    assert stem_listing(tmp_path, ["public"])["b"] == ["wiki/notes/B.md"]


def _pages(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "wiki").rglob("*.md"))


def test_recorded_claims_count_what_the_pages_hold_now(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    block = _blocks(root, ENTITY)[0]
    claims = {(c.source, c.start, c.end) for c in block.record.claims}
    assert recorded_claims(root, _pages(root)) == claims
    # A second page holding the same block: the claims stay recorded until neither page holds them.
    copy = root / "wiki" / "notes" / "Copy.md"
    copy.write_text(block.text, encoding="utf-8")
    assert recorded_claims(root, _pages(root)) == claims
    page = (root / ENTITY).read_text(encoding="utf-8")
    (root / ENTITY).write_text(page.replace(block.text, ""), encoding="utf-8")
    assert recorded_claims(root, _pages(root)) == claims
    copy.unlink()
    assert recorded_claims(root, _pages(root)) == frozenset()
    (root / ENTITY).write_text(page, encoding="utf-8")
    assert recorded_claims(root, _pages(root)) == claims
    # Another layer's pages are counted on their own.
    assert recorded_claims(root, [], "restricted") == frozenset()
    assert recorded_claims(root, _pages(root)) == claims


def test_a_persons_commit_makes_a_page_theirs_without_a_log_per_page(tmp_path: Path) -> None:
    from stigmergy.gates.authorship import Authorship, CommitHistory

    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    history = CommitHistory()
    first = Authorship(root, history=history)
    assert first.human_lines(ENTITY) == frozenset() and first.blame_runs == 0
    assert history.human is not None and ENTITY not in history.commits  # one walk, no per-file log
    with open(root / ENTITY, "a", encoding="utf-8") as fh:
        fh.write("A line from a person.\n")
    subprocess.run(["git", "commit", "-qam", "a person's note"], cwd=root, check=True)
    later = Authorship(root, history=history)
    lines = (root / ENTITY).read_text(encoding="utf-8").split("\n")
    assert later.human_lines(ENTITY) == frozenset({lines.index("A line from a person.") + 1})
    assert ENTITY in history.human
    # The status the gate read answers whether a page the filing writes holds an uncommitted edit.
    gate = Authorship(root, history=history)
    gate.prefetch([ENTITY], also_status=[ENTITY, "wiki/notes/New.md"])
    assert gate.changed([ENTITY, "wiki/notes/New.md"]) == []
    assert gate.changed(["wiki/notes/Unseen.md"]) is None
    (root / ENTITY).write_text("edited\n", encoding="utf-8")
    fresh = Authorship(root, history=history)
    fresh.prefetch([ENTITY])
    assert fresh.changed([ENTITY]) == [ENTITY]


def _all_blocks(root: Path) -> list:
    return [b for rel in _pages(root) for b in _blocks(root, rel)]


def _review(n: int, value: int) -> str:
    return (f"Halden Logistics signed order {n} for the Atlas rollout, said Maria Chen.\n"
            f"Halden Logistics revenue in FY2010 was ${value}k according to finance.\n")


def test_a_source_edited_by_hand_is_never_a_side_of_a_disagreement(tmp_path: Path) -> None:
    # Sources read back are parsed without their (costly) canonical check; the check is made before one
    # becomes a side of a contradiction, so a hand-edited source still states nothing filing relies on.
    from test_plan_support import file_and_commit, write_source

    meta = {"participants": ["Maria Chen"]}
    for edited in (False, True):
        (tmp_path / str(edited)).mkdir()
        root = make_repo(tmp_path / str(edited))
        rel = write_source(root, 1, _review(1, 100), title="Halden review 1", metadata=meta, occurred_at="2024-02-02")
        file_and_commit(root, rel, 1)
        if edited:
            text = (root / rel).read_text(encoding="utf-8")
            (root / rel).write_text(text.replace("\n---\n", "\n---\n\n", 1), encoding="utf-8")  # not canonical
        rel2 = write_source(root, 2, _review(2, 200), title="Halden review 2", metadata=meta, occurred_at="2024-03-03")
        file_and_commit(root, rel2, 2)
        assert len(_all_blocks(root)) == (0 if edited else 1)


def test_the_claims_on_record_are_read_only_once_a_fact_disagrees(tmp_path: Path) -> None:
    """Reading the claims on record stats every page of the layer; a capture whose figures agree with
    the earlier sources' never needs them, and the one that disagrees still records its block."""
    from test_plan_support import file_and_commit, write_source

    from stigmergy.plan.deterministic import contradiction_assembly

    root = make_repo(tmp_path)

    def file(n: int, value: int) -> None:
        text = (f"Halden Logistics signed order {n} for the Atlas rollout, said Maria Chen.\n"
                f"Halden Logistics revenue in FY2010 was ${value}k according to finance.\n")
        rel = write_source(root, n, text, title=f"Halden review {n}", metadata={"participants": ["Maria Chen"]},
                           occurred_at=f"2024-0{n}-0{n}")
        file_and_commit(root, rel, n)

    def asked() -> bool:
        return any(key.startswith(f"{root}\0") for key in contradiction_assembly._RECORDED)

    file(1, 100)
    file(2, 100)
    file(3, 100)
    assert not asked() and not _all_blocks(root)
    file(4, 200)
    assert asked() and len(_all_blocks(root)) == 1
