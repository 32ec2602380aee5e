"""Page-size scans made cheaper without changing an answer (issue 27, the capture process): the block scan,
the dated-section insertion and the kept sorted listing, each run beside the form it replaced (kept here
verbatim) on generated hostile inputs."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from test_gates_incremental import _block, _page

from stigmergy.errors import ContractError
from stigmergy.pages import contradictions
from stigmergy.pages.contradictions import END_MARKER, START_PREFIX, Block, _checked_record, scan_blocks
from stigmergy.pages.wikilinks import folder_listing
from stigmergy.plan.deterministic.layout import _DATED, BLOCK_START, _section_end, insert_section

PAGE = "wiki/entities/Aurora.md"

# -- the forms replaced, verbatim ------------------------------------------------------------------------

_OLD_MARKER_RE = re.compile(r"stigmergy:(?:contradiction|data)|/stigmergy:contradiction")


def _old_scan_blocks(text: str, page_relpath: str, *, first_line: int = 1) -> tuple[list[Block], list[tuple[int, str]]]:
    if "stigmergy:" not in text:
        return [], []
    lines = text.split("\n")
    marked: list[int] = []
    line_no, pos = 0, 0
    for m in _OLD_MARKER_RE.finditer(text):
        line_no += text.count("\n", pos, m.start())
        pos = m.start()
        if not marked or marked[-1] != line_no:
            marked.append(line_no)
    blocks: list[Block] = []
    errors: list[tuple[int, str]] = []
    seen: set[str] = set()
    k = 0
    while k < len(marked):
        i = marked[k]
        line = lines[i]
        lineno = first_line + i
        if not line.startswith(START_PREFIX):
            errors.append((lineno, "stray contradiction marker outside a block"))
            k += 1
            continue
        k += 1
        while k < len(marked) and lines[marked[k]] != END_MARKER and not lines[marked[k]].startswith(START_PREFIX):
            k += 1
        if k >= len(marked) or lines[marked[k]] != END_MARKER:
            errors.append((lineno, "contradiction block is not closed with its end marker"))
            continue
        j = marked[k]
        block_text = "\n".join(lines[i : j + 1]) + "\n"
        try:
            record = _checked_record(block_text, page_relpath)
            if record.id in seen:
                raise ContractError(f"duplicate contradiction id {record.id}")
            seen.add(record.id)
            blocks.append(Block(record, lineno, first_line + j, block_text))
        except ContractError as exc:
            errors.append((lineno, exc.message))
        k += 1
    return blocks, errors


def _old_insert_section(body: str, date: str, section: list[str]) -> str:
    lines = body.rstrip("\n").split("\n")
    have = set(lines)
    section = [section[0], *[line for line in section[1:] if not line.strip() or line not in have]]
    if not any(line.strip() for line in section[1:]):
        return body.rstrip("\n") + "\n"
    at = None
    last_end = None
    for n, line in enumerate(lines):
        m = _DATED.match(line)
        if m:
            if line[3:13] > date:
                at = n
                break
            last_end = _section_end(lines, n)
    if at is None:
        at = last_end if last_end is not None else len(lines)
        if last_end is None:
            for n, line in enumerate(lines):
                if line.startswith(BLOCK_START):
                    at = n
                    break
    block = [*section, ""]
    before = lines[:at]
    while before and before[-1] == "":
        before.pop()
    after = lines[at:]
    while after and after[0] == "":
        after.pop(0)
    return "\n".join([*before, "", *block, *after]).rstrip("\n") + "\n"


# -- generated inputs -------------------------------------------------------------------------------------


def _hostile_lines(rng: random.Random, lines: list[str]) -> list[str]:
    """Markers where no block expects them: alone, mid-line, two on a line, a bare end marker, a block cut."""
    odd = [
        END_MARKER, f"text {END_MARKER} text", "see /stigmergy:contradiction here", "stigmergy:data only",
        "<!-- stigmergy:lead -->", "<!-- /stigmergy:lead -->", f"{START_PREFIX}con_X -->", "a stigmergy: b",
        "//stigmergy:contradiction/stigmergy:contradiction", "x/stigmergy:datay", "\r", "",
    ]
    out = list(lines)
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.5:
            out.insert(rng.randint(0, len(out)), rng.choice(odd))
        elif r < 0.75 and out:
            del out[rng.randrange(len(out))]
        elif out:
            i = rng.randrange(len(out))
            out[i] = out[i] + rng.choice(odd)
    return out


@pytest.mark.parametrize("seed", range(8))
def test_the_block_scan_answers_as_the_scan_it_replaced(seed: int) -> None:
    # The old pattern's third alternative ("/stigmergy:contradiction") holds the first, so the literal-led
    # pattern marks the same lines; a page whose only "stigmergy:" is its lead's marker has no block.
    rng = random.Random(seed)
    reached = {"blocks": 0, "errors": 0, "lead only": 0}
    for _ in range(400):
        lines = _hostile_lines(rng, _page(rng, PAGE))
        if rng.random() < 0.2:
            lines += _block(rng, PAGE)
        if rng.random() < 0.1:
            lines = [line.replace("\n", "\r\n") for line in lines]
        text = ("\r\n" if rng.random() < 0.05 else "\n").join(lines)
        first = rng.choice([1, 5])
        got = scan_blocks(text, PAGE, first_line=first)
        assert got == _old_scan_blocks(text, PAGE, first_line=first)
        reached["blocks"] += bool(got[0])
        reached["errors"] += bool(got[1])
        reached["lead only"] += "stigmergy:" in text and not got[0] and not got[1]
    assert all(reached.values()), reached


def test_the_marker_pattern_finds_an_end_marker_with_no_other_marker_on_its_line() -> None:
    text = f"# A\n\n{END_MARKER}\n"
    assert scan_blocks(text, PAGE) == ([], [(3, "stray contradiction marker outside a block")])
    assert contradictions._MARKER_RE.pattern.startswith("stigmergy:")  # the literal prefix is the point


def _body(rng: random.Random) -> str:
    lines = ["# Aurora", ""]
    for _ in range(rng.randint(0, 12)):
        r = rng.random()
        if r < 0.45:
            day = rng.randint(1, 6)
            lines += [f"## 2026-03-0{day} · [[Note {day}]]", "", f"- fact {rng.randint(0, 4)}", ""]
        elif r < 0.6:
            lines.append(f"## 2026-03-0{rng.randint(1, 6)}")  # a dated heading with no text after the date
        elif r < 0.7:
            lines += ["## Notes by hand", "A person's line."]
        elif r < 0.8:
            lines += _block(rng, PAGE)
        elif r < 0.9:
            lines.append(f"- fact {rng.randint(0, 4)}")
        else:
            lines.append(rng.choice(["", "# Another title", "##  2026-03-01 spaced", "## 2026-13-99 · odd"]))
    return "\n".join(lines) + rng.choice(["", "\n", "\n\n"])


@pytest.mark.parametrize("seed", range(8))
def test_a_dated_section_goes_where_the_insertion_it_replaced_put_it(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        body = _body(rng)
        date = f"2026-03-0{rng.randint(0, 7)}"
        section = [f"## {date} · [[New note]]", "", *[f"- fact {rng.randint(0, 6)}" for _ in range(rng.randint(0, 3))]]
        assert insert_section(body, date, section) == _old_insert_section(body, date, section)


def test_the_kept_sorted_listing_follows_small_and_large_changes(tmp_path: Path) -> None:
    # The sorted paths are the last list with the names added and removed since (a new list object each
    # time the entries change, the same one while they do not), or sorted afresh past 64 changes.
    notes = tmp_path / "wiki" / "notes"
    notes.mkdir(parents=True)
    rng = random.Random(7)
    pool = [f"{w} {i}.md" for w in ("a", "A", "a b", "b", "Ä", "_x", "z-", "a.b") for i in range(30)]
    present: set[str] = set()
    previous = folder_listing(tmp_path, "wiki/notes")
    for step in range(60):
        for _ in range(rng.choice([1, 1, 2, 5, 80])):
            name = rng.choice(pool)
            if name in present:
                (notes / name).unlink()
                present.discard(name)
            else:
                (notes / name).write_text("x")
                present.add(name)
        if step % 7 == 0:
            (notes / "folder.md").mkdir(exist_ok=True)  # a folder named like a page is no page
        got = folder_listing(tmp_path, "wiki/notes")
        assert got == sorted(f"wiki/notes/{n}" for n in present)
        assert got is not previous or got == previous
        previous = got
    assert folder_listing(tmp_path, "wiki/notes") == previous
