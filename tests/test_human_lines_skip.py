"""Which body lines people wrote (garden/carry.human_lines, what recompile and export carry over) is asked
of `git blame`, two processes per page a person's commit touched. Pages a person touched only in their
front matter (an alias edit) are answered without blame (Authorship.body_untouched_by_people); these tests
hold the answer to what blame gives for every page, in the cases where the skip applies and where it
must not (a person's body line, a person's line on the page before stigmergy renamed it, a commit blame
looks through after a person's edit)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.garden.carry import human_lines
from stigmergy.gates.authorship import Authorship

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
FILES = [CORPUS / "customers", CORPUS / "reports" / "2026-07-08-q2-2026-quarterly-report-draft.md"]


def _ok(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", *args], cwd=root)
    assert code == 0, err + out
    return json.loads(out)


def _person(root: Path, message: str) -> None:
    git(root, "-c", "user.name=Pat Person", "-c", "user.email=pat@example.com", "commit", "-qam", message)


def _add_alias(root: Path, rel: str, alias: str) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    head, _, body = text.partition("\n---\n")
    head = re.sub(r"\naliases: \[\]", "\naliases:", head)
    head = head.replace("\naliases:", f"\naliases:\n- {alias}", 1) if "\naliases:" in head else head + f"\naliases:\n- {alias}"
    (root / rel).write_text(head + "\n---\n" + body, encoding="utf-8")


def _texts(root: Path) -> dict[str, str]:
    return {p: (root / p).read_text(encoding="utf-8") for p in git(root, "ls-files", "-z", "wiki").split("\0")
            if p.endswith(".md") and p.count("/") == 2}


def _per_page(root: Path, walk: tuple[str, ...]) -> tuple[dict[str, frozenset[int]], set[str]]:
    """Each page's human lines and the pages answered without blame, from an Authorship that reads the
    pages' commits from the shared walk of wiki/ and layers/ (`walk`) or asks git per file (())."""
    texts = _texts(root)
    a = Authorship(root, walk=walk)
    untouched = a.body_untouched_by_people(texts)
    return {rel: a.human_lines(rel) for rel in texts}, untouched


def _walk_agrees(root: Path) -> None:
    # human_lines reads the pages' commits from the walk the curation record reads: the same answer, page
    # by page, as the three walks it replaced (people's commits, their files, each file's commits).
    assert _per_page(root, ("wiki", "layers")) == _per_page(root, ())


def _blamed(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[int, str]]]:
    """What human_lines gives when every page is blamed (the answer before the skip)."""
    with monkeypatch.context() as m:
        m.setattr(Authorship, "body_untouched_by_people", lambda self, paths: set())
        return human_lines(root, _texts(root))


