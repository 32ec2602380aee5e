"""contract reads the old text's shared line count (gates/context.line_counts) and counts what the new
page's lines took of it apart, instead of making two page-size copies of it per page: the verdicts must be
those of the gate it replaced, which is kept here verbatim and run beside it on generated old/new pairs of
canonical pages (duplicate lines, lines moved, edited and added, citations that are malformed, that point
at no source, that hold figures the cited lines lack, links to other schemes, maintenance kinds)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_gates_incremental import PAGE, SRC, _mutate, _page, _run
from test_gates_incremental_attribution import _canonical

from stigmergy.errors import ContractError
from stigmergy.gates import rules
from stigmergy.gates.context import GateContext, Violation, line_counter
from stigmergy.gates.figures import missing_figures
from stigmergy.gates.maintenance import (
    alias_removal_accounted,
    dead_links_introduced,
    is_maintenance,
    recanonicalised,
    visible,
    visible_counter,
)
from stigmergy.gates.view import _v
from stigmergy.pages.citations import Citation
from stigmergy.pages.markdown import unsafe_link
from stigmergy.pages.wiki import is_placeholder, parse_wiki_page
from stigmergy.repo.layout import classify

_check_citation, _cited_text, _shown, _is_wiki = rules._check_citation, rules._cited_text, rules._shown, rules._is_wiki


# -- the gate as it was (rules.contract before the change), verbatim -------------------------------------


def _old_contract(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, new in ctx.changes.items():
        if new is None or not _is_wiki(rel):
            continue
        try:
            page = parse_wiki_page(new, rel)
        except ContractError as exc:
            out.append(Violation("contract", rel, exc.message))
            continue
        ptype, layer = classify(rel) or ("", "")
        if page.type != ptype or page.layer != layer:
            out.append(Violation("contract", rel, f"a {page.type} page of layer {page.layer} cannot live at {rel}"))
        if is_placeholder(page.body):
            out.append(Violation("contract", rel, "empty or placeholder page (only the title, TODO, TBD, lorem ipsum, ...)"))
        old_page = ctx.old_page(rel)
        if isinstance(old_page, ContractError):
            if not recanonicalised(ctx, rel, page):
                out.append(Violation("contract", rel, f"the page on disk is not canonical: {old_page.message}"))
        elif old_page is not None:
            for key in ("id", "type", "title", "created", "layer"):
                if getattr(old_page, key) != getattr(page, key):
                    out.append(Violation("contract", rel, f"{key} is stable for a page's life and cannot change on update"))
            dropped = set(old_page.aliases) - set(page.aliases)
            if page.type == "entity" and dropped and not alias_removal_accounted(ctx, rel, dropped):
                out.append(Violation("contract", rel, "aliases are only ever added"))
        # A link to a scheme other than http, https or mailto would be live for every reader: no operation
        # (an LLM planner's line, a push) adds one; lines already on the page are left to `lint`.
        had = line_counter(ctx.disk_text(rel))
        live = [line for line in new.split("\n") if had[line] == 0 and unsafe_link(line)]
        if live:
            out.append(Violation("contract", rel, "a link to a scheme other than http, https or mailto would be live",
                                 _shown(live)))
        if is_maintenance(ctx):
            dead = dead_links_introduced(ctx, rel, new)
            if dead:
                out.append(Violation("contract", rel, "links written by this operation resolve to no page", _shown(dead)))
        new_view = _v(ctx, rel, new)
        old_lines = line_counter(ctx.disk_text(rel))
        for line, message in new_view.cite_errors:
            if old_lines[new_view.lines[line - 1]] == 0:
                out.append(Violation("contract", rel, f"line {line}: {message}", (new_view.lines[line - 1],)))
        bad: list[str] = []
        unsupported: list[str] = []
        old_visible = visible_counter(ctx.disk_text(rel)) if is_maintenance(ctx) else None
        for n, cites in sorted(new_view.cites.items()):
            line = new_view.lines[n - 1]
            if old_lines[line] > 0:
                old_lines[line] -= 1
                continue  # written (and checked) before; old lines are judged by lint, not by this plan
            problems = [p for p in (_check_citation(ctx, c) for c in cites) if p]
            if problems:
                bad.append(f"{line}  <- {problems[0]}")
                continue
            if n in new_view.block_lines:
                continue  # claims are checked from the record below (the callout adds the claim's date)
            if old_visible and old_visible[visible(line)] > 0:
                continue  # the same words as a line checked before: only its links changed (maintenance)
            missing = missing_figures(line, _cited_text(ctx, cites))
            if missing:
                unsupported.append(f"{line}  <- not in the cited lines: {', '.join(missing)}")
        for block in new_view.blocks:
            if ctx.created_blocks.get(block.record.id) != rel:
                continue
            for claim in block.record.claims:
                c = Citation(claim.source, claim.path, claim.start, claim.end)
                problem = _check_citation(ctx, c)
                if problem:
                    bad.append(f"{block.record.id}: {claim.text}  <- {problem}")
                    continue
                missing = missing_figures(claim.text, _cited_text(ctx, (c,)))
                if missing:
                    unsupported.append(f"{block.record.id}: {claim.text}  <- not in the cited lines: {', '.join(missing)}")
        if bad:
            out.append(Violation("contract", rel, "citation does not resolve to an existing source page and line range", _shown(bad)))
        if unsupported:
            out.append(Violation("contract", rel, "figures on a cited line must appear in the cited lines", _shown(unsupported)))
        if old_page is None or isinstance(old_page, ContractError) or tuple(old_page.entities) != page.entities:
            for title in page.entities:
                found = [p for p in ctx.resolver.resolve(title) if (classify(p) or ("", ""))[0] == "entity"]
                if not found:
                    out.append(Violation("contract", rel, f"entity {title!r} has no entity page"))
    return out


# -- generated pairs --------------------------------------------------------------------------------------

# The cited lines of each source: a line citing L1-L3 of one holds 3, 10, 12 and 2026 (a "fact 5" is not).
SOURCE_TEXT = "Aurora shipped 3 units.\nThen 10 more, 12 in all.\nIn 2026 and fact 0, 1, 2.\n"
ODD = [
    "A live link [click](javascript:alert(1)).",
    "- Aurora fact 1. [source](../../sources/2026/03/cap_x.md#L1) in the middle",
    "- Aurora fact 7. ([source](../../sources/2026/03/cap_01HV00000000000000000000ZZ.md#L1))",
]


def _contract_case(rng: random.Random):  # noqa: ANN202
    old = _page(rng, PAGE)
    new = _mutate(rng, old, PAGE) if rng.random() < 0.85 else _page(rng, PAGE)
    for lines in (old, new):
        for _ in range(rng.randint(0, 2)):
            top = lines.index("# Aurora") + 1 if "# Aurora" in lines else len(lines)
            lines.insert(rng.randint(top, len(lines)), rng.choice(ODD))
    old_text, new_text = "\n".join(old), "\n".join(new)
    disk: dict[str, str | None] = {src: SOURCE_TEXT for src in SRC}
    disk[PAGE] = _canonical(old_text, ()) if rng.random() < 0.8 else old_text
    if rng.random() < 0.1:
        disk[PAGE] = None  # a new page
    changes: dict[str, str | None] = {PAGE: _canonical(new_text, ()) if rng.random() < 0.9 else new_text}
    kind = "capture" if rng.random() < 0.85 else "recompile"
    return disk, changes, kind


@pytest.mark.parametrize("seed", range(8))
def test_contract_gives_the_copying_gates_verdicts(tmp_path: Path, seed: int) -> None:
    rng = random.Random(2000 + seed)
    seen: dict[str, int] = {}
    for _ in range(400):
        disk, changes, kind = _contract_case(rng)
        got = _run(rules.contract, tmp_path, disk, changes, (), kind)
        want = _run(_old_contract, tmp_path, disk, changes, (), kind)
        assert got == want, (disk, changes, kind)
        for v in want[0] or []:
            key = v.message.split(":")[0][:40]
            seen[key] = seen.get(key, 0) + 1
        seen["clean"] = seen.get("clean", 0) + (want[0] == [])
    # Every seed reaches the line-by-line verdicts (the ones that skip lines the old page held) and passes.
    for key in ("citation does not resolve to an existing source page and line range",
                "figures on a cited line must appear in the cited lines",
                "a link to a scheme other than http, https or mailto would be live", "clean"):
        assert seen.get(key[:40], 0) > 5, (key, seen)
