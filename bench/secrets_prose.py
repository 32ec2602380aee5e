"""False refusals of the credential check on public documentation, and the prose secrets it must catch.

Each file of a corpus goes through the capture path's own read step (`capture.queue.read_input`:
extraction, then the credential check on the original, the readable text and the metadata), and a file
refused as holding a credential counts as a false refusal: documentation that shows how to set a password
is not a leak. The corpora are documentation we did not write, fetched from Debian's package registry:

- Python's standard-library reference (`python3.11-doc`: the HTML pages under `library/`, and all of its
  HTML pages);
- git's manual (`git-doc`: its HTML pages);
- with `--pinned NAME ...`, the pinned corpora of bench/corpora.py (fetched into bench/out/ and checked
  against their SHA-256): `git` (git 2.39.5's manual, 247 .txt files), `sphinx` (Sphinx 8.1.3's docs, 149
  .rst), `pytest` (pytest 8.3.4's docs, 247 .rst);
- `sample_corpus/` (none may be refused).

Then the prose examples of issue #26 (and a few more of the same kinds) must each be caught.

    .venv/bin/python bench/secrets_prose.py [--fetch DIR] [--corpus DIR] [--pinned git sphinx pytest] [--json out.json]

`--fetch DIR` runs `apt-get download python3.11-doc git-doc` into DIR and unpacks them (needs apt; run
`apt-get update` once first). Target: at most 1% of the files of each public corpus refused, none of
sample_corpus/, every prose secret caught.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stigmergy.capture.inputs import InputItem  # noqa: E402
from stigmergy.capture.queue import read_input  # noqa: E402
from stigmergy.errors import InputError  # noqa: E402
from stigmergy.settings import CaptureSettings  # noqa: E402

PACKAGES = ("python3.11-doc", "git-doc")
# Written for this bench from the report; worded as people write in notes and chat.
PROSE_SECRETS = (
    "Use aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "The db password is Tr0ub4dor-3-horse",
    "the staging password is now Gr33n-Lantern-77, please don't share it",
    "Login for the vendor portal: user ops, password Vx9#kq2LmZ",
    "Slack token xoxb-2231873412-8273649182-AbCdEfGhIjKlMnOpQrStUvWx",
    "API key for the maps service: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "the root passphrase is correct-horse-battery-staple-91",
    "new prod db pwd: hT7!rQ2zW9",
)
# Placeholders and documentation examples: never a credential.
NOT_SECRETS = (
    "password=secret",
    "Set the token to <token> in the config.",
    "export API_KEY=xxxx",
    "The password is stored in the keyring; use getpass() to prompt for it.",
    "For example, set password: changeme in the sample config.",
    "Enter your password when prompted.",
    "the secret sauce is our onboarding",
    "password = ${DB_PASSWORD}",
)


def fetch(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=dest, check=True, capture_output=True)
    for deb in sorted(dest.glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(dest / "x")], check=True)
    return dest / "x"


def corpora(root: Path, every: bool) -> dict[str, list[Path]]:
    py = sorted(root.glob("usr/share/doc/python3.11/html/**/*.html"))
    out = {
        "python3.11-doc library/": [p for p in py if "/library/" in p.as_posix()],
        "git-doc (HTML manual)": sorted(root.glob("usr/share/doc/git-doc/**/*.html")),
    }
    if every:
        out["python3.11-doc (all HTML)"] = py
    return out


def refused(paths: list[Path], limits: CaptureSettings) -> tuple[list[str], float]:
    out = []
    start = time.perf_counter()
    for path in paths:
        data = path.read_bytes()
        item = InputItem(locator=path.name, read=lambda data=data: data, size=len(data))
        try:
            read_input(item, limits)
        except InputError as exc:
            if exc.rule == "secret":
                out.append(f"{path.name}: {exc.detail}")
    return out, time.perf_counter() - start


def prose(limits: CaptureSettings) -> dict[str, list[str]]:
    caught, missed, false = [], [], []
    for text in PROSE_SECRETS:
        _, got = refused_text(text, limits)
        (caught if got else missed).append(text)
    for text in NOT_SECRETS:
        _, got = refused_text(text, limits)
        if got:
            false.append(text)
    return {"caught": caught, "missed": missed, "placeholders_refused": false}


def refused_text(text: str, limits: CaptureSettings) -> tuple[str, bool]:
    data = text.encode()
    item = InputItem(locator="note.txt", read=lambda: data, size=len(data))
    try:
        read_input(item, limits)
    except InputError as exc:
        return exc.detail, exc.rule == "secret"
    return "", False


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fetch", type=Path, help="download and unpack the documentation packages here")
    ap.add_argument("--corpus", type=Path, help="an unpacked tree (the `x` folder --fetch makes)")
    ap.add_argument("--all", action="store_true", help="also every HTML page of python3.11-doc (slow)")
    ap.add_argument("--pinned", nargs="*", default=[], help="bench/corpora.py corpora: git, sphinx, pytest")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    root = fetch(args.fetch) if args.fetch else args.corpus
    limits = CaptureSettings()
    results: dict[str, object] = {"load": Path("/proc/loadavg").read_text().split()[:3]}
    sets = corpora(root, args.all) if root else {}
    if args.pinned:
        sys.path.insert(0, str(ROOT / "bench"))
        from corpora import CORPORA, default_out

        for name in args.pinned:
            c = CORPORA[name]
            sets[f"{c.label} ({c.include})"] = sorted(c.fetch(default_out(name)).rglob(c.include))
    sets["sample_corpus/"] = sorted(p for p in (ROOT / "sample_corpus").rglob("*") if p.is_file())
    for name, paths in sets.items():
        bad, took = refused(paths, limits)
        results[name] = {"files": len(paths), "refused": len(bad), "percent": round(100 * len(bad) / max(1, len(paths)), 2),
                         "seconds": round(took, 1), "which": bad}
        print(f"{name:28} {len(bad):4} of {len(paths):4} refused ({results[name]['percent']}%)  {took:6.1f} s")
        for line in bad:
            print(f"    {line}")
    results["prose"] = p = prose(limits)
    print(f"prose secrets caught: {len(p['caught'])} of {len(PROSE_SECRETS)}; placeholders refused: "
          f"{len(p['placeholders_refused'])} of {len(NOT_SECRETS)}")
    for text in p["missed"]:
        print(f"    missed: {text}")
    for text in p["placeholders_refused"]:
        print(f"    refused placeholder: {text}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
