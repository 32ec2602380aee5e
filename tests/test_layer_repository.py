"""A restricted layer in a Git repository of its own (`[layers.board] repository = ...`), checked out at
`layers/board/` and ignored by the public repository: captures and filing commit the layer's files there,
the public repository never holds a byte of them (its history, its objects, a clone of it), a public-only
clone works for public readers and refuses writes to the layer, and the public server's pre-receive gate
refuses the layer's files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.errors import ConfigError
from stigmergy.settings import load_settings

BOSS = "boss@example.com"
CANARY = "WOMBATCIRRUS"
PUBLIC_DOC = "# Harbor launch\n\nAurora Systems launched Harbor Gateway in March 2026 with 40 customers.\n"
BOARD_DOC = f"""# Board minutes {CANARY}

- The board approved the {CANARY} acquisition of Norrland Fresh for £4.4M.
- Aurora Systems launched Harbor Gateway in March 2026 with 40 customers.
"""


def _ok(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", *args], cwd=root)
    assert code == 0, err + out
    return json.loads(out)


def _all_bytes(repo: Path) -> bytes:
    """Every object of a repository's database, reachable or not, plus every other file under .git."""
    out = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True).stdout
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir").strip())
    files = b"".join(p.read_bytes() for p in git_dir.rglob("*") if p.is_file() and "objects" not in p.parts)
    return out + files


@pytest.fixture
def split(wiki: Path, tmp_path: Path) -> dict[str, Path]:
    """A wiki whose board layer lives in ../board.git (a bare repository standing for its host), checked out
    at layers/board/; one public and one board capture."""
    board_remote = tmp_path / "board.git"
    git(tmp_path, "init", "-q", "--bare", str(board_remote))
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write(f'\n[layers.board]\nreaders = ["{BOSS}"]\nrepository = "{board_remote}"\n')
    git(wiki, "commit", "-qam", "board layer in its own repository")
    git(wiki, "clone", "-q", str(board_remote), "layers/board")
    (tmp_path / "public.md").write_text(PUBLIC_DOC)
    (tmp_path / "board.md").write_text(BOARD_DOC)
    _ok(wiki, "capture", str(tmp_path / "public.md"))
    _ok(wiki, "capture", str(tmp_path / "board.md"), "--layer", "board", "--as", BOSS)
    return {"root": wiki, "board": wiki / "layers" / "board", "board_remote": board_remote}


def test_the_layers_files_are_committed_in_its_own_repository_only(split: dict[str, Path]) -> None:
    root, board = split["root"], split["board"]
    public_files = git(root, "ls-files").splitlines()
    assert not [p for p in public_files if p.startswith("layers/")]
    assert git(root, "status", "--porcelain") == ""  # the checkout is ignored, not an untracked folder
    assert CANARY.encode() not in _all_bytes(root)
    board_files = git(board, "ls-files", "-z").split("\0")
    assert any(p.startswith("sources/") for p in board_files) and any(p.startswith("wiki/") for p in board_files)
    log = git(board, "log", "--format=%B")
    assert "Stigmergy-Operation:" in log or "op_" in log
    # The layer's pages cite its source (and may cite public sources) by paths that resolve in the tree.
    notes = [p for p in board_files if p.startswith("wiki/notes/")]
    assert notes
    text = (board / notes[0]).read_text()
    assert "](../../sources/" in text and CANARY in text
    assert _ok(root, "fsck")["ok"]


def test_the_index_holds_both_repositories_and_scopes_each_reader(split: dict[str, Path]) -> None:
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index

    root, board = split["root"], split["board"]
    build_index(root, load_settings(root), embedder=HashEmbedder())
    boss = _ok(root, "search", f"{CANARY} acquisition", "--as", BOSS)["hits"]
    assert any(h["layer"] == "board" and CANARY in json.dumps(h) for h in boss)
    public = _ok(root, "search", f"{CANARY} acquisition", "--as", "reader@example.com")["hits"]
    assert all(h["layer"] == "public" for h in public) and CANARY not in json.dumps(public)
    # A change committed in the layer's repository alone reaches the index on the next build.
    note = next(p for p in git(board, "ls-files", "-z", "wiki/notes").split("\0") if p)
    (board / note).write_text((board / note).read_text() + "\nThe KOALAZENITH review follows in May.\n")
    git(board, "commit", "-qam", "a person's line in the board repository")
    build_index(root, load_settings(root), embedder=HashEmbedder())
    assert any("KOALAZENITH" in json.dumps(h) for h in _ok(root, "search", "KOALAZENITH review", "--as", BOSS)["hits"])
    assert _ok(root, "search", "KOALAZENITH review", "--as", "reader@example.com")["hits"] == [] or all(
        h["layer"] == "public" for h in _ok(root, "search", "KOALAZENITH review", "--as", "reader@example.com")["hits"])
    page = _ok(root, "read", f"layers/board/{note}", "--as", BOSS)["pages"][0]
    assert "KOALAZENITH" in json.dumps(page)
    code, _, _ = run_cli(["read", f"layers/board/{note}", "--as", "reader@example.com"], cwd=root)
    assert code != 0


