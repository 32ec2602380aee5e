"""A second generated corpus for the filing benchmark, shaped unlike `team_docs.py`: one busy customer
that most documents name (its page is the one that grows), organisations with legal suffixes named in
front matter by their slug (`customer: aurora-systems`) and by a numbered client folder
("Clients/2. Aurora Systems/…"), figures that often disagree across documents (so contradictions pile
up on a few pages), documents from 300 bytes to 8 KB, titles that repeat ("Weekly sync") and technical
notes with code words, code spans and fenced examples (a wikilink inside a fence is text).

    from varied_docs import make_varied_documents
"""

from __future__ import annotations

import json
import random
from pathlib import Path

PEOPLE = ["Ines Duarte", "Kofi Mensah", "Yuki Tanabe", "Oskar Lund", "Amara Nwosu", "Pavel Horak"]
ORGS = {  # slug -> proper name; the first is the busy one
    "aurora-systems": "Aurora Systems",
    "initech": "Initech",
    "blue-heron-ltd": "Blue Heron Ltd",
    "mistral-works": "Mistral Works",
    "quillon-group": "Quillon Group",
}
PRODUCTS = ["Lattice Sync", "Ember Reports", "Polaris Vault"]
PROJECTS = ["Project Lumen", "Project Basalt"]
MEASURES = (("revenue", "${}k", 40, 900), ("users", "{} active users", 100, 9000), ("churn", "{}% churn", 1, 15))
KINDS = ("Weekly sync", "Client call", "Status update", "Tech note", "Retro")


def _true(key: str, low: int, high: int) -> int:
    return random.Random(key).randint(low, high)


def _figure_line(rng: random.Random, org: str, quarter: str, disagree: float) -> str:
    name, fmt, low, high = rng.choice(MEASURES)
    value = _true(f"{org}|{name}|{quarter}", low, high)
    if rng.random() < disagree:
        value = max(low, value + rng.choice([-1, 1]) * rng.randint(1, max(2, value // 5)))
    figure = fmt.format(value)
    if name == "revenue":
        return f"{org} revenue in {quarter} was {figure}."
    if name == "users":
        return f"{org} had {figure} in {quarter}."
    return f"{org} reported {figure} in {quarter}."


_TECH = [
    "Return True when the cache is warm, otherwise None.",
    "Raise OSError if the socket closes; False means the retry budget is spent.",
    "See PEP 8 for naming, and README.txt for the build steps.",
    "Group the handlers by Eastern time before the nightly job runs.",
    "Returns True only when `sync_state(None)` succeeds on the Python C extension.",
    "The O Completion Ports path stays disabled on Linux.",
]


def make_varied_documents(folder: Path, n: int, seed: int = 23) -> list[Path]:
    """n documents dated over 2024-2026 in file order; some in `Clients/<k>. <Org>/` folders."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    slugs = list(ORGS)
    out: list[Path] = []
    for i in range(n):
        day = i * (3 * 365) // max(n, 1)
        year, rest = 2024 + day // 365, day % 365
        month, dom = 1 + rest // 31 % 12, 1 + rest % 28
        date = f"{year}-{month:02d}-{dom:02d}"
        quarter = f"Q{1 + (month - 1) // 3} {year}"
        kind = KINDS[i % len(KINDS)]
        slug = slugs[0] if rng.random() < 0.6 else rng.choice(slugs[1:])
        org = ORGS[slug]
        people = rng.sample(PEOPLE, rng.randint(1, 3))
        product = rng.choice(PRODUCTS)
        # Titles repeat: a weekly sync is just "Weekly sync"; the others name what they are about.
        title = kind if kind in ("Weekly sync", "Retro") else f"{kind}: {org} {product}"
        lines = ["---", f"title: {json.dumps(title)}", f"date: '{date}'", "participants:", *[f"  - {p}" for p in people]]
        if kind == "Client call":
            lines.append(f"customer: {slug}")
        if rng.random() < 0.3:
            lines.append(f"project: {rng.choice(PROJECTS)}")
        lines += ["---", f"# {title}", ""]
        length = rng.choice((1, 2, 4, 8, 16))  # paragraphs: 300 B .. 8 KB documents
        density = rng.choice((0, 1, 3, 6))  # figure lines
        lines += ["## Summary", "", f"{people[0]} met {org} about {product} on {date}.", ""]
        if density:
            lines += ["## Figures", ""]
            lines += [f"- {_figure_line(rng, org, quarter, 0.35)}" for _ in range(density)]
            lines.append("")
        lines += ["## Notes", ""]
        for _ in range(length):
            who = rng.choice(people)
            lines.append(f"- {who} walked through the {product} rollout for {org}; the {rng.choice(PROJECTS)} "
                         f"timeline {rng.choice(['holds', 'slips a week', 'is under review', 'moves to next quarter'])}.")
        if kind == "Tech note":
            lines += ["", "## Implementation", ""]
            lines += [rng.choice(_TECH) for _ in range(3)]
            lines += ["", "```markdown", "Link a page as [[Entity|variant]] or [[Page]].", "```", "",
                      "Use `[[Entity|variant]]` for an alias."]
        lines += ["", "## Decisions", "", f"- We agreed that {people[-1]} owns the {product} rollout for {org}.", ""]
        name = f"{i:05d}-{kind.lower().replace(' ', '-')}.md"
        if kind == "Client call" and rng.random() < 0.5:
            sub = folder / "Clients" / f"{slugs.index(slug) + 1}. {org}"
            sub.mkdir(parents=True, exist_ok=True)
            path = sub / name
        else:
            path = folder / name
        path.write_text("\n".join(lines), encoding="utf-8")
        out.append(path)
    return out
