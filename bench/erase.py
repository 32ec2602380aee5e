"""Erase and audit in a 1,000-commit repository.

The repository: the 36 public sample documents, then generated 1 KB team updates (people, figures) filed
by the deterministic planner, one commit each, up to N commits; a canary document is captured halfway,
naming people every later update also names, so the entity pages carry its lines through every later
version. Timed, each on its own copy of that repository:

- erase: `stigmergy erase CAP --rationale … --yes` (plan, rewrite every ref with the reference sweep per
  page version, expire reflogs and prune, purge evidence and state, the erasure commit, the closing audit),
  beside the baseline `git filter-repo --invert-paths --path <source page>` + reflog expire + gc
  (drops the source page alone: no page is scrubbed, nothing else is purged);
- audit: `stigmergy erase --audit CANARY` (every object, packed/loose/unreachable, .git files, working
  tree, evidence, state), beside the baseline `git log --all -S CANARY` (reachable history only).

    .venv/bin/python bench/erase.py [--commits 1000] [--keep DIR] [--json bench/results/erase.json]

With `--json`, the figures are also written there with the run's date, the load average before and after, and
`readme_rows`, which `scripts/gen_docs.py` puts in the README's generated table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from capture import git_env, make_documents  # noqa: E402
from results_file import load_now, met, write  # noqa: E402

CANARY = "ZQX93CANARY"
CANARY_DOC = f"""---
title: Side letter {CANARY}
date: 2026-06-15
---
# Side letter {CANARY}

## Summary

