"""Issue #19, thirty-seventh session (the sixteenth blind pair's misses): a figure or a date the asker states in a
clause that asks nothing ("… now? I had 412 in my notes", "customers were told the 15th of sept — what was the actual
date?") is what they believe, which the answer may correct, so no line must say it; what the asker recalls weighs
nothing; "in the end" is finally, not an end; what "how many X" counts stops at a preposition or a sign; "what effect
does X have" asks for an account, "explain … when …" is asked to tell, "command to …" asks for a command (no index;
sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.asides import claimed, motive
from stigmergy.answer.evidence import Line
from stigmergy.answer.head_noun import counted_noun
from stigmergy.answer.names import Names
from stigmergy.answer.question import parts, slot
from stigmergy.answer.select import alternatives, word_score
from stigmergy.answer.terms import Term, question_terms
from stigmergy.answer.values import asked, dates_in


def _line(text: str) -> Line:
    return Line("sources/2026/01/x.md", "Notes", "source", "public", 5, text, text, (), (), 1, "")


def _terms(question: str) -> list[Term]:
    [part] = parts(question)
    return motive(claimed(question_terms(part.text), part.text, part.slot.kind), part.text)


def _words(question: str, text: str) -> tuple[float, bool]:
    """(the words score, whether every constraint of the question holds on the line)."""
    terms = _terms(question)
    [part] = parts(question)
    got = word_score(_line(text), terms, alternatives((_line(text),), part, terms, Names()))
    return got[0], got[2]


def test_a_figure_stated_after_the_question_is_the_askers_own_and_no_constraint() -> None:
    q = "how many gateways does norrland run now? I had 412 in my notes"
    [figure] = [t for t in _terms(q) if t.figure]
    assert (figure.word, figure.claim, figure.constraint) == ("412", "check", False)
    assert _words(q, "Norrland now runs 455 gateways.")[1]  # the line that corrects it holds
    # the same figure in the clause that asks stays what a line must say
    [asked] = [t for t in _terms("which depots run 412 gateways?") if t.figure]
    assert asked.constraint


def test_a_date_the_asker_was_told_before_the_question_is_no_constraint() -> None:
    q = "customers were told lodestar would go GA on the 15th of Sept — what was the actual date?"
    told = {t.word: t for t in _terms(q)}
    assert told["15th"].claim == "check" and not told["Sept"].constraint  # the month of the told date too
    assert _words(q, "General availability on 22 September 2026; the customers who were told otherwise know.")[1]
    # "the 15th of sept" is one date, as "15 september" is: a line that says it again holds no new date
    q = asked("customers were told the 15th of sept — when did it go live?", Names())
    assert dates_in("Customers were told 15 September; it went live on 22 September.", q) == ["22 September"]
    assert dates_in("The release slipped from the 15th of Sept.", q) == []
    assert dates_in("The release slipped to the 22nd of Sept.", q) == ["22nd of Sept"]  # a day "of" a month
    # the day in the clause that asks still says which date is asked about
    assert {t.word: t for t in _terms("what happened to lodestar on the 15th of Sept?")}["15th"].constraint


def test_a_month_typed_short_and_capitalised_is_the_month_not_a_rare_name() -> None:
    for q in ("when in Sept did lodestar go GA?", "when in sept did lodestar go GA?"):
        month = {t.stem: t for t in _terms(q)}["sept"]
        assert not (month.name or month.proper or month.constraint)
        assert _words(q, "General availability on 22 September 2026.") == _words(
            "when in sept did lodestar go GA?", "General availability on 22 September 2026.")
    assert {t.word: t for t in _terms("when did Hull go live?")}["Hull"].constraint  # a rare name stays one


def test_a_figure_that_names_the_case_in_another_kind_of_question_stays_a_constraint() -> None:
    # a duration asked after a clause that names the day: the day says which outage, in a question of "how long"
    q = "the outage on 19 august — how long did it last?"
    assert [t.word for t in _terms(q) if t.figure and t.constraint] == ["19"]  # a day, where a figure is asked
    # … and for a question that asks for no figure or date, a figure before it is not the asker's belief
    q = "the 412 gateways at norrland — who installed them?"
    assert [t.word for t in _terms(q) if t.constraint and t.figure] == ["412"]


def test_what_the_asker_recalls_weighs_nothing() -> None:
    q = "what was Q2 2026 revenue in the end? I remember a number around 2.4M"
    weights = {t.word: t.weight for t in _terms(q)}
    assert weights["remember"] == 0 and weights["number"] == 0 and weights["revenue"] == 1
    assert "end" not in weights  # "in the end": finally
    assert _words(q, "Revenue — Q2 2026: £2.36M.")[0] == 1.0
    # a remark that is no recollection keeps half its weight, and "the end of" is an end
    remark = "where does pip keep its cache? want to clear some disk space"
    assert {t.word: t.weight for t in motive(question_terms(remark), remark)}["disk"] == 0.5
    assert "end" in {t.word for t in question_terms("what was the headcount at the end of Q2?")}


def test_what_how_many_counts_stops_at_a_preposition_or_a_sign() -> None:
    assert counted_noun("stores across Sweden & Norway".split()) == "stores"
    assert counted_noun("stores & depots".split()) == "stores"
    assert counted_noun("shipments between Hull and Leeds".split()) == "shipments"
    assert slot("Norrland delivers to about how many stores across Sweden & Norway?").head == "stores"


def test_an_effect_or_a_point_asked_is_an_account_not_a_thing() -> None:
    assert slot("setting PIP_CONFIG_FILE to os.devnull - what effect does that have?").kind == "value"
    assert slot("what's the point of --no-build-isolation?").kind == "value"
    assert slot("what is the reason pip installs dependencies first?").kind == "reason"
    assert slot("what flag skips the cache?").kind == "thing"  # a thing a line names stays one


def test_asked_to_explain_the_question_word_is_the_cases() -> None:
    assert slot("Explain the effect of --ignore-installed when the package is already present.").kind == "value"
    assert slot("tell me when the offsite is").kind == "date"  # the question word right after asks
    assert slot("explain why pip installs dependencies first").kind == "reason"


def test_a_command_named_before_what_it_does_is_asked() -> None:
    got = slot("command to spit out a pylock.toml for the project in my current folder?")
    assert (got.kind, got.head) == ("thing", "command")
    assert slot("flag to skip installing deps?").head == "flag"


def test_the_week_of_a_day_of_the_week_is_the_slot() -> None:
    assert "week" not in {t.stem for t in question_terms("what day of the week does Sam run the hardware demo?")}
    assert "week" in {t.stem for t in question_terms("how many demos does Sam run a week?")}


def test_what_the_asker_just_did_is_their_situation() -> None:
    q = "just unboxed a G2 — how do i link it to a site or truck?"
    weights = {t.word: t.weight for t in motive(question_terms(q), q)}
    assert weights["unboxed"] == 0.5 and weights["link"] == 1.0 and weights["G2"] == 1.0  # a name keeps its weight


def test_an_identifier_typed_in_lowercase_is_read_as_the_evidence_writes_it() -> None:
    from stigmergy.answer.casing import truecase

    lines = ["pip exits with ResolutionImpossible when no set of versions fits.",
             "The resolver raises `ResolutionImpossible` and prints the conflict.", "Set the API key. See the API docs.",
             "Belfast is a lane. The Belfast lane ran warm."]
    q = "what exit code on resolutionimpossible, via the api, for belfast?"
    got = truecase(q, lines)
    assert got == "what exit code on ResolutionImpossible, via the api, for belfast?"
    assert [t.word for t in question_terms(got) if t.constraint] == ["ResolutionImpossible"]
    # seen once, or also written in lowercase somewhere, it stays as typed
    assert truecase(q, lines[:1]) == q
    assert truecase(q, [*lines, "a resolutionimpossible error"]).startswith("what exit code on resolutionimpossible")


def test_a_british_and_an_american_spelling_are_one_word() -> None:
    from stigmergy.answer.spelling import american
    from stigmergy.answer.terms import stem

    for gb, us in (("organisation", "organization"), ("prioritised", "prioritized"), ("behaviour", "behavior"),
                   ("colours", "colors"), ("analyse", "analyze"), ("licence", "license"), ("centre", "center"),
                   ("catalogue", "catalog"), ("programme", "program"), ("harbour", "harbor")):
        assert stem(gb) == stem(us), gb
    # the words that are spelt so in both, or only look like it, stay as they are
    for word in ("advise", "surprise", "promise", "exercise", "expertise", "advertise", "otherwise", "praise",
                 "appraise", "noise", "cruise", "bruised", "four", "hour", "your", "tour", "analysis", "rising"):
        assert american(word) == word, word
    q = "what's our organisation's licence for the behaviour reports?"
    assert _words(q, "The organization's license covers the behavior reports.")[0] == 1.0


def test_the_case_of_a_word_is_read_only_from_lines_the_reader_may_read(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Hostile: a board-only identifier ("OrbisDeal", written only in the restricted layer) typed in lowercase by a
    # public reader. Truecasing reads the evidence the reader was given, so the board's spelling never shapes the
    # public question, and the board's lines never reach it.
    import json

    from test_answer_support import BOARD, CANARY, PUBLIC, build_wiki
    from test_index_support import HashEmbedder

    import stigmergy.answer.service as service
    from stigmergy.index.build import build_index
    from stigmergy.index.search import Searcher

    b = build_wiki(tmp_path / "w")
    b.source("Deal room", "The OrbisDeal code name covers the offer. OrbisDeal stays secret.\n", layer="board",
             occurred_at="2026-09-18", key="dealroom")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    seen: list[tuple[str, str]] = []
    real = service.truecase

    def spy(question: str, texts):  # type: ignore[no-untyped-def]
        texts = list(texts)
        out = real(question, texts)
        seen.append((out, "\n".join(texts)))
        return out

    monkeypatch.setattr(service, "truecase", spy)
    for reader in (PUBLIC, BOARD):
        s = Searcher(b.root, b.settings, HashEmbedder())
        try:
            out = service.ask(b.root, b.settings, reader, "what does the orbisdeal code name cover?", searcher=s)
        finally:
            s.close()
        if reader == PUBLIC:
            assert CANARY not in json.dumps(out) and "OrbisDeal" not in json.dumps(out)
    (public_q, public_lines), (board_q, board_lines) = seen
    assert "OrbisDeal" not in public_lines and CANARY not in public_lines
    assert public_q == "what does the orbisdeal code name cover?"
    assert "OrbisDeal" in board_lines and board_q == "what does the OrbisDeal code name cover?"  # the spy can fail
