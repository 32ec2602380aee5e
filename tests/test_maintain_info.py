"""An info finding (a person's uncited line) is shown, never failed on: lint exits 0 for it, and so must
`maintain` and `garden --check`, or a nightly cron goes red forever over a legitimate human line."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_cli


def test_a_human_uncited_line_does_not_fail_maintain_or_garden_check(wiki: Path) -> None:
    code, out, err = run_cli(["capture", "--text", "Harbor Logistics moved 4,000 shipments in April 2026."], cwd=wiki)
    assert code == 0, out + err
    assert run_cli(["garden"], cwd=wiki)[0] == 0
    page = next(p for p in (wiki / "wiki").rglob("*.md") if p.name != "index.md")
    page.write_text(page.read_text(encoding="utf-8") + "\nHarbor Logistics also runs a depot in Leeds.\n",
                    encoding="utf-8")
    git(wiki, "commit", "-qam", "a person's edit")
    assert run_cli(["lint", "--accept-history"], cwd=wiki)[0] in (0, 4)
    code, out, _ = run_cli(["--json", "lint"], cwd=wiki)
    findings = json.loads(out)["findings"]
    assert code == 0 and findings and all(f["severity"] == "info" for f in findings), out
    code, out, err = run_cli(["maintain", "--no-index"], cwd=wiki)
    assert code == 0 and "need a person" not in out, out + err
    code, out, err = run_cli(["garden", "--check"], cwd=wiki)
    assert code == 0, out + err
    code, out, err = run_cli(["maintain", "--no-index"], cwd=wiki)
    assert code == 0, out + err
