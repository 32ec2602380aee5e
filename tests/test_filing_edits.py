"""The write path never takes a person's uncommitted edit into its own commit, never re-files a filed
capture, and a forced re-capture of the same bytes adds no duplicate lines."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_cli

PROJECT = "wiki/projects/Atlas.md"


def _run(root: Path, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli(["--json", *args], cwd=root)
    assert code in (0, 3), out + err
    return code, json.loads(out)


def _kickoff(wiki: Path) -> None:
    (wiki.parent / "kickoff.txt").write_text("Ada Lovelace started the Atlas project on 5 March 2026.\n")
    code, report = _run(wiki, "capture", str(wiki.parent / "kickoff.txt"), "--project", "Atlas")
    assert report["captures"][0]["status"] == "filed" and (wiki / PROJECT).is_file()


def test_a_filing_that_touches_an_uncommitted_edit_waits_for_it(wiki: Path) -> None:
    _kickoff(wiki)
    page = wiki / PROJECT
    edited = page.read_text() + "\nA person's note, not yet committed.\n"
    page.write_text(edited)
    code, report = _run(wiki, "capture", "--text", "The Atlas project shipped its beta on 20 March 2026.", "--project", "Atlas")
    [outcome] = report["captures"]
    assert code == 0 and outcome["status"] == "waiting" and PROJECT in outcome["message"]
    # The source page landed alone; the person's edit is untouched and still theirs to commit.
    assert git(wiki, "show", "--name-only", "--format=", "HEAD").split() == [outcome["source_path"]]
    assert page.read_text() == edited
    assert git(wiki, "status", "--porcelain").split() == ["M", PROJECT]
    assert _run(wiki, "status")[1]["counts"]["unfiled"] == 1
    # Still uncommitted: `file` keeps waiting and commits nothing.
    head = git(wiki, "rev-parse", "HEAD")
    _, report = _run(wiki, "file")
    assert [o["status"] for o in report["captures"]] == ["waiting"] and git(wiki, "rev-parse", "HEAD") == head
    git(wiki, "commit", "-qam", "my note")
    _, report = _run(wiki, "file")
    assert [o["status"] for o in report["captures"]] == ["filed"]
    text = page.read_text()
    assert "A person's note, not yet committed." in text and "20 March 2026" in text
    assert git(wiki, "status", "--porcelain") == ""
    assert _run(wiki, "status")[1]["counts"]["unfiled"] == 0


def test_refiling_a_filed_capture_is_a_no_op_that_says_so(wiki: Path) -> None:
    _kickoff(wiki)
    [op] = _run(wiki, "log", "--kind", "capture")[1]["operations"]
    head = git(wiki, "rev-parse", "HEAD")
    code, out, err = run_cli(["file", op["manifest"]["capture"]], cwd=wiki)
    assert code == 0 and "already filed; nothing to do" in err and "1 unchanged" in out
    assert git(wiki, "rev-parse", "HEAD") == head


def test_forced_recapture_of_the_same_bytes_adds_no_duplicate_lines(wiki: Path) -> None:
    _kickoff(wiki)
    pages = {p: p.read_text() for p in (wiki / "wiki").rglob("*.md")}
    code, report = _run(wiki, "capture", "--force", str(wiki.parent / "kickoff.txt"), "--project", "Atlas")
    [outcome] = report["captures"]
    assert outcome["status"] == "captured" and "same bytes as" in outcome["message"]
    assert {p: p.read_text() for p in (wiki / "wiki").rglob("*.md")} == pages
    assert len(list((wiki / "sources").rglob("cap_*.md"))) == 2
    _, report = _run(wiki, "file")
    assert report["captures"] == []  # nothing left unfiled: the twin counts as filed


def test_a_filing_that_would_write_a_page_a_person_deleted_uncommitted_waits(wiki: Path) -> None:
    """The page is not on disk, so only the status of every page the plan writes (issue 24: asked once, in
    the gates' `git status`) can tell that a person's deletion is pending."""
    _kickoff(wiki)
    (wiki / PROJECT).unlink()
    code, report = _run(wiki, "capture", "--text", "Ada Lovelace shipped the Atlas beta on 20 March 2026.", "--project", "Atlas")
    [outcome] = report["captures"]
    assert code == 0 and outcome["status"] == "waiting" and PROJECT in outcome["message"]
    assert not (wiki / PROJECT).exists()
    assert git(wiki, "status", "--porcelain").split() == ["D", PROJECT]


def test_one_git_status_per_filed_capture(wiki: Path, monkeypatch, tmp_path: Path) -> None:  # noqa: ANN001
    """Issue 24: the gates' `git status` also tells the write path whether a page holds a person's edit."""
    _kickoff(wiki)
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    _, report = _run(wiki, "capture", "--text", "Ada Lovelace shipped the Atlas beta on 20 March 2026.", "--project", "Atlas")
    [outcome] = report["captures"]
    assert outcome["status"] == "filed" and PROJECT in outcome["pages"]
    assert trace.read_text().count("built-in: git status") == 1
