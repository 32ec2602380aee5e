"""Filing cost that stays flat (issue 27): a repository's loose objects packed as filing goes, every part
of a page bounded (dated sections, contradiction blocks, aliases, archive pages), and the words of
technical writing that are not entities."""

from __future__ import annotations

import subprocess
from pathlib import Path

from stigmergy.repo.git import Git


def _loose(root: Path) -> int:
    out = subprocess.run(["git", "count-objects"], cwd=root, capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])


def test_commits_pack_loose_objects_past_a_threshold(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    git = Git(tmp_path)
    for i in range(6):
        (tmp_path / "page.md").write_text("".join(f"line {k}\n" for k in range(i * 50)) or "x\n")
        git.commit_paths(["page.md"], f"commit {i}", "T", "t@example.com")
    assert _loose(tmp_path) >= 18  # a blob, a tree and a commit each time, below the threshold: loose
    assert not git.pack_loose(threshold=10**9)
    assert git.pack_loose(threshold=0)
    assert _loose(tmp_path) == 0
    assert git.run("log", "--format=%s").split("\n")[0] == "commit 5"  # history intact, now packed
    assert (tmp_path / ".git" / "objects" / "pack").is_dir()


def test_the_loose_estimate_reads_eight_fan_out_folders(tmp_path: Path) -> None:
    """1,500 loose objects (fixed contents, so fixed ids): the estimate that decides when to pack is within
    15% of the count (1,312 from eight folders x 32; one folder x 256, as `gc --auto` reads, said 2,048)."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    folder = tmp_path / "o"
    folder.mkdir()
    for i in range(1500):
        (folder / str(i)).write_text(f"a note of the wiki, number {i}\n")
    subprocess.run(["git", "hash-object", "-w", "--stdin-paths"], cwd=tmp_path, check=True, capture_output=True,
                   input="\n".join(str(folder / str(i)) for i in range(1500)), text=True)
    assert _loose(tmp_path) == 1500
    assert abs(Git(tmp_path).loose_estimate() - 1500) <= 0.15 * 1500
    assert Git(tmp_path / "o").loose_estimate() == 0  # no .git/objects there: nothing loose, no error


def test_packing_stores_a_pages_later_versions_as_deltas_and_leaves_nothing_loose(tmp_path: Path) -> None:
    """`repack --geometric` alone packs loose objects without their paths: 40 pages of like size, three
    versions each, packed with no delta at all (147 KB); packed with their names (`repack -d`), each later
    version is a delta of its page's earlier one. An object no commit reaches is packed too."""
    import random

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    git = Git(tmp_path)
    rng = random.Random(1)
    pages = {f"p{i:02d}.md": "".join(f"{rng.getrandbits(64):x} {rng.getrandbits(64):x}\n" for _ in range(60))
             for i in range(40)}
    for v in range(3):
        for name in pages:
            pages[name] += f"version {v} line\n"
            (tmp_path / name).write_text(pages[name])
        git.commit_paths(list(pages), f"v{v}", "T", "t@example.com")
    git.run("hash-object", "-w", "--stdin", input=b"reached by no commit\n")
    assert git.pack_loose(threshold=0)
    assert _loose(tmp_path) == 0
    listing = git.run("verify-pack", "-v", *(str(p) for p in (tmp_path / ".git" / "objects" / "pack").glob("*.idx")))
    blobs = [line.split() for line in listing.splitlines() if " blob " in line]
    assert len(blobs) == 121
    assert sum(1 for b in blobs if len(b) > 5) >= 80  # a delta names its base: every later version is one


def test_a_commit_starts_no_git_maintenance(tmp_path: Path) -> None:
    """Issue 24: `git commit` starts `git maintenance run --auto` after each commit unless told not to; a
    10,000-message export is 500 commits, and pack_loose does the packing."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    trace = tmp_path.parent / "git-trace.txt"
    git = Git(tmp_path, env={"GIT_TRACE": str(trace)})
    (tmp_path / "page.md").write_text("x\n")
    git.commit_paths(["page.md"], "commit", "T", "t@example.com")
    text = trace.read_text()
    assert "built-in: git commit" in text  # the trace did record the commit
    assert "maintenance" not in text
    assert git.run("log", "--format=%s").strip() == "commit"


def _flat_folder_history(root: Path, commits: int, pack_every: int) -> Git:
    """The shape that makes repacks cost after 2,000 documents: every commit adds a note to one flat folder
    (its tree rewritten whole) and rewrites a busy page; `pack_loose` packs as filing goes."""
    import random

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git = Git(root)
    rng = random.Random(7)
    (root / "notes").mkdir()
    busy: list[str] = [f"{rng.getrandbits(64):x} fact {k}\n" for k in range(150)]
    for i in range(commits):
        note = f"notes/{rng.getrandbits(40):010x}-note-{i}.md"
        (root / note).write_text(f"# Note {i}\n\n{rng.getrandbits(128):x}\n")
        busy.insert(rng.randrange(len(busy)), f"{rng.getrandbits(64):x} fact {i}\n")
        del busy[: max(0, len(busy) - 300)]
        (root / "busy.md").write_text("".join(busy))
        git.commit_paths([note, "busy.md"], f"commit {i}", "T", "t@example.com", when=1_700_000_000 + i)
        if (i + 1) % pack_every == 0:
            assert git.pack_loose(threshold=0)
    return git


def test_packing_searches_a_small_delta_window_on_one_thread(tmp_path: Path) -> None:
    """What pack_loose's repacks are told (PACK_SETTINGS), as the `pack-objects` they start read it: a
    delta window of 5 (git's default 10 tried each rewrite of a flat folder's tree against 10 others) and
    one delta thread (two split the object list, and the pack's bytes with it)."""
    import json

    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    events = tmp_path / "trace.json"
    git = Git(tmp_path / "repo", env={"GIT_TRACE2_EVENT": str(events),
                                      "GIT_TRACE2_CONFIG_PARAMS": "pack.window,pack.threads"})
    for i in range(3):
        (tmp_path / "repo" / "page.md").write_text(f"version {i}\n")
        git.commit_paths(["page.md"], f"commit {i}", "T", "t@example.com")
    events.unlink(missing_ok=True)
    assert git.pack_loose(threshold=0)
    seen = [json.loads(line) for line in events.read_text().splitlines()]
    packers = {e["sid"] for e in seen if e["event"] == "cmd_name" and e["name"] == "pack-objects"}
    assert packers  # the repack did start pack-objects
    for sid in packers:
        params = {e["param"]: e["value"] for e in seen if e["event"] == "def_param" and e["sid"] == sid}
        assert params == {"pack.window": "5", "pack.threads": "1"}


def test_packing_as_filing_goes_keeps_every_object_and_stays_near_an_aggressive_pack(tmp_path: Path) -> None:
    """The smaller window loses nothing and little room: after 120 commits packed every 20, nothing is
    loose, every object is packed and readable (fsck), each page's versions are deltas, and the packs are
    within the issue's bound (3x a `git gc --aggressive` copy of the same history)."""
    git = _flat_folder_history(tmp_path / "a", 120, 20)
    root = tmp_path / "a"
    assert _loose(root) == 0
    assert subprocess.run(["git", "fsck", "--full", "--strict", "--no-dangling"], cwd=root,
                          capture_output=True).returncode == 0
    reachable = {line.split()[0] for line in git.run("rev-list", "--objects", "--all").splitlines()}
    packs = sorted((root / ".git" / "objects" / "pack").glob("*.idx"))
    listing = git.run("verify-pack", "-v", *(str(p) for p in packs))
    packed = {line.split()[0] for line in listing.splitlines() if " blob " in line or " tree " in line or " commit " in line}
    assert reachable <= packed
    deltas = [line.split() for line in listing.splitlines() if " tree " in line or " blob " in line]
    assert sum(1 for d in deltas if len(d) > 5) >= 200  # 120 versions of notes/ and of busy.md: deltas

    def size(repo: Path) -> int:
        return sum(p.stat().st_size for p in (repo / ".git" / "objects").rglob("*") if p.is_file())

    subprocess.run(["git", "clone", "-q", "--no-local", str(root), str(tmp_path / "agg")], check=True)
    subprocess.run(["git", "gc", "-q", "--aggressive"], cwd=tmp_path / "agg", check=True)
    assert size(root) <= 3 * size(tmp_path / "agg")


# -- contradiction blocks and archive pages: bounded, moved verbatim, checked by the gates -------------

import pytest  # noqa: E402
from test_plan_support import file_and_commit, make_repo, op_for, write_source  # noqa: E402

from stigmergy.gates.engine import evaluate  # noqa: E402
from stigmergy.pages.contradictions import scan_blocks  # noqa: E402
from stigmergy.pages.frontmatter import split_front_matter  # noqa: E402
from stigmergy.plan.deterministic import layout, page_bodies  # noqa: E402
from stigmergy.plan.schema import CreatePage, Plan, UpdatePage  # noqa: E402
from stigmergy.settings import Settings  # noqa: E402

ENTITY = "wiki/entities/Halden Logistics.md"


def _text(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def _blocks(root: Path, rel: str) -> list:
    return scan_blocks(split_front_matter(_text(root, rel))[1], rel)[0]


def _disagreeing(root: Path, pairs: int, start: int = 1) -> None:
    """Two documents per year that disagree on Halden Logistics' revenue of that fiscal year."""
    n = start
    for k in range(pairs):
        year = 2010 + k
        for value in (100 + k, 200 + k):
            text = (f"Halden Logistics signed order {n} for the Atlas rollout, said Maria Chen.\n"
                    f"Halden Logistics revenue in FY{year} was ${value}k according to finance.\n")
            rel = write_source(root, n, text, title=f"Halden review {n}", metadata={"participants": ["Maria Chen"]},
                               occurred_at=f"2024-{1 + n % 12:02d}-{1 + n % 27:02d}")
            file_and_commit(root, rel, n)
            n += 1


def test_open_blocks_past_the_bound_move_verbatim_to_the_archive(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    pairs = layout.MAX_OPEN_BLOCKS + 2
    _disagreeing(root, pairs)
    on_page = _blocks(root, ENTITY)
    archives = sorted(p.relative_to(root).as_posix() for p in (root / "wiki/entities").glob("Halden Logistics (*).md"))
    archived = [b for rel in archives for b in _blocks(root, rel)]
    assert archived, "no block left the page"
    assert len(on_page) <= layout.MAX_OPEN_BLOCKS
    ids = [b.record.id for b in on_page + archived]
    assert len(ids) == len(set(ids)) == pairs  # every contradiction recorded once, none lost
    assert all(b.record.status == "open" for b in on_page + archived)
    body = split_front_matter(_text(root, ENTITY))[1]
    assert "Older open contradictions, on the archive pages: [[Halden Logistics (" in body
    # The archive page cites what the blocks that moved cite (the page's own dated sections still do too).
    moved = {c.source for b in archived for c in b.record.claims}
    assert moved <= {s for rel in archives for s in split_front_matter(_text(root, rel))[0]["sources"]}


def _moving_plan(root: Path, body: str, block_text: str, archive_title: str, archive_block: str) -> Plan:
    kept = body.replace(block_text, "", 1)
    archive = CreatePage(type="entity", title=archive_title, body=f"# {archive_title}\n\n{archive_block}",
                         entity_type="organisation", reason="test")
    return Plan(mutations=(UpdatePage(path=ENTITY, body=kept, reason="test"), archive))


def test_gates_accept_a_block_moved_only_verbatim_to_the_pages_own_archive(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _disagreeing(root, 1)
    block = _blocks(root, ENTITY)[0]
    body = split_front_matter(_text(root, ENTITY))[1]
    rel = write_source(root, 90, "Nothing.\n", title="t")
    op = op_for(root, rel, 90)
    altered = block.text.replace("Sources disagree", "Sources differ")
    for title, arriving, ok in (
        ("Halden Logistics (2024)", block.text, True),
        ("Halden Logistics (2024, 2)", block.text, True),
        ("Other Logistics (2024)", block.text, False),  # not this page's archive
        ("Halden Logistics (2024)", altered, False),  # changed on the way
    ):
        verdict = evaluate(_moving_plan(root, body, block.text, title, arriving), root, Settings(), op)
        assert verdict.ok is ok, (title, verdict.violations)
        if not ok:
            assert "contradiction-altered" in {v.rule for v in verdict.violations}
    # Dropped with nowhere to go: refused as before.
    dropped = Plan(mutations=(UpdatePage(path=ENTITY, body=body.replace(block.text, "", 1), reason="test"),))
    assert "contradiction-altered" in {v.rule for v in evaluate(dropped, root, Settings(), op).violations}


def test_a_full_archive_year_continues_on_its_next_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout, "MAX_SECTIONS", 4)
    monkeypatch.setattr(layout, "KEEP_SECTIONS", 2)
    monkeypatch.setattr(page_bodies, "MAX_ARCHIVE_LINES", 12)
    root = make_repo(tmp_path)
    for n in range(1, 13):
        text = (f"Halden Logistics signed order {n} for the Atlas rollout, said Maria Chen.\n"
                f"Halden Logistics ships it from the north yard in week {n}.\n")
        rel = write_source(root, n, text, title=f"Halden call {n}", metadata={"participants": ["Maria Chen"]},
                           occurred_at=f"2024-{n:02d}-10")
        file_and_commit(root, rel, n)
    names = sorted(p.name for p in (root / "wiki/entities").glob("Halden Logistics (*).md"))
    assert "Halden Logistics (2024).md" in names and "Halden Logistics (2024, 2).md" in names
    second = split_front_matter(_text(root, "wiki/entities/Halden Logistics (2024, 2).md"))[1]
    assert "Earlier: [[Halden Logistics (2024)]]" in second
    from stigmergy.plan.catalogue import catalogue

    assert all("(" not in n for n in catalogue(root, "public").names())  # archive parts are no identities


def test_archive_titles() -> None:
    assert layout.archive_title("Acme", "2025") == "Acme (2025)"
    assert layout.archive_title("Acme", "2025", 3) == "Acme (2025, 3)"
    assert layout.archive_key("Acme (2025, 3)") == ("2025", 3) and layout.archive_key("Acme (2025)") == ("2025", 1)
    assert layout.archive_base("Acme (2025, 1)") is None  # part 1 is the plain year: one spelling per page
    assert layout.archive_base("Acme (v2, 3)") is None


# -- technical writing: code words, code spans, fences ----------------------------------------------

def test_code_words_and_split_phrases_are_no_names() -> None:
    from stigmergy.plan.deterministic.names import proper_name_runs

    for text in (
        "Return True when the cache is warm, otherwise None.",
        "Raise OSError if the socket closes; False means the budget is spent.",
        "See PEP for naming, and README.txt for the build steps.",
        "It returns `Client(None)` from the `sync_state` call.",
    ):
        assert [n for n, _ in proper_name_runs(text) if n != "PEP"] == [], text
    assert [n for n, _ in proper_name_runs("It needs the Python C extension.")] == ["Python"]
    assert [n for n, _ in proper_name_runs("Harry S Truman met Acme Corp.")][0] == "Harry S Truman"


def test_a_wikilink_in_code_is_text() -> None:
    from stigmergy.plan.deterministic.statements import source_links

    text = ("Use `[[Entity|variant]]` for an alias, or [[Acme Corp|Acme]].\n\n```markdown\n[[Entity|variant]]\n```\n\n"
            "    [[Indented|code]]\n")
    assert [(lk.target, lk.label) for lk in source_links(text)] == [("Acme Corp", "Acme")]


# -- identities named in front matter by slug and by a client folder ---------------------------------

def _stigmergy(*args: str) -> subprocess.CompletedProcess:
    import sys

    return subprocess.run([sys.executable, "-m", "stigmergy", *args], capture_output=True, text=True, timeout=300)


def test_slugs_and_client_folders_name_the_proper_name(tmp_path: Path) -> None:
    from stigmergy.plan.deterministic.planner import folder_names

    assert folder_names("export/Clients/2. Initech/2024/call.md") == ["Initech"]
    assert folder_names("Customers/Blue Heron Ltd/call.md") == ["Blue Heron Ltd"]
    assert folder_names("notes/2. Initech/call.md") == [] and folder_names("Clients/call.md") == []
    docs = tmp_path / "docs"
    (docs / "Clients" / "2. Initech").mkdir(parents=True)
    (docs / "a.md").write_text(
        "---\ntitle: Renewal call\ndate: '2024-03-01'\ncustomer: aurora-systems\n---\n# Renewal call\n\n"
        "Priya walked Aurora Systems through the renewal terms on Tuesday.\n", encoding="utf-8")
    (docs / "Clients" / "2. Initech" / "b.md").write_text(
        "---\ntitle: Kickoff\ndate: '2024-03-02'\n---\n# Kickoff\n\nThe kickoff covered the data migration plan.\n",
        encoding="utf-8")
    for k, h in enumerate(("3f2a9c1e4b5d6a7f", "9e8d7c6b5a4f3e2d", "1a2b3c4d-1111-2222-3333-444455556666")):
        (docs / f"Weekly sync {h}.md").write_text(
            f"---\ntitle: Weekly sync\ndate: '2024-03-05'\n---\n# Weekly sync\n\n"
            f"- We agreed that Priya owns the migration checklist item {k + 1} until the end of March.\n", encoding="utf-8")
    wiki = tmp_path / "wiki"
    assert _stigmergy("init", str(wiki)).returncode == 0
    out = _stigmergy("-C", str(wiki), "--json", "capture", str(docs))
    assert out.returncode == 0, out.stderr
    pages = sorted(p.name for p in (wiki / "wiki" / "entities").glob("*.md"))
    assert "Aurora Systems.md" in pages and "Initech.md" in pages, pages
    assert not any("aurora-systems" in p.lower() or p.startswith("2.") for p in pages), pages
    initech = (wiki / "wiki" / "entities" / "Initech.md").read_text(encoding="utf-8")
    assert "entity_type: organisation" in initech
    # Three documents titled "Weekly sync" on one day, their file names ending in ids: three titles a
    # reader can tell apart, none with the id in it.
    notes = sorted(p.name for p in (wiki / "wiki" / "notes").glob("Weekly sync*.md"))
    assert len(notes) == 3, notes
    assert not any(h in n for n in notes for h in ("3f2a9c", "9e8d7c", "1a2b3c4d", "4444")), notes


# -- the README's benchmark table comes from the benches' output files --------------------------------

def test_readme_table_is_generated_from_bench_results(tmp_path: Path) -> None:
    import json

    from conftest import REPO_ROOT, load_script

    table = load_script("bench_table")
    (tmp_path / "filing-x.json").write_text(json.dumps({
        "date": "2026-12-02T07:00:00Z", "load": "3.1–9.8",
        "readme_rows": [["capture + file | x", "1.5 captures/s", "first window 1.6/s", "≥ 0.8×"]],
    }))
    readme = f"intro\n{table.START}\nstale row\n{table.END}\nrest\n"
    out = table.with_table(readme, tmp_path)
    assert "stale row" not in out and out.startswith("intro\n") and out.endswith("rest\n")
    row = next(line for line in out.split("\n") if "captures/s" in line)
    assert "capture + file \\| x" in row and "2026-12-02, load 3.1–9.8 (`filing-x.json`)" in row
    assert table.with_table("no markers\n", tmp_path) == "no markers\n"
    # The committed README holds the table of the committed results (scripts/gen_docs.py checks it too).
    committed = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert table.START in committed and committed == table.with_table(committed, REPO_ROOT / "bench" / "results")
