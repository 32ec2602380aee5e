"""`stigmergy contradictions` and `stigmergy overview` over a wiki the real pipeline compiled."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

DRAFT = """---
title: Borealis quarterly report Q2 2026 (draft)
date: 2026-07-08
---
# Borealis quarterly report Q2 2026 (draft)

## Figures

- Revenue — Q2 2026: $4.10M
- Customers — Q2 2026: 212
"""

FINAL = """---
title: Borealis quarterly report Q2 2026 (final)
date: 2026-07-21
---
# Borealis quarterly report Q2 2026 (final)

This final version corrects the draft.

## Figures

- Revenue — Q2 2026: $3.95M
- Customers — Q2 2026: 212
"""


def test_contradictions_and_overview(wiki: Path, tmp_path: Path) -> None:
    (tmp_path / "a-draft.md").write_text(DRAFT)
    (tmp_path / "b-final.md").write_text(FINAL)
    code, out, err = run_cli(["capture", str(tmp_path / "a-draft.md"), str(tmp_path / "b-final.md")], cwd=wiki)
    assert code == 0, out + err
    code, out, _ = run_cli(["--json", "contradictions"], cwd=wiki)
    assert code == 0
    found = json.loads(out)["contradictions"]
    assert len(found) == 1, found
    con = found[0]
    assert con["status"] == "open" and con["id"].startswith("con_")
    assert sorted(c["text"].split(": ")[-1] for c in con["claims"]) == ["$3.95M", "$4.10M"]
    assert (wiki / con["page"]).is_file()
    code, out, _ = run_cli(["--json", "contradictions", "--status", "resolved"], cwd=wiki)
    assert json.loads(out)["contradictions"] == []
    code, out, _ = run_cli(["--json", "overview"], cwd=wiki)
    data = json.loads(out)
    assert data["pages"]["note"] == 2 and data["contradictions"]["open"] == 1
    code, out, _ = run_cli(["overview"], cwd=wiki)
    assert code == 0 and "contradictions: 1 open" in out


def test_restricted_layer_is_invisible_to_overview(wiki: Path) -> None:
    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["ceo@example.com"]\n')
    code, out, err = run_cli(["capture", "--text", "Orbis Freight approached Lanternfish Labs about an acquisition. Orbis Freight offered terms.", "--layer", "board", "--title", "Board minutes", "--as", "ceo@example.com"], cwd=wiki)
    assert code == 0, out + err
    code, out, _ = run_cli(["--as", "someone@example.com", "--json", "overview"], cwd=wiki)
    assert json.loads(out)["pages"] == {"note": 0, "concept": 0, "entity": 0, "project": 0}
    code, out, _ = run_cli(["--as", "ceo@example.com", "--json", "overview"], cwd=wiki)
    assert json.loads(out)["pages"]["note"] == 1
