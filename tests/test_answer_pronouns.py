"""Issue #19, twenty-seventh pass: whom a question's pronoun stands for ("sam in the leeds lab - whats his official
title"), a "when" inside a clause, what the asker knows before a semicolon, the share a percentage gives, the asker's
situation before the question, and a client who is a customer. No index; sentences written for these tests."""

from __future__ import annotations

from stigmergy.answer.asides import MOTIVE_WEIGHT, claimed, motive
from stigmergy.answer.counts import says_counted
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Entity, Names
from stigmergy.answer.pronouns import resolved
from stigmergy.answer.question import Slot, parts, slot
from stigmergy.answer.select import alternatives, score_part, word_score
from stigmergy.answer.service import _about
from stigmergy.answer.slots import fill, kind_fill
from stigmergy.answer.terms import question_terms
from stigmergy.answer.units import source_units
from stigmergy.answer.values import asked


def _names() -> Names:
    sam = Entity(1, "Samuel Achterberg", "person", frozenset({"samuel achterberg", "sam"}))
    tomek = Entity(2, "Tomasz Wieczorek", "person", frozenset({"tomasz wieczorek", "tomek"}))
    leeds = Entity(3, "Leeds", "place", frozenset({"leeds"}))
    return Names({n: e for e in (sam, tomek, leeds) for n in e.names})


def test_his_official_title_is_the_post_of_the_person_the_question_names() -> None:
    names = _names()
    part = parts("sam in the leeds lab - whats his official title")[0]
    assert part.slot == Slot("role", subject="his")
    part = resolved(part, names)
    assert part.slot == Slot("role", subject="sam")
    q = asked(part.text, names)
    assert kind_fill(part.slot, "Sam — Hardware Lead. Beacon and Beacon G2, firmware updates, the Leeds lab.", names, q) == 1.0
    # the post of someone else is no answer
    assert kind_fill(part.slot, "Tomek — CTO and co-founder.", names, q) == 0.0


def test_his_full_surname_is_the_other_name_of_the_person_the_question_names() -> None:
    names = _names()
    part = parts("sending a calendar invite to tomek, what's his full surname?")[0]
    assert part.slot == Slot("alias", subject="his")
    part = resolved(part, names)
    assert part.slot.subject == "tomek"
    q = asked(part.text, names)
    assert kind_fill(part.slot, "Tomasz Wieczorek, also known as Tomek, runs engineering.", names, q) == 1.0
    # a pronoun the wiki cannot tie to anyone stands for no one in particular
    assert resolved(parts("what's his full surname?")[0], names).slot.subject == ""


def test_what_a_person_does_asks_their_post() -> None:
    names = _names()
    part = resolved(parts("what does sam do")[0], names)
    assert part.slot == Slot("role", subject="sam")
    # a thing that does something is still asked what it is
    assert resolved(parts("what does the dwell timer do")[0], names).slot.kind == "definition"


def test_a_when_inside_the_clause_says_in_which_case_and_the_later_question_word_asks() -> None:
    assert slot("pip check when everything's fine prints what exactly?").kind == "value"
    assert slot("pip check when everything's fine prints what exactly?").head == ""
    assert slot("when does pip check print nothing?").kind == "date"
    # with no later question word, the "when" still asks
    assert slot("remind me when the offsite starts").kind == "date"


def test_what_the_asker_knows_before_a_semicolon_is_no_part_of_its_own() -> None:
    q = "the week 35 lodestar update had ~2k pilot shipments; what was the final number the MKT check covered?"
    got = parts(q)
    assert len(got) == 1 and got[0].slot.kind == "quantity"
    assert got[0].text.startswith("the week 35")
    terms = claimed(question_terms(got[0].text), got[0].text, got[0].slot.kind)
    assert [t.claim for t in terms if t.word == "2k"] == ["check"]
    # a question before the semicolon is a part of its own
    assert len(parts("when did lodestar ship; what did the pilot cover?")) == 2


def test_the_most_recent_share_is_said_by_a_percentage() -> None:
    q = "norrland was like 14% of ARR at end of last year - what's the most recent share"
    part = parts(q)[0]
    assert part.slot == Slot("quantity", head="share", unit="percent")
    got, _ = fill(part.slot, "Norrland Fresh is 12% of ARR.", "", Names(), asked(part.text, Names()))
    assert got == 1.0
    got, _ = fill(part.slot, "Norrland Fresh ships 412 pallets a week.", "", Names(), asked(part.text, Names()))
    assert got == 0.0
    # the figure the asker brings is the earlier state, which the answer may correct
    q = "norrland was 14% of ARR at the end of last year - what's the most recent share"
    assert [t.claim for t in claimed(question_terms(q), q, "quantity") if t.word == "14"] == ["check"]


