"""Citation links of an LLM's plan re-anchored to the page each operation writes.

A citation's target is the source page relative to the citing page (pages/citations.py). A model names the
page it creates by title; the code derives its path, and a note's path has a shard the model cannot know
(`wiki/notes/<xx>/`, repo/layout.py). So a link the model wrote whose file is a source page of this
repository is written again relative to the page's derived path. Only the target's folder part changes:
the capture id and the line range are the model's, and the gates still check each cited line against the
source as before. A link to anything else is left as written, for the gates to judge."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from stigmergy.pages.citations import LABEL, relative_target
from stigmergy.pages.paths import normalise_title, page_relpath
from stigmergy.plan.schema import CreatePage, Mutation, Plan, UpdatePage

_TARGET_RE = re.compile(rf"\[{LABEL}\]\((?P<path>[^()\s\[\]<>]+?)/(?P<id>[A-Za-z0-9][A-Za-z0-9_-]*)\.md(?P<anchor>#L[^()\s]*)\)")


def reanchor(plan: Plan, find_source: Callable[[str], str | None]) -> tuple[Plan, int]:
    """The plan with every citation link to a known source page written relative to its page; and how many
    links changed. `find_source(capture_id)` is the source page's repository path, or None."""
    changed = 0
    known: dict[str, str | None] = {}

    def body_for(page: str, body: str) -> str:
        nonlocal changed

        def one(m: re.Match[str]) -> str:
            nonlocal changed
            cid = m["id"]
            if cid not in known:
                known[cid] = find_source(cid)
            source = known[cid]
            if source is None:
                return m.group(0)
            out = f"[{LABEL}]({relative_target(page, source)}{m['anchor']})"
            changed += out != m.group(0)
            return out

        return _TARGET_RE.sub(one, body) if f"[{LABEL}](" in body else body

    mutations: list[Mutation] = []
    for m in plan.mutations:
        if isinstance(m, CreatePage):
            try:
                page = page_relpath(m.type, normalise_title(m.title), m.layer)
            except ValueError:
                mutations.append(m)  # an unknown type: the gates refuse it
                continue
            mutations.append(replace(m, body=body_for(page, m.body)))
        elif isinstance(m, UpdatePage):
            mutations.append(replace(m, body=body_for(m.path, m.body)))
        else:
            mutations.append(m)
    return (replace(plan, mutations=tuple(mutations)) if changed else plan), changed
