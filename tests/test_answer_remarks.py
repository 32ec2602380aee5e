"""Issue #19, twenty-fifth pass: the question read through the asker's remarks and shorthand ("excursion budget — what
does that actually mean?", "how many ppl", "the may call said 412", "whats sam's full name", "(b)ackup"), and a count
of "them" that counts what the sentence before names (no index; sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace

from stigmergy.answer.asides import claimed
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Entity, Names
from stigmergy.answer.question import Slot, parts, slot
from stigmergy.answer.saying import compound_head
from stigmergy.answer.select import word_score
from stigmergy.answer.slots import fill, kind_fill
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked


def _line(text: str, *, title: str = "Notes", before: str = "", n: int = 5) -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", n, text, text, (), (), 1, before)


def _kind(q: str, text: str, names: Names | None = None) -> float:
    """How the line fills the slot of the question's first part (its value in the line itself)."""
    names = names or Names()
    part = parts(q)[0]
    return kind_fill(part.slot, text, names, asked(part.text, names))


def test_emphasis_after_the_subject_is_no_part_of_it() -> None:
    # "that actually" was the subject, so no line defined it; the pronoun now stands for the topic before the dash
    assert slot("excursion budget — what does that actually mean?") == Slot("definition", subject="that")
    assert slot("what does picking b actually do").subject == "picking b"
    assert slot("what does mean kinetic temperature express").subject == "mean kinetic temperature"
    # an adjective of emphasis before a post: the post is still asked
    assert slot("what's tomek's actual title") == Slot("role", subject="tomek")


def test_shorthand_and_a_prompts_bracketed_letters_are_read_as_the_words() -> None:
    [part] = parts("how many ppl will fit in the new lisbon office?")
    assert part.slot == Slot("quantity", head="people", unit="count")
    got = asked(part.text, Names())
    assert kind_fill(part.slot, "The new office has room for 55 people and a lab.", Names(), got) == 1.0
    [choice] = parts("pip prompted me with (i)gnore, (w)ipe, (b)ackup, (a)bort. what does picking b do?")
    assert {"ignore", "wipe", "backup", "abort"} <= {t.word for t in question_terms(choice.text)}
    assert "ppl" in parts("does ppl-check run nightly?")[0].text  # inside a word it is no shorthand


def test_a_pronoun_or_everything_after_the_asked_noun_is_no_part_of_it() -> None:
    assert slot("need the sha256 of a tarball. what command gives me that?") == Slot("thing", head="command")
    got = parts("on a linux box: where's pip's cache directory, and what one command wipes all of it?")
    assert [p.slot.kind for p in got] == ["place", "thing"] and got[1].slot.head == "command"
    # a frame before the colon is no topic: the pronoun stands for the first part's subject
    assert got[1].text == "what one command wipes all of pip's cache directory"


def test_a_yes_or_no_after_a_dash_or_a_full_stop() -> None:
    assert slot("i pass --config-settings to `pip install foo` — do those settings reach its dependencies?").kind == "yesno"
    assert slot("my pip is old. is it safe to upgrade in place?").kind == "yesno"
    assert slot("pip.conf has timeout = 60 set").kind == "value"  # a dot inside a file name opens nothing
    assert slot("how many gateways - is it 412?").kind == "quantity"  # the question word before the dash decides


def test_a_figure_an_earlier_report_gave_is_for_the_answer_to_correct() -> None:
    q = "how many beacon gateways is norrland running now? the may call said 412"
    terms = [replace(t, absent=t.figure) for t in question_terms(q)]
    got = {t.word: t.claim for t in claimed(terms, q, "quantity") if t.figure}
    assert got == {"412": "check"}
    assert not [t for t in claimed(terms, q, "quantity") if t.constraint and t.figure]
    plain = "how many gateways did norrland run in the 412 region"
    terms = question_terms(plain)
    assert {t.word: t.claim for t in claimed(terms, plain, "quantity") if t.figure} == {"412": ""}


