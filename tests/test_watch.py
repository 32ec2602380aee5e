"""The kernel's word on what changed in a wiki folder (repo/watch.py, issue 27): the names it hands over, the
cases where it must say nothing (then the disk is read as before), and the kept answers built on it, which
now see an edit in place that keeps a page's size and mtime."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from test_filing_bounds import ENTITY, _blocks, _disagreeing
from test_plan_support import make_repo

from stigmergy.plan.catalogue import catalogue
from stigmergy.plan.deterministic.contradiction_assembly import recorded_claims
from stigmergy.repo import watch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@pytest.fixture(autouse=True)
def fresh_watcher(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts its own watcher (and its own reading of the environment)."""
    monkeypatch.setattr(watch, "_WATCHER", None)
    monkeypatch.setattr(watch, "_MADE_IN", None)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "wiki" / "notes"
    folder.mkdir(parents=True)
    return folder


def _same_stamp(path: Path, text: str) -> None:
    """Write `text` (of the file's own length) in place and put the mtime back: what a coarse clock leaves."""
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_the_kernel_names_what_changed_and_nothing_more(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "Old.md").write_text("x")
    mark = watch.mark(folder)
    assert mark is not None
    (folder / "A.md").write_text("a")
    (folder / "B.md").write_text("b")
    os.replace(folder / "B.md", folder / "C.md")
    (folder / "Old.md").unlink()
    names, mark = watch.changes(folder, mark)
    assert names == {"A.md", "B.md", "C.md", "Old.md"}
    names, mark = watch.changes(folder, mark)
    assert names == set()
    (folder / "A.md").chmod(0o600)  # metadata: looked at again too
    assert watch.changes(folder, mark)[0] == {"A.md"}


