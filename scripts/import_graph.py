"""Print the import graph between stigmergy's packages (every import, at module top or inside a
function), as `from -> to: modules` lines, or with --dot as Graphviz.

    python scripts/import_graph.py [PACKAGE_DIR] [--dot]

`tests/test_architecture.py` checks the same graph against the allowed layering.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path


def package_of(module: str) -> str:
    parts = module.split(".")
    # stigmergy.errors / stigmergy.settings are modules at the top: each is its own node.
    return parts[1] if len(parts) > 1 else "__init__"


def module_imports(package_dir: Path) -> dict[str, set[str]]:
    """module name -> the stigmergy modules it imports (anywhere in the file)."""
    found: dict[str, set[str]] = {}
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(package_dir.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("stigmergy."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.startswith("stigmergy."):
                    targets.add(node.module)
                elif node.module == "stigmergy":
                    targets.update(f"stigmergy.{a.name}" for a in node.names)
        found[name] = targets
    return found


def package_graph(package_dir: Path) -> dict[tuple[str, str], set[str]]:
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module, targets in module_imports(package_dir).items():
        src = package_of(module)
        for target in targets:
            dst = package_of(target)
            if dst != src:
                edges[(src, dst)].add(f"{module} -> {target}")
    return dict(edges)


def main(argv: list[str]) -> int:
    dot = "--dot" in argv
    args = [a for a in argv if a != "--dot"]
    package_dir = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "stigmergy"
    edges = package_graph(package_dir)
    if dot:
        print("digraph stigmergy {")
        for src, dst in sorted(edges):
            print(f'  "{src}" -> "{dst}" [label={len(edges[(src, dst)])}];')
        print("}")
        return 0
    for src, dst in sorted(edges):
        print(f"{src:>9} -> {dst:<9} ({len(edges[(src, dst)])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
