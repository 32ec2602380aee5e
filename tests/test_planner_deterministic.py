"""The deterministic planner: real gates, real git, real files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from test_plan_support import (
    capture_id,
    corpus_files,
    corpus_files_by_path,
    file_and_commit,
    git,
    make_repo,
    op_for,
    write_corpus_file,
    write_source,
)

from stigmergy.gates.engine import evaluate
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.plan.context import build_context
from stigmergy.plan.deterministic import DeterministicPlanner
from stigmergy.plan.deterministic.analysis import COMMON, MONTHS, WEEKDAYS, Unit, definitions
from stigmergy.plan.deterministic.layout import archive_base
from stigmergy.plan.schema import CreatePage, UpdatePage, plan_to_json
from stigmergy.settings import Settings
from stigmergy.write.filing import propose

# Read at import: the autouse fixture clears STIGMERGY_* before each test runs.
UPDATE_GOLDEN = os.environ.get("STIGMERGY_UPDATE_GOLDEN") == "1"
GOLDEN = Path(__file__).resolve().parent / "golden" / "planner"

AURORA_Q1 = """## Results

Aurora Systems reported revenue of $1.2M in Q1 2026.
The board of Aurora Systems met in Leeds with Maria Chen.
Maria Chen said the pipeline is healthy.
"""
AURORA_Q1_REVISED = """## Corrected figures

This corrected report replaces the earlier one.
Aurora Systems reported revenue of $1.3M in Q1 2026.
Maria Chen signed off the corrected figures.
"""
AURORA_Q2 = """## Results