def test_the_minimum_runtime_typed_without_a_question_word_is_its_version() -> None:
    assert slot("minimum python needed so pip actually uses the OS certificate store via truststore?") == Slot(
        "quantity", head="version", unit="version", subject="python")


def test_what_the_asker_is_doing_before_the_question_weighs_half() -> None:
    q = "sending a calendar invite to Tomek, what's his full surname?"
    plain = {t.word: t.weight for t in question_terms(q)}
    got = {t.word: t.weight for t in motive(question_terms(q), q)}
    assert got["calendar"] == plain["calendar"] * MOTIVE_WEIGHT
    assert got["Tomek"] == plain["Tomek"]  # a name keeps its weight: it says whom
    assert got["surname"] == plain["surname"]
    # a clause that asks keeps its words
    q = "building wheels offline, how do i point pip at a local folder?"
    assert {t.word: t.weight for t in motive(question_terms(q), q)}["folder"] == {
        t.word: t.weight for t in question_terms(q)}["folder"]


def test_clients_are_customers() -> None:
    assert says_counted("clients", "41 customers were affected, including Norrland.")
    assert says_counted("customers", "the 12 clients on the old poller")


def _line(text: str, *, headings: tuple[str, ...] = (), before: str = "", n: int = 5) -> Line:
    return Line("sources/2026/01/x.md", "User guide", "source", "public", n, text, text, headings, (), 1, before)


def test_an_option_of_two_words_is_spoken_of_by_its_words_under_its_heading() -> None:
    q = "why did pip stop using eager as the default --upgrade-strategy?"
    terms = question_terms(q)
    line = _line("This was changed in pip 10.0 due to the breaking nature of eager when upgrading conflicting "
                 "dependencies.", headings=("User Guide", '"Only if needed" Recursive Upgrade'),
                 before="The default strategy is only-if-needed.")
    w, _, held, matched = word_score(line, terms, {})
    assert held and "upgrade-strategy" in matched
    # the option's words apart, far from each other, do not say it
    other = _line("Pip uses a backtracking strategy when dependencies conflict.", headings=("User Guide", "Resolver"))
    assert not word_score(other, terms, {})[2]
    # nor is an option of one word said by that word
    single = question_terms("what does --user do under a virtualenv")
    assert not word_score(_line("Each user has a per-user site directory.", headings=("User Installs",)), single, {})[2]


def test_to_ignore_every_config_file_is_to_disable_loading_all_of_them() -> None:
    q = "for a reproducible test run i want pip to ignore every config file on the machine. how?"
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line("Setting this to os.devnull disables the loading of all configuration files.")
    alts = alternatives((line,), part, terms, Names())
    _, _, _, matched = word_score(line, terms, alts)
    assert {"ignore", "every"} <= set(matched)


def test_a_clause_that_asks_is_no_situation() -> None:
    q = "for a clean CI job i want pip to not read ANY config files at all on the machine, how?"
    assert {t.word: t.weight for t in motive(question_terms(q), q)} == {t.word: t.weight for t in question_terms(q)}


def test_what_he_does_here_asks_the_post_of_the_person_named_before() -> None:
    names = _names()
    part = resolved(parts("saw 'Sam' in the team directory, what does he actually do here?")[0], names)
    assert part.slot == Slot("role", subject="sam")
    # no one named: the question keeps its kind
    assert resolved(parts("what does he actually do here?")[0], names).slot.kind == "definition"


def test_a_box_directive_is_markup_and_its_body_says_what_it_says() -> None:
    body = ["Description", "===========", "", ".. attention::", "    PyPI no longer supports ``pip search`` (or XML-RPC "
            "search). Please use https://pypi.org/search (via a browser)", "    instead.", "",
            ".. note:: Indexes other than PyPI may still serve it.", ""]
    units = {text: before for _, _, text, before, _, _ in source_units(body, 1, 0)}
    assert "PyPI no longer supports ``pip search`` (or XML-RPC search)." in units
    assert units["Please use https://pypi.org/search (via a browser) instead."].startswith("PyPI no longer")
    assert "Indexes other than PyPI may still serve it." in units
    assert not any(".." in text.split()[0] for text in units)


def test_a_web_domain_is_said_by_the_name_it_is_of() -> None:
    q = "does pip search still work against pypi.org?"
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line("PyPI no longer supports pip search (or XML-RPC search).")
    assert "pypi.org" in word_score(line, terms, alternatives((line,), part, terms, Names()))[3]


