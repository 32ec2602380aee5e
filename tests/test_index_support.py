"""Builders for the index tests: knowledge repositories written page by page (canonical source and wiki
pages through the real renderers), plus a deterministic embedder for tests that do not need the model.
No tests here."""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path

import numpy as np

from stigmergy.pages.source import Artifact, SourcePage, render_source_page
from stigmergy.pages.wiki import WikiPage, render_wiki_page
from stigmergy.repo.layout import TYPE_FOLDERS, layer_prefix, source_relpath
from stigmergy.settings import Settings, load_settings

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(seed: str) -> str:
    digest = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    return "".join(_ALPHABET[(digest >> (5 * i)) & 31] for i in range(26))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


class RepoBuilder:
    def __init__(self, root: Path, layers: dict[str, list[str]] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.root = root
        self.env = env or {}  # settings from the environment (the index backend under test)
        root.mkdir(parents=True, exist_ok=True)
        toml = '[layers.public]\nreaders = ["*"]\n'
        for name, readers in (layers or {}).items():
            toml += f"[layers.{name}]\nreaders = {readers!r}\n".replace("'", '"')
        (root / "stigmergy.toml").write_text(toml)
        (root / ".gitignore").write_text(".stigmergy/\n")
        if not (root / ".git").exists():
            git(root, "init", "-q")
        self.n = 0

    @property
    def settings(self) -> Settings:
        return load_settings(self.root, self.env)

    def write(self, rel: str, text: str) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return rel

    def source(self, title: str, text: str, *, layer: str = "public", occurred_at: str = "2026-03-01",
               locator: str | None = None, key: str | None = None) -> str:
        self.n += 1
        cap = "cap_" + ulid(key or title)
        captured = f"2026-03-{1 + self.n % 27:02d}T10:00:00Z"
        page = SourcePage(
            id=cap, title=title, captured_at=captured, occurred_at=occurred_at, submitted_by="test@example.com",
            layer=layer, origin="cli", locator=locator or f"{title}.md",
            artifacts=(Artifact("0" * 64, len(text), "text/markdown", "0" * 64, "markdown", "1"),), text=text,
        )
        return self.write(source_relpath(layer, captured, cap), render_source_page(page))

    def wiki(self, ptype: str, title: str, body: str, *, layer: str = "public", status: str = "developing",
             entities: tuple[str, ...] = (), aliases: tuple[str, ...] = (), sources: tuple[str, ...] = ()) -> str:
        page = WikiPage(
            id="pg_" + ulid("page" + title), type=ptype, title=title, status=status,
            created="2026-03-02T10:00:00Z", updated="2026-03-02T10:00:00Z", layer=layer,
            body=f"# {title}\n\n{body.strip()}\n", entities=entities,
            sources=tuple(sorted(set(sources) or set(re.findall(r"(cap_[0-9A-Z]{26})\.md", body)))),
            entity_type="organisation" if ptype == "entity" else None, aliases=aliases,
        )
        return self.write(f"{layer_prefix(layer)}wiki/{TYPE_FOLDERS[ptype]}/{title}.md", render_wiki_page(page))

    def commit(self, message: str = "pages") -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message)
        return git(self.root, "rev-parse", "HEAD").strip()


def cite(from_page: str, source_rel: str, start: int, end: int | None = None) -> str:
    from stigmergy.pages.citations import cite as _cite

    return _cite(from_page, source_rel, start, end)


class HashEmbedder:
    """A deterministic bag-of-words embedder behind the Embedder protocol, for tests that exercise the
    index machinery rather than the model (the real model is covered by the `model` tests)."""

    name = "hash-test"
    dimension = 384
    batch_size = 16

    def __init__(self) -> None:
        self.calls = 0
        self.texts = 0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
            out[i, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)


_SHARED: dict[str, object] = {}


def shared_onnx_cache(base: Path) -> Path:
    """One ONNX export per test session (the export imports torch: ~15 s), under pytest's base temp."""
    from stigmergy.index.embedder import export_onnx, resolve_model
    from stigmergy.settings import EmbedderSettings

    cache = base / "shared-model-cache"
    if "cache" not in _SHARED:
        export_onnx(resolve_model(EmbedderSettings()), cache)
        _SHARED["cache"] = cache
    return cache


def shared_embedder(base: Path):  # type: ignore[no-untyped-def]
    """The real model through onnxruntime, loaded once per session."""
    from stigmergy.index.embedder import OnnxEmbedder, resolve_model
    from stigmergy.settings import EmbedderSettings

    if "embedder" not in _SHARED:
        _SHARED["embedder"] = OnnxEmbedder(resolve_model(EmbedderSettings()), shared_onnx_cache(base))
    return _SHARED["embedder"]


def link_model_cache(root: Path, base: Path) -> None:
    """Point a repository's model cache at the session's export so CLI runs do not export again."""
    cache = shared_onnx_cache(base)
    target = root / ".stigmergy" / "cache"
    target.mkdir(parents=True, exist_ok=True)
    if not (target / "onnx").exists():
        (target / "onnx").symlink_to(cache / "onnx", target_is_directory=True)
