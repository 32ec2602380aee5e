"""The reader rule on the commands that write, delete, audit or count: a non-reader of a layer neither
writes into it, nor learns from an error whether a path of it exists, nor counts its pending work."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_cli
from test_security import CEO, PUBLIC_READER, _one_line_error, _tree_bytes, _with_board


def _board_capture_unfiled(wiki: Path) -> str:
    code, out, err = run_cli(["--as", CEO, "--json", "capture", "--no-file", "--layer", "board", "--text",
                              "Board note: the Orbis offer stands at 72 million pounds."], cwd=wiki)
    assert code == 0, out + err
    return json.loads(out)["captures"][0]["capture_id"]


def test_a_non_reader_cannot_file_a_restricted_capture(wiki: Path) -> None:
    _with_board(wiki)
    cap = _board_capture_unfiled(wiki)
    before, head = _tree_bytes(wiki), git(wiki, "rev-parse", "HEAD")
    code, out, err = run_cli(["--as", PUBLIC_READER, "file", cap], cwd=wiki)
    assert code == 2, out + err
    line = _one_line_error(err)
    assert "not a reader" in line and "board" in line
    # The state database's bytes move when it is merely opened; the wiki's files are what must not.
    assert git(wiki, "rev-parse", "HEAD") == head and git(wiki, "status", "--porcelain") == ""
    assert {k: v for k, v in _tree_bytes(wiki).items() if not k.startswith(".stigmergy/")} == \
        {k: v for k, v in before.items() if not k.startswith(".stigmergy/")}
    # `file` with no ids files what its reader may read and leaves the board's capture for the board.
    code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "file"], cwd=wiki)
    assert code == 0, out + err
    assert json.loads(out)["captures"] == []
    assert git(wiki, "rev-parse", "HEAD") == head
    code, out, err = run_cli(["--as", CEO, "--json", "file", cap], cwd=wiki)
    assert code == 0, out + err
    assert json.loads(out)["captures"][0]["status"] in ("filed", "unchanged")


def test_delete_merge_rename_do_not_tell_a_non_reader_whether_a_restricted_path_exists(wiki: Path) -> None:
    _with_board(wiki)
    code, out, err = run_cli(["--as", CEO, "capture", "--layer", "board", "--text",
                              "Board note: Maya Okafor proposed a budget of $2M on 2 September 2026."], cwd=wiki)
    assert code == 0, out + err
    real = next((wiki / "layers/board/wiki/notes").glob("*.md")).relative_to(wiki).as_posix()
    fake = "layers/board/wiki/notes/No Such Page At All.md"
    public = "wiki/notes/Public.md"
    before, head = _tree_bytes(wiki), git(wiki, "rev-parse", "HEAD")
    for verb in (["delete", "{}", "--rationale", "probe"], ["merge", "{}", "into", public],
                 ["merge", public, "into", "{}"], ["rename", "{}", "Other title"]):
        answers = []
        for target in (real, fake):
            args = [a.replace("{}", target) for a in verb]
            code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
            answers.append((code, out.replace(target, "T"), _one_line_error(err).replace(target, "T")))
        assert answers[0] == answers[1], (verb, answers)
        assert answers[0][0] != 0
    # A capture id or a title of the board's is no more telling than a name that matches nothing.
    cap = next((wiki / "layers/board/sources").rglob("cap_*.md")).stem
    title = Path(real).stem
    for probe, miss in ((title, "Zzz no such title"), (cap, "cap_00000000000000")):
        a = run_cli(["--as", PUBLIC_READER, "delete", probe, "--rationale", "x"], cwd=wiki)
        b = run_cli(["--as", PUBLIC_READER, "delete", miss, "--rationale", "x"], cwd=wiki)
        assert (a[0], a[2].replace(probe, "T")) == (b[0], b[2].replace(miss, "T")), (probe, a, b)
    # The state database's bytes move when it is merely opened; the wiki's files are what must not.
    assert git(wiki, "rev-parse", "HEAD") == head and git(wiki, "status", "--porcelain") == ""
    assert {k: v for k, v in _tree_bytes(wiki).items() if not k.startswith(".stigmergy/")} == \
        {k: v for k, v in before.items() if not k.startswith(".stigmergy/")}


def test_erase_audit_needs_a_reader_of_every_layer(wiki: Path) -> None:
    _with_board(wiki)
    code, out, err = run_cli(["--as", CEO, "capture", "--layer", "board", "--text",
                              "Board note: the Orbis offer is CANARY-AUDIT-5521."], cwd=wiki)
    assert code == 0, out + err
    for args in (["erase", "--audit", "CANARY-AUDIT-5521"], ["--json", "erase", "--audit", "CANARY-AUDIT-5521"],
                 ["erase", "--audit", "no such text anywhere"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 2, (args, out, err)
        line = _one_line_error(err)
        assert "--audit" in line and "board" in line and "not a reader" in line
        assert "layers/board" not in out + err and "FOUND" not in out
    code, out, err = run_cli(["--as", CEO, "erase", "--audit", "CANARY-AUDIT-5521"], cwd=wiki)
    assert code == 4 and "FOUND" in out and "layers/board" in out, out + err


def test_status_counts_only_what_the_reader_can_read(wiki: Path) -> None:
    code, out, _ = run_cli(["--json", "status"], cwd=wiki)
    empty = json.loads(out)["counts"]
    _with_board(wiki)
    _board_capture_unfiled(wiki)
    for text in ("Board note one: CANARY-ST-1.", "Board note two: CANARY-ST-2."):
        assert run_cli(["--as", CEO, "capture", "--layer", "board", "--text", text], cwd=wiki)[0] == 0
    code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "status"], cwd=wiki)
    assert code == 0, out + err
    data = json.loads(out)
    c = data["counts"]
    assert (c["captures"], c["unfiled"], c["operations"], c["refused"], c["pending"]) == \
        (empty["captures"], empty["unfiled"], empty["operations"], empty["refused"], empty["pending"])
    assert c["in_layers_you_cannot_read"] > 0 and data["pending"] == []
    code, out, _ = run_cli(["--as", PUBLIC_READER, "status"], cwd=wiki)
    assert f"{c['in_layers_you_cannot_read']} in layers you cannot read" in out and "board" not in out
    code, out, _ = run_cli(["--as", CEO, "--json", "status"], cwd=wiki)
    mine = json.loads(out)["counts"]
    assert mine["captures"] == empty["captures"] + 3 and mine["unfiled"] == empty["unfiled"] + 1
    assert mine["operations"] >= empty["operations"] + 3 and mine["in_layers_you_cannot_read"] == 0


def test_erase_leaves_no_title_in_the_map_of_content(wiki: Path, tmp_path: Path) -> None:
    doc = tmp_path / "memo.md"
    doc.write_text("---\ntitle: Zanzibar Quokka memo\ndate: 2026-05-02\n---\n# Zanzibar Quokka memo\n\n"
                   "Harbor Logistics moved 4,000 shipments through the Harbor API in April 2026.\n", encoding="utf-8")
    keep = tmp_path / "keep.md"
    keep.write_text("---\ntitle: Partner update\ndate: 2026-05-03\n---\n# Partner update\n\n"
                    "Borealis signed a carrier contract in May 2026.\n", encoding="utf-8")
    code, out, err = run_cli(["--json", "capture", str(doc)], cwd=wiki)
    assert code == 0, out + err
    cap = json.loads(out)["captures"][0]["capture_id"]
    assert run_cli(["capture", str(keep)], cwd=wiki)[0] == 0
    assert run_cli(["garden"], cwd=wiki)[0] == 0
    assert "Zanzibar Quokka" in (wiki / "wiki/index.md").read_text(encoding="utf-8")
    code, out, err = run_cli(["erase", cap, "--yes", "--rationale", "asked to forget"], cwd=wiki)
    assert code == 0, out + err
    assert "Zanzibar Quokka" not in (wiki / "wiki/index.md").read_text(encoding="utf-8")
    assert "Partner update" in (wiki / "wiki/index.md").read_text(encoding="utf-8")
    code, out, err = run_cli(["erase", "--audit", "Zanzibar Quokka"], cwd=wiki)
    assert code == 0, out + err
    assert run_cli(["lint"], cwd=wiki)[0] == 0


def test_a_restricted_delete_or_rename_commit_names_no_restricted_path(wiki: Path) -> None:
    """Anyone with a clone reads commit messages: a maintenance commit in a restricted layer carries no path
    of it in its trailers either (the history audit infers targets and moves from the diff instead)."""
    _with_board(wiki)
    code, out, err = run_cli(["--as", CEO, "capture", "--layer", "board", "--text",
                              "Board note: Maya Okafor proposed the Heronsgate budget of $2M on 2 September 2026."],
                             cwd=wiki)
    assert code == 0, out + err
    page = next((wiki / "layers/board/wiki/notes").glob("*.md")).relative_to(wiki).as_posix()
    code, out, err = run_cli(["--as", CEO, "rename", page, "Heronsgate secret plan"], cwd=wiki)
    assert code == 0, out + err
    renamed = git(wiki, "log", "-1", "--format=%B")
    assert "Stigmergy-Kind: rename" in renamed
    assert "Heronsgate" not in renamed and "layers/board" not in renamed, renamed
    moved = next((wiki / "layers/board/wiki/notes").glob("Heronsgate*.md")).relative_to(wiki).as_posix()
    code, out, err = run_cli(["--as", CEO, "delete", moved, "--rationale", "not needed"], cwd=wiki)
    assert code == 0, out + err
    deleted = git(wiki, "log", "-1", "--format=%B")
    assert "Stigmergy-Kind: delete" in deleted
    assert "Heronsgate" not in deleted and "layers/board" not in deleted, deleted
    # The audit still judges both commits without the path trailers: lint stays clean.
    code, out, err = run_cli(["--as", CEO, "lint"], cwd=wiki)
    assert code == 0, out + err
