"""The context every command gets as `ctx.obj`: resolved once by the app's callback (the composition
root in `cli/app.py`), frozen, and passed down. Nothing below the CLI reads the environment."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from stigmergy.errors import NotARepositoryError, UsageError
from stigmergy.settings import Settings

if TYPE_CHECKING:
    from stigmergy.repo.operations import Repository


@dataclass(frozen=True)
class AppContext:
    root: Path | None
    settings: Settings
    json: bool
    env: dict[str, str]
    reader_override: str | None = None

    @cached_property
    def reader(self) -> str:
        """Who reads (--as, else STIGMERGY_READER, else git user.email). Resolved on first use: only
        reading commands need it, and a `git config` process per command start is not free.

        An identity given but empty is a usage error, never a fall-back to the Git e-mail: `--as ''` from a
        script whose variable went unset must not read as whoever runs it."""
        if self.reader_override is not None:
            if not self.reader_override.strip():
                raise UsageError("--as is empty: name the reader's identity (a Git e-mail)")
            return self.reader_override.strip()
        env = self.env.get("STIGMERGY_READER")
        if env is not None:
            if not env.strip():
                raise UsageError("STIGMERGY_READER is set but empty: name the reader's identity, or unset it")
            return env.strip()
        return git_config(self.root or Path.cwd(), "user.email")

    def require_root(self) -> Path:
        if self.root is None:
            raise NotARepositoryError(
                "not inside a stigmergy repository", hint="run `stigmergy init` first, or pass --repo PATH"
            )
        return self.root

    @property
    def pause_points(self) -> frozenset[str]:
        """Crash-test stops named by STIGMERGY_PAUSE_AT (see `Repository.pause`)."""
        raw = self.env.get("STIGMERGY_PAUSE_AT", "")
        return frozenset(p.strip() for p in raw.split(",") if p.strip())

    def repository(self) -> Repository:
        from stigmergy.repo.operations import Repository

        return Repository(self.require_root(), self.settings, pause_at=self.pause_points)


def git_config(cwd: Path, key: str) -> str:
    """A value of the user's git configuration ('' when unset or git is missing)."""
    try:
        out = subprocess.run(["git", "config", key], cwd=cwd, capture_output=True, text=True)
    except OSError:
        return ""
    return out.stdout.strip()