def test_a_full_name_asked_is_another_name_the_wiki_knows() -> None:
    sam = Entity(3, "Samuel Achterberg", "person", frozenset({"samuel achterberg", "sam"}))
    names = Names({"samuel achterberg": sam, "sam": sam})
    q = "grace said 'leeds backup is sam' on launch day — whats sam's full name?"
    [part] = parts(q)
    assert part.slot == Slot("alias", subject="sam") and "leeds backup" in part.text
    got = asked(part.text, names)
    assert kind_fill(part.slot, "[08:02] Samuel Achterberg: confirmed, I'm backup.", names, got) == 1.0
    assert kind_fill(part.slot, "Leeds backup is Sam.", names, got) == 0.0  # the same name again
    assert kind_fill(part.slot, "Grace Nakamura ran the launch.", names, got) == 0.0  # someone else
    # "the product's full name" names no one: not read as a person's other name
    assert parts("what is the product's full name")[0].slot.kind != "alias"


def test_a_count_of_them_counts_what_the_sentence_before_names() -> None:
    q = "how many g2 units did the team send to pellucid once stock landed?"
    [part] = parts(q)
    got = asked(q, Names())
    text = "Beacon G2 units arrived in Leeds on 5 August. The team shipped 180 of them to Pellucid."
    assert fill(part.slot, text, "", Names(), got)[0] == 1.0
    # "them" are what the sentence before names: engineers are no units
    assert fill(part.slot, "Engineers joined in August. The team hired 4 of them.", "", Names(), got)[0] < 1.0


def test_a_compound_the_asker_made_up_is_said_by_its_last_word() -> None:
    assert compound_head("temp-excursion") == "excursion" and compound_head("g2-ish") == ""
    assert compound_head("re-do") == ""  # too short a head to stand for the whole
    q = "how much quicker did temp-excursion warnings go out?"
    terms = [replace(t, absent=t.word == "temp-excursion") for t in question_terms(q)]
    line = _line("Excursion alerts fired on average 41 seconds sooner than on the poller.")
    assert "temp-excursion" in word_score(line, terms, {})[3]
    kept = [replace(t, absent=False) for t in terms]  # a compound the wiki writes is matched whole, as before
    assert "temp-excursion" not in word_score(line, kept, {})[3]


def test_what_the_tokenizer_leaves_of_a_contraction_is_no_term() -> None:
    got = {t.word for t in question_terms("i've kept it in ~/.pip/pip.conf, we'll see if you're right")}
    assert not got & {"ve", "ll", "re"} and "pip.conf" in got


def test_an_option_given_a_value_names_the_value_exactly() -> None:
    got = {t.word: t.constraint for t in question_terms("found --upgrade-strategy=to-satisfy-only, what does it do")}
    assert got["to-satisfy-only"] and not got["upgrade-strategy"]
    assert {t.word: t.constraint for t in question_terms("what does --upgrade-strategy do")}["upgrade-strategy"]


def test_asked_whether_one_may_a_line_that_rules_on_it_answers() -> None:
    q = "is it fine to use the pip.pyz zipapp in our production deploy scripts?"
    described = "This can be downloaded from https://bootstrap.pypa.io/pip/pip.pyz."
    assert _kind(q, "For now the zip application should not be used in production environments.") == 1.0
    assert _kind(q, described) < 1.0
    # a yes or no on what is so, not on what one may do, is answered by what is said, as before
    assert _kind("does the zipapp ship with pip?", described) == 1.0


def test_a_new_way_of_writing_a_name_the_question_types_is_its_syntax() -> None:
    q = "requirements.txt needs a token from the API_TOKEN env var — what syntax makes pip expand it?"
    [part] = parts(q)
    assert part.slot == Slot("thing", head="syntax")
    got = asked(q, Names())
    line = "Use the POSIX format, with brackets around the name, as in this example: `${API_TOKEN}`."
    assert kind_fill(part.slot, line, Names(), got) == 1.0
    assert kind_fill(part.slot, "Set `API_TOKEN` in the environment first.", Names(), got) == 0.0  # typed as asked


def test_run_without_an_option_asks_what_happens_by_default() -> None:
    from stigmergy.answer.otherwise import plainly

    q = "if i run pip download without -d, where do the files end up?"
    terms = question_terms(q)
    [part] = parts(q)
    line = _line("It collects the distributions into the directory provided (defaulting to the current directory).")
    assert "without" in word_score(line, terms, plainly(terms, q))[3]
    assert kind_fill(part.slot, line.text, Names(), asked(q, Names())) == 1.0  # "to the current directory": a place
    assert "without" not in plainly(question_terms("can it run without network"), "can it run without network")


