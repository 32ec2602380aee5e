"""Maintenance figures, each measured side by side with a baseline in the same run, through the real CLI:

- `garden --check` on a generated 1,000-page wiki (baseline: `lint` on the same wiki);
- `garden` making 50 repairs (50 dead links in cited lines) on that wiki (baseline: `lint`);
- `delete` of a source cited by 20 pages on that wiki (baseline: `lint`);
- `recompile` of sample_corpus against capturing sample_corpus afresh into a new repository;
- `recompile` of sample_corpus with a 200-operation curation record (20 renames, 10 merges, 10 deletions
  of wiki pages, 160 alias edits by a person; `curate` stops unless all 200 succeed) against a recompile of
  the same corpus with none, CPU seconds beside wall (`--curation` measures only this pair).

    .venv/bin/python bench/maintenance.py [--pages 1000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capture import git_env  # noqa: E402
from results_file import load_now, met, write  # noqa: E402

from stigmergy.pages.citations import cite  # noqa: E402
from stigmergy.pages.paths import page_relpath  # noqa: E402
from stigmergy.pages.source import Artifact, SourcePage, render_source_page  # noqa: E402
from stigmergy.pages.wiki import WikiPage, new_page_id, render_wiki_page  # noqa: E402
from stigmergy.repo.layout import source_relpath  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TS = "2026-03-10T12:00:00Z"


def cli(wiki: Path, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "stigmergy", "-C", str(wiki), *args], env=git_env(),
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"{args} failed ({proc.returncode}): {proc.stdout[-1500:]} {proc.stderr[-1500:]}")
    return took, proc.stdout


def cpu_of(call):  # type: ignore[no-untyped-def]
    """(what `call` returns, the CPU seconds, user + system, of the child processes it waited for)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = call()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return result, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def git(wiki: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=wiki, env=git_env(), check=True, capture_output=True)


def commit_ours(wiki: Path, message: str) -> None:
    git(wiki, "add", "-A")
    git(wiki, "commit", "-qm", f"capture: {message}\n\nStigmergy-Operation: op_bench{random.randrange(10**9)}\nStigmergy-Kind: capture")


def capture_id(n: int) -> str:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    rng = random.Random(n)
    return "cap_01KK" + "".join(rng.choice(alphabet) for _ in range(22))


