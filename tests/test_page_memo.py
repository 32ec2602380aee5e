"""What one process derived from each page, kept for the next (repo/page_memo.py, issue 27): a new process reads
only the pages changed since, answers exactly as a fresh read would, and trusts no entry of a page written
within the racy window, nor a cache file of any other shape."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from test_filing_bounds import ENTITY, _blocks, _disagreeing
from test_plan_support import make_repo

from stigmergy.gates.authorship import Authorship
from stigmergy.plan import catalogue as catalogue_mod
from stigmergy.plan.deterministic import contradiction_assembly as ca
from stigmergy.repo import page_memo, watch
from stigmergy.repo.git import Git


@pytest.fixture(autouse=True)
def _fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "_WATCHER", None)
    monkeypatch.setattr(page_memo, "_MEMOS", {})
    monkeypatch.setattr(page_memo, "_DIRTY", {})
    monkeypatch.setattr(page_memo, "_AT_EXIT", {})
    monkeypatch.setattr(ca, "_RECORDED", {})
    monkeypatch.setattr(catalogue_mod, "_CATALOGUES", {})


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a process leaves behind at its exit, and what the next one starts without."""
    page_memo._save_all()
    monkeypatch.setattr(page_memo, "_MEMOS", {})
    monkeypatch.setattr(ca, "_RECORDED", {})
    monkeypatch.setattr(catalogue_mod, "_CATALOGUES", {})


def _pages(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "wiki").rglob("*.md"))


def _age_all(root: Path, seconds: int = 3600) -> None:
    """Date every page back, as pages filed in an earlier session are."""
    for p in (root / "wiki").rglob("*.md"):
        t = p.stat().st_mtime_ns - seconds * 1_000_000_000
        os.utime(p, ns=(t, t))


