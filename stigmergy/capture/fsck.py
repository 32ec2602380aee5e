"""`stigmergy fsck`: every evidence object re-hashed, and every source page checked against the
artifacts it names (present, intact, and its text equal to its readable object)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.layers import path_layer
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.evidence import sha256_hex, verify_objects
from stigmergy.repo.git import blob_sha
from stigmergy.repo.layout import classify
from stigmergy.repo.operations import Repository


@dataclass
class FsckReport:
    objects: int = 0
    sources: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)
    # Original bytes of captures rebuilt from Git (a clone, a lost `.stigmergy/`): not corruption.
    absent: list[dict[str, str]] = field(default_factory=list)
    hidden_problems: int = 0  # in layers the reader cannot read: counted, never named
    hidden_absent: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.hidden_problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "objects": self.objects, "sources": self.sources, "problems": self.problems,
            "absent": self.absent, "hidden": {"problems": self.hidden_problems, "absent": self.hidden_absent},
        }

    def scoped(self, readable: set[str]) -> FsckReport:
        """What a reader of `readable` may see: entries naming a source page of another layer become counts
        (the exit code stays honest); entries naming only an object or an operation id stay."""

        def seen(entry: dict[str, str]) -> bool:
            path = entry.get("path")
            return not path or path_layer(path) in readable

        return FsckReport(
            objects=self.objects, sources=self.sources,
            problems=[p for p in self.problems if seen(p)], absent=[a for a in self.absent if seen(a)],
            hidden_problems=self.hidden_problems + sum(1 for p in self.problems if not seen(p)),
            hidden_absent=self.hidden_absent + sum(1 for a in self.absent if not seen(a)),
        )


ABSENT = "original bytes not present here (captured in another clone, or `.stigmergy/` was lost); re-capture the file to restore them"


def source_paths(repo: Repository, checkouts: bool = False) -> list[str]:
    """Source pages of this repository (tracked or new); with `checkouts`, also those of each layer kept in
    a repository of its own and checked out here, by their path in this working tree."""
    files = repo.git.ls_files("sources", "layers")
    untracked = [
        line[3:] for line in repo.git.status_porcelain("sources", "layers") if line.startswith("?? ")
    ]
    if checkouts:
        for layer in sorted(repo.own_repository_layers):
            if (repo.root / "layers" / layer / ".git").exists():
                git = repo.layer_git(layer)
                files += [f"layers/{layer}/{p}" for p in git.ls_files("sources")]
                untracked += [f"layers/{layer}/{line[3:]}" for line in git.status_porcelain("sources")
                              if line.startswith("?? ")]
    return sorted(p for p in {*files, *untracked} if (c := classify(p)) and c[0] == "source")


def _object_state(store: Any, oid: str, bad: set[str]) -> str:
    if not store.has(oid):
        return "missing"
    return "corrupt" if oid in bad else "ok"


def fsck(repo: Repository) -> FsckReport:
    """Every evidence object re-hashed; every object a record names present and intact; every source page
    byte-identical (front matter and body) to what its capture committed."""
    report = FsckReport()
    store = repo.evidence
    for problem in verify_objects(store):
        report.problems.append({"object": problem.sha256, "problem": problem.problem})
    report.objects = sum(1 for _ in store.iter_ids())
    bad = {p["object"] for p in report.problems}
    state = repo.reader_state()
    captures = {r.capture_id: r for r in state.captures()}
    pending = {p.capture_id for p in state.pending()}
    for op in state.operations(limit=1_000_000):
        if op.patch_sha and _object_state(store, op.patch_sha, bad) == "missing":
            report.problems.append({"operation": op.id, "object": op.patch_sha, "problem": "patch object is missing"})
    for row in captures.values():
        if _object_state(store, row.content_sha, bad) == "missing":
            entry = {"path": row.source_path, "object": row.content_sha}
            if row.rebuilt:
                report.absent.append({**entry, "problem": ABSENT})
            else:
                report.problems.append({**entry, "problem": "original object is missing; re-capture the file to restore it"})
    for rel in source_paths(repo):
        report.sources += 1
        try:
            data = (repo.root / rel).read_bytes()
            page = parse_source_page(data.decode("utf-8"), rel)
        except (ContractError, OSError, UnicodeDecodeError) as exc:
            report.problems.append({"path": rel, "problem": getattr(exc, "message", str(exc))})
            continue
        row = captures.get(page.id)
        if row is None or row.source_path != rel:
            if page.id not in pending:
                report.problems.append({"path": rel, "problem": "no capture wrote this source page (it has no capture record)"})
        else:
            committed = _committed_blob(state, row.op_id, rel)
            if committed is not None and committed != blob_sha(data):
                report.problems.append(
                    {"path": rel, "problem": "source page differs from what its capture committed (front matter or body changed)"}
                )
        for art in page.artifacts:
            for key, oid in (("original", art.sha256), ("readable", art.readable_sha256)):
                state_of = _object_state(store, oid, bad)
                if state_of == "corrupt":
                    report.problems.append({"path": rel, "object": oid, "problem": f"{key} object is corrupt"})
                elif state_of == "missing" and key == "readable":
                    report.problems.append({"path": rel, "object": oid, "problem": "readable object is missing"})
                elif state_of == "missing" and row is None:
                    report.problems.append({"path": rel, "object": oid, "problem": "original object is missing"})
            if art is not page.artifacts[0]:
                continue  # a carried file (a mail's attachment): its text is a section of the page, not all of it
            if store.has(art.readable_sha256) and art.readable_sha256 not in bad:
                readable = store.get(art.readable_sha256, verify=False)
                if sha256_hex(page.text.encode("utf-8")) != art.readable_sha256 and readable.decode("utf-8", "replace") != page.text:
                    report.problems.append({"path": rel, "problem": "page text differs from its readable object"})
    state.close()
    return report


def _committed_blob(state: Any, op_id: str, rel: str) -> str | None:
    op = state.operation(op_id)
    if op is None:
        return None
    for entry in op.manifest.get("paths", []):
        if entry.get("path") == rel and entry.get("action") == "add":
            return entry.get("after")
    return None