def test_a_lead_in_that_points_back_reads_the_sentence_before_it() -> None:
    body = ["Using pip from your program", "===========================", "",
            "While it is available from your code via ``import pip``, you must not use pip's internal APIs in this way.",
            "There are a number of reasons for this:", "", "#. pip's code is *not* thread safe.", "",
            "To run tests:", "", "#. nox -s test", ""]
    units = {text: before for _, _, text, before, _, _ in source_units(body, 1, 0)}
    assert "internal APIs" in units["#. pip's code is *not* thread safe."]
    assert units["#. pip's code is *not* thread safe."].endswith("There are a number of reasons for this:")
    # a lead-in that names what it introduces reads nothing before it
    assert "internal" not in units["#. nox -s test"]


def test_a_later_part_is_about_what_its_pronoun_stands_for() -> None:
    q = "dependency groups: how do i install one with pip, and which pip version first supported that?"
    first, second = parts(q)
    assert first.carried == "" and second.carried == "dependency groups"
    terms = _about(question_terms(second.text), second.carried)
    assert {t.word for t in terms if t.constraint} == {"dependency", "groups"}
    line = _line("pip 20.3 was the last version of pip that supported Python 2.")
    assert not word_score(line, terms, {})[2]  # another thing's version
    # a subject that is a clause ("PEP brought in ensurepip") is no thing a line must name
    second = parts("which PEP brought in ensurepip, and which python version first shipped it?")[1]
    assert not any(t.constraint for t in _about(question_terms(second.text), second.carried))


def test_the_cmd_to_do_something_is_a_command_a_line_spells() -> None:
    assert slot("what's the cmd to wipe it completely?") == Slot("thing", head="command")
    assert slot("what is the command to clear the cache") == Slot("thing", head="command")
    q = "what's the cmd to wipe pip's cache completely"
    assert _kind(q, "`pip cache purge` will clear all files from pip's wheel and HTTP caches.") == 1.0
    assert _kind(q, "If you have completely switched to newer versions of pip, you may wish to delete the old "
                    "directory.") == 0.0
    # the short form is said by the whole word
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line("Use this command to clear the cache.")
    assert "cmd" in word_score(line, terms, alternatives((line,), part, terms, Names()))[3]


def _kind(q: str, text: str) -> float:
    part = parts(q)[0]
    return kind_fill(part.slot, text, Names(), asked(part.text, Names()))


def test_a_download_link_asks_for_a_web_address() -> None:
    q = "direct download link for the standalone pip .pyz zipapp?"
    assert slot(q) == Slot("thing", head="link")
    assert slot("what's the url of the docs") == Slot("thing", head="link")
    assert _kind(q, "This can be downloaded from <https://bootstrap.pypa.io/pip/pip.pyz>.") == 1.0
    assert _kind(q, "There are also zip applications for specific pip versions, named `pip-X.Y.Z.pyz`.") == 0.0
    # the address the asker typed is no answer
    assert _kind("link for https://pypi.org/search?", "Please use https://pypi.org/search instead.") == 0.0


def test_a_path_asked_by_name_is_a_place_on_a_computer() -> None:
    q = "linux: path of the per-virtualenv (site) pip config file"
    assert slot(q).kind == "place"
    assert slot("location of the cache").kind == "place"
    assert _kind(q, "Site : {file}`$VIRTUAL_ENV/pip.conf`") == 1.0
    assert _kind(q, "Site: per-environment configuration file; i.e. per-virtualenv.") < 1.0


def test_a_dash_ends_the_subject_a_later_part_carries() -> None:
    got = parts("get-pip.py — where do i grab it from and how do i run it once downloaded")
    assert [p.carried for p in got] == ["", "get-pip.py"]
    assert got[1].text == "how do i run get-pip.py once downloaded"


def test_a_question_that_opens_with_the_kind_it_asks_needs_no_line_to_say_the_kind() -> None:
    q = "flag to skip installing deps?"
    part = parts(q)[0]
    assert part.slot == Slot("thing", head="flag")
    terms = question_terms(part.text)
    flag = _line("Skip installing with the --no-build-isolation flag.", n=3)
    option = _line("Skip installing dependencies: --no-deps.", n=4)
    got = [s.line.line for s in score_part((flag, option), part, terms, Names(), asked(part.text, Names()), None, None)]
    assert got[0] == 4
    # "which pip flag overrides that" still weighs the word: the kind is not what it opens with
    part = parts("debian says externally-managed-environment, which pip flag overrides that")[0]
    assert part.slot.head == "flag"


