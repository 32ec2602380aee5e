"""The eight preservation gates (DESIGN §6). Each reads a GateContext and returns its violations.

Rule ids: source-immutable, cited-line-lost, attribution-lost, contradiction-altered, contract, zone,
layer-flow, human-line. See docs/gates.md for what each promises and how a line may be retired."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from stigmergy.errors import ContractError
from stigmergy.gates.context import GateContext, Violation, front_matter_keys, line_counter, line_counts
from stigmergy.gates.figures import claim_text, missing_figures
from stigmergy.gates.filing_moves import FilingMoves, block_from_base, block_moved, moved_sources
from stigmergy.gates.maintenance import (
    LineLedger,
    alias_removal_accounted,
    attribution_accounted,
    block_accounted,
    block_arrived,
    dead_links_introduced,
    is_maintenance,
    map_violations,
    page_removal_reason,
    recanonicalised,
    source_removal_allowed,
    visible,
    visible_counter,
)
from stigmergy.gates.view import _v
from stigmergy.layers import readers_allow
from stigmergy.pages.citations import Citation
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.markdown import unsafe_link
from stigmergy.pages.paths import page_relpath, unsafe_relpath_reason
from stigmergy.pages.source import is_unsure
from stigmergy.pages.wiki import is_placeholder, parse_wiki_page
from stigmergy.pages.wikilinks import parse_wikilinks
from stigmergy.repo.containment import read_contained
from stigmergy.repo.layout import classify, layer_prefix, map_layer

COPY_MIN_CHARS = 40
MAX_LINES_SHOWN = 5


def _is_wiki(relpath: str) -> bool:
    kind = classify(relpath)
    return kind is not None and kind[0] != "source"


def _is_source_area(relpath: str) -> bool:
    parts = relpath.split("/")
    if parts[0] == "layers" and len(parts) > 2:
        parts = parts[2:]
    return parts[0] == "sources"


def _shown(lines: list[str]) -> tuple[str, ...]:
    return tuple(lines[:MAX_LINES_SHOWN])


def _overlaps(a: Citation, b: Citation) -> bool:
    return a.path == b.path and a.start <= b.end and b.start <= a.end


def _retired_by_resolution(ctx: GateContext, cites: tuple[Citation, ...]) -> str | None:
    for con_id, claim in ctx.resolved_claims:
        if any(_overlaps(c, claim) for c in cites):
            return con_id
    return None


# -- 1. source-immutable ---------------------------------------------------------------------------


def source_immutable(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, text in ctx.changes.items():
        if not _is_source_area(rel):
            continue
        exists = ctx.disk_text(rel) is not None or (ctx.root / rel).exists()
        if text is None and source_removal_allowed(ctx, rel) and exists:
            ctx.records.append(f"source removed by {ctx.op.kind} operation: {rel}")
            continue
        if rel == ctx.op.source_path and text == ctx.disk_text(rel):
            continue
        if exists or text is None:
            out.append(Violation("source-immutable", rel, "source pages are never changed, renamed or removed"))
    return out


# -- 2. cited-line-lost ----------------------------------------------------------------------------


def cited_line_lost(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, new in ctx.changes.items():
        old = ctx.disk_text(rel)
        if old is None or not _is_wiki(rel):
            continue
        old_view = _v(ctx, rel, old)
        # Each old cited line takes one copy of itself from the new text, in page order. The new text's
        # shared count is read, never copied (`taken` counts what this page took), and the filing moves
        # (counters over the new page and its archive pages) are built only for the first line left
        # without a copy: in most plans every cited line keeps its copy.
        available = line_counts(new)
        taken: dict[str, int] = {}
        lost: list[str] = []
        ledger = LineLedger(ctx, rel) if is_maintenance(ctx) else None
        moves: FilingMoves | None = None
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
            had = taken.get(line, 0)  # dict.get: a Counter's missing key costs a Python call
            if had < available.get(line, 0):
                taken[line] = had + 1
                continue
            con_id = _retired_by_resolution(ctx, old_view.cites[n])
            if con_id is not None:
                ctx.records.append(f"retired cited line (resolution {con_id}) {rel}:{n}: {line}")
                continue
            if moves is None:
                moves = FilingMoves(ctx, rel, old, new)
            why = moves.account(line)
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
                    _shown(lost),
                )
            )
    return out


# -- 3. attribution-lost ---------------------------------------------------------------------------


def attribution_lost(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, new in ctx.changes.items():
        if not _is_wiki(rel):
            continue
        # Both sides' sources are read off the views' memoised sets (the page on disk is most often the
        # previous plan's new text, whose view and set this process already made), never walked twice.
        new_sources = _v(ctx, rel, new).source_ids if new is not None else frozenset()
        if new is not None:
            try:
                declared = split_front_matter(new)[0].get("sources")
            except ContractError:
                declared = None
            if declared != sorted(new_sources):
                out.append(Violation("attribution-lost", rel, "front matter 'sources' differs from the sources cited"))
        old = ctx.disk_text(rel)
        if old is None:
            continue
        old_page = ctx.old_page(rel)
        old_sources = _v(ctx, rel, old).sources()
        if old_page is not None and not isinstance(old_page, ContractError):
            old_sources |= set(old_page.sources)
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
            resolved_paths |= moved_sources(ctx, rel)  # cited now by the lines moved to its archive pages
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


# -- 4. contradiction-altered ----------------------------------------------------------------------


def contradiction_altered(ctx: GateContext) -> list[Violation]:
    out = []
    for rel, new in ctx.changes.items():
        if not _is_wiki(rel):
            continue
        old = ctx.disk_text(rel)
        old_blocks = _v(ctx, rel, old).blocks if old is not None else []
        if new is None:
            for block in old_blocks:
                why = block_accounted(ctx, rel, block, {}) if is_maintenance(ctx) else None
                if why is None:
                    out.append(Violation("contradiction-altered", rel, "deleting the page would drop its contradiction blocks"))
                    break
                ctx.records.append(why)
            continue
        new_view = _v(ctx, rel, new)
        for line, message in new_view.block_errors:
            out.append(Violation("contradiction-altered", rel, f"line {line}: {message}"))
        new_by_id = {b.record.id: b for b in new_view.blocks}
        for block in old_blocks:
            cid = block.record.id
            now = new_by_id.get(cid)
            if (now is None or now.text != block.text) and is_maintenance(ctx):
                why = block_accounted(ctx, rel, block, new_by_id)
                if why is not None:
                    ctx.records.append(why)
                    continue
            if now is None and not is_maintenance(ctx):
                why = block_moved(ctx, rel, block)
                if why is not None:
                    ctx.records.append(why)
                    continue
            if now is None:
                out.append(Violation("contradiction-altered", rel, f"contradiction block {cid} was dropped"))
            elif cid in ctx.resolved_blocks and ctx.resolved_blocks[cid] == rel:
                if now.record.status != "resolved" or now.record.claims != block.record.claims:
                    out.append(Violation("contradiction-altered", rel, f"{cid} changed beyond its resolution"))
            elif now.text != block.text:
                out.append(Violation("contradiction-altered", rel, f"contradiction block {cid} was altered"))
        old_ids = {b.record.id for b in old_blocks}
        for cid in new_by_id:
            if cid not in old_ids and ctx.created_blocks.get(cid) != rel and not (
                is_maintenance(ctx) and block_arrived(ctx, rel, new_by_id[cid])
            ) and not (not is_maintenance(ctx) and block_from_base(ctx, rel, new_by_id[cid])):
                out.append(
                    Violation("contradiction-altered", rel, f"block {cid} was not rendered by code from a contradiction proposal")
                )
    return out


# -- 5. contract -----------------------------------------------------------------------------------


def _check_citation(ctx: GateContext, c: Citation) -> str | None:
    kind = classify(c.path) if unsafe_relpath_reason(c.path) is None else None
    if kind is None or kind[0] != "source":
        return f"citation target {c.path} is not a source page"
    lines = ctx.source_lines(c.path)
    if lines is None:
        return f"cited source {c.path} does not exist"
    if c.end > len(lines):
        return f"cited lines L{c.start}-L{c.end} are beyond the end of {c.path} ({len(lines)} lines)"
    unsure = next((n for n in range(max(c.start, 1), c.end + 1) if is_unsure(lines[n - 1])), None)
    if unsure is not None:
        return f"{c.path} L{unsure} is an OCR line read below the confidence threshold (unsure), never a fact"
    return None


def _cited_text(ctx: GateContext, cites: tuple[Citation, ...]) -> str:
    parts = []
    for c in cites:
        lines = ctx.source_lines(c.path) or []
        parts.append("\n".join(lines[c.start - 1 : c.end]))
    return "\n".join(parts)


def contract(ctx: GateContext) -> list[Violation]:
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
        # The old text's count is the shared one (read, never counted off: what this plan's lines took of
        # it is counted apart in `taken`), not two page-size copies per page.
        had = line_counts(ctx.disk_text(rel))
        live = [line for line in new.split("\n") if had[line] == 0 and unsafe_link(line)]
        if live:
            out.append(Violation("contract", rel, "a link to a scheme other than http, https or mailto would be live",
                                 _shown(live)))
        if is_maintenance(ctx):
            dead = dead_links_introduced(ctx, rel, new)
            if dead:
                out.append(Violation("contract", rel, "links written by this operation resolve to no page", _shown(dead)))
        new_view = _v(ctx, rel, new)
        taken: dict[str, int] = {}
        for line, message in new_view.cite_errors:
            if had[new_view.lines[line - 1]] == 0:
                out.append(Violation("contract", rel, f"line {line}: {message}", (new_view.lines[line - 1],)))
        bad: list[str] = []
        unsupported: list[str] = []
        old_visible = visible_counter(ctx.disk_text(rel)) if is_maintenance(ctx) else None
        for n, cites in sorted(new_view.cites.items()):
            line = new_view.lines[n - 1]
            took = taken.get(line, 0)
            if had[line] > took:
                taken[line] = took + 1
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


# -- 6. zone ---------------------------------------------------------------------------------------


def _symlink_on_path(root: Path, rel: str) -> str | None:
    current = root
    for part in rel.split("/"):
        current = current / part
        if os.path.islink(current):
            return str(current.relative_to(root))
    return None


def zone(ctx: GateContext) -> list[Violation]:
    out = []
    layers = set(ctx.settings.layer_names())
    root = ctx.root.resolve()
    for rel, new in ctx.changes.items():
        reason = unsafe_relpath_reason(rel)
        if reason:
            out.append(Violation("zone", rel, reason))
            continue
        link = _symlink_on_path(ctx.root, rel)
        if link:
            out.append(Violation("zone", rel, f"{link} is a symbolic link"))
            continue
        if not (ctx.root / rel).resolve().is_relative_to(root):
            out.append(Violation("zone", rel, "path leaves the repository"))
            continue
        kind = classify(rel)
        map_of = map_layer(rel)
        if map_of is not None and map_of in layers and is_maintenance(ctx):
            out.extend(map_violations(ctx, rel, map_of, new))
            continue
        if kind is None or kind[1] not in layers:
            out.append(Violation("zone", rel, "writes go only under wiki/<folder>/ or layers/<layer>/wiki/<folder>/"))
            continue
        if kind[0] == "source":
            continue  # judged by source-immutable
        if kind[1] != "public" and not rel.startswith(layer_prefix(kind[1])):
            out.append(Violation("zone", rel, "layer folder mismatch"))
        if new is not None and ctx.disk_text(rel) is None:
            try:
                meta = split_front_matter(new)[0]
                derived = page_relpath(str(meta.get("type")), str(meta.get("title")), str(meta.get("layer")))
            except (ContractError, ValueError):
                continue  # contract reports the malformed page
            if derived != rel:
                out.append(Violation("zone", rel, f"a created page must live at its derived path {derived}"))
    return out


# -- 7. layer-flow ---------------------------------------------------------------------------------


def _restricted_source_texts(ctx: GateContext, reader_layer: str) -> list[tuple[str, str]]:
    out = []
    for layer in ctx.settings.layer_names():
        if readers_allow(ctx.settings, reader_layer, layer):
            continue
        base = ctx.root / f"{layer_prefix(layer)}sources"
        for path in sorted(base.glob("*/*/*.md")) if base.is_dir() else []:
            text = read_contained(ctx.root, path.relative_to(ctx.root).as_posix())
            if text is not None:
                out.append((layer, text))
    return out


def _own_source_text(ctx: GateContext) -> str:
    """The operation's own new source page: what its submitter put in is theirs to publish."""
    if not ctx.op.source_path:
        return ""
    return ctx.disk_text(ctx.op.source_path) or ""


