"""Export and import: the sample corpus exported and replayed into an empty repository compiles to the
same wiki; a second import files nothing; restricted layers leave only with their reader; a
damaged or hostile bundle imports nothing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import git, run_cli

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
BOSS = "boss@example.com"


def _ok(root: Path, *args: str) -> dict:
    code, out, err = run_cli(["--json", *args], cwd=root)
    assert code == 0, err + out
    return json.loads(out)


def _locators(root: Path) -> dict[str, str]:
    """{capture id: locator} from the source pages (ids differ between repositories, locators do not)."""
    out = {}
    for path in git(root, "ls-files", "-z", "sources", "layers").split("\0"):
        if path.endswith(".md") and "/sources/" in f"/{path}":
            text = (root / path).read_text()
            out[Path(path).stem] = re.search(r"^locator: (.*)$", text, re.M).group(1).strip("'\"")
    return out


def _normalised(root: Path) -> tuple[dict[str, list[str]], list[str]]:
    """(each wiki page's body lines with capture ids and source paths replaced by locators, contradictions)."""
    names = _locators(root)

    def norm(text: str) -> str:
        text = re.sub(r"(?:\.\./)*(?:layers/[^/]+/)?sources/\d{4}/\d{2}/(cap_[0-9A-Z]{26})\.md",
                      lambda m: f"<{names[m.group(1)]}>", text)
        text = re.sub(r"cap_[0-9A-Z]{26}", lambda m: f"<{names.get(m.group(0), '?')}>", text)
        text = re.sub(r"stigmergy:data \S+|con_[0-9A-Z]{26}|pg_[0-9A-Z]{26}", "<id>", text)
        # The planner's order of several citations on one line follows set iteration (the hash seed); the
        # citations themselves are what must match.
        return re.sub(r"\((\[source\]\([^)]*\)(?:, \[source\]\([^)]*\))+)\)$",
                      lambda m: "(" + ", ".join(sorted(m.group(1).split(", "))) + ")", text, flags=re.M)

    pages = {}
    for path in git(root, "ls-files", "-z", "wiki").split("\0"):
        if path:
            text = (root / path).read_text()
            body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
            pages[path] = norm(body).split("\n")
    found = _ok(root, "contradictions")["contradictions"]
    cons = sorted(
        json.dumps({"subject": c["subject"], "status": c["status"], "page": c["page"],
                    "claims": [(cl["date"], cl["text"], names[Path(cl["path"]).stem]) for cl in c["claims"]]})
        for c in found
    )
    return pages, cons


@pytest.fixture
def corpus_wiki(wiki: Path) -> Path:
    _ok(wiki, "capture", str(CORPUS), "--exclude", "README.md", "--exclude", "_restricted/*")
    con = next(c["id"] for c in _ok(wiki, "contradictions")["contradictions"] if "revenue" in c["subject"])
    _ok(wiki, "capture", "--text", "The board confirmed the final Q2 2026 figures; the draft was superseded.",
        "--resolves", con, "--rationale", "the final report supersedes the draft")
    return wiki


def test_round_trip_gives_the_same_wiki_and_a_second_import_files_nothing(corpus_wiki: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    report = _ok(corpus_wiki, "export", str(bundle))
    assert report["captures"] == 37 and report["layers"] == ["public"]
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert [e["seq"] for e in manifest["captures"]] == list(range(1, 38))
    assert manifest["captures"][-1]["resolution"]["contradiction"]["subject"].startswith("the reported revenue")
    assert {"title", "occurred_at", "submitted_by", "layer", "project", "locator"} <= set(manifest["captures"][0])

    from stigmergy.repo.init import init_repository

    target = tmp_path / "target"
    init_repository(target)
    result = _ok(target, "import", str(bundle))
    assert result["counts"] == {"filed": 37} and result["notes"] == []
    assert _normalised(target) == _normalised(corpus_wiki)
    assert any(c["status"] == "resolved" for c in _ok(target, "contradictions")["contradictions"])
    assert run_cli(["lint"], cwd=target)[0] == 0
    head = git(target, "rev-parse", "HEAD")
    again = _ok(target, "import", str(bundle))
    assert again["counts"] == {"exists": 37}
    assert git(target, "rev-parse", "HEAD") == head
    # Imported sources say where they came from.
    assert "origin: import" in next((target / "sources").rglob("*.md")).read_text()


def test_restricted_layers_leave_only_with_a_reader(wiki: Path, tmp_path: Path) -> None:
    toml = wiki / "stigmergy.toml"
    toml.write_text(toml.read_text() + f'\n[layers.board]\nreaders = ["{BOSS}"]\n')
    git(wiki, "commit", "-qam", "board layer")
    _ok(wiki, "capture", "--text", "Harbor API ships in June.")
    _ok(wiki, "capture", "--text", "The board approved the secret ZQ acquisition.", "--layer", "board", "--as", BOSS)
    out = tmp_path / "mine"
    assert _ok(wiki, "export", str(out))["skipped_layers"] == ["board"]
    assert "ZQ acquisition" not in "".join(p.read_text() for p in (out / "captures").iterdir())
    boss = _ok(wiki, "export", str(tmp_path / "boss"), "--as", BOSS)
    assert boss["captures"] == 2 and boss["layers"] == ["board", "public"]
    # Naming a layer does not make its reader: refused, nothing written.
    code, out_text, err = run_cli(["export", str(tmp_path / "named"), "--layer", "board"], cwd=wiki)
    assert code == 2 and "board" in err and "ZQ" not in out_text + err and not (tmp_path / "named").exists()
    code, _, err = run_cli(["export", str(tmp_path / "named"), "--layer", "public", "--layer", "board"], cwd=wiki)
    assert code == 2 and not (tmp_path / "named").exists()
    named = _ok(wiki, "export", str(tmp_path / "named"), "--layer", "board", "--as", BOSS)
    assert named["captures"] == 1 and named["layers"] == ["board"]
    assert run_cli(["export", str(tmp_path / "x"), "--layer", "nope"], cwd=wiki)[0] == 2

    from stigmergy.repo.init import init_repository

    target = tmp_path / "target"
    init_repository(target)
    code, _, err = run_cli(["import", str(tmp_path / "boss")], cwd=target)
    assert code == 2 and "board" in err and "readers" in err
    assert git(target, "log", "--format=%s").count("\n") == 1  # only init's commit
    (target / "stigmergy.toml").write_text((target / "stigmergy.toml").read_text() + f'\n[layers.board]\nreaders = ["{BOSS}"]\n')
    git(target, "commit", "-qam", "board layer")
    # Importing writes into the board: only a reader of it may (issue 18), as only a reader may capture there.
    code, _, err = run_cli(["import", str(tmp_path / "boss")], cwd=target)
    assert code == 2 and "not a reader of layer board" in err
    assert git(target, "log", "--format=%s").count("\n") == 2  # init's and the layer's commits only
    counts = _ok(target, "--as", BOSS, "import", str(tmp_path / "boss"))["counts"]
    assert sum(counts.values()) == 2 and not {"failed", "refused"} & set(counts)
    assert list((target / "layers" / "board" / "sources").rglob("*.md"))


def _bundle(wiki: Path, tmp_path: Path) -> Path:
    _ok(wiki, "capture", "--text", "Harbor API ships in June.")
    _ok(wiki, "capture", "--text", "Tidemark 4.0 ships in September.")
    out = tmp_path / "bundle"
    _ok(wiki, "export", str(out))
    return out


@pytest.mark.parametrize("damage", ["tamper", "no-sums", "traversal", "version", "reorder", "types", "date"])
def test_a_damaged_or_hostile_bundle_imports_nothing(wiki: Path, tmp_path: Path, damage: str) -> None:
    bundle = _bundle(wiki, tmp_path)
    sums = bundle / "SHA256SUMS"
    if damage == "tamper":
        victim = next((bundle / "captures").iterdir())
        victim.chmod(0o644)
        victim.write_text("Harbor API ships in July.")
    elif damage == "no-sums":
        sums.unlink()
    elif damage == "traversal":
        sums.write_text(sums.read_text() + f"{'0' * 64}  ../../etc/passwd\n")
    elif damage in ("version", "types", "date"):
        import hashlib

        manifest = json.loads((bundle / "manifest.json").read_text())
        if damage == "version":
            manifest["version"] = 99
        elif damage == "types":
            manifest["captures"][0]["title"] = ["not", "a", "title"]
        else:  # the second capture is bad: the first must not be filed either
            manifest["captures"][1]["occurred_at"] = "next tuesday"
        raw = json.dumps(manifest).encode()
        (bundle / "manifest.json").write_bytes(raw)
        lines = [ln for ln in sums.read_text().splitlines() if not ln.endswith("manifest.json")]
        sums.write_text("\n".join([*lines, f"{hashlib.sha256(raw).hexdigest()}  manifest.json"]) + "\n")
    elif damage == "reorder":
        text = (bundle / "manifest.json").read_text().replace('"seq": 1,', '"seq": 7,')
        (bundle / "manifest.json").write_text(text)
    from stigmergy.repo.init import init_repository

    target = tmp_path / "target"
    init_repository(target)
    head = git(target, "rev-parse", "HEAD")
    code, _, err = run_cli(["import", str(bundle)], cwd=target)
    assert code == 1 and err.startswith("error: ") and "Traceback" not in err
    assert git(target, "rev-parse", "HEAD") == head
    assert not (target / "sources").exists() or not list((target / "sources").rglob("*.md"))


def test_export_into_a_used_folder_and_import_with_pending_work_are_refused(wiki: Path, tmp_path: Path) -> None:
    bundle = _bundle(wiki, tmp_path)
    code, _, err = run_cli(["export", str(bundle)], cwd=wiki)
    assert code == 2 and "new or empty" in err
    from stigmergy.repo.init import init_repository
    from stigmergy.repo.operations import Repository
    from stigmergy.settings import load_settings

    target = tmp_path / "target"
    init_repository(target)
    Repository(target, load_settings(target)).state.enqueue(
        "cap_01M8QF0PK35W8AF8HK9GA1RN99", "op_01M8QF0PK35W8AF8HK9GA1RN99", "2026-01-01T00:00:00Z", {}
    )
    code, _, err = run_cli(["import", str(bundle)], cwd=target)
    assert code == 3 and "pending" in err
    shutil.rmtree(bundle / "captures")
    assert run_cli(["import", str(bundle)], cwd=wiki)[0] == 1


def _index(root: Path) -> None:
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index
    from stigmergy.settings import load_settings

    build_index(root, load_settings(root), embedder=HashEmbedder())


def test_feedback_travels_with_the_bundle_and_rebuilds_the_same_confidence(wiki: Path, tmp_path: Path) -> None:
    """Feedback is evidence (docs/trust.md): export carries every record, an import points it at the pages
    the replay filed (a wiki page by its path, a source by its capture) and commits it; a second import adds
    none; a bundle whose feedback was altered or forged imports nothing."""
    _ok(wiki, "capture", "--text", "Harbor API ships in June 2026.", "--title", "Harbor date")
    _ok(wiki, "capture", "--text", "Tidemark 4.0 ships in September 2026.", "--title", "Tidemark date")
    _index(wiki)
    pages = [p["path"] for p in _ok(wiki, "list")["pages"]]
    note = next(p for p in pages if p.startswith("wiki/notes/"))
    source = next(p for p in pages if p.startswith("sources/"))
    for args in (["--wrong", "--note", "it slipped to July"], ["--wrong"], ["--useful"]):
        _ok(wiki, "feedback", note, *args)
    _ok(wiki, "feedback", source, "--outdated")
    _ok(wiki, "maintain", "--no-index")  # commits the open batch
    # An open (uncommitted) record travels too; this one judged the passage for one search (query-scoped).
    _ok(wiki, "feedback", f"{note}#1", "--wrong", "--query", "when does Harbor API ship")
    before = {p["path"]: p["trust"] for p in _ok(wiki, "list")["pages"]}
    bundle = tmp_path / "bundle"
    assert _ok(wiki, "export", str(bundle))["feedback"] == 5
    lines = (bundle / "feedback.jsonl").read_text().splitlines()
    assert len(lines) == 5 and "feedback.jsonl" in (bundle / "SHA256SUMS").read_text()
    assert sum('"query":"when does Harbor API ship"' in line for line in lines) == 1

    from stigmergy.repo.init import init_repository

    target = tmp_path / "target"
    init_repository(target)
    result = _ok(target, "import", str(bundle))
    assert result["feedback"] == {"imported": 5, "already-here": 0, "no-page": 0}, result
    assert git(target, "status", "--porcelain", "feedback").strip() == ""  # committed
    assert git(target, "log", "-1", "--format=%s").startswith("feedback:")
    _index(target)
    after = {p["path"]: p["trust"] for p in _ok(target, "list")["pages"]}
    for path in (note, source):
        for key in ("feedback", "alpha", "beta", "tier", "confidence"):
            assert after[path][key] == before[path][key], (path, key)
    assert after[note]["feedback"] == 4 and after[source]["feedback"] == 1
    read = _ok(target, "read", note)["pages"][0]["trust"]
    assert read["notes"][0]["note"] == "it slipped to July"
    head = git(target, "rev-parse", "HEAD")
    assert _ok(target, "import", str(bundle))["feedback"] == {"imported": 0, "already-here": 5, "no-page": 0}
    assert git(target, "rev-parse", "HEAD") == head
    # Altered feedback (the checksum catches it) or a forged record with a matching checksum: nothing imported.
    import hashlib

    for i, forged in enumerate((lines[0].replace('"wrong"', '"useful"'), lines[0].replace('{"at"', '{"at" '))):
        bad = tmp_path / f"bad{i}"
        shutil.copytree(bundle, bad)
        text = "\n".join([forged, *lines[1:]]) + "\n"
        (bad / "feedback.jsonl").chmod(0o644)
        (bad / "feedback.jsonl").write_text(text)
        code, _, err = run_cli(["import", str(bad)], cwd=target)
        assert code != 0 and "feedback.jsonl" in err, err
        sums = (bad / "SHA256SUMS").read_text().splitlines()
        digest = hashlib.sha256(text.encode()).hexdigest()
        (bad / "SHA256SUMS").chmod(0o644)
        (bad / "SHA256SUMS").write_text("\n".join(f"{digest}  feedback.jsonl" if s.endswith("feedback.jsonl") else s
                                                  for s in sums) + "\n")
        code, _, err = run_cli(["import", str(bad)], cwd=target)
        if '"at" ' in forged:  # not canonical: refused
            assert code != 0 and "feedback.jsonl" in err and "canonical" in err, err
    assert git(target, "rev-parse", "HEAD") == head
