"""The gate engine: plan -> materialised changes (an in-memory overlay of the working tree) -> verdict.

`evaluate` never writes to disk. It renders what code owns (front matter, ids, `sources`, aliases,
contradiction blocks), then runs every gate over the overlay. A refused plan is a Verdict with
violations; exceptions are for the unexpected. Committing is the caller's job. See docs/gates.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from stigmergy.errors import ContractError, StigmergyError
from stigmergy.gates.authorship import Authorship
from stigmergy.gates.context import GateContext, OperationInfo, Violation, line_counts
from stigmergy.gates.rules import GATES, RULES
from stigmergy.pages.citations import Citation
from stigmergy.pages.contradictions import (
    ClaimRecord,
    make_contradiction,
    new_contradiction_id,
    render_block,
    resolve_contradiction,
    scan_blocks,
)
from stigmergy.pages.paths import normalise_title, page_relpath, unsafe_relpath_reason
from stigmergy.pages.wiki import WikiPage, h1, new_page_id, render_wiki_page
from stigmergy.pages.wikilinks import link_key, parse_wikilinks, unlink
from stigmergy.plan.schema import CORRECTION_MARK, CreatePage, DeletePage, Plan, UpdatePage
from stigmergy.repo.layout import classify
from stigmergy.settings import Settings

__all__ = ["OperationInfo", "Verdict", "Violation", "evaluate", "judge", "RULES"]


@dataclass(frozen=True)
class Verdict:
    changes: Mapping[str, str | None]  # repo-relative path -> full new file text, None = delete
    violations: tuple[Violation, ...]
    records: tuple[str, ...]  # corrections, retired lines, resolutions, aliases added, blocks opened

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "changes": {p: ("delete" if t is None else "write") for p, t in sorted(self.changes.items())},
            "violations": [
                {"rule": v.rule, "path": v.path, "message": v.message, "lines": list(v.lines)} for v in self.violations
            ],
            "records": list(self.records),
        }


def _body(text: str) -> str:
    body = text.replace("\r\n", "\n").replace("\r", "\n")
    return body.rstrip("\n") + "\n"


def _titles(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for t in (normalise_title(v) for v in values) if t))


class _Materialiser:
    """Applies a plan's proposals to page values; code renders everything the plan may not write itself."""

    def __init__(self, ctx: GateContext) -> None:
        self.ctx = ctx
        self.op = ctx.op
        self.pages: dict[str, WikiPage | None] = {}  # the new state of every page the plan touches
        self.violations: list[Violation] = []

    def refuse(self, rule: str, path: str, message: str, lines: tuple[str, ...] = ()) -> None:
        self.violations.append(Violation(rule, path, message, lines))

    def current(self, rel: str, rule_path: str) -> WikiPage | None:
        """The page at `rel` as this plan has left it so far; refuses (and returns None) if unusable."""
        if rel in self.pages:
            page = self.pages[rel]
            if page is None:
                self.refuse("contract", rule_path, f"{rel} is deleted earlier in this plan")
            return page
        old = self.ctx.old_page(rel)
        if old is None:
            self.refuse("contract", rule_path, f"no page at {rel}")
            return None
        if isinstance(old, ContractError):
            self.refuse("contract", rel, f"the page on disk is not canonical ({old.message}); run `stigmergy lint`")
            return None
        return old

    def check_path(self, rel: str, *, allow_source: bool = False) -> bool:
        reason = unsafe_relpath_reason(rel)
        if reason:
            self.refuse("zone", rel, reason)
            return False
        kind = classify(rel)
        if kind is None or kind[1] not in self.ctx.settings.layer_names():
            self.refuse("zone", rel, "not a wiki page path (wiki/<folder>/<Title>.md or layers/<l>/wiki/...)")
            return False
        if kind[0] == "source" and not allow_source:
            self.refuse("source-immutable", rel, "source pages are never changed by a plan")
            return False
        return True

    # -- mutations ---------------------------------------------------------------------------------

    def create(self, m: CreatePage) -> None:
        title = normalise_title(m.title)
        where = f"create {m.type} {title!r}"
        if m.layer not in self.ctx.settings.layer_names():
            self.refuse("contract", where, f"unknown layer {m.layer!r}")
            return
        if not title:
            self.refuse("contract", where, "a page needs a title")
            return
        rel = page_relpath(m.type, title, m.layer)
        if rel in self.pages or self.ctx.disk_text(rel) is not None:
            self.refuse("contract", rel, "a page already exists at this path; update it instead")
            return
        body = _body(m.body)
        if not body.startswith(h1(title) + "\n"):
            self.refuse("contract", rel, f"the body must start with '{h1(title)}'")
            return
        if m.type != "entity" and (m.aliases or m.entity_type):
            self.refuse("contract", rel, "only entity pages have entity_type and aliases")
            return
        aliases = tuple(a for a in _titles(m.aliases) if link_key(a) != link_key(title))
        self.pages[rel] = WikiPage(
            id=new_page_id(self.op.timestamp, f"{self.op.op_id}\0{rel}"),
            type=m.type,
            title=title,
            status=m.status,
            created=self.op.timestamp,
            updated=self.op.timestamp,
            layer=m.layer,
            body=body,
            entities=_titles(m.entities),
            entity_type=(m.entity_type or "other") if m.type == "entity" else None,
            aliases=aliases,
        )
        for alias in aliases:
            self._check_alias_owner(rel, alias)

    def update(self, m: UpdatePage) -> None:
        if not self.check_path(m.path):
            return
        page = self.current(m.path, m.path)
        if page is None:
            return
        body = _body(m.body)
        if not body.startswith(h1(page.title) + "\n"):
            self.refuse("contract", m.path, f"the body must start with '{h1(page.title)}' (a page's title is stable)")
            return
        self.pages[m.path] = replace(
            page,
            body=body,
            status=m.status or page.status,
            entities=page.entities if m.entities is None else _titles(m.entities),
        )

    def delete(self, m: DeletePage) -> None:
        if not self.check_path(m.path, allow_source=self.op.kind == "delete"):
            return
        kind = classify(m.path)
        if kind is not None and kind[0] == "source":
            if self.ctx.disk_text(m.path) is None:
                self.refuse("contract", m.path, "no source page at this path")
                return
            self.ctx.changes[m.path] = None
            return
        if self.current(m.path, m.path) is None:
            return
        self.pages[m.path] = None
        self.ctx.records.append(f"deleted {m.path}: {m.reason}")

    # -- aliases -----------------------------------------------------------------------------------

    def _check_alias_owner(self, rel: str, alias: str) -> bool:
        owners = [p for p in self.ctx.resolver.resolve(alias) if p != rel and (classify(p) or ("", ""))[0] == "entity"]
        for other_rel, other in self.pages.items():
            if other_rel != rel and other is not None and other.type == "entity":
                if link_key(alias) in {link_key(other.title), *(link_key(a) for a in other.aliases)}:
                    owners.append(other_rel)
        if owners:
            self.refuse("contract", rel, f"alias {alias!r} already belongs to {sorted(set(owners))[0]}")
            return False
        return True

    def alias(self, entity: str, alias: str) -> None:
        if not self.check_path(entity):
            return
        page = self.current(entity, entity)
        if page is None:
            return
        if page.type != "entity":
            self.refuse("contract", entity, "aliases belong to entity pages")
            return
        alias = normalise_title(alias)
        if not alias or link_key(alias) in {link_key(page.title), *(link_key(a) for a in page.aliases)}:
            return
        if self._check_alias_owner(entity, alias):
            self.pages[entity] = replace(page, aliases=(*page.aliases, alias))
            self.ctx.records.append(f"alias added: {alias!r} -> {entity}")

    # -- contradictions ----------------------------------------------------------------------------

    def contradiction(self, index: int, page_rel: str, subject: str, explanation: str, claims: tuple) -> None:
        if not self.check_path(page_rel):
            return
        page = self.current(page_rel, page_rel)
        if page is None:
            return
        records = []
        for claim in claims:
            path = self.ctx.find_source(claim.source)
            if path is None:
                self.refuse("contract", page_rel, f"contradiction claim cites {claim.source!r}, which is not a source page")
                return
            records.append(ClaimRecord(claim.text, claim.date, claim.source, path, claim.start, claim.end))
        cid = new_contradiction_id(self.op.timestamp, f"{self.op.op_id}\0{page_rel}\0{index}")
        try:
            record = make_contradiction(cid, subject, explanation, records)
        except ContractError as exc:
            self.refuse("contract", page_rel, f"contradiction: {exc.message}")
            return
        block = render_block(record, page_rel)
        self.pages[page_rel] = replace(page, body=page.body.rstrip("\n") + "\n\n" + block)
        self.ctx.created_blocks[cid] = page_rel
        self.ctx.records.append(f"contradiction {cid} opened on {page_rel}: {record.subject}")

    def resolution(self, cid: str, rationale: str, page_rel: str, source: str) -> None:
        if self.op.resolves != cid:
            self.refuse(
                "contradiction-altered", page_rel,
                f"resolving {cid} needs a capture that names it (--resolves {cid})",
            )
            return
        if self.op.capture_id is not None and source != self.op.capture_id:
            self.refuse("contradiction-altered", page_rel, f"{cid} can only be resolved by the capture that names it")
            return
        if not self.check_path(page_rel):
            return
        page = self.current(page_rel, page_rel)
        if page is None:
            return
        path = self.ctx.find_source(source)
        if path is None:
            self.refuse("contract", page_rel, f"resolution source {source!r} is not a source page")
            return
        blocks, _ = scan_blocks(page.body, page_rel)
        block = next((b for b in blocks if b.record.id == cid), None)
        if block is None:
            self.refuse("contract", page_rel, f"no contradiction block {cid} on this page")
            return
        try:
            resolved = resolve_contradiction(
                # Dated by when the resolving capture happened, not by the day it was filed.
                block.record, rationale or self.op.rationale or "", source, path,
                (self.op.occurred_at or self.op.timestamp)[:10],
            )
        except ContractError as exc:
            self.refuse("contradiction-altered", page_rel, exc.message)
            return
        body = page.body.replace(block.text, render_block(resolved, page_rel), 1)
        self.pages[page_rel] = replace(page, body=body)
        self.ctx.resolved_blocks[cid] = page_rel
        for cl in block.record.claims:
            self.ctx.resolved_claims.append((cid, Citation(cl.source, cl.path, cl.start, cl.end)))
        assert resolved.resolution is not None  # resolve_contradiction returns a resolved record
        self.ctx.records.append(f"contradiction {cid} resolved by {source}: {resolved.resolution.rationale}")

    # -- rendering ---------------------------------------------------------------------------------

    def finish(self) -> None:
        ctx = self.ctx
        # Provisional texts first, so link resolution sees this plan's own creations and deletions.
        for rel, page in self.pages.items():
            ctx.changes[rel] = None if page is None else render_wiki_page(page.with_body(page.body, rel))
        ctx.refresh_links()
        for rel, page in list(self.pages.items()):
            if page is None:
                continue
            old = ctx.old_page(rel)
            # Only looked up (the shared count, not a copy of it per page); `get`, since a Counter's
            # missing key is a Python call and most new lines are not on the old page.
            old_lines = line_counts(old.body if isinstance(old, WikiPage) else None)
            lines = page.body.split("\n")
            for i, line in enumerate(lines):
                if "[[" not in line or old_lines.get(line, 0) > 0:
                    continue
                dead = [lk.raw for lk in parse_wikilinks(line) if not ctx.resolver.resolve(lk.target)]
                if dead:
                    # DESIGN §6: links resolve or become plain text.
                    lines[i] = unlink(line, dead)
                    ctx.records.append(f"dead link(s) made plain text on {rel}: {', '.join(dead)}")
            page = page.with_body("\n".join(lines), rel)
            if isinstance(old, WikiPage) and replace(page, updated=old.updated) == old:
                ctx.changes.pop(rel)  # nothing changed: keep `updated` as it was
                continue
            page = replace(page, updated=self.op.timestamp)
            ctx.changes[rel] = render_wiki_page(page)
            for line in lines:
                if not old_lines.get(line, 0) and _is_correction(line):
                    ctx.records.append(f"correction on {rel}: {line}")


