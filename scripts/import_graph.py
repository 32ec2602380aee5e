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
    paths = sorted(package_dir.rglob("*.py"))
    names = {path: ".".join(path.relative_to(package_dir.parent).with_suffix("").parts).removesuffix(".__init__")
             for path in paths}
    modules = set(names.values())
    for path in paths:
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("stigmergy."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "stigmergy" or node.module.startswith("stigmergy."):
                    # `from pkg import mod` imports the module `pkg.mod`; `from pkg import name` the package.
                    subs = {f"{node.module}.{a.name}" for a in node.names} & modules
                    targets |= subs
                    if len(subs) < len(node.names) and node.module != "stigmergy":
                        targets.add(node.module)
        found[names[path]] = targets
    return found


def module_cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or around a loop (Tarjan's strongly connected
    components of more than one module), each sorted."""
    graph = {m: {t for t in ts if t in imports and t != m} for m, ts in imports.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(cycles)


def package_graph(package_dir: Path) -> dict[tuple[str, str], set[str]]:
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module, targets in module_imports(package_dir).items():
        src = package_of(module)
        for target in targets:
            dst = package_of(target)
            if dst != src:
                edges[(src, dst)].add(f"{module} -> {target}")
    return dict(edges)


def arrows(package_dir: Path) -> list[str]:
    """One line per package: the packages it imports (docs/architecture.md's drawing, kept by gen_docs.py)."""
    out: dict[str, set[str]] = defaultdict(set)
    for src, dst in package_graph(package_dir):
        out[src].add(dst)
    return [f"{src:>10} -> {', '.join(sorted(out[src]))}" for src in sorted(out)]


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
