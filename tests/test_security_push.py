"""The pre-receive gate cannot be walked around (issue 18): evil merges, forged trailers, force pushes and
orphan commits, links into the wiki. A real bare repository with the server hook takes every push; each
attack has a benign twin that is still accepted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.repo.ids import new_id as make_id

Q1 = "## Results\n\nAurora Systems reported revenue of $1.2M in Q1 2026.\nThe board of Aurora Systems met in Leeds with Maria Chen.\nMaria Chen said the pipeline is healthy.\n"
Q1_REVISED = "## Corrected figures\n\nThis corrected report replaces the earlier one.\nAurora Systems reported revenue of $1.3M in Q1 2026.\nMaria Chen signed off the corrected figures.\n"
LATER = "Harbor Logistics moved 4,000 shipments through the Harbor API in April 2026.\n"
ENTITY = "wiki/entities/Aurora Systems.md"
NOTE = "wiki/notes/Aurora results.md"


def _capture(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", "capture", *args], cwd=root)
    assert code == 0, out + err
    return json.loads(out)


@pytest.fixture
def served(wiki: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A served bare repository (pre-receive gate) of a wiki with a contradiction and three captures, and a
    developer's clone of it."""
    (tmp_path / "q1.md").write_text(Q1)
    (tmp_path / "q1r.md").write_text(Q1_REVISED)
    (tmp_path / "later.md").write_text(LATER)
    _capture(wiki, str(tmp_path / "q1.md"), "--title", "Aurora results", "--occurred-at", "2026-04-02")
    _capture(wiki, str(tmp_path / "q1r.md"), "--title", "Aurora corrected", "--occurred-at", "2026-04-20")
    _capture(wiki, str(tmp_path / "later.md"), "--title", "Harbor April", "--occurred-at", "2026-05-02")
    bare = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(wiki), str(bare))
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "hooks", "install", "--server", str(bare)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    return bare, dev


