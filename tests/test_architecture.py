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
    # gates/feedback_batches.py knows a feedback batch's path (trust/records.py) to keep batches append-only.
    "gates": _FOUNDATION | {"layers", "repo", "pages", "plan", "trust"},
    # Trust from use (docs/trust.md): feedback records, the Beta model, the fold, access counts, the sweep.
    "trust": _FOUNDATION | {"layers", "repo", "pages"},
    "index": _FOUNDATION | {"layers", "repo", "pages", "trust"},
    # Maintenance: builds the changes of garden, delete, merge, rename, recompile for the gates to judge.
    "garden": _FOUNDATION | {"layers", "repo", "pages", "plan", "gates", "index"},
    # History-wide work: the per-version scrub and filter-repo rewrite of an erase, purges, the residue
    # audit, the export bundle.
    "history": _FOUNDATION | {"layers", "repo", "pages", "index", "garden", "trust"},
    "write": _FOUNDATION | {"layers", "repo", "pages", "capture", "plan", "gates", "index", "garden", "history",
                            "trust"},
    # Answers from the wiki (ask): reads through index/, checks figures with the gates' normaliser.
    "answer": _FOUNDATION | {"layers", "repo", "pages", "gates", "index", "trust"},
    # The one front door (DESIGN §13): every operation, the writer lock and each one's recovery policy.
    "service": _FOUNDATION | {"layers", "repo", "pages", "capture", "plan", "gates", "index", "garden", "history",
                              "write", "answer", "trust"},
    # Front ends: they parse, call the service, render; nothing of the stages below it.
    "mcp": _FOUNDATION | {"service"},
    # The team server (`stigmergy serve`): the MCP endpoint, the web view and the chat endpoints (server/slack.py)
    # over one service per person.
    "server": _FOUNDATION | {"service", "mcp"},
    "cli": _FOUNDATION | {"service", "mcp", "server"},
    "__main__": {"cli"},
    "__init__": set(),
}

# (importing module, imported module): why. Keep it short; remove an entry when its import goes.
ALLOWLIST: dict[tuple[str, str], str] = {}


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


# Every SQL statement lives in a store module: one per backend of each store (docs/architecture.md).
STORE_MODULES = {"stigmergy/index/store/sqlite.py", "stigmergy/index/store/sqlite_schema.py",
                 "stigmergy/index/store/sqlite_write.py", "stigmergy/index/store/sqlite_ask.py",
                 "stigmergy/index/store/sqlite_bits.py", "stigmergy/index/store/sqlite_lexical.py",
                 "stigmergy/index/store/sqlite_postings.py", "stigmergy/index/store/sqlite_vectors.py",
                 "stigmergy/index/store/postgres.py", "stigmergy/index/store/pg_schema.py",
                 "stigmergy/index/store/pg_search.py", "stigmergy/index/store/pg_reads.py",
                 "stigmergy/index/store/pg_write.py", "stigmergy/index/store/pg_impact.py",
                 "stigmergy/index/store/pg_postings.py", "stigmergy/index/store/pg_nearest.py",
                 "stigmergy/index/store/pg_fill.py", "stigmergy/index/store/pg_held.py",
                 "stigmergy/repo/state/sqlite.py", "stigmergy/repo/state/memo_sqlite.py"}
_SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|VACUUM|ANALYZE|BEGIN|COMMIT|ROLLBACK|"
                  r"REPLACE|WITH)\b")
_SQLITE_IMPORT = re.compile(r"^\s*(?:import|from)\s+(sqlite3|pysqlite3|sqlite_vec)\b", re.M)


def sql_outside_stores(package_dir: Path) -> list[str]:
    """`path:line` of each string that starts an SQL statement, and of each SQLite import, outside the
    store modules (f-strings count by their first literal part)."""
    import ast

    found = []
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(package_dir.parent).as_posix()
        if rel in STORE_MODULES:
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
                node = node.values[0]
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.match(node.value):
                found.append(f"{rel}:{node.lineno}: {node.value.strip()[:60]}")
        for m in _SQLITE_IMPORT.finditer(text):
            found.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: import {m.group(1)}")
    return sorted(set(found))


def test_sql_lives_only_in_store_modules() -> None:
    assert sql_outside_stores(PACKAGE_DIR) == []


def test_the_sql_check_sees_a_statement_outside_a_store(tmp_path: Path) -> None:
    pkg = tmp_path / "stigmergy"
    (pkg / "index" / "store").mkdir(parents=True)
    (pkg / "index" / "store" / "sqlite.py").write_text('Q = "SELECT 1"\n')
    (pkg / "index" / "reads.py").write_text(
        'import sqlite3\n\ndef f(conn, t):\n    return conn.execute(f"SELECT * FROM {t} WHERE x")\n')
    assert sql_outside_stores(pkg) == ["stigmergy/index/reads.py:1: import sqlite3",
                                       "stigmergy/index/reads.py:4: SELECT * FROM"]


