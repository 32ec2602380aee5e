"""Trust from use (docs/trust.md): feedback records kept in Git, the Beta posterior with decay classes and
tiers, the lifecycle (verify, invalidate, reinstate), scoping, the maintain step, and a fresh clone
rebuilding the same confidence from Git alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder, cite, git

from stigmergy.errors import ContractError, NotFoundError, UsageError
from stigmergy.index.build import build_index
from stigmergy.layers import RoleError
from stigmergy.service import Identity, WikiService
from stigmergy.settings import TrustSettings
from stigmergy.trust.book import PageFacts, TrustBook, load_book
from stigmergy.trust.model import Event, confidence_factor, posterior, prior
from stigmergy.trust.records import Record, parse_record, render_record

READER = "ann@example.com"
BOARD = "board@example.com"
NOTE = "wiki/notes/Aurora.md"
SECRET = "layers/board/wiki/notes/Board secret.md"
S = TrustSettings()


@pytest.fixture
def repo(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "w", layers={"board": [BOARD]})
    s1 = b.source("Q1 report", "Aurora reached $1.3M ARR in Q1 2026.\nHeadcount is 12.\n", occurred_at="2026-04-02")
    s2 = b.source("Board memo", "Orbis may acquire Aurora in 2027.\n", occurred_at="2026-04-09", layer="board")
    b.wiki("note", "Aurora", f"- Aurora reached $1.3M ARR in Q1 2026. {cite(NOTE, s1, 22)}\n- Headcount is 12. "
           f"{cite(NOTE, s1, 23)}\n")
    b.wiki("note", "Aurora revenue", f"- Aurora revenue: $1.3M ARR in Q1 2026. {cite('wiki/notes/Aurora revenue.md', s1, 22)}\n")
    b.wiki("note", "Board secret", f"- Orbis may acquire Aurora in 2027. {cite(SECRET, s2, 22)}\n", layer="board")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _service(b: RepoBuilder, reader: str = READER) -> WikiService:
    return WikiService(b.root, b.settings, Identity(reader), {}, embedder=HashEmbedder())


def _hit(service: WikiService, query: str, path: str) -> dict | None:
    return next((h.to_dict() for h in service.search(query, k=10).hits if h.path == path), None)


# ------------------------------------------------------------------ records


def _record(**kw: object) -> Record:
    base: dict = dict(id="fb_01J8" + "A" * 22, at="2026-05-01T10:00:00Z", by=READER, kind="wrong",
                      page="pg_01J8" + "B" * 22, path=NOTE, layer="public")
    return Record(**{**base, **kw})  # type: ignore[arg-type]


def test_a_record_round_trips_and_anything_else_is_refused() -> None:
    r = _record(line=3, line_sha="0123456789abcdef", note="the figure is Q2's")
    line = render_record(r)
    assert parse_record(line) == r
    for bad in (line.replace('"kind":"wrong"', '"kind":"delete"'),  # unknown kind
                line.replace("{", "{ ", 1),  # not canonical
                line[:-1] + ',"extra":1}',  # unknown key
                json.dumps({**json.loads(line), "line": None}),  # line without its identity
                render_record(_record(path=NOTE)).replace(READER, "x" * 400)):  # an identity 400 characters long
        with pytest.raises(ContractError):
            parse_record(bad)


# ------------------------------------------------------------------ the model


def test_prior_feedback_decay_cap_and_gap_bonus() -> None:
    assert confidence_factor(prior("ephemeral", S), S) == 1.0  # no feedback: ranking unchanged
    wrong = posterior([Event(0, "wrong", 0, 1)], "ephemeral", 0, S)
    assert wrong.alpha == 5 and wrong.beta == 6 and confidence_factor(wrong, S) < 1.0
    useful = posterior([Event(0, "useful", 1, 0)], "ephemeral", 0, S)
    assert confidence_factor(useful, S) == 1.0  # being right is not relevance: no lift by default
    assert confidence_factor(useful, TrustSettings(confidence_lift=0.05)) > 1.0
    # The exploration term: at the same mean, fewer observations rank higher than many.
    few = posterior([Event(0, "wrong", 0, 1), Event(0, "useful", 1, 0)], "ephemeral", 0, S)
    many = posterior([Event(0, "wrong", 0, 1), Event(0, "useful", 1, 0)] * 10, "ephemeral", 0, S)
    assert few.mean == many.mean and 1.0 >= confidence_factor(few, S) > confidence_factor(many, S)
    # Decay toward the prior: 0.98 per day for an ephemeral page, capped at 180 days; permanent never decays.
    ten = [Event(0, "useful", 1, 0)] * 10
    after_90 = posterior(ten, "ephemeral", 90, S)
    assert after_90.alpha == pytest.approx(5 + 10 * 0.98 ** 90)
    assert posterior(ten, "ephemeral", 1000, S).alpha == pytest.approx(5 + 10 * 0.98 ** 180)
    assert posterior(ten, "permanent", 1000, S).alpha == 15
    # Gap recovery: a stable page confirmed again after decaying below half its peak alpha gets 20 % more.
    peak = [Event(0, "useful", 1, 0)] * 40
    again = posterior([*peak, Event(400, "useful", 1, 0)], "stable", 400, S)
    plain = posterior([*peak, Event(400, "useful", 1, 0)], "ephemeral", 400, S)
    decayed = 5 + 40 * 0.995 ** 180
    assert decayed < 45 * 0.5 and again.alpha == pytest.approx(decayed + 1.2)
    assert plain.alpha == pytest.approx(5 + 40 * 0.98 ** 180 + 1)


def test_tiers() -> None:
    assert prior("stable", S).tier == "EXPLORATORY"
    high = posterior([Event(0, "useful", 1, 0)] * 9, "permanent", 0, S)
    assert high.mean >= 0.7 and high.width < 0.2 and high.tier == "HIGH"
    assert posterior([Event(0, "useful", 1, 0)] * 3, "permanent", 0, S).tier == "MODERATE"
    assert posterior([Event(0, "wrong", 0, 1)] * 3, "permanent", 0, S).tier == "LOW"
    assert posterior([], "stable", 0, S, status="stale").tier == "STALE"
    # Structural evidence counts as observations: supporting sources confirm, open contradictions challenge.
    book = TrustBook()
    assert book.posterior(PageFacts("pg_x", "note", "public", None, sources=4), 0, S).alpha == 5 + 3 * 0.5
    assert book.posterior(PageFacts("pg_x", "note", "public", None, open_contradictions=2), 0, S).beta == 7


# ------------------------------------------------------------------ feedback through the service


def test_feedback_shows_in_the_next_search_and_read(repo: RepoBuilder) -> None:
    service = _service(repo)
    before = _hit(service, "Aurora ARR Q1", NOTE)
    assert before is not None and before["trust"]["feedback"] == 0 and before["factors"]["confidence"] == 1.0
    for _ in range(3):
        out = service.feedback(NOTE, "wrong", "the ARR is Q2's")
    assert out["record"]["by"] == READER and out["committed"] is None
    batch = repo.root / out["batch"]
    assert batch.is_file() and len(batch.read_text().splitlines()) == 3
    after = _hit(service, "Aurora ARR Q1", NOTE)
    assert after is not None and after["trust"]["feedback"] == 3 and after["factors"]["confidence"] < 1.0
    assert after["score"] < before["score"]
    page = service.read([NOTE])["pages"][0]
    assert page["trust"]["notes"][-1]["note"] == "the ARR is Q2's"
    # A claim line gets a posterior of its own; a heading is not a claim line.
    text = (repo.root / NOTE).read_text().split("\n")
    n = next(i for i, line in enumerate(text, 1) if line.startswith("- Headcount"))
    service.feedback(f"{NOTE}#L{n}", "outdated")
    page = service.read([NOTE])["pages"][0]
    assert [c["line"] for c in page["trust"]["claims"]] == [n]
    h1 = next(i for i, line in enumerate(text, 1) if line.startswith("# "))
    with pytest.raises(UsageError):
        service.feedback(f"{NOTE}#L{h1}", "wrong")
    with pytest.raises(UsageError):
        service.feedback(NOTE, "delete")
    service.close()


def test_feedback_on_a_page_the_reader_cannot_read_is_refused_like_a_missing_page(repo: RepoBuilder) -> None:
    """Hostile: a public reader naming a restricted page (directly, through `..`, absolute, by fragment or
    line) learns nothing the missing page would not tell, and nothing is recorded."""
    service = _service(repo)
    with pytest.raises(NotFoundError) as missing:
        service.feedback("layers/board/wiki/notes/No such page.md", "wrong")
    for ref in (SECRET, f"{SECRET}#1", f"{SECRET}#L8", f"wiki/../{SECRET}", str(repo.root / SECRET)):
        with pytest.raises(NotFoundError) as refused:
            service.feedback(ref, "wrong", "let me in")
        assert refused.value.message.replace(ref, "X").split(" at ")[0] == missing.value.message.split(" at ")[0]
    with pytest.raises(NotFoundError):
        service.verify(SECRET)
    assert not (repo.root / "layers/board/feedback").exists() and not (repo.root / "feedback").exists()
    # Its reader may.
    assert _service(repo, BOARD).feedback(SECRET, "useful")["batch"].startswith("layers/board/feedback/")


def test_a_record_in_another_layers_folder_is_ignored(repo: RepoBuilder) -> None:
    """Hostile: a pushed record in the public folder claiming a board page (or a bad line) counts for nothing."""
    board = _service(repo, BOARD)
    page_id = board.read([SECRET])["pages"][0]["front_matter"]["id"]
    forged = _record(page=page_id, path=SECRET, layer="public", kind="useful")
    (repo.root / "feedback/2026/05").mkdir(parents=True)
    (repo.root / "feedback/2026/05" / ("fb_01J8" + "C" * 22 + ".jsonl")).write_text(
        render_record(forged) + "\n{not json\n" + render_record(_record(layer="board", id="fb_01J8" + "D" * 22)) + "\n")
    book = load_book(repo.root, S)
    assert book.refused == 2 and book.entry(page_id, "board") is None
    assert board.read([SECRET])["pages"][0]["trust"]["feedback"] == 0


def test_lifecycle_roles_reasons_and_rejection(repo: RepoBuilder, tmp_path: Path) -> None:
    (repo.root / "stigmergy.toml").write_text((repo.root / "stigmergy.toml").read_text()
                                              + '[roles.maintainers]\npublic = ["max@example.com"]\n')
    ann, maxi = _service(repo), _service(repo, "max@example.com")
    with pytest.raises(RoleError):
        ann.invalidate(NOTE, "wrong figure")
    with pytest.raises(UsageError):
        maxi.invalidate(NOTE, "")  # a reason is what readers are shown
    with pytest.raises(UsageError):
        maxi.reinstate(NOTE, "never rejected")
    done = maxi.invalidate(NOTE, "the ARR figure was retracted")
    assert done["committed"] and done["trust"]["status"] == "rejected"
    assert git(repo.root, "status", "--porcelain", "feedback").strip() == ""  # the batch is committed
    assert _hit(ann, "Aurora ARR Q1", NOTE) is None  # out of search
    page = ann.read([NOTE])["pages"][0]
    assert page["note"].startswith("REJECTED by max@example.com: the ARR figure was retracted")
    assert page["trust"]["reason"] == "the ARR figure was retracted"
    maxi.reinstate(NOTE, "the retraction was itself wrong")
    assert _hit(ann, "Aurora ARR Q1", NOTE) is not None
    maxi.verify(NOTE, "checked against the ledger")
    hit = _hit(ann, "Aurora ARR Q1", NOTE)
    assert hit is not None and hit["trust"]["status"] == "verified" and hit["factors"]["lifecycle"] > 1.0
    # A fresh clone rebuilds the same confidence from Git alone.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(clone)], check=True)
    theirs = load_book(clone, S)
    ours = load_book(repo.root, S)
    facts = PageFacts(page["front_matter"]["id"], "note", "public", None, 1, 0)
    assert theirs.posterior(facts, 0, S) == ours.posterior(facts, 0, S)
    assert theirs.status(facts.page_id, "public") == "verified"


def test_maintain_commits_batches_and_marks_stale(repo: RepoBuilder) -> None:
    service = _service(repo)
    for _ in range(6):
        service.feedback("wiki/notes/Aurora revenue.md", "wrong")
    service.feedback(NOTE, "useful")
    listed = service.trust_report()
    assert "wiki/notes/Aurora revenue.md" in [s["path"] for s in listed.stale]
    # The Q1 sources are older than an ephemeral page allows and Aurora.md was confirmed: only it stays.
    assert NOTE not in [s["path"] for s in listed.stale]
    report = service.maintain(index=False)
    step = next(s for s in report.steps if s["step"] == "trust")
    assert step["status"] == "ok" and "1 feedback batch(es) committed" in step["message"]
    assert git(repo.root, "status", "--porcelain", "feedback").strip() == ""
    assert git(repo.root, "log", "-1", "--format=%s").startswith("feedback:")
    assert load_book(repo.root, S).status(
        service.read(["wiki/notes/Aurora revenue.md"])["pages"][0]["front_matter"]["id"], "public") == "stale"
    # Nothing is deleted, and the next run has nothing new to commit.
    assert (repo.root / "wiki/notes/Aurora revenue.md").exists()
    again = next(s for s in service.maintain(index=False).steps if s["step"] == "trust")
    assert "0 feedback batch(es)" in again["message"]


def test_front_matter_decay_is_part_of_the_page_contract(repo: RepoBuilder) -> None:
    from stigmergy.pages.wiki import parse_wiki_page, render_wiki_page

    text = (repo.root / NOTE).read_text()
    declared = text.replace("\n---\n", "\ndecay: permanent\n---\n", 1)
    page = parse_wiki_page(declared, NOTE)
    assert page.decay == "permanent" and render_wiki_page(page) == declared
    for bad in (text.replace("\n---\n", "\ndecay: forever\n---\n", 1),  # not a class
                text.replace("id: ", "decay: stable\nid: ", 1)):  # not last
        with pytest.raises(ContractError):
            parse_wiki_page(bad, NOTE)
    # The index reads it: the page's confidence decays as its front matter says.
    (repo.root / NOTE).write_text(declared)
    repo.commit("decay")
    build_index(repo.root, repo.settings, embedder=HashEmbedder())
    hit = _hit(_service(repo), "Aurora ARR Q1", NOTE)
    assert hit is not None and hit["trust"]["decay"] == "permanent"
    assert _hit(_service(repo), "Aurora revenue", "wiki/notes/Aurora revenue.md")["trust"]["decay"] == "ephemeral"


def test_a_warm_book_reads_only_what_changed_and_folds_the_same(repo: RepoBuilder) -> None:
    from stigmergy.trust.book import BookCache

    service = _service(repo)
    first = service.feedback(NOTE, "wrong", "one")
    cache = BookCache()
    assert load_book(repo.root, S, cache).records == 1
    assert load_book(repo.root, S, cache) is cache.book  # nothing changed: the same book, nothing read
    service.feedback(NOTE, "useful")  # appended to the open batch
    service.verify(NOTE)  # committed: a new status, order by time
    warm = load_book(repo.root, S, cache)
    cold = load_book(repo.root, S)
    facts = PageFacts(first["record"]["page"], "note", "public", None, 1, 0)
    assert warm.records == cold.records == 3
    assert warm.posterior(facts, 0, S) == cold.posterior(facts, 0, S) and warm.status(facts.page_id, "public") == "verified"
    # A batch that shrank (an erase rewrote it: a new file in its place, as git and write_atomic write)
    # folds the book again from nothing.
    batch = repo.root / first["batch"]
    batch.with_suffix(".tmp").write_text(batch.read_text().splitlines(keepends=True)[0])
    batch.with_suffix(".tmp").replace(batch)
    assert load_book(repo.root, S, cache).records == load_book(repo.root, S).records == 1


def test_list_shows_each_pages_tier_and_confidence(repo: RepoBuilder) -> None:
    from conftest import run_cli

    service = _service(repo)
    for _ in range(3):
        service.feedback(NOTE, "wrong")
    listed = {p["path"]: p["trust"] for p in service.list_pages()["pages"]}
    assert listed[NOTE]["tier"] == "LOW" and listed[NOTE]["feedback"] == 3 and listed[NOTE]["confidence"] < 0.5
    assert listed["wiki/notes/Aurora revenue.md"]["tier"] == "EXPLORATORY"
    assert SECRET not in listed  # the list stays scoped
    code, out, err = run_cli(["list", "--as", READER], cwd=repo.root)
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.endswith(NOTE))
    assert "LOW" in row and f"{listed[NOTE]['confidence']:.2f}" in row


def test_a_cold_process_starts_from_the_saved_fold_only_while_the_batches_are_unchanged(tmp_path: Path) -> None:
    from stigmergy.trust.book import SAVE_AFTER, SAVED
    from stigmergy.trust.records import batch_relpath, iter_records

    root = tmp_path / "w"
    rel = batch_relpath("public", "2026-05-01T10:00:00Z", "fb_01J8" + "D" * 22)
    (root / rel).parent.mkdir(parents=True)
    pages = [f"pg_01J8{i:022d}".replace("0", "E") for i in range(50)]
    lines = [render_record(_record(id=f"fb_01J9{i:022d}".replace("0", "F"), page=pages[i % 50],
                                   kind=("useful", "wrong", "outdated")[i % 3], note=f"n{i}" if i % 7 == 0 else ""))
             for i in range(SAVE_AFTER + 10)]
    (root / rel).write_text("".join(line + "\n" for line in lines))

    def fresh() -> TrustBook:
        return TrustBook.fold(iter_records(root), S)

    first = load_book(root, S)
    assert (root / ".stigmergy" / SAVED).is_file() and first.pages == fresh().pages
    saved = load_book(root, S)  # read back from the saved fold
    assert saved.pages == first.pages and saved.records == first.records
    # A committed batch changed in place (same size: a hand edit or a forged checkout): folded from nothing.
    (root / rel).write_text((root / rel).read_text().replace('"kind":"useful"', '"kind":"wrongx"', 1)
                            .replace('"kind":"wrong"', '"kind":"usefu"', 1))
    assert load_book(root, S).pages == fresh().pages != first.pages
    # Appended to: the saved fold and the new lines.
    load_book(root, S)
    with (root / rel).open("a") as fh:
        fh.write(render_record(_record(id="fb_01JA" + "G" * 22, page=pages[0], kind="wrong")) + "\n")
    assert load_book(root, S).pages == fresh().pages


def test_feedback_on_a_passage_moves_only_the_queries_that_match_it(tmp_path: Path) -> None:
    """A reader who marks the passage search showed them wrong says nothing about the page's other passages:
    a query another passage answers ranks the page exactly as before; the page's own trust counts it."""
    b = RepoBuilder(tmp_path / "w")
    src = b.source("Harbor facts", "Harbor API launched in June 2026.\nHarbor API costs 40 EUR per month.\n",
                   occurred_at="2026-04-02")
    page = "wiki/notes/Harbor.md"
    launch_notes = "".join(f"- The launch checklist item {i} was signed off by the release team.\n" for i in range(5))
    price_notes = "".join(f"- The invoice template {i} lists the monthly subscription fee.\n" for i in range(5))
    b.wiki("note", "Harbor", f"## Launch\n\n- Harbor API launched in June 2026. {cite(page, src, 22)}\n{launch_notes}\n"
           f"## Pricing\n\n- Harbor API costs 40 EUR per month. {cite(page, src, 23)}\n{price_notes}")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    service = _service(b)
    launch_q, price_q = "Harbor API launched June", "Harbor API costs EUR per month"
    launch, price = _hit(service, launch_q, page), _hit(service, price_q, page)
    assert launch is not None and price is not None and launch["fragment"] != price["fragment"]
    for _ in range(3):
        out = service.feedback(f"{page}#{launch['fragment']}", "wrong", "it launched in July")
    assert out["record"]["fragment"] == launch["fragment"] and out["record"]["line_sha"]
    launch_after, price_after = _hit(service, launch_q, page), _hit(service, price_q, page)
    assert launch_after is not None and price_after is not None
    assert launch_after["factors"]["confidence"] < 1.0 and launch_after["score"] < launch["score"]
    assert price_after["factors"] == price["factors"] and price_after["score"] == price["score"]
    assert price_after["trust"]["feedback"] == 3  # the page's trust shows every judgement of it
    # A whole page judged wrong falls in every query.
    for _ in range(3):
        service.feedback(page, "wrong")
    assert _hit(service, price_q, page)["factors"]["confidence"] < 1.0  # type: ignore[index]


