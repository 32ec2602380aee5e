"""Erase and recompile with a restricted layer kept in a Git repository of its own, beside the same layer kept
in the repository (docs/team.md, "A restricted layer in its own repository"), in the same run.

    .venv/bin/python bench/layer_repository.py                          # this checkout's code, both layouts
    .venv/bin/python bench/layer_repository.py --base /work/wt/base     # + a baseline's code (same-repo layout)

Each wiki is built once with this checkout's code (sample_corpus/: `--public` Markdown files in the public
layer, the board minutes in the board layer); each measured run works on a copy. Figures are CPU seconds
(user + system of the `python -m stigmergy` process and every process it waited for: git, filter-repo) and
wall seconds, with the load average beside them; a baseline cannot erase a capture of a layer kept in its
own repository (it refused), so it is measured on the same-repository layout only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "sample_corpus"
BOSS = "boss@example.com"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STIGMERGY_", "GIT_"))}
    return {**env, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Bench",
            "GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "Bench",
            "GIT_COMMITTER_EMAIL": "bench@example.com"}


def _run(cwd: Path, args: list[str], env: dict[str, str], python: str | None = None) -> str:
    argv = args if python is None else [python, "-m", "stigmergy", *args]
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:6])}: {proc.stderr[-2000:]}")
    return proc.stdout


def _timed(cwd: Path, args: list[str], env: dict[str, str], python: str) -> dict[str, float | str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = _run(cwd, args, env, python)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu_s": round(cpu, 2), "wall_s": round(time.monotonic() - start, 2), "out": out,
            "loadavg": " ".join(Path("/proc/loadavg").read_text().split()[:3])}


def _build(base: Path, own: bool, public: int, env: dict[str, str]) -> None:
    root = base / "wiki"
    base.mkdir(parents=True)
    _run(base, ["init", str(root)], env, sys.executable)
    remote = base / "board.git"
    with (root / "stigmergy.toml").open("a") as fh:
        fh.write(f'\n[layers.board]\nreaders = ["{BOSS}"]\n' + (f'repository = "{remote}"\n' if own else ""))
    _run(root, ["git", "commit", "-qam", "board layer"], env)
    if own:
        _run(base, ["git", "init", "-q", "--bare", str(remote)], env)
        _run(root, ["git", "clone", "-q", str(remote), "layers/board"], env)
    files = sorted(p for p in CORPUS.rglob("*.md") if "_restricted" not in p.parts and p.name != "README.md")
    for path in files[:public]:
        _run(root, ["capture", str(path), "--as", BOSS], env, sys.executable)
    for path in sorted((CORPUS / "_restricted" / "board").glob("*.md")):
        _run(root, ["capture", str(path), "--layer", "board", "--as", BOSS], env, sys.executable)


def _copy(src: Path, dst: Path, own: bool, env: dict[str, str]) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    root = dst / "wiki"
    if own:  # the copy's layer checkout and settings name the copy's bare repository
        _run(root / "layers" / "board", ["git", "remote", "set-url", "origin", str(dst / "board.git")], env)
        toml = root / "stigmergy.toml"
        toml.write_text(toml.read_text().replace(str(src / "board.git"), str(dst / "board.git")))
        _run(root, ["git", "commit", "-qam", "moved"], env)
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, help="a baseline checkout with its own .venv")
    ap.add_argument("--public", type=int, default=14, help="public Markdown captures")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="stigmergy-layer-bench-") as tmp:
        work = Path(tmp)
        env = _env(work / "home")
        (work / "home").mkdir()
        for layout, own in (("own", True), ("same", False)):
            _build(work / layout, own, args.public, env)
        runs = [("own repository, this code", "own", True, sys.executable),
                ("same repository, this code", "same", False, sys.executable)]
        if args.base:
            runs.append(("same repository, baseline code", "same", False, str(args.base / ".venv" / "bin" / "python")))
        results = {}
        for n, (label, layout, own, python) in enumerate(runs):
            root = _copy(work / layout, work / f"run{n}", own, env)
            recompile = _timed(root, ["--json", "recompile", "--as", BOSS], env, python)
            board = root / "layers" / "board" / "sources"
            capture = sorted(board.rglob("cap_*.md"))[0].stem
            erase = _timed(root, ["--json", "erase", capture, "--rationale", "bench", "--yes", "--as", BOSS], env,
                           python)
            results[label] = {
                "recompile": {k: v for k, v in recompile.items() if k != "out"},
                "erase": {k: v for k, v in erase.items() if k != "out"},
                "erase_residue": len(json.loads(str(erase["out"]))["residue"]),
            }
            print(label, json.dumps(results[label]), file=sys.stderr, flush=True)
        print(json.dumps({"public_captures": args.public, "runs": results}, indent=1))


if __name__ == "__main__":
    main()