def _is_correction(line: str) -> bool:
    stripped = line.lstrip(" >*-+").lstrip()
    return stripped.startswith(CORRECTION_MARK)


def evaluate(
    plan: Plan, root: Path, settings: Settings, op: OperationInfo, authorship: Authorship | None = None
) -> Verdict:
    """Materialise `plan` over the files under `root` and judge it. Never writes to disk."""
    if op.kind == "delete":
        # A delete operation's plan comes from code, and what it deletes is what the user named.
        named = tuple(m.path for m in plan.mutations if isinstance(m, DeletePage))
        op = replace(op, targets=tuple(dict.fromkeys((*op.targets, *named))))
    ctx = GateContext(root=Path(root), settings=settings, op=op, authorship=authorship)
    mat = _Materialiser(ctx)
    try:
        for m in plan.mutations:
            if isinstance(m, CreatePage):
                mat.create(m)
            elif isinstance(m, UpdatePage):
                mat.update(m)
            elif isinstance(m, DeletePage):
                mat.delete(m)
        for a in plan.aliases:
            mat.alias(a.entity, a.alias)
        for i, c in enumerate(plan.contradictions):
            mat.contradiction(i, c.page, c.subject, c.explanation, c.claims)
        for z in plan.resolutions:
            mat.resolution(z.contradiction_id, z.rationale, z.page, z.source)
        mat.finish()
    except StigmergyError as exc:  # a configuration problem met while materialising, not a bug
        mat.refuse("contract", "", exc.message)
    violations = list(mat.violations)
    for _, gate in GATES:
        violations.extend(gate(ctx))
    unique = list(dict.fromkeys(violations))
    # A page that would leak a narrower layer's content: no reason about it may quote its lines, since the
    # refusal is shown to the submitter, who may not read that layer (layer-flow's own reasons never quote).
    leaking = {v.path for v in unique if v.rule == "layer-flow"}
    unique = [replace(v, lines=()) if v.path in leaking and v.rule != "layer-flow" else v for v in unique]
    return Verdict(
        changes=MappingProxyType(dict(ctx.changes)),
        violations=tuple(unique),
        records=tuple(dict.fromkeys(ctx.records)),
    )


def judge(
    changes: Mapping[str, str | None],
    root: Path,
    settings: Settings,
    op: OperationInfo,
    records: tuple[str, ...] = (),
    authorship: Authorship | None = None,
) -> Verdict:
    """Judge changes that code rendered itself (garden, delete, merge, rename, recompile) with the same
    gates a plan passes; what each maintenance kind may retire is verified in gates/maintenance.py."""
    ctx = GateContext(root=Path(root), settings=settings, op=op, authorship=authorship)
    ctx.changes.update(changes)
    ctx.records.extend(records)
    violations: list[Violation] = []
    for _, gate in GATES:
        violations.extend(gate(ctx))
    unique = list(dict.fromkeys(violations))
    return Verdict(
        changes=MappingProxyType(dict(ctx.changes)),
        violations=tuple(unique),
        records=tuple(dict.fromkeys(ctx.records)),
    )
