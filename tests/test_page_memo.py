"""What one process derived from each page, kept for the next (repo/page_memo.py, issue 27): a new process reads
only the pages changed since, answers exactly as a fresh read would, and trusts no entry of a page written
within the racy window, nor a cache file of any other shape."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from test_filing_bounds import ENTITY, _blocks, _disagreeing
from test_plan_support import make_repo

from stigmergy.plan import catalogue as catalogue_mod
from stigmergy.plan.deterministic import contradiction_assembly as ca
from stigmergy.repo import page_memo, watch


@pytest.fixture(autouse=True)
def _fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "_WATCHER", None)
    monkeypatch.setattr(page_memo, "_MEMOS", {})
    monkeypatch.setattr(page_memo, "_DIRTY", {})
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
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _age_all(root)
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
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _age_all(root)
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

    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    _age_all(root)
    claims = ca.recorded_claims(root, _pages(root))
    _new_process(monkeypatch)
    cid = sorted(claims)[0][0]
    found = audit(root, [cid]).findings
    assert any(f.where.startswith(".stigmergy/memo/") for f in found)
    page_memo.drop(root)
    assert not any(f.where.startswith(".stigmergy/memo/") for f in audit(root, [cid]).findings)
    page_memo._save_all()
    assert not list((root / ".stigmergy" / "memo").iterdir())
