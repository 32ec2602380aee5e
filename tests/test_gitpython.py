"""GitPython where a process lives long (repo/gitpython.py): its reads answer exactly what the git binary's
do, on a real repository, and a history audit walked through it finds what the binary's walk finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.repo.git import Git
from stigmergy.repo.gitpython import LongLivedGit

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


@pytest.fixture
def captured(wiki: Path) -> Path:
    code, out, err = run_cli(["--json", "capture", str(CORPUS / "customers")], cwd=wiki)
    assert code == 0, out + err
    return wiki


def test_reads_answer_as_the_binary_does(captured: Path) -> None:
    binary, long_lived = Git(captured), LongLivedGit(captured)
    try:
        head = git(captured, "rev-parse", "HEAD").strip()
        first = git(captured, "rev-list", "--max-parents=0", "HEAD").strip()
        tree = git(captured, "rev-parse", "HEAD^{tree}").strip()
        page = next(p for p in binary.ls_files("wiki") if p.endswith(".md"))
        oids = [git(captured, "rev-parse", f"HEAD:{page}").strip(), f"HEAD:{page}", f"{first}:{page}", "0" * 40,
                "HEAD:no/such.md", "HEAD:a\nb", f"{head}:sources"]
        assert long_lived.blobs(oids) == binary.blobs([o for o in oids if "\n" not in o])
        assert long_lived.blobs(oids)[f"HEAD:{page}"] == (captured / page).read_bytes()
        for rev in (head, first, tree, "HEAD~1", "0" * 40, "nonsense", "HEAD\n", f"{head}\n"):
            assert long_lived.tree_names(rev, "sources", "layers") == binary.tree_names(rev, "sources", "layers"), rev
            assert long_lived.is_commit(rev) == binary.is_commit(rev), rev
        assert any(n.startswith("sources/") for n in long_lived.tree_names(head, "sources"))
        assert long_lived.fast_head() == head
        assert len(long_lived.blobs([head, tree, "0" * 40])) == 2  # a commit and a tree too, as the binary
    finally:
        long_lived.close()


def test_a_history_audit_finds_the_same_through_gitpython(captured: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stigmergy.gates import history
    from stigmergy.repo import gitpython
    from stigmergy.settings import load_settings

    # A person's commit drops a cited line: the audit must find it, walked either way.
    page = next(p for p in (captured / "wiki" / "entities").glob("*.md") if "](" in p.read_text())
    text = page.read_text().splitlines(keepends=True)
    cited = next(i for i, line in enumerate(text) if "](../../sources/" in line or "(sources/" in line or "cap_" in line)
    page.write_text("".join(text[:cited] + text[cited + 1:]))
    git(captured, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qam", "hand edit")
    settings = load_settings(captured)
    walks: list[type] = []
    real_walker = gitpython.walker

    def spy(root: Path, commits: int) -> Git:
        got = real_walker(root, commits)
        walks.append(type(got))
        return got

    monkeypatch.setattr(history, "walker", spy)
    monkeypatch.setattr(gitpython, "WALK_THRESHOLD", 10**9)
    by_binary = history.audit_range(captured, settings, None)
    monkeypatch.setattr(gitpython, "WALK_THRESHOLD", 0)
    by_gitpython = history.audit_range(captured, settings, None)
    assert walks == [Git, LongLivedGit]
    assert by_binary.findings and by_binary.commits > 1  # the hand edit is found: the comparison can fail
    assert by_gitpython == by_binary


def test_the_mcp_service_reads_through_gitpython(tmp_path: Path) -> None:
    from test_answer_support import build_wiki
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index
    from stigmergy.service import Identity, WikiService

    b = build_wiki(tmp_path / "w")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    service = WikiService(b.root, b.settings, Identity("reader@example.com"), {}, embedder=HashEmbedder())
    server = service.serving()
    try:
        assert isinstance(server.repository().git, LongLivedGit) and type(service.repository().git) is Git
        page = server.list_pages(limit=1)["pages"][0]["path"]
        assert server.read([page]) == service.read([page])
        assert server.freshness() == service.freshness() and server.freshness() is not None
        assert server.search("Aurora revenue").to_dict() == service.search("Aurora revenue").to_dict()
    finally:
        server.close()
        service.close()