def layer_flow(ctx: GateContext) -> list[Violation]:
    """Refuse what a plan would carry out of a narrower layer into a broader page.

    Only what the plan brings that its own capture did not: text the submitter put into their own capture
    is theirs by submission (refusing it would let anyone confirm a guess about restricted text by
    capturing it and watching for exit 3). The reasons never quote the line or name a restricted path,
    since a refusal is shown to the submitter, who may not read the narrower layer."""
    out = []
    own: str | None = None
    for rel, new in ctx.changes.items():
        if new is None or not _is_wiki(rel):
            continue
        layer = (classify(rel) or ("", ""))[1]
        new_view = _v(ctx, rel, new)
        # The shared count, only looked up (`get`: a Counter's missing key is a Python call), not a copy.
        had = line_counts(ctx.disk_text(rel)).get
        fresh = [n for n in range(new_view.body_first_line, len(new_view.lines) + 1) if not had(new_view.lines[n - 1], 0)]
        problems: list[str] = []
        for n in fresh:
            for c in new_view.cites.get(n, ()):
                kind = classify(c.path)
                if kind is not None and not readers_allow(ctx.settings, layer, kind[1]):
                    problems.append(f"line {n} cites a source of layer {kind[1]}")
        for n in fresh:
            for link in parse_wikilinks(new_view.lines[n - 1]):
                targets = ctx.resolver.resolve(link.target, from_layer=layer)
                layers = {(classify(p) or ("", ""))[1] for p in targets}
                if targets and not any(readers_allow(ctx.settings, layer, t) for t in layers):
                    own = _own_source_text(ctx) if own is None else own
                    if f"[[{link.target}" not in own:
                        problems.append(f"line {n} links a page of layer {', '.join(sorted(layers))}")
        long_lines = [(n, claim_text(new_view.lines[n - 1]).strip()) for n in fresh]
        long_lines = [(n, t) for n, t in long_lines if len(t) >= COPY_MIN_CHARS]
        if long_lines:
            own = _own_source_text(ctx) if own is None else own
            long_lines = [(n, t) for n, t in long_lines if t not in own]
        if long_lines:
            restricted = _restricted_source_texts(ctx, layer)
            for n, text in long_lines:
                for src_layer, src in restricted:
                    if text in src:
                        problems.append(f"line {n} copies a line of a layer {src_layer} source")
                        break
        if problems:
            out.append(
                Violation("layer-flow", rel, f"content of a narrower layer would flow into layer {layer}", _shown(problems))
            )
    return out