def test_a_sentence_may_open_with_code_and_what_else_names_no_kind() -> None:
    body = ["pip download with the --platform option fetches for another system. ``--only-binary=:all:`` or "
            "``--no-deps`` is required when using it.", ""]
    texts = [text for _, _, text, _, _, _ in source_units(body, 1, 0)]
    assert texts[-1] == "``--only-binary=:all:`` or ``--no-deps`` is required when using it."
    assert slot("pip download --platform errors out. what else must i pass").head == ""


def test_a_shell_command_typed_in_the_question_is_no_term() -> None:
    words = [t.word for t in question_terms("I used to rm -rf ~/.cache/pip/http to reset pip's http cache. still the "
                                            "right folder?")]
    assert "rm" not in words and "rf" not in words and "cache" in words
    # a pip option stays the constraint it is
    assert [t.constraint for t in question_terms("what does --no-deps do") if t.word == "no-deps"] == [True]


def test_to_hear_from_someone_is_to_be_informed_and_a_visitor_is_a_guest() -> None:
    q = "when you have a sev-2, how soon do affected clients hear from you"
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line("Customers affected by a SEV-1 or SEV-2 incident are informed within one hour.")
    assert "hear" in word_score(line, terms, alternatives((line,), part, terms, Names()))[3]
    q = "got a visitor coming to the office, what do they need to do"
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line("Guests sign in at reception.")
    assert "visitor" in word_score(line, terms, alternatives((line,), part, terms, Names()))[3]


def test_caught_up_in_a_pile_up_is_affected_by_a_backlog() -> None:
    q = "how many clients got caught up in the 22 april data pile-up"
    part = parts(q)[0]
    terms = question_terms(part.text)
    line = _line("During the 22 April backlog, 41 customers were affected.")
    assert {"caught", "pile-up", "clients"} <= set(word_score(line, terms, alternatives((line,), part, terms, Names()))[3])


def test_a_percent_sign_typed_for_the_word_asks_a_share() -> None:
    assert slot("what % of the company does greywater ventures own after the series a?").unit == "percent"
    assert _kind("what % of the company does greywater ventures own",
                 "It is backed by Greywater Ventures, which led its £14M Series A in October 2025.") == 0.0
    assert slot("is 12% right?").kind == "yesno"


def test_a_version_that_will_come_is_not_said_by_one_that_came() -> None:
    q = "in which pip version will the legacy setup.py build interface be dropped for good?"
    part = parts(q)[0]
    done, _ = fill(part.slot, "In pip 21.0, in January 2021, pip dropped support for Python 2 altogether.", "",
                   Names(), asked(part.text, Names()))
    planned, _ = fill(part.slot, "The legacy interface will be removed in pip 25.3.", "", Names(),
                      asked(part.text, Names()))
    assert planned == 1.0 and done < planned


def test_a_letter_given_to_an_option_or_quoted_alone_is_a_prompts_choice() -> None:
    assert "(b)" in [t.word for t in question_terms("--exists-action b : what does 'b' do exactly")]
    assert "(w)" in [t.word for t in question_terms("what happens with --exists-action=w")]
    # an article after an option is no choice
    assert not any(t.word.startswith("(") for t in question_terms("pip install --target a folder"))


def test_back_in_a_period_says_when_and_is_no_term() -> None:
    assert "back" not in [t.word for t in question_terms("why did pip stop upgrading every dependency by default back "
                                                         "in 10.0?")]
    assert "back" not in [t.word for t in question_terms("norrland had 412 gateways back in may, how many now")]
    assert "back" in [t.word for t in question_terms("how do i go back to the old resolver")]


def test_an_identifiers_parts_are_words_a_run_together_word_is_made_of() -> None:
    from stigmergy.answer.saying import blended

    term = next(t for t in question_terms("where does the virtualenv config go") if t.word == "virtualenv")
    assert blended(term, "Site : $VIRTUAL_ENV/pip.conf")
    assert blended(term, "inside virtual environments")
    assert not blended(term, "a virtual machine's environment")
    assert not blended(term, "VIRTUAL_ENV_PROMPT")


def test_an_example_of_the_askers_own_that_no_page_says_weighs_nothing() -> None:
    from dataclasses import replace as _replace

    q = "i fixed a bug for issue 4321, what should the news fragment file be named?"
    terms = [_replace(t, absent=t.figure) for t in question_terms(q)]
    terms = claimed(terms, q, "thing")
    assert [t.claim for t in terms if t.word == "4321"] == ["example"]
    line = _line("If your issue number is 1234 and this change is fixing a bug, create a file news/1234.bugfix.rst "
                 "for the news fragment.")
    without = [t for t in terms if t.word != "4321"]
    assert word_score(line, terms, {})[0] == word_score(line, without, {})[0]
