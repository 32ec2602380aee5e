"""Filing quality on technical documentation nobody here wrote (issue #27, "filing quality on the way"): each corpus
is captured with filing into a new wiki by a checkout's code, and what it files is counted and listed: entity,
concept and note pages, and what capture refused.

Corpora, fetched into the system's temporary folder (`stigmergy-bench-filing-quality`; outside this checkout, since
capture skips what Git ignores and bench/out/ is ignored):

- `library`: the issue's 40 pages of the Python 3.11 library reference, HTML, from Debian's `python3.11-doc`
  (`apt-get download`; the package's version is printed with the figures);
- `howto`: the same package's how-to, tutorial and FAQ pages (46);
- `rust`: chapters 3 to 11 of *The Rust Programming Language* (40 pages of mdBook HTML) from the Rust toolchain's
  own docs, where the toolchain has them (`rustc --print sysroot`/share/doc/rust/html/book);
- `pip`: pip 25.1.1's docs, Markdown and reStructuredText (92 pages), as bench/ask_sets.py fetches them.

    .venv/bin/python bench/filing_quality.py --corpus library [--baseline ../main-checkout] [--json out.json]

`--baseline` files the same corpus with another checkout's code in the same run, for the README's rows
(`--json bench/results/filing_quality-NAME.json`; docs/planning.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results_file import load_now, write

HERE = Path(__file__).resolve().parent
CODE = HERE.parent
OUT = Path(tempfile.gettempdir()) / "stigmergy-bench-filing-quality"
DEBIAN_DOCS = "python3.11-doc"
LIBRARY = (
    "2to3 asyncio-api-index asyncio-llapi-index audit_events codecs curses datetime dbm difflib email.policy functions "
    "http inspect itertools json locale logging.handlers logging mailbox ossaudiodev re select sqlite3 statistics "
    "stdtypes string struct sys tarfile time tkinter tkinter.ttk turtle unittest urllib.parse warnings winreg "
    "xml.dom xmlrpc.client zipfile").split()
HOWTO_FOLDERS = ("howto", "tutorial", "faq")


def _debian_html(out: Path) -> tuple[Path, str]:
    """The HTML tree of Debian's Python docs package, downloaded and unpacked once; and its version."""
    root = out / "python-doc"
    html = root / "x" / "usr" / "share" / "doc" / "python3.11" / "html"
    if not html.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", DEBIAN_DOCS], cwd=root, check=True, capture_output=True)
        deb = next(root.glob(f"{DEBIAN_DOCS}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root / "x")], check=True)
    deb = next(root.glob(f"{DEBIAN_DOCS}_*.deb"), None)
    return html, deb.name.split("_")[1] if deb else "?"


def _rust_book() -> Path:
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True).stdout.strip()
    book = Path(sysroot) / "share" / "doc" / "rust" / "html" / "book" if sysroot else Path("/nonexistent")
    if not book.is_dir():
        raise SystemExit("the rust corpus needs the Rust toolchain's docs (rustup component add rust-docs)")
    return book


def corpus(name: str) -> tuple[Path, tuple[str, ...], str]:
    """(a folder holding the corpus's files, the --include patterns, where it came from)."""
    target = OUT / f"corpus-{name}"
    if name == "pip":
        spec = importlib.util.spec_from_file_location("bench_ask_sets", HERE / "ask_sets.py")
        sets = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(sets)  # type: ignore[union-attr]
        return Path(sets.fetch_public(OUT / "pip")), ("*.md", "*.rst"), "pip 25.1.1 docs (PyPI sdist)"
    if target.is_dir():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    if name == "rust":
        book = _rust_book()
        for f in sorted(book.glob("ch*.html")):
            if f.name[:4] in {f"ch{n:02d}" for n in range(3, 12)}:
                shutil.copy2(f, target / f.name)
        return target, ("*.html",), "The Rust Programming Language, chapters 3-11, from the Rust toolchain's docs"
    html, version = _debian_html(OUT)
    if name == "library":
        for stem in LIBRARY:
            shutil.copy2(html / "library" / f"{stem}.html", target / f"{stem}.html")
    elif name == "howto":
        for folder in HOWTO_FOLDERS:
            for f in sorted((html / folder).glob("*.html")):
                shutil.copy2(f, target / f"{folder}_{f.name}")
    else:
        raise SystemExit(f"unknown corpus {name!r}")
    return target, ("*.html",), f"Debian {DEBIAN_DOCS} {version}"


def file_corpus(code: Path, docs: Path, include: tuple[str, ...]) -> dict[str, object]:
    """Capture `docs` with filing into a new wiki with `code`'s stigmergy; what it filed."""
    env = dict(os.environ, PYTHONPATH=str(code), HF_HUB_OFFLINE="1", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    with tempfile.TemporaryDirectory(prefix="filing-quality-") as tmp:
        wiki = Path(tmp) / "wiki"
        wiki.mkdir()
        subprocess.run([sys.executable, "-m", "stigmergy", "init"], cwd=wiki, env=env, check=True, capture_output=True)
        args = [a for pattern in include for a in ("--include", pattern)]
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "stigmergy", "capture", str(docs), *args], cwd=wiki, env=env,
                              capture_output=True, text=True)
        seconds = round(time.perf_counter() - t0, 1)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"capture failed ({proc.returncode}): {proc.stderr[-2000:]}")

        def names(folder: str) -> list[str]:
            return sorted(p.stem for p in (wiki / "wiki" / folder).glob("*.md"))

        lines = proc.stdout.splitlines()
        return {"summary": next((x for x in lines if " input(s): " in x), ""), "seconds": seconds,
                "refused": [x for x in lines if x.startswith("failed")], "entities": names("entities"),
                "concepts": names("concepts"), "notes": len(names("notes"))}