# -- 8. human-line ---------------------------------------------------------------------------------

_CODE_KEYS = ("updated", "sources")  # code computes these on every update


def human_line(ctx: GateContext) -> list[Violation]:
    existing = [rel for rel in ctx.changes if _is_wiki(rel) and ctx.disk_text(rel) is not None]
    if not existing:
        return []
    authorship = ctx.get_authorship()
    # The same `git status` answers for every wiki page this plan writes, present or new: the write path
    # asks it whether one holds a person's uncommitted edit (Authorship.changed) instead of running another.
    authorship.prefetch(existing, also_status=[rel for rel in ctx.changes if _is_wiki(rel)])
    out = []
    for rel in existing:
        human = authorship.human_lines(rel)
        if not human:
            continue
        old = ctx.disk_text(rel) or ""
        old_lines = old.split("\n")
        keys = front_matter_keys(old)
        remaining = line_counter(ctx.changes[rel])
        ledger = LineLedger(ctx, rel) if is_maintenance(ctx) else None
        cites = _v(ctx, rel, old).cites if ledger is not None else {}
        lost = []
        for n in sorted(human):
            if n > len(old_lines) or keys.get(n) in _CODE_KEYS:
                continue
            line = old_lines[n - 1]
            if ledger is not None and n not in keys:
                why = ledger.account(line, cites.get(n, ()))
                if why is None or why.startswith("retired cited line (recompile)"):
                    lost.append(line)
                elif why != "kept":
                    ctx.records.append(f"human line {why}")
                continue
            if remaining[line] > 0:
                remaining[line] -= 1
            else:
                lost.append(line)
        if lost:
            out.append(
                Violation("human-line", rel, f"{len(lost)} line(s) written by a person would be changed or removed", _shown(lost))
            )
    return out


GATES: tuple[tuple[str, Callable[[GateContext], list[Violation]]], ...] = (
    ("zone", zone),
    ("source-immutable", source_immutable),
    ("cited-line-lost", cited_line_lost),
    ("attribution-lost", attribution_lost),
    ("contradiction-altered", contradiction_altered),
    ("contract", contract),
    ("layer-flow", layer_flow),
    ("human-line", human_line),
)
RULES = tuple(name for name, _ in GATES)
