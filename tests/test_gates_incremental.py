"""cited-line-lost reads the new text's shared line count and builds the filing moves only when a cited
line is left without a copy: the verdicts and records must be those of the full check it replaced, which
is kept here verbatim (with the FilingMoves it used) and run beside it on generated old/new page pairs,
hostile ones included (duplicates, moved lines, lead lines, archive arrivals, blocks edited at their
edge, front matter changes, whole rewrites, CRLF, deletions)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from test_gates_support import capture_id, op

from stigmergy.gates import rules
from stigmergy.gates.context import GateContext, Violation, line_counter
from stigmergy.gates.filing_moves import _archives_of, lead_range
from stigmergy.gates.maintenance import LineLedger, is_maintenance, page_removal_reason
from stigmergy.gates.view import _v
from stigmergy.pages.citations import Citation, cite
from stigmergy.pages.contradictions import ClaimRecord, make_contradiction, render_block
from stigmergy.pages.wiki import LEAD_END, LEAD_START
from stigmergy.settings import Settings

PAGE = "wiki/entities/Aurora.md"
ARCHIVE = "wiki/entities/Aurora (2025).md"
SRC = [f"sources/2026/03/{capture_id(i)}.md" for i in range(4)]
CON = ["con_" + capture_id(10 + i)[4:] for i in range(4)]


# -- the full check as it was (rules.cited_line_lost and FilingMoves before the change), verbatim --------


class _OldFilingMoves:
    def __init__(self, ctx: GateContext, rel: str, old: str, new: str | None) -> None:
        self.rel = rel
        old_lines = old.split("\n")
        self.old_lead = Counter(old_lines[i] for i in lead_range(old_lines))
        new_lines = (new or "").split("\n")
        lead = lead_range(new_lines)
        self.new_body = Counter(line for i, line in enumerate(new_lines) if i not in lead)
        self.arrived: Counter[str] = Counter()
        self.arrived_on: dict[str, str] = {}
        for other in _archives_of(ctx, rel):
            added = line_counter(ctx.changes[other]) - line_counter(ctx.disk_text(other))
            for line, n in added.items():
                self.arrived[line] += n
                self.arrived_on.setdefault(line, other)
        self.arrived_total = Counter(self.arrived)

    def account(self, line: str) -> str | None:
        if self.old_lead[line] > 0 and self.new_body[line] > 0:
            self.old_lead[line] -= 1
            return f"lead line regenerated, kept in the body of {self.rel}: {line}"
        if self.arrived[line] > 0:
            self.arrived[line] -= 1
            return f"moved to the archive page {self.arrived_on[line]}: {line}"
        if self.old_lead[line] > 0 and self.arrived_total[line] > 0:
            self.old_lead[line] -= 1
            return f"lead line regenerated, its body line moved to {self.arrived_on[line]}: {line}"
        return None


def _old_cited_line_lost(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, new in ctx.changes.items():
        old = ctx.disk_text(rel)
        if old is None or not rules._is_wiki(rel):
            continue
        old_view = _v(ctx, rel, old)
        remaining = line_counter(new)
        lost: list[str] = []
        ledger = LineLedger(ctx, rel) if is_maintenance(ctx) else None
        moves = _OldFilingMoves(ctx, rel, old, new) if ledger is None else None
        if ledger is not None and new is None:
            reason = page_removal_reason(ctx, rel)
            if reason is None:
                out.append(Violation("cited-line-lost", rel, f"a {ctx.op.kind} operation cannot remove this page"))
                continue
            ctx.records.append(reason)
        for n, line in old_view.cited_lines():
            if ledger is not None:
                why = ledger.account(line, old_view.cites[n])
                if why is None:
                    lost.append(line)
                elif why != "kept":
                    ctx.records.append(why)
                continue
            if remaining[line] > 0:
                remaining[line] -= 1
                continue
            con_id = rules._retired_by_resolution(ctx, old_view.cites[n])
            if con_id is not None:
                ctx.records.append(f"retired cited line (resolution {con_id}) {rel}:{n}: {line}")
                continue
            why = moves.account(line) if moves is not None else None
            if why is not None:
                ctx.records.append(why)
                continue
            lost.append(line)
        if lost:
            what = "the page is deleted" if new is None else "they are edited or dropped"
            out.append(
                Violation(
                    "cited-line-lost", rel,
                    f"{len(lost)} cited line(s) would be lost because {what}; keep each line verbatim "
                    f"(move it, or add a 'Correction:' line with its own citation beside it)",
                    rules._shown(lost),
                )
            )
    return out


# -- generated pages ----------------------------------------------------------------------------------


def _fact(rng: random.Random, page: str) -> str:
    # Few distinct texts and citations, so that duplicates (the same line twice) are common.
    src = rng.choice(SRC)
    start = rng.randint(1, 3)
    return f"- Aurora fact {rng.randint(0, 5)}. {cite(page, src, start)}"


def _block(rng: random.Random, page: str) -> list[str]:
    con = make_contradiction(
        CON[rng.randint(0, 2)], "Aurora units", "Two reports disagree.",
        [ClaimRecord(f"Aurora shipped {10 + i} units.", "2026-03-0" + str(i + 1), capture_id(i), SRC[i], i + 1, i + 1)
         for i in range(2)],
    )
    return render_block(con, page).split("\n")


def _page(rng: random.Random, page: str) -> list[str]:
    body: list[str] = []
    for _ in range(rng.randint(0, 14)):
        r = rng.random()
        if r < 0.6:
            body.append(_fact(rng, page))
        elif r < 0.75:
            body.append(f"Plain remark {rng.randint(0, 3)}.")
        elif r < 0.85:
            body.append(f"## 2026-03-{rng.randint(10, 12)}")
        else:
            body.extend(_block(rng, page))
    lead = [LEAD_START, *rng.sample(body, min(len(body), rng.randint(0, 2))), LEAD_END] if rng.random() < 0.5 else []
    sources = sorted({s.rsplit("/", 1)[1][:-3] for s in SRC[: rng.randint(0, 4)]})
    head = ["---", "title: Aurora", "sources:", *[f"- {s}" for s in sources], "---"]
    return [*head, "# Aurora", *lead, "", *body, ""]


def _mutate(rng: random.Random, lines: list[str], page: str) -> list[str]:
    lines = list(lines)
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(["drop", "move", "dup", "edit", "add", "head", "block-edge", "swap"])
        if not lines:
            break
        i = rng.randrange(len(lines))
        if kind == "drop":
            del lines[i]
        elif kind == "move":
            lines.insert(rng.randrange(len(lines)), lines.pop(i))
        elif kind == "dup":
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif kind == "edit":
            lines[i] = lines[i].replace("fact", "figure", 1) if "fact" in lines[i] else lines[i] + " (edited)"
        elif kind == "add":
            lines.insert(i, _fact(rng, page))
        elif kind == "head":
            # A front matter change shifts every line number below it: nothing keyed on numbers may survive.
            lines.insert(1, f"- {capture_id(rng.randint(0, 9))}" if rng.random() < 0.5 else "aliases: []")
        elif kind == "block-edge":
            starts = [k for k, ln in enumerate(lines) if ln.startswith("<!-- stigmergy:contradiction ")]
            if starts:
                k = rng.choice(starts)
                lines[k] = lines[k] + " "  # the block no longer parses: its cited lines count as page lines
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    return lines


def _case(rng: random.Random) -> tuple[dict[str, str | None], dict[str, str | None], list[tuple[str, Citation]]]:
    old = _page(rng, PAGE)
    shape = rng.random()
    if shape < 0.1:
        new: list[str] | None = None  # the page is deleted
    elif shape < 0.2:
        new = _page(rng, PAGE)  # rewritten whole
    else:
        new = _mutate(rng, old, PAGE)
    disk: dict[str, str | None] = {PAGE: "\n".join(old)}
    changes: dict[str, str | None] = {PAGE: None if new is None else "\n".join(new)}
    if rng.random() < 0.4:
        # Lines leave for the archive page: some arrive there, with the citation rewritten for its folder
        # (the same folder here) or not at all.
        arch_old = ["# Aurora (2025)", "", *[_fact(rng, ARCHIVE) for _ in range(rng.randint(0, 3))], ""]
        moved = [ln for ln in old if "[source](" in ln and rng.random() < 0.5]
        disk[ARCHIVE] = "\n".join(arch_old) if rng.random() < 0.7 else None
        changes[ARCHIVE] = "\n".join([*arch_old[:-1], *moved, ""])
    if rng.random() < 0.1:
        # CRLF in the new text only (every line differs by its '\r') or in both.
        changes = {k: None if v is None else v.replace("\n", "\r\n") for k, v in changes.items()}
        if rng.random() < 0.5:
            disk = {k: None if v is None else v.replace("\n", "\r\n") for k, v in disk.items()}
    k, a = rng.randrange(4), rng.randint(1, 3)
    claims = [(CON[3], Citation(capture_id(k), SRC[k], a, a + rng.randint(0, 1)))] if rng.random() < 0.3 else []
    return disk, changes, claims


def _run(gate, tmp: Path, disk, changes, claims, kind: str, targets: tuple[str, ...] = ()):  # noqa: ANN001, ANN202
    """One gate over one generated case: its verdict, its records and the exception it raised, if any (the
    attribution and contract equivalence tests run their gates through this too)."""
    ctx = GateContext(root=tmp, settings=Settings(), op=op(kind, targets=targets), changes=dict(changes),
                      _disk=dict(disk), resolved_claims=list(claims))
    try:
        return gate(ctx), ctx.records, None
    except Exception as exc:  # noqa: BLE001 (both forms must fail alike)
        return None, ctx.records, repr(exc)


@pytest.mark.parametrize("seed", range(8))
def test_cited_line_lost_gives_the_full_checks_verdicts_and_records(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    refused = recorded = 0
    for _ in range(400):
        disk, changes, claims = _case(rng)
        kind = "capture" if rng.random() < 0.9 else "recompile"
        want = _run(_old_cited_line_lost, tmp_path, disk, changes, claims, kind)
        got = _run(rules.cited_line_lost, tmp_path, disk, changes, claims, kind)
        assert got == want, (disk, changes, claims)
        refused += bool(want[0])
        recorded += bool(want[1])
    # The generator reaches both verdicts and the records (resolution, lead, archive) in every seed's run.
    assert refused > 20 and recorded > 20