def test_a_restricted_page_may_cite_a_public_source_across_the_repositories(split: dict[str, Path]) -> None:
    """The board note about the launch line is filed next to the public capture of the same line: the gates
    accept a board page citing a public source (the public page never cites the board one)."""
    root, board = split["root"], split["board"]
    public_sources = [p for p in git(root, "ls-files", "sources").splitlines()]
    assert public_sources
    for page in git(root, "ls-files", "-z", "wiki").split("\0"):
        if page:
            assert "layers/board" not in (root / page).read_text()
    assert git(root, "log", "--format=%s").count("\n") >= 3
    assert not [line for line in git(root, "log", "--format=%B").splitlines() if CANARY in line]
    board_pages = git(board, "ls-files", "-z", "wiki").split("\0")
    assert board_pages


def test_a_clone_of_the_public_repository_alone_holds_no_byte_and_works_for_public_readers(
        split: dict[str, Path], tmp_path: Path) -> None:
    clone = tmp_path / "public-clone"
    git(tmp_path, "clone", "-q", str(split["root"]), str(clone))
    assert not (clone / "layers" / "board").exists()
    assert CANARY.encode() not in _all_bytes(clone)
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index

    build_index(clone, load_settings(clone), embedder=HashEmbedder())
    hits = _ok(clone, "search", "Harbor Gateway launch", "--as", "reader@example.com")["hits"]
    assert hits and all(h["layer"] == "public" for h in hits)
    pages = _ok(clone, "list")["pages"]
    assert pages and not [p for p in pages if p["path"].startswith("layers/")]
    note = next(p["path"] for p in pages if p["path"].startswith("wiki/notes/"))
    read = _ok(clone, "read", note, "--as", "reader@example.com")["pages"][0]
    assert "Harbor Gateway" in json.dumps(read) and CANARY not in json.dumps(read)
    answer = _ok(clone, "ask", "When did Aurora Systems launch Harbor Gateway?", "--as", "reader@example.com")
    assert answer["answered"] and "March 2026" in json.dumps(answer["sentences"]), answer
    assert CANARY not in json.dumps(answer)
    code, _, _ = run_cli(["read", "layers/board/wiki/index.md", "--as", BOSS], cwd=clone)
    assert code != 0  # the layer is not in this clone for anyone, its readers included
    # An erase planned here says which layer repository it cannot reach (a board page may cite the capture).
    public_capture = next(p for p in git(clone, "ls-files", "sources").splitlines()
                          if p.endswith(".md")).rsplit("/", 1)[-1][:-3]
    plan = _ok(clone, "erase", public_capture, "--rationale", "test", "--as", "reader@example.com")
    assert plan["unreached"] == ["board"] and plan["repositories"] == [""]
    # A write to the layer is refused before anything is stored, with what to clone.
    (tmp_path / "more.md").write_text(f"# More {CANARY}\n\nMore board news.\n")
    head = git(clone, "rev-parse", "HEAD")
    code, _, err = run_cli(["capture", str(tmp_path / "more.md"), "--layer", "board", "--as", BOSS], cwd=clone)
    assert code == 2 and "lives in its own repository" in err and f"git clone {split['board_remote']}" in err
    assert git(clone, "rev-parse", "HEAD") == head and git(clone, "status", "--porcelain") == ""
    assert not (clone / ".stigmergy" / "objects").exists() or not any((clone / ".stigmergy" / "objects").rglob("*/*"))


