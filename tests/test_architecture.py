"""Imports point down the layers (docs/architecture.md). Each package names the packages it may import;
a package not named here is an error (add it, at its layer). Exceptions go in ALLOWLIST, module by
module, with the reason; a test fails when an allowlisted import is gone, so the list stays pruned."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO_ROOT, load_script

PACKAGE_DIR = REPO_ROOT / "stigmergy"

_FOUNDATION = {"errors", "settings"}
# Bottom to top. `repo` is the ground: Git, layout, lock, state, evidence store, operations.
MAY_IMPORT: dict[str, set[str]] = {
    "errors": set(),
    "settings": {"errors"},
    "layers": _FOUNDATION,
    # Declarations of the reading commands' --json shapes (docs/schema.md, tests/test_json_shapes.py).
    "json_shapes": set(),
    "repo": _FOUNDATION,
    "pages": _FOUNDATION | {"repo"},
    "capture": _FOUNDATION | {"layers", "repo", "pages"},
    "plan": _FOUNDATION | {"layers", "repo", "pages"},
    "gates": _FOUNDATION | {"layers", "repo", "pages", "plan"},
    "index": _FOUNDATION | {"layers", "repo", "pages"},
    # Maintenance: builds the changes of garden, delete, merge, rename, recompile for the gates to judge.
    "garden": _FOUNDATION | {"layers", "repo", "pages", "plan", "gates", "index"},
    # History-wide work: the per-version scrub and filter-repo rewrite of an erase, purges, the residue
    # audit, the export bundle.
    "history": _FOUNDATION | {"layers", "repo", "pages", "index", "garden"},
    "write": _FOUNDATION | {"layers", "repo", "pages", "capture", "plan", "gates", "index", "garden", "history"},
    # Answers from the wiki (ask): reads through index/, checks figures with the gates' normaliser.
    "answer": _FOUNDATION | {"layers", "repo", "pages", "gates", "index"},
    # The agents' interface: the same library calls as the CLI, beside it at the top.
    "mcp": _FOUNDATION | {"layers", "repo", "pages", "capture", "index", "write", "answer"},
    "cli": _FOUNDATION | {"layers", "repo", "pages", "capture", "plan", "gates", "index", "garden", "history",
                          "write", "answer", "mcp"},
    "__main__": {"cli"},
    "__init__": set(),
}

# (importing module, imported module): why. Keep it short; remove an entry when its import goes.
ALLOWLIST: dict[tuple[str, str], str] = {
    # Rebuilding the capture catalogue from Git reads provenance out of committed source pages. The
    # rebuild belongs above pages/ (with resume, in write/); it stays until recovery's rework settles.
    ("stigmergy.repo.recovery", "stigmergy.pages.source"): "recovery parses source pages",
}


def _graph():  # noqa: ANN202
    return load_script("import_graph")


def test_every_package_has_a_layer() -> None:
    graph = _graph()
    packages = {graph.package_of(m) for m in graph.module_imports(PACKAGE_DIR)}
    assert packages <= set(MAY_IMPORT), f"give {sorted(packages - set(MAY_IMPORT))} a layer in MAY_IMPORT"


def test_imports_point_down_the_layers() -> None:
    graph = _graph()
    wrong = []
    for module, targets in graph.module_imports(PACKAGE_DIR).items():
        src = graph.package_of(module)
        for target in targets:
            dst = graph.package_of(target)
            if dst != src and dst not in MAY_IMPORT.get(src, set()) and (module, target) not in ALLOWLIST:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_allowlist_is_pruned() -> None:
    imports = _graph().module_imports(PACKAGE_DIR)
    stale = [edge for edge in ALLOWLIST if edge[1] not in imports.get(edge[0], set())]
    assert not stale, f"remove these from ALLOWLIST, the import is gone: {stale}"


def test_only_the_cli_touches_typer_and_rich() -> None:
    pattern = re.compile(r"^\s*(?:import|from)\s+(typer|rich|click)\b", re.M)
    offenders = [
        str(p.relative_to(REPO_ROOT)) for p in sorted(PACKAGE_DIR.rglob("*.py"))
        if "cli" not in p.relative_to(PACKAGE_DIR).parts and pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_graph_script_sees_a_forbidden_import(tmp_path: Path) -> None:
    # The check can fail: a ground module importing upward is caught.
    pkg = tmp_path / "stigmergy"
    (pkg / "repo").mkdir(parents=True)
    (pkg / "gates").mkdir()
    (pkg / "repo" / "operations.py").write_text("def f():\n    from stigmergy.gates.authorship import x\n")
    (pkg / "gates" / "authorship.py").write_text("x = 1\n")
    graph = _graph()
    imports = graph.module_imports(pkg)
    assert imports["stigmergy.repo.operations"] == {"stigmergy.gates.authorship"}
    assert "gates" not in MAY_IMPORT["repo"]