def _said(got: dict[str, Any]) -> str:
    return f"{len(got['entities'])} entity pages, {len(got['concepts'])} concept pages, {got['notes']} notes"


def _revision(code: Path) -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=code, capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=("library", "howto", "rust", "pip"), required=True)
    ap.add_argument("--code", type=Path, default=CODE, help="the checkout whose stigmergy files the corpus")
    ap.add_argument("--baseline", type=Path, help="another checkout, filing the same corpus in the same run")
    ap.add_argument("--json", type=Path, help="write the figures and the README's row here (bench/results_file.py)")
    args = ap.parse_args()
    loads = [load_now()]
    docs, include, origin = corpus(args.corpus)
    sides = {"this": args.code.resolve()} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    report: dict[str, Any] = {"corpus": args.corpus, "origin": origin}
    for side, code in sides.items():
        got = file_corpus(code, docs, include)
        report[side] = {"code": str(code), "revision": _revision(code), **got}
        print(f"{args.corpus} ({origin}), {side} {report[side]['revision']}: {got['summary']}; {_said(got)}; "
              f"{got['seconds']} s")
        print("  entities:", ", ".join(got["entities"]))  # type: ignore[arg-type]
        print("  concepts:", ", ".join(got["concepts"]))  # type: ignore[arg-type]
    loads.append(load_now())
    if args.json:
        write(args.json, f"bench/filing_quality.py --corpus {args.corpus}", loads, readme_rows(report), report)


def readme_rows(report: dict[str, Any]) -> list[list[str]]:
    """The README's row for one corpus, from the figures the results file keeps beside it."""
    this, base, corpus_name = report["this"], report.get("baseline"), report["corpus"]
    return [[f"filing quality, {corpus_name} ({report['origin']}), captured with filing (`bench/filing_quality.py "
             f"--corpus {corpus_name}`)", f"{_said(this)}; {this['summary']}",
             f"{base['revision']} (`--baseline`), same run: {_said(base)}" if base else "",
             "no code, headings, sentence openings or labels filed as entities (issue #27; no number)"]]


if __name__ == "__main__":
    main()
