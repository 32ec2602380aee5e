"""The curation record: people's judgement (renames, merges, deletions of wiki pages, aliases added or
removed, resolutions, human lines) is read back from Git and replayed, so neither the weekly `recompile`
nor an `export` + `import` into an empty repository undoes it. Pages are compared byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import git, run_cli

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
FILES = [CORPUS / "customers", CORPUS / "reports" / "2026-07-08-q2-2026-quarterly-report-draft.md",
         CORPUS / "reports" / "2026-07-21-q2-2026-quarterly-report-final.md"]
HUMAN = "Our note: Aoife prefers calls on Tuesdays."
ERIK = ("Erik Sandberg, Head of Operations at Norrland Fresh, joined the call on 4 June 2026. "
        "Erik Sandberg asked for a demo of Lodestar.")


def _ok(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", *args], cwd=root)
    assert code == 0, err + out
    return json.loads(out)


def _person_commit(root: Path, message: str) -> None:
    git(root, "-c", "user.name=Pat Person", "-c", "user.email=pat@example.com", "commit", "-qam", message)


def _set_aliases(root: Path, rel: str, aliases: list[str]) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    head, _, body = text.partition("\n---\n")
    head = re.sub(r"\naliases:(\n- .*)*|\naliases: \[\]", "", head)
    head += "\naliases:" + "".join(f"\n- {a}" for a in aliases) if aliases else "\naliases: []"
    (root / rel).write_text(head + "\n---\n" + body, encoding="utf-8")


def _wiki(root: Path) -> dict[str, str]:
    """Every tracked wiki page, byte for byte."""
    return {p: (root / p).read_text(encoding="utf-8") for p in git(root, "ls-files", "-z", "wiki", "layers").split("\0")
            if p.endswith(".md") and "/sources/" not in f"/{p}"}


@pytest.fixture
def curated(wiki: Path) -> Path:
    """A wiki on which a person renamed, merged, deleted, added and removed aliases, wrote a line, and
    resolved a contradiction; then a later capture named the renamed and the deleted page again."""
    _ok(wiki, "capture", *map(str, FILES))
    _ok(wiki, "rename", "Dublin", "Dublin office")
    _ok(wiki, "merge", "Harbor API", "INTO", "Norrland Fresh")
    _ok(wiki, "delete", "wiki/entities/Erik Sandberg.md", "--rationale", "not a person we work with")
    _set_aliases(wiki, "wiki/entities/Dublin office.md", ["Dublin hub"])  # removes "Dublin", adds "Dublin hub"
    _person_commit(wiki, "aliases of the Dublin office")
    rel = "wiki/entities/Aoife Brennan.md"
    (wiki / rel).write_text((wiki / rel).read_text(encoding="utf-8") + f"\n{HUMAN}\n", encoding="utf-8")
    _person_commit(wiki, "a note about Aoife")
    con = next(c["id"] for c in _ok(wiki, "contradictions")["contradictions"] if "revenue" in c["subject"])
    _ok(wiki, "capture", "--text", "The board confirmed the final Q2 2026 figures; the draft was superseded.",
        "--resolves", con, "--rationale", "the final report supersedes the draft")
    _ok(wiki, "capture", "--title", "Later note", "--text",
        "Samuel Achterberg visited the Dublin hub on 3 June 2026. " + ERIK)
    return wiki


def _check_curation(root: Path) -> None:
    pages = _wiki(root)
    assert "wiki/entities/Dublin.md" not in pages and "wiki/entities/Dublin office.md" in pages
    assert "wiki/entities/Harbor API.md" not in pages
    dublin = pages["wiki/entities/Dublin office.md"]
    assert "- Dublin hub\n" in dublin and "\n- Dublin\n" not in dublin.split("\n---\n")[0]
    assert HUMAN in pages["wiki/entities/Aoife Brennan.md"]


def test_recompile_replays_the_curation_record(curated: Path) -> None:
    before = _wiki(curated)
    _check_curation(curated)
    data = _ok(curated, "recompile")
    assert data["status"] == "nothing", data["message"] + json.dumps(data["report"].get("curation"))
    curation = data["report"]["curation"]
    assert curation["not_replayed"] == [], curation
    assert curation["replayed"] == 4 and curation["resolutions"] == 1
    assert _wiki(curated) == before


def test_a_kill_while_a_run_of_curation_is_written_is_resumed(curated: Path) -> None:
    """The entries between two sources are replayed in memory and written at once, after their pre-images
    are journaled: killed there, `--resume` takes the run back, replays it again, and ends where an
    uninterrupted recompile does."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from stigmergy.repo.layout import Layout

    before = _wiki(curated)
    env = {**os.environ, "STIGMERGY_PAUSE_AT": "recompile-curation",
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "recompile"], cwd=curated, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline, line = time.monotonic() + 120, ""
    while time.monotonic() < deadline and "paused at" not in line:
        line = proc.stdout.readline() if proc.stdout else ""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert "paused at recompile-curation" in line
    work = Layout(curated).state_dir / "recompile"
    journal = json.loads((work / "curation-step.jsonl").read_text(encoding="utf-8"))
    progress = json.loads((work / "progress.json").read_text(encoding="utf-8"))
    assert journal["pre"] and progress["done"] == journal["start"]  # the run's progress was not saved
    data = _ok(curated, "recompile", "--resume")
    assert data["status"] == "nothing", data["message"]
    assert data["report"]["curation"]["replayed"] == 4 and data["report"]["curation"]["not_replayed"] == []
    assert _wiki(curated) == before and not work.exists()


