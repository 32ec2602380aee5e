"""What still reached a non-reader (issue 18): `show` of an operation that touched public and board files,
and the oracles: lint and garden answering differently for a real board title and a made-up one, garden
learning an alias unless a board-only name matched it, erase telling a real board capture id from a
made-up one, and erase naming the board capture that holds the same bytes. A non-reader's answer must be
the same whether or not the restricted thing exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import git, run_cli
from test_security import CANARY, CEO, PUBLIC_READER, _capture_both, _with_board

SECRETS = (CANARY, "Okafor", "Lanternfish", "Orbis", "Board minutes", "layers/board/")


# ---------------------------------------------------------------- show


def test_show_withholds_an_operation_that_touched_public_and_board_files(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    code, out, err = run_cli(["--as", CEO, "--json", "garden"], cwd=wiki)
    assert code == 0, out + err
    op = json.loads(out)["operation"]
    paths = {p["path"] for p in json.loads(out)["paths"]}
    assert "wiki/index.md" in paths and "layers/board/wiki/index.md" in paths  # both maps of content
    for args in (["show", op], ["--json", "show", op], ["log"], ["--json", "log"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 0, out + err
        for secret in SECRETS:
            assert secret not in out, (args, secret)
    shown = json.loads(run_cli(["--as", PUBLIC_READER, "--json", "show", op], cwd=wiki)[1])
    assert shown["withheld"] and shown["patch"] == "" and "board" in shown["manifest"]["layers"]
    code, out, _ = run_cli(["--as", CEO, "show", op], cwd=wiki)
    assert "layers/board/wiki/index.md" in out and "Lanternfish" in out


# ---------------------------------------------------------------- lint and garden


def _public_note(wiki: Path, body: str) -> tuple[Path, str]:
    """A person's line appended to the public note filed from the public capture: (the note, its text before)."""
    note = next((wiki / "wiki/notes").glob("Partner*.md"))
    before = note.read_text(encoding="utf-8")
    note.write_text(before + body + "\n", encoding="utf-8")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "a person's line")
    return note, before


def _restore(wiki: Path, note: tuple[Path, str]) -> None:
    note[0].write_text(note[1], encoding="utf-8")
    git(wiki, "commit", "-qam", "take the line back")


def _twin(tmp_path: Path, name: str) -> Path:
    """Another wiki set up as the `wiki` fixture's is in these tests: board declared, both captures in."""
    from stigmergy.repo.init import init_repository

    root = tmp_path / name
    init_repository(root)
    _with_board(root)
    _capture_both(root, tmp_path)
    return root


def _answer(wiki: Path, target: str, body: str) -> tuple:
    """(lint --json findings of the note, its verdict and hidden counts, garden --dry-run --json repairs and
    findings left on it, garden's lint counts and hidden counts) after a person adds `body` (TARGET in it
    replaced by `target`) to a public note; `target` reads T in the answer, commit and capture ids H, C."""
    note = _public_note(wiki, body.replace("TARGET", target))
    rel = note[0].relative_to(wiki).as_posix()

    def plain(text: str) -> str:
        text = re.sub(r"\b[0-9a-f]{10}\b", "H", text.replace(target, "T"))
        return re.sub(r"cap_[0-9A-Z]{26}", "C", text)

    lint = json.loads(run_cli(["--as", PUBLIC_READER, "--json", "lint"], cwd=wiki)[1])
    found = sorted((f["rule"], f["line"], plain(f["message"])) for f in lint["findings"] if f["path"] == rel)
    code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "garden", "--dry-run"], cwd=wiki)
    assert code == 0, out + err
    report = json.loads(out)["report"]
    repairs = sorted(plain(json.dumps(r, sort_keys=True)) for r in report["done"] + report["left"] if r.get("path") == rel)
    return found, lint["ok"], lint["hidden"], repairs, report["lint_before"], report["hidden"]