def generated_wiki(wiki: Path, pages: int) -> str:
    """A wiki of `pages` pages (a quarter entities, the rest notes) citing 100 sources; returns the capture
    id of a source that exactly 20 pages cite."""
    rng = random.Random(11)
    sources = []
    for n in range(100):
        cid = capture_id(n)
        lines = [f"Topic {n} line {i}: the team measured {rng.randint(10, 999)} units." for i in range(30)]
        page = SourcePage(id=cid, title=f"Source {n}", captured_at=TS, occurred_at="2026-03-01", submitted_by="bench",
                          layer="public", origin="cli", locator=f"s{n}.md",
                          artifacts=(Artifact("0" * 64, 10, "text/markdown", "0" * 64, "markdown", "1"),),
                          text="\n".join(lines) + "\n")
        rel = source_relpath("public", TS, cid)
        (wiki / rel).parent.mkdir(parents=True, exist_ok=True)
        (wiki / rel).write_text(render_source_page(page), encoding="utf-8")
        sources.append((rel, page, lines))
    entities = [f"Person {i:04d}" for i in range(pages // 4)]
    hot = sources[0]
    for i in range(pages):
        is_entity = i < len(entities)
        title = entities[i] if is_entity else f"Note {i:04d}"
        ptype = "entity" if is_entity else "note"
        rel = page_relpath(ptype, title, "public")
        body = [f"# {title}", ""]
        picks = [hot] if 0 < i <= 20 else []
        picks += [sources[1 + (i + k) % 99] for k in range(3)]
        for src_rel, src, lines in picks:
            j = rng.randrange(len(lines))
            link = f"[[{entities[rng.randrange(len(entities))]}]] " if not is_entity else ""
            body.append(f"- {link}{lines[j]} {cite(rel, src_rel, src.line_of(j), src.line_of(j))}")
        text = "\n".join(body) + "\n"
        page = WikiPage(id=new_page_id(TS, rel), type=ptype, title=title, status="seed", created=TS, updated=TS,
                        layer="public", body=text, entity_type="person" if is_entity else None).with_body(text, rel)
        (wiki / rel).parent.mkdir(parents=True, exist_ok=True)
        (wiki / rel).write_text(render_wiki_page(page), encoding="utf-8")
    commit_ours(wiki, "generated wiki")
    return hot[1].id


def break_links(wiki: Path, n: int) -> None:
    """`n` cited lines get a link to a page that does not exist (each is one repair)."""
    notes = sorted((wiki / "wiki/notes").glob("*.md"))[:n]
    for k, path in enumerate(notes):
        text = path.read_text(encoding="utf-8")
        name = "".join("ABCDEFGHIJ"[int(d)] for d in f"{k:02d}")  # no digits: a figure in a title is not a claim
        path.write_text(text.replace("\n- [[", f"\n- [[Gone Page {name}]] and [[", 1), encoding="utf-8")
    commit_ours(wiki, "dead links")


def curate(wiki: Path, renames: int = 20, merges: int = 10, deletes: int = 10, aliases: int = 160) -> int:
    """Make a curation record of renames, merges, deletions and a person's alias edits; its length (each
    operation counted once it succeeded: a refused one stops the bench, so the record has exactly the
    operations asked for). sample_corpus/ has 27 entities, too few for 20 renames and 10 merges of entities
    alone: entities are renamed and merged first, then concepts, then notes (the first `deletes` notes are
    deleted)."""
    def pages(folder: str) -> list[str]:
        return sorted(p.relative_to(wiki).as_posix() for p in (wiki / "wiki" / folder).glob("*.md"))

    entities, concepts, notes = pages("entities"), pages("concepts"), pages("notes")
    entity_merges = min(merges, len(entities) // 4)
    entity_renames = min(renames, len(entities) - 2 * entity_merges)
    merge_pairs = list(zip(entities[0:2 * entity_merges:2], entities[1:2 * entity_merges:2], strict=True))
    spare = concepts + notes[deletes:]
    rename_targets = entities[2 * entity_merges:][:entity_renames] + spare[: renames - entity_renames]
    by_type: dict[str, list[str]] = {}
    for rel in spare[renames - entity_renames:]:
        by_type.setdefault(rel.split("/")[1], []).append(rel)
    for group in by_type.values():
        merge_pairs += list(zip(group[0::2], group[1::2], strict=False))
    merge_pairs = merge_pairs[:merges]
    made = 0
    for rel in rename_targets:
        title = rel.rsplit("/", 1)[1].removesuffix(".md")
        cli(wiki, "rename", rel, f"{title} (renamed)")
        made += 1
    for a, b in merge_pairs:
        cli(wiki, "merge", a, "INTO", b)
        made += 1
    for rel in notes[:deletes]:
        cli(wiki, "delete", rel, "--rationale", "bench")
        made += 1
    kept = sorted((wiki / "wiki/entities").glob("*.md"))
    for n in range(aliases):
        page = kept[n % len(kept)]
        text = page.read_text(encoding="utf-8")
        head, _, body = text.partition("\n---\n")
        if "\naliases: []" in head:
            head = head.replace("\naliases: []", f"\naliases:\n- Bench alias {n}")
        elif "\naliases:" in head:
            head = head.replace("\naliases:", f"\naliases:\n- Bench alias {n}", 1)
        else:
            head += f"\naliases:\n- Bench alias {n}"
        page.write_text(head + "\n---\n" + body, encoding="utf-8")
        subprocess.run(["git", "-c", "user.name=Pat", "-c", "user.email=pat@example.com", "commit", "-qam",
                        f"alias {n}"], cwd=wiki, env=git_env(), check=True, capture_output=True)
        made += 1
    wanted = renames + merges + deletes + aliases
    if made != wanted:
        raise SystemExit(f"the curation record has {made} operations, not {wanted}: the corpus has too few pages")
    return made


def curation_pair(tmp: Path, out: dict[str, object]) -> None:
    plain, curated = tmp / "plain", tmp / "curated"
    for wiki in (plain, curated):
        cli(tmp, "init", str(wiki))
        cli(wiki, "capture", str(ROOT / "sample_corpus"))
    out["curation_ops"] = curate(curated)
    cli(plain, "recompile")  # both start from a wiki a recompile has settled
    cli(curated, "recompile")
    # Alternated, best of three each: the machine is shared and its load moves between runs. The CPU time
    # (the stigmergy process and the git processes it ran) is reported beside the wall time: on a loaded
    # machine the wall time is mostly waiting for a core.
    t_plain = t_curated = c_plain = c_curated = float("inf")
    report = "{}"
    for _ in range(3):
        (t, _out), c = cpu_of(lambda: cli(plain, "--json", "recompile"))
        t_plain, c_plain = min(t_plain, t), min(c_plain, c)
        (t, report), c = cpu_of(lambda: cli(curated, "--json", "recompile"))
        t_curated, c_curated = min(t_curated, t), min(c_curated, c)
    data = json.loads(report)
    out["recompile_no_curation_s"], out["recompile_curation_s"] = round(t_plain, 2), round(t_curated, 2)
    out["recompile_no_curation_cpu_s"], out["recompile_curation_cpu_s"] = round(c_plain, 2), round(c_curated, 2)
    out["recompile_curation_status"] = data["status"]
    cur = data["report"].get("curation", {})
    out["curation_entries"] = cur.get("entries")
    out["curation_not_replayed"] = len(cur.get("not_replayed", []))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--curation", action="store_true", help="measure only recompile with and without a curation record")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out: dict[str, object] = {"pages": args.pages, "load": Path("/proc/loadavg").read_text().split()[:3]}
    if args.curation:
        with tempfile.TemporaryDirectory() as tmp:
            curation_pair(Path(tmp), out)
        out["ratios"] = {
            "recompile_curation_vs_none": round(out["recompile_curation_s"] / out["recompile_no_curation_s"], 2),  # type: ignore[operator]
            "recompile_curation_vs_none_cpu": round(
                out["recompile_curation_cpu_s"] / out["recompile_no_curation_cpu_s"], 2)}  # type: ignore[operator]
        print(json.dumps(out, indent=2))
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        wiki = Path(tmp) / "wiki"
        cli(Path(tmp), "init", str(wiki))
        hot = generated_wiki(wiki, args.pages)
        cli(wiki, "lint", "--accept-history", ok=(0, 4))  # the generator's commits are reviewed, not audited
        cli(wiki, "garden")  # writes the map of content; the audited history is now clean
        t_lint, _ = cli(wiki, "lint")
        t_check, _ = cli(wiki, "garden", "--check")
        out["garden_check_s"], out["lint_s"] = round(t_check, 2), round(t_lint, 2)
        break_links(wiki, 50)
        cli(wiki, "lint", "--accept-history", ok=(0, 4))
        t_lint2, _ = cli(wiki, "lint", ok=(4,))
        t_garden, report = cli(wiki, "--json", "garden", ok=(0, 4))
        repairs = json.loads(report)["report"]["repairs"]
        out["garden_50_s"], out["garden_50_lint_s"], out["garden_50_repairs"] = round(t_garden, 2), round(t_lint2, 2), repairs
        t_lint3, _ = cli(wiki, "lint")
        t_delete, report = cli(wiki, "--json", "delete", hot, "--rationale", "bench")
        out["delete_s"], out["delete_lint_s"] = round(t_delete, 2), round(t_lint3, 2)
        out["delete_pages_changed"] = len(json.loads(report)["report"]["pages_changed"])
        sample = Path(tmp) / "sample"
        cli(Path(tmp), "init", str(sample))
        t_capture, _ = cli(sample, "capture", str(ROOT / "sample_corpus"))
        t_recompile, report = cli(sample, "--json", "recompile")
        out["capture_sample_s"], out["recompile_sample_s"] = round(t_capture, 2), round(t_recompile, 2)
        out["recompile_status"] = json.loads(report)["status"]
        curation_pair(Path(tmp), out)
    out["ratios"] = {
        "recompile_curation_vs_none": round(out["recompile_curation_s"] / out["recompile_no_curation_s"], 2),  # type: ignore[operator]
        "garden_check_vs_lint": round(out["garden_check_s"] / out["lint_s"], 2),  # type: ignore[operator]
        "recompile_vs_capture": round(out["recompile_sample_s"] / out["capture_sample_s"], 2),  # type: ignore[operator]
    }
    print(json.dumps(out, indent=2))
    if args.json:
        command = "bench/maintenance.py" + (f" --pages {args.pages}" if args.pages != 1000 else "")
        write(args.json, command, [float(out["load"][0]), load_now()],  # type: ignore[index]
              readme_rows(out, command), out)


def readme_rows(out: dict, command: str) -> list[list[str]]:
    """The README rows of a full run (scripts/bench_table.py puts them in the README's table)."""
    pages = f"{out['pages']:,}"
    made = out["garden_50_repairs"]
    repairs = sum(made.values()) if isinstance(made, dict) else made
    return [
        [f"`garden --check`, a generated {pages}-page wiki, a new process (`{command}`)", f"{out['garden_check_s']} s",
         f"`lint` {out['lint_s']} s in the same run ({out['garden_check_s'] / out['lint_s']:.2f}×)",
         f"≤ 3 s ({met(out['garden_check_s'] <= 3)})"],
        [f"`garden` making {repairs} repairs (dead links in cited lines), same wiki", f"{out['garden_50_s']} s",
         f"`lint` {out['garden_50_lint_s']} s in the same run ({out['garden_50_s'] / out['garden_50_lint_s']:.2f}×)",
         f"≤ 10 s ({met(out['garden_50_s'] <= 10)})"],
        [f"`delete` of a source cited by {out['delete_pages_changed']} pages, same wiki, commit included",
         f"{out['delete_s']} s", f"`lint` {out['delete_lint_s']} s in the same run "
         f"({out['delete_s'] / out['delete_lint_s']:.2f}×)", f"≤ 2 s ({met(out['delete_s'] <= 2)})"],
        ["`recompile` of `sample_corpus/` (a no-op: it reproduces the wiki)", f"{out['recompile_sample_s']} s "
         f"(status: {out['recompile_status']})", f"capturing it afresh {out['capture_sample_s']} s in the same run "
         f"({out['recompile_sample_s'] / out['capture_sample_s']:.2f}×)",
         f"≤ 1.5× ({met(out['recompile_sample_s'] <= 1.5 * out['capture_sample_s'])})"],
    ]


if __name__ == "__main__":
    main()