def test_an_alias_edit_is_answered_without_blame_and_a_body_line_is_not(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _ok(wiki, "capture", *map(str, FILES))
    alias_only, body = "wiki/entities/Norrland Fresh.md", "wiki/entities/Aoife Brennan.md"
    _add_alias(wiki, alias_only, "Norrland")
    _person(wiki, "an alias")
    (wiki / body).write_text((wiki / body).read_text(encoding="utf-8") + "\nOur note: calls on Tuesdays.\n", encoding="utf-8")
    _add_alias(wiki, body, "Aoife B.")
    _person(wiki, "a note and an alias")
    skipped = Authorship(wiki).body_untouched_by_people(_texts(wiki))
    assert alias_only in skipped and body not in skipped
    got = human_lines(wiki, _texts(wiki))
    _walk_agrees(wiki)
    assert got == _blamed(wiki, monkeypatch)
    assert [t for _, t in got[body] if t] == ["Our note: calls on Tuesdays."] and alias_only not in got


def test_a_persons_line_before_a_rename_is_still_found(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blame follows the page back through stigmergy's rename to the person's line on the old path."""
    _ok(wiki, "capture", *map(str, FILES))
    old = "wiki/entities/Aoife Brennan.md"
    (wiki / old).write_text((wiki / old).read_text(encoding="utf-8") + "\nOur note: calls on Tuesdays.\n", encoding="utf-8")
    _person(wiki, "a note")
    _ok(wiki, "rename", "Aoife Brennan", "Aoife Brennan-Walsh")
    new = "wiki/entities/Aoife Brennan-Walsh.md"
    _add_alias(wiki, new, "Aoife B.")
    _person(wiki, "an alias after the rename")
    assert new not in Authorship(wiki).body_untouched_by_people(_texts(wiki))
    got = human_lines(wiki, _texts(wiki))
    _walk_agrees(wiki)
    assert got == _blamed(wiki, monkeypatch)
    assert "Our note: calls on Tuesdays." in [t for _, t in got[new]]


def test_an_alias_edit_after_a_rename_is_answered_without_blame(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _ok(wiki, "capture", *map(str, FILES))
    _ok(wiki, "rename", "Aoife Brennan", "Aoife Brennan-Walsh")
    new = "wiki/entities/Aoife Brennan-Walsh.md"
    _add_alias(wiki, new, "Aoife B.")
    _person(wiki, "an alias after the rename")
    assert new in Authorship(wiki).body_untouched_by_people(_texts(wiki))
    _walk_agrees(wiki)
    assert human_lines(wiki, _texts(wiki)) == _blamed(wiki, monkeypatch) == {}


def test_a_commit_blame_looks_through_after_an_alias_edit_means_blame(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A merge after a person's alias edit on the kept page: blame hands the lines the merge changed to
    nearby lines of the page before it, which may be the person's; the page is blamed."""
    _ok(wiki, "capture", *map(str, FILES))
    kept = "wiki/entities/Norrland Fresh.md"
    _add_alias(wiki, kept, "Norrland")
    _person(wiki, "an alias")
    _ok(wiki, "merge", "Harbor API", "INTO", "Norrland Fresh")
    assert kept not in Authorship(wiki).body_untouched_by_people(_texts(wiki))
    _walk_agrees(wiki)
    assert human_lines(wiki, _texts(wiki)) == _blamed(wiki, monkeypatch)


def test_an_uncommitted_edit_is_blamed(wiki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _ok(wiki, "capture", *map(str, FILES))
    rel = "wiki/entities/Norrland Fresh.md"
    _add_alias(wiki, rel, "Norrland")
    _person(wiki, "an alias")
    (wiki / rel).write_text((wiki / rel).read_text(encoding="utf-8") + "\nNot committed yet.\n", encoding="utf-8")
    assert rel not in Authorship(wiki).body_untouched_by_people(_texts(wiki))
    got = human_lines(wiki, _texts(wiki))
    _walk_agrees(wiki)
    assert got == _blamed(wiki, monkeypatch) and "Not committed yet." in [t for _, t in got[rel]]


def test_a_merged_branch_or_a_file_outside_the_walk_reads_the_whole_history(wiki: Path) -> None:
    """With a merge in the history a file's commits are what `git log -- FILE` simplifies them to, not the
    commits whose changes list it: the walk is not used. Nor for a file outside wiki/ and layers/, whose
    people's commits the walk of those folders does not hold; asking one after the pages reads again."""
    _ok(wiki, "capture", *map(str, FILES))
    rel = "wiki/entities/Norrland Fresh.md"
    git(wiki, "checkout", "-qb", "side")
    _add_alias(wiki, rel, "Norrland")
    _person(wiki, "an alias on a branch")
    git(wiki, "checkout", "-q", "-")
    (wiki / "notes.txt").write_text("a person's file\n", encoding="utf-8")
    git(wiki, "add", "notes.txt")
    _person(wiki, "outside the wiki")
    git(wiki, "-c", "user.name=Pat Person", "-c", "user.email=pat@example.com", "merge", "-q", "--no-ff", "-m", "merge", "side")
    walked = Authorship(wiki, walk=("wiki", "layers"))
    walked.prefetch(list(_texts(wiki)))
    assert not walked._walked
    _walk_agrees(wiki)
    git(wiki, "reset", "-q", "--hard", "HEAD^")  # linear again: the walk is read
    walked = Authorship(wiki, walk=("wiki", "layers"))
    walked.prefetch(list(_texts(wiki)))
    assert walked._walked
    _walk_agrees(wiki)
    assert walked.human_lines("notes.txt") == frozenset({1})  # outside: the whole history is read again
    assert not walked._walked and walked._history.human is not None and "notes.txt" in walked._history.human


def _ours(g: object, paths: list[str], n: int) -> None:
    g.commit_paths(paths, f"capture: {n}\n\nStigmergy-Operation: op_{n}\nStigmergy-Kind: capture", "S", "s@e")  # type: ignore[attr-defined]


@pytest.mark.parametrize("extra", [(), ("wiki/notes/Untracked.md", "wiki/notes/Ignored.md")])
def test_status_after_our_commit_skips_the_untracked_walk_and_answers_as_one_status(tmp_path: Path, extra: tuple[str, ...]) -> None:
    """After a commit of this process (the plumbing keeps HEAD's tree), `git status` of pages HEAD holds
    reads no folder for untracked files (an untracked page asked about is walked for alone, and a page out
    of the index again); what the human-line gate learns is what one full status says:
    a person's uncommitted edit, a page they took out of the index (untracked again), and, when asked,
    an untracked and an ignored page."""
    from stigmergy.repo.git import Git

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "wiki" / "notes").mkdir(parents=True)
    pages = [f"wiki/notes/{n}.md" for n in ("Edited", "Unstaged", "Clean")]
    for i, rel in enumerate(pages):
        (root / rel).write_text("".join(f"line {k} of {i}\n" for k in range(4)))
    (root / ".gitignore").write_text("wiki/notes/Ignored.md\n")
    trace = tmp_path / "trace.txt"
    g = Git(root, env={"GIT_TRACE": str(trace)})
    _ours(g, [*pages, ".gitignore"], 1)
    (root / pages[2]).write_text("line 0 of 2, again\n")
    _ours(g, [pages[2]], 2)  # through the plumbing: this process now holds HEAD's tree
    (root / pages[0]).write_text("a person's line\n" + (root / pages[0]).read_text())
    git(root, "rm", "-q", "--cached", pages[1])
    for rel in ("wiki/notes/Untracked.md", "wiki/notes/Ignored.md"):
        (root / rel).write_text("theirs\n")
    asked = [*pages, *extra]
    new = ["wiki/notes/New page.md"]
    trace.write_text("")
    shortcut = Authorship(root, git=g)
    shortcut.prefetch(asked, also_status=new)
    statuses = [line for line in trace.read_text().splitlines() if "'status'" in line or " status " in line]
    assert statuses and "--untracked-files=no" in statuses[0]
    # an untracked page asked about is walked for alone (the tracked ones are not read again)
    walks = [line for line in statuses if "--untracked-files=all" in line]
    assert len(walks) == 1 and all("Edited" not in line and "Clean" not in line for line in walks)
    full = Authorship(root)  # a new Git: no kept tree, one status with the walk, as before
    full.prefetch(asked, also_status=new)
    assert shortcut.changed([*asked, *new]) == full.changed([*asked, *new])
    assert shortcut.changed([*asked, *new]) == sorted([pages[0], pages[1], *extra[:1]])
    for rel in asked:
        assert shortcut.human_lines(rel) == full.human_lines(rel)
    assert shortcut.human_lines(pages[1]) == frozenset(range(1, 5))  # out of the index: every line a person's
    assert 1 in shortcut.human_lines(pages[0]) and shortcut.human_lines(pages[2]) == frozenset()