def test_the_public_server_refuses_the_layers_files(split: dict[str, Path], tmp_path: Path) -> None:
    root = split["root"]
    bare = tmp_path / "hub.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "hooks", "install", "--server", str(bare)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    leaked = dev / "layers" / "board" / "wiki" / "notes" / "Leak.md"
    leaked.parent.mkdir(parents=True)
    leaked.write_text(f"# Leak\n\n{CANARY} copied into the public repository.\n")
    git(dev, "add", "-f", "layers/board/wiki/notes/Leak.md")
    git(dev, "commit", "-qm", "copy a board page into the public repository")
    push = subprocess.run(["git", "push", "origin", "HEAD:main"], cwd=dev, capture_output=True, text=True)
    assert push.returncode != 0 and "lives in its own repository" in push.stderr, push.stderr
    assert CANARY.encode() not in subprocess.run(["git", "log", "--all", "-p"], cwd=bare, capture_output=True).stdout


def test_only_a_restricted_layer_may_name_a_repository(wiki: Path) -> None:
    toml = (wiki / "stigmergy.toml").read_text()
    assert "[layers.public]\n" in toml
    (wiki / "stigmergy.toml").write_text(toml.replace("[layers.public]\n", '[layers.public]\nrepository = "../x.git"\n'))
    with pytest.raises(ConfigError, match="only a restricted layer"):
        load_settings(wiki)


def test_the_shared_index_holds_both_repositories_each_at_its_own_commit(
        split: dict[str, Path], tmp_path: Path, pg_env: dict[str, str]) -> None:
    """PostgreSQL: the layer's pages come from its own repository's HEAD and are judged by its commits; a
    clone of the public repository alone updates the public pages and leaves the layer's alone."""
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index, check_index
    from stigmergy.index.store import index_location, open_index
    from stigmergy.repo.layout import Layout
    from stigmergy.service import Identity, WikiService

    root, board = split["root"], split["board"]

    def shared(at: Path) -> dict[str, str]:
        store = open_index(index_location(Layout(at), load_settings(at, pg_env)))
        try:
            return {**store.page_shas(), "@board": store.meta("commit:layers/board/") or "",
                    "@public": store.meta("commit") or ""}
        finally:
            store.close()

    def hits(at: Path, query: str, who: str) -> list:
        service = WikiService(at, load_settings(at, pg_env), Identity(who), {}, embedder=HashEmbedder())
        try:
            return service.search(query, k=20).hits
        finally:
            service.close()

    def build(at: Path, **kw: bool):  # noqa: ANN202
        return build_index(at, load_settings(at, pg_env), embedder=HashEmbedder(), **kw)

    build(root)
    first = shared(root)
    board_pages = {p for p in first if p.startswith("layers/board/")}
    assert any(p.startswith("layers/board/wiki/") for p in board_pages)
    assert first["@board"] == git(board, "rev-parse", "HEAD").strip() and first["@public"] == git(root, "rev-parse", "HEAD").strip()
    assert any(h.layer == "board" for h in hits(root, f"{CANARY} acquisition", BOSS))
    assert all(h.layer == "public" for h in hits(root, f"{CANARY} acquisition", "reader@example.com"))
    check_index(root, load_settings(root, pg_env))
    # A commit in the layer's repository alone: the next build takes it (the public one has not moved).
    note = next(p for p in git(board, "ls-files", "-z", "wiki/notes").split("\0") if p)
    (board / note).write_text((board / note).read_text() + "\nThe KOALAZENITH review follows in May.\n")
    git(board, "commit", "-qam", "a person's line in the board repository")
    report = build(root)
    assert report.pages_indexed == 1 and report.note is None
    assert any("KOALAZENITH" in h.snippet and h.path == f"layers/board/{note}"
               for h in hits(root, "KOALAZENITH review", BOSS))
    assert shared(root)["@board"] == git(board, "rev-parse", "HEAD").strip()
    # A clone of the public repository alone: its builds never take the layer's pages out.
    clone = tmp_path / "public-clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    assert build(clone).note == "the shared index already reflects this commit"
    public_note = next(p for p in sorted(first) if p.startswith("wiki/"))
    (clone / public_note).write_text((clone / public_note).read_text() + "\nThe LYNXQUARTZ line.\n")
    git(clone, "commit", "-qam", "a public line")
    report = build(clone)
    assert report.pages_indexed == 1 and report.pages_removed == 0
    after = shared(clone)
    assert {p for p in after if p.startswith("layers/board/")} == board_pages
    assert after["@public"] == git(clone, "rev-parse", "HEAD").strip()
    check_index(clone, load_settings(clone, pg_env))  # the layer it lacks is not its to judge
    # A checkout of the layer behind the shared index writes nothing for the layer and says so.
    git(root, "pull", "-q", str(clone), "HEAD")
    git(board, "reset", "-q", "--hard", "HEAD~1")
    report = build(root)
    assert "ahead of this clone for layers/board" in (report.note or "") and report.pages_indexed == 0
    assert shared(root)["@board"] == after["@board"]
    assert any(p.endswith(note) for p in shared(root))


