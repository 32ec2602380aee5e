"""Helpers for the planner tests (no tests here): a knowledge repository in tmp, source pages written in
the documented format, and filing that evaluates, applies and commits like the capture operation does."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from stigmergy.pages.source import SourcePage, render_source_page
from stigmergy.repo.layout import source_relpath

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def capture_id(n: int) -> str:
    """A valid, time-ordered capture id for test capture number n."""
    digits = []
    for _ in range(10):
        digits.append(_ALPHABET[n % 32])
        n //= 32
    return "cap_01JQ0000000000" + "".join(reversed(digits))[2:] + "AAAA"


def make_repo(tmp: Path) -> Path:
    root = tmp / "kb"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "stigmergy.toml").write_text("[planner]\nkind = \"deterministic\"\n")
    (root / ".gitignore").write_text("/.stigmergy/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def split_markdown(raw: str) -> tuple[dict[str, Any], str]:
    meta: dict[str, Any] = {}
    if raw.startswith("---\n"):
        end = raw.index("\n---\n", 3)
        meta = yaml.safe_load(raw[4:end]) or {}
        raw = raw[end + 5 :]
    return meta, raw


def write_source(
    root: Path,
    n: int,
    text: str,
    *,
    title: str,
    occurred_at: str = "2026-03-01",
    project: str | None = None,
    metadata: dict[str, Any] | None = None,
    layer: str = "public",
    resolves: str | None = None,
    rationale: str = "",
    locator: str | None = None,
) -> str:
    from stigmergy.pages.source import Resolution

    cid = capture_id(n)
    captured_at = f"2026-06-{1 + n % 28:02d}T10:{n % 60:02d}:00Z"
    lines = text.lstrip("\n").split("\n")
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
        while lines and not lines[0].strip():
            lines = lines[1:]
    page = SourcePage(
        id=cid, title=title, captured_at=captured_at, occurred_at=occurred_at, submitted_by="test@example.com",
        layer=layer, origin="cli", locator=locator or f"doc{n}.md", artifacts=(), text="\n".join(lines), project=project,
        metadata={k: (v if isinstance(v, list | str) else str(v)) for k, v in (metadata or {}).items()},
        resolution=Resolution(resolves, rationale) if resolves else None,
    )
    rel = source_relpath(layer, captured_at, cid)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(render_source_page(page), encoding="utf-8")
    return rel


def corpus_files() -> list[Path]:
    """The public sample corpus in occurred-at order (README and the restricted folder excluded)."""
    files = [p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md" and "_restricted" not in p.parts]
    return sorted(files, key=lambda p: (corpus_date(p), p.name))


def corpus_files_by_path() -> list[Path]:
    """The public sample corpus in the order `stigmergy capture sample_corpus` files it: by path."""
    files = [p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md" and "_restricted" not in p.parts]
    return sorted(files, key=lambda p: p.relative_to(CORPUS).as_posix())


def corpus_date(path: Path) -> str:
    import re

    m = re.match(r"(\d{4}-\d{2}-\d{2})", path.name)
    if path.suffix == ".md":
        meta, _ = split_markdown(path.read_text(encoding="utf-8"))
        if meta.get("date"):
            return str(meta["date"])
    return m.group(1) if m else "2026-01-01"


def write_corpus_file(root: Path, n: int, path: Path) -> str:
    """A corpus file as the capture would write it: extracted text, its title and front matter."""
    from stigmergy.capture.extract import extract
    from stigmergy.settings import Settings

    ex = extract(path.read_bytes(), path.name, Settings().capture)
    meta = dict(ex.metadata)
    title = ex.title or path.stem
    return write_source(
        root, n, ex.text, title=title, occurred_at=corpus_date(path), project=meta.get("project"), metadata=meta,
    )


def op_for(root: Path, rel: str, n: int, resolves: str | None = None):  # noqa: ANN201
    from stigmergy.gates.engine import OperationInfo

    return OperationInfo(
        op_id=f"op_{capture_id(n)[4:]}", kind="capture", timestamp=f"2026-06-{1 + n % 28:02d}T10:{n % 60:02d}:00Z",
        capture_id=rel.rsplit("/", 1)[1][:-3], source_path=rel, resolves=resolves,
    )


def file_and_commit(root: Path, rel: str, n: int, planner=None, resolves: str | None = None):  # noqa: ANN001, ANN201
    """propose -> assert the gates accept -> apply -> commit with the operation trailer."""
    from stigmergy.settings import load_settings
    from stigmergy.write.filing import propose

    settings = load_settings(root)
    op = op_for(root, rel, n, resolves)
    result = propose(root, settings, rel, op, planner)
    assert result.verdict.ok, [(v.rule, v.path, v.message, v.lines) for v in result.verdict.violations]
    for path, text in result.verdict.changes.items():
        target = root / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"capture: {rel}\n\nStigmergy-Operation: {op.op_id}\nStigmergy-Kind: capture\n")
    return result
