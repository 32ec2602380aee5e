"""Filing does not depend on the order of capture: report pairs whose period or subject is only in their
context (heading, table header, previous sentence, title, front matter) contradict each other in both
orders, different subjects or periods never do, and the sample corpus filed in any order is never refused
by the gates and gives the planted contradictions and no others."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_plan_support import (
    corpus_files,
    file_and_commit,
    make_repo,
    op_for,
    write_corpus_file,
    write_source,
)

from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.settings import load_settings
from stigmergy.write.filing import propose


def _subjects(root: Path) -> list[str]:
    out = []
    for path in sorted((root / "wiki").rglob("*.md")):
        _, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
        blocks, errors = scan_blocks(body, path.relative_to(root).as_posix())
        assert not errors
        out += [b.record.subject for b in blocks]
    return out


# (body, title, metadata) of a draft and a final report, one per shape of context.
SHAPES = {
    "heading": (
        "## Q1 2026 results\n\nARR was {arr}, up {pct} QoQ, and the team kept shipping.\n",
        "Acme quarterly report ({v})", {},
    ),
    "table": (
        "## Headline figures\n\n| Metric | Q1 2026 |\n| --- | --- |\n| ARR | {arr}, up {pct} QoQ |\n",
        "Acme board pack ({v})", {},
    ),
    "previous sentence": (
        "The first quarter of the year was Q1 2026 for us. ARR was {arr}, up {pct} QoQ, on plan.\n",
        "Acme letter to staff ({v})", {},
    ),
    "title": ("ARR was {arr}, up {pct} QoQ, a calm quarter.\n", "Acme results Q1 2026 ({v})", {}),
    "front matter": ("ARR was {arr}, up {pct} QoQ, a calm quarter.\n", "Acme results ({v})", {"period": "Q1 2026"}),
}


def _file_pair(tmp_path: Path, first: dict, second: dict) -> list[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    root = make_repo(tmp_path)
    for n, doc in enumerate((first, second), 1):
        rel = write_source(root, n, doc["body"], title=doc["title"], occurred_at=doc["date"], metadata=doc["meta"])
        file_and_commit(root, rel, n)
    return _subjects(root)


def _doc(shape: str, version: str, arr: str, pct: str, date: str, meta: dict | None = None) -> dict:
    body, title, fm = SHAPES[shape]
    return {"body": body.format(arr=arr, pct=pct), "title": title.format(v=version), "date": date,
            "meta": {**fm, **(meta or {})}}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
def test_report_pair_contradicts_whatever_the_order(tmp_path: Path, shape: str, reverse: bool) -> None:
    draft = _doc(shape, "draft", "$1.2M", "40%", "2026-04-05")
    final = _doc(shape, "final", "$1.3M", "45%", "2026-04-12")
    pair = (final, draft) if reverse else (draft, final)
    subjects = _subjects_of(tmp_path, pair)
    assert sum("arr for Q1 2026" in s for s in subjects) == 1, subjects


def _subjects_of(tmp_path: Path, pair: tuple[dict, dict]) -> list[str]:
    return _file_pair(tmp_path, *pair)


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
def test_other_period_or_other_subject_is_no_contradiction(tmp_path: Path, reverse: bool) -> None:
    q1 = _doc("heading", "final", "$1.2M", "40%", "2026-04-05")
    q2 = {**_doc("heading", "final", "$1.3M", "45%", "2026-07-05"), "body": "## Q2 2026 results\n\nARR was $1.3M, up 45% QoQ.\n",
          "title": "Acme quarterly report Q2"}
    pair = (q2, q1) if reverse else (q1, q2)
    assert _file_pair(tmp_path / "period", *pair) == []
    ours = _doc("front matter", "final", "$1.2M", "40%", "2026-04-05", {"entity": "Acme Corp"})
    theirs = _doc("front matter", "final", "$9.9M", "10%", "2026-04-06", {"entity": "Borealis Inc"})
    theirs["title"] = "Borealis results"
    pair = (theirs, ours) if reverse else (ours, theirs)
    assert _file_pair(tmp_path / "subject", *pair) == []


def test_release_dates_of_two_products_are_no_contradiction(tmp_path: Path) -> None:
    """Each line says only 'Released <date>'; the products are in the titles."""
    a = {"body": "Released 22 September 2026. The first major release.\n", "title": "Tidemark 4.0 release notes",
         "date": "2026-09-22", "meta": {}}
    b = {"body": "Released 2 June 2026. Generally available today.\n", "title": "Harbor API 1.0 release notes",
         "date": "2026-06-02", "meta": {}}
    assert _file_pair(tmp_path / "ab", a, b) == []
    assert _file_pair(tmp_path / "ba", b, a) == []


PLANTED = ("revenue for Q2 2026", "headcount for Q2 2026", "Harbor API launch", "pilot lanes")


def _file_corpus(root: Path, files: list[Path]) -> list[str]:
    refused = []
    for n, path in enumerate(files, 1):
        rel = write_corpus_file(root, n, path)
        result = propose(root, load_settings(root), rel, op_for(root, rel, n))
        if not result.verdict.ok:
            refused.append(f"{path.name}: {[(v.rule, v.message) for v in result.verdict.violations][:2]}")
            continue
        file_and_commit_verdict(root, result, op_for(root, rel, n))
    return refused


def file_and_commit_verdict(root: Path, result, op) -> None:  # noqa: ANN001
    from test_plan_support import git

    for path, text in result.verdict.changes.items():
        target = root / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"capture\n\nStigmergy-Operation: {op.op_id}\nStigmergy-Kind: capture\n")


def _assert_corpus(root: Path, refused: list[str]) -> None:
    assert refused == []
    subjects = _subjects(root)
    for planted in PLANTED:
        assert sum(planted in s for s in subjects) == 1, (planted, subjects)
    assert len(subjects) == len(PLANTED), subjects


def test_corpus_in_reverse_order(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    _assert_corpus(root, _file_corpus(root, corpus_files()[::-1]))


@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_corpus_in_any_order_is_never_refused(tmp_path_factory: pytest.TempPathFactory, seed: int) -> None:
    files = corpus_files()
    random.Random(seed).shuffle(files)
    root = make_repo(tmp_path_factory.mktemp("order"))
    _assert_corpus(root, _file_corpus(root, files))


def _changelog(versions: list[tuple[str, str]]) -> str:
    minor = versions[0][0].rsplit(".", 1)[0]
    parts = [f"==========\nSphinx {minor}\n==========\n"]
    for version, date in versions:
        head = f"Release {version} (released {date})"
        parts.append(f"{head}\n{'=' * len(head)}\n\nBugs fixed\n----------\n\n* Fixed a crash in the builder.\n")
    # A mid-sentence use, as in Sphinx's 1.7 changelog: with the headings it made 'Release' a "product".
    parts.append("Bugs fixed\n----------\n\n* latex: Do not display 'Release' label if the release is not set\n")
    return "\n".join(parts)


# Four changelogs of ten patch releases each, every one with its own release date.
_RELEASES = {f"7.{m}": [(f"7.{m}.{k}", f"{'Jan Mar May Jul Sep Nov'.split()[k % 6]} {10 + k:02d}, 202{m}") for k in range(9, -1, -1)]
             for m in range(4)}


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
def test_changelog_release_dates_of_different_versions_are_no_contradiction(tmp_path: Path, reverse: bool) -> None:
    """A changelog names each version with its own release date: different subjects, no conflict (the
    Sphinx docs gave a 7 MB page of them), and 'Release' is not an entity."""
    root = make_repo(tmp_path)
    order = sorted(_RELEASES, reverse=reverse)
    for n, minor in enumerate(order, 1):
        rel = write_source(root, n, _changelog(_RELEASES[minor]), title=f"Sphinx {minor}", occurred_at="2024-05-01")
        file_and_commit(root, rel, n)
    assert _subjects(root) == []
    names = {p.stem.casefold() for p in (root / "wiki").rglob("*.md")}
    assert not {n for n in names if n.startswith("release")}, sorted(names)


def test_one_capture_records_at_most_a_few_contradictions_per_page(tmp_path: Path) -> None:
    """Eight periods that all disagree: the planner records five and says in the summary that it dropped the rest."""
    quarters = [f"Q{q} {y}" for y in (2025, 2026) for q in (1, 2, 3, 4)]
    header = "| Metric | " + " | ".join(quarters) + " |\n|" + " --- |" * (len(quarters) + 1) + "\n"

    def pack(base: float) -> str:
        return "## Headline figures\n\n" + header + "| Revenue | " + " | ".join(f"${base + i:.1f}M" for i in range(8)) + " |\n"

    root = make_repo(tmp_path)
    rel = write_source(root, 1, pack(1.0), title="Acme board pack (draft)", occurred_at="2026-04-05")
    file_and_commit(root, rel, 1)
    rel = write_source(root, 2, pack(20.0), title="Acme board pack (final)", occurred_at="2026-04-12")
    result = file_and_commit(root, rel, 2)
    assert len(_subjects(root)) == 5, _subjects(root)
    assert "3 more contradiction(s) not recorded" in result.plan.summary
