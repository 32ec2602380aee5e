"""Issue #19, twenty-sixth pass: the kind of thing a question asks for, read as typed ("whats the flag", "what cli
option", "what text encoding", "the minimum python", "the logistics guy"), and what a line must hold to name it (a file
its name, a library no command-line option, a version of the product asked about). No index; sentences written for
these tests."""

from __future__ import annotations

from dataclasses import replace

from stigmergy.answer.asides import MOTIVE_WEIGHT, claimed, motive, without_motive
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts, slot
from stigmergy.answer.roles import says_role
from stigmergy.answer.select import _ruled_out
from stigmergy.answer.slots import fill, kind_fill
from stigmergy.answer.terms import question_terms, stem
from stigmergy.answer.values import asked


def _line(text: str, n: int = 5) -> Line:
    return Line("sources/2026/01/x.md", "Glossary", "source", "public", n, text, text, (), (), 1, "")


def _kind(q: str, text: str) -> float:
    """How the line fills the slot of the question's first part (its value in the line itself)."""
    part = parts(q)[0]
    return kind_fill(part.slot, text, Names(), asked(part.text, Names()))


def test_a_flag_asked_at_the_end_or_as_a_command_line_option_wants_an_option() -> None:
    q = "building docker images and i dont want pip writing any cache into the layer, whats the flag"
    assert slot(q) == Slot("thing", head="flag")
    assert slot("we're behind a corporate http proxy, what cli option tells pip to go through it") == Slot(
        "thing", head="flag")
    assert slot("what command line option sets the proxy").head == "flag"
    # a plain "option" may be a choice ("the option the board chose"), so it stays a value
    assert slot("what is the option chosen by the board").kind == "value"
    assert _kind(q, "pip's caching behaviour is disabled by passing the `--no-cache-dir` option.") == 1.0
    assert _kind(q, "It is recommended to NOT disable pip's caching unless you have caching at a higher level.") == 0.0


def test_a_command_line_option_names_no_library_or_algorithm() -> None:
    q = "which library does pip's resolver use under the hood"
    assert _kind(q, "A beta of the new resolver was available, opt-in, using the flag --use-feature=2020-resolver.") == 0.0
    assert _kind(q, "Pip's interface to `resolvelib` is in the form of a provider.") == 1.0
    # a "lib" is a library
    assert _kind("what 3rd party lib is the resolver built on", "opt in with --use-feature=2020-resolver.") == 0.0
    # an option still names an option
    assert _kind("which flag turns the resolver back", "use the flag --use-deprecated=legacy-resolver") == 1.0


def test_a_file_is_named_by_its_file_name_or_the_variable_that_holds_it() -> None:
    q = "what file does pip lock spit out?"
    assert slot(q) == Slot("thing", head="file")
    assert _kind(q, "Emit a ``pylock.toml`` for the project in the current directory.") == 1.0
    assert _kind(q, "While the --report option may be used to implement locking tools, this format is not meant to be "
                    "a lock file format as such.") == 0.0
    assert _kind("which config file gets loaded last and beats all the others?",
                 "The environment variable PIP_CONFIG_FILE can be used to specify a configuration file that's loaded "
                 "last.") == 1.0


def test_a_noun_in_ing_is_the_head_not_a_verb() -> None:
    assert slot("what text encoding does pip assume when reading requirements files").head == "encoding"
    assert slot("which meeting rooms are free").head == "rooms"  # a first word in -ing still qualifies the next
    # a preposition ends the head ("before pip"), and a period is a measure
    assert slot("min warning period before pip is allowed to drop some documented behaviour") == Slot(
        "quantity", head="period")


def test_the_minimum_python_typed_in_lower_case_asks_for_a_version_of_python() -> None:
    q = "whats the minimum python needed for pip to use the system certificate store"
    assert slot(q) == Slot("quantity", head="version", unit="version", subject="python")
    part = parts(q)[0]

    def filled(text: str) -> float:
        return fill(part.slot, text, "", Names(), asked(part.text, Names()))[0]

    assert filled("On Python 3.10 or later, by default system certificates are used in addition to certifi.") == 1.0
    # pip's own release is a version of pip, not of Python
    assert filled("To use system certificates with pip v22.2 or later, you must opt in.") == 0.0
    assert slot("what is the minimum order size").head == "size"  # a word no tool is named by stays a measure