def test_lint_and_garden_answer_the_same_for_a_real_board_title_and_a_made_up_one(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    real = sorted((wiki / "layers/board/wiki/entities").glob("*.md"))[0].stem
    body = "\nSee [[TARGET]] for more."
    real_answer, fake_answer = _answer(wiki, real, body), _answer(_twin(tmp_path, "b"), "Zzyzx Quarry Holdings", body)
    assert real_answer == fake_answer, (real_answer, fake_answer)
    assert any(rule == "dead-link" for rule, _, _ in real_answer[0])
    # The board's reader is told what it is: a link into the narrower layer.
    lint = json.loads(run_cli(["--as", CEO, "--json", "lint"], cwd=wiki)[1])
    assert any(f["rule"] == "layer-flow" and real in f["message"] for f in lint["findings"])
    # Garden repairs both the same way: the link becomes plain text, whoever runs it.
    code, out, err = run_cli(["--as", PUBLIC_READER, "garden"], cwd=wiki)
    assert code in (0, 4), out + err
    assert f"[[{real}]]" not in next((wiki / "wiki/notes").glob("Partner*.md")).read_text()


def test_lint_of_a_citation_or_a_copied_line_tells_nothing_of_the_board(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    board_src = next((wiki / "layers/board/sources").rglob("cap_*.md")).relative_to(wiki).as_posix()
    fake_src = board_src.rsplit("/", 1)[0] + "/cap_01ZZZZZZZZZZZZZZZZZZZZZZZZ.md"
    twin = _twin(tmp_path, "b")
    cite = "\n- The board met. ([source](../../TARGET#L7))"
    real_answer, fake_answer = _answer(wiki, board_src, cite), _answer(twin, fake_src, cite)
    assert real_answer == fake_answer, (real_answer, fake_answer)
    copied = "\n- The board noted that Orbis Freight offered an enterprise value of 72 million pounds for Lanternfish Labs."
    guess = "\n- The board noted that Zzyzx Freight offered an enterprise value of 99 million pounds for Quarry Labs."
    a, b = _answer(_twin(tmp_path, "c"), "X", copied), _answer(_twin(tmp_path, "d"), "X", guess)
    assert [f for f in a[0] if f[0] == "layer-flow"] == [] and (a[1], a[2]) == (b[1], b[2]), (a, b)


def test_garden_learns_a_public_alias_whether_or_not_a_board_name_matches_it(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    entity = next(p for p in (wiki / "wiki/entities").glob("*.md") if "Harbor" in p.stem)
    board_person = sorted((wiki / "layers/board/wiki/entities").glob("*.md"))[0].stem  # a board-only name
    learned = []
    for alias in (board_person, "Zzyzx Quarry"):
        note = _public_note(wiki, f"\nWe ship with [[{entity.stem}|{alias}]] every week.")
        code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "garden", "--dry-run"], cwd=wiki)
        assert code == 0, out + err
        report = json.loads(out)["report"]
        learned.append(sorted(a["alias"].replace(alias, "A") for a in report["aliases_learned"]))
        _restore(wiki, note)
    assert learned[0] == learned[1] == ["A"], learned


# ---------------------------------------------------------------- erase


def _board_capture(wiki: Path, text: str) -> str:
    code, out, err = run_cli(["--as", CEO, "--json", "capture", "--layer", "board", "--text", text], cwd=wiki)
    assert code == 0, out + err
    return json.loads(out)["captures"][0]["capture_id"]


def test_erase_answers_a_real_board_id_like_a_made_up_one(wiki: Path) -> None:
    _with_board(wiki)
    real = _board_capture(wiki, "Board note: the Orbis offer stands at 72 million pounds.")
    fake = "cap_01" + "Z" * 24
    head = git(wiki, "rev-parse", "HEAD")
    for args in (["erase", "{}", "--rationale", "x"], ["--json", "erase", "{}", "--rationale", "x"],
                 ["erase", "{}", "--rationale", "x", "--yes"]):
        answers = []
        for cid in (real, fake, real[:12]):
            code, out, err = run_cli(["--as", PUBLIC_READER, *[a.replace("{}", cid) for a in args]], cwd=wiki)
            answers.append((code, out.replace(cid, "C"), err.replace(cid, "C")))
        assert answers[0] == answers[1] == answers[2], (args, answers)
        assert answers[0][0] != 0
    assert git(wiki, "rev-parse", "HEAD") == head
    code, out, err = run_cli(["--as", CEO, "erase", real, "--rationale", "x"], cwd=wiki)  # (a dry run)
    assert code == 0 and real in out, out + err


def test_erase_of_public_bytes_a_board_capture_also_holds_names_nothing_of_it(wiki: Path) -> None:
    _with_board(wiki)
    text = "Harbor Logistics moved 4,000 shipments through the Harbor API in April 2026."
    board = _board_capture(wiki, text)

    def public_capture(wiki: Path) -> str:
        code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "capture", "--text", text], cwd=wiki)
        assert code == 0, out + err
        return json.loads(out)["captures"][0]["capture_id"]

    mine = public_capture(wiki)
    answers = {}
    for args in (["--json", "erase", mine, "--rationale", "asked to forget"],
                 ["erase", mine, "--rationale", "asked to forget", "--yes"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 0, out + err
        assert board not in out + err and "layers/board" not in out + err
        answers[args[1] if args[0] == "--json" else "run"] = json.loads(out) if args[0] == "--json" else out
    plan = answers["erase"]
    assert len(plan["evidence_objects"]) >= 2 and "kept" not in plan
    # The board's capture keeps its evidence: its reader still reads the original.
    code, out, err = run_cli(["--as", CEO, "--json", "read", next((wiki / "layers/board/sources").rglob("cap_*.md"))
                              .relative_to(wiki).as_posix(), "--evidence"], cwd=wiki)
    code, out, err = run_cli(["--as", CEO, "fsck"], cwd=wiki)
    assert code == 0, out + err
    # Beside a wiki with no board capture at all, the public reader's plan has the same shape.
    other = wiki.parent / "other"
    from stigmergy.repo.init import init_repository

    init_repository(other)
    _with_board(other)
    alone = public_capture(other)
    code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "erase", alone, "--rationale", "asked to forget"],
                             cwd=other)
    assert code == 0, out + err
    solo = json.loads(out)
    assert len(solo["evidence_objects"]) == len(plan["evidence_objects"]) and sorted(solo) == sorted(plan)


