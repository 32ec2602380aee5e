"""Builders shared by the page, gate and lint tests: real source pages, real wiki pages, real commits."""

from __future__ import annotations

import hashlib
from pathlib import Path

from stigmergy.gates.engine import OperationInfo
from stigmergy.pages.citations import cite
from stigmergy.pages.paths import page_relpath
from stigmergy.pages.source import Artifact, SourcePage, render_source_page
from stigmergy.pages.wiki import WikiPage, new_page_id, render_wiki_page
from stigmergy.repo.git import Git
from stigmergy.repo.ids import ulid
from stigmergy.repo.layout import source_relpath
from stigmergy.repo.operations import commit_message

TS = "2026-03-10T12:00:00Z"


def capture_id(n: int) -> str:
    # Deterministic, valid ULIDs: time part fixed, random part from n.
    return "cap_" + ulid(1_773_000_000_000 + n)[:10] + hashlib.sha256(str(n).encode()).hexdigest()[:16].upper().translate(
        str.maketrans("ILOU", "JKMN")
    )


def make_source(
    root: Path, n: int, lines: list[str], *, layer: str = "public", title: str | None = None, occurred_at: str = "2026-03-01"
) -> tuple[str, SourcePage]:
    """Write a source page; returns (relpath, page). `page.line_of(i)` is the file line of lines[i]."""
    cid = capture_id(n)
    text = "\n".join(lines) + "\n"
    readable = hashlib.sha256(text.encode("utf-8")).hexdigest()  # as a capture records it (the history gate checks)
    page = SourcePage(
        id=cid, title=title or f"Source {n}", captured_at=TS, occurred_at=occurred_at, submitted_by="test@example.com",
        layer=layer, origin="cli", locator=f"s{n}.md",
        artifacts=(Artifact("0" * 64, 10, "text/markdown", readable, "markdown", "1"),),
        text=text,
    )
    rel = source_relpath(layer, TS, cid)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(render_source_page(page), encoding="utf-8")
    return rel, page


def cited(page_rel: str, src: tuple[str, SourcePage], index: int, end_index: int | None = None) -> str:
    rel, page = src
    return cite(page_rel, rel, page.line_of(index), page.line_of(index if end_index is None else end_index))


def make_page(
    root: Path, ptype: str, title: str, body_lines: list[str], *, layer: str = "public", entities: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (), status: str = "seed",
) -> str:
    """Write a canonical wiki page whose body is `# title` then `body_lines`; returns its relpath."""
    rel = page_relpath(ptype, title, layer)
    body = "\n".join([f"# {title}", "", *body_lines]) + "\n"
    page = WikiPage(
        id=new_page_id(TS, rel), type=ptype, title=title, status=status, created=TS, updated=TS, layer=layer,
        body=body, entities=entities, entity_type="organisation" if ptype == "entity" else None,
        aliases=aliases if ptype == "entity" else (),
    ).with_body(body, rel)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(render_wiki_page(page), encoding="utf-8")
    return rel


def commit(root: Path, paths: list[str], *, ours: bool = True, title: str = "test") -> str:
    git = Git(root)
    message = commit_message("capture", title, "op_" + ulid(1_773_000_000_000)) if ours else f"{title}\n"
    name, email = ("stigmergy", "stigmergy@localhost") if ours else ("Test Person", "test@example.com")
    return git.commit_paths(paths, message, name, email)


def op(kind: str = "capture", *, n: int = 99, resolves: str | None = None, source_path: str | None = None,
       targets: tuple[str, ...] = ()) -> OperationInfo:
    return OperationInfo(
        op_id=f"op_test{n}", kind=kind, timestamp="2026-03-11T09:00:00Z", capture_id=capture_id(n),
        source_path=source_path, resolves=resolves, targets=targets,
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts and ".stigmergy" not in p.relative_to(root).parts
    }
