"""attribution-lost reads each view's memoised set of sources (`PageView.source_ids`) instead of walking
the page's citations two or three times a plan: the verdicts and records must be those of the gate it
replaced, which is kept here verbatim (with the set built by a walk of the citations) and run beside it
on the generated old/new page pairs of test_gates_incremental, made hostile for this gate too (front
matter that declares the cited sources or not, canonical pages whose own `sources` count, archive moves,
resolved claims, deletions, maintenance kinds)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_gates_incremental import CON, PAGE, SRC, _case, _run
from test_gates_support import capture_id

from stigmergy.errors import ContractError
from stigmergy.gates import rules
from stigmergy.gates.context import GateContext, Violation
from stigmergy.gates.filing_moves import moved_sources
from stigmergy.gates.maintenance import attribution_accounted, is_maintenance
from stigmergy.gates.view import PageView, _v, view
from stigmergy.pages.citations import Citation
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.wiki import WikiPage, render_wiki_page

TS = "2026-03-11T09:00:00Z"


# -- the gate as it was (rules.attribution_lost before the change), verbatim but for the walk -------------


def _walked(page_view: PageView) -> set[str]:
    return {c.capture_id for cs in page_view.cites.values() for c in cs}


def _old_attribution_lost(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, new in ctx.changes.items():
        if not rules._is_wiki(rel):
            continue
        new_view = _v(ctx, rel, new) if new is not None else None
        if new is not None and new_view is not None:
            try:
                declared = split_front_matter(new)[0].get("sources")
            except ContractError:
                declared = None
            if declared != sorted(_walked(new_view)):
                out.append(Violation("attribution-lost", rel, "front matter 'sources' differs from the sources cited"))
        old = ctx.disk_text(rel)
        if old is None:
            continue
        old_page = ctx.old_page(rel)
        old_sources = _walked(_v(ctx, rel, old))
        if old_page is not None and not isinstance(old_page, ContractError):
            old_sources |= set(old_page.sources)
        new_sources = _walked(new_view) if new_view is not None else set()
        lost = sorted(old_sources - new_sources)
        if not lost:
            continue
        if is_maintenance(ctx):
            why = attribution_accounted(ctx, rel, lost)
            if why is not None:
                ctx.records.append(why)
                continue
        resolved_paths = {claim.capture_id for _, claim in ctx.resolved_claims}
        if new is not None and not is_maintenance(ctx):
            resolved_paths |= moved_sources(ctx, rel)
        unexplained = [s for s in lost if s not in resolved_paths]
        if unexplained:
            out.append(
                Violation(
                    "attribution-lost", rel,
                    f"the page would stop citing {', '.join(unexplained)}; the set of sources a page cites never shrinks",
                )
            )
        else:
            ctx.records.append(f"attribution retired (resolution) {rel}: {', '.join(lost)}")
    return out


# -- generated pairs --------------------------------------------------------------------------------------


def _canonical(text: str, extra: tuple[str, ...]) -> str:
    """The generated page as a canonical entity page (so that `old_page` parses and its own `sources`,
    declared beside or beyond the cited ones, count), or the text as it was when it has no body."""
    body = text.split("\n---\n", 1)[1] if "\n---\n" in text else ""
    if not body.startswith("# Aurora\n"):
        return text
    cited = _walked(view(PAGE, text))
    page = WikiPage(id="pg_01HV0000000000000000000000", type="entity", title="Aurora", status="seed", created=TS,
                    updated=TS, layer="public", body=body if body.endswith("\n") else body + "\n",
                    sources=tuple(sorted(cited | set(extra))), entity_type="product")
    return render_wiki_page(page)


def _declaring(text: str) -> str:
    """The text with its front matter's `sources` made those its lines cite (the gate's first check passes)."""
    head, sep, body = text.partition("\n---\n")
    if not sep or not head.startswith("---\n"):
        return text
    kept = [ln for ln in head.split("\n") if not ln.startswith("- ") and ln != "sources:"]
    return "\n".join([*kept, "sources:", *[f"- {s}" for s in sorted(_walked(view(PAGE, text)))]]) + sep + body


def _attribution_case(rng: random.Random):  # noqa: ANN202
    disk, changes, claims = _case(rng)
    old, new = disk[PAGE], changes[PAGE]
    if old is not None and rng.random() < 0.3:
        # A canonical page on disk: its front matter may name a source no line cites any more.
        extra = (capture_id(rng.randint(0, 5)),) if rng.random() < 0.5 else ()
        disk[PAGE] = _canonical(old, extra)
    if new is not None and rng.random() < 0.5:
        changes[PAGE] = _declaring(new)
    if new is not None and rng.random() < 0.1:
        changes[PAGE] = _canonical(new, ())
    if rng.random() < 0.25:
        # A resolution names some of the sources: losing only those is recorded, not refused.
        claims = [*claims, *((CON[3], Citation(capture_id(k), SRC[k], 1, 3)) for k in rng.sample(range(4), rng.randint(1, 4)))]
    r = rng.random()
    kind = "capture" if r < 0.75 else "recompile" if r < 0.85 else "delete"
    targets = (PAGE,) if kind == "delete" and rng.random() < 0.5 else ()
    return disk, changes, claims, kind, targets


@pytest.mark.parametrize("seed", range(8))
def test_attribution_lost_gives_the_walking_gates_verdicts_and_records(tmp_path: Path, seed: int) -> None:
    rng = random.Random(1000 + seed)
    refused = recorded = passed = 0
    for _ in range(400):
        disk, changes, claims, kind, targets = _attribution_case(rng)
        # The new gate runs first: a view it memoised must not change what the walk finds afterwards.
        got = _run(rules.attribution_lost, tmp_path, disk, changes, claims, kind, targets)
        want = _run(_old_attribution_lost, tmp_path, disk, changes, claims, kind, targets)
        assert got == want, (disk, changes, claims, kind, targets)
        refused += bool(want[0])
        recorded += bool(want[1])
        passed += not want[0] and want[2] is None
    # Every seed's run reaches refusals, records (resolution, archive, maintenance) and clean passes.
    assert refused > 20 and recorded > 20 and passed > 20


def test_a_views_sources_are_a_fresh_set_each_time() -> None:
    # attribution-lost adds the page's own `sources` to the set it gets: the memo must not see that.
    text = "# Aurora\n\n- Aurora fact. ([source](../../sources/2026/03/cap_01HV0000000000000000000001.md#L1))\n"
    page_view = view(PAGE, text)
    first = page_view.sources()
    first.add("cap_01HV00000000000000000000ZZ")
    assert page_view.sources() == {"cap_01HV0000000000000000000001"} == set(page_view.source_ids)