- Mara Lindqvist reported the {CANARY} settlement at 412 units in Q2 2026.
- Tomas Okafor reported the {CANARY} escrow at 77 units in Q2 2026.
"""


def stigmergy(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "stigmergy", *args], cwd=root, capture_output=True, text=True,
                          env={**git_env(), "PYTHONPATH": str(ROOT)})
    if check and proc.returncode != 0:
        raise SystemExit(f"stigmergy {' '.join(args)} failed: {proc.stderr}")
    return proc


def build(folder: Path, commits: int) -> tuple[Path, str]:
    """A knowledge repository with `commits` operation commits, written with `git fast-import` from pages
    rendered by stigmergy's own renderers (filing 1,000 captures through the planner takes longer than the
    figure being measured): each commit adds a source page (its bytes in the evidence store) and a note
    citing three of its lines, and appends a cited line to the entity page of the person it names. The
    canary is commit N/2; it names two people, so their entity pages carry its lines in every later version."""
    from stigmergy.pages.citations import cite
    from stigmergy.pages.source import Artifact, SourcePage, render_source_page
    from stigmergy.pages.wiki import WikiPage, render_wiki_page
    from stigmergy.repo.evidence import LocalEvidenceStore
    from stigmergy.repo.ids import new_id
    from stigmergy.repo.init import init_repository
    from stigmergy.repo.layout import Layout, source_relpath

    root = folder / "wiki"
    init_repository(root)
    store = LocalEvidenceStore(Layout(root).objects_dir)
    docs = make_documents(folder / "docs", commits - 1, seed=11)
    people = ["Mara Lindqvist", "Tomas Okafor", "Priya Raman", "Jonas Becker", "Elena Sato", "Farid Haddad"]
    entity_lines: dict[str, list[str]] = {p: [] for p in people}
    entity_sources: dict[str, list[str]] = {p: [] for p in people}
    entity_ids: dict[str, str] = {}
    stream: list[bytes] = []  # this commit's file changes
    chunks: list[bytes] = []  # the fast-import stream, one chunk per commit
    parent = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    canary = ""

    def blob(path: str, text: str) -> None:
        data = text.encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for i in range(commits - 1):
        text = CANARY_DOC if i == commits // 2 else docs[i if i < commits // 2 else i - 1].read_text()
        raw = text.encode()
        store.put(raw)
        body = text.split("\n---\n", 1)[1].split("\n", 2)[2]  # after `# Title` and its blank line
        title = text.split("title: ", 1)[1].split("\n", 1)[0]
        cap = new_id("cap", 1_780_000_000_000 + i * 1000)
        captured = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z"
        page = SourcePage(
            id=cap, title=title, captured_at=captured, occurred_at=captured[:10], submitted_by="bench@example.com",
            layer="public", origin="cli", locator=f"docs/{title}.md",
            artifacts=(Artifact(hashlib.sha256(raw).hexdigest(), len(raw), "text/markdown",
                                store.put(body.encode()), "markdown", "1"),), text=body,
        )
        src = source_relpath("public", captured, cap)
        source_text = render_source_page(page)
        lines = source_text.split("\n")
        cited = [(n + 1, ln) for n, ln in enumerate(lines) if ln.startswith("- ")][:3]
        note = f"wiki/notes/{title}.md"
        note_body = f"# {title}\n\n## Key points\n\n" + "".join(
            f"{ln} {cite(note, src, n)}\n" for n, ln in cited
        )
        blob(src, source_text)
        blob(note, render_wiki_page(WikiPage(
            id=new_id("pg", 1_780_000_000_000 + i * 1000), type="note", title=title, status="seed",
            created=captured, updated=captured, layer="public", body=note_body, sources=(cap,),
        )))
        for who in [p for p in people if any(p in ln for _, ln in cited)][:2]:
            n, ln = next((n, ln) for n, ln in cited if who in ln)
            epath = f"wiki/entities/{who}.md"
            entity_lines[who].append(f"{ln} {cite(epath, src, n)}")
            if cap not in entity_sources[who]:
                entity_sources[who].append(cap)
            blob(epath, render_wiki_page(WikiPage(
                id=entity_ids.setdefault(who, new_id("pg")), type="entity", title=who, status="developing", created="2026-01-01T10:00:00Z", updated=captured,
                layer="public", body=f"# {who}\n\n## Mentions\n\n" + "\n".join(entity_lines[who]) + "\n",
                sources=tuple(sorted(entity_sources[who])), entity_type="person",
            )))
        if i == commits // 2:
            canary = cap
        op = new_id("op", 1_780_000_000_000 + i * 1000)
        message = f"capture: {title}\n\nStigmergy-Operation: {op}\nStigmergy-Kind: capture\n".encode()
        when = 1_780_000_000 + i
        head = (f"commit refs/heads/main\nmark :{i + 1}\ncommitter stigmergy <stigmergy@localhost> {when} +0000\n"
                f"data {len(message)}\n").encode() + message
        head += f"from {parent}\n".encode() if i == 0 else f"from :{i}\n".encode()
        chunks.append(head + b"".join(stream) + b"\n")
        stream.clear()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(chunks), check=True, env=git_env())
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True, env=git_env())
    return root, canary


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--keep", type=Path, help="build the repository here once, and reuse it")
    ap.add_argument("--json", type=Path, help="also write the figures with the README's rows here")
    args = ap.parse_args()
    load_before = load_now()
    work = Path(tempfile.mkdtemp(prefix="bench-erase-"))
    if args.keep and (args.keep / "wiki").is_dir():
        base, canary = args.keep / "wiki", (args.keep / "canary").read_text()
    else:
        folder = args.keep or work
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        base, canary = build(folder, args.commits)
        (folder / "canary").write_text(canary)
        print(f"built {base} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    n_commits = int(subprocess.run(["git", "rev-list", "--count", "--all"], cwd=base, capture_output=True,
                                   text=True).stdout)
    copies = {name: work / name / "wiki" for name in ("erase", "baseline", "audit")}
    for target in copies.values():
        shutil.copytree(base, target, symlinks=True)
    source = subprocess.run(["git", "ls-files", f"*{canary}.md"], cwd=copies["baseline"], capture_output=True,
                            text=True).stdout.strip()

    def baseline_erase() -> None:
        env = {**git_env(), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
        for cmd in (["git", "filter-repo", "--force", "--partial", "--quiet", "--invert-paths", "--path", source],
                    ["git", "reflog", "expire", "--expire=now", "--all"], ["git", "gc", "--quiet", "--prune=now"]):
            subprocess.run(cmd, cwd=copies["baseline"], check=True, capture_output=True, env=env)

    t_base = timed(baseline_erase)
    t_erase = timed(lambda: stigmergy(copies["erase"], "erase", canary, "--rationale", "bench", "--yes"))
    residue = stigmergy(copies["erase"], "--json", "erase", "--audit", CANARY, check=False)
    t_log = timed(lambda: subprocess.run(["git", "log", "--all", "--format=%H", "-S", CANARY], cwd=copies["audit"],
                                         check=True, capture_output=True))
    t_audit = timed(lambda: stigmergy(copies["audit"], "--json", "erase", "--audit", CANARY, check=False))
    figures = {
        "commits": n_commits,
        "erase_seconds": round(t_erase, 2),
        "baseline_filter_repo_path_only_seconds": round(t_base, 2),
        "erase_vs_baseline": round(t_erase / t_base, 2),
        "audit_seconds": round(t_audit, 2),
        "baseline_git_log_S_seconds": round(t_log, 2),
        "audit_vs_baseline": round(t_audit / t_log, 2),
        "residue_after_erase": json.loads(residue.stdout)["findings"],
        "erase_leaves_canary_in_history": bool(subprocess.run(
            ["git", "log", "--all", "--format=%H", "-S", CANARY], cwd=copies["erase"], capture_output=True,
            text=True).stdout.strip()),
    }
    print(json.dumps(figures, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        command = "bench/erase.py" + (f" --commits {args.commits}" if args.commits != 1000 else "")
        clean = not figures["residue_after_erase"] and not figures["erase_leaves_canary_in_history"]
        rows = [
            [f"`erase` of one capture, a {n_commits:,}-commit repository (`{command}`)",
             f"{figures['erase_seconds']} s; residue after it: {'none' if clean else 'found'}",
             f"`git filter-repo --invert-paths --path` + gc, no page sweep: {figures['baseline_filter_repo_path_only_seconds']} s "
             f"({figures['erase_vs_baseline']}×)", f"≤ 30 s ({met(figures['erase_seconds'] <= 30)})"],
            ["`erase --audit`, the same repository", f"{figures['audit_seconds']} s",
             f"`git log --all -S` (reachable history only): {figures['baseline_git_log_S_seconds']} s "
             f"({figures['audit_vs_baseline']}×)", f"≤ 10 s ({met(figures['audit_seconds'] <= 10)})"],
        ]
        write(args.json, command, [load_before, load_now()], rows, figures)


if __name__ == "__main__":
    main()
