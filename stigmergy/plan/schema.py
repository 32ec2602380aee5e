"""The plan: what a planner proposes and the gates judge. Frozen values, strict parsing from JSON.

A plan never writes front matter or contradiction blocks itself: code renders those. Bodies are Markdown
that begin with `# Title`; factual lines carry line-level citations (see docs/citations.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from stigmergy.errors import PlanSchemaError

PAGE_TYPES = ("note", "concept", "entity", "project")
STATUSES = ("seed", "developing", "mature", "evergreen")
ENTITY_TYPES = ("person", "organisation", "product", "place", "other")
CORRECTION_MARK = "Correction:"  # a correction line starts with this, after the list marker


@dataclass(frozen=True)
class CreatePage:
    type: str
    title: str
    body: str
    status: str = "seed"
    entities: tuple[str, ...] = ()
    layer: str = "public"
    entity_type: str | None = None
    aliases: tuple[str, ...] = ()
    reason: str = ""
    op: str = field(default="create", init=False)


@dataclass(frozen=True)
class UpdatePage:
    path: str
    body: str
    status: str | None = None
    entities: tuple[str, ...] | None = None
    reason: str = ""
    op: str = field(default="update", init=False)


@dataclass(frozen=True)
class DeletePage:
    path: str
    reason: str
    op: str = field(default="delete", init=False)


Mutation = CreatePage | UpdatePage | DeletePage


@dataclass(frozen=True)
class AliasProposal:
    entity: str  # repository-relative path of the entity page (existing or created by this plan)
    alias: str
    evidence: str = ""  # the source line that shows it


@dataclass(frozen=True)
class Claim:
    text: str
    date: str  # ISO date the claim is dated to (occurred_at of its source, or stated in it)
    source: str  # capture id of the cited source page
    start: int  # first line of the source page that supports it (1-based)
    end: int


@dataclass(frozen=True)
class ContradictionProposal:
    page: str  # repository-relative path of the page the block is appended to
    subject: str
    explanation: str
    claims: tuple[Claim, ...]


@dataclass(frozen=True)
class ResolutionProposal:
    contradiction_id: str
    rationale: str
    page: str
    source: str  # capture id of the capture that resolves it (must name it with --resolves)


@dataclass(frozen=True)
class Plan:
    mutations: tuple[Mutation, ...] = ()
    aliases: tuple[AliasProposal, ...] = ()
    contradictions: tuple[ContradictionProposal, ...] = ()
    resolutions: tuple[ResolutionProposal, ...] = ()
    summary: str = ""

    @property
    def is_empty(self) -> bool:
        return not (self.mutations or self.aliases or self.contradictions or self.resolutions)


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    return asdict(plan)


def plan_to_json(plan: Plan) -> str:
    return json.dumps(plan_to_dict(plan), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class _Reader:
    def __init__(self) -> None:
        self.reasons: list[str] = []

    def obj(self, value: Any, where: str, allowed: set[str], required: set[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            self.reasons.append(f"{where} must be an object")
            return {}
        extra = set(value) - allowed
        if extra:
            self.reasons.append(f"{where} has unknown fields {sorted(extra)}")
        missing = required - set(value)
        if missing:
            self.reasons.append(f"{where} is missing {sorted(missing)}")
        return value

    def text(self, value: Any, where: str, *, empty_ok: bool = False, limit: int = 200_000) -> str:
        if not isinstance(value, str):
            self.reasons.append(f"{where} must be a string")
            return ""
        if not empty_ok and not value.strip():
            self.reasons.append(f"{where} must not be empty")
        if len(value) > limit:
            self.reasons.append(f"{where} is longer than {limit} characters")
        return value

    def choice(self, value: Any, where: str, options: tuple[str, ...]) -> str:
        if value not in options:
            self.reasons.append(f"{where} must be one of {list(options)}")
            return options[0]
        return value

    def strings(self, value: Any, where: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.reasons.append(f"{where} must be a list of strings")
            return ()
        return tuple(value)

    def integer(self, value: Any, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            self.reasons.append(f"{where} must be a positive integer")
            return 1
        return value

    def items(self, value: Any, where: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.reasons.append(f"{where} must be a list")
            return []
        return value


def plan_from_dict(data: Any) -> Plan:
    """Parse a plan strictly; any deviation from the schema raises PlanSchemaError with every reason."""
    r = _Reader()
    top = r.obj(data, "plan", {"mutations", "aliases", "contradictions", "resolutions", "summary"}, {"summary"})
    mutations: list[Mutation] = []
    for i, m in enumerate(r.items(top.get("mutations"), "mutations")):
        where = f"mutations[{i}]"
        op = m.get("op") if isinstance(m, Mapping) else None
        if op == "create":
            m = r.obj(
                m, where,
                {"op", "type", "title", "body", "status", "entities", "layer", "entity_type", "aliases", "reason"},
                {"op", "type", "title", "body"},
            )
            ptype = r.choice(m.get("type"), f"{where}.type", PAGE_TYPES)
            entity_type = m.get("entity_type")
            if entity_type is not None:
                entity_type = r.choice(entity_type, f"{where}.entity_type", ENTITY_TYPES)
            mutations.append(
                CreatePage(
                    type=ptype,
                    title=r.text(m.get("title"), f"{where}.title", limit=200),
                    body=r.text(m.get("body"), f"{where}.body"),
                    status=r.choice(m.get("status", "seed"), f"{where}.status", STATUSES),
                    entities=r.strings(m.get("entities", []), f"{where}.entities"),
                    layer=r.text(m.get("layer", "public"), f"{where}.layer", limit=64),
                    entity_type=entity_type,
                    aliases=r.strings(m.get("aliases", []), f"{where}.aliases"),
                    reason=r.text(m.get("reason", ""), f"{where}.reason", empty_ok=True, limit=2000),
                )
            )
        elif op == "update":
            m = r.obj(m, where, {"op", "path", "body", "status", "entities", "reason"}, {"op", "path", "body"})
            status = m.get("status")
            entities = m.get("entities")
            mutations.append(
                UpdatePage(
                    path=r.text(m.get("path"), f"{where}.path", limit=1000),
                    body=r.text(m.get("body"), f"{where}.body"),
                    status=None if status is None else r.choice(status, f"{where}.status", STATUSES),
                    entities=None if entities is None else r.strings(entities, f"{where}.entities"),
                    reason=r.text(m.get("reason", ""), f"{where}.reason", empty_ok=True, limit=2000),
                )
            )
        elif op == "delete":
            m = r.obj(m, where, {"op", "path", "reason"}, {"op", "path", "reason"})
            mutations.append(
                DeletePage(
                    path=r.text(m.get("path"), f"{where}.path", limit=1000),
                    reason=r.text(m.get("reason"), f"{where}.reason", limit=2000),
                )
            )
        else:
            r.reasons.append(f"{where}.op must be one of ['create', 'update', 'delete']")
    aliases = []
    for i, a in enumerate(r.items(top.get("aliases"), "aliases")):
        where = f"aliases[{i}]"
        a = r.obj(a, where, {"entity", "alias", "evidence"}, {"entity", "alias"})
        aliases.append(
            AliasProposal(
                entity=r.text(a.get("entity"), f"{where}.entity", limit=1000),
                alias=r.text(a.get("alias"), f"{where}.alias", limit=200),
                evidence=r.text(a.get("evidence", ""), f"{where}.evidence", empty_ok=True, limit=2000),
            )
        )
    contradictions = []
    for i, c in enumerate(r.items(top.get("contradictions"), "contradictions")):
        where = f"contradictions[{i}]"
        c = r.obj(c, where, {"page", "subject", "explanation", "claims"}, {"page", "subject", "explanation", "claims"})
        claims = []
        for j, cl in enumerate(r.items(c.get("claims"), f"{where}.claims")):
            w = f"{where}.claims[{j}]"
            cl = r.obj(cl, w, {"text", "date", "source", "start", "end"}, {"text", "date", "source", "start", "end"})
            claims.append(
                Claim(
                    text=r.text(cl.get("text"), f"{w}.text", limit=2000),
                    date=r.text(cl.get("date"), f"{w}.date", limit=40),
                    source=r.text(cl.get("source"), f"{w}.source", limit=200),
                    start=r.integer(cl.get("start"), f"{w}.start"),
                    end=r.integer(cl.get("end"), f"{w}.end"),
                )
            )
        if len(claims) < 2:
            r.reasons.append(f"{where} needs at least two claims")
        contradictions.append(
            ContradictionProposal(
                page=r.text(c.get("page"), f"{where}.page", limit=1000),
                subject=r.text(c.get("subject"), f"{where}.subject", limit=500),
                explanation=r.text(c.get("explanation"), f"{where}.explanation", limit=2000),
                claims=tuple(claims),
            )
        )
    resolutions = []
    for i, z in enumerate(r.items(top.get("resolutions"), "resolutions")):
        where = f"resolutions[{i}]"
        z = r.obj(z, where, {"contradiction_id", "rationale", "page", "source"}, {"contradiction_id", "rationale", "page", "source"})
        resolutions.append(
            ResolutionProposal(
                contradiction_id=r.text(z.get("contradiction_id"), f"{where}.contradiction_id", limit=100),
                rationale=r.text(z.get("rationale"), f"{where}.rationale", limit=2000),
                page=r.text(z.get("page"), f"{where}.page", limit=1000),
                source=r.text(z.get("source"), f"{where}.source", limit=200),
            )
        )
    summary = r.text(top.get("summary", ""), "summary", empty_ok=True, limit=4000)
    if r.reasons:
        raise PlanSchemaError(r.reasons)
    return Plan(tuple(mutations), tuple(aliases), tuple(contradictions), tuple(resolutions), summary)


def plan_json_schema() -> dict[str, Any]:
    """JSON Schema of a plan, for LLM structured output (OpenAI response_format / Anthropic tool input)."""
    s = {"type": "string"}
    strings = {"type": "array", "items": s}
    mutation = {
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ["create", "update", "delete"]},
            "type": {"type": "string", "enum": list(PAGE_TYPES)},
            "title": s,
            "path": s,
            "body": s,
            "status": {"type": "string", "enum": list(STATUSES)},
            "entities": strings,
            "layer": s,
            "entity_type": {"type": "string", "enum": list(ENTITY_TYPES)},
            "aliases": strings,
            "reason": s,
        },
        "required": ["op"],
        "additionalProperties": False,
    }
    claim = {
        "type": "object",
        "properties": {"text": s, "date": s, "source": s, "start": {"type": "integer"}, "end": {"type": "integer"}},
        "required": ["text", "date", "source", "start", "end"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "summary": s,
            "mutations": {"type": "array", "items": mutation},
            "aliases": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"entity": s, "alias": s, "evidence": s},
                    "required": ["entity", "alias"],
                    "additionalProperties": False,
                },
            },
            "contradictions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"page": s, "subject": s, "explanation": s, "claims": {"type": "array", "items": claim}},
                    "required": ["page", "subject", "explanation", "claims"],
                    "additionalProperties": False,
                },
            },
            "resolutions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"contradiction_id": s, "rationale": s, "page": s, "source": s},
                    "required": ["contradiction_id", "rationale", "page", "source"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["summary"],
        "additionalProperties": False,
    }
