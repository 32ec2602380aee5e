"""`stigmergy init`: lay out a knowledge repository (DESIGN §2) in a new or existing Git repository."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import UsageError
from stigmergy.repo.git import Git
from stigmergy.repo.ids import new_id
from stigmergy.repo.layout import STATE_DIR, TYPE_FOLDERS, Layout
from stigmergy.repo.operations import utc_now
from stigmergy.repo.state import OperationRow, StateDB
from stigmergy.repo.trailers import commit_message
from stigmergy.settings import CONFIG_FILE, Settings, default_toml

SKILL_FILE = "librarian_skill.md"
GITIGNORE_LINE = f"/{STATE_DIR}/"


def skill_template() -> str:
    return (Path(__file__).resolve().parent.parent / "data" / SKILL_FILE).read_text(encoding="utf-8")


@dataclass(frozen=True)
class InitResult:
    root: Path
    created: tuple[str, ...]
    commit: str | None
    already: bool
    new_git: bool


def init_repository(path: Path, settings: Settings | None = None) -> InitResult:
    settings = settings or Settings()
    root = path.resolve()
    if root.exists() and not root.is_dir():
        raise UsageError(f"{path} exists and is not a directory")
    root.mkdir(parents=True, exist_ok=True)
    git = Git(root)
    new_git = not git.ok("rev-parse", "--git-dir")
    if not new_git:
        top = Path(git.run("rev-parse", "--show-toplevel").strip()).resolve()
        if top != root:
            if any(root.iterdir()):
                raise UsageError(
                    f"{path} is a non-empty folder inside the Git repository {top}",
                    hint=f"run `stigmergy init {top}` to make that repository the wiki, or choose an empty folder",
                )
            # An empty folder inside another repository becomes a wiki of its own (a nested repository,
            # like a submodule checkout): the outer repository is left untouched.
            new_git = True
    if new_git:
        git.run("init", "-q")
    created: list[str] = []

    def write(rel: str, text: str) -> None:
        target = root / rel
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            created.append(rel)

    write(CONFIG_FILE, default_toml())
    write(SKILL_FILE, skill_template())
    for rel in ["sources/.gitkeep", *(f"wiki/{folder}/.gitkeep" for folder in TYPE_FOLDERS.values())]:
        write(rel, "")
    gitignore = root / ".gitignore"
    lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
    if GITIGNORE_LINE not in lines and STATE_DIR not in lines and f"{STATE_DIR}/" not in lines:
        prefix = "" if not lines or gitignore.read_text(encoding="utf-8").endswith("\n") else "\n"
        with gitignore.open("a", encoding="utf-8") as fh:
            fh.write(f"{prefix}{GITIGNORE_LINE}\n")
        created.append(".gitignore")
    Layout(root).state_dir.mkdir(exist_ok=True)
    commit = None
    if created:
        ident = settings.identity
        op_id = new_id("op")
        started = utc_now()
        commit = git.commit_paths(created, commit_message("init", "knowledge repository", op_id), ident.name, ident.email)
        state = StateDB(Layout(root).state_db)
        state.record_operation(
            OperationRow(
                id=op_id, kind="init", status="committed", commit_sha=commit, started_at=started,
                finished_at=utc_now(), summary="knowledge repository",
                manifest={"paths": [{"path": p, "action": "add"} for p in sorted(created)]}, patch_sha=None,
            )
        )
        state.close()
    return InitResult(root=root, created=tuple(created), commit=commit, already=not created, new_git=new_git)
