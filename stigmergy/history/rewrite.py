"""Rewrite every commit of every ref without the erased captures, with git-filter-repo, then drop every
object and reflog entry that still holds the old bytes.

git-filter-repo is used as a library, in a child process (`python -I -m stigmergy.history.rewrite SPEC`,
isolated so that the repository it runs in, anyone's to push to, is not on its module path):
it works on the current directory, prints, and exits the process on error, none of which a library
caller should inherit. Its `file_info_callback` sees each file change with its path and blob, so one
callback drops the erased paths and scrubs every page version (`scrub.PageScrubber`), each distinct blob
once. Commits left empty are pruned by filter-repo; the messages of the erased captures' own operations
are replaced, and erased ids are blanked from every message.

`--partial` keeps filter-repo from turning `refs/remotes/origin/*` into local branches and from removing
the `origin` remote; the caller deletes the remote-tracking refs that held erased commits (they no longer
describe the remote truthfully) and this module expires the reflogs and prunes itself.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from stigmergy.repo.child import python_argv
from stigmergy.repo.git import Git

ERASED_MESSAGE = "erased: an operation of an erased capture"
_OP_TRAILER_RE = re.compile(rb"^Stigmergy-Operation: (\S+)$", re.M)
_KIND_TRAILER_RE = re.compile(rb"^Stigmergy-Kind: (\S+)$", re.M)


@dataclass(frozen=True)
class RewriteSpec:
    erased: tuple[str, ...]  # capture ids
    drop_paths: tuple[str, ...] = ()  # files removed from every commit (the erased source pages)
    drop_prefixes: tuple[str, ...] = ()  # folders removed from every commit (an erased layer)
    dead_pages: tuple[str, ...] = ()  # wiki pages the erasure deletes (links to them become plain text)
    erased_ops: tuple[str, ...] = ()  # operation ids whose commit messages are replaced
    # A layer's own repository (checked out at `layers/<l>/`): `prefix` is that folder, and every path above
    # is one of the wiki's working tree at `root` (where its settings and pages are read), not the layer's.
    prefix: str = ""
    root: str = ""


def _read_commit_map(path: Path) -> dict[str, str | None]:
    mapping: dict[str, str | None] = {}
    if path.is_file():
        for line in path.read_text().splitlines()[1:]:
            old, _, new = line.partition(" ")
            mapping[old] = None if set(new.strip()) <= {"0"} else new.strip()
    return mapping


def compose(first: dict[str, str | None], then: dict[str, str | None]) -> dict[str, str | None]:
    """The mapping of two rewrites run one after the other (a resumed erase reruns the rewrite)."""
    out = {old: (then.get(new, new) if new else None) for old, new in first.items()}
    for old, new in then.items():
        out.setdefault(old, new)
    return out


def rewrite_history(
    root: Path, spec: RewriteSpec, previous: dict[str, str | None] | None = None
) -> tuple[dict[str, str | None], list[str]]:
    """Run the rewrite; return ({old commit: new commit, or None when it was pruned as empty}, the paths
    some version of which the rewrite removed). The mapping is composed with `previous` (the mapping of an
    earlier, interrupted attempt) and with the commit map an interrupted filter-repo run left behind."""
    git_dir = Path(Git(root).run("rev-parse", "--absolute-git-dir").strip())
    work = git_dir / "stigmergy-erase"
    work.mkdir(exist_ok=True)
    spec_file = work / "spec.json"
    spec_file.write_text(json.dumps(asdict(spec)))
    previous = compose(previous or {}, _read_commit_map(git_dir / "filter-repo" / "commit-map"))
    # filter-repo refuses a second run in the same repository unless asked; a resumed erase is one.
    shutil.rmtree(git_dir / "filter-repo", ignore_errors=True)
    proc = subprocess.run(
        python_argv("stigmergy.history.rewrite", str(spec_file)),
        cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        from stigmergy.errors import StigmergyError

        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise StigmergyError(
            "git-filter-repo could not rewrite the history: " + " | ".join(tail),
            hint="`stigmergy resume` finishes the erase",
        )
    mapping = compose(previous, _read_commit_map(git_dir / "filter-repo" / "commit-map"))
    gone_file = work / "gone.json"
    gone = json.loads(gone_file.read_text()) if gone_file.exists() else []
    shutil.rmtree(git_dir / "filter-repo", ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    return mapping, gone


def drop_unreachable(root: Path) -> None:
    """Expire every reflog entry and prune every object no ref reaches, packed or loose."""
    git = Git(root)
    git_dir = Path(git.run("rev-parse", "--absolute-git-dir").strip())
    for name in ("ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "AUTO_MERGE"):
        (git_dir / name).unlink(missing_ok=True)
    git.run("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    git.run("-c", "gc.cruftPacks=false", "gc", "--quiet", "--prune=now")
    git.run("prune", "--expire=now")


# ---------------------------------------------------------------- the child process


def _callbacks(root: Path, spec: RewriteSpec) -> tuple[Any, Any, set[str]]:
    from stigmergy.history.scrub import PageScrubber, map_texts, sweep_working_tree
    from stigmergy.settings import load_settings
    from stigmergy.trust.records import batch_layer
    from stigmergy.trust.records import without as without_records

    if spec.root:
        root = Path(spec.root)
    settings = load_settings(root, env={})
    on_disk = [p for p in spec.drop_paths if (root / p).is_file()]
    head, snapshot = sweep_working_tree(root, settings, on_disk, "1970-01-01T00:00:00Z")
    dead = {p: snapshot.texts.get(p, "") for p in spec.dead_pages}
    scrubber = PageScrubber(
        root, settings, spec.erased, spec.drop_paths, dead,
        {rel: (snapshot.texts[rel], text) for rel, text in head.items() if rel in snapshot.texts}
        | {rel: (old, head[rel]) for rel, old in map_texts(root, head).items()},
    )
    erased = frozenset(spec.erased)
    dead_paths = frozenset(spec.dead_pages)
    drop_paths = {p.encode() for p in spec.drop_paths}
    drop_prefixes = tuple(p.encode() for p in spec.drop_prefixes)
    erased_ops = {o.encode() for o in spec.erased_ops}
    prefix = spec.prefix.encode()
    gone: set[str] = set()  # paths some version of which was removed (reported to the caller)
    scrubbed: dict[tuple[bytes, bytes], bytes | None] = {}  # (path, blob id) -> new blob id; None: the page goes

    def file_info(local: bytes, mode: bytes, blob_id: bytes, value: Any) -> tuple[Any, Any, Any]:
        filename = prefix + local  # judged by its path in the wiki's working tree; returned as this repository's
        if filename in drop_paths or filename.startswith(drop_prefixes):
            gone.add(filename.decode("utf-8", "surrogateescape"))
            return None, mode, blob_id
        if filename.endswith(b".jsonl") and mode in (b"100644", b"100755") and batch_layer(
                filename.decode("utf-8", "surrogateescape")) is not None:
            # A feedback batch: its records about an erased capture (or a page that goes) go with it.
            key = (filename, blob_id)
            if key not in scrubbed:
                data = value.get_contents_by_identifier(blob_id)
                text = data.decode("utf-8", "surrogateescape") if data is not None else ""
                kept = without_records(text, erased, dead_paths)
                scrubbed[key] = (blob_id if kept == text else None if not kept
                                 else value.insert_file_with_contents(kept.encode("utf-8", "surrogateescape")))
            if scrubbed[key] is None:
                gone.add(filename.decode("utf-8", "surrogateescape"))
                return local, None, blob_id
            return local, mode, scrubbed[key]
        if not filename.endswith(b".md") or mode not in (b"100644", b"100755"):
            return local, mode, blob_id
        key = (filename, blob_id)
        if key not in scrubbed:
            new_id: bytes | None = blob_id
            data = value.get_contents_by_identifier(blob_id)
            rel = filename.decode("utf-8", "surrogateescape")
            if data is not None and (rel in dead or scrubber.relevant_at(rel, data.decode("utf-8", "replace"))):
                text = data.decode("utf-8", "surrogateescape")
                out = scrubber.scrub(rel, text)
                if out is None:
                    new_id = None
                elif out != text:
                    new_id = value.insert_file_with_contents(out.encode("utf-8", "surrogateescape"))
            scrubbed[key] = new_id
        new = scrubbed[key]
        if new is None:
            gone.add(filename.decode("utf-8", "surrogateescape"))
            return local, None, blob_id  # filter-repo turns this into a deletion
        return local, mode, new

    def commit_cb(commit: Any, _metadata: Any) -> None:
        message: bytes = commit.message
        op = _OP_TRAILER_RE.search(message)
        if op and op.group(1) in erased_ops:
            kind = _KIND_TRAILER_RE.search(message)
            message = (
                f"{ERASED_MESSAGE}\n\n".encode() + op.group(0) + b"\n"
                + (kind.group(0) + b"\n" if kind else b"")
            )
        for cid in erased:
            message = message.replace(cid.encode(), b"cap_[erased]")
        commit.message = message

    return file_info, commit_cb, gone


def _filter_class() -> Any:
    import git_filter_repo as fr

    class _Filter(fr.RepoFilter):  # type: ignore[misc]
        def _prunable(self, commit: Any, new_1st_parent: Any, had_file_changes: bool, orig_parents: Any) -> bool:
            if super()._prunable(commit, new_1st_parent, had_file_changes, orig_parents):
                return True
            # filter-repo 2.47 splits fast-import's `ls` reply on whitespace, so a commit that only deletes
            # or rewrites paths with a space (every wiki page title has one) is never seen as empty. Redo
            # that comparison reading the reply by its format: `missing SP path` or `mode SP type SP id HT path`.
            if len(commit.parents) != 1 or not commit.file_changes or not had_file_changes:
                return False
            _fi_input, fi_output = self._import_pipes
            parent = new_1st_parent or commit.parents[0]
            for change in commit.file_changes:
                quoted = fr.PathQuoting.enquote(change.filename)
                where = b":%d" % parent if isinstance(parent, int) else parent
                self._output.write(b"ls %s %s\n" % (where, quoted))
                self._output.flush()
                reply = fi_output.readline().rstrip(b"\n")
                if change.type == b"D":
                    if not reply.startswith(b"missing "):
                        return False
                    continue
                blob_sha = change.blob_id
                if isinstance(blob_sha, int):
                    self._output.write(b"get-mark :%d\n" % blob_sha)
                    self._output.flush()
                    blob_sha = fi_output.readline().rstrip()
                if reply.partition(b"\t")[0].split() != [change.mode, b"blob", blob_sha]:
                    return False
            return True

    return _Filter


def _main(spec_path: str) -> None:
    import git_filter_repo as fr

    data: dict[str, Any] = json.loads(Path(spec_path).read_text())
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    spec = RewriteSpec(**fields)
    file_info, commit_cb, gone = _callbacks(Path.cwd(), spec)
    args = fr.FilteringOptions.parse_args(["--force", "--partial", "--quiet", "--prune-empty", "auto"])
    _filter_class()(args, file_info_callback=file_info, commit_callback=commit_cb).run()
    Path(spec_path).with_name("gone.json").write_text(json.dumps(sorted(gone)))


if __name__ == "__main__":
    _main(sys.argv[1])
