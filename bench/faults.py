"""Random kills: N times, start a real `stigmergy` process (capture, file or resume; index with --index),
SIGKILL it and its git children at a random moment, run the next command, and check that nothing needs a
person: no acknowledged capture lost, none twice, `git fsck`, `stigmergy fsck` and `lint` clean (and with
--index, `index --check` passing after one `index`). Prints the counts.

    .venv/bin/python bench/faults.py [--n 30] [--seed 1] [--index] [--json bench/results/faults.json]

With `--json`, the counts are also written there with the run's date, the load average before and after, and
`readme_rows`, which `scripts/gen_docs.py` puts in the README's generated table.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fault_support import (  # noqa: E402 - the harness the fault tests use
    DOCS,
    acknowledged,
    kill,
    problems,
    source_pages,
    spawn,
    stigmergy,
    write_docs,
)
from results_file import load_now, met, write  # noqa: E402 - bench/, the script's own folder


def _fresh(base: Path, n: int) -> tuple[Path, list[Path]]:
    root = base / f"wiki{n}"
    assert stigmergy(base, "init", str(root)).returncode == 0
    docs = write_docs(base / f"docs{n}")
    # More documents than DOCS: the same shapes under other names and dates.
    for i in range(4):
        for name, text in DOCS.items():
            path = base / f"docs{n}" / f"{name[:-3]}-{i}.md"
            path.write_text(text.replace("2026", str(2027 + i)), encoding="utf-8")
            docs.append(path)
    return root, docs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--index", action="store_true", help="also kill `stigmergy index` (loads the model)")
    parser.add_argument("--json", type=Path, help="also write the counts with the README's row here")
    args = parser.parse_args()
    load_before = load_now()
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root, docs = _fresh(base, 0)
        pending_docs = list(docs)
        finished: set[str] = set()
        acked_all: set[str] = set()
        # How long an undisturbed capture takes here: kills land anywhere inside that window.
        t0 = time.monotonic()
        doc = pending_docs.pop(0)
        assert stigmergy(root, "capture", str(doc)).returncode == 0
        finished.add(doc.name)
        window = (time.monotonic() - t0) * 1.2
        ops = ["capture", "capture", "file", "resume"] + (["index"] if args.index else [])
        for i in range(args.n):
            if not pending_docs:
                root, docs = _fresh(base, i + 1)
                pending_docs, finished, acked_all = list(docs), set(), set()
            op = rng.choice(ops)
            if op == "capture":
                doc = pending_docs.pop(0)
                extra = ["--no-file"] if rng.random() < 0.3 else []
                proc = spawn(root, "capture", str(doc), *extra)
            elif op == "file":
                proc = spawn(root, "file")
            elif op == "resume":
                proc = spawn(root, "resume")
            else:
                proc = spawn(root, "index", env={"STIGMERGY_EMBEDDER__BATCH_SIZE": "1"})
            time.sleep(rng.uniform(0.0, window))
            alive = proc.poll() is None
            acked = acknowledged(kill(proc))
            counts[f"{op} killed" if alive else f"{op} finished first"] += 1
            if op == "capture":
                acked_all |= acked
                counts["capture acknowledged before the kill"] += bool(acked)
                if not alive and proc.returncode == 0:
                    finished.add(doc.name)
            # The next command: any writer finishes the interrupted work first.
            nxt = stigmergy(root, "file")
            if nxt.returncode != 0:
                failures.append(f"#{i} {op}: next command failed: {nxt.stderr.strip()}")
                counts["next command failed"] += 1
                continue
            if acked:
                finished.add(doc.name)
            found = problems(root, acked_all, finished)
            if args.index:
                built = stigmergy(root, "index")
                check = stigmergy(root, "index", "--check")
                if built.returncode or check.returncode:
                    found.append(f"index --check: {check.stdout}{check.stderr}")
            if found:
                failures.append(f"#{i} {op}: " + "; ".join(found))
                counts["needed a person"] += 1
            else:
                counts["recovered without help"] += 1
        duplicates = sum(1 for ids in source_pages(root).values() if len(ids) > 1)
    elapsed = time.monotonic() - started
    result = {"kills": args.n, "seed": args.seed, "seconds": round(elapsed, 1), "counts": dict(sorted(counts.items())),
              "duplicates_in_last_repo": duplicates, "failures": failures}
    print(json.dumps(result, indent=1))
    if args.json:
        command = f"bench/faults.py --n {args.n} --seed {args.seed}" + (" --index" if args.index else "")
        what = "capture, file, resume" + (" and index (`index --check` after one `index`)" if args.index else "")
        recovered = counts["recovered without help"]
        row = [f"random SIGKILLs during {what} (`{command}`)",
               f"{recovered} of {args.n} recovered without help; {duplicates} duplicate captures; "
               f"what each kill met: {', '.join(f'{k} {v}' for k, v in sorted(counts.items()) if k not in ('recovered without help', 'needed a person'))}",
               "", f"no manual repair ({met(not failures and duplicates == 0)})"]
        write(args.json, command, [load_before, load_now()], [row], result)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
