"""An erase takes the feedback about what it erases (docs/trust.md): records that name an erased capture
or concern a page that goes leave every commit and the open batches; the rest stays as it was."""

from __future__ import annotations

from pathlib import Path

from stigmergy.service import Identity, WikiService
from stigmergy.settings import load_settings
from stigmergy.trust.records import iter_records
from tests.conftest import git, run_cli
from tests.test_erase import CANARY, repo  # noqa: F401  (the sample wiki with the canary captured)
from tests.test_index_support import HashEmbedder


def _batches(root: Path) -> str:
    return "".join(p.read_text() for p in sorted(root.glob("feedback/*/*/*.jsonl")))


def test_erase_takes_the_feedback_about_the_erased_capture(repo: dict) -> None:  # noqa: F811
    root, canary = repo["root"], repo["canary"]
    service = WikiService(root, load_settings(root), Identity("ann@example.com"), {}, embedder=HashEmbedder())
    cites = [p.relative_to(root).as_posix() for p in sorted(root.glob("wiki/*/*.md")) if canary in p.read_text()]
    other = next(p.relative_to(root).as_posix() for p in sorted(root.glob("wiki/notes/*.md"))
                 if canary not in p.read_text())
    assert cites
    service.feedback(cites[0], "wrong", f"the {CANARY} figure is off")
    service.feedback(other, "useful", "kept")
    assert service.verify(other, "checked")["committed"]  # commits the open batch too
    service.feedback(cites[0], "outdated", f"{CANARY} again")  # stays open (untracked)
    service.feedback(other, "wrong", "kept too")
    assert CANARY in _batches(root)
    code, out, err = run_cli(["erase", canary, "--rationale", "a legal request", "--yes"], cwd=root)
    assert code == 0 and "residue: none found" in out, err + out
    assert git(root, "log", "--all", "--reflog", "--format=%H", "-S", CANARY) == ""
    assert CANARY not in _batches(root) and canary not in _batches(root)
    left = [(r.path, r.kind, r.note) for r in iter_records(root)]
    assert sorted(left) == sorted([(other, "useful", "kept"), (other, "verify", "checked"),
                                   (other, "wrong", "kept too")])