def test_the_residue_audit_searches_the_layers_own_repository(split: dict[str, Path]) -> None:
    """`erase --audit` reaches the layer's object database (compressed objects, reachable or not), the files
    under its .git and its remotes, each named by the layer's folder; its .git is not "working tree"."""
    from stigmergy.history.audit import audit

    root, board = split["root"], split["board"]
    git(board, "rm", "-q", "-r", "wiki", "sources")
    git(board, "commit", "-qm", "pages removed")
    git(board, "gc", "-q")  # packed: the text is now only inside compressed objects of the layer's history
    report = audit(root, CANARY)
    objects = [f for f in report.findings if f.place == "git-object"]
    assert objects and all(f.where.startswith("layers/board/: ") for f in objects)
    assert any("reachable" in f.detail and "at layers/board/" in f.detail for f in objects)
    assert not [f for f in report.findings if f.place == "working-tree"]
    assert report.searched["git objects of layers/board/"] > 0
    assert any(u.startswith(f"layers/board/: remote origin ({split['board_remote']})") for u in report.unreachable)
    code, out, _ = run_cli(["--json", "erase", "--audit", CANARY, "--as", BOSS], cwd=root)
    assert code == 4 and any(f["where"].startswith("layers/board/: ") for f in json.loads(out)["findings"])


def _bundle_bytes(bundle: Path) -> bytes:
    return b"".join(p.read_bytes() for p in bundle.rglob("*") if p.is_file())


def _pair(tmp_path: Path, name: str, *, own: bool = True) -> tuple[Path, Path]:
    """A new, empty wiki with the board layer declared (in a new repository of its own when `own`)."""
    from stigmergy.repo.init import init_repository

    root = tmp_path / name
    init_repository(root)
    remote = tmp_path / f"{name}-board.git"
    with (root / "stigmergy.toml").open("a") as fh:
        fh.write(f'\n[layers.board]\nreaders = ["{BOSS}"]\n' + (f'repository = "{remote}"\n' if own else ""))
    git(root, "commit", "-qam", "board layer")
    if own:
        git(tmp_path, "init", "-q", "--bare", str(remote))
        git(root, "clone", "-q", str(remote), "layers/board")
    return root, root / "layers" / "board"


def test_export_and_import_carry_a_layer_kept_in_its_own_repository(split: dict[str, Path], tmp_path: Path) -> None:
    """The bundle carries the layer's captures (its manifest says the layer has a repository of its own); an
    import into an empty pair of repositories files them into the new layer repository and nothing of them
    into the public one; a public-only bundle holds no byte of the layer."""
    root, board_here = split["root"], split["board"]
    # People's judgement in the layer's repository travels too: a rename (its curation record is in the
    # layer's history) and a person's line on the renamed page (blamed there).
    note = next(p for p in git(board_here, "ls-files", "-z", "wiki/notes").split("\0") if p)
    _ok(root, "rename", f"layers/board/{note}", "Board minutes of March", "--as", BOSS)
    renamed = "wiki/notes/Board minutes of March.md"
    assert (board_here / renamed).is_file()
    (board_here / renamed).write_text((board_here / renamed).read_text() + "\nThe KOALAZENITH review follows.\n")
    git(board_here, "commit", "-qam", "a person's line in the board repository")
    full = _ok(root, "export", str(tmp_path / "all"), "--as", BOSS)
    assert full["layers"] == ["board", "public"] and full["captures"] >= 2
    manifest = json.loads((tmp_path / "all" / "manifest.json").read_text())
    assert {m["name"]: "repository" in m for m in manifest["layers"]} == {"board": True, "public": False}
    assert [e["layer"] for e in manifest["captures"]].count("board") == 1
    assert CANARY.encode() in _bundle_bytes(tmp_path / "all")
    _ok(root, "export", str(tmp_path / "pub"), "--layer", "public", "--as", BOSS)
    assert CANARY.encode() not in _bundle_bytes(tmp_path / "pub")

    new, board = _pair(tmp_path, "new")
    report = _ok(new, "--as", BOSS, "import", str(tmp_path / "all"))
    assert report["counts"].get("failed", 0) == 0 and report["counts"].get("refused", 0) == 0, report
    assert CANARY.encode() not in _all_bytes(new)
    assert not [p for p in git(new, "ls-files").splitlines() if p.startswith("layers/")]
    board_files = git(board, "ls-files").splitlines()
    assert [p for p in board_files if p.startswith("sources/")] and [p for p in board_files if p.startswith("wiki/")]
    assert CANARY in git(board, "log", "-p")
    assert full["curation"] >= 1 and full["human_lines"] >= 1, full
    assert "KOALAZENITH" in (board / renamed).read_text() and report["curation"].get("replayed", 0) >= 1, report
    assert [p for p in git(new, "ls-files", "sources").splitlines() if p.endswith(".md")]  # the public one here
    # Idempotent: a second import files nothing.
    again = _ok(new, "--as", BOSS, "import", str(tmp_path / "all"))
    assert set(again["counts"]) == {"exists"}, again