def test_a_passage_judged_from_a_search_moves_only_queries_like_that_one(tmp_path: Path) -> None:
    """A passage marked wrong from a search was off-topic or wrong *for that question*: it ranks lower for the
    same question and for one like it, and exactly as before for an unlike question that matches the same
    passage (which it may answer). Without a query the judgement counts for every query, as before."""
    b = RepoBuilder(tmp_path / "w")
    src = b.source("Harbor facts", "Harbor API launched in June 2026.\n", occurred_at="2026-04-02")
    page = "wiki/notes/Harbor.md"
    b.wiki("note", "Harbor", f"## Launch\n\n- Harbor API launched in June 2026. {cite(page, src, 22)}\n"
           "- The launch checklist was signed off by the release team.\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    service = _service(b)
    asked, alike, unlike = "Harbor API launched June", "When was the Harbor API launched in June?", \
        "launch checklist signed off release team"
    before = {q: _hit(service, q, page) for q in (asked, alike, unlike)}
    assert all(h is not None and h["fragment"] == before[asked]["fragment"] for h in before.values())  # type: ignore[index]
    frag = before[asked]["fragment"]  # type: ignore[index]
    for _ in range(3):
        out = service.feedback(f"{page}#{frag}", "wrong", query=f"  {asked}\n")
    assert out["record"]["query"] == asked  # whitespace collapsed, as a note's
    after = {q: _hit(service, q, page) for q in before}
    assert after[asked]["factors"]["confidence"] < 1.0 and after[asked]["score"] < before[asked]["score"]  # type: ignore[index]
    assert after[alike]["factors"]["confidence"] < 1.0  # type: ignore[index]
    assert after[unlike]["factors"] == before[unlike]["factors"]  # type: ignore[index]
    assert after[unlike]["score"] == before[unlike]["score"]  # type: ignore[index]
    assert after[unlike]["trust"]["feedback"] == 3  # type: ignore[index]  # the page's trust counts every one
    # A cold process (the saved fold, then a plain fold) ranks the same.
    assert _hit(_service(b), unlike, page)["factors"] == before[unlike]["factors"]  # type: ignore[index]
    service.feedback(f"{page}#{frag}", "wrong")  # no query: every query matching the passage
    assert _hit(service, unlike, page)["factors"]["confidence"] < 1.0  # type: ignore[index]


def test_a_query_is_bounded_printable_and_only_on_a_passage_or_line(repo: RepoBuilder) -> None:
    service = _service(repo)
    for ref, query, why in ((NOTE, "Aurora ARR", "passage or line"), (f"{NOTE}#1", "q" * 301, "at most 300"),
                            (f"{NOTE}#1", "Aurora\x00ARR", "printable")):
        with pytest.raises(UsageError, match=why):
            service.feedback(ref, "wrong", query=query)
    assert not list((repo.root / "feedback").rglob("*.jsonl")) if (repo.root / "feedback").exists() else True
    with pytest.raises(UsageError):
        service.verify(f"{NOTE}#1")  # lifecycle judges whole pages (no query reaches it)
    ok = _record(line=3, line_sha="0123456789abcdef", fragment=1, query="Aurora ARR in Q1")
    assert parse_record(render_record(ok)) == ok
    for bad in (_record(query="Aurora ARR"),  # a query without a passage or line
                _record(line=3, line_sha="0123456789abcdef", query="q" * 301),
                _record(line=3, line_sha="0123456789abcdef", query="two\nlines"),
                _record(line=3, line_sha="0123456789abcdef", query="<script>\x1b[2J"),
                _record(line=3, line_sha="0123456789abcdef", query=""),
                _record(kind="verify", line=3, line_sha="0123456789abcdef", query="Aurora")):
        with pytest.raises(ContractError):
            parse_record(render_record(bad))


def test_feedback_json_matches_its_declared_shape(repo: RepoBuilder) -> None:
    from stigmergy import json_shapes

    service = _service(repo)
    for ref, query in ((NOTE, ""), (f"{NOTE}#1", "Aurora ARR in Q1")):
        out = json.loads(json.dumps(service.feedback(ref, "useful", "right", query=query)))
        assert json_shapes.mismatches(out, json_shapes.FeedbackResult) == []
        assert ("query" in out["record"]) == bool(query)
