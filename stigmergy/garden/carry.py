"""What a recompile carries over from the wiki it replaces: page ids and creation times (by path), aliases,
contradiction records with their resolutions, and human-written lines; plus the report that compares
the two wikis (pages, cited lines and contradictions gained and lost)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.gates.authorship import Authorship
from stigmergy.gates.maintenance import visible
from stigmergy.pages.citations import citations_by_line
from stigmergy.pages.contradictions import Block, scan_blocks
from stigmergy.pages.wiki import WikiPage, parse_wiki_page, render_wiki_page
from stigmergy.repo.git import Git

MAX_LISTED = 200


@dataclass
class CarryReport:
    pages_added: list[str] = field(default_factory=list)
    pages_removed: list[str] = field(default_factory=list)
    pages_changed: list[str] = field(default_factory=list)
    cited_gained: list[str] = field(default_factory=list)
    cited_lost: list[str] = field(default_factory=list)
    contradictions_gained: list[str] = field(default_factory=list)
    contradictions_lost: list[str] = field(default_factory=list)
    contradictions_kept: int = 0
    human_reapplied: list[str] = field(default_factory=list)
    human_listed: list[str] = field(default_factory=list)  # their page is gone: listed, not re-applied

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if isinstance(value, list):
                out[key] = len(value)
                out[f"{key}_list"] = value[:MAX_LISTED]
            else:
                out[key] = value
        return out


def _claims(block: Block) -> frozenset[tuple[str, int, int]]:
    return frozenset((c.path, c.start, c.end) for c in block.record.claims)


def _cited(rel: str, text: str | None) -> Counter[str]:
    if not text:
        return Counter()
    body_start = text.find("\n---\n", 3) + 5 if text.startswith("---\n") else 0
    errors: list[tuple[int, str]] = []
    by_line = citations_by_line(text[body_start:], rel, errors=errors)
    lines = text[body_start:].split("\n")
    blocks, _ = scan_blocks(text[body_start:], rel)
    in_blocks = {n for b in blocks for n in range(b.start_line, b.end_line + 1)}
    return Counter(f"{rel}: {lines[n - 1]}" for n in by_line if n not in in_blocks)


def carry_over(
    old_texts: dict[str, str],
    new_texts: dict[str, str],
    human: dict[str, list[tuple[int, str]]],
    timestamp: str,
) -> tuple[dict[str, str], CarryReport]:
    """The recompiled pages with what must survive carried over, and the comparison report."""
    report = CarryReport()
    out: dict[str, str] = {}
    # A contradiction is one record wherever the planner put it this time: an old block keeps its page
    # (when that page is still derived) and a new block recording the same claims elsewhere is dropped.
    homes: dict[frozenset[tuple[str, int, int]], str] = {}
    for rel, text in old_texts.items():
        if rel in new_texts and "stigmergy:contradiction" in text:
            for b in scan_blocks(text, rel)[0]:
                homes.setdefault(_claims(b), rel)
    for rel in sorted(new_texts):
        text = new_texts[rel]
        old_text = old_texts.get(rel)
        try:
            new = parse_wiki_page(text, rel)
            old = parse_wiki_page(old_text, rel) if old_text is not None else None
        except ContractError:
            out[rel] = text
            continue
        if old is None:
            report.pages_added.append(rel)
            body = _drop_twins(rel, new.body, homes)
            text = render_wiki_page(new.with_body(body, rel)) if body != new.body else text
            new = parse_wiki_page(text, rel)
            out[rel] = text
            for b in scan_blocks(new.body, rel)[0]:
                report.contradictions_gained.append(f"{b.record.id} on {rel}: {b.record.subject}")
            continue
        body = _carry_blocks(rel, old, new, report, homes)
        body = _reapply_human(rel, old_text or "", old, body, human.get(rel, []), report)
        aliases = tuple(dict.fromkeys((*old.aliases, *(a for a in new.aliases if a not in old.aliases))))
        page = replace(new.with_body(body, rel), id=old.id, created=old.created, aliases=aliases, status=old.status,
                       updated=old.updated)
        rendered = render_wiki_page(page)
        if rendered != old_text:
            rendered = render_wiki_page(replace(page, updated=timestamp))
            report.pages_changed.append(rel)
        out[rel] = rendered
    for rel in sorted(set(old_texts) - set(new_texts)):
        report.pages_removed.append(rel)
        try:
            old = parse_wiki_page(old_texts[rel], rel)
        except ContractError:
            continue
        for b in scan_blocks(old.body, rel)[0]:
            report.contradictions_lost.append(f"{b.record.id} on {rel}: {b.record.subject} (its page is gone)")
        for _n, line in human.get(rel, []):
            report.human_listed.append(f"{rel}: {line}")
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    for rel, text in old_texts.items():
        before.update(_cited(rel, text))
    for rel, text in out.items():
        after.update(_cited(rel, text))
    report.cited_gained = sorted((after - before).elements())
    report.cited_lost = sorted((before - after).elements())
    return out, report


def _drop_twins(rel: str, body: str, homes: dict[frozenset[tuple[str, int, int]], str]) -> str:
    for b in scan_blocks(body, rel)[0]:
        home = homes.get(_claims(b))
        if home is not None and home != rel:
            body = body.replace("\n\n" + b.text, "\n", 1) if "\n\n" + b.text in body else body.replace(b.text, "", 1)
    return body.rstrip("\n") + "\n"


def _carry_blocks(rel: str, old: WikiPage, new: WikiPage, report: CarryReport,
                  homes: dict[frozenset[tuple[str, int, int]], str]) -> str:
    """`new`'s body with each old contradiction block kept byte for byte: in place of the new block that
    records the same claims, else appended; new blocks that no old one matches are gained."""
    old_blocks = scan_blocks(old.body, rel)[0]
    body = _drop_twins(rel, new.body, homes)
    new_blocks = scan_blocks(body, rel)[0]
    matched: set[str] = set()
    for ob in old_blocks:
        twin = next((nb for nb in new_blocks if nb.record.id not in matched and
                     (nb.record.id == ob.record.id or _claims(nb) == _claims(ob))), None)
        report.contradictions_kept += 1
        if twin is not None:
            matched.add(twin.record.id)
            if twin.text != ob.text:
                body = body.replace(twin.text, ob.text, 1)
        else:
            body = body.rstrip("\n") + "\n\n" + ob.text
    for nb in new_blocks:
        if nb.record.id not in matched:
            report.contradictions_gained.append(f"{nb.record.id} on {rel}: {nb.record.subject}")
    return body


def _reapply_human(rel: str, old_text: str, old: WikiPage, body: str, lines: list[tuple[int, str]],
                   report: CarryReport) -> str:
    """Each run of human-written body lines of the old page put back: after the old line that preceded it
    when that line is still there, else at the end. A run keeps its blank lines (a person's paragraph
    break is theirs too); lines already present are not repeated."""
    if not lines:
        return body
    old_lines = old_text.split("\n")
    out, put_back = reapply_lines(body, human_blocks(old_lines, lines))
    report.human_reapplied += [f"{rel}: {line}" for line in put_back if line.strip()]
    return out


def human_blocks(old_lines: list[str], lines: list[tuple[int, str]]) -> list[tuple[str | None, list[str]]]:
    """[(anchor: the line before the run, or None at the top; the run's lines)] for runs of consecutive
    human line numbers that hold a line other than a blank or a heading."""
    blocks: list[tuple[str | None, list[str]]] = []
    run: list[tuple[int, str]] = []
    for n, line in sorted(lines) + [(-1, "")]:
        if run and n != run[-1][0] + 1:
            if any(t.strip() and not t.startswith("#") for _, t in run):
                first = run[0][0]
                anchor = old_lines[first - 2] if first >= 2 else None
                blocks.append((anchor, [t for _, t in run]))
            run = []
        if n > 0:
            run.append((n, line))
    return blocks


def reapply_lines(body: str, blocks: list[tuple[str | None, list[str]]]) -> tuple[str, list[str]]:
    """(`body` with each block of lines put back after its anchor line (else at the end), unless every
    non-blank line of it is there already (as a reader sees it); the lines put back)."""
    out = body.rstrip("\n").split("\n")
    present = Counter(visible(ln) for ln in out)
    put_back: list[str] = []
    for anchor, block in blocks:
        wanted = [t for t in block if t.strip()]
        if all(present[visible(t)] > 0 for t in wanted):
            for t in wanted:
                present[visible(t)] -= 1
            continue
        at = len(out)
        if anchor is not None and anchor.strip() and anchor in out:
            at = out.index(anchor) + 1
        out[at:at] = block
        put_back += block
    return "\n".join(out) + "\n", put_back


def human_lines(root: Path, texts: dict[str, str], git: Git | None = None) -> dict[str, list[tuple[int, str]]]:
    """{page: [(line, text)]} of the body lines a person wrote (git blame), for pages `texts` of the
    committed wiki at `root`. `git`: the repository's, when its walk of the history (and the page versions
    read) for the curation record can serve here too."""
    # Pages only: their commit lists come from the walk the curation record reads (one git walk, not three).
    authorship = Authorship(root, git=git, walk=("wiki", "layers"))
    authorship.prefetch(list(texts))
    # Pages people touched only in their front matter (an alias edit) hold no body line of theirs.
    no_body = authorship.body_untouched_by_people(texts)
    out: dict[str, list[tuple[int, str]]] = {}
    for rel, text in texts.items():
        if rel in no_body:
            continue
        lines = authorship.human_lines(rel)
        if not lines:
            continue
        all_lines = text.split("\n")
        end = text.find("\n---\n", 3)
        body_first = text.count("\n", 0, end + 5) + 1 if text.startswith("---\n") and end >= 0 else 1
        picked = [(n, all_lines[n - 1]) for n in sorted(lines) if body_first < n <= len(all_lines)]
        if picked:
            out[rel] = picked
    return out
