"""What the deterministic planner keeps across the filings of one process (issue 27) gives what reading
afresh gives: the lead's per-line link and definition answers, and the open-block counts of archive
pages kept by the file's stamp. Each keep is bounded."""

from __future__ import annotations

import os
import random
import re
import time
from collections import Counter
from pathlib import Path

from stigmergy.plan.deterministic import lead as lead_mod
from stigmergy.plan.deterministic import state as state_mod
from stigmergy.plan.deterministic.layout import archive_base
from stigmergy.plan.deterministic.lead import lead_lines

_LINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")


def _links_afresh(rest: list[str], me: str) -> Counter[str]:
    """The related-pages count as lead_lines made it before the per-line keep."""
    return Counter(
        m.group(1).strip() for line in rest if not line.startswith("#") for m in _LINK.finditer(line)
        if m.group(1).strip() != me and archive_base(m.group(1).strip()) is None
    )


def _defines_afresh(alts: str, verbs: str, line: str) -> bool:
    pattern = rf"^- (?:\[\[[^\]]*\]\]\s*)?(?:[^.]{{0,40}}?\b)?(?:{alts})(?:\s*\([^)]*\))?{verbs}"
    return re.compile(pattern, re.I).search(line) is not None


def _body(rng: random.Random, n: int) -> str:
    names = ["Aurora", "Aurora (2026)", "Aurora (2025, 2)", "Initech", " Initech ", "Beacon Console",
             "Weekly sync (2026-01-02)", "Harbor#Q1", "Harbor|the harbor"]
    lines = ["# Aurora", ""]
    for i in range(n):
        if i % 7 == 0:
            lines += ["", f"## 2026-0{1 + i % 9}-1{i % 10} · [[{rng.choice(names)}]]", ""]
        links = " ".join(f"[[{rng.choice(names)}]]" for _ in range(rng.randint(0, 3)))
        verb = rng.choice(["is a", "was the", "reported", "means the", "are one of"])
        who = rng.choice(["Aurora", "AUR", "The team at Aurora", "[[Aurora]]", "Initech"])
        lines.append(f"- {who} {verb} {links} figure ${rng.randint(1, 9)}.{i % 10}M. ([source](../../s.md#L{i + 1}))")
    return "\n".join(lines) + "\n"


def test_lead_lines_kept_per_line_give_the_lead_made_afresh() -> None:
    rng = random.Random(27)
    for trial in range(30):
        body = _body(rng, rng.randint(1, 60))
        rest = body.split("\n")
        me = "Aurora"
        kept = Counter(t for line in rest if not line.startswith("#") for t in lead_mod._line_links(line) if t != me)
        assert kept == _links_afresh(rest, me), trial
        for alts in ("Aurora", "Aurora|AUR", r"Beacon\ Console"):
            for verbs in (lead_mod._PRESENT, lead_mod._DEFINES):
                for line in rest:
                    assert lead_mod._defines(alts, verbs, line) == _defines_afresh(alts, verbs, line), (alts, line)
        # The whole lead, warm against cold: the same text.
        warm = lead_lines("wiki/entities/Aurora.md", "Aurora", "organisation", ["AUR"], body, ["Aurora (2026)"], ["x"])
        lead_mod._line_links.cache_clear()
        lead_mod._defines.cache_clear()
        cold = lead_lines("wiki/entities/Aurora.md", "Aurora", "organisation", ["AUR"], body, ["Aurora (2026)"], ["x"])
        assert warm == cold
        assert "Related: " in warm or "[[" not in body
    for kept_fn in (lead_mod._line_links, lead_mod._defines, lead_mod._defining):
        assert kept_fn.cache_info().maxsize is not None  # bounded


def test_open_block_counts_follow_the_file_whatever_way_it_changes(tmp_path: Path) -> None:
    mark = "> **Contradiction (open):**"
    page = tmp_path / "wiki" / "entities" / "Aurora (2026).md"
    page.parent.mkdir(parents=True)
    rel = "wiki/entities/Aurora (2026).md"
    assert state_mod.count_on_disk(tmp_path, rel, mark) == 0  # missing: nothing counted
    page.write_text(f"{mark} a\n{mark} b\n", encoding="utf-8")
    assert state_mod.count_on_disk(tmp_path, rel, mark) == 2
    # Rewritten in place, the same size, its mtime put back as it was: the ctime still moves.
    before = os.stat(page)
    time.sleep(0.02)
    with open(page, "r+", encoding="utf-8") as fh:
        fh.write(f"{mark} a\n" + "x" * len(f"{mark} b") + "\n")
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(page).st_size == before.st_size
    assert state_mod.count_on_disk(tmp_path, rel, mark) == 1
    # Replaced by rename (as filing writes): a new inode.
    tmp = page.with_suffix(".tmp")
    tmp.write_text(f"{mark} a\n{mark} b\n{mark} c\n", encoding="utf-8")
    os.replace(tmp, page)
    assert state_mod.count_on_disk(tmp_path, rel, mark) == 3
    page.write_bytes(b"\xff\xfe not utf-8")
    assert state_mod.count_on_disk(tmp_path, rel, mark) == 0
    page.unlink()
    assert state_mod.count_on_disk(tmp_path, rel, mark) == 0


def test_open_block_counts_stay_bounded(tmp_path: Path) -> None:
    for i in range(state_mod._COUNTS_MAX + 10):
        state_mod.count_on_disk(tmp_path, f"missing-{i}.md", "x")  # a missing file is never kept
    (tmp_path / "a.md").write_text("x x\n", encoding="utf-8")
    for i in range(state_mod._COUNTS_MAX + 10):
        assert state_mod.count_on_disk(tmp_path, "a.md", f"x{i}") == 0
        assert len(state_mod._COUNTS) <= state_mod._COUNTS_MAX
    assert state_mod.count_on_disk(tmp_path, "a.md", "x") == 2


def test_one_search_for_any_measure_word_answers_as_testing_each_word() -> None:
    from stigmergy.plan.deterministic.contradiction_assembly import _any_of

    rng = random.Random(2027)
    alphabet = ["a", "r", "ar", "r.", "(", ")", "$", "+", "é", " ", "\\", "|", "*", "arr", "q1"]
    for _ in range(400):
        words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 6))}
        test = _any_of(words)
        for _ in range(10):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            assert test(text) == any(w in text for w in words), (words, text)