def test_the_same_folder_by_two_paths_shares_one_watch(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    other = tmp_path / "wiki" / ".." / "wiki" / "notes"
    one, two = watch.mark(folder), watch.mark(other)
    assert one is not None and two is not None
    (folder / "A.md").write_text("a")
    assert watch.changes(folder, one)[0] == {"A.md"}
    assert watch.changes(other, two)[0] == {"A.md"}


@pytest.mark.parametrize("how", ["folder", "parent"])
def test_a_folder_replaced_under_its_path_is_unknown(tmp_path: Path, how: str) -> None:
    folder = _folder(tmp_path)
    mark = watch.mark(folder)
    assert mark is not None
    if how == "folder":
        folder.rename(tmp_path / "gone")
    else:  # moving a parent sends no event for the folders below it: the inode check catches it
        (tmp_path / "wiki").rename(tmp_path / "gone")
    folder.mkdir(parents=True)
    (folder / "New.md").write_text("x")
    names, again = watch.changes(folder, mark)
    assert names is None and again is not None  # read the folder whole; watched from now on
    (folder / "Later.md").write_text("x")
    assert watch.changes(folder, again)[0] == {"Later.md"}


def test_a_mark_older_than_an_overflow_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _folder(tmp_path)
    mark = watch.mark(folder)
    assert mark is not None
    monkeypatch.setattr(watch, "MAX_PENDING", 3)
    for i in range(5):
        (folder / f"{i}.md").write_text("x")
    names, again = watch.changes(folder, mark)
    assert names is None and again is not None
    other = _folder(tmp_path / "b")
    mark_b = watch.mark(other)
    assert mark_b is not None and watch._WATCHER is not None
    watch._WATCHER._overflow()  # what IN_Q_OVERFLOW does: every folder's marks
    assert watch.changes(other, mark_b)[0] is None


def test_no_word_where_it_could_not_be_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _folder(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(folder, target_is_directory=True)
    assert watch.mark(link) is None  # a symlinked folder: its events would name another path
    assert watch.mark(tmp_path / "absent") is None
    assert watch.changes(tmp_path / "absent", None) == (None, None)
    monkeypatch.setattr(watch, "_MOUNTS", [("/", "nfs4")])  # a network file system: others' writes unseen
    assert watch.mark(folder) is None
    monkeypatch.setattr(watch, "_MOUNTS", None)
    monkeypatch.setattr(watch, "MAX_FOLDERS", 0)
    assert watch.mark(folder) is None
    monkeypatch.setattr(watch, "MAX_FOLDERS", 256)
    monkeypatch.setattr(watch, "_WATCHER", None)
    monkeypatch.setattr(watch, "_MADE_IN", None)
    monkeypatch.setenv("STIGMERGY_WATCH", "0")
    assert watch.mark(folder) is None


def test_a_forked_child_never_reads_its_parents_queue(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    mark = watch.mark(folder)
    assert mark is not None
    (folder / "A.md").write_text("x")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child watches the folder itself, then asks with the parent's mark
        try:
            assert watch.mark(folder) is not None
            names, _ = watch.changes(folder, mark)
            os.write(write, b"none" if names is None else b",".join(n.encode() for n in sorted(names)))
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 100) == b"none"
    os.close(read)
    assert watch.changes(folder, mark)[0] == {"A.md"}  # the parent's events are still the parent's


def test_an_entity_head_edited_in_place_within_its_tick_is_read_again(tmp_path: Path) -> None:
    # The stamp (mtime, size) missed this; the kernel names the page, so its head is read again.
    root = make_repo(tmp_path)
    page = root / "wiki" / "entities" / "Acme.md"
    page.parent.mkdir(parents=True)
    page.write_text("---\ntitle: Acme\naliases:\n- Foo\n---\nbody\n", encoding="utf-8")
    assert catalogue(root, "public").names() == {"Acme": "wiki/entities/Acme.md", "Foo": "wiki/entities/Acme.md"}
    _same_stamp(page, "---\ntitle: Acme\naliases:\n- Bar\n---\nbody\n")
    assert catalogue(root, "public").names() == {"Acme": "wiki/entities/Acme.md", "Bar": "wiki/entities/Acme.md"}
    page.unlink()
    assert catalogue(root, "public").names() == {}
    assert catalogue(root, "public").pages["entity"] == []


def test_a_block_edited_away_within_its_tick_leaves_the_record(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    block = _blocks(root, ENTITY)[0]
    folders = ["wiki/entities", "wiki/notes", "wiki/concepts", "wiki/projects"]
    pages = sorted(p.relative_to(root).as_posix() for p in (root / "wiki").rglob("*.md"))
    claims = {(c.source, c.start, c.end) for c in block.record.claims}
    assert recorded_claims(root, pages, folders=folders) == claims
    text = (root / ENTITY).read_text(encoding="utf-8")
    _same_stamp(root / ENTITY, text.replace(block.text, " " * (len(block.text.encode()) - 1) + "\n"))
    assert recorded_claims(root, pages, folders=folders) == frozenset()
    _same_stamp(root / ENTITY, text)
    assert recorded_claims(root, pages, folders=folders) == claims


def test_a_page_gone_while_the_folder_is_read_loses_no_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Under the kernel's word the catalogue never reads the folder whole again: a page skipped by a read cut
    # short would stay missing for the rest of the process.
    root = make_repo(tmp_path)
    folder = root / "wiki" / "entities"
    folder.mkdir(parents=True)
    for name in ("Acme", "Borealis", "Cobalt"):
        (folder / f"{name}.md").write_text(f"---\ntitle: {name}\n---\nbody\n", encoding="utf-8")
    import stigmergy.plan.catalogue as module

    real = os.scandir

    class Vanishing:
        def __init__(self, entry: os.DirEntry[str]) -> None:
            self.entry, self.name = entry, entry.name

        def is_file(self, follow_symlinks: bool = True) -> bool:
            return self.entry.is_file(follow_symlinks=follow_symlinks)

        def stat(self, follow_symlinks: bool = True) -> os.stat_result:
            if self.name == "Acme.md":
                raise FileNotFoundError(self.name)
            return self.entry.stat(follow_symlinks=follow_symlinks)

    class Listing:
        def __init__(self, path: Path) -> None:
            self.inner = real(path)

        def __enter__(self) -> Listing:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

        def __iter__(self):  # noqa: ANN204
            return (Vanishing(e) for e in sorted(self.inner, key=lambda e: e.name))

    monkeypatch.setattr(module.os, "scandir", lambda path: Listing(path))
    assert catalogue(root, "public").pages["entity"] == ["wiki/entities/Borealis.md", "wiki/entities/Cobalt.md"]
    monkeypatch.setattr(module.os, "scandir", real)
    (folder / "Acme.md").write_text("---\ntitle: Acme\n---\nbody, again\n", encoding="utf-8")
    assert catalogue(root, "public").pages["entity"] == [
        "wiki/entities/Acme.md", "wiki/entities/Borealis.md", "wiki/entities/Cobalt.md"]
