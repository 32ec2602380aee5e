"""One error hierarchy; each class carries the process exit code the CLI maps it to.

Exit codes: 0 ok, 1 failure, 2 usage, 3 refused by a gate, 4 a check found problems.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_CHECK = 4


class StigmergyError(Exception):
    """Base of every expected failure. `message` says what happened; `hint` says what to do."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class GitError(StigmergyError):
    """A git command failed (`stigmergy.repo.git` runs them; `repo/plumbing.py` writes a commit as one)."""


class UsageError(StigmergyError):
    exit_code = EXIT_USAGE


class NotARepositoryError(UsageError):
    pass


class ConfigError(UsageError):
    pass


class InputError(StigmergyError):
    """An input to capture was refused (limit, unsupported, empty, undecodable, missing)."""

    def __init__(self, locator: str, rule: str, message: str, hint: str | None = None) -> None:
        super().__init__(f"{locator}: {message} [{rule}]", hint)
        self.locator = locator
        self.rule = rule
        self.detail = message  # the message without the locator and rule around it


class LockTimeoutError(StigmergyError):
    pass


class ContractError(StigmergyError):
    """An on-disk format (source page, wiki page, citation, contradiction block) is not canonical."""


class PlanSchemaError(StigmergyError):
    """A plan does not match the plan schema."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("plan is out of schema: " + "; ".join(reasons[:5]))
        self.reasons = reasons


class CheckFailedError(StigmergyError):
    exit_code = EXIT_CHECK


class IndexMissingExtensionError(StigmergyError):
    pass


class PlannerError(StigmergyError):
    """The planner could not produce a plan (endpoint down, reply unusable after retries)."""


class NotFoundError(StigmergyError):
    pass
