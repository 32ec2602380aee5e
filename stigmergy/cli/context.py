"""The context every command gets as `ctx.obj`: the service the app's callback (the composition root in
`cli/app.py`) built once, and whether to print JSON. Resolving who calls (the reader, the submitter) from
--as, the environment and the Git identity happens here, lazily; nothing below the CLI reads the
environment."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from stigmergy.errors import UsageError
from stigmergy.service import Identity, WikiService


@dataclass(frozen=True)
class AppContext:
    service: WikiService
    json: bool
    reader_given: bool = False  # --as was given (globally or to the command): `maintain` acts as that reader

    def as_reader(self, reader: str | None) -> AppContext:
        """This context with a command's own `--as` (validated like the global one)."""
        if reader is None:
            return self
        svc = self.service
        return dataclasses.replace(self, service=svc.with_identity(identity(reader, svc.env, svc.root)),
                                   reader_given=True)


def identity(reader_override: str | None, env: Mapping[str, str], root: Path | None) -> Identity:
    """Who calls, resolved on first use: only reading commands need the reader, and a `git config` process
    per command start is not free."""
    return Identity(lambda: resolve_reader(reader_override, env, root), lambda: submitter(root or Path.cwd()))


def resolve_reader(reader_override: str | None, env: Mapping[str, str], root: Path | None) -> str:
    """--as, else STIGMERGY_READER, else git user.email. An identity given but empty is a usage error,
    never a fall-back to the Git e-mail: `--as ''` from a script whose variable went unset must not read as
    whoever runs it."""
    if reader_override is not None:
        if not reader_override.strip():
            raise UsageError("--as is empty: name the reader's identity (a Git e-mail)")
        return reader_override.strip()
    value = env.get("STIGMERGY_READER")
    if value is not None:
        if not value.strip():
            raise UsageError("STIGMERGY_READER is set but empty: name the reader's identity, or unset it")
        return value.strip()
    return git_config(root or Path.cwd(), "user.email")


def submitter(cwd: Path) -> str:
    name, email = git_config(cwd, "user.name"), git_config(cwd, "user.email")
    if name and email:
        return f"{name} <{email}>"
    return name or email or "unknown"


def git_config(cwd: Path, key: str) -> str:
    """A value of the user's git configuration ('' when unset or git is missing)."""
    try:
        out = subprocess.run(["git", "config", key], cwd=cwd, capture_output=True, text=True)
    except OSError:
        return ""
    return out.stdout.strip()
