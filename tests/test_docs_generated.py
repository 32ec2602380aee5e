"""docs/cli.md and docs/schema.md are generated from the code (scripts/gen_docs.py): a command, option,
exit code, table or JSON field that changes without the docs fails here. Fix: `python scripts/gen_docs.py`."""

from __future__ import annotations

from conftest import REPO_ROOT, load_script


def _generator():  # noqa: ANN202
    return load_script("gen_docs")


def test_generated_docs_match_the_code() -> None:
    gen = _generator()
    for rel, make in gen.TARGETS.items():
        committed = (REPO_ROOT / rel).read_text(encoding="utf-8")
        assert committed == make(), f"{rel} is out of date: run `python scripts/gen_docs.py`"


def test_every_command_and_option_is_in_the_reference() -> None:
    import typer

    from stigmergy.cli.app import app

    text = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    root = typer.main.get_command(app)
    for name, cmd in root.commands.items():
        if getattr(cmd, "hidden", False):
            continue
        assert f"### `stigmergy {name}" in text
        for param in cmd.params:
            if param.param_type_name == "option" and not getattr(param, "hidden", False):
                assert f"`{param.opts[0]}`" in text, (name, param.opts)
