"""Scope that changes under a running server, and writes that arrive in bundles (issue 18): an MCP server
re-reads readers when stigmergy.toml changes (a reader removed mid-session loses the layer at the next
call, through the SDK's own client); `import` by a non-reader of a layer the bundle holds is refused as
capture is; a manifest that lists one capture three times is refused, naming the repeat."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import anyio
from conftest import git, run_cli
from test_answer_support import BOARD, CANARY, build_wiki
from test_index_support import HashEmbedder
from test_security import CEO, PUBLIC_READER, _tree_bytes, _with_board

from stigmergy.mcp.server import build_server
from stigmergy.mcp.tools import Session
from stigmergy.service import Identity, WikiService


def test_a_reader_removed_mid_session_loses_the_layer_at_the_next_call(tmp_path: Path) -> None:
    from mcp import Client

    b = build_wiki(tmp_path / "w")
    session = Session(WikiService(b.root, b.settings, Identity(BOARD), {}, embedder=HashEmbedder()))
    query = {"query": f"{CANARY} Orbis acquire Aurora", "k": 10}
    board_page = "layers/board/wiki/notes/Board minutes.md"
    results: list = []

    async def main() -> None:
        async with Client(build_server(session)) as client:
            results.append(await client.call_tool("search", query))
            results.append(await client.call_tool("read", {"refs": [board_page]}))
            # Someone edits stigmergy.toml while the server runs: the board's reader list loses BOARD.
            toml = (b.root / "stigmergy.toml").read_text()
            (b.root / "stigmergy.toml").write_text(toml.replace(f'"{BOARD}"', '"someone-else@example.com"'))
            results.append(await client.call_tool("search", query))
            results.append(await client.call_tool("read", {"refs": [board_page]}))
            results.append(await client.call_tool("status", {}))
            # A file that no longer parses refuses the call; it does not keep serving by the old readers.
            (b.root / "stigmergy.toml").write_text(toml + "\n[layers.board\n")
            results.append(await client.call_tool("search", query))
            (b.root / "stigmergy.toml").write_text(toml)  # put back: the reader reads the board again
            results.append(await client.call_tool("search", query))

    try:
        anyio.run(main)
    finally:
        session.close()
    before, read_before, after, read_after, status, broken, restored = results
    assert any(h["path"].startswith("layers/board/") for h in before.structured_content["hits"])
    assert not read_before.is_error and CANARY in read_before.content[0].text
    assert not after.is_error and not any(h["path"].startswith("layers/board/") for h in after.structured_content["hits"])
    assert CANARY not in json.dumps(after.structured_content["hits"])  # (the query itself is echoed back)
    assert CANARY not in read_after.content[0].text and "layers/board/wiki" not in json.dumps(read_after.structured_content
                                                                                             .get("pages", []))
    assert CANARY not in status.content[0].text
    assert broken.is_error and "not valid TOML" in broken.content[0].text
    assert any(h["path"].startswith("layers/board/") for h in restored.structured_content["hits"])


# ---------------------------------------------------------------- import


def _export(wiki: Path, tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    code, out, err = run_cli(["--as", CEO, "export", str(bundle)], cwd=wiki)
    assert code == 0, out + err
    return bundle


def _fresh(tmp_path: Path, name: str) -> Path:
    from stigmergy.repo.init import init_repository

    root = tmp_path / name
    init_repository(root)
    _with_board(root)
    return root


def test_import_by_a_non_reader_of_a_layer_the_bundle_holds_is_refused(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    code, out, err = run_cli(["--as", CEO, "capture", "--layer", "board", "--text",
                              "Board note: the Orbis offer stands at 72 million pounds."], cwd=wiki)
    assert code == 0, out + err
    assert run_cli(["capture", "--text", "Harbor Logistics moved 4,000 shipments in April 2026."], cwd=wiki)[0] == 0
    bundle = _export(wiki, tmp_path)
    target = _fresh(tmp_path, "target")
    before, head = _tree_bytes(target), git(target, "rev-parse", "HEAD")
    code, out, err = run_cli(["--as", PUBLIC_READER, "import", str(bundle)], cwd=target)
    assert code == 2, out + err
    line = next(ln for ln in err.splitlines() if ln.startswith("error:"))
    assert "board" in line and "not a reader" in line
    assert git(target, "rev-parse", "HEAD") == head
    assert {k: v for k, v in _tree_bytes(target).items() if not k.startswith(".stigmergy/")} == \
        {k: v for k, v in before.items() if not k.startswith(".stigmergy/")}
    # The board's reader imports it whole.
    code, out, err = run_cli(["--as", CEO, "import", str(bundle)], cwd=target)
    assert code == 0, out + err
    assert list((target / "layers/board/sources").rglob("cap_*.md"))


def test_a_manifest_listing_one_capture_three_times_is_refused(wiki: Path, tmp_path: Path) -> None:
    assert run_cli(["capture", "--text", "Harbor Logistics moved 4,000 shipments in April 2026."], cwd=wiki)[0] == 0
    bundle = _export(wiki, tmp_path)
    manifest = json.loads((bundle / "manifest.json").read_text())
    first = manifest["captures"][0]
    manifest["captures"] = [first, {**first, "seq": 2}, {**first, "seq": 3}]
    raw = json.dumps(manifest).encode()
    (bundle / "manifest.json").write_bytes(raw)
    sums = [ln for ln in (bundle / "SHA256SUMS").read_text().splitlines() if not ln.endswith("  manifest.json")]
    sums.append(f"{hashlib.sha256(raw).hexdigest()}  manifest.json")
    (bundle / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    target = _fresh(tmp_path, "target")
    head = git(target, "rev-parse", "HEAD")
    code, out, err = run_cli(["import", str(bundle)], cwd=target)
    assert code != 0, out + err
    assert "capture 2" in err and "repeats capture 1" in err, err
    assert git(target, "rev-parse", "HEAD") == head
    assert not list((target / "sources").rglob("cap_*.md"))
