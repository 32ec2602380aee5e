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


def _history_with_a_merge(root: Path) -> None:
    """Commits by stigmergy and by a person on two branches, merged: what both walks of the wiki must agree on."""
    git(root, "init", "-q", "-b", "main")
    page = root / "wiki/entities/A.md"
    page.parent.mkdir(parents=True)
    page.write_text("---\ntitle: A\n---\n# A\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "capture: A\n\nStigmergy-Operation: op_1\nStigmergy-Kind: capture")
    git(root, "checkout", "-qb", "side")
    (root / "wiki/notes").mkdir()
    (root / "wiki/notes/N.md").write_text("a person's note\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a person's note")
    git(root, "checkout", "-q", "main")
    page.write_text("---\ntitle: A\naliases:\n- Ay\n---\n# A\n", encoding="utf-8")
    git(root, "commit", "-qam", "rename: A\n\nStigmergy-Operation: op_2\nStigmergy-Kind: rename, garden")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    (root / "outside.txt").write_text("not the wiki\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "outside")


def test_log_changes_is_the_no_merges_walk_oldest_first_from_the_shared_walk(tmp_path: Path) -> None:
    # log_changes now reads the shared walk (merges included, newest first) and drops merges: the commits
    # and what each changed must be what `git log --reverse --no-merges` lists.
    _history_with_a_merge(tmp_path)
    g = Git(tmp_path)
    got = [(head, sorted((e["path"], e["action"]) for e in entries)) for head, entries in g.log_changes("%s", "wiki")]
    subjects = git(tmp_path, "log", "--reverse", "--topo-order", "--no-merges", "--format=%s", "--", "wiki").splitlines()
    assert [head for head, _ in got] == subjects
    assert sorted(subjects) == ["a person's note", "capture: A", "rename: A"]
    assert dict(got)["a person's note"] == [("wiki/notes/N.md", "add")]
    walk = g.history_changes("%s", "wiki")
    assert [(head, merge) for head, merge, _ in walk][0] == ("merge side", True)  # newest first, the merge kept
    assert [e["path"] for e in walk[0][2]] == ["wiki/notes/N.md"]  # against its first parent
    assert g.history_changes("%s", "wiki") is walk  # one walk per HEAD
    (tmp_path / "wiki/notes/M.md").write_text("another\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "later")
    assert g.history_changes("%s", "wiki")[0][0] == "later"  # HEAD moved: walked again


def test_people_s_pages_read_from_the_shared_walk_as_from_their_own(tmp_path: Path) -> None:
    # Authorship._changes had its own `git log`; it now reads HISTORY_FORMAT's walk. Same commits, same
    # trailers (a kind trailer with two values stays one comma-joined value), same statuses and blobs.
    from stigmergy.gates.authorship import Authorship
    from stigmergy.repo.trailers import TRAILER_KIND, TRAILER_OP, trailer_format

    _history_with_a_merge(tmp_path)
    mark = "\x1estigmergy-commit "
    raw = git(tmp_path, "-c", "core.quotePath=false", "log", "--topo-order", "--no-renames", "--raw", "--no-abbrev", "-z",
              "--full-diff", "--diff-merges=first-parent",
              f"--format={mark}%H%x1f{trailer_format(TRAILER_OP)}%x1f{trailer_format(TRAILER_KIND)}", "--", "wiki", "layers")
    expected = []
    for block in raw.split(mark)[1:]:
        head, _, rest = block.partition("\n")
        sha, op, kind = (head.strip("\0\n ").split("\x1f") + ["", ""])[:3]
        tokens = rest.split("\0")
        changed = {}
        for j in range(len(tokens) - 1):
            meta = tokens[j].strip("\n").split()
            if meta and meta[0].startswith(":") and len(meta) >= 5:
                changed[tokens[j + 1]] = (meta[4][:1], meta[2], meta[3])
        expected.append((sha, bool(op.strip()), kind.strip(), changed))
    got = [(c.sha, c.ours, c.kind, c.changed) for c in Authorship(tmp_path)._changes(["wiki", "layers"])]
    assert got == expected
    assert "rename, garden" in [kind for _, _, kind, _ in got]


def test_kept_blobs_are_object_ids_only(tmp_path: Path) -> None:
    # `rev:path` names other bytes once the branch moves: never answered from what was kept.
    git(tmp_path, "init", "-q")
    (tmp_path / "f.txt").write_text("one\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    g = Git(tmp_path)
    oid = git(tmp_path, "rev-parse", "HEAD:f.txt").strip()
    assert g.blobs([oid, "HEAD:f.txt"], keep=True) == {oid: b"one\n", "HEAD:f.txt": b"one\n"}
    (tmp_path / "f.txt").write_text("two\n", encoding="utf-8")
    git(tmp_path, "commit", "-qam", "two")
    assert g.blobs(["HEAD:f.txt", oid], keep=True) == {"HEAD:f.txt": b"two\n", oid: b"one\n"}
    assert g.blobs(["0" * 40], keep=True) == {}
