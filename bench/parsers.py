"""The capture path's parsers on their worst inputs, beside plain text of the same size, in the same run.

    .venv/bin/python bench/parsers.py [--sizes 12500,25000,50000] [--file] [--out bench/out/parsers.json]

Each hostile input (a line of backticks, of "`a", of "[", of "*a", nested Markdown quotes, HTML with
nested lists, a line of tag starts, a page of `javascript:` links) is read the way `capture` reads it
(`capture.queue.read_input`: extraction, escaping, the credential scan), and so is plain text of the same
number of characters in the same format (words for Markdown and text, `<p>` words for HTML): the figure
is the ratio of the two. A parser that is linear or bounded keeps the ratio flat as the size grows; a
quadratic one doubles it with each doubling. An input refused by a limit is timed until the refusal and
its rule is named. With --file each input is also captured and filed (deterministic planner, gates,
commit) into a fresh wiki, beside its baseline. The load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stigmergy.capture.inputs import InputItem
from stigmergy.capture.queue import read_input
from stigmergy.errors import StigmergyError
from stigmergy.settings import Settings

WORDS = ("roadmap latency customer migration budget rollout incident review platform team hiring revenue "
         "quarter launch pricing contract renewal support onboarding churn pipeline forecast").split()


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"


def _words(n: int) -> str:
    out, size, i = [], 0, 0
    while size < n:
        w = WORDS[i % len(WORDS)]
        out.append(w)
        size += len(w) + 1
        i += 1
    return " ".join(out)[:n]


def _fill(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def _nested_lists(n: int) -> str:
    unit = "<ul><li>item"
    depth = n // (len(unit) + len("</li></ul>"))
    return "<html><body>" + unit * depth + "</li></ul>" * depth + "</body></html>"


def _links(n: int) -> str:
    line = "- [open the report](javascript:alert(document.cookie)) and [this](https://example.com/a)\n"
    return _fill(line, n)


# name -> (file name, hostile text of n characters, baseline text of n characters)
CASES: dict[str, tuple[str, Callable[[int], str], Callable[[int], str]]] = {
    "backticks (.md)": ("a.md", lambda n: _fill("`", n) + "\n", lambda n: _words(n) + "\n"),
    "backticks (.txt)": ("a.txt", lambda n: _fill("`", n) + "\n", lambda n: _words(n) + "\n"),
    "`a run (.md)": ("a.md", lambda n: _fill("`a", n) + "\n", lambda n: _words(n) + "\n"),
    "[ run (.md)": ("a.md", lambda n: _fill("[", n) + "\n", lambda n: _words(n) + "\n"),
    "*a run (.md)": ("a.md", lambda n: _fill("*a", n) + "\n", lambda n: _words(n) + "\n"),
    "nested quotes (.md)": ("a.md", lambda n: _fill(">", n) + " deep\n", lambda n: _words(n) + "\n"),
    "tag starts (.txt)": ("a.txt", lambda n: _fill("<a", n) + "\n", lambda n: _words(n) + "\n"),
    "javascript: links (.md)": ("a.md", _links, lambda n: _fill(_words(80) + "\n", n)),
    "nested lists (.html)": ("a.html", _nested_lists,
                             lambda n: "<html><body><p>" + _words(n) + "</p></body></html>"),
}


def _read(name: str, text: str) -> tuple[float, str]:
    data = text.encode("utf-8")
    item = InputItem(locator=name, read=lambda: data, size=len(data))
    start = time.perf_counter()
    try:
        read_input(item, Settings().capture)
        outcome = "read"
    except StigmergyError as exc:
        outcome = f"refused [{getattr(exc, 'rule', '') or type(exc).__name__}]"
    return time.perf_counter() - start, outcome


def _file(name: str, text: str) -> tuple[float, str]:
    from stigmergy.repo.init import init_repository
    from stigmergy.service import CaptureRequest, Identity, WikiService
    from stigmergy.settings import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "wiki"
        init_repository(root)
        src = Path(tmp) / name
        src.write_text(text, encoding="utf-8")
        env = {"HOME": tmp}
        service = WikiService(root, load_settings(root, env=env), Identity("bench@example.com"), env)
        start = time.perf_counter()
        try:
            captured = service.capture(service.gather(CaptureRequest(inputs=(str(src),))))
            outcome = ",".join(o.status for o in captured.report.outcomes)
        except StigmergyError as exc:
            outcome = f"refused [{type(exc).__name__}]"
        finally:
            service.close()
        return time.perf_counter() - start, outcome


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="12500,25000,50000")
    ap.add_argument("--file", action="store_true", help="also capture and file each input into a fresh wiki")
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--out", type=Path, default=Path("bench/out/parsers.json"))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    chosen = [c for c in CASES if not args.cases or c in args.cases.split(",")]
    _read("warm.md", "# Warm\n\npassword = Tr0ub4dor-3-horse\n")  # the detector's one-off setup
    rows = []
    print(f"load average {load()} (before)")
    print(f"{'case':26} {'chars':>7} {'hostile s':>10} {'plain s':>8} {'ratio':>6}  outcome")
    for case in chosen:
        name, hostile, plain = CASES[case]
        for n in sizes:
            for stage, run in (("read", _read), ("file", _file)):
                if stage == "file" and not args.file:
                    continue
                base_s, _ = run(name, plain(n))
                bad_s, outcome = run(name, hostile(n))
                ratio = bad_s / base_s if base_s else float("inf")
                rows.append({"case": case, "stage": stage, "chars": n, "hostile_s": round(bad_s, 4),
                             "plain_s": round(base_s, 4), "ratio": round(ratio, 2), "outcome": outcome})
                label = case if stage == "read" else f"{case} +file"
                print(f"{label:26} {n:7} {bad_s:10.3f} {base_s:8.3f} {ratio:6.2f}  {outcome}", flush=True)
    print(f"load average {load()} (after)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"load": load(), "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
