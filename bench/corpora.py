"""The public corpora of the retrieval benches, each fetched from a package registry with its ordinary client,
checked against a pinned SHA-256 and unpacked into bench/out/ (git-ignored; kept between runs), with the
question set that was written for it before any tuning.

    sphinx  Sphinx 8.1.3 docs: doc/**/*.rst of the PyPI sdist (149 files)      bench/public_questions.json
    git     git 2.39.5 manual: usr/share/doc/git-doc/*.txt of Debian's git-doc   bench/public2_questions.json
            package 1:2.39.5-0+deb12u3 (247 files)
    pytest  pytest 8.3.4 docs: doc/en/**/*.rst of the PyPI sdist (247 files)    bench/public3_questions.json
    pip     pip 25.1.1 docs: docs/html/**/*.md and *.rst of the PyPI sdist         bench/public4_questions.json
            (92 files; the corpus of `ask`'s public sets, its search set written blind on 5 December 2026)

    .venv/bin/python bench/corpora.py git      # fetch and unpack one; prints the folder a capture reads

A corpus's answer folder is named as in the archive (doc/, git-doc/, en/), and a captured file's locator is
that folder's name and the file's path under it, so `hit` matches an expected path by that suffix.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Corpus:
    name: str
    label: str  # the summary line's name
    questions: str  # file under bench/
    include: str  # the globs `stigmergy capture --include` takes, space-separated
    files: int  # how many files the filter keeps (checked after unpacking)
    folder: str  # the answer folder's name, the locators' first part
    fetcher: Callable[[Corpus, Path], Path]
    package: str
    archive: str
    sha256: str
    prefix: str  # the answer folder inside the archive

    def fetch(self, out: Path) -> Path:
        """The unpacked answer folder under `out` (fetched and unpacked once, then reused)."""
        out.mkdir(parents=True, exist_ok=True)
        doc = self.fetcher(self, out)
        found = sum(1 for g in self.globs for _ in doc.rglob(g))
        if found != self.files:
            raise SystemExit(f"{self.name}: {doc} holds {found} {self.include} files, not {self.files}; "
                             f"remove {out} and fetch again")
        return doc

    @property
    def globs(self) -> tuple[str, ...]:
        return tuple(self.include.split())

    def hit(self, loc: str, expected: list[str]) -> bool:
        loc = "/" + loc.replace("\\", "/")
        return any(loc.endswith(f"/{self.folder}/{e}") for e in expected)

    def load_questions(self) -> list[dict]:
        import json

        return json.loads((HERE / self.questions).read_text())["questions"]


def _checked(path: Path, sha256: str) -> Path:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {sha256} (a different build of the pinned version?)")
    return path


def _pip_sdist(c: Corpus, out: Path) -> Path:
    """`pip download` the sdist; unpack the files under `prefix` that the filter keeps (tarfile's data filter)."""
    sdist = out / c.archive
    if not sdist.is_file():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", c.package,
                        "-d", str(out)], check=True, capture_output=True)
    doc = out / c.prefix
    if not doc.is_dir():
        _checked(sdist, c.sha256)
        suffixes = tuple(g.lstrip("*") for g in c.globs)
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(c.prefix) and m.name.endswith(suffixes)]
            tar.extractall(out, members=members, filter="data")
    return doc


def _debian_package(c: Corpus, out: Path) -> Path:
    """`apt-get download PACKAGE=VERSION` (run `apt-get update` first); the data tarball via `dpkg-deb
    --fsys-tarfile`, of which the files directly in `prefix` that the filter keeps (not its howto/ and
    technical/ subfolders), unpacked flat into out/<folder>/."""
    name, _, version = c.package.partition("=")
    deb = out / c.archive
    if not deb.is_file():
        proc = subprocess.run(["apt-get", "download", c.package], cwd=out, capture_output=True, text=True)
        got = sorted(out.glob(f"{name}_*.deb"))
        if proc.returncode or not got:
            raise SystemExit(f"apt-get download {c.package} failed (run `apt-get update` first; the archive may "
                             f"have dropped this version): {proc.stderr.strip()[-500:]}")
        got[0].rename(deb)  # apt names it with the epoch's colon %-escaped
    doc = out / c.folder
    if not doc.is_dir():
        _checked(deb, c.sha256)
        tmp = out / (c.folder + ".partial")
        tmp.mkdir(exist_ok=True)
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        suffix = c.include.lstrip("*")
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                rel = member.name.removeprefix("./")
                if (member.isfile() and rel.startswith(c.prefix) and "/" not in rel[len(c.prefix):]
                        and rel.endswith(suffix)):
                    member.name = rel[len(c.prefix):]
                    tar.extract(member, tmp, filter="data")
        if proc.wait():
            raise SystemExit(f"dpkg-deb --fsys-tarfile {deb} failed")
        tmp.rename(doc)
    return doc


CORPORA = {c.name: c for c in (
    Corpus("sphinx", "public sphinx-8.1.3", "public_questions.json", "*.rst", 149, "doc", _pip_sdist,
           "sphinx==8.1.3", "sphinx-8.1.3.tar.gz",
           "43c1911eecb0d3e161ad78611bc905d1ad0e523e4ddc202a58a821773dc4c927", "sphinx-8.1.3/doc/"),
    Corpus("git", "public git-2.39.5 manual", "public2_questions.json", "*.txt", 247, "git-doc", _debian_package,
           "git-doc=1:2.39.5-0+deb12u3", "git-doc_2.39.5-0+deb12u3_all.deb",
           "3c89668a11053a6bafade3de1f611f4613db31e082af63f43d8c5b69ad8795ec", "usr/share/doc/git-doc/"),
    Corpus("pytest", "public pytest-8.3.4", "public3_questions.json", "*.rst", 247, "en", _pip_sdist,
           "pytest==8.3.4", "pytest-8.3.4.tar.gz",
           "965370d062bce11e73868e0335abac31b4d3de0e82f4007408d242b4f8610761", "pytest-8.3.4/doc/en/"),
    Corpus("pip", "public pip-25.1.1", "public4_questions.json", "*.md *.rst", 92, "html", _pip_sdist,
           "pip==25.1.1", "pip-25.1.1.tar.gz",
           "3de45d411d308d5054c2168185d8da7f9a2cd753dbac8acbfa88a8909ecd9077", "pip-25.1.1/docs/html/"),
)}


def default_out(name: str) -> Path:
    """bench/out/public for Sphinx (where the first bench has always kept it), bench/out/public-NAME else."""
    return HERE / "out" / ("public" if name == "sphinx" else f"public-{name}")


if __name__ == "__main__":
    for arg in sys.argv[1:] or list(CORPORA):
        print(CORPORA[arg].fetch(default_out(arg)))