def test_import_refuses_to_file_a_layer_kept_apart_into_the_public_repository(split: dict[str, Path],
                                                                              tmp_path: Path) -> None:
    """Hostile: a target that declares the layer without a repository of its own (its captures would land in
    the repository everyone clones), or without its checkout, imports nothing; a public-only clone refuses to
    export the layer it lacks."""
    _ok(split["root"], "export", str(tmp_path / "all"), "--as", BOSS)
    plain, _ = _pair(tmp_path, "plain", own=False)
    head = git(plain, "rev-parse", "HEAD")
    code, _, err = run_cli(["--as", BOSS, "import", str(tmp_path / "all")], cwd=plain)
    assert code == 2 and "kept in a repository of its own" in err and "nothing imported" in err, err
    assert git(plain, "rev-parse", "HEAD") == head and CANARY.encode() not in _all_bytes(plain)
    assert not any((plain / ".stigmergy" / "objects").rglob("*/*")) if (plain / ".stigmergy" / "objects").exists() else True
    bare, board = _pair(tmp_path, "bare")
    import shutil

    shutil.rmtree(board)
    head = git(bare, "rev-parse", "HEAD")
    code, _, err = run_cli(["--as", BOSS, "import", str(tmp_path / "all")], cwd=bare)
    assert code == 2 and "no checkout of it at layers/board/" in err, err
    assert git(bare, "rev-parse", "HEAD") == head
    clone = tmp_path / "public-clone"
    git(tmp_path, "clone", "-q", str(split["root"]), str(clone))
    code, _, err = run_cli(["export", str(tmp_path / "b1"), "--as", BOSS], cwd=clone)
    assert code == 2 and "no checkout of it at layers/board/" in err and "--layer public" in err, err
    assert not (tmp_path / "b1").exists() or not any((tmp_path / "b1").iterdir())


def test_erase_of_a_capture_in_the_layers_own_repository_rewrites_that_history(split: dict[str, Path]) -> None:
    """The board capture is erased from the board repository's history (every ref, reflogs, unreachable
    objects), the evidence store, the state and the index; the public repository, which held none of it,
    keeps its commits; the residue audit searches both and finds nothing; the layer keeps working."""
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index

    root, board = split["root"], split["board"]
    build_index(root, load_settings(root), embedder=HashEmbedder())
    git(board, "push", "-q", "origin", "HEAD")  # the layer's host holds the old history (a force push is listed)
    public_head = git(root, "rev-parse", "HEAD")
    source = next(p for p in git(board, "ls-files", "sources").splitlines())
    capture = source.rsplit("/", 1)[-1][:-3]
    dry = _ok(root, "erase", capture, "--rationale", "legal hold", "--as", BOSS)
    assert dry["dry_run"] and dry["repositories"] == ["layers/board/"] and dry["commits_touching"]
    assert [r["where"] for r in dry["remotes"]] == ["layers/board/"] and dry["remotes"][0]["refs"]
    code, text, _ = run_cli(["erase", capture, "--rationale", "legal hold", "--as", BOSS], cwd=root)
    assert code == 0 and "cd layers/board/ && git push --force --all origin" in text, text
    assert "repositories rewritten: layers/board/" in text
    assert git(board, "rev-parse", "HEAD") and CANARY.encode() in _all_bytes(board)  # the dry run changed nothing
    done = _ok(root, "erase", capture, "--rationale", "legal hold", "--yes", "--as", BOSS)
    assert done["residue"] == [] and not done["dry_run"], done["residue"]
    assert git(root, "rev-parse", "HEAD") == public_head  # nothing of it was here to rewrite
    board_bytes = _all_bytes(board)
    assert CANARY.encode() not in board_bytes and capture.encode() not in board_bytes
    assert not git(board, "branch", "-r").strip()  # the tracking ref that held it is gone (a force push is due)
    assert "legal hold" in git(board, "log", "-1", "--format=%B") and "legal hold" not in git(root, "log", "--format=%B")
    state = b"".join(p.read_bytes() for p in (root / ".stigmergy").rglob("*") if p.is_file())
    assert CANARY.encode() not in state and capture.encode() not in state
    code, out, _ = run_cli(["--json", "erase", "--audit", CANARY, "--as", BOSS], cwd=root)
    assert code == 0 and json.loads(out)["findings"] == [], out
    assert _ok(root, "fsck")["ok"]
    # The public capture and the layer both still work: a new board capture lands in the layer's repository.
    assert [p for p in git(root, "ls-files", "sources").splitlines() if p.endswith(".md")]
    (split["root"].parent / "board2.md").write_text("# Board follow-up\n\nThe board met again on 4 May 2026.\n")
    _ok(root, "capture", str(split["root"].parent / "board2.md"), "--layer", "board", "--as", BOSS)
    assert "4 May 2026" in git(board, "log", "-p", "-1")
    build_index(root, load_settings(root), embedder=HashEmbedder())
    assert CANARY not in json.dumps(_ok(root, "search", f"{CANARY} acquisition", "--as", BOSS)["hits"])


