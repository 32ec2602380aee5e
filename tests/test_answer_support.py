"""A small wiki for the ask and MCP tests: public sources and notes (with a contradiction), and a
restricted `board` layer holding a canary; and the answers each reader gets. No tests here."""

from __future__ import annotations

from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder, cite, ulid

from stigmergy.index.build import build_index
from stigmergy.pages.contradictions import ClaimRecord, make_contradiction, render_block

PUBLIC = "someone@example.com"
BOARD = "ceo@example.com"
CANARY = "CANARY-BOARD-5150"


def line_of(root: Path, rel: str, needle: str) -> int:
    for i, line in enumerate((root / rel).read_text(encoding="utf-8").split("\n"), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {rel}")


def build_wiki(root: Path, *, index: bool = True, env: dict[str, str] | None = None) -> RepoBuilder:
    b = RepoBuilder(root, layers={"board": [BOARD]}, env=env)
    q1 = b.source("Q1 report", "Aurora revenue was $1.3M in Q1 2026.\nThe Lisbon office opened on 2 March 2026.\n"
                  "Headcount reached 12 people.\n", occurred_at="2026-04-02", key="q1")
    draft = b.source("Q1 report draft", "Aurora revenue was $1.1M in Q1 2026.\n", occurred_at="2026-03-28", key="draft")
    glossary = b.source("Glossary", "An excursion is a period outside the allowed temperature range.\n",
                        occurred_at="2026-01-05", key="glossary")
    minutes = b.source("Board minutes", f"Reference {CANARY}: Orbis offered to acquire Aurora for $72M.\n",
                       layer="board", occurred_at="2026-09-17", key="minutes")
    l_rev, l_lisbon, l_head = (line_of(root, q1, s) for s in ("revenue", "Lisbon", "Headcount"))
    l_draft = line_of(root, draft, "revenue")
    l_exc = line_of(root, glossary, "excursion")
    l_min = line_of(root, minutes, CANARY)
    note = "wiki/notes/Q1 report.md"
    con = make_contradiction(
        "con_" + ulid("c1"), "Aurora Q1 revenue", "The draft and the final report disagree on Q1 revenue.",
        [ClaimRecord("Aurora revenue was $1.1M in Q1 2026.", "2026-03-28", draft.rsplit("/", 1)[1][:-3], draft,
                     l_draft, l_draft),
         ClaimRecord("Aurora revenue was $1.3M in Q1 2026.", "2026-04-02", q1.rsplit("/", 1)[1][:-3], q1, l_rev, l_rev)],
    )
    b.wiki("note", "Q1 report", (
        f"- Aurora revenue was $1.3M in Q1 2026. {cite(note, q1, l_rev)}\n"
        f"- The Lisbon office opened on 2 March 2026. {cite(note, q1, l_lisbon)}\n"
        f"- Headcount reached 12 people. {cite(note, q1, l_head)}\n\n{render_block(con, note)}\n"))
    g = "wiki/concepts/Excursion.md"
    b.wiki("concept", "Excursion", f"- An excursion is a period outside the allowed temperature range. {cite(g, glossary, l_exc)}\n")
    m = "layers/board/wiki/notes/Board minutes.md"
    b.wiki("note", "Board minutes", f"- Reference {CANARY}: Orbis offered to acquire Aurora for $72M. {cite(m, minutes, l_min)}\n",
           layer="board")
    b.commit()
    if index:
        build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def answers_by_reader(b: RepoBuilder, *questions: str) -> dict[str, list[dict]]:  # type: ignore[type-arg]
    """Index the wiki `b` holds (the hash embedder), then ask each question as the public and as the board reader,
    each reader with a searcher of its own: reader -> its answers, in the questions' order."""
    from stigmergy.answer.service import ask
    from stigmergy.index.search import Searcher

    build_index(b.root, b.settings, embedder=HashEmbedder())
    out: dict[str, list[dict]] = {}  # type: ignore[type-arg]
    for reader in (PUBLIC, BOARD):
        s = Searcher(b.root, b.settings, HashEmbedder())
        try:
            out[reader] = [ask(b.root, b.settings, reader, q, searcher=s) for q in questions]
        finally:
            s.close()
    return out


def said_by_reader(root: Path, question: str) -> tuple[str, str]:
    """Build the two-reader wiki at `root` and ask `question` as the public and as the board reader: each answer as
    the JSON text a hostile test searches for what the public reader must not see."""
    import json

    got = answers_by_reader(build_wiki(root, index=False), question)
    return json.dumps(got[PUBLIC][0]), json.dumps(got[BOARD][0])