def test_the_logistics_guy_is_the_head_of_logistics() -> None:
    got = slot("prepping for a follow-up with norrland fresh - who's the logistics guy on their side?")
    assert got.kind == "person" and got.subject.startswith("logistics guy")
    assert says_role("logistics guy", "Erik Sandberg — Head of Logistics, Norrland Fresh.")
    assert not says_role("logistics guy", "Oliver Brandt — Head of Sales, Leeds.")


def test_the_old_one_ruled_out_is_the_legacy_one() -> None:
    out = _ruled_out("linux box, where should my per-user pip.conf go nowadays (not the old ~/.pip one)?")
    assert stem("legacy") in out and stem("pip") not in out


def test_a_remark_after_the_question_mark_is_the_askers_motive() -> None:
    q = "on my macbook, where does pip actually stash its download cache? want to clear some disk space"
    assert without_motive(q) == "on my macbook, where does pip actually stash its download cache?"
    terms = {t.word: t.weight for t in motive(question_terms(q), q)}
    assert terms["space"] == MOTIVE_WEIGHT and terms["cache"] == 1.0  # the motive's own words weigh half
    # a remark that asks (a yes or no, a question word) or a claim to check is no motive
    for asking in ("when did driftwood switch over? wasn't it supposed to be end of may",
                   "does -U bump the dependencies?? mine stayed old. did that change",
                   "where is the cache? and how big can it grow"):
        assert without_motive(asking) == asking
    figures = {t.word: t.weight for t in motive(question_terms("how many gateways? the may call said 412"),
                                                "how many gateways? the may call said 412")}
    assert figures["412"] == 1.0


def test_a_figure_said_before_a_question_about_now_is_the_earlier_state_to_correct() -> None:
    for q, figure in (("norrland had 412 gateways back in may, how many beacon gateways do they run now?", "412"),
                      ("pellucid's scope email said the pilot covers 37 lanes. what's the lane count now?", "37")):
        got = {t.word: t for t in claimed(question_terms(q), q, parts(q)[0].slot.kind)}
        assert got[figure].claim == "check" and not got[figure].constraint
    # a period still says which figure is asked, and without "now" a figure stays what the line must say
    q = "in q2 2026, how many customers do we have now?"
    assert all(t.constraint for t in claimed(question_terms(q), q, "quantity") if t.figure)
    q = "norrland had 412 gateways, how many were in leeds?"
    assert {t.word: t for t in claimed(question_terms(q), q, "quantity")}["412"].constraint


def test_a_count_or_the_number_of_things_asks_how_many() -> None:
    assert slot("what's the lane count now?") == Slot("quantity", head="lane", unit="count")
    assert slot("what is the number of lanes in the pilot") == Slot("quantity", head="lanes", unit="count")
    assert slot("what is the phone number of the office").head == "number"  # a number that names, not counts


def test_a_line_that_defines_the_subject_answers_whatever_else_is_said_of_it() -> None:
    from stigmergy.answer.select import score_part

    q = "what does MKT stand for in the lodestar reports?"
    [part] = parts(q)
    terms = question_terms(part.text)
    lines = (_line("**Mean kinetic temperature (MKT)** — a single temperature that expresses the thermal stress."),
             _line("Lodestar reports show MKT per shipment and per lane.", n=9))
    scored = score_part(lines, part, terms, Names(), asked(part.text, Names()), None, None)
    defining = next(s for s in scored if s.line.line == 5)
    assert defining.words == 1.0 and defining is scored[0]


def test_a_paragraph_that_says_all_the_best_line_says_and_more_answers() -> None:
    from stigmergy.answer.select import Scored
    from stigmergy.answer.service import _whole

    short = "Oliver Brandt has confirmed the date with the three customers who were told 15 September."
    whole = f"General availability on 22 September 2026 for Enterprise customers. {short}"

    def scored(text: str, score: float, n: int) -> Scored:
        return Scored(_line(text, n=n), score, 0.5, 0.5, 1.0, False, True, ())

    best, level, other = scored(short, 0.603, 1), scored(whole, 0.602, 2), scored("Lodestar ships soon.", 0.602, 3)
    assert _whole(best, [best, level, other], set()) is level
    assert _whole(best, [best, scored(whole, 0.55, 2)], set()) is best  # a paragraph scored well under it does not