def test_a_fresh_clone_finds_the_record_in_git(curated: Path, tmp_path: Path) -> None:
    before = _wiki(curated)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(curated), str(clone))
    data = _ok(clone, "recompile")
    assert data["status"] == "nothing", data["message"]
    assert _wiki(clone) == before


def test_a_deleted_page_stays_deleted_unless_a_later_source_brings_it_back(wiki: Path) -> None:
    _ok(wiki, "capture", *map(str, FILES))
    _ok(wiki, "delete", "wiki/entities/Erik Sandberg.md", "--rationale", "not needed")
    _ok(wiki, "delete", "Samuel Achterberg", "--rationale", "not needed either")
    _ok(wiki, "capture", "--title", "Later", "--text", ERIK)
    before = _wiki(wiki)
    assert "wiki/entities/Erik Sandberg.md" in before and "wiki/entities/Samuel Achterberg.md" not in before
    data = _ok(wiki, "recompile")
    assert data["status"] == "nothing" and _wiki(wiki) == before
    assert any("Erik Sandberg" in b for b in data["report"]["curation"]["brought_back"]), data["report"]["curation"]
    data = _ok(wiki, "recompile", "--by-occurred")
    assert "wiki/entities/Samuel Achterberg.md" not in _wiki(wiki)
    assert "wiki/entities/Erik Sandberg.md" in _wiki(wiki)
    assert any("Erik Sandberg" in b for b in data["report"]["curation"]["brought_back"]), data["report"]["curation"]


def test_curation_that_cannot_be_replayed_is_named_with_its_reason(wiki: Path) -> None:
    cap = _ok(wiki, "capture", "--title", "Call", "--text", ERIK)["captures"][0]["capture_id"]
    _ok(wiki, "rename", "Erik Sandberg", "Erik S. Sandberg")
    # Its only source goes, and the renamed page with it: no refiling derives the page again.
    _ok(wiki, "delete", cap, "--rationale", "withdrawn")
    data = _ok(wiki, "recompile")
    missed = data["report"]["curation"]["not_replayed"]
    assert [(m["kind"], m["page"]) for m in missed] == [("rename", "wiki/entities/Erik Sandberg.md")], missed
    assert "no source derives" in missed[0]["why"]


def test_export_and_import_carry_the_curation_record(curated: Path, tmp_path: Path) -> None:
    from stigmergy.repo.init import init_repository

    before = _wiki(curated)
    bundle = tmp_path / "bundle"
    report = _ok(curated, "export", str(bundle))
    manifest = json.loads((bundle / "manifest.json").read_text())
    kinds = [e["kind"] for e in manifest["curation"]]
    assert {"rename", "merge", "delete", "aliases"} <= set(kinds), kinds
    assert any(HUMAN in h["lines"] for h in manifest["human_lines"])
    assert report["curation"] == len(kinds)
    target = tmp_path / "target"
    init_repository(target)
    result = _ok(target, "import", str(bundle))
    assert result["notes"] == [], result["notes"]
    assert _wiki(target) == before
    # The imported repository holds the same record: its own recompile changes nothing, and the person's
    # line is still a person's line there.
    assert _ok(target, "recompile")["status"] == "nothing"
    assert HUMAN in _wiki(target)["wiki/entities/Aoife Brennan.md"]
    head = git(target, "rev-parse", "HEAD")
    again = _ok(target, "import", str(bundle))
    assert git(target, "rev-parse", "HEAD") == head, again