def test_erase_of_a_public_capture_reaches_a_layer_page_that_cites_it(split: dict[str, Path]) -> None:
    """A board page (in the board repository) cites the public source: erasing the public capture rewrites
    both repositories, the citing line goes from every version of the board page, the audit finds nothing."""
    root, board = split["root"], split["board"]
    line, source = next((i + 1, p) for p in git(root, "ls-files", "sources").splitlines()
                        for i, text in enumerate((root / p).read_text().split("\n"))
                        if "launched Harbor Gateway" in text)
    capture = source.rsplit("/", 1)[-1][:-3]
    note = next(p for p in git(board, "ls-files", "-z", "wiki/notes").split("\0") if p)
    cited = f"- Harbor Gateway launched with 40 customers. ([source](../../../../{source}#L{line}))"
    (board / note).write_text((board / note).read_text().rstrip("\n") + f"\n{cited}\n")
    git(board, "commit", "-qam", "a board line citing the public launch")
    board_head = git(board, "rev-parse", "HEAD")
    dry = _ok(root, "erase", capture, "--rationale", "wrong customer", "--as", BOSS)
    assert dry["repositories"] == ["layers/board/", ""] and f"layers/board/{note}" in dry["pages_changed"]
    done = _ok(root, "erase", capture, "--rationale", "wrong customer", "--yes", "--as", BOSS)
    assert done["residue"] == [], done["residue"]
    assert git(board, "rev-parse", "HEAD") != board_head
    assert capture.encode() not in _all_bytes(board) and capture.encode() not in _all_bytes(root)
    text = (board / note).read_text()
    assert cited not in text and CANARY in text  # the board's own lines stay
    assert "wrong customer" in git(root, "log", "-1", "--format=%B")  # a public capture: recorded here
    assert _ok(root, "fsck")["ok"]


def test_erase_refuses_the_whole_of_a_layer_in_its_own_repository(split: dict[str, Path]) -> None:
    """Erasing all of a layer kept in a repository of its own is deleting that repository at its host: refused,
    nothing changed in either repository; so is an erase while the layer's checkout has uncommitted edits."""
    root, board = split["root"], split["board"]
    heads = (git(root, "rev-parse", "HEAD"), git(board, "rev-parse", "HEAD"))
    for args in (["erase", "--layer", "board", "--rationale", "test", "--yes", "--as", BOSS],
                 ["erase", "--layer", "board", "--rationale", "test", "--as", BOSS]):
        code, _, err = run_cli(args, cwd=root)
        assert code == 2 and "lives in its own repository" in err and "nothing changed" in err, err
    assert (git(root, "rev-parse", "HEAD"), git(board, "rev-parse", "HEAD")) == heads
    assert CANARY in (board / next(p for p in git(board, "ls-files", "sources").splitlines())).read_text()
    # Uncommitted edits in the layer's checkout would be lost to its rewrite: refused (exit 3), nothing changed.
    note = next(p for p in git(board, "ls-files", "-z", "wiki/notes").split("\0") if p)
    (board / note).write_text((board / note).read_text() + "\nAn unsaved thought.\n")
    capture = next(p for p in git(board, "ls-files", "sources").splitlines()).rsplit("/", 1)[-1][:-3]
    code, _, err = run_cli(["erase", capture, "--rationale", "test", "--yes", "--as", BOSS], cwd=root)
    assert code == 3 and "layers/board/" in err and "uncommitted" in err, err
    assert (git(root, "rev-parse", "HEAD"), git(board, "rev-parse", "HEAD")) == heads
    assert "An unsaved thought." in (board / note).read_text()