def test_a_legacy_thing_is_the_old_one_when_the_asker_asks_what_holds_now() -> None:
    q = "i've always kept my pip settings in ~/.pip/pip.conf, is that still the place for it?"
    legacy = 'The legacy "per-user" configuration file is also loaded, if it exists: $HOME/.pip/pip.conf.'
    current = "User: $HOME/.config/pip/pip.conf, which respects the XDG_CONFIG_HOME environment variable."
    [part] = parts(q)
    got = asked(q, Names())
    assert fill(part.slot, legacy, "", Names(), got)[0] < fill(part.slot, current, "", Names(), got)[0]


def test_a_compound_beside_the_asked_thing_names_it() -> None:
    from stigmergy.answer.which import thing_fill

    q = "which bot puts the triage label on new pip issues?"
    got = asked(q, Names())
    line = "Issues created on the tracker are automatically given the `triage` label by the triage-new-issues bot."
    assert thing_fill("bot", line, Names(), got) == 1.0
    assert thing_fill("bot", "A bot labels new issues for triage.", Names(), got) == 0.0


def test_the_it_of_it_takes_stands_for_nothing() -> None:
    got = parts("which bot labels new issues, and how many votes does it take to make someone a maintainer?")
    assert got[1].text == "how many votes does it take to make someone a maintainer"
    led = parts("How large was the Series A and who led it?")
    assert led[1].text.endswith("led the Series A")


def test_to_wipe_a_store_is_to_clear_it() -> None:
    from stigmergy.answer.otherwise import plainly

    q = "what one command wipes all of pip's cache?"
    terms = question_terms(q)
    line = _line("`pip cache purge` will clear all files from pip's wheel and HTTP caches.")
    assert "wipes" in word_score(line, terms, plainly(terms, q))[3]


def test_the_one_of_a_second_part_is_the_first_parts_thing() -> None:
    got = parts("linux: where's my per-user pip.conf and where's the machine-wide one")
    assert got[1].text == "where is the machine-wide pip.conf"
    assert parts("where's the user config file and where's the global one?")[1].text == "where is the global file"


