"""Pages people want to read: a lead regenerated on each filing, no line twice, bounded pages with archive
pages per year, and the gates that accept exactly the moves filing makes (nothing looser)."""

from __future__ import annotations

from pathlib import Path

from test_plan_support import file_and_commit, git, make_repo, op_for, write_source

from stigmergy.gates.engine import evaluate
from stigmergy.pages.citations import citations_by_line
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.plan.deterministic.layout import (
    KEEP_SECTIONS,
    LEAD_END,
    LEAD_START,
    MAX_SECTIONS,
    insert_section,
)
from stigmergy.plan.schema import CreatePage, Plan, UpdatePage
from stigmergy.settings import Settings

ENTITY = "wiki/entities/Halden Logistics.md"


def _body(root: Path, rel: str) -> str:
    return split_front_matter((root / rel).read_text(encoding="utf-8"))[1]


def _file_many(root: Path, n: int, start: int = 1) -> None:
    for i in range(start, start + n):
        year = 2024 + (i - 1) * 2 // (MAX_SECTIONS + 6)
        text = (f"Halden Logistics signed order {i} for the Atlas rollout, said Maria Chen.\n"
                f"Halden Logistics revenue in Q{1 + i % 4} {year} was ${100 + i}k according to finance.\n")
        rel = write_source(root, i, text, title=f"Halden call {i}", metadata={"participants": ["Maria Chen"]},
                           occurred_at=f"{year}-{1 + i % 12:02d}-{1 + i % 27:02d}")
        file_and_commit(root, rel, i)


def test_lead_opens_the_page_and_is_regenerated(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _file_many(root, 3)
    body = _body(root, ENTITY)
    assert body.split("\n")[2] == LEAD_START and LEAD_END in body
    lead = body[body.index(LEAD_START): body.index(LEAD_END)]
    assert "*organisation*" in lead and "Latest figures as of" in lead and "Related: " in lead
    rest = body[body.index(LEAD_END):]
    for line in lead.split("\n"):
        if "[source](" in line:
            assert line in rest  # a cited lead line is a verbatim body line


def test_no_line_twice_on_a_page() -> None:
    body = "# X\n\n## 2026-01-01 · a\n\n- same line ([source](s.md#L1))\n"
    out = insert_section(body, "2026-02-01", ["## 2026-02-01 · b", "", "- same line ([source](s.md#L1))", "- new ([source](s.md#L2))"])
    assert out.count("- same line ([source](s.md#L1))") == 1 and "- new" in out


def test_bounded_page_moves_oldest_sections_to_archive_pages(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _file_many(root, MAX_SECTIONS + 2)
    body = _body(root, ENTITY)
    sections = [line for line in body.split("\n") if line.startswith("## 20")]
    assert KEEP_SECTIONS <= len(sections) <= MAX_SECTIONS
    archives = sorted((root / "wiki/entities").glob("Halden Logistics (*).md"))
    assert archives, "no archive page"
    assert "Archive: [[Halden Logistics (20" in body
    # Every citation the filings wrote is on the page or on one of its archive pages.
    cited = set()
    for page in [root / ENTITY, *archives]:
        rel = page.relative_to(root).as_posix()
        for cites in citations_by_line(_body(root, rel), rel, errors=[]).values():
            cited |= {c.capture_id for c in cites}
    assert len(cited) == MAX_SECTIONS + 2
    meta, _, _ = split_front_matter(archives[0].read_text(encoding="utf-8"))
    assert meta["type"] == "entity"
    # An archive page is not an identity: no entity is found under its name.
    from stigmergy.plan.catalogue import catalogue

    assert all("(" not in n for n in catalogue(root, "public").names())


def _plan_update(root: Path, rel: str, body: str, extra: tuple = ()) -> Plan:
    return Plan(mutations=(UpdatePage(path=rel, body=body, reason="test"), *extra))


def test_gates_accept_a_dropped_lead_line_only_when_the_body_keeps_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _file_many(root, 2)
    body = _body(root, ENTITY)
    lead = body[body.index(LEAD_START): body.index(LEAD_END) + len(LEAD_END)]
    rel = write_source(root, 90, "Nothing.\n", title="t")
    op = op_for(root, rel, 90)
    ok = evaluate(_plan_update(root, ENTITY, body.replace(lead + "\n", "")), root, Settings(), op)
    assert ok.ok, ok.violations
    assert any("lead line regenerated" in r for r in ok.records)
    # The same drop when the body no longer has the line either: refused.
    cited = next(line for line in lead.split("\n") if "[source](" in line)
    bad = evaluate(_plan_update(root, ENTITY, body.replace(lead + "\n", "").replace(cited + "\n", "")), root, Settings(), op)
    assert not bad.ok and {v.rule for v in bad.violations} >= {"cited-line-lost"}


def test_gates_accept_a_move_only_to_the_pages_own_archive(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _file_many(root, 2)
    body = _body(root, ENTITY)
    section = body[body.index("\n## 20") + 1:].split("\n\n## ")[0].rstrip("\n")
    kept = body.replace(section + "\n", "")
    rel = write_source(root, 90, "Nothing.\n", title="t")
    op = op_for(root, rel, 90)
    for title, ok in (("Halden Logistics (2024)", True), ("Other Logistics (2024)", False)):
        archive = CreatePage(type="entity", title=title, body=f"# {title}\n\n{section}\n", entity_type="organisation",
                             reason="test")
        verdict = evaluate(_plan_update(root, ENTITY, kept, (archive,)), root, Settings(), op)
        assert verdict.ok is ok, (title, verdict.violations)


def test_human_line_stays_where_it_was(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _file_many(root, 1)
    page = root / ENTITY
    human = "I met their CFO at the fair; keen on a second site."
    page.write_text(page.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + human + "\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a note of mine")
    before = page.read_text(encoding="utf-8").split("\n")
    _file_many(root, MAX_SECTIONS + 1, start=2)
    after = page.read_text(encoding="utf-8").split("\n")
    assert human in after
    i, j = before.index(human), after.index(human)
    assert after[j - 2] == before[i - 2]  # the line it followed still precedes it


def test_lead_passes_lint_and_lint_still_flags_uncited_lines_outside_it(tmp_path: Path) -> None:
    from stigmergy.gates.lint import lint_repository

    root = make_repo(tmp_path)
    _file_many(root, 2)
    git(root, "add", "-A")
    report = lint_repository(root, Settings())
    assert not [f for f in report.findings if f.rule == "uncited-line"], report.findings
    page = root / ENTITY
    page.write_text(page.read_text(encoding="utf-8") + "\nRevenue doubled last year.\n", encoding="utf-8")
    report = lint_repository(root, Settings())
    assert [f.rule for f in report.findings if f.path == ENTITY] == ["uncited-line"]


def test_a_page_with_only_a_lead_is_a_placeholder() -> None:
    from stigmergy.pages.wiki import is_placeholder

    lead_only = f"# Dublin\n\n{LEAD_START}\n*place*\n\nRelated: [[Aoife Brennan]]\n{LEAD_END}\n"
    assert is_placeholder(lead_only)
    assert not is_placeholder(lead_only + "\n## 2026-05-19 · x\n\n- A line. ([source](s.md#L1))\n")