CEO = "ceo@example.com"


def test_a_restricted_layer_keeps_its_curation_without_naming_a_page_in_git(wiki: Path, tmp_path: Path) -> None:
    toml = wiki / "stigmergy.toml"
    toml.write_text(toml.read_text() + f'\n[layers.board]\nreaders = ["{CEO}"]\n')
    git(wiki, "commit", "-qam", "board layer")
    for text in ("Board note: Maya Okafor proposed the Heronsgate budget of $2M on 2 September 2026.",
                 "Board note: Oliver Brandt and Maya Okafor met Quentin Zephyr of Heronsgate on 3 September 2026."):
        _ok(wiki, "--as", CEO, "capture", "--layer", "board", "--text", text)
    notes = sorted(p.relative_to(wiki).as_posix() for p in (wiki / "layers/board/wiki/notes").glob("*.md"))
    _ok(wiki, "--as", CEO, "rename", notes[0], "Heronsgate budget")
    _ok(wiki, "--as", CEO, "merge", notes[1], "INTO", "layers/board/wiki/notes/Heronsgate budget.md")
    messages = git(wiki, "log", "--format=%B", "-2")
    assert "Heronsgate" not in messages and "layers/board" not in messages and "Stigmergy-Page: pg_" in messages
    before = _wiki(wiki)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(wiki), str(clone))
    data = _ok(clone, "--as", CEO, "recompile")
    assert data["status"] == "nothing", data["report"]["curation"]
    assert data["report"]["curation"]["replayed"] == 2 and _wiki(clone) == before


