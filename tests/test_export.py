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
