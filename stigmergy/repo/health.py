"""Repository health: `fsck` (evidence hashes and source pages' artifacts) and `status`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stigmergy.capture.evidence import sha256_hex
from stigmergy.errors import ContractError
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.layout import classify
from stigmergy.repo.operations import Repository


@dataclass
class FsckReport:
    objects: int = 0
    sources: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "objects": self.objects, "sources": self.sources, "problems": self.problems}


def source_paths(repo: Repository) -> list[str]:
    files = repo.git.ls_files("sources", "layers")
    untracked = [
        line[3:] for line in repo.git.status_porcelain("sources", "layers") if line.startswith("?? ")
    ]
    return sorted(p for p in {*files, *untracked} if (c := classify(p)) and c[0] == "source")


def fsck(repo: Repository) -> FsckReport:
    report = FsckReport()
    store = repo.evidence
    for problem in store.fsck():
        report.problems.append({"object": problem.sha256, "problem": problem.problem})
    report.objects = sum(1 for _ in store.iter_ids())
    bad = {p["object"] for p in report.problems}
    for rel in source_paths(repo):
        report.sources += 1
        try:
            page = parse_source_page((repo.root / rel).read_text(encoding="utf-8"), rel)
        except (ContractError, OSError, UnicodeDecodeError) as exc:
            report.problems.append({"path": rel, "problem": getattr(exc, "message", str(exc))})
            continue
        for art in page.artifacts:
            for key, oid in (("original", art.sha256), ("readable", art.readable_sha256)):
                if not store.has(oid):
                    report.problems.append({"path": rel, "object": oid, "problem": f"{key} object is missing"})
                elif oid in bad:
                    report.problems.append({"path": rel, "object": oid, "problem": f"{key} object is corrupt"})
            if store.has(art.readable_sha256) and art.readable_sha256 not in bad:
                readable = store.get(art.readable_sha256, verify=False)
                if sha256_hex(page.text.encode("utf-8")) != art.readable_sha256 and readable.decode("utf-8", "replace") != page.text:
                    report.problems.append({"path": rel, "problem": "page text differs from its readable object"})
    return report


def status(repo: Repository) -> dict[str, Any]:
    state = repo.reader_state()
    counts = state.counts()
    ops = state.operations(limit=1)
    pending = [
        {"capture_id": cid, "locator": env.get("locator"), "op_id": op} for cid, op, env, _ in state.pending()
    ]
    head = repo.git.head()
    dirty = [line for line in repo.git.status_porcelain("sources", "wiki", "layers") if line]
    index = {"present": repo.layout.index_db.is_file(), "commit": None, "behind_head": None}
    if index["present"]:
        import sqlite3

        try:
            conn = sqlite3.connect(f"file:{repo.layout.index_db}?mode=ro", uri=True)
            row = conn.execute("SELECT value FROM meta WHERE key='commit'").fetchone()
            conn.close()
            index["commit"] = row[0] if row else None
            index["behind_head"] = index["commit"] != head
        except sqlite3.Error:
            index["commit"] = None
    return {
        "root": str(repo.root),
        "head": head,
        "last_operation": ops[0].to_dict() if ops else None,
        "pending": pending,
        "counts": counts,
        "index": index,
        "health": {
            "uncommitted_wiki_changes": len(dirty),
            "ok": not pending and not index["behind_head"],
        },
    }