def _filed(tmp_path: Path) -> Path:
    """A repository with one disagreement on record, its pages dated an hour back."""
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _age_all(root)
    return root


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[str]:
    seen: list[str] = []
    real = getattr(module, name)

    def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(str(args[1] if name == "scan_blocks" else args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)
    return seen


def test_a_new_process_reads_only_the_pages_changed_since(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 2)
    _age_all(root)
    block = _blocks(root, ENTITY)[0]
    claims = {(c.source, c.start, c.end) for b in _blocks(root, ENTITY) for c in b.record.claims}
    assert block.record.claims and ca.recorded_claims(root, _pages(root)) == claims
    _new_process(monkeypatch)
    scanned = _counting(monkeypatch, ca, "scan_blocks")
    assert ca.recorded_claims(root, _pages(root)) == claims
    assert scanned == []  # every page's claims came from the earlier process
    # A person removes the block: the page's stamp moved, so it alone is read again.
    page = (root / ENTITY).read_text(encoding="utf-8")
    (root / ENTITY).write_text(page.replace(block.text, ""), encoding="utf-8")
    _new_process(monkeypatch)
    scanned = _counting(monkeypatch, ca, "scan_blocks")
    left = {(c.source, c.start, c.end) for b in _blocks(root, ENTITY) for c in b.record.claims}
    assert ca.recorded_claims(root, _pages(root)) == left != claims
    assert scanned == [ENTITY]
    # A page removed: its entry goes with it.
    (root / ENTITY).unlink()
    _new_process(monkeypatch)
    assert ca.recorded_claims(root, _pages(root)) == frozenset()
    _new_process(monkeypatch)
    kept = json.loads((root / ".stigmergy" / "memo" / "pages-claims-public.json").read_text(encoding="utf-8"))
    assert ENTITY not in kept["pages"]


def test_a_page_written_within_the_racy_window_is_never_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rewrite of the same size within the clock's tick keeps (mtime, size): an entry taken that soon after
    the page's write could be stale without any stamp telling it. Such pages are read again next time."""
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    block = _blocks(root, ENTITY)[0]
    claims = {(c.source, c.start, c.end) for c in block.record.claims}
    assert ca.recorded_claims(root, _pages(root)) == claims  # the pages are seconds old: nothing kept
    # The same page, the same size and the same mtime, its block gone (as a rewrite within the tick).
    st = (root / ENTITY).stat()
    page = (root / ENTITY).read_text(encoding="utf-8")
    assert block.text in page
    changed = page.replace(block.text, "x" * len(block.text.encode("utf-8")))
    assert len(changed.encode()) == st.st_size
    (root / ENTITY).write_text(changed, encoding="utf-8")
    os.utime(root / ENTITY, ns=(st.st_atime_ns, st.st_mtime_ns))
    _new_process(monkeypatch)
    assert ca.recorded_claims(root, _pages(root)) == frozenset()
    cache = root / ".stigmergy" / "memo" / "pages-claims-public.json"
    assert not cache.exists() or json.loads(cache.read_text(encoding="utf-8"))["pages"] == {}


def test_a_cache_file_of_another_shape_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _filed(tmp_path)
    claims = ca.recorded_claims(root, _pages(root))
    assert claims
    _new_process(monkeypatch)
    cache = root / ".stigmergy" / "memo" / "pages-claims-public.json"
    good = json.loads(cache.read_text(encoding="utf-8"))
    st = (root / ENTITY).stat()
    hostile = [
        b"not json",
        json.dumps({**good, "format": 99}).encode(),
        json.dumps({**good, "name": "heads-public"}).encode(),
        json.dumps({**good, "pages": {ENTITY: [st.st_mtime_ns, st.st_size, [["x", "1", 2]]]}}).encode(),
        json.dumps({**good, "pages": {ENTITY: [st.st_mtime_ns, st.st_size, "claims"]}}).encode(),
        json.dumps({**good, "pages": {ENTITY: [str(st.st_mtime_ns), st.st_size, []]}}).encode(),
    ]
    for raw in hostile:
        cache.write_bytes(raw)
        _new_process(monkeypatch)
        assert ca.recorded_claims(root, _pages(root)) == claims, raw[:60]
    monkeypatch.setattr(page_memo, "MAX_BYTES", 10)
    cache.write_text(json.dumps({**good, "pages": {ENTITY: [st.st_mtime_ns, st.st_size, []]}}), encoding="utf-8")
    _new_process(monkeypatch)
    assert ca.recorded_claims(root, _pages(root)) == claims  # too large to read: the pages are read


def test_entity_heads_come_from_the_earlier_process_until_a_page_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _filed(tmp_path)
    names = dict(catalogue_mod.catalogue(root, "public").names())
    entities = catalogue_mod.catalogue(root, "public").entities()
    assert names and entities
    _new_process(monkeypatch)
    read = _counting(monkeypatch, catalogue_mod, "_read_head")
    assert dict(catalogue_mod.catalogue(root, "public").names()) == names
    assert catalogue_mod.catalogue(root, "public").entities() == entities
    assert read == []
    # An alias added by hand is seen by the next process (the page's stamp moved).
    page = (root / ENTITY).read_text(encoding="utf-8")
    (root / ENTITY).write_text(page.replace("aliases: []", "aliases:\n- Halden"), encoding="utf-8")
    assert "- Halden" in (root / ENTITY).read_text(encoding="utf-8")
    _new_process(monkeypatch)
    read = _counting(monkeypatch, catalogue_mod, "_read_head")
    got = catalogue_mod.catalogue(root, "public").names()
    assert got.get("Halden") == ENTITY
    assert read == [str(root / ENTITY)]


def test_no_cache_is_written_outside_a_repository(tmp_path: Path) -> None:
    m = page_memo.PageMemo(tmp_path, "claims-public")
    old = time.time_ns() - 10 * page_memo.RACY_NS
    m.keep("wiki/notes/A.md", (old, 3), [], time.time_ns())
    m.save()
    assert not (tmp_path / ".stigmergy").exists()
    # A layer's name is the user's: it never becomes a path.
    assert page_memo.PageMemo(tmp_path, "heads-../../x").file.parent == tmp_path / ".stigmergy" / "memo"


def test_the_residue_audit_searches_the_kept_entries_and_erase_drops_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries hold capture ids and entity names: an erased capture's id left there would be residue."""
    from stigmergy.history.audit import audit

    root = _filed(tmp_path)
    claims = ca.recorded_claims(root, _pages(root))
    _new_process(monkeypatch)
    cid = sorted(claims)[0][0]
    found = audit(root, [cid]).findings
    assert any(f.where.startswith(".stigmergy/memo/") for f in found)
    page_memo.drop(root)
    assert not any(f.where.startswith(".stigmergy/memo/") for f in audit(root, [cid]).findings)
    page_memo._save_all()
    assert not list((root / ".stigmergy" / "memo").iterdir())


# -- which files people's commits touched, kept between processes (gates/authorship.py) --------------------


def _person_edit(root: Path, rel: str, line: str) -> None:
    with open(root / rel, "a", encoding="utf-8") as fh:
        fh.write(f"\n{line}\n")
    subprocess.run(["git", "-c", "user.name=Pat", "-c", "user.email=pat@example.com", "commit", "-qam", "by hand"],
                   cwd=root, check=True)


def _human_everywhere(root: Path) -> dict[str, frozenset[int]]:
    a = Authorship(root)
    pages = _pages(root)
    a.prefetch(pages)
    return {p: a.human_lines(p) for p in pages}


def _logs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    real = Git.run

    def run(self: Git, *args: str, **kw):  # type: ignore[no-untyped-def]
        seen.append(args)
        return real(self, *args, **kw)

    monkeypatch.setattr(Git, "run", run)
    return seen


def _whole_walks(seen: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """`git log` runs over the whole history for every file (not `--boundary NEW ^OLD`, nor one file's log)."""
    return [a for a in seen if "log" in a and "--" not in a and not any(x.startswith("^") for x in a)]


def test_a_new_process_reads_only_the_commits_since_the_last_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _person_edit(root, ENTITY, "- A line Pat wrote.")
    first = _human_everywhere(root)
    assert first[ENTITY]  # Pat's line
    _new_process(monkeypatch)
    seen = _logs(monkeypatch)
    assert _human_everywhere(root) == first
    assert _whole_walks(seen) == []
    # Pat edits another page: the next process reads that commit alone and finds the new line.
    note = next(p for p in _pages(root) if p.startswith("wiki/notes/"))
    _person_edit(root, note, "Pat's note.")
    _new_process(monkeypatch)
    seen = _logs(monkeypatch)
    second = _human_everywhere(root)
    assert _whole_walks(seen) == [] and second[note] and second[ENTITY] == first[ENTITY]
    _new_process(monkeypatch)
    assert _human_everywhere(root) == second


def test_a_history_rewritten_under_the_kept_head_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    note = next(p for p in _pages(root) if p.startswith("wiki/notes/"))
    _person_edit(root, note, "Pat's note.")
    _human_everywhere(root)
    _new_process(monkeypatch)
    # The kept HEAD is dropped (a reset), and another page gets a person's line: the kept head is no
    # ancestor of the new HEAD, so the whole history is read again.
    subprocess.run(["git", "reset", "-q", "--hard", "HEAD~1"], cwd=root, check=True)
    _person_edit(root, ENTITY, "- Pat, after the reset.")
    seen = _logs(monkeypatch)
    got = _human_everywhere(root)
    assert _whole_walks(seen)
    assert got[ENTITY] and not got[note]
    with_fresh = _human_everywhere(root)
    assert got == with_fresh


@pytest.mark.parametrize("how", ["shallow", "replace"])
def test_a_history_that_can_change_under_a_commit_id_is_never_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _person_edit(root, ENTITY, "- A line Pat wrote.")
    first = _human_everywhere(root)
    _new_process(monkeypatch)
    if how == "shallow":
        (root / ".git" / "shallow").write_text(subprocess.run(
            ["git", "rev-list", "--max-parents=0", "HEAD"], cwd=root, capture_output=True, text=True).stdout)
    else:
        # Two blobs nothing refers to: the history reads the same, but a replace ref exists.
        a, b = (subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=t, capture_output=True,
                               text=True, check=True).stdout.strip() for t in ("one\n", "two\n"))
        subprocess.run(["git", "replace", a, b], cwd=root, check=True)
    seen = _logs(monkeypatch)
    assert _human_everywhere(root) == first
    assert _whole_walks(seen)


# -- a source's statements, kept in rows (plan/deterministic/facts.source_reading) -----------------------------


def _sources(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "sources").rglob("cap_*.md"))


