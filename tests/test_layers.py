"""A restricted layer next to the public wiki: names cross layers, content never does."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import run_cli

PUBLIC = """---
title: Partner update
date: 2026-05-02
---
# Partner update

Orbis Freight, also known as Orbis, is our largest carrier partner on Harbor API.
Orbis Freight moved 4,000 shipments through Harbor API in April.
"""

BOARD = """---
title: Board minutes
date: 2026-09-17
---
# Board minutes

Maya Okafor reported that [[Orbis]] approached her about an acquisition on 2 September. CANARY-LAYER-5521.
The board noted that Orbis offered an enterprise value of £72M, and that Orbis wants an answer by October.
"""


# The board's figure, "£72M" (in JSON "\u00a372M"): a bare "72M" is also in one random capture or page id of
# a few hundred, and made this test fail at random.
_FIGURE = re.compile(r"(?:£|\\u00a3)\s?72M")


def test_restricted_capture_shadows_public_entities_and_leaks_nothing(wiki: Path, tmp_path: Path) -> None:
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["ceo@example.com"]\n')
    (tmp_path / "public.md").write_text(PUBLIC)
    (tmp_path / "board.md").write_text(BOARD)
    code, out, err = run_cli(["capture", str(tmp_path / "public.md")], cwd=wiki)
    assert code == 0, out + err
    assert (wiki / "wiki/entities/Orbis Freight.md").is_file()
    code, out, err = run_cli(["capture", str(tmp_path / "board.md"), "--layer", "board", "--as", "ceo@example.com"], cwd=wiki)
    assert code == 0, out + err
    board_entities = sorted(p.name for p in (wiki / "layers/board/wiki/entities").glob("*.md"))
    assert "Orbis Freight.md" in board_entities and "Orbis.md" not in board_entities
    # Nothing public cites, links to or copies the board capture.
    for page in (wiki / "wiki").rglob("*.md"):
        text = page.read_text()
        assert "CANARY-LAYER-5521" not in text and "layers/board" not in text and not _FIGURE.search(text)
    code, out, _ = run_cli(["--json", "lint"], cwd=wiki)
    assert code == 0, out


def test_the_index_of_either_backend_keeps_the_board_from_a_public_reader(
        wiki: Path, tmp_path: Path, index_env: dict[str, str]) -> None:
    """The same capture as above, indexed in SQLite and in PostgreSQL (index_env): every arm scopes by the
    reader inside its query, so the canary, the board's figure and its entity page reach only the board."""
    import json

    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index
    from stigmergy.settings import load_settings

    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["ceo@example.com"]\n')
    (tmp_path / "public.md").write_text(PUBLIC)
    (tmp_path / "board.md").write_text(BOARD)
    assert run_cli(["capture", str(tmp_path / "public.md")], cwd=wiki, env=index_env)[0] == 0
    assert run_cli(["capture", str(tmp_path / "board.md"), "--layer", "board", "--as", "ceo@example.com"],
                   cwd=wiki, env=index_env)[0] == 0
    build_index(wiki, load_settings(wiki, index_env), embedder=HashEmbedder())
    for query in ("CANARY-LAYER-5521", "Orbis acquisition approach £72M", "Orbis"):
        code, out, err = run_cli(["--json", "search", query, "--as", "public@example.com", "--explain"], cwd=wiki,
                                 env=index_env)
        assert code == 0, err
        hits = json.dumps(json.loads(out)["hits"])  # the answer without the query it echoes
        assert "CANARY-LAYER-5521" not in hits and not _FIGURE.search(hits) and "layers/board" not in hits
        code, out, _ = run_cli(["--json", "search", query, "--as", "ceo@example.com"], cwd=wiki, env=index_env)
        assert code == 0 and json.loads(out)["hits"]
    code, out, _ = run_cli(["--json", "search", "CANARY-LAYER-5521", "--as", "ceo@example.com"], cwd=wiki, env=index_env)
    assert any(h["layer"] == "board" for h in json.loads(out)["hits"])
    board_page = next((wiki / "layers/board/wiki/entities").glob("*.md")).relative_to(wiki).as_posix()
    code, out, err = run_cli(["read", board_page, "--as", "public@example.com"], cwd=wiki, env=index_env)
    assert code != 0 and not _FIGURE.search(out + err) and "CANARY" not in out + err
    code, out, _ = run_cli(["--json", "describe", "Orbis Freight", "--as", "public@example.com"], cwd=wiki, env=index_env)
    assert "layers/board" not in out and not _FIGURE.search(out)