Aurora Systems reported revenue of $1.5M in Q2 2026.
Borealis Inc reported revenue of $0.9M in Q1 2026, and Borealis Inc hired 12 people.
"""


def _pages(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((root / "wiki").rglob("*.md"))
    }


def _blocks(root: Path) -> list:
    out = []
    for rel, text in _pages(root).items():
        _, body, _ = split_front_matter(text)
        blocks, errors = scan_blocks(body, rel)
        assert not errors
        out += [(rel, b.record) for b in blocks]
    return out


@pytest.fixture(scope="module")
def corpus_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    """The public sample corpus filed capture by capture; each plan must pass every gate on its own."""
    root = make_repo(tmp_path_factory.mktemp("corpus"))
    results = []
    for n, path in enumerate(corpus_files(), 1):
        rel = write_corpus_file(root, n, path)
        results.append((path.name, file_and_commit(root, rel, n)))
    return root, results


def test_corpus_files_without_tripping_gates(corpus_repo: tuple[Path, list]) -> None:
    root, results = corpus_repo
    assert len(results) >= 30
    assert all(r.verdict.ok for _, r in results)
    # Every commit is stigmergy's own (the human-line gate sees the trailer).
    log = git(root, "log", "--format=%B")
    assert log.count("Stigmergy-Operation:") == len(results)


def test_corpus_entities_are_names_not_words(corpus_repo: tuple[Path, list]) -> None:
    root, _ = corpus_repo
    titles = {Path(p).stem for p in _pages(root) if "/entities/" in p}
    for expected in ("Maya Okafor", "Tomasz Wieczorek", "Norrland Fresh", "Tidemark", "Harbor API", "Pellucid Pharma Logistics"):
        assert expected in titles
    for title in titles:
        words = title.split()
        assert not (len(words) == 1 and (title in COMMON or title in WEEKDAYS or title in MONTHS)), title
    assert "Next Steps" not in titles and "Action items" not in titles


def test_corpus_aliases_with_evidence(corpus_repo: tuple[Path, list]) -> None:
    root, _ = corpus_repo
    tidemark, _, _ = split_front_matter((root / "wiki/entities/Tidemark.md").read_text())
    tomasz, _, _ = split_front_matter((root / "wiki/entities/Tomasz Wieczorek.md").read_text())
    assert "ColdTrace" in tidemark["aliases"]
    assert "Tomek" in tomasz["aliases"]


def test_corpus_planted_contradictions_and_no_others(corpus_repo: tuple[Path, list]) -> None:
    root, _ = corpus_repo
    subjects = sorted(rec.subject for _, rec in _blocks(root))
    joined = " | ".join(subjects)
    assert "revenue for Q2 2026" in joined
    assert "headcount for Q2 2026" in joined
    assert "Harbor API launch" in joined
    assert "pilot lanes" in joined
    assert len(subjects) == 4, subjects
    # The final report calls itself final: its record says which claim is newer.
    q2 = [rec for _, rec in _blocks(root) if "revenue for Q2 2026" in rec.subject][0]
    assert "revision or correction" in q2.explanation
    assert {c.text for c in q2.claims} >= {"Revenue — Q2 2026: £2.41M; Q1 2026: £1.88M"}


GLOSSARY_CONCEPTS = {
    "Excursion", "Excursion budget", "Mean kinetic temperature (MKT)", "Lane", "Dwell time", "Telemetry gap",
    "Custody event", "Reefer", "Beacon gateway", "GDP",
}
CORPUS_ENTITIES = {
    "Aoife Brennan": "person", "Daniel Ferreira": "person", "Dublin": "place", "Erik Sandberg": "person",
    "Grace Nakamura": "person", "Greywater Ventures": "organisation", "Hannah Lindqvist": "person",
    "Harbor API": "product", "Ines Carvalho": "person", "Lanternfish Labs": "organisation", "Leeds": "place",
    "Leila Haddad": "person", "Lisbon": "place", "Maya Okafor": "person", "Norrland Fresh": "organisation",
    "Oliver Brandt": "person", "Orbis Freight": "organisation", "Pellucid Pharma Logistics": "organisation",
    "Priya Raghunathan": "person", "Rory MacAllister": "person", "Samuel Achterberg": "person",
    "Tidemark": "product", "Tomasz Wieczorek": "person",
}


def _typed(entities: dict[str, dict]) -> dict[str, str]:
    # Inês Carvalho is written "Ines" in the plain-text files: whichever spelling came first is the title.
    return {t.replace("Inês", "Ines"): m["entity_type"] for t, m in entities.items()}


def _kinds(root: Path) -> tuple[dict[str, dict], set[str], set[str]]:
    entities, concepts, projects = {}, set(), set()
    for rel, text in _pages(root).items():
        meta, _, _ = split_front_matter(text)
        if "/entities/" in rel:
            entities[meta["title"]] = meta
        elif "/concepts/" in rel:
            concepts.add(meta["title"])
        elif "/projects/" in rel:
            projects.add(meta["title"])
    # An archive page ("Tidemark (2026)") holds a page's oldest dated sections: not an entity of its own.
    for title in [t for t in entities if archive_base(t) in entities]:
        del entities[title]
    return entities, concepts, projects


def test_corpus_pages_are_the_cast_not_junk(corpus_repo: tuple[Path, list]) -> None:
    """Entities are the README's cast with the right types, concepts the glossary's terms, and a project
    is never an entity too."""
    root, _ = corpus_repo
    entities, concepts, projects = _kinds(root)
    assert _typed(entities) == CORPUS_ENTITIES
    assert concepts == GLOSSARY_CONCEPTS
    assert {"Project Driftwood", "Project Lodestar"} <= projects
    for project in projects:
        assert project.removeprefix("Project ") not in entities
    aliases = {t: set(m.get("aliases") or []) for t, m in entities.items()}
    assert "Tomek" in aliases["Tomasz Wieczorek"] and "ColdTrace" in aliases["Tidemark"]
    assert "Pellucid" in aliases["Pellucid Pharma Logistics"] and "Orbis" in aliases["Orbis Freight"]
    ines = aliases.get("Inês Carvalho", set()) | aliases.get("Ines Carvalho", set())
    assert {"Inês Carvalho", "Ines Carvalho"} & ines and "Ines" in ines
    owners: dict[str, list[str]] = {}
    for title, names in aliases.items():
        for name in names | {title}:
            owners.setdefault(name, []).append(title)
    assert {n: ts for n, ts in owners.items() if len(ts) > 1} == {}


def test_corpus_in_capture_order_has_no_duplicate_project_entity(tmp_path: Path) -> None:
    """`stigmergy capture sample_corpus` files by path: meeting and customer notes that name Driftwood come
    before the project's own updates. The final wiki still has one page for the project and no junk."""
    root = make_repo(tmp_path)
    results = []
    for n, path in enumerate(corpus_files_by_path(), 1):
        results.append(file_and_commit(root, write_corpus_file(root, n, path), n))
    assert all(r.verdict.ok for r in results)
    entities, concepts, projects = _kinds(root)
    assert _typed(entities) == CORPUS_ENTITIES
    assert concepts == GLOSSARY_CONCEPTS
    assert {"Project Driftwood", "Project Lodestar"} <= projects
    subjects = sorted(rec.subject for _, rec in _blocks(root))
    joined = " | ".join(subjects)
    for planted in ("revenue for Q2 2026", "headcount for Q2 2026", "Harbor API launch", "pilot lanes"):
        assert planted in joined
    assert len(subjects) == 4, subjects


