"""Issue #19, forty-ninth session (the twenty-seventh blind pair's misses, read once the twenty-ninth pair was written).
Question forms: "what's an X in <product>" asks X's definition, "what was he doing" what someone did; a negation or
"howto" typed without its apostrophe or space is read as written out; "if I don't ask for anything special" asks the
default; the verb that asks a sum ("paying") or a command's output ("print") is no word the answering line must say.
Lines: a list item's later sentences read the list's lead-in ("Over the two weeks at 100%:"); a console transcript
shows what its command printed; a line that goes on from the middle of a JSON sample is data; the answerer reads the
best page's next best fragments beside their best one (sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.names import Names
from stigmergy.answer.otherwise import context_text
from stigmergy.answer.question import parts
from stigmergy.answer.select import score_part
from stigmergy.answer.terms import question_terms
from stigmergy.answer.typed import clean
from stigmergy.answer.units import item_lead_in, source_units
from stigmergy.answer.values import asked
from tests.test_answer_forty_fourth_pass import _fills, _slot


def _line(text: str, at: int, lead: str = "") -> Line:
    return Line("sources/2026/01/x.md", "Driftwood cutover", "source", "public", at, text, text, (),
                (Cite("sources/2026/01/x.md", at, at, text),), 1, lead=lead)


def test_a_kind_of_thing_in_a_product_is_its_definition_and_a_person_doing_is_not() -> None:
    assert _slot("what's an excursion budget in lodestar").kind == "definition"
    assert _slot("what's an excursion budget in lodestar").subject == "excursion budget"
    assert _slot("what's a good timeout in pip").kind == "quantity"  # a judgement of a value asks the value
    assert _slot("what is the excursion budget in lodestar").kind == "quantity"  # that one budget: its sum
    assert _slot("sam was the leeds backup on launch day - what was he doing instead").kind != "definition"
    assert _slot("what is that --debug flag doing").kind == "definition"  # a thing doing: what it does
    assert _slot("what is i/o").kind == "definition"  # a term that opens with a pronoun's letter is still a term


def test_a_negation_or_howto_typed_without_apostrophe_or_space_is_read_written_out() -> None:
    assert clean("if i dont ask for anything special") == "if i don't ask for anything special"
    assert clean("it doesnt work and i cant find it") == "it doesn't work and i can't find it"
    assert clean("the wont flag") == "the wont flag"  # a word of its own
    assert clean("howto keep a token out") == "how to keep a token out"
    assert clean("the howtos page") == "the howtos page"


def test_if_i_do_not_ask_for_anything_asks_the_default() -> None:
    from stigmergy.answer.frames import framed

    q = clean("if i dont ask for anything special, how many calls a minute can one key make")
    assert framed("quantity", "count", "600 requests per minute by default; carriers can ask for more.", "", q)
    assert not framed("quantity", "count", "Carriers can ask for 1,200 requests per minute.", "", q)


def test_a_list_lead_in_is_the_context_of_every_sentence_of_its_item() -> None:
    content = ["Over the two weeks at 100%:", "",
               "- Median delay 3.9 seconds.",
               "- Zero telemetry gaps caused by ingestion. All 212 telemetry gaps in the period were real.",
               "", "A paragraph of its own. Its second sentence."]
    leads: dict[tuple[int, int], str] = {}
    got = {piece: item_lead_in(leads, a, b, piece, before, at) for a, b, piece, before, at, _ in source_units(content, 1, 0)}
    assert got["All 212 telemetry gaps in the period were real."] == "Over the two weeks at 100%:"
    assert got["- Zero telemetry gaps caused by ingestion."] == ""  # it reads the lead-in as its sentence before
    assert got["Its second sentence."] == ""
    line = _line("All 212 telemetry gaps in the period were real.", 4, lead="Over the two weeks at 100%:")
    assert "100%" in context_text(line)
    # the figure the question sets ("at 100%") is then said around the line, which answers
    q = "how many telemetry gaps were there in the two weeks at 100% on driftwood"
    part = parts(q)[0]
    scored = score_part((line,), part, question_terms(q), Names(), asked(q, Names()), None, None)
    assert scored and scored[0].fill == 1.0
    bare = _line("All 212 telemetry gaps in the period were real.", 4)
    assert score_part((bare,), part, question_terms(q), Names(), asked(q, Names()), None, None) == []


def test_the_verb_that_asks_a_commands_output_is_no_word_to_find() -> None:
    q = "what does pip check print when everything is fine"
    line = _line("$ python -m pip check No broken requirements found.", 5)
    got = score_part((line,), parts(q)[0], question_terms(q), Names(), asked(q, Names()), None, None)
    assert got[0].fill == 1.0 and got[0].words > 0.5


def test_a_console_transcript_shows_what_its_command_printed() -> None:
    q = "what does pip check print when everything is fine"
    assert _fills(q, "$ python -m pip check No broken requirements found.") == 1.0
    assert _fills(q, "$ python -m pip check") < 1.0  # the command alone shows nothing it printed
    assert _fills("what does --debug do", "$ python -m pip --debug install foo Collecting foo") < 1.0  # not asked


def test_a_line_from_the_middle_of_a_json_sample_is_data() -> None:
    from stigmergy.answer.cues import DATA_RE

    assert DATA_RE.match('], "requires_python": ">=3.7" } }, { "download_info": { "url": "https://x"')
    assert DATA_RE.match('} }, { "metadata": {')
    assert not DATA_RE.match("] is a closing bracket, said in prose.")


def test_the_best_pages_next_best_fragments_are_read_beside_its_best(tmp_path: Path) -> None:
    """A long source found by one window: the line that answers sits in another window the search also matched."""
    from test_index_support import HashEmbedder, RepoBuilder

    from stigmergy.answer.evidence import gather
    from stigmergy.index.build import build_index
    from stigmergy.index.search import Searcher

    b = RepoBuilder(tmp_path / "w")
    filler = "\n\n".join(f"## Part {i}\n\nThe installer copies archive number {i} into the staging folder and checks "
                         f"its size against the manifest before it moves on." for i in range(80))
    b.source("Installer guide", "## Find links\n\nThe installer searches every find-links folder and the package "
             "index. There is no priority in the locations that are searched.\n\n" + filler + "\n\n## Find links "
             "again\n\nFind-links folders and the package index are searched together.\n")
    b.commit()
    settings = b.settings
    build_index(b.root, settings, embedder=HashEmbedder())
    s = Searcher(b.root, settings, HashEmbedder())
    try:
        question = "is the package index searched before find-links folders, any priority"
        # a plain search names none (only `ask` asks for them); asked for four, the best page names four
        assert all(not h.runners for h in s.search(question, "someone@example.com").hits)
        found = s.search(question, "someone@example.com", runners=4)
        top = found.hits[0]
        assert len(top.runners) == 4 and top.fragment not in top.runners and all(not h.runners for h in found.hits[1:])
        hits = [h.to_dict() for h in found.hits]
        assert "runners" not in hits[0]  # the hit's JSON keeps its declared shape
        plain = gather(b.root, settings, "someone@example.com", hits, store=s.store)
        wide = gather(b.root, settings, "someone@example.com", hits, store=s.store,
                      also=[f"{h.path}#{n}" for h in found.hits for n in h.runners])
        assert {ln.text for ln in plain.lines} < {ln.text for ln in wide.lines}
        assert not {ln.text for ln in wide.lines} - {ln.text for ln in plain.lines} - {
            ln.text for ln in gather(b.root, settings, "someone@example.com",
                                     [{**hits[0], "fragment": n} for n in top.runners], store=s.store).lines}
    finally:
        s.close()


def test_whose_update_it_is_names_where_the_answer_is_written_not_a_word_of_the_line() -> None:
    from stigmergy.answer.asides import motive

    q = "in dan ferreira's april update, what was the median delay on driftwood"
    # the names as the wiki knows them (a known entity's words are proper names: terms.weigh)
    terms = [replace(t, proper=True) if t.stem in ("dan", "ferreira") else t for t in question_terms(q)]
    assert {t.stem: t for t in terms}["dan"].constraint
    marked = {t.stem: t for t in motive(terms, q)}
    assert marked["dan"].claim == "aside" and not marked["dan"].constraint
    # a report names what it is about as often as who wrote it: its owner stays a constraint
    q = "in norrland's quarterly report, what was the churn"
    terms = [replace(t, proper=True) if t.stem == "norrland" else t for t in question_terms(q)]
    assert {t.stem: t for t in motive(terms, q)}["norrland"].constraint


def test_which_floor_is_answered_by_its_ordinal() -> None:
    q = "which floor is the new lisbon office on"
    assert _fills(q, "From Monday 19 October we work from Rua do Alecrim 38, 3rd floor.") == 1.0
    assert _fills(q, "The new office has room for 55 people.") < 1.0


def test_a_job_title_is_not_a_post_on_one_project() -> None:
    q = "what's dan ferreira's job title"
    names_line = "Dan Ferreira — Engineering Manager, Tidemark platform."
    assert _fills(q, "Dan Ferreira is the project lead; Tomasz Wieczorek is the sponsor.") < _fills(q, names_line) == 1.0
    # asked what someone does on the project, the project's post answers
    assert _fills("what's dan ferreira's role on driftwood", "Dan Ferreira is the project lead.") == 1.0


def test_a_package_is_named_not_an_environment_variable_or_a_word_of_its_stem() -> None:
    q = "what package does pip use to pull in the OS certificate store"
    assert _fills(q, "The `--cert` option (and the corresponding `PIP_CERT` environment variable) allow users to "
                     "specify a different certificate store.") < 1.0
    assert _fills(q, "pip uses the `truststore` package to read the system certificates.") == 1.0
    q = "what library is pip's resolver actually built on"
    assert _fills(q, "This implements an abstract algorithm, independent of the specifics of Python packaging.") < 1.0
    assert _fills(q, "The resolver is based on the resolvelib library.") == 1.0


def test_how_frequently_asks_as_how_often_does() -> None:
    assert _slot("how frequently was hannah updating customers").unit == _slot("how often was hannah updating customers").unit
    got = {t.stem for t in question_terms("how frequently was hannah updating customers")}
    assert "frequent" not in got and "frequently" not in got and "hannah" in got
    assert "frequent" in {t.stem for t in question_terms("which flags are used most frequently")}  # not after how


def test_the_best_pages_further_fragments_never_reach_a_reader_past_their_layer(tmp_path: Path,
                                                                                  index_env: dict[str, str]) -> None:
    """Hostile, on either index backend (SQLite, PostgreSQL): a long board-only source whose later window holds a
    canary. A public reader's search never names the page, so its windows are never read for them, and a reference to
    it passed as `also` is not read either; the board's reader gets the canary through the same path."""
    from test_index_support import HashEmbedder, RepoBuilder

    from stigmergy.answer.evidence import gather
    from stigmergy.answer.service import ask
    from stigmergy.index.build import build_index
    from stigmergy.index.search import Searcher

    board, public, canary = "ceo@example.com", "someone@example.com", "CANARY-RUNNER-4417"
    b = RepoBuilder(tmp_path / "w", layers={"board": [board]}, env=index_env)
    filler = "\n\n".join(f"## Part {i}\n\nThe installer copies archive number {i} into the staging folder and checks "
                         f"its size against the manifest before it moves on." for i in range(80))
    secret = b.source("Installer guide (board)", f"## Find links\n\nThere is no priority in the locations that are "
                      f"searched, says {canary}.\n\n{filler}\n\n## Find links again\n\nFind-links folders and the package "
                      "index are searched together.\n", layer="board")
    b.source("Installer notes", "The installer reads find-links folders and the package index.\n")
    b.commit()
    settings = b.settings
    build_index(b.root, settings, embedder=HashEmbedder())
    s = Searcher(b.root, settings, HashEmbedder())
    question = "is the package index searched before find-links folders, any priority"
    try:
        found = s.search(question, public, runners=4)
        assert found.hits and all(h.layer == "public" for h in found.hits)
        hits = [h.to_dict() for h in found.hits]
        forced = gather(b.root, settings, public, hits, store=s.store, also=[f"{secret}#{n}" for n in range(1, 60)])
        assert canary not in " ".join(ln.text for ln in forced.lines)
        out = ask(b.root, settings, public, question, searcher=s)
        assert canary not in str(out)
        own = s.search(question, board, runners=4)
        assert own.hits[0].path == secret and own.hits[0].runners
        read = gather(b.root, settings, board, [h.to_dict() for h in own.hits], store=s.store,
                      also=[f"{own.hits[0].path}#{n}" for n in own.hits[0].runners])
        assert canary in " ".join(ln.text for ln in read.lines)
    finally:
        s.close()
