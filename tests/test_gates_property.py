"""Random sequences of plans, allowed or hostile: whatever the gates accept never loses a cited line."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_gates_support import cited, commit, make_page, make_source, op

from stigmergy.gates.engine import evaluate
from stigmergy.pages.wiki import parse_wiki_page
from stigmergy.plan.schema import Plan, UpdatePage
from stigmergy.repo.init import init_repository
from stigmergy.settings import Settings

PAGE = "wiki/notes/Aurora.md"
SOURCE_LINES = [f"Fact {i}: Aurora shipped {10 + i} units in week {i}." for i in range(8)]

step = st.one_of(
    st.tuples(st.just("shuffle"), st.randoms(use_true_random=False)),
    st.tuples(st.just("add"), st.integers(0, 7)),
    st.tuples(st.just("correct"), st.integers(0, 7)),
    st.tuples(st.just("text"), st.integers(0, 99)),
    st.tuples(st.just("drop"), st.integers(0, 50)),
    st.tuples(st.just("edit"), st.integers(0, 50)),
)


@given(st.lists(step, min_size=1, max_size=6))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_accepted_plans_never_lose_a_cited_line(steps):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "kb"
        init_repository(root)
        src = make_source(root, 1, SOURCE_LINES)
        make_page(root, "note", "Aurora", [f"- {SOURCE_LINES[0]} {cited(PAGE, src, 0)}"])
        commit(root, [src[0], PAGE])
        ever_cited: Counter[str] = Counter()
        for n, (kind, arg) in enumerate(steps):
            page = parse_wiki_page((root / PAGE).read_text(), PAGE)
            lines = page.body.rstrip("\n").split("\n")[2:]
            ever_cited |= Counter(ln for ln in lines if "[source](" in ln)
            if kind == "shuffle":
                arg.shuffle(lines)
            elif kind == "add":
                lines.append(f"- {SOURCE_LINES[arg]} {cited(PAGE, src, arg)}")
            elif kind == "correct":
                lines.append(f"- Correction: {SOURCE_LINES[arg]} {cited(PAGE, src, arg)}")
            elif kind == "text":
                lines.append(f"- Aurora is a company, remark {arg}.")
            elif lines:
                i = arg % len(lines)
                if kind == "drop":
                    del lines[i]
                else:
                    lines[i] = lines[i].replace("units", "pieces").replace("Aurora", "Borealis", 1)
            body = "\n".join(["# Aurora", "", *lines]) + "\n"
            verdict = evaluate(Plan((UpdatePage(PAGE, body),)), root, Settings(), op(n=n))
            if verdict.ok and PAGE in verdict.changes:
                (root / PAGE).write_text(verdict.changes[PAGE])
                commit(root, [PAGE])
            now = Counter((root / PAGE).read_text().split("\n"))
            assert not (ever_cited - now), "a cited line was lost"
