"""Hermetic tests: every test gets its own HOME, Git identity and configuration, and no STIGMERGY_* env."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolate(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(("STIGMERGY_", "GIT_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test Person\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
    )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def run_cli(args: list[str], cwd: Path, input: bytes | None = None, env: dict[str, str] | None = None):
    """Run the real `stigmergy` entry point in-process; returns (exit_code, stdout, stderr)."""
    from typer.testing import CliRunner

    from stigmergy.cli.app import app

    runner = CliRunner()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(app, args, input=input, env=env, catch_exceptions=False)
    finally:
        os.chdir(old)
    _assert_declared_exit(args, result.exit_code)
    return result.exit_code, result.stdout, result.stderr


def _assert_declared_exit(args: list[str], code: int) -> None:
    """Every command run by the suite ends with a code that `EXTRA_EXIT_CODES` (and so docs/cli.md)
    declares for it: a new exit path without its line in the table fails the test that takes it."""
    import typer

    from stigmergy.cli.app import EXTRA_EXIT_CODES, app

    root = typer.main.get_command(app)
    takes_value = {o for p in root.params if not p.is_flag for o in p.opts}
    rest = iter(args)
    for arg in rest:
        if arg in takes_value:
            next(rest, None)
        elif not arg.startswith("-"):
            if arg in root.commands:
                declared = (0, 1, 2, *EXTRA_EXIT_CODES.get(arg, ()))
                assert code in declared, f"`stigmergy {arg}` ended {code}, not declared in EXTRA_EXIT_CODES"
            return


def run_cli_process(args: list[str], cwd: Path, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    """Run `python -m stigmergy` in a child process (for crash and concurrency tests)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "stigmergy", *args], cwd=cwd, env=full_env, capture_output=True, text=True, **kw
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """A fresh knowledge repository made by `stigmergy init`."""
    from stigmergy.repo.init import init_repository

    root = tmp_path / "wiki"
    init_repository(root)
    return root


def load_script(name: str, folder: str = "scripts"):  # noqa: ANN201
    """A script of scripts/ (or of another folder that is not a package) imported as a module, for the tests that
    check what it says."""
    import importlib.util

    key = name if folder == "scripts" else f"{folder}_{name}"
    spec = importlib.util.spec_from_file_location(key, REPO_ROOT / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[key] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def load_bench(name: str):  # noqa: ANN201
    """A bench module (bench/ stays off the path: bench modules load by file)."""
    return load_script(name, "bench")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


# ---------------------------------------------------------------- real servers, one of each per session

@pytest.fixture(scope="session")
def pg_server():  # noqa: ANN201
    """A real PostgreSQL with pgvector on 127.0.0.1 for the whole session (tests/servers.py)."""
    from servers import Postgres

    server = Postgres.start()
    yield server
    server.stop()


@pytest.fixture
def pg_env(pg_server, request: pytest.FixtureRequest) -> dict[str, str]:  # noqa: ANN001
    """Settings (as environment variables) that put the index in a schema of its own on `pg_server`."""
    import hashlib

    schema = "t_" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:16]
    return {"STIGMERGY_INDEX__BACKEND": "postgres", "STIGMERGY_INDEX__URL": pg_server.url,
            "STIGMERGY_INDEX__SCHEMA": schema}


@pytest.fixture(params=["sqlite", "postgres"])
def index_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """Each index backend in turn: {} (SQLite, the default) or a PostgreSQL schema of this test's own."""
    if request.param == "sqlite":
        return {}
    return request.getfixturevalue("pg_env")


@pytest.fixture(scope="session")
def s3_server():  # noqa: ANN201
    """moto's S3-protocol server on 127.0.0.1 for the whole session (tests/servers.py)."""
    from servers import S3Server

    server = S3Server.start()
    yield server
    server.stop()


@pytest.fixture
def s3_env(s3_server, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:  # noqa: ANN001
    """Settings (as environment variables) that put the evidence in a bucket of this test's own on
    `s3_server`; the loopback server's credentials go where the standard AWS chain finds them."""
    import hashlib

    import boto3
    from servers import S3_TEST_ENV

    for key, value in S3_TEST_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    bucket = "t-" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:20]
    boto3.client("s3", endpoint_url=s3_server.endpoint).create_bucket(Bucket=bucket)
    return {"STIGMERGY_EVIDENCE__BACKEND": "s3", "STIGMERGY_EVIDENCE__BUCKET": bucket,
            "STIGMERGY_EVIDENCE__ENDPOINT_URL": s3_server.endpoint, "STIGMERGY_EVIDENCE__PREFIX": "wiki/"}
