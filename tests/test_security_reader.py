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
    assert git(wiki, "rev-parse", "HEAD") == head and _tree_bytes(wiki) == before
    # `file` with no ids files what its reader may read and leaves the board's capture for the board.
    code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "file"], cwd=wiki)
    assert code == 0, out + err
    assert json.loads(out)["captures"] == []
    assert git(wiki, "rev-parse", "HEAD") == head
    code, out, err = run_cli(["--as", CEO, "--json", "file", cap], cwd=wiki)
    assert code == 0, out + err
    assert json.loads(out)["captures"][0]["status"] in ("filed", "unchanged")