# ---------------------------------------------------------------- delete


def test_delete_of_a_public_capture_a_board_page_cites_names_no_board_page(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    src = next((wiki / "sources").rglob("cap_*.md"))
    board = sorted((wiki / "layers/board/wiki/entities").glob("*.md"))[0]
    line = "Harbor Logistics is our largest carrier partner on the Harbor API platform."
    n = src.read_text().split("\n").index(line) + 1
    rel = Path("../../../..") / src.relative_to(wiki)
    board.write_text(board.read_text() + f"\n- {line} ([source]({rel.as_posix()}#L{n}))\n")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "the board cites the partner update")
    head = git(wiki, "rev-parse", "HEAD")
    target = src.relative_to(wiki).as_posix()
    for args in (["delete", target, "--rationale", "x", "--dry-run"],
                 ["--json", "delete", target, "--rationale", "x", "--dry-run"],
                 ["--json", "delete", target, "--rationale", "x"], ["delete", target, "--rationale", "x"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 2, (args, out + err)
        for secret in (*SECRETS, board.stem):
            assert secret not in out + err, (args, secret)
    assert git(wiki, "rev-parse", "HEAD") == head
    # The board's reader (its maintainer) is told which page still cites it.
    code, out, err = run_cli(["--as", CEO, "delete", target, "--rationale", "x", "--dry-run"], cwd=wiki)
    assert board.stem in out + err, out + err