def test_a_later_part_takes_another_line_when_the_earlier_parts_line_only_nearly_wins(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer.evidence import Evidence
    from stigmergy.answer.select import Scored
    from stigmergy.answer.service import OTHER_PART_MARGIN, _deterministic

    user = _line("User: $HOME/.config/pip/pip.conf, which respects the XDG_CONFIG_HOME environment variable.", n=70)
    env = _line("The environment variable PIP_CONFIG_FILE can be used to specify a configuration file.", n=115)
    first, second = parts("where does my per-user pip config live, and what env var points pip at another config file?")

    def scored(line: Line, score: float) -> Scored:
        return Scored(line, score, 0.5, 0.7, 1.0, False, True, ())

    def answers(gap: float) -> list[int]:
        got = _deterministic([(first, [], [scored(user, 0.64)]),
                              (second, [], [scored(user, 0.62), scored(env, 0.62 - gap)])],
                             Evidence((user, env), (), None), Names(), tmp_path, ("public",), False, 0.46)
        return [s["line"] for s in got[0]]

    assert answers(0.01) == [70, 115]  # a near tie: the second part asks for something else
    assert answers(OTHER_PART_MARGIN + 0.05) == [70]  # the earlier line clearly answers both


def test_a_question_typed_without_a_question_word() -> None:
    assert slot("install everything from a local folder of wheels without touching pypi at all").kind == "procedure"
    assert slot("make pip ignore every single config file on the machine").kind == "procedure"
    assert slot("default pip cache folder on windows?") == Slot("thing", head="folder")
    assert slot("last pip release that still worked on python 2.7?") == Slot("quantity", head="release", unit="version")
    assert slot("i want the test group from ./backend/ without cd-ing there, syntax?") == Slot("thing", head="syntax")
    assert slot("env var equivalent of running pip with -vvv?") == Slot("thing", head="variable")
    # a statement put to the wiki stays one to confirm
    assert slot("norrland still on 412 gateways?").kind == "value"
    assert slot("lodestar went GA on sept 15 right?").kind == "value"


def test_a_question_passed_on_is_what_follows_if() -> None:
    got = parts("pharma prospect asking if we're iso 27001 certified — are we, and is it current?")
    assert got[0].text.startswith("we're iso 27001 certified") and got[0].slot.kind == "yesno"
    assert {t.word for t in question_terms(got[0].text)} >= {"iso", "27001", "certified"}
    assert "prospect" not in {t.word for t in question_terms(got[0].text)}
    assert parts("customer wants to know whether we support SSO")[0].text == "we support SSO"
    assert parts("who is asking if the offsite moved?")[0].slot.kind == "person"  # who asks is what is asked


def test_why_not_is_answered_by_what_stood_in_the_way_after_a_contrast() -> None:
    q = "why didn't keel end up as the new product name?"
    assert _kind(q, "Keel tested well with customers but the domain was not available.") == 1.0
    assert _kind(q, "Three names reached the council: Tidemark, Meridian and Keel.") < 1.0
    # no "not" asked: a contrast is no reason for it
    assert _kind("why did keel test well?", "Keel tested well but the domain was not available.") < 1.0


def test_plain_words_for_a_truck_a_link_and_a_power_cut() -> None:
    from stigmergy.answer.otherwise import plainly

    q = "how do i link a brand new G2 gateway to a site or truck, and how long can it keep going if the power drops?"
    terms = question_terms(q)
    said = word_score(_line("Scan the G2 QR code and choose the site or vehicle it is assigned to."), terms,
                      plainly(terms, q))[3]
    assert {"link", "truck"} <= set(said)
    backup = word_score(_line("Battery backup — Beacon G2: 72 hours."), terms, plainly(terms, q))[3]
    assert {"power", "keep"} <= set(backup)
    assert "power" not in plainly(question_terms("how much power does it draw"), "how much power does it draw")


def test_the_way_in_answers_how_to_get_in() -> None:
    door = "After 20:00 the side door on Travessa do Carvalho is the only entrance."
    assert _kind("how do i get into the lisbon office if im there late, like after 8pm", door) == 1.0
    assert _kind("how do i get the lisbon office wifi password changed", door) < 1.0


def test_the_same_name_with_its_accents_is_no_other_name() -> None:
    from stigmergy.answer.kind_fill import other_name

    ines = Entity(4, "Inês Carvalho", "person", frozenset({"ines carvalho", "ines"}))
    names = Names({"ines carvalho": ines, "ines": ines})
    assert other_name("ines", "Inês Carvalho moved to Lodestar.", names)
    assert not other_name("ines", "Inês moved to Lodestar.", names)


def test_a_box_is_a_unit_and_a_limit_a_threshold() -> None:
    from stigmergy.answer.which import singular

    assert singular("boxes") == "box" and singular("branches") == "branch" and singular("gateways") == "gateway"
    assert singular("addresses") == "address" and singular("class") == "class"
    q = "how many g2 boxes did the team ship out to pellucid"
    [part] = parts(q)
    text = "Beacon G2 units arrived in Leeds. The team shipped 180 of them to Pellucid."
    assert fill(part.slot, text, "", Names(), asked(q, Names()))[0] == 1.0
    limits = "need to change the temp limits on a shipment, how do i do it"
    line = _line("Thresholds can no longer be edited on a shipment; create an amendment instead.")
    from stigmergy.answer.otherwise import same_as

    terms = question_terms(limits)
    assert "limits" in word_score(line, terms, same_as(terms))[3]


def test_a_cross_reference_is_no_value_a_line_gives() -> None:
    from stigmergy.answer.which import CODE_RE, thing_fill

    q = "what file does pip read the original sdist hashes from?"
    got = asked(q, Names())
    ref = "The {ref}`locally-built wheel cache <wheel-caching>` is used in hash-checking mode too."
    assert thing_fill("file", ref, Names(), got) == 0.0
    assert thing_fill("file", "The hashes are obtained from an `origin.json` file in each entry.", Names(), got) == 1.0
    assert not [m.group(0) for m in CODE_RE.finditer("This is now covered in :doc:`../topics/caching`.")]
    assert "`nox`" in [m.group(0) for m in CODE_RE.finditer("pip uses :pypi:`nox` to run its tests")]  # a name
