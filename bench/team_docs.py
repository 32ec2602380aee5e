"""Generated team documents for the filing benchmark: meeting notes, status updates, customer calls and
chat logs in which the same people, products and customers recur, with figures that agree across
documents (a figure is a function of its subject, measure and period), spread over three years.

    from team_docs import make_team_documents
"""

from __future__ import annotations

import json
import random
from pathlib import Path

PEOPLE = [
    "Mara Lindqvist", "Tomas Okafor", "Priya Raman", "Jonas Becker", "Elena Sato", "Farid Haddad",
    "Grace Mbeki", "Lukas Novak", "Sofia Alves", "Ben Adeyemi", "Hana Kowalski", "Ravi Menon",
]
PRODUCTS = ["Harbor Gateway", "Nimbus App", "Atlas SDK", "Beacon Console"]
CUSTOMERS = [
    "Cascade Foods", "Halden Mills", "Orbis Freight", "Norrland Logistics", "Vela Pharma", "Kestrel Systems",
    "Tamsin Health", "Quarry Analytics",
]
TOPICS = (
    "latency budget", "migration plan", "pricing review", "rollout checklist", "support backlog", "onboarding flow",
    "renewal terms", "capacity forecast", "security audit", "dashboard redesign", "alerting rules", "data retention",
)
KINDS = ("Weekly sync", "Customer call", "Status update", "Design review", "Incident review", "Planning chat")


def _figure(rng_seed: str, low: int, high: int) -> int:
    return random.Random(rng_seed).randint(low, high)


def make_team_documents(folder: Path, n: int, seed: int = 11) -> list[Path]:
    """n documents of 1-3 KB, dated over 2024-2026 in file order."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for i in range(n):
        day = i * (3 * 365) // max(n, 1)
        year, rest = 2024 + day // 365, day % 365
        month, dom = 1 + rest // 31 % 12, 1 + rest % 28
        date = f"{year}-{month:02d}-{dom:02d}"
        quarter = f"Q{1 + (month - 1) // 3} {year}"
        kind = KINDS[i % len(KINDS)]
        people = rng.sample(PEOPLE, 3)
        product = rng.choice(PRODUCTS)
        customer = rng.choice(CUSTOMERS)
        topic = rng.choice(TOPICS)
        title = f"{kind}: {product} {topic} ({date})"
        lines = ["---", f"title: {json.dumps(title)}", f"date: '{date}'", "participants:", *[f"  - {p}" for p in people]]
        if kind == "Customer call":
            lines.append(f"customer: {customer}")
        lines += ["---", f"# {title}", ""]
        if kind == "Planning chat":
            for t in range(8):
                who = people[t % 3]
                lines.append(f"[{9 + t // 4:02d}:{(t * 7) % 60:02d}] {who}: {rng.choice(TOPICS)} for {product} "
                             f"looks {rng.choice(['fine', 'late', 'risky', 'done'])}, says {people[(t + 1) % 3].split()[0]}.")
            lines.append("")
        else:
            users = _figure(f"{product}|users|{quarter}", 200, 9000)
            revenue = _figure(f"{customer}|revenue|{quarter}", 20, 900)
            lines += [
                "## Summary", "",
                f"{people[0]} opened the {topic} discussion for {product} with {people[1]} and {people[2]}.",
                f"{product} had {users} active users in {quarter}, and {customer} is the largest account.",
                f"{customer} revenue in {quarter} was ${revenue}k according to {people[1]}.", "",
                "## Notes", "",
            ]
            for _ in range(rng.randint(4, 9)):
                who = rng.choice(people)
                words = " ".join(rng.choice(TOPICS).split()[0] for _ in range(rng.randint(3, 7)))
                lines.append(f"- {who} reviewed the {words} work on {product} for {customer}.")
            lines += ["", "## Decisions", "",
                      f"- We agreed that {people[2]} owns the {topic} for {product} until the end of {quarter}.", ""]
        path = folder / f"{i:05d}-{kind.lower().replace(' ', '-')}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        out.append(path)
    return out