def _push(dev: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", *args, "origin", "HEAD:main"], cwd=dev, capture_output=True, text=True)


def _cited_line(text: str) -> str:
    return next(line for line in text.splitlines() if "([source](" in line and not line.startswith(">"))


def _drop_cited(d: Path) -> None:
    text = (d / NOTE).read_text()
    (d / NOTE).write_text(text.replace(_cited_line(text) + "\n", ""))


def _alter_claim(d: Path) -> None:
    """Rewrite a contradiction block's claim (the figure one side reported)."""
    text = (d / ENTITY).read_text()
    start = text.index("> [!WARNING]")
    block = text[start:text.index("<!-- /stigmergy:contradiction", start)]
    assert "$1.2M" in block
    (d / ENTITY).write_text(text.replace(block, block.replace("$1.2M", "$2.1M")))


def _add_line(d: Path, rel: str, line: str) -> None:
    (d / rel).write_text((d / rel).read_text() + line + "\n")


def _sources(d: Path) -> list[Path]:
    return sorted((d / "sources").rglob("cap_*.md"))


def _rejected(proc: subprocess.CompletedProcess, rule: str, bare: Path, before: str) -> None:
    assert proc.returncode != 0, proc.stderr
    assert "push rejected" in proc.stderr and f"[{rule}]" in proc.stderr, proc.stderr
    assert git(bare, "rev-parse", "main") == before


# ---------------------------------------------------------------- evil merges


def _merge_with(dev: Path, evil) -> str:  # noqa: ANN001
    """Two harmless branches, merged; `evil` edits the merge's own tree before it is committed."""
    git(dev, "checkout", "-q", "-b", "side")
    _add_line(dev, NOTE, "- Ask finance about the Leeds meeting.")
    git(dev, "commit", "-qam", "a question")
    git(dev, "checkout", "-q", "main")
    _add_line(dev, ENTITY, "- Check the Q2 figures when they land.")
    git(dev, "commit", "-qam", "a reminder")
    git(dev, "merge", "-q", "--no-ff", "--no-commit", "side")
    if evil is not None:
        evil(dev)
        git(dev, "add", "-A")
    git(dev, "commit", "-qm", "Merge branch 'side'")
    return git(dev, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize(("evil", "rule", "path"), [(_drop_cited, "cited-line-lost", NOTE),
                                                     (_alter_claim, "contradiction-altered", ENTITY)])
def test_an_evil_merge_is_judged_by_its_own_changes(served: tuple[Path, Path], evil, rule: str, path: str) -> None:  # noqa: ANN001
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    merge = _merge_with(dev, evil)
    proc = _push(dev)
    _rejected(proc, rule, bare, before)
    assert merge[:10] in proc.stderr and path in proc.stderr


def test_a_clean_merge_is_accepted(served: tuple[Path, Path]) -> None:
    bare, dev = served
    merge = _merge_with(dev, None)
    proc = _push(dev)
    assert proc.returncode == 0, proc.stderr
    assert git(bare, "rev-parse", "main").strip() == merge


def test_a_merge_of_a_capture_with_a_persons_edit_is_accepted(served: tuple[Path, Path]) -> None:
    bare, dev = served
    git(dev, "checkout", "-q", "-b", "side")
    _capture(dev, "--text", "Aurora Systems opened an office in Leeds in June 2026.", "--title", "Leeds office")
    git(dev, "checkout", "-q", "main")
    _add_line(dev, NOTE, "- Ask finance about the Leeds meeting.")
    git(dev, "commit", "-qam", "a question")
    git(dev, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")
    proc = _push(dev)
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- forged trailers


def _forged(dev: Path, edit, kind: str, extra: str = "") -> subprocess.CompletedProcess:  # noqa: ANN001
    edit(dev)
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", f"{kind}: tidy\n\nStigmergy-Operation: op_01FORGED{kind.upper()}\nStigmergy-Kind: {kind}{extra}")
    return _push(dev)


def test_a_forged_recompile_cannot_drop_a_cited_line(served: tuple[Path, Path]) -> None:
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    _rejected(_forged(dev, _drop_cited, "recompile"), "cited-line-lost", bare, before)


def test_a_server_may_choose_to_trust_recompiles(served: tuple[Path, Path]) -> None:
    bare, dev = served
    git(bare, "config", "stigmergy.trustRecompile", "true")  # the server's own setting; no push can change it
    proc = _forged(dev, _drop_cited, "recompile")
    assert proc.returncode == 0, proc.stderr


def test_a_forged_delete_cannot_remove_a_source_its_pages_still_cite(served: tuple[Path, Path]) -> None:
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    source = _sources(dev)[0]
    rel = source.relative_to(dev).as_posix()
    proc = _forged(dev, lambda d: (d / rel).unlink(), "delete", f"\nStigmergy-Target: {rel}")
    _rejected(proc, "source-immutable", bare, before)
    assert rel in proc.stderr


def _source_with(dev: Path, needle: str) -> Path:
    return next(p for p in _sources(dev) if needle in p.read_text())


def test_a_forged_capture_cannot_readd_a_deleted_source_with_a_changed_figure(served: tuple[Path, Path]) -> None:
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    old = _source_with(dev, "$1.2M")
    text = old.read_text()
    # A real delete of the source (what anyone who can push may do), then a forged "capture" that puts the
    # same document back under a new id with a different figure, and files a line citing it.
    code, out, err = run_cli(["delete", old.relative_to(dev).as_posix(), "--rationale", "duplicate"], cwd=dev)
    assert code == 0, out + err
    old_id = old.stem
    new_id = make_id("cap")
    forged = dev / old.parent.relative_to(dev) / f"{new_id}.md"
    forged.write_text(text.replace(old_id, new_id).replace("$1.2M", "$9.2M"))
    page = dev / ENTITY
    rel = os.path.relpath(forged, page.parent)
    _add_line(dev, ENTITY, f"- Aurora Systems reported revenue of $9.2M in Q1 2026. ([source]({rel}#L3))")
    lines = page.read_text().split("\n")
    at = lines.index("sources:") + 1
    while lines[at].startswith("- "):
        at += 1
    page.write_text("\n".join([*lines[:at], f"- {new_id}", *lines[at:]]))  # what a capture would list
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", f"capture: Aurora results\n\nStigmergy-Operation: op_01FORGEDCAPTURE\n"
                              f"Stigmergy-Kind: capture\nStigmergy-Capture: {new_id}")
    proc = _push(dev)
    _rejected(proc, "source-immutable", bare, before)
    assert "readable text" in proc.stderr, proc.stderr


def test_a_real_delete_of_a_source_is_accepted(served: tuple[Path, Path]) -> None:
    bare, dev = served
    old = _source_with(dev, "Harbor Logistics")
    code, out, err = run_cli(["delete", old.relative_to(dev).as_posix(), "--rationale", "wrong repository"], cwd=dev)
    assert code == 0, out + err
    proc = _push(dev)
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- force pushes and orphans


def test_a_force_push_that_rewinds_past_a_capture_is_rejected(served: tuple[Path, Path]) -> None:
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    git(dev, "reset", "-q", "--hard", "HEAD~1")  # before the last capture
    proc = _push(dev, "--force")
    _rejected(proc, "source-immutable", bare, before)
    assert "old tip" in proc.stderr


def test_an_orphan_commit_replacing_the_wiki_is_rejected(served: tuple[Path, Path]) -> None:
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    git(dev, "checkout", "-q", "--orphan", "fresh")
    git(dev, "rm", "-rq", "--cached", ".")
    for path in ("wiki", "sources"):
        subprocess.run(["rm", "-rf", str(dev / path)], check=True)
    (dev / "wiki/notes").mkdir(parents=True)
    (dev / "wiki/notes/Fresh start.md").write_text("---\ntitle: Fresh start\nsources: []\n---\n# Fresh start\n\nNothing to see.\n")
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", "a fresh start")
    proc = _push(dev, "--force")
    _rejected(proc, "source-immutable", bare, before)


def test_a_rebased_branch_and_an_erase_can_be_force_pushed(served: tuple[Path, Path]) -> None:
    bare, dev = served
    # A feature branch, pushed, then rebased onto a newer main and force-pushed: nothing is lost.
    git(dev, "checkout", "-q", "-b", "feature")
    _add_line(dev, NOTE, "- Ask finance about the Leeds meeting.")
    git(dev, "commit", "-qam", "a question")
    assert subprocess.run(["git", "push", "-q", "origin", "feature"], cwd=dev, capture_output=True).returncode == 0
    git(dev, "checkout", "-q", "main")
    _add_line(dev, ENTITY, "- Check the Q2 figures when they land.")
    git(dev, "commit", "-qam", "a reminder")
    assert _push(dev).returncode == 0
    git(dev, "checkout", "-q", "feature")
    git(dev, "rebase", "-q", "main")
    proc = subprocess.run(["git", "push", "--force", "origin", "feature"], cwd=dev, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    git(dev, "checkout", "-q", "main")
    git(dev, "branch", "-qD", "feature")
    assert subprocess.run(["git", "push", "-q", "origin", ":feature"], cwd=dev, capture_output=True).returncode == 0
    # An erase rewrites the history; its force push is what erase tells the person to run.
    capture_id = _source_with(dev, "Harbor Logistics").stem
    code, out, err = run_cli(["erase", capture_id, "--rationale", "a legal request", "--yes"], cwd=dev)
    assert code == 0, out + err
    proc = subprocess.run(["git", "push", "--force", "origin", "main"], cwd=dev, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert capture_id not in git(bare, "log", "--format=%B", "main")
    assert "Stigmergy-Kind: erase" in git(bare, "log", "-1", "--format=%B", "main")


# ---------------------------------------------------------------- links in the wiki


@pytest.mark.parametrize("link", ["wiki/board", "wiki/notes/Board.md", "layers/board/wiki/projects"])
def test_a_pushed_symbolic_link_in_the_wiki_is_rejected(served: tuple[Path, Path], link: str) -> None:
    bare, dev = served
    before = git(bare, "rev-parse", "main")
    target = dev / link
    target.parent.mkdir(parents=True, exist_ok=True)
    depth = link.count("/")
    target.symlink_to("../" * depth + "layers/board/wiki/entities")
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", "a shortcut")
    proc = _push(dev)
    _rejected(proc, "zone", bare, before)
    assert link in proc.stderr


# ---------------------------------------------------------------- feedback batches are append-only


def _page_id(d: Path, rel: str) -> str:
    return next(line.split(":", 1)[1].strip() for line in (d / rel).read_text().splitlines() if line.startswith("id:"))


def _batch(d: Path, records: list[tuple[str, str, tuple[str, ...]]]) -> str:
    """A feedback batch as `feedback` writes it (one canonical record a line), committed as a person would."""
    from stigmergy.trust.records import Record, batch_relpath, render_record

    at = "2026-11-02T10:00:00Z"
    rel = batch_relpath("public", at, make_id("fb"))
    lines = [render_record(Record(make_id("fb"), at, "ann@example.com", kind, _page_id(d, page), page, "public",
                                  captures)) for kind, page, captures in records]
    (d / rel).parent.mkdir(parents=True, exist_ok=True)
    (d / rel).write_text("".join(line + "\n" for line in lines))
    git(d, "add", "-A")
    git(d, "commit", "-qm", "reader feedback")
    return rel


def test_a_push_that_edits_or_deletes_recorded_feedback_is_rejected(served: tuple[Path, Path]) -> None:
    bare, dev = served
    rel = _batch(dev, [("wrong", NOTE, ()), ("useful", ENTITY, ())])
    assert _push(dev).returncode == 0  # recording feedback: accepted
    _batch(dev, [("useful", NOTE, ())])
    assert _push(dev).returncode == 0  # a new judgement is a new batch: accepted
    before = git(bare, "rev-parse", "main")
    text = (dev / rel).read_text()

    def flip(d: Path) -> None:  # still canonical records: only the verdict changed
        (d / rel).write_text(text.replace('"kind":"wrong"', '"kind":"useful"'))

    def drop_line(d: Path) -> None:
        (d / rel).write_text(text.splitlines(keepends=True)[1])

    def append(d: Path) -> None:  # even adding to a committed batch edits recorded evidence
        (d / rel).write_text(text + text.splitlines(keepends=True)[0].replace('"wrong"', '"useful"'))

    def delete(d: Path) -> None:
        (d / rel).unlink()

    def move(d: Path) -> None:  # a rename (here to another month's folder) deletes the batch where it was
        (d / rel.replace("/11/", "/10/")).parent.mkdir(parents=True)
        (d / rel).rename(d / rel.replace("/11/", "/10/"))

    for evil in (flip, drop_line, append, delete, move):
        evil(dev)
        git(dev, "add", "-A")
        git(dev, "commit", "-qm", "tidy the feedback")
        proc = _push(dev)
        _rejected(proc, "feedback-append-only", bare, before)
        assert rel in proc.stderr
        git(dev, "reset", "-q", "--hard", "origin/main")
    # A force push that rewinds past the batches drops recorded feedback too.
    git(dev, "reset", "-q", "--hard", "HEAD~2")
    _add_line(dev, NOTE, "- Ask finance about the Leeds meeting.")
    git(dev, "commit", "-qam", "a question")
    proc = _push(dev, "--force")
    _rejected(proc, "feedback-append-only", bare, before)


def test_an_erase_takes_only_the_erased_captures_feedback_and_is_accepted(served: tuple[Path, Path]) -> None:
    bare, dev = served
    harbor = _source_with(dev, "Harbor Logistics").stem
    rel = _batch(dev, [("wrong", NOTE, ()), ("useful", NOTE, (harbor,))])
    assert _push(dev).returncode == 0
    code, out, err = run_cli(["erase", harbor, "--rationale", "a legal request", "--yes"], cwd=dev)
    assert code == 0, out + err
    proc = subprocess.run(["git", "push", "--force", "origin", "main"], cwd=dev, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    served_text = git(bare, "show", f"main:{rel}")
    assert harbor not in served_text and '"kind":"wrong"' in served_text
    # A forged "erase" cannot take out a record that names no erased capture.
    git(dev, "commit", "-q", "--allow-empty", "-m",
        f"erase: 1 capture\n\nStigmergy-Operation: {make_id('op')}\nStigmergy-Kind: erase\n"
        f"Erased-Id-Sha256: {'0' * 64}\n")
    (dev / rel).write_text("")
    git(dev, "commit", "-qam", "erase: the rest")
    before = git(bare, "rev-parse", "main")
    _rejected(_push(dev), "feedback-append-only", bare, before)