def test_recompile_refiles_the_layers_sources_into_its_own_repository(split: dict[str, Path]) -> None:
    """recompile rebuilds the board pages from the board sources in the board checkout (not only the public
    repository's sources): nothing of the layer is deleted, a person's line on a board page (blamed in the
    board repository) is carried over, and nothing of the layer reaches the public repository."""
    root, board = split["root"], split["board"]
    # A rename made in the layer (its curation record is in the layer's history) is replayed by recompile.
    old = next(p for p in git(board, "ls-files", "-z", "wiki/notes").split("\0") if p)
    _ok(root, "rename", f"layers/board/{old}", "Board minutes of March", "--as", BOSS)
    note = "wiki/notes/Board minutes of March.md"
    before = {p: (board / p).read_text() for p in git(board, "ls-files", "wiki").splitlines()}
    assert note in before and old not in before
    (board / note).write_text((board / note).read_text() + "\nThe KOALAZENITH review follows in May.\n")
    git(board, "commit", "-qam", "a person's line in the board repository")
    public_files = git(root, "ls-files").splitlines()
    report = _ok(root, "recompile", "--as", BOSS)
    assert report["status"] in ("committed", "nothing"), report
    after = {p: (board / p).read_text() for p in git(board, "ls-files", "wiki").splitlines()}
    assert set(after) == set(before)
    assert "KOALAZENITH" in after[note] and CANARY in after[note]
    assert git(board, "status", "--porcelain") == "" and git(root, "status", "--porcelain") == ""
    assert git(root, "ls-files").splitlines() == public_files and CANARY.encode() not in _all_bytes(root)


def test_the_layers_own_server_judges_pushes_with_the_same_rules(split: dict[str, Path], tmp_path: Path) -> None:
    """`hooks install --server` on the layer's bare repository installs the same pre-receive gate: the
    history stigmergy made there is accepted, an uncited line is accepted, and hostile pushes (a source page
    changed, a cited line dropped) are refused with the ref unmoved."""
    board, remote = split["board"], split["board_remote"]
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "hooks", "install", "--server", str(remote)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "stigmergy hooks pre-receive" in (remote / "hooks" / "pre-receive").read_text()
    push = subprocess.run(["git", "push", "origin", "HEAD"], cwd=board, capture_output=True, text=True)
    assert push.returncode == 0, push.stderr  # the layer's own history, made by stigmergy, passes its gate
    branch = git(board, "rev-parse", "--abbrev-ref", "HEAD").strip()
    dev = tmp_path / "board-dev"
    git(tmp_path, "clone", "-q", str(remote), str(dev))
    source = next(p for p in git(dev, "ls-files", "sources").splitlines())
    note = next(p for p in git(dev, "ls-files", "-z", "wiki/notes").split("\0") if p)

    def attempt(path: str, edit, why: str) -> subprocess.CompletedProcess:  # noqa: ANN001
        git(dev, "reset", "-q", "--hard", f"origin/{branch}")
        (dev / path).write_text(edit((dev / path).read_text()))
        git(dev, "commit", "-qam", why)
        return subprocess.run(["git", "push", "origin", f"HEAD:{branch}"], cwd=dev, capture_output=True, text=True)

    tip = git(remote, "rev-parse", branch)
    tampered = attempt(source, lambda t: t.replace("£4.4M", "£1.0M"), "a quieter figure in the source")
    assert tampered.returncode != 0 and "push rejected" in tampered.stderr, tampered.stderr
    cited = next(ln for ln in (dev / note).read_text().splitlines() if "acquisition" in ln and "](../../sources/" in ln)
    dropped = attempt(note, lambda t: t.replace(cited + "\n", ""), "drop the acquisition line")
    assert dropped.returncode != 0 and "push rejected" in dropped.stderr, dropped.stderr
    assert git(remote, "rev-parse", branch) == tip
    fine = attempt(note, lambda t: t + "\nThe minutes were read aloud.\n", "an uncited line")
    assert fine.returncode == 0, fine.stderr


