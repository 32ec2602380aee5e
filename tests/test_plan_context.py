"""Planner context: candidates by relevance (never every page), evidence from their citations, budgets
that drop whole objects."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_plan_support import file_and_commit, make_repo, write_source

from stigmergy.plan.catalogue import catalogue
from stigmergy.plan.context import build_context, fit_total
from stigmergy.plan.prompt import new_nonce, render_request
from stigmergy.settings import ContextSettings, Settings


def _filed(tmp_path: Path) -> Path:
    root = make_repo(tmp_path)
    texts = [
        ("Aurora results", "Aurora Systems reported revenue of $1.2M in Q1 2026.\nAurora Systems hired Maria Chen. Maria Chen leads sales.\n"),
        ("Borealis notes", "Borealis Inc opened in York. Borealis Inc has 40 staff.\n"),
        ("Churn glossary", "## Glossary\n\n- **Churn rate**: the share of customers lost in a period.\n"),
    ]
    for n, (title, text) in enumerate(texts, 1):
        file_and_commit(root, write_source(root, n, text, title=title, occurred_at=f"2026-0{n}-01"), n)
    return root


def test_candidates_are_the_named_entities_and_related_pages(tmp_path: Path) -> None:
    root = _filed(tmp_path)
    rel = write_source(root, 9, "Maria Chen said Aurora Systems will review churn rate in Q2.\n", title="Aurora review")
    ctx = build_context(root, Settings(), rel)
    paths = [c.path for c in ctx.candidates]
    assert "wiki/entities/Aurora Systems.md" in paths and "wiki/entities/Maria Chen.md" in paths
    assert "wiki/concepts/Churn rate.md" in paths
    assert "wiki/entities/Borealis Inc.md" not in paths  # not named, shares nothing
    assert {e.capture_id for e in ctx.evidence} >= {"cap_01JQ000000000000000001AAAA"}
    matched = {e.title for e in ctx.entities if e.matched}
    assert matched == {"Aurora Systems", "Maria Chen"}


def test_budgets_drop_whole_objects_lowest_ranked_first(tmp_path: Path) -> None:
    root = _filed(tmp_path)
    rel = write_source(root, 9, "Maria Chen said Aurora Systems will review churn rate in Q2.\n", title="Aurora review")
    full = build_context(root, Settings(), rel)
    one = len(full.candidates[0].text.encode())
    tight = Settings(context=ContextSettings(candidate_bytes=one, evidence_bytes=1, entity_bytes=80, max_candidates=12))
    ctx = build_context(root, tight, rel)
    assert [c.path for c in ctx.candidates] == [full.candidates[0].path]
    assert ctx.evidence == ()
    assert ctx.trimmed["candidates"] == len(full.candidates) - 1
    assert ctx.trimmed["evidence"] >= 1
    assert all(e.matched for e in ctx.entities) or not ctx.entities


def test_fit_total_checks_the_rendered_bytes(tmp_path: Path) -> None:
    root = _filed(tmp_path)
    rel = write_source(root, 9, "Maria Chen said Aurora Systems will review churn rate in Q2.\n", title="Aurora review")
    ctx = build_context(root, Settings(), rel)
    nonce = new_nonce()
    full = len(render_request(ctx, nonce).encode())
    budget = full - 200
    fitted, rendered = fit_total(ctx, lambda c: render_request(c, nonce), budget)
    assert len(rendered.encode()) <= budget
    assert rendered == render_request(fitted, nonce)
    assert sum(fitted.trimmed.values()) > sum(ctx.trimmed.values())


def test_source_over_budget_keeps_whole_leading_lines(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = "".join(f"Line {i} of a long report about nothing in particular.\n" for i in range(200))
    rel = write_source(root, 1, text, title="Long")
    ctx = build_context(root, replace(Settings(), context=ContextSettings(source_bytes=1000)), rel)
    kept = "\n".join(t for _, t in ctx.source_lines)
    assert len(kept.encode()) <= 1000
    assert all(t.startswith("Line ") for _, t in ctx.source_lines)
    assert ctx.trimmed["source"] > 0


def test_catalogue_reads_entity_heads_once_per_change(tmp_path: Path) -> None:
    root = _filed(tmp_path)
    cat = catalogue(root, "public")
    heads = dict(cat._heads)
    again = catalogue(root, "public")
    assert again is cat and all(again._heads[p] is heads[p] for p in heads)
    assert again.names()["Aurora Systems"] == "wiki/entities/Aurora Systems.md"


def test_catalogue_entities_and_names_are_made_once_per_change_of_a_name(tmp_path: Path, monkeypatch) -> None:
    # Every capture asks for entities() and names(); each walked every head. They are kept until a head's
    # title, type or aliases change, a page appears or goes, and never served stale.
    import stigmergy.plan.catalogue as catalogue_module

    root = _filed(tmp_path)
    cat = catalogue(root, "public")
    cat.entities(), cat.names()
    walked = []
    real = catalogue_module.archive_base
    monkeypatch.setattr(catalogue_module, "archive_base", lambda title: walked.append(title) or real(title))
    mine = cat.names()
    mine["Someone else"] = "wiki/entities/X.md"  # a caller's own copy
    catalogue(root, "public")
    assert cat.names() == {n: p for n, p in mine.items() if n != "Someone else"} and not walked

    page = root / "wiki/entities/Aurora Systems.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("aliases: []", "aliases:\n- Aurora"), encoding="utf-8")
    catalogue(root, "public")
    assert cat.names()["Aurora"] == "wiki/entities/Aurora Systems.md" and walked

    archive = root / "wiki/entities/Aurora Systems (2026).md"
    archive.write_text(text.replace("title: Aurora Systems", "title: Aurora Systems (2026)"), encoding="utf-8")
    catalogue(root, "public")
    assert "wiki/entities/Aurora Systems (2026).md" not in {e.path for e in cat.entities()}
    assert "Aurora Systems (2026)" not in cat.names()
    page.unlink()
    catalogue(root, "public")
    fresh = catalogue_module.Catalogue(root, "public").refresh()
    assert cat.entities() == fresh.entities() and cat.names() == fresh.names()
    assert "wiki/entities/Aurora Systems (2026).md" in {e.path for e in cat.entities()}


def test_title_terms_weigh_the_same_titles_as_weighing_every_title(tmp_path: Path) -> None:
    """Issue 27: titles that share only very common terms are no longer weighed; the titles added for
    shared terms, and their weights, must be those of weighing every title (the reference below)."""
    from stigmergy.plan import context as ctxmod

    root = make_repo(tmp_path)
    notes = root / "wiki" / "notes"
    notes.mkdir(parents=True)
    titles = [f"Weekly sync {i:03d}" for i in range(150)]  # 'weekly' and 'sync' in 150 titles
    # Terms in 8 titles each: none reaches the weight alone, the four together do (the last title).
    titles += [f"Sync review {w} {i}" for w in ("harbor", "gateway", "nimbus", "atlas") for i in range(7)]
    titles += ["Zephyr rollout", "Gateway harbor nimbus atlas review"]
    for t in titles:
        (notes / f"{t}.md").write_text(f"---\ntype: note\ntitle: {t}\n---\n\n# {t}\n")
    rel = write_source(root, 1, "Weekly sync: the zephyr rollout, harbor gateway review with nimbus and atlas.\n",
                       title="Weekly sync")
    wide = Settings(context=ContextSettings(max_candidates=1000, candidate_bytes=10**7))
    got = {c.path: c.score for c in build_context(root, wide, rel).candidates
           if any(r.startswith("shares rare terms") for r in c.reasons)}
    index = ctxmod._TITLE_INDEXES[(str(root), "public")]
    src = ctxmod.read_source(root, rel)
    text = src.page.title + "\n" + src.page.text
    src_terms = ctxmod.terms(text) + ctxmod._period_terms(text)
    scale = min(1.0, 50 / len(titles) + 0.5)
    want = set()
    for path in index.paths:  # every title, as before the bound
        shared = [t for t in set(index.terms[path]) if t in src_terms]
        weight = sum(1.0 / (1 + len(index.by_term[t])) * min(src_terms[t], 3) for t in shared) * scale
        if shared and weight >= 0.3:
            want.add(path)
    assert set(got) == want
    assert "wiki/notes/Zephyr rollout.md" in want and "wiki/notes/Gateway harbor nimbus atlas review.md" in want
    assert not any("Weekly sync 0" in p for p in want)  # the common terms alone never reach the weight


def test_the_planner_plans_the_same_from_the_contexts_catalogue_as_from_a_fresh_listing(tmp_path: Path) -> None:
    # build_context hands its catalogue to the deterministic planner (one listing per filing): the plan
    # must be the one the planner makes when it lists the layer itself.
    from stigmergy.plan.deterministic import DeterministicPlanner

    root = _filed(tmp_path)
    rel = write_source(root, 9, "Maria Chen said Aurora Systems reported revenue of $1.4M in Q1 2026.\n",
                       title="Aurora review")
    ctx = build_context(root, Settings(), rel)
    assert ctx.catalogue is catalogue(root, "public")
    kept = DeterministicPlanner().plan(ctx).plan
    listed = DeterministicPlanner().plan(replace(ctx, catalogue=None)).plan
    assert kept == listed and kept.mutations and kept.contradictions


_TRICKY = ["Acme", "yes", "No", "null", "~", "1.0", "1e3", "0x1F", "2026-01-01", "12:30", "a: b", "#hash", "- dash",
           "'quoted'", '"dq"', "Zürich AG", "x #y", "[list]", "{map}", "&anchor", "*alias", "!tag", "@at", "`tick`",
           "%pct", "? q", "| pipe", "> gt", "trailing ", " lead", "tab\there", "O'Brien", 'say "hi"', "a,b", ""]


def test_catalogue_heads_read_by_the_line_loader_are_what_yaml_reads(tmp_path: Path) -> None:
    # An entity head is read with the page parser's line loader (libyaml for any line it does not read the
    # same way): title, type and aliases must be what libyaml reads, on canonical heads and hand-written ones.
    import yaml

    from stigmergy.pages.frontmatter import render_front_matter
    from stigmergy.plan.catalogue import _read_head

    folder = tmp_path / "wiki" / "entities"
    folder.mkdir(parents=True)
    heads: list[str] = []
    for i, word in enumerate(_TRICKY):
        heads.append(render_front_matter({"title": word, "entity_type": "org", "aliases": [word, f"{word} Co"]}))
        heads.append(f"---\ntitle: {word}\nentity_type: {_TRICKY[-i - 1]}\naliases:\n- {word}\n- x{word}\n---\n")
        heads.append(f"---\ntitle: {word}\naliases: [{word}]\n---\n")
    heads += ["---\n---\n", "---\n\n---\n", "---\ntitle: |\n  Block\n---\n", "---\ntitle: A\ntitle: B\n---\n",
              "---\n- a list\n---\n", "---\ntitle: [unclosed\n---\n", "no front matter\n",
              "---\ntitle: Big\n" + "aliases:\n" + "".join(f"- alias {n}\n" for n in range(2000)) + "---\n"]
    for n, head in enumerate(heads):
        path = folder / f"E{n}.md"
        path.write_text(head + "# Body\n")
        got = _read_head(path, (0, 0), f"E{n}")
        text = path.read_text()[:16384]
        try:
            meta = yaml.load(text[4 : text.index("\n---\n", 3)], Loader=yaml.CSafeLoader) or {}
        except (ValueError, yaml.YAMLError):
            meta = {}
        meta = meta if isinstance(meta, dict) else {}
        aliases = meta.get("aliases") or []
        want = (str(meta.get("title") or f"E{n}"), str(meta.get("entity_type") or "other"),
                tuple(str(a) for a in aliases if isinstance(a, str)))
        assert (got.title, got.entity_type, got.aliases) == want, head