@pytest.mark.parametrize("bad", [
    {"page": "sources/2026/01/cap_01J8ZZZZZZZZZZZZZZZZZZZZZZ.md"},  # a source page is never curated by replay
    {"page": "wiki/entities/../../stigmergy.toml"},
    {"page": "layers/board/wiki/entities/Secret.md"},  # a layer the bundle does not hold
    {"kind": "erase"},
    {"to": "wiki/notes/Elsewhere.md"},  # a rename never changes a page's type
    {"added": ["x" * 300]},
])
def test_a_hostile_curation_entry_imports_nothing(curated: Path, tmp_path: Path, bad: dict) -> None:
    import hashlib

    from stigmergy.repo.init import init_repository

    bundle = tmp_path / "bundle"
    _ok(curated, "export", str(bundle))
    manifest = json.loads((bundle / "manifest.json").read_text())
    rename = next(e for e in manifest["curation"] if e["kind"] == "rename")
    rename.update(bad)
    raw = (json.dumps(manifest, indent=1) + "\n").encode()
    (bundle / "manifest.json").write_bytes(raw)
    sums = (bundle / "SHA256SUMS").read_text().splitlines()
    sums = [f"{hashlib.sha256(raw).hexdigest()}  manifest.json" if s.endswith("  manifest.json") else s for s in sums]
    (bundle / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    target = tmp_path / "target"
    init_repository(target)
    head = git(target, "rev-parse", "HEAD")
    code, out, err = run_cli(["import", str(bundle)], cwd=target)
    assert code == 1 and "curation" in err and len(err.strip().splitlines()) <= 2, err
    assert git(target, "rev-parse", "HEAD") == head


# ---------------------------------------------------------------- one operation at a time

@pytest.fixture(scope="module")
def settled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample files captured, garden run (it learns aliases), once for the module."""
    from stigmergy.repo.init import init_repository

    root = tmp_path_factory.mktemp("settled") / "wiki"
    init_repository(root)
    _ok(root, "capture", *map(str, FILES))
    code, out, err = run_cli(["garden"], cwd=root)
    assert code in (0, 4), out + err
    return root


def _resolve(root: Path) -> None:
    con = next(c["id"] for c in _ok(root, "contradictions")["contradictions"] if "revenue" in c["subject"])
    _ok(root, "capture", "--text", "The board confirmed the final Q2 2026 figures; the draft was superseded.",
        "--resolves", con, "--rationale", "the final report supersedes the draft")


def _edit_aliases(root: Path, rel: str, edit) -> None:  # noqa: ANN001
    """A person's edit of an entity's aliases, written in the page contract's canonical form."""
    from dataclasses import replace

    from stigmergy.pages.wiki import parse_wiki_page, render_wiki_page

    page = parse_wiki_page((root / rel).read_text(encoding="utf-8"), rel)
    (root / rel).write_text(render_wiki_page(replace(page, aliases=tuple(edit(list(page.aliases))))), encoding="utf-8")


def _alias_removed(root: Path) -> None:
    def drop(aliases: list[str]) -> list[str]:
        assert "Erik" in aliases, aliases  # garden learned it: a person takes it away
        return [a for a in aliases if a != "Erik"]

    _edit_aliases(root, "wiki/entities/Erik Sandberg.md", drop)
    _person_commit(root, "Erik is not only Erik Sandberg")


def _human_line(root: Path) -> None:
    rel = "wiki/entities/Aoife Brennan.md"
    (root / rel).write_text((root / rel).read_text(encoding="utf-8") + f"\n{HUMAN}\n", encoding="utf-8")
    _person_commit(root, "a note about Aoife")


def _alias_added(root: Path) -> None:
    _edit_aliases(root, "wiki/entities/Dublin.md", lambda aliases: [*aliases, "Dublin hub"])
    _person_commit(root, "Dublin hub")


OPERATIONS = {
    "rename": lambda r: _ok(r, "rename", "Dublin", "Dublin office"),
    "merge": lambda r: _ok(r, "merge", "Harbor API", "INTO", "Norrland Fresh"),
    "delete": lambda r: _ok(r, "delete", "wiki/entities/Erik Sandberg.md", "--rationale", "not a person we work with"),
    "alias-added": _alias_added,
    "alias-removed": _alias_removed,
    "resolution": _resolve,
    "human-line": _human_line,
}


def _tracked(root: Path) -> dict[str, bytes]:
    """Every tracked page, wiki and source, byte for byte."""
    return {p: (root / p).read_bytes() for p in git(root, "ls-files", "-z", "wiki", "sources", "layers").split("\0")
            if p.endswith(".md")}


def _imported(pages: dict[str, bytes]) -> dict[str, bytes]:
    """What an import is held to: every page byte for byte, except a source page's `origin` (an imported
    capture says it came by import) and the map of content (wiki/index.md), which garden writes and an
    import does not yet (not part of the curation record: see /work/notes/26.md)."""
    import re

    return {p: re.sub(rb"\norigin: [a-z]+\n", b"\norigin: *\n", t, count=1) if p.startswith("sources/") else t
            for p, t in pages.items() if p != "wiki/index.md"}


def _differences(got: dict[str, bytes], want: dict[str, bytes]) -> list[str]:
    """Each path that differs, with its first differing line on each side."""
    import difflib

    out = []
    for path in sorted(set(got) | set(want)):
        a, b = got.get(path), want.get(path)
        if a != b:
            lines = [ln for ln in difflib.unified_diff((b or b"").decode().splitlines(), (a or b"").decode().splitlines(),
                                                      lineterm="", n=0) if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
            out.append(f"{path}: {lines[:4]}")
    return out


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_each_curation_survives_recompile_then_export_and_import(settled: Path, tmp_path: Path, operation: str) -> None:
    import shutil

    from stigmergy.repo.init import init_repository

    root = tmp_path / "wiki"
    shutil.copytree(settled, root, symlinks=True)
    before_op = _tracked(root)
    OPERATIONS[operation](root)
    curated = _tracked(root)
    assert curated != before_op  # the operation changed something: the comparisons below can fail
    data = _ok(root, "recompile")
    # Nothing to change but, at most, the map of content (a capture does not refresh it; recompile does).
    changed = {c["path"] if isinstance(c, dict) else c for c in data["paths"]}
    assert data["status"] == "nothing" or changed <= {"wiki/index.md"}, (data["message"], data["paths"])
    assert data["report"]["curation"]["not_replayed"] == []
    assert _differences(_imported(_tracked(root)), _imported(curated)) == []
    curated = _tracked(root)
    bundle = tmp_path / "bundle"
    _ok(root, "export", str(bundle))
    target = tmp_path / "target"
    init_repository(target)
    result = _ok(target, "import", str(bundle))
    assert result["notes"] == [], result["notes"]
    # Pages, titles, aliases, cited lines, human lines, contradictions and source pages: byte for byte.
    diff = _differences(_imported(_tracked(target)), _imported(curated))
    assert diff == [], "\n".join(diff)
    assert _ok(target, "recompile")["status"] == "nothing"
    diff = _differences(_imported(_tracked(target)), _imported(curated))
    assert diff == [], "\n".join(diff)
