"""`Git.log_changes`: one walk of the history, each commit's header and all it changed. A header is cut at
its own mark, so a trailer value that spans lines (a hand-made commit message) cannot shift the entries."""

from __future__ import annotations

from pathlib import Path

from conftest import git

from stigmergy.history.curation import read_curation
from stigmergy.repo.git import Git


def test_a_trailer_value_over_two_lines_does_not_shift_what_each_commit_changed(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    page = tmp_path / "wiki/entities/A.md"
    page.parent.mkdir(parents=True)
    page.write_text("a\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("outside the wiki\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first")
    page.write_text("b\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("changed too\n", encoding="utf-8")
    git(tmp_path, "commit", "-qam", "second\n\nStigmergy-Target: wiki/entities/A.md\n  and a second line\n"
        "Stigmergy-Kind: rename\n")
    (tmp_path / "wiki/entities/B.md").write_text("c\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "third")

    got = Git(tmp_path).log_changes("%s\x1f%(trailers:key=Stigmergy-Target,valueonly)", "wiki")
    assert [head.split("\x1f")[0] for head, _ in got] == ["first", "second", "third"]
    assert "second line" in got[1][0]
    paths = [sorted((e["path"], e["action"]) for e in entries) for _, entries in got]
    assert paths == [[("notes.txt", "add"), ("wiki/entities/A.md", "add")],  # --full-diff: every path
                     [("notes.txt", "modify"), ("wiki/entities/A.md", "modify")],
                     [("wiki/entities/B.md", "add")]]
    # A commit without the operation trailer is a person's: read as such, nothing dropped, nothing crashed.
    record = read_curation(Git(tmp_path))
    assert record.unreadable == []
