"""`stigmergy maintain` for cron, and lint after garden on a generated corpus shaped unlike sample_corpus."""

from __future__ import annotations

import json
import random
from pathlib import Path

from conftest import git, run_cli

from stigmergy.repo.layout import Layout
from stigmergy.repo.lock import WriterLock

PEOPLE = ["Oliver Brandt", "Zoë Núñez", "Maya Okafor", "Chen Wei", "Ana María López", "Priya Raman", "Tomás Ortega"]
ORGS = ["Helix Labs", "Northwind GmbH", "Blue Finch Ltd"]
TOPICS = ["pricing", "latency", "hiring", "migration", "churn"]


def generated_corpus(folder: Path, n: int = 12, seed: int = 3) -> Path:
    """Plain-text e-mails, stand-up notes with attendee lists, HTML account reviews and short memos."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        p = rng.sample(PEOPLE, 3)
        org, topic, day = rng.choice(ORGS), rng.choice(TOPICS), f"2025-{1 + i % 12:02d}-{1 + i % 27:02d}"
        kind = i % 4
        if kind == 0:
            text = (f"From: {p[0]}\nTo: {p[1]}\nSubject: {topic} follow-up\nDate: {day}\n\nHi,\n\n{org} told us the "
                    f"number is {rng.randint(10, 99)} percent. {p[2]} says it is closer to {rng.randint(10, 99)} percent.\n")
            (folder / f"mail-{i:03d}.txt").write_text(text, encoding="utf-8")
        elif kind == 1:
            text = (f"# Standup {day}\n\nAttendees: {', '.join(p)}\n\n* {p[0]} shipped the {topic} fix.\n"
                    f"* {p[1]} (also known as {p[1].split()[0][:3]}) is blocked on {org}.\n")
            (folder / f"{day}-standup.md").write_text(text, encoding="utf-8")
        elif kind == 2:
            text = (f"<html><head><title>{org} review {i}</title></head><body><h1>{org} review {i}</h1>"
                    f"<p>{org} renewed for {rng.randint(2, 5)} years at ${rng.randint(100, 900)}k per year.</p>"
                    f"<p>Contact: {p[0]}. Escalation: {p[1]}.</p></body></html>")
            (folder / f"review-{i}.html").write_text(text, encoding="utf-8")
        else:
            text = f"{p[0]} wrote a memo about {topic}.\n\n{p[2]} leads the {topic} effort with {rng.randint(3, 12)} engineers.\n"
            (folder / f"memo {i}.txt").write_text(text, encoding="utf-8")
    return folder


def test_after_garden_lint_passes_on_a_generated_corpus(wiki: Path, tmp_path: Path):
    corpus = generated_corpus(tmp_path / "corpus")
    code, out, err = run_cli(["capture", str(corpus)], cwd=wiki)
    assert code == 0, out + err
    code, out, err = run_cli(["garden"], cwd=wiki)
    assert code == 0, out + err
    code, out, _ = run_cli(["--json", "lint"], cwd=wiki)
    assert json.loads(out)["ok"], out


def test_maintain_runs_every_step_with_one_summary_line(wiki: Path, tmp_path: Path):
    corpus = generated_corpus(tmp_path / "corpus", n=4)
    assert run_cli(["capture", "--no-file", str(corpus)], cwd=wiki)[0] == 0
    code, out, err = run_cli(["maintain", "--no-index"], cwd=wiki)
    assert code == 0, out + err
    assert out.count("\n") == 1 and out.startswith("maintain: resume ok; file ok (4 filed); garden ok")
    assert "git ok" in out
    code, out, _ = run_cli(["--json", "maintain", "--no-index"], cwd=wiki)
    data = json.loads(out)
    assert code == 0 and [s["step"] for s in data["steps"]] == ["resume", "file", "garden", "trust", "git"]
    assert (wiki / "wiki/index.md").is_file()


def test_maintain_exits_0_at_once_when_another_run_holds_the_lock(wiki: Path):
    head = git(wiki, "rev-parse", "HEAD")
    lock = WriterLock(Layout(wiki).lock_file, 0)
    lock.acquire()
    try:
        code, out, err = run_cli(["maintain"], cwd=wiki)
    finally:
        lock.release()
    assert code == 0 and "skipped" in out and "holds the lock" in out
    assert git(wiki, "rev-parse", "HEAD") == head


def test_status_says_when_a_recompile_would_change_the_wiki(wiki: Path, tmp_path: Path):
    corpus = generated_corpus(tmp_path / "corpus", n=2)
    assert run_cli(["capture", str(corpus)], cwd=wiki)[0] == 0
    code, out, _ = run_cli(["--json", "status"], cwd=wiki)
    planner = json.loads(out)["planner"]
    assert planner["recompile_would_change"] is False and planner["wrote_wiki"] == [planner["current"]]
    from stigmergy.repo.state import StateDB

    state = StateDB(Layout(wiki).state_db)
    state.set_meta("wiki_planner", json.dumps({"version": "deterministic/000000000000", "commit": "0" * 40}))
    state.close()
    code, out, _ = run_cli(["status"], cwd=wiki)
    assert "recompile` would change the wiki" in out