def test_the_force_push_of_an_erase_passes_the_layers_own_gate(split: dict[str, Path], tmp_path: Path) -> None:
    """After an erase of a board capture (its commit in the board repository is gone, the erase record is
    there), the force push to the layer's gated server is judged as that erase and accepted; a force push
    that drops the same source page without an erase record is refused."""
    root, board, remote = split["root"], split["board"], split["board_remote"]
    source = next(p for p in git(board, "ls-files", "sources").splitlines())
    capture = source.rsplit("/", 1)[-1][:-3]
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "hooks", "install", "--server", str(remote)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    git(board, "push", "-q", "origin", "HEAD")
    branch = git(board, "rev-parse", "--abbrev-ref", "HEAD").strip()
    tip = git(remote, "rev-parse", branch)
    # Hostile first: the same pages dropped by a person's rewrite (no erase record) are refused.
    dev = tmp_path / "board-dev"
    git(tmp_path, "clone", "-q", str(remote), str(dev))
    git(dev, "checkout", "-q", "--orphan", "rewritten")
    git(dev, "rm", "-q", "-r", "--cached", ".")
    git(dev, "commit", "-q", "--allow-empty", "-m", "start over")
    forged = subprocess.run(["git", "push", "--force", "origin", f"rewritten:{branch}"], cwd=dev,
                            capture_output=True, text=True)
    assert forged.returncode != 0 and "push rejected" in forged.stderr, forged.stderr
    assert git(remote, "rev-parse", branch) == tip
    done = _ok(root, "erase", capture, "--rationale", "legal hold", "--yes", "--as", BOSS)
    assert done["residue"] == [] and done["repositories"] == ["layers/board/"]
    push = subprocess.run(["git", "push", "--force", "origin", f"HEAD:{branch}"], cwd=board, capture_output=True,
                          text=True)
    assert push.returncode == 0, push.stderr
    assert git(remote, "rev-parse", branch) == git(board, "rev-parse", "HEAD")


def test_an_erase_killed_between_the_two_rewrites_is_finished_by_resume(split: dict[str, Path]) -> None:
    """Killed after the layer's repository was rewritten and before the public one: `resume` finishes both,
    and every change record points at a commit one of the two repositories has."""
    import os
    import signal
    import time

    root, board = split["root"], split["board"]
    line, source = next((i + 1, p) for p in git(root, "ls-files", "sources").splitlines()
                        for i, text in enumerate((root / p).read_text().split("\n")) if "launched Harbor Gateway" in text)
    capture = source.rsplit("/", 1)[-1][:-3]
    note = next(p for p in git(board, "ls-files", "-z", "wiki/notes").split("\0") if p)
    cited = f"- Harbor Gateway launched with 40 customers. ([source](../../../../{source}#L{line}))"
    (board / note).write_text((board / note).read_text().rstrip("\n") + f"\n{cited}\n")
    git(board, "commit", "-qam", "a board line citing the public launch")
    proc = subprocess.Popen(
        [sys.executable, "-m", "stigmergy", "erase", capture, "--rationale", "crash test", "--yes", "--as", BOSS],
        cwd=root, env={**os.environ, "STIGMERGY_PAUSE_AT": "erase-layer-rewritten"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.time() + 120
    while time.time() < deadline:
        out = proc.stdout.readline()
        if "paused at erase-layer-rewritten" in out or proc.poll() is not None:
            break
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (root / ".stigmergy/erase.json").exists()
    assert capture.encode() not in _all_bytes(board) and capture in git(root, "log", "--all", "-p")  # half done
    done = subprocess.run([sys.executable, "-m", "stigmergy", "resume"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not (root / ".stigmergy/erase.json").exists()
    assert capture.encode() not in _all_bytes(board) and capture.encode() not in _all_bytes(root)
    assert cited not in (board / note).read_text()
    ops = json.loads(run_cli(["--json", "log", "-n", "100", "--as", BOSS], cwd=root)[1])["operations"]
    commits = set(git(root, "rev-list", "--all").split()) | set(git(board, "rev-list", "--all").split())
    assert all(o["commit"] in commits for o in ops if o["commit"]), "a change record points at a vanished commit"