def test_project_named_entity_is_not_created(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    # "Project Nimbus" once, then "Nimbus" alone, often, mid-sentence: Nimbus is the project, not an entity.
    text = (
        "The gateways moved to Nimbus in May, after Project Nimbus passed its review.\n\n"
        "Customers already on Nimbus saw no delay. We shipped Nimbus to every depot; the team runs Nimbus daily.\n"
    )
    result = file_and_commit(root, write_source(root, 1, text, title="Ingest review", occurred_at="2026-05-02"), 1)
    assert not [m for m in result.plan.mutations if isinstance(m, CreatePage) and m.type == "entity"]
    # A capture of the project itself: a project page, still no entity.
    text2 = "Nimbus reached full cutover on 12 June. We shipped Nimbus to the last depot; Nimbus is done.\n"
    rel = write_source(root, 2, text2, title="Cutover", occurred_at="2026-06-12", project="Project Nimbus")
    file_and_commit(root, rel, 2)
    assert (root / "wiki/projects/Project Nimbus.md").exists()
    assert not (root / "wiki/entities/Nimbus.md").exists()
    # Once the project page exists, a source naming "Nimbus" alone links to it and makes no entity either.
    text3 = "We shipped Nimbus to Orion Foods in July. Nimbus now serves Orion Foods; Orion Foods pays for Nimbus.\n"
    result = file_and_commit(root, write_source(root, 3, text3, title="Orion", occurred_at="2026-07-02"), 3)
    created = {m.title for m in result.plan.mutations if isinstance(m, CreatePage) and m.type == "entity"}
    assert created == {"Orion Foods"}
    note = (root / "wiki/notes/Orion.md").read_text()
    assert "[[Project Nimbus|Nimbus]]" in note


def test_existing_entity_named_like_a_project_is_not_fed(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = "We launched Nimbus in May. Customers on Nimbus saw no delay; we shipped Nimbus to Leeds.\n"
    file_and_commit(root, write_source(root, 1, text, title="Launch", occurred_at="2026-05-02"), 1)
    assert (root / "wiki/entities/Nimbus.md").exists()  # nothing said it was a project yet
    before = (root / "wiki/entities/Nimbus.md").read_text()
    text2 = "Nimbus reached full cutover on 12 June; Nimbus is done.\n"
    rel = write_source(root, 2, text2, title="Cutover", occurred_at="2026-06-12", project="Project Nimbus")
    result = file_and_commit(root, rel, 2)
    assert not [m for m in result.plan.mutations if getattr(m, "path", "") == "wiki/entities/Nimbus.md"]
    assert (root / "wiki/entities/Nimbus.md").read_text() == before
    assert (root / "wiki/projects/Project Nimbus.md").exists()


def test_modifier_words_and_mail_headers_are_not_entities(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = """From: Priya Raghunathan <priya@example.com>
To: Aoife Brennan <aoife@example.com>
Subject: Pilot scope
----------------------------------------------------------------------

Hi Aoife,

Beacon gateways in your depot are installed. We will bring first-generation Beacon units and Beacon G2
units for the small boxes. Our Beacon units report every minute.

Best,
Priya
"""
    rel = write_source(root, 1, text, title="Pilot scope", occurred_at="2026-05-19")
    result = file_and_commit(root, rel, 1)
    created = {m.title: m.entity_type for m in result.plan.mutations if isinstance(m, CreatePage) and m.type == "entity"}
    assert "Beacon" not in created
    for m in result.plan.mutations:
        assert "From:" not in m.body and "-----" not in m.body


def test_generic_acronyms_dated_events_and_descriptions_are_not_concepts() -> None:
    def terms(*texts: str) -> list[str]:
        return [d.term for d in definitions([Unit(t, n, n, "", "sentence", n) for n, t in enumerate(texts, 1)])]

    assert terms(
        "Impact: minor. Affected: Excursion alerts (SMS).",
        "We send every alert by Short Message Service (SMS).",
        "The April 2026 ingestion backlog is an example of a SEV-2 incident.",
        "Carrier usage is the fastest-growing revenue line.",
        "The event schema is the one Project Driftwood uses internally.",
        "Beacon G2 is the second generation.",
        # A figure under a bold label is a measure's value, not a definition (pip's user research).
        "**Total number of participants** — Number of responses: **164**",
        "**Response rate**: 38%",
    ) == []
    assert terms(
        "Pharma customers track Mean kinetic temperature (MKT) for every shipment.",
        "A Reefer is a refrigerated truck, trailer or container.",
        "**Lane** — a recurring route from an origin to a destination.",
    ) == ["MKT", "Reefer", "Lane"]


def test_a_clause_that_opens_a_sentence_is_no_concept() -> None:
    # Sixteenth pass: a reference page and a book open sentences with clauses that read as "X is a …": "If the
    # argument is a …", "Because Rust is an …", "Calling a function is an …", "Note that offset is a …". An
    # acronym's page is titled by the words that spell it, not the verb before them.
    found = definitions([Unit(t, n, n, "", "sentence", n) for n, t in enumerate((
        "If the argument is a string, it is parsed.", "Because Rust is an expression-based language, it differs.",
        "Calling a function is an expression.", "Note that offset is a count of bytes.",
        "Formally a decimal character is a character in the Unicode category Nd.",
        "Ownership is a set of rules that govern memory.", "The Law of the Sea is a body of treaties.",
        "Return the daylight saving time (DST) adjustment.", "Likewise LF is a line feed.",
        "The --exclude-existing form is a filter.", "C - Category is a label of the tracker."), 1)])
    assert [(d.term, d.page_title) for d in found] == [
        ("Ownership", "Ownership"), ("Law of the Sea", "Law of the Sea"), ("DST", "Daylight saving time (DST)"),
        ("C - Category", "C - Category")]


def test_also_known_as_alias_lands_on_the_named_person(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = (
        "Welcome Grace Nakamura, our new SRE lead. Grace Nakamura starts on Monday.\n\n"
        "Tomasz Wieczorek, also known as Tomek, will pair with her. Tomasz Wieczorek (CTO) runs on-call.\n"
    )
    result = file_and_commit(root, write_source(root, 1, text, title="Welcome", occurred_at="2026-02-16"), 1)
    created = {m.title: m for m in result.plan.mutations if isinstance(m, CreatePage) and m.type == "entity"}
    assert created["Tomasz Wieczorek"].aliases == ("Tomek",)
    assert created["Tomasz Wieczorek"].entity_type == "person"
    assert "Tomek" not in created["Grace Nakamura"].aliases
    assert "Tomek" not in created


def test_refiling_the_same_capture_is_a_noop(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    rel = write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02")
    file_and_commit(root, rel, 1)
    again = propose(root, Settings(), rel, op_for(root, rel, 2))
    assert again.plan.is_empty
    assert again.verdict.ok and not again.verdict.changes


def test_same_state_same_source_same_plan(tmp_path: Path) -> None:
    plans = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        root = make_repo(tmp_path / run)
        r1 = write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02")
        file_and_commit(root, r1, 1)
        r2 = write_source(root, 2, AURORA_Q1_REVISED, title="Aurora results (corrected)", occurred_at="2026-04-20")
        ctx = build_context(root, Settings(), r2)
        plans.append(plan_to_json(DeterministicPlanner().plan(ctx).plan))
    assert plans[0] == plans[1]
    assert json.loads(plans[0])["contradictions"]


def test_revised_figure_is_a_contradiction_unrelated_ones_are_not(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    file_and_commit(root, write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02"), 1)
    other = file_and_commit(root, write_source(root, 2, AURORA_Q2, title="Aurora Q2", occurred_at="2026-07-02"), 2)
    assert not other.plan.contradictions  # another quarter, another company: no disagreement
    rel = write_source(root, 3, AURORA_Q1_REVISED, title="Aurora results (corrected)", occurred_at="2026-04-20")
    result = file_and_commit(root, rel, 3)
    assert len(result.plan.contradictions) == 1
    con = result.plan.contradictions[0]
    assert con.page == "wiki/entities/Aurora Systems.md"
    assert [c.source for c in con.claims] == [capture_id(1), capture_id(3)]
    assert "corrected" in con.explanation and "later source" in con.explanation
    page = (root / con.page).read_text()
    # Both lines stay; the block cites both.
    assert "$1.2M" in page and "$1.3M" in page and "stigmergy:contradiction con_" in page


def test_no_entities_from_sentence_initial_words_weekdays_or_headings(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = """## Next Steps

Yesterday the team met. However nothing was decided. Monday is the deadline.
Tomorrow we ship. However the release waits. Monday again, and Friday too.
Overall the mood was good. Overall we agreed to wait.

## Action Items

- Draft the memo.
- Review the memo.
"""
    rel = write_source(root, 1, text, title="Next Steps", occurred_at="2026-02-02")
    result = file_and_commit(root, rel, 1)
    created = [m for m in result.plan.mutations if isinstance(m, CreatePage) and m.type == "entity"]
    assert created == []


def test_new_entity_needs_evidence(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = "We met Lena Park once at the fair.\nThe contract with Quillon Partners is signed; Quillon Partners pays monthly.\n"
    rel = write_source(root, 1, text, title="Fair notes", occurred_at="2026-02-02", metadata={"participants": ["Ada Vale"]})
    result = file_and_commit(root, rel, 1)
    created = {m.title: m.entity_type for m in result.plan.mutations if isinstance(m, CreatePage) and m.type == "entity"}
    assert created == {"Quillon Partners": "organisation", "Ada Vale": "person"}


def test_aliases_from_formerly_and_wikilinks(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    first = "Aurora Systems shipped a new console. Aurora Systems grew fast.\nNadia Rahim runs sales at Aurora Systems. Nadia Rahim joined in 2024.\n"
    file_and_commit(root, write_source(root, 1, first, title="Aurora notes", occurred_at="2026-01-10"), 1)
    second = (
        "Aurora Systems (formerly Dawnlight) opened an office.\n"
        "[[Nadia Rahim|Nadia R.]] will lead the office.\n"
    )
    result = file_and_commit(root, write_source(root, 2, second, title="Aurora office", occurred_at="2026-02-10"), 2)
    aliases = {(a.entity, a.alias) for a in result.plan.aliases}
    assert aliases == {("wiki/entities/Aurora Systems.md", "Dawnlight"), ("wiki/entities/Nadia Rahim.md", "Nadia R.")}
    meta, _, _ = split_front_matter((root / "wiki/entities/Aurora Systems.md").read_text())
    assert meta["aliases"] == ["Dawnlight"]
    # Next time the alias alone is recognised as Aurora Systems.
    third = "Dawnlight customers moved to the new console.\n"
    result = file_and_commit(root, write_source(root, 3, third, title="Migration", occurred_at="2026-03-10"), 3)
    assert any(isinstance(m, UpdatePage) and m.path == "wiki/entities/Aurora Systems.md" for m in result.plan.mutations)


def test_updates_insert_dated_sections_and_keep_every_line(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    file_and_commit(root, write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02"), 1)
    before = (root / "wiki/entities/Aurora Systems.md").read_text()
    # An older document filed later lands before the newer section.
    older = "Aurora Systems opened its Leeds office.\nAurora Systems hired 12 engineers in 2025.\n"
    file_and_commit(root, write_source(root, 2, older, title="Aurora history", occurred_at="2025-11-01"), 2)
    after = (root / "wiki/entities/Aurora Systems.md").read_text()
    _, body_before, _ = split_front_matter(before)
    # Every line outside the lead (regenerated on each filing) is kept; every cited line is kept anyway.
    lead = body_before[body_before.index("<!-- stigmergy:lead -->"): body_before.index("<!-- /stigmergy:lead -->")]
    for line in body_before.splitlines():
        assert line in after or (line in lead and "[source](" not in line)
    assert after.index("## 2025-11-01") < after.index("## 2026-04-02")


def test_project_timeline_from_capture_project(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = "Kickoff of the migration with Maria Chen and Tom Lee.\nThe migration is on track for June.\n"
    rel = write_source(root, 1, text, title="Migration kickoff", occurred_at="2026-01-05", project="Project Atlas",
                       metadata={"participants": ["Maria Chen", "Tom Lee"]})
    file_and_commit(root, rel, 1)
    page = (root / "wiki/projects/Project Atlas.md").read_text()
    assert "## 2026-01-05 · [[Migration kickoff]]" in page
    assert "Status: The migration is on track for June." in page
    assert re.search(r"- People: \[\[Maria Chen\]\], \[\[Tom Lee\]\] \(\[source\]", page)


def test_concept_from_definition(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = "## Glossary\n\n- **Dwell time**: how long a shipment waits at a depot.\n\nDwell time rose at two depots.\n"
    file_and_commit(root, write_source(root, 1, text, title="Terms", occurred_at="2026-01-05"), 1)
    page = (root / "wiki/concepts/Dwell time.md").read_text()
    assert "how long a shipment waits at a depot" in page


def test_resolution_of_a_named_contradiction(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    file_and_commit(root, write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02"), 1)
    file_and_commit(root, write_source(root, 2, AURORA_Q1_REVISED, title="Aurora corrected", occurred_at="2026-04-20"), 2)
    (_, record), = _blocks(root)
    rel = write_source(root, 3, "The auditors confirmed the corrected figure.\n", title="Audit note", occurred_at="2026-05-01",
                       resolves=record.id, rationale="The audited figure is $1.3M.")
    result = file_and_commit(root, rel, 3, resolves=record.id)
    assert [z.contradiction_id for z in result.plan.resolutions] == [record.id]
    (_, resolved), = _blocks(root)
    assert resolved.status == "resolved"


def test_restricted_layer_stays_in_its_layer(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    (root / "stigmergy.toml").write_text('[layers.board]\nreaders = ["ceo@example.com"]\n')
    rel = write_source(root, 1, AURORA_Q1, title="Board results", occurred_at="2026-04-02", layer="board")
    result = propose(root, _settings(root), rel, op_for(root, rel, 1))
    assert result.verdict.ok, result.verdict.violations
    assert all(p.startswith("layers/board/wiki/") for p in result.verdict.changes)


def _settings(root: Path) -> Settings:
    from stigmergy.settings import load_settings

    return load_settings(root)


def test_golden_pages(tmp_path: Path) -> None:
    """Planner output on fixed inputs against checked-in pages (STIGMERGY_UPDATE_GOLDEN=1 rewrites them)."""
    root = make_repo(tmp_path)
    file_and_commit(root, write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02",
                                       metadata={"participants": ["Maria Chen", "Omar Diaz"]}), 1)
    file_and_commit(root, write_source(root, 2, AURORA_Q2, title="Aurora Q2", occurred_at="2026-07-02"), 2)
    file_and_commit(root, write_source(root, 3, AURORA_Q1_REVISED, title="Aurora results (corrected)",
                                       occurred_at="2026-04-20", project="Project Atlas"), 3)
    pages = _pages(root)
    if UPDATE_GOLDEN:
        for old in GOLDEN.rglob("*.md"):
            old.unlink()
        for rel, text in pages.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_text(text, encoding="utf-8")
    expected = {p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8") for p in sorted(GOLDEN.rglob("*.md"))}
    assert pages == expected


def test_plan_is_judged_by_the_real_gates(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    rel = write_source(root, 1, AURORA_Q1, title="Aurora results", occurred_at="2026-04-02")
    ctx = build_context(root, Settings(), rel)
    plan = DeterministicPlanner().plan(ctx).plan
    verdict = evaluate(plan, root, Settings(), op_for(root, rel, 1))
    assert verdict.ok
    assert "wiki/notes/Aurora results.md" in verdict.changes


def test_a_link_target_or_a_bare_directive_is_markup_not_a_key_point() -> None:
    # pip's CI page filed ".. _`tracking issue`: https://github.com/pypa/pip/issues/7279" as a key point: a
    # reStructuredText hyperlink target, like Markdown's "[label]: https://…", only gives a link its address.
    from stigmergy.plan.deterministic.analysis import score_unit

    def score(text: str) -> float:
        return score_unit(Unit(text, 1, 1, "", "sentence", 1), 0, 0)

    assert score(".. _`tracking issue`: https://github.com/pypa/pip/issues/7279") == 0
    assert score(".. _PyPI: https://pypi.org/ .. _PyPI Simple API: https://warehouse.readthedocs.io/api/") == 0
    assert score("[pip docs]: https://pip.pypa.io/en/stable/ 'the user guide'") == 0
    assert score(".. _`Python 2 Support`:") == 0
    assert score(".. toctree:: :maxdepth: 2 :caption: Contents") == score(".. image:: img/pip-resolver-flow.png") == 0
    assert score(".. attention:: PyPI no longer supports pip search or the XML-RPC search API.") > 0
    assert score("Support for Python 3.8 ends in pip 25.0, released on 26 April 2025.") > 0
    assert score("[Update]: the launch moved to 12 May 2026 after the carrier tests.") > 0