def _age_sources(root: Path) -> None:
    for p in (root / "sources").rglob("cap_*.md"):
        t = p.stat().st_mtime_ns - 3600 * 1_000_000_000
        os.utime(p, ns=(t, t))


def test_a_new_process_takes_a_sources_statements_from_the_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stigmergy.plan.deterministic import facts, statements

    monkeypatch.setattr(facts, "_READINGS", type(facts._READINGS)())
    monkeypatch.setattr(page_memo, "_ROWS", {})
    monkeypatch.setattr(page_memo, "_ROWS_DIRTY", {})
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _age_sources(root)
    rel = _sources(root)[0]
    monkeypatch.setattr(facts, "_READINGS", type(facts._READINGS)())  # the filing's own readings
    first = facts.source_reading(root, rel)
    assert first is not None and first.units
    page_memo._save_all()
    monkeypatch.setattr(facts, "_READINGS", type(facts._READINGS)())
    monkeypatch.setattr(page_memo, "_ROWS", {})
    split = _counting(monkeypatch, statements, "split_units")
    assert facts.source_reading(root, rel) == first
    assert split == []
    # A source written just now (an erase's rewrite, a person's edit) is read again, not taken.
    page = (root / rel).read_text(encoding="utf-8")
    (root / rel).write_text(page.replace("according to finance", "according to Finance"), encoding="utf-8")
    monkeypatch.setattr(facts, "_READINGS", type(facts._READINGS)())
    monkeypatch.setattr(page_memo, "_ROWS", {})
    again = facts.source_reading(root, rel)
    assert again is not None and again != first and len(split) == 1
    # A row of another shape is not trusted: the source is read.
    page_memo._save_all()
    monkeypatch.setattr(page_memo, "_ROWS", {})
    st = (root / rel).stat()
    t = st.st_mtime_ns - 3600 * 1_000_000_000
    os.utime(root / rel, ns=(t, t))
    rows = page_memo.rows(root, facts._KEPT_READINGS)
    rows.keep(rel, (t, st.st_size), [[["x", "1", 2, "", "sentence", 0, [], []]], [[[], "", "", [], ""]]], time.time_ns())
    rows.flush()
    monkeypatch.setattr(facts, "_READINGS", type(facts._READINGS)())
    monkeypatch.setattr(page_memo, "_ROWS", {})
    assert facts.source_reading(root, rel) == again and len(split) == 2
    page_memo.drop(root)
    assert not any((root / ".stigmergy" / "memo").glob("*.sqlite"))