# Every object call on a bucket and every PostgreSQL connection lives in its backend module.
CLIENT_HOMES = {"boto3": {"stigmergy/repo/evidence/s3.py"}, "botocore": {"stigmergy/repo/evidence/s3.py"},
                "psycopg": {"stigmergy/index/store/postgres.py", "stigmergy/index/store/pg_schema.py",
                            "stigmergy/index/store/pg_search.py"},
                "pgvector": {"stigmergy/index/store/pg_schema.py"}}
_CLIENT_IMPORT = re.compile(r"^\s*(?:import|from)\s+(boto3|botocore|psycopg|pgvector)\b", re.M)


def clients_outside_homes(package_dir: Path) -> list[str]:
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(package_dir.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        for m in _CLIENT_IMPORT.finditer(text):
            if rel not in CLIENT_HOMES[m.group(1)]:
                found.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: import {m.group(1)}")
    return found


def test_storage_clients_live_only_in_their_backend_module(tmp_path: Path) -> None:
    assert clients_outside_homes(PACKAGE_DIR) == []
    pkg = tmp_path / "stigmergy"
    (pkg / "capture").mkdir(parents=True)
    (pkg / "capture" / "queue.py").write_text("def f():\n    import boto3\n")
    assert clients_outside_homes(pkg) == ["stigmergy/capture/queue.py:2: import boto3"]


# The read side of the index asks freshness.py what the builder and it both need; it never loads the builder.
INDEX_READ_SIDE = ("stigmergy.index.search", "stigmergy.index.session", "stigmergy.index.reads",
                   "stigmergy.index.arms", "stigmergy.index.page_lookup", "stigmergy.index.freshness",
                   "stigmergy.index.overview")


def test_the_read_side_never_imports_the_index_builder() -> None:
    imports = _graph().module_imports(PACKAGE_DIR)
    assert {m for m in INDEX_READ_SIDE if "stigmergy.index.build" in imports[m]} == set()
    assert all(m in imports for m in INDEX_READ_SIDE)  # each module exists: the check can fail


def test_no_import_cycle_between_modules() -> None:
    assert _graph().module_cycles(_graph().module_imports(PACKAGE_DIR)) == []


def test_the_cycle_check_sees_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "stigmergy" / "gates"
    pkg.mkdir(parents=True)
    (pkg / "rules.py").write_text("from stigmergy.gates.maintenance import x\n")
    (pkg / "maintenance.py").write_text("def f():\n    from stigmergy.gates import rules\n")
    graph = _graph()
    assert graph.module_cycles(graph.module_imports(tmp_path / "stigmergy")) == [
        ["stigmergy.gates.maintenance", "stigmergy.gates.rules"]]


def test_the_allowlist_is_empty() -> None:
    # No upward arrow is excused any more (issue #25): a new one is fixed, not listed.
    assert ALLOWLIST == {}


# A front end (the CLI, the MCP server, the web server to come) imports the service and the foundation,
# never a stage's internals: a new front-end package goes here.
FRONT_ENDS = ("cli", "mcp", "server")


def test_front_ends_reach_the_stages_only_through_the_service() -> None:
    graph = _graph()
    wrong = sorted(
        f"{module} -> {target}" for module, targets in graph.module_imports(PACKAGE_DIR).items()
        if graph.package_of(module) in FRONT_ENDS for target in targets
        if graph.package_of(target) not in (*FRONT_ENDS, *_FOUNDATION, "service")
    )
    assert wrong == []
    assert all(MAY_IMPORT[f] <= {*FRONT_ENDS, *_FOUNDATION, "service"} for f in FRONT_ENDS)


def test_one_ulid_encoder() -> None:
    # Clock-made ids and ids derived from an operation share repo/ids.encode_ulid, and an id's time is read
    # by repo/ids.id_ms (issue #25): the alphabet is written in one module.
    from stigmergy.pages.wiki import derived_ulid
    from stigmergy.repo.ids import encode_ulid, id_ms

    holders = [p.relative_to(REPO_ROOT).as_posix() for p in sorted(PACKAGE_DIR.rglob("*.py"))
               if "0123456789ABCDEFGHJKMNPQRSTVWXYZ" in p.read_text(encoding="utf-8")]
    assert holders == ["stigmergy/repo/ids.py"]
    made = derived_ulid("2026-03-10T12:00:00Z", "seed")
    assert made[:10] == encode_ulid(1773144000000, 0)[:10] and id_ms(f"pg_{made}") == 1773144000000