def test_the_new_customer_success_person_is_the_manager_a_task_speaks_of() -> None:
    from stigmergy.answer.ties import speaks_of_role

    line = "Hannah Lindqvist: introduce the new Nordic customer success manager in November."
    assert speaks_of_role("nordic customer success person", line, lambda t: False)
    assert slot("what NPS did the beta get").kind == "quantity"  # a score is a figure, not a name


def test_in_such_cases_reads_back_to_the_cases_and_what_they_are_of(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer.compose import sentence
    from stigmergy.answer.evidence import Cite

    page = "sources/2026/01/install.md"
    first, second = "The zip application is currently experimental.", (
        "We test that pip runs correctly in this form, but there could be issues in some situations.")
    third = "We will accept bug reports in such cases, but the zip application should not be used in production."
    cites = [Cite(page, n, n, t) for n, t in ((10, first), (11, second), (12, third))]
    earlier = Line(page, "Installation", "source", "public", 11, second, second, (), (cites[1],), 1, first, cites[0])
    line = Line(page, "Installation", "source", "public", 12, third, third, (), (cites[2],), 1, second, cites[1])
    q = "is it fine to use the pip.pyz zipapp in production?"
    part = parts(q)[0]
    said = sentence(line, part.slot, False, Names(), asked(part.text, Names()), tmp_path, ("public",), False,
                    earlier=earlier)
    assert said["text"].startswith(first) and third in said["text"]
    assert {c["lines"][0] for c in said["citations"]} == {10, 11, 12}


def test_what_a_report_asks_a_team_to_do_is_no_answer_but_the_date_it_gives_is() -> None:
    from stigmergy.answer.select import score_part

    said = ("Given that the PyPI search API is currently disabled (as of 1st Jan, 2021), we recommend that the pip team "
            "display a clear error message to users who use the command.")
    plain = "Please use https://pypi.org/search (via a browser) instead."
    lines = (_line(said), _line(plain, n=9))
    for q, kept in (("pip search just errors out against pypi now, what am i supposed to use instead", {9}),
                    ("when did pypi switch off the search api that pip search used?", {5})):
        [part] = parts(q)
        scored = score_part(lines, part, question_terms(part.text), Names(), asked(part.text, Names()), None, None)
        assert kept <= {s.line.line for s in scored}
        if part.slot.kind != "date":
            assert 5 not in {s.line.line for s in scored}


def test_a_main_clause_of_this_after_a_while_clause_reads_back_two_sentences(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer.compose import leans_back, sentence
    from stigmergy.answer.evidence import Cite

    page = "sources/2026/01/install.md"
    first = 'As of v6.1.0, pip installs dependencies before their dependents, i.e. in "topological order".'
    second = "This is the only commitment pip currently makes related to order."
    third = ("While it may be coincidentally true that pip will install things in the order of the items in a "
             "requirements file, this is not a promise.")
    assert leans_back(third) and not leans_back("While rain is likely, the match goes ahead as planned on Sunday.")
    cites = [Cite(page, n, n, t) for n, t in ((10, first), (11, second), (12, third))]
    earlier = Line(page, "pip install", "source", "public", 11, second, second, (), (cites[1],), 1, first, cites[0])
    line = Line(page, "pip install", "source", "public", 12, third, third, (), (cites[2],), 1, second, cites[1])
    part = parts("does pip install things in the order they appear in requirements.txt?")[0]
    said = sentence(line, part.slot, False, Names(), asked(part.text, Names()), tmp_path, ("public",), False,
                    earlier=earlier)
    assert said["text"].startswith("As of v6.1.0") and said["text"].endswith("this is not a promise.")


def test_releases_said_after_a_bound_by_a_later_release_are_said_with_the_bound(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer.compose import bounded_before, sentence
    from stigmergy.answer.evidence import Cite

    page = "sources/2026/01/certs.md"
    first = "Versions of pip prior to v24.2 did not use system certificates by default."
    second = "To use system certificates with pip v22.2 or later, you must opt-in using the --use-feature=truststore flag."
    line = Line(page, "HTTPS", "source", "public", 12, second, second, (), (Cite(page, 12, 12, second),), 1, first,
                Cite(page, 11, 11, first))
    assert bounded_before(line)
    assert not bounded_before(replace(line, before="Pip can use the system certificate store."))
    part = parts("do i still have to pass --use-feature=truststore so pip trusts the OS cert store?")[0]
    said = sentence(line, part.slot, False, Names(), asked(part.text, Names()), tmp_path, ("public",), False)
    assert said["text"] == f"{first} {second}"


def test_setting_this_goes_on_with_the_sentence_before() -> None:
    from stigmergy.answer.compose import leans_back
    from stigmergy.answer.units import GOES_ON_RE

    said = "Setting this to os.devnull disables the loading of all configuration files."
    assert GOES_ON_RE.match(said) and leans_back(said)
    assert not leans_back("Setting up a proxy needs the --proxy option and a scheme, host and port.")
    assert not GOES_ON_RE.match("Everything that pip installs is recorded in the environment's metadata.")


def test_a_date_said_before_it_is_asked_again_in_doubt_is_a_claim_to_check() -> None:
    q = ("the harbor blog post says 1.0 launched on the 16th of june but i'm pretty sure it went live earlier. what day "
         "did it actually go GA?")
    got = {t.word: t for t in claimed(question_terms(q), q, "date")}
    assert got["16th"].claim == "check" and not got["16th"].constraint
    # a choice between two figures the asker has is no doubt about either (each is the asker's own example)
    q = "i have PIP_TIMEOUT=30 exported but my pip.conf says timeout = 60. which one does pip actually go with?"
    assert not any(t.claim == "check" for t in claimed(question_terms(q), q, parts(q)[0].slot.kind) if t.figure)


def test_a_file_name_is_no_backend_and_what_a_thing_should_be_named_asks_its_name() -> None:
    q = "old project has no pyproject.toml at all. what build backend does pip assume for it"
    assert _kind(q, "If this hook is missing and there's a setup.py file in the project, pip falls back.") == 0.0
    assert _kind(q, "The `setuptools.build_meta:__legacy__` build backend will be used.") == 1.0
    assert slot("contributor here: i fixed a bug for issue 4321, what should the news fragment file be named?") == Slot(
        "thing", head="file")


def test_a_box_that_loses_power_runs_on_its_backup() -> None:
    from stigmergy.answer.otherwise import plainly

    q = "if a G2 loses power how long can it keep running on its battery"
    alts = plainly(question_terms(q), q)
    assert frozenset({stem("backup")}) in alts[stem("power")] and frozenset({stem("backup")}) in alts[stem("loses")]
    assert stem("loses") not in plainly(question_terms("we lose the lead"), "we lose the lead")
    q = "if the pip team wants to kill off a documented feature how long do they warn ppl first"
    alts = plainly(question_terms(q), q)
    assert frozenset({stem("removes")}) in alts[stem("kill")] and frozenset({stem("deprecated")}) in alts[stem("warn")]
    assert stem("kill") not in plainly(question_terms("kill the process"), "kill the process")


def test_which_one_of_the_askers_own_settings_is_the_one_a_line_says_prevails() -> None:
    q = "timeout is set in /etc/pip.conf and also in my user config with different values. which one does pip use?"
    assert slot(q) == Slot("thing", head="one")
    assert _kind(q, "If the timeout is in both the global file and the per-user file, the latter value will be used.") == 1.0
    assert _kind(q, "PIP_TIMEOUT=60 is the same as --timeout=60.") == 0.0  # a setting, not which one prevails
    q = "i have PIP_TIMEOUT=30 exported but my pip.conf says timeout = 60. which one does pip actually go with?"
    got = {t.word: t.claim for t in claimed(question_terms(q), q, "thing") if t.figure}
    assert got == {"30": "example", "60": "example"}


def test_the_biggest_a_thing_may_grow_is_a_measure_and_a_person_is_no_thing() -> None:
    from stigmergy.answer.names import Entity

    q = "what's the biggest the http cache is allowed to grow before pip starts evicting old entries?"
    assert slot(q) == Slot("quantity", unit="size")
    assert slot("what is the biggest customer we have").kind != "quantity"  # a superlative of a kind of thing
    names = Names()
    grace = Entity("wiki/entities/Grace Nakamura.md", "Grace Nakamura", "person", frozenset({"grace nakamura"}))
    names.by_name["grace nakamura"] = grace
    part = parts("Which programming language is the Driftwood ingest service written in?")[0]
    got = kind_fill(part.slot, "Grace Nakamura owns the on-call runbook for the ingest service.", names,
                    asked(part.text, names))
    assert got < 1.0