def test_a_new_process_takes_the_titles_terms_from_the_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A title's terms depend on its file name alone: kept whatever the page's bytes, dropped with the page."""
    from stigmergy.plan import context

    monkeypatch.setattr(context, "_TITLE_INDEXES", {})
    root = _filed(tmp_path)
    key = (str(root), "public")
    notes = [p for p in _pages(root) if p.startswith("wiki/notes/")]
    text = "We read Halden review 1 and halden review 2 again."
    first = context._titles_named(text, tuple(notes), key)
    assert first
    _new_process(monkeypatch)
    monkeypatch.setattr(context, "_TITLE_INDEXES", {})
    made = _counting(monkeypatch, context, "_stem_terms")
    assert context._titles_named(text, tuple(notes), key) == first
    assert made == []
    index = context._TITLE_INDEXES[key]
    assert all(index.terms[p] == context._stem_terms(p.rsplit("/", 1)[-1][:-3]) for p in notes)
    # A note gone: its entry goes when the next process builds its index.
    _new_process(monkeypatch)
    monkeypatch.setattr(context, "_TITLE_INDEXES", {})
    assert context._titles_named(text, tuple(notes[1:]), key) == [p for p in first if p != notes[0]]
    _new_process(monkeypatch)
    kept = json.loads((root / ".stigmergy" / "memo" / "pages-title-terms-v1-public.json").read_text(encoding="utf-8"))
    assert notes[0] not in kept["pages"] and notes[1] in kept["pages"]
